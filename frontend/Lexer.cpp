//===- Lexer.cpp - tokens of the kcc kernel language ----------------------===//
#include "frontend/Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include <cctype>

using namespace kcc::frontend;

const char *kcc::frontend::tokSpelling(Tok kind) {
  switch (kind) {
  case Tok::Eof: return "end of file";
  case Tok::Error: return "invalid token";
  case Tok::Ident: return "identifier";
  case Tok::IntLit: return "integer literal";
  case Tok::FloatLit: return "float literal";
  case Tok::KwKernel: return "'kernel'";
  case Tok::KwLet: return "'let'";
  case Tok::KwVar: return "'var'";
  case Tok::KwIf: return "'if'";
  case Tok::KwElse: return "'else'";
  case Tok::KwFor: return "'for'";
  case Tok::KwWhile:
    return "'while'";
  case Tok::KwIn: return "'in'";
  case Tok::KwTrue: return "'true'";
  case Tok::KwFalse: return "'false'";
  case Tok::KwInf: return "'inf'";
  case Tok::KwNan: return "'nan'";
  case Tok::KwNone: return "'None'";
  case Tok::LParen: return "'('";
  case Tok::RParen: return "')'";
  case Tok::LBrace: return "'{'";
  case Tok::RBrace: return "'}'";
  case Tok::LBracket: return "'['";
  case Tok::RBracket: return "']'";
  case Tok::Comma: return "','";
  case Tok::Colon: return "':'";
  case Tok::Semi: return "';'";
  case Tok::Assign: return "'='";
  case Tok::PlusAssign: return "'+='";
  case Tok::MinusAssign: return "'-='";
  case Tok::StarAssign: return "'*='";
  case Tok::SlashAssign: return "'/='";
  case Tok::Plus: return "'+'";
  case Tok::Minus: return "'-'";
  case Tok::Star: return "'*'";
  case Tok::Slash: return "'/'";
  case Tok::Percent: return "'%'";
  case Tok::Less: return "'<'";
  case Tok::LessEq: return "'<='";
  case Tok::Greater: return "'>'";
  case Tok::GreaterEq: return "'>='";
  case Tok::EqEq: return "'=='";
  case Tok::NotEq: return "'!='";
  case Tok::AndAnd: return "'&&'";
  case Tok::OrOr: return "'||'";
  case Tok::Not: return "'!'";
  case Tok::Amp: return "'&'";
  case Tok::Pipe: return "'|'";
  case Tok::Caret: return "'^'";
  case Tok::Tilde: return "'~'";
  case Tok::Shl: return "'<<'";
  case Tok::Shr: return "'>>'";
  }
  return "token";
}

void Lexer::skipSpaceAndComments() {
  const char *end = buf.end();
  while (cur < end) {
    if (isspace(static_cast<unsigned char>(*cur))) {
      ++cur;
    } else if (*cur == '/' && cur + 1 < end && cur[1] == '/') {
      while (cur < end && *cur != '\n')
        ++cur;
    } else if (*cur == '/' && cur + 1 < end && cur[1] == '*') {
      const char *start = cur;
      cur += 2;
      while (cur + 1 < end && !(cur[0] == '*' && cur[1] == '/'))
        ++cur;
      if (cur + 1 >= end) {
        cur = end;
        report(llvm::SMLoc::getFromPointer(start),
               "unterminated block comment; add '*/'");
        return;
      }
      cur += 2;
    } else {
      return;
    }
  }
}

