//===- Lexer.h - tokens of the kcc kernel language ----------------*- C++ -*-===//
#ifndef KCC_FRONTEND_LEXER_H
#define KCC_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <string>

namespace kcc::frontend {

enum class Tok {
  Eof,
  Error,
  Ident,
  IntLit,
  FloatLit,
  // keywords
  KwKernel,
  KwLet,
  KwVar,
  KwIf,
  KwElse,
  KwFor,
  KwWhile,
  KwIn,
  KwTrue,
  KwFalse,
  KwInf,
  KwNan,
  KwNone,
  // punctuation
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Comma,
  Colon,
  Semi,
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  EqEq,
  NotEq,
  AndAnd,
  OrOr,
  Not,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Shl,
  Shr,
};

/// Human-readable spelling of a token kind, for diagnostics ("'('", "identifier").
const char *tokSpelling(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  llvm::StringRef text; // points into the source buffer
  llvm::SMLoc loc() const { return llvm::SMLoc::getFromPointer(text.data()); }
  bool is(Tok k) const { return kind == k; }
};

/// Turns a buffer into tokens. Lexical errors are reported through `report`
/// and produce Tok::Error tokens; lexing always continues.
class Lexer {
public:
  using ReportFn = std::function<void(llvm::SMLoc, const llvm::Twine &)>;
  Lexer(llvm::StringRef buffer, ReportFn report)
      : buf(buffer), cur(buffer.begin()), report(std::move(report)) {
    // Editors may start a UTF-8 file with a byte order mark.
    if (buf.starts_with("\xEF\xBB\xBF"))
      cur += 3;
  }
  Token next();

private:
  Token make(Tok kind, const char *start) {
    return Token{kind, llvm::StringRef(start, cur - start)};
  }
  void skipSpaceAndComments();
  Token lexNumber(const char *start);
  llvm::StringRef buf;
  const char *cur;
  ReportFn report;
};

} // namespace kcc::frontend

#endif
