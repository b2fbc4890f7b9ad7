// Unit tests for the kcc frontend lexer: token kinds, spellings, locations.
#include "frontend/Lexer.h"

#include <doctest/doctest.h>

#include <vector>

using namespace kcc::frontend;

namespace {
struct Lexed {
  std::vector<Token> tokens;
  std::vector<std::string> errors;
};
Lexed lexAll(llvm::StringRef src) {
  Lexed out;
  Lexer lexer(src, [&](llvm::SMLoc, const llvm::Twine &msg) {
    out.errors.push_back(msg.str());
  });
  while (true) {
    Token t = lexer.next();
    if (t.is(Tok::Eof))
      break;
    out.tokens.push_back(t);
  }
  return out;
}
} // namespace

TEST_CASE("frontend lexer: keywords, identifiers and punctuation") {
  Lexed l = lexAll("kernel let var if else for in true false inf nan None foo_1 "
                   "( ) { } [ ] , : ; = += -= *= /= + - * / % < <= > >= == != "
                   "&& || ! & | ^ ~ << >>");
  std::vector<Tok> expected = {
      Tok::KwKernel, Tok::KwLet, Tok::KwVar, Tok::KwIf, Tok::KwElse, Tok::KwFor,
      Tok::KwIn, Tok::KwTrue, Tok::KwFalse, Tok::KwInf, Tok::KwNan, Tok::KwNone,
      Tok::Ident, Tok::LParen, Tok::RParen, Tok::LBrace, Tok::RBrace,
      Tok::LBracket, Tok::RBracket, Tok::Comma, Tok::Colon, Tok::Semi,
      Tok::Assign, Tok::PlusAssign, Tok::MinusAssign, Tok::StarAssign,
      Tok::SlashAssign, Tok::Plus, Tok::Minus, Tok::Star, Tok::Slash,
      Tok::Percent, Tok::Less, Tok::LessEq, Tok::Greater, Tok::GreaterEq,
      Tok::EqEq, Tok::NotEq, Tok::AndAnd, Tok::OrOr, Tok::Not, Tok::Amp,
      Tok::Pipe, Tok::Caret, Tok::Tilde, Tok::Shl, Tok::Shr};
  REQUIRE(l.tokens.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    CHECK(l.tokens[i].kind == expected[i]);
  CHECK(l.tokens[12].text == "foo_1");
  CHECK(l.errors.empty());
}

TEST_CASE("frontend lexer: numbers") {
  Lexed l = lexAll("0 42 0x1F 1.0 1e-5 .5 2.5E3 7.");
  REQUIRE(l.tokens.size() == 8);
  CHECK(l.tokens[0].kind == Tok::IntLit);
  CHECK(l.tokens[1].kind == Tok::IntLit);
  CHECK(l.tokens[2].kind == Tok::IntLit);
  CHECK(l.tokens[2].text == "0x1F");
  CHECK(l.tokens[3].kind == Tok::FloatLit);
  CHECK(l.tokens[4].kind == Tok::FloatLit);
  CHECK(l.tokens[4].text == "1e-5");
  CHECK(l.tokens[5].kind == Tok::FloatLit);
  CHECK(l.tokens[5].text == ".5");
  CHECK(l.tokens[6].kind == Tok::FloatLit);
  CHECK(l.tokens[7].kind == Tok::FloatLit);
  CHECK(l.errors.empty());
}

TEST_CASE("frontend lexer: comments and token locations") {
  llvm::StringRef src = "// line comment\n/* block\n comment */ let x = 1;";
  Lexed l = lexAll(src);
  REQUIRE(l.tokens.size() == 5);
  CHECK(l.tokens[0].kind == Tok::KwLet);
  // Locations point into the buffer.
  CHECK(l.tokens[0].loc().getPointer() == src.data() + src.find("let"));
  CHECK(l.tokens[1].loc().getPointer() == src.data() + src.find("x ="));
  CHECK(l.tokens[3].text == "1");
}

TEST_CASE("frontend lexer: errors are reported and lexing continues") {
  Lexed l = lexAll("let $ x = 0x; /* open");
  CHECK(l.errors.size() == 3);
  CHECK(l.errors[0].find("unexpected character '$'") != std::string::npos);
  CHECK(l.errors[1].find("hexadecimal") != std::string::npos);
  CHECK(l.errors[2].find("unterminated block comment") != std::string::npos);
  // let, error($), x, =, error(0x), ;
  REQUIRE(l.tokens.size() == 6);
  CHECK(l.tokens[1].kind == Tok::Error);
  CHECK(l.tokens[2].kind == Tok::Ident);
}