Token Lexer::lexNumber(const char *start) {
  const char *end = buf.end();
  auto isDigit = [&](const char *p) { return p < end && isdigit((unsigned char)*p); };
  if (*start == '0' && cur + 1 < end && (cur[1] == 'x' || cur[1] == 'X')) {
    cur += 2;
    while (cur < end && isxdigit((unsigned char)*cur))
      ++cur;
    if (cur - start == 2) {
      report(llvm::SMLoc::getFromPointer(start),
             "hexadecimal literal needs digits after '0x'");
      return make(Tok::Error, start);
    }
  } else {
    bool isFloat = false;
    while (isDigit(cur))
      ++cur;
    if (cur < end && *cur == '.' ) {
      isFloat = true;
      ++cur;
      while (isDigit(cur))
        ++cur;
    }
    if (cur < end && (*cur == 'e' || *cur == 'E')) {
      const char *p = cur + 1;
      if (p < end && (*p == '+' || *p == '-'))
        ++p;
      if (isDigit(p)) {
        isFloat = true;
        cur = p;
        while (isDigit(cur))
          ++cur;
      } else {
        ++cur;
        report(llvm::SMLoc::getFromPointer(start),
               "exponent of float literal has no digits (write e.g. 1e-5)");
        return make(Tok::Error, start);
      }
    }
    if (isFloat) {
      if (cur < end && (isalnum((unsigned char)*cur) || *cur == '_')) {
        while (cur < end && (isalnum((unsigned char)*cur) || *cur == '_'))
          ++cur;
        report(llvm::SMLoc::getFromPointer(start),
               "invalid float literal '" + llvm::StringRef(start, cur - start) +
                   "'; literals take no suffix (write 1.5, or cast(1.5, f16) "
                   "for another type)");
        return make(Tok::Error, start);
      }
      return make(Tok::FloatLit, start);
    }
  }
  if (cur < end && (isalnum((unsigned char)*cur) || *cur == '_')) {
    while (cur < end && (isalnum((unsigned char)*cur) || *cur == '_'))
      ++cur;
    report(llvm::SMLoc::getFromPointer(start),
           "invalid integer literal '" + llvm::StringRef(start, cur - start) +
               "'; literals take no suffix and names cannot start with a "
               "digit");
    return make(Tok::Error, start);
  }
  return make(Tok::IntLit, start);
}

Token Lexer::next() {
  skipSpaceAndComments();
  const char *end = buf.end();
  const char *start = cur;
  if (cur >= end)
    return Token{Tok::Eof, llvm::StringRef(end, 0)};
  char c = *cur;
  if (isalpha((unsigned char)c) || c == '_') {
    while (cur < end && (isalnum((unsigned char)*cur) || *cur == '_'))
      ++cur;
    llvm::StringRef text(start, cur - start);
    // Generated symbols (specializations, stubs, tensor maps) append to a
    // name, and ptxas's time grows with symbol length until it fails.
    constexpr size_t kMaxNameLength = 256;
    if (text.size() > kMaxNameLength) {
      report(llvm::SMLoc::getFromPointer(start),
             "a name of " + llvm::Twine(text.size()) +
                 " characters is longer than the " +
                 llvm::Twine(kMaxNameLength) +
                 " kcc allows (the symbols it generates append to names); "
                 "shorten it");
      return make(Tok::Error, start);
    }
    Tok kind = llvm::StringSwitch<Tok>(text)
                   .Case("kernel", Tok::KwKernel)
                   .Case("let", Tok::KwLet)
                   .Case("var", Tok::KwVar)
                   .Case("if", Tok::KwIf)
                   .Case("else", Tok::KwElse)
                   .Case("for", Tok::KwFor)
                   .Case("while", Tok::KwWhile)
                   .Case("in", Tok::KwIn)
                   .Case("true", Tok::KwTrue)
                   .Case("false", Tok::KwFalse)
                   .Case("inf", Tok::KwInf)
                   .Case("nan", Tok::KwNan)
                   .Case("None", Tok::KwNone)
                   .Default(Tok::Ident);
    return make(kind, start);
  }
  if (isdigit((unsigned char)c) ||
      (c == '.' && cur + 1 < end && isdigit((unsigned char)cur[1])))
    return lexNumber(start);
  ++cur;
  auto peekIs = [&](char n) {
    if (cur < end && *cur == n) {
      ++cur;
      return true;
    }
    return false;
  };
  switch (c) {
  case '(': return make(Tok::LParen, start);
  case ')': return make(Tok::RParen, start);
  case '{': return make(Tok::LBrace, start);
  case '}': return make(Tok::RBrace, start);
  case '[': return make(Tok::LBracket, start);
  case ']': return make(Tok::RBracket, start);
  case ',': return make(Tok::Comma, start);
  case ':': return make(Tok::Colon, start);
  case ';': return make(Tok::Semi, start);
  case '%': return make(Tok::Percent, start);
  case '^': return make(Tok::Caret, start);
  case '~': return make(Tok::Tilde, start);
  case '=': return make(peekIs('=') ? Tok::EqEq : Tok::Assign, start);
  case '+': return make(peekIs('=') ? Tok::PlusAssign : Tok::Plus, start);
  case '-': return make(peekIs('=') ? Tok::MinusAssign : Tok::Minus, start);
  case '*': return make(peekIs('=') ? Tok::StarAssign : Tok::Star, start);
  case '/': return make(peekIs('=') ? Tok::SlashAssign : Tok::Slash, start);
  case '!': return make(peekIs('=') ? Tok::NotEq : Tok::Not, start);
  case '&': return make(peekIs('&') ? Tok::AndAnd : Tok::Amp, start);
  case '|': return make(peekIs('|') ? Tok::OrOr : Tok::Pipe, start);
  case '<':
    if (peekIs('<')) return make(Tok::Shl, start);
    return make(peekIs('=') ? Tok::LessEq : Tok::Less, start);
  case '>':
    if (peekIs('>')) return make(Tok::Shr, start);
    return make(peekIs('=') ? Tok::GreaterEq : Tok::Greater, start);
  default:
    break;
  }
  // Outside comments the language is ASCII. Name what was found without
  // echoing bytes a terminal cannot show, once for a run of non-ASCII bytes.
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x80) {
    while (cur < end && static_cast<unsigned char>(*cur) >= 0x80)
      ++cur;
    const auto *first = reinterpret_cast<const llvm::UTF8 *>(start);
    const auto *last = reinterpret_cast<const llvm::UTF8 *>(cur);
    llvm::UTF32 codePoint = 0;
    if (llvm::convertUTF8Sequence(&first, last, &codePoint,
                                  llvm::strictConversion) == llvm::conversionOK)
      report(llvm::SMLoc::getFromPointer(start),
             "unexpected character U+" +
                 llvm::utohexstr(codePoint, /*LowerCase=*/false,
                                 /*Width=*/codePoint < 0x10000 ? 4 : 0) +
                 " '" +
                 llvm::StringRef(start, reinterpret_cast<const char *>(first) -
                                            start) +
                 "'; outside comments kcc source is ASCII");
    else
      report(llvm::SMLoc::getFromPointer(start),
             "invalid UTF-8 byte 0x" + llvm::utohexstr(u, false, 2) +
                 "; kcc source is ASCII (comments may hold UTF-8)");
    return make(Tok::Error, start);
  }
  if (!isprint(u)) {
    report(llvm::SMLoc::getFromPointer(start),
           "unexpected control character 0x" + llvm::utohexstr(u, false, 2) +
               "; remove it");
    return make(Tok::Error, start);
  }
  if (c == '"' || c == '\'') {
    report(llvm::SMLoc::getFromPointer(start),
           llvm::Twine("unexpected quote ") + llvm::StringRef(start, 1) +
               "; kcc has no string or character literals");
    return make(Tok::Error, start);
  }
  report(llvm::SMLoc::getFromPointer(start),
         llvm::Twine("unexpected character '") + llvm::StringRef(start, 1) +
             "'; it is not part of the kcc language" +
             (c == '#' ? " (comments start with //)" : ""));
  return make(Tok::Error, start);
}
