//===- Parser.cpp - recursive-descent parser for kcc kernels --------------===//
//
// Kept whole although it is a little over the project's ~900-line rule: it
// is one recursive-descent parser, the Parser class and its methods in
// grammar order (kernels, statements, expressions), whose levels call one
// another; splitting it would only add a private header for the class. If it
// grows much further, split it along those three sections.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include <cctype>
#include <cmath>
#include <cstdlib>

using namespace kcc::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

const char *kcc::frontend::binOpSpelling(BinOp op) {
  switch (op) {
  case BinOp::OrOr: return "||";
  case BinOp::AndAnd: return "&&";
  case BinOp::Or: return "|";
  case BinOp::Xor: return "^";
  case BinOp::And: return "&";
  case BinOp::Eq: return "==";
  case BinOp::Ne: return "!=";
  case BinOp::Lt: return "<";
  case BinOp::Le: return "<=";
  case BinOp::Gt: return ">";
  case BinOp::Ge: return ">=";
  case BinOp::Shl: return "<<";
  case BinOp::Shr: return ">>";
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::Rem: return "%";
  }
  return "?";
}

/// The value of integer literal `text`, negated if `negative`; false if it
/// does not fit int64_t (-2^63 does). Never overflows: the literal that
/// fuzzing found, -9223372036854775808, used to be negated as INT64_MIN.
static bool signedLiteral(StringRef text, bool negative, int64_t &out) {
  uint64_t v = 0;
  if (text.getAsInteger(0, v) || v > uint64_t(INT64_MAX) + (negative ? 1 : 0))
    return false;
  out = !negative ? int64_t(v) : v == 0 ? 0 : -int64_t(v - 1) - 1;
  return true;
}

static std::string literalRangeError(StringRef text, bool negative) {
  return negative ? "integer literal -" + text.str() +
                        " is too small (the minimum is -2^63)"
                  : "integer literal " + text.str() +
                        " is too large (the maximum is 2^63-1)";
}

namespace {
class Parser {
public:
  Parser(StringRef buffer, Diagnostics &diags)
      : diags(diags),
        lexer(buffer, [&diags](SMLoc loc, const Twine &msg) {
          diags.error(loc, msg);
        }) {
    tok = lexer.next();
    peekTok = lexer.next();
  }

  Module parseModule();
  ExprPtr parseExpr() { return parseBinary(0); }
  bool atEof() const { return tok.is(Tok::Eof); }
  void expectEof() {
    if (!tok.is(Tok::Eof))
      errorHere("unexpected " + describe(tok) + " after expression");
  }

private:
  // --- token helpers -------------------------------------------------------
  void advance() {
    prevEnd = tok.text.end();
    tok = peekTok;
    peekTok = lexer.next();
  }
  /// The source from `begin` to the end of the last token, on one line
  /// (whitespace runs as one space): messages quote it.
  std::string textSince(const char *begin) const {
    std::string text;
    for (const char *c = begin; prevEnd && c < prevEnd; ++c)
      if (!std::isspace(static_cast<unsigned char>(*c)))
        text += *c;
      else if (!text.empty() && text.back() != ' ')
        text += ' ';
    return text;
  }
  bool consumeIf(Tok k) {
    if (!tok.is(k))
      return false;
    advance();
    return true;
  }
  std::string describe(const Token &t) {
    if (t.is(Tok::Eof))
      return "end of file";
    if (t.is(Tok::Error))
      return "invalid token";
    return "'" + t.text.str() + "'";
  }
  void errorHere(const Twine &msg) {
    if (tok.is(Tok::Error))
      return; // the lexer already reported it
    diags.error(tok.loc(), msg);
  }
  /// Reports "expected X ..." at the current token. Returns false.
  /// A clause of one value, `name(value)` (group(N), stages(S)), at the
  /// current token: sets `has`, `loc` and `value`; a second such clause is
  /// an error (parsing goes on). `letter` and `example` spell the hints,
  /// `what` the value. False after reporting a syntax error.
  bool parseOneValueClause(Kernel &kernel, bool &has, SMLoc &loc,
                           ExprPtr &value, StringRef letter, StringRef example,
                           StringRef what) {
    std::string name = tok.text.str();
    if (has)
      errorHere("kernel '" + kernel.name + "' has more than one " + name +
                " clause; keep one " + name + "(" + letter + ")");
    has = true;
    loc = tok.loc();
    advance();
    if (!expect(Tok::LParen,
                "after '" + name + "' (write " + name + "(" + example + "))"))
      return false;
    if (tok.is(Tok::RParen)) {
      errorHere(name + " takes " + what + ", e.g. " + name + "(" + example +
                ")");
      return false;
    }
    value = parseExpr();
    if (!value)
      return false;
    return expect(Tok::RParen, "to close '" + name + "(' (it takes one value)");
  }

  bool expect(Tok k, const Twine &context) {
    if (consumeIf(k))
      return true;
    // A missing ';' or ')' is best reported right after the previous token.
    if (k == Tok::Semi && prevEnd &&
        !tok.is(Tok::Error)) {
      diags.error(SMLoc::getFromPointer(prevEnd),
                  Twine("expected ") + tokSpelling(k) + " " + context);
      return false;
    }
    errorHere(Twine("expected ") + tokSpelling(k) + " " + context + ", found " +
              describe(tok));
    return false;
  }

  // --- recovery --------------------------------------------------------------
  /// Skips to the end of the current statement: past a ';' or up to a '}' or
  /// a keyword that starts a statement, skipping balanced brackets.
  void syncStatement() {
    int depth = 0;
    while (!tok.is(Tok::Eof)) {
      if (depth == 0) {
        if (tok.is(Tok::Semi)) {
          advance();
          return;
        }
        if (tok.is(Tok::RBrace) || tok.is(Tok::KwLet) || tok.is(Tok::KwVar) ||
            tok.is(Tok::KwIf) || tok.is(Tok::KwFor) || tok.is(Tok::KwWhile) ||
            tok.is(Tok::KwKernel))
          return;
      }
      if (tok.is(Tok::LParen) || tok.is(Tok::LBracket) || tok.is(Tok::LBrace))
        ++depth;
      else if (tok.is(Tok::RParen) || tok.is(Tok::RBracket) ||
               tok.is(Tok::RBrace))
        depth = depth > 0 ? depth - 1 : 0;
      advance();
    }
  }
  void syncKernel() {
    while (!tok.is(Tok::Eof) && !tok.is(Tok::KwKernel))
      advance();
  }

  // --- grammar -----------------------------------------------------------------
  std::unique_ptr<Kernel> parseKernel();
  bool parseConstValue(ConstValue &value);
  std::unique_ptr<TypeRef> parseType();
  bool parseBlock(std::vector<StmtPtr> &out);
  StmtPtr parseStatement();
  StmtPtr parseLet();
  StmtPtr parseIf();
  StmtPtr parseFor();
  StmtPtr parseWhile();
  bool parseConditionAndBlock(Stmt &s, const char *keyword,
                              const char *example);
  ExprPtr parseBinary(int minPrec);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();

  // Nesting guard for recursive descent (expressions and blocks).
  static constexpr unsigned kMaxNesting = 256;
  struct NestingScope {
    Parser &p;
    explicit NestingScope(Parser &p) : p(p) {}
    ~NestingScope() { --p.nesting; }
  };
  /// `what` nested too deeply: `hint` says how to write it instead.
  bool enterNesting(const char *what, const char *hint);
  /// Reports `msg` (once) and skips the rest of the file.
  void giveUpTooDeep(const Twine &msg);
  unsigned nesting = 0;
  static constexpr unsigned kMaxElseIfChain = 128;
  unsigned elseIfDepth = 0;
  bool nestingReported = false;

  Diagnostics &diags;
  Lexer lexer;
  Token tok, peekTok;
  const char *prevEnd = nullptr;
};
} // namespace

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

Module Parser::parseModule() {
  Module module;
  while (!tok.is(Tok::Eof)) {
    if (!tok.is(Tok::KwKernel)) {
      errorHere("expected 'kernel' at top level, found " + describe(tok));
      advance();
      syncKernel();
      continue;
    }
    if (auto k = parseKernel())
      module.kernels.push_back(std::move(k));
    else
      syncKernel();
  }
  return module;
}

bool Parser::parseConstValue(ConstValue &value) {
  value.loc = tok.loc();
  bool negative = false;
  if (tok.is(Tok::Minus) && peekTok.is(Tok::IntLit)) {
    negative = true;
    advance();
  }
  if (tok.is(Tok::IntLit)) {
    if (!signedLiteral(tok.text, negative, value.intValue)) {
      errorHere(literalRangeError(tok.text, negative));
      value.valid = false;
    }
    value.kind = ConstValue::Int;
    advance();
    return true;
  }
  if (tok.is(Tok::KwTrue) || tok.is(Tok::KwFalse)) {
    value.kind = ConstValue::Bool;
    value.boolValue = tok.is(Tok::KwTrue);
    advance();
    return true;
  }
  if (tok.is(Tok::Ident)) {
    value.kind = ConstValue::Type;
    value.typeName = tok.text.str();
    advance();
    return true;
  }
  errorHere("expected a constant value (an integer, true/false or an element "
            "type such as f32), found " + describe(tok));
  return false;
}

std::unique_ptr<TypeRef> Parser::parseType() {
  // ptr<ptr<...>> recurses (Sema refuses pointers to pointers later).
  NestingScope scope(*this);
  if (!enterNesting("type", "pointers to pointers are not supported"))
    return nullptr;
  if (!tok.is(Tok::Ident)) {
    errorHere("expected a type (e.g. i32, f32, ptr<f16>), found " +
              describe(tok));
    return nullptr;
  }
  auto type = std::make_unique<TypeRef>();
  type->loc = tok.loc();
  type->name = tok.text.str();
  advance();
  if (type->name == "ptr") {
    type->isPtr = true;
    if (!expect(Tok::Less, "after 'ptr' (write ptr<f32>)"))
      return nullptr;
    type->pointee = parseType();
    if (!type->pointee)
      return nullptr;
    if (!expect(Tok::Greater, "to close 'ptr<'"))
      return nullptr;
  } else if (type->name == "tensor") {
    type->isTensor = true;
    if (!expect(Tok::Less, "after 'tensor' (write tensor<f32, 2>)"))
      return nullptr;
    type->pointee = parseType();
    if (!type->pointee)
      return nullptr;
    if (!expect(Tok::Comma, "after the element type of 'tensor<' (write "
                            "tensor<f32, 2>)"))
      return nullptr;
    type->rankLoc = tok.loc();
    if (!tok.is(Tok::IntLit)) {
      errorHere("expected the rank of the tensor (1, 2 or 3), found " +
                describe(tok));
      return nullptr;
    }
    int64_t rank = 0;
    if (!signedLiteral(tok.text, /*negative=*/false, rank)) {
      errorHere(literalRangeError(tok.text, false));
      return nullptr;
    }
    type->rank = rank;
    advance();
    if (!expect(Tok::Greater, "to close 'tensor<'"))
      return nullptr;
  }
  return type;
}

std::unique_ptr<Kernel> Parser::parseKernel() {
  auto kernel = std::make_unique<Kernel>();
  advance(); // 'kernel'
  if (!tok.is(Tok::Ident)) {
    errorHere("expected the kernel name after 'kernel', found " +
              describe(tok));
    return nullptr;
  }
  kernel->name = tok.text.str();
  kernel->loc = tok.loc();
  advance();

  // <NAME: kind [in (candidates...)] [= default], ...>
  if (consumeIf(Tok::Less)) {
    while (!tok.is(Tok::Greater)) {
      ConstParam cp;
      if (!tok.is(Tok::Ident)) {
        errorHere("expected a constant parameter name, found " + describe(tok));
        return nullptr;
      }
      cp.name = tok.text.str();
      cp.loc = tok.loc();
      advance();
      if (!expect(Tok::Colon, "after constant parameter name (write NAME: i32)"))
        return nullptr;
      if (!tok.is(Tok::Ident)) {
        errorHere("expected i32, i64, bool or dtype, found " + describe(tok));
        return nullptr;
      }
      cp.kindName = tok.text.str();
      cp.kindLoc = tok.loc();
      advance();
      if (tok.is(Tok::KwIn)) {
        cp.candidatesLoc = tok.loc();
        advance();
        if (!expect(Tok::LParen, "after 'in' (write NAME: i32 in (64, 128))"))
          return nullptr;
        while (!tok.is(Tok::RParen)) {
          ConstValue v;
          if (!parseConstValue(v))
            return nullptr;
          cp.candidates.push_back(v);
          if (!consumeIf(Tok::Comma))
            break;
        }
        if (!expect(Tok::RParen, "to close the candidate values"))
          return nullptr;
        if (cp.candidates.empty()) {
          diags.error(cp.candidatesLoc,
                      "tunable constant '" + cp.name +
                          "' needs at least one candidate value");
          return nullptr;
        }
      }
      if (consumeIf(Tok::Assign)) {
        if (!cp.candidates.empty()) {
          errorHere("tunable constant '" + cp.name +
                    "' takes no default: a specialize clause that leaves it "
                    "out lets the compiler choose among its candidates");
          return nullptr;
        }
        cp.hasDefault = true;
        if (!parseConstValue(cp.defaultValue))
          return nullptr;
      }
      kernel->constParams.push_back(std::move(cp));
      if (!consumeIf(Tok::Comma))
        break;
    }
    if (!expect(Tok::Greater, "to close the constant parameter list"))
      return nullptr;
  }

  // (name: type facts..., ...)
  if (!expect(Tok::LParen, "to start the parameter list of kernel '" +
                               kernel->name + "'"))
    return nullptr;
  while (!tok.is(Tok::RParen)) {
    Param p;
    if (!tok.is(Tok::Ident)) {
      errorHere("expected a parameter name, found " + describe(tok));
      return nullptr;
    }
    p.name = tok.text.str();
    p.loc = tok.loc();
    advance();
    if (!expect(Tok::Colon, "after parameter name (write name: type)"))
      return nullptr;
    p.type = parseType();
    if (!p.type)
      return nullptr;
    while (tok.is(Tok::Ident) &&
           (tok.text == "align" || tok.text == "multiple_of")) {
      Fact f;
      f.kind = tok.text == "align" ? Fact::Align : Fact::MultipleOf;
      f.loc = tok.loc();
      advance();
      if (!expect(Tok::LParen, "after fact name"))
        return nullptr;
      bool negative = consumeIf(Tok::Minus);
      if (!tok.is(Tok::IntLit)) {
        errorHere("expected an integer literal in fact, found " + describe(tok));
        return nullptr;
      }
      bool tooLarge = !signedLiteral(tok.text, negative, f.value);
      if (tooLarge)
        errorHere(literalRangeError(tok.text, negative));
      advance();
      if (!expect(Tok::RParen, "to close the fact"))
        return nullptr;
      if (!tooLarge) // reported; checking it would only add noise
        p.facts.push_back(f);
    }
    kernel->params.push_back(std::move(p));
    if (!consumeIf(Tok::Comma))
      break;
  }
  if (!expect(Tok::RParen, "to close the parameter list"))
    return nullptr;

  // clauses
  while (tok.is(Tok::Ident)) {
    if (tok.text == "grid") {
      if (kernel->hasGrid)
        errorHere("kernel '" + kernel->name + "' has more than one grid clause");
      kernel->hasGrid = true;
      kernel->gridLoc = tok.loc();
      kernel->grid.clear();
      advance();
      if (!expect(Tok::LParen, "after 'grid'"))
        return nullptr;
      while (!tok.is(Tok::RParen)) {
        auto e = parseExpr();
        if (!e)
          return nullptr;
        kernel->grid.push_back(std::move(e));
        if (!consumeIf(Tok::Comma))
          break;
      }
      if (!expect(Tok::RParen, "to close 'grid('"))
        return nullptr;
    } else if (tok.text == "group") {
      // Sema checks that N is a positive constant and the grid is 2-D.
      if (!parseOneValueClause(*kernel, kernel->hasGroup, kernel->groupLoc,
                               kernel->group, "N", "8",
                               "the number of program_id(1) values per group"))
        return nullptr;
    } else if (tok.text == "stages") {
      // Sema checks that S is a constant from 2 to 8.
      if (!parseOneValueClause(*kernel, kernel->hasStages, kernel->stagesLoc,
                               kernel->stages, "S", "4",
                               "the pipeline's depth in shared stages"))
        return nullptr;
    } else if (tok.text == "require") {
      advance();
      if (!expect(Tok::LParen, "after 'require' (write require(n % 8 == 0))"))
        return nullptr;
      const char *begin = tok.loc().getPointer();
      auto e = parseExpr();
      if (!e)
        return nullptr;
      kernel->requireText.push_back(textSince(begin));
      kernel->requireLocs.push_back(SMLoc::getFromPointer(begin));
      kernel->requires.push_back(std::move(e));
      if (!expect(Tok::RParen, "to close 'require(' (it takes one condition)"))
        return nullptr;
    } else if (tok.text == "specialize") {
      SpecializeClause clause;
      clause.loc = tok.loc();
      advance();
      if (!expect(Tok::LParen, "after 'specialize'"))
        return nullptr;
      while (!tok.is(Tok::RParen)) {
        SpecBinding b;
        if (!tok.is(Tok::Ident)) {
          errorHere("expected NAME = value in specialize, found " +
                    describe(tok));
          return nullptr;
        }
        b.name = tok.text.str();
        b.loc = tok.loc();
        advance();
        if (!expect(Tok::Assign, "after constant name in specialize"))
          return nullptr;
        if (!parseConstValue(b.value))
          return nullptr;
        clause.bindings.push_back(std::move(b));
        if (!consumeIf(Tok::Comma))
          break;
      }
      if (!expect(Tok::RParen, "to close 'specialize('"))
        return nullptr;
      kernel->specializations.push_back(std::move(clause));
    } else {
      errorHere("unknown kernel clause '" + tok.text +
                "'; expected grid(...), group(...), stages(...), "
                "require(...), specialize(...) or '{'");
      return nullptr;
    }
  }
  if (!tok.is(Tok::LBrace)) {
    errorHere("expected '{' to start the body of kernel '" + kernel->name +
              "', found " + describe(tok));
    return nullptr;
  }
  parseBlock(kernel->body);
  kernel->bodyEndLoc = SMLoc::getFromPointer(prevEnd ? prevEnd - 1 : nullptr);
  return kernel;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Parser::parseBlock(std::vector<StmtPtr> &out) {
  NestingScope scope(*this);
  if (!enterNesting("block", "split it into smaller blocks"))
    return false;
  SMLoc open = tok.loc();
  if (!expect(Tok::LBrace, "to start a block"))
    return false;
  while (!tok.is(Tok::RBrace)) {
    if (tok.is(Tok::Eof) || tok.is(Tok::KwKernel)) {
      diags.error(open, "unterminated block: this '{' has no matching '}'");
      return false;
    }
    if (auto s = parseStatement())
      out.push_back(std::move(s));
  }
  advance(); // '}'
  return true;
}

StmtPtr Parser::parseStatement() {
  switch (tok.kind) {
  case Tok::KwLet:
  case Tok::KwVar:
    return parseLet();
  case Tok::KwIf:
    return parseIf();
  case Tok::KwFor:
    return parseFor();
  case Tok::KwWhile:
    return parseWhile();
  case Tok::LBrace: {
    auto s = std::make_unique<Stmt>(StmtKind::Block, tok.loc());
    parseBlock(s->body);
    return s;
  }
  case Tok::Semi:
    advance(); // empty statement
    return nullptr;
  default:
    break;
  }
  // assignment or expression statement
  if (tok.is(Tok::Ident)) {
    Tok k = peekTok.kind;
    if (k == Tok::Assign || k == Tok::PlusAssign || k == Tok::MinusAssign ||
        k == Tok::StarAssign || k == Tok::SlashAssign) {
      auto s = std::make_unique<Stmt>(StmtKind::Assign, peekTok.loc());
      s->name = tok.text.str();
      s->nameLoc = tok.loc();
      advance();
      s->isCompound = k != Tok::Assign;
      s->compoundOp = k == Tok::PlusAssign    ? BinOp::Add
                      : k == Tok::MinusAssign ? BinOp::Sub
                      : k == Tok::StarAssign  ? BinOp::Mul
                                              : BinOp::Div;
      advance();
      s->init = parseExpr();
      if (!s->init) {
        syncStatement();
        return nullptr;
      }
      if (!expect(Tok::Semi, "after assignment"))
        syncStatement();
      return s;
    }
  }
  SMLoc loc = tok.loc();
  auto e = parseExpr();
  if (!e) {
    syncStatement();
    return nullptr;
  }
  if (tok.is(Tok::Assign)) {
    errorHere("only a variable name can be assigned to");
    syncStatement();
    return nullptr;
  }
  auto s = std::make_unique<Stmt>(StmtKind::ExprStmt, loc);
  s->init = std::move(e);
  if (!expect(Tok::Semi, "after expression statement"))
    syncStatement();
  return s;
}

StmtPtr Parser::parseLet() {
  auto s = std::make_unique<Stmt>(StmtKind::Let, tok.loc());
  s->isMutable = tok.is(Tok::KwVar);
  const char *kw = s->isMutable ? "var" : "let";
  advance();
  if (!tok.is(Tok::Ident)) {
    errorHere(Twine("expected a variable name after '") + kw + "', found " +
              describe(tok));
    syncStatement();
    return nullptr;
  }
  s->name = tok.text.str();
  s->nameLoc = tok.loc();
  advance();
  bool ok = true;
  if (consumeIf(Tok::Colon)) {
    s->type = parseType();
    ok = s->type != nullptr;
  }
  if (ok && !tok.is(Tok::Assign)) {
    errorHere(Twine("expected '=' and an initial value in '") + kw + " " +
              s->name + "', found " + describe(tok));
    ok = false;
  }
  if (ok) {
    advance();
    s->init = parseExpr();
    ok = s->init != nullptr;
  }
  if (ok && !expect(Tok::Semi, Twine("after '") + kw + "' statement"))
    ok = false;
  if (!ok) {
    // Keep the declaration (poisoned) so later uses don't cascade.
    s->init.reset();
    syncStatement();
  }
  return s;
}

/// After `keyword`: its condition (into s.cond and s.condText) and block
/// (s.body). False after an error that abandoned the statement.
bool Parser::parseConditionAndBlock(Stmt &s, const char *keyword,
                                    const char *example) {
  advance(); // the keyword
  if (tok.is(Tok::LBrace)) {
    errorHere(Twine("expected a condition after '") + keyword + "' (write " +
              example + ")");
  } else {
    const char *begin = tok.loc().getPointer();
    s.cond = parseExpr();
    s.condText = textSince(begin);
  }
  if (!s.cond) // skip to the block and parse it anyway
    while (!tok.is(Tok::LBrace) && !tok.is(Tok::Eof) && !tok.is(Tok::RBrace))
      advance();
  if (!tok.is(Tok::LBrace)) {
    errorHere(Twine("expected '{' after the ") + keyword +
              " condition, found " + describe(tok));
    syncStatement();
    return false;
  }
  parseBlock(s.body);
  return true;
}

StmtPtr Parser::parseWhile() {
  auto s = std::make_unique<Stmt>(StmtKind::While, tok.loc());
  if (!parseConditionAndBlock(*s, "while", "while t != mine { ... }"))
    return nullptr;
  return s;
}

StmtPtr Parser::parseIf() {
  auto s = std::make_unique<Stmt>(StmtKind::If, tok.loc());
  if (!parseConditionAndBlock(*s, "if", "if x < n { ... }"))
    return nullptr;
  if (consumeIf(Tok::KwElse)) {
    s->hasElse = true;
    if (tok.is(Tok::KwIf)) {
      // Each `else if` nests the next if in this one's else branch (and an
      // scf.if in the IR): a long chain recurses like nested blocks. It
      // counts as nesting, and has a lower limit of its own so that the
      // error names the chain rather than what happens to be innermost.
      NestingScope scope(*this);
      llvm::scope_exit leaveChain([&] { --elseIfDepth; });
      if (++elseIfDepth > kMaxElseIfChain) {
        giveUpTooDeep("else-if chain too long (more than " +
                      Twine(kMaxElseIfChain) +
                      " branches); split it into several if statements");
        return nullptr;
      }
      if (!enterNesting("else-if chain", "split it into several if statements"))
        return nullptr;
      if (auto nested = parseIf())
        s->elseBody.push_back(std::move(nested));
    } else if (tok.is(Tok::LBrace)) {
      parseBlock(s->elseBody);
    } else {
      errorHere("expected '{' or 'if' after 'else', found " + describe(tok));
      syncStatement();
    }
  }
  if (!s->cond)
    return nullptr;
  return s;
}

StmtPtr Parser::parseFor() {
  auto s = std::make_unique<Stmt>(StmtKind::For, tok.loc());
  advance(); // 'for'
  auto fail = [&]() -> StmtPtr {
    while (!tok.is(Tok::LBrace) && !tok.is(Tok::Eof) && !tok.is(Tok::RBrace) &&
           !tok.is(Tok::Semi))
      advance();
    if (tok.is(Tok::LBrace)) {
      std::vector<StmtPtr> ignored;
      parseBlock(ignored);
    }
    return nullptr;
  };
  if (!tok.is(Tok::Ident)) {
    errorHere("expected a loop variable after 'for', found " + describe(tok));
    return fail();
  }
  s->name = tok.text.str();
  s->nameLoc = tok.loc();
  advance();
  if (!expect(Tok::KwIn, "after the loop variable (write for i in range(0, n))"))
    return fail();
  if (!tok.is(Tok::Ident) || tok.text != "range") {
    errorHere("expected 'range(start, end[, step])' after 'in', found " +
              describe(tok));
    return fail();
  }
  advance();
  if (!expect(Tok::LParen, "after 'range'"))
    return fail();
  while (!tok.is(Tok::RParen)) {
    auto e = parseExpr();
    if (!e)
      return fail();
    s->rangeArgs.push_back(std::move(e));
    if (!consumeIf(Tok::Comma))
      break;
  }
  if (!expect(Tok::RParen, "to close 'range('"))
    return fail();
  if (s->rangeArgs.size() < 2 || s->rangeArgs.size() > 3) {
    diags.error(s->loc, "range takes 2 or 3 arguments: range(start, end) or "
                        "range(start, end, step)");
    return fail();
  }
  if (!tok.is(Tok::LBrace)) {
    errorHere("expected '{' after 'range(...)', found " + describe(tok));
    return fail();
  }
  parseBlock(s->body);
  return s;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

static int precedence(Tok k, BinOp &op) {
  switch (k) {
  case Tok::OrOr: op = BinOp::OrOr; return 1;
  case Tok::AndAnd: op = BinOp::AndAnd; return 2;
  case Tok::Pipe: op = BinOp::Or; return 3;
  case Tok::Caret: op = BinOp::Xor; return 4;
  case Tok::Amp: op = BinOp::And; return 5;
  case Tok::EqEq: op = BinOp::Eq; return 6;
  case Tok::NotEq: op = BinOp::Ne; return 6;
  case Tok::Less: op = BinOp::Lt; return 7;
  case Tok::LessEq: op = BinOp::Le; return 7;
  case Tok::Greater: op = BinOp::Gt; return 7;
  case Tok::GreaterEq: op = BinOp::Ge; return 7;
  case Tok::Shl: op = BinOp::Shl; return 8;
  case Tok::Shr: op = BinOp::Shr; return 8;
  case Tok::Plus: op = BinOp::Add; return 9;
  case Tok::Minus: op = BinOp::Sub; return 9;
  case Tok::Star: op = BinOp::Mul; return 10;
  case Tok::Slash: op = BinOp::Div; return 10;
  case Tok::Percent: op = BinOp::Rem; return 10;
  default: return -1;
  }
}

ExprPtr Parser::parseBinary(int minPrec) {
  auto lhs = parseUnary();
  if (!lhs)
    return nullptr;
  // Each operator of a left-associative chain (a + b + c ...) puts the chain
  // so far one level deeper into the tree, which later stages walk
  // recursively: count it like a nesting level.
  unsigned chain = 0;
  llvm::scope_exit leaveChain([&] { nesting -= chain; });
  while (true) {
    BinOp op;
    int prec = precedence(tok.kind, op);
    if (prec < 0 || prec <= minPrec - 1 || prec < minPrec)
      return lhs;
    ++chain;
    if (!enterNesting("expression", "split it with let statements"))
      return nullptr;
    auto e = std::make_unique<Expr>(ExprKind::Binary, tok.loc());
    e->binOp = op;
    advance();
    auto rhs = parseBinary(prec + 1); // left associative
    if (!rhs)
      return nullptr;
    e->lhs = std::move(lhs);
    e->rhs = std::move(rhs);
    lhs = std::move(e);
  }
}

/// Recursive descent uses the C++ stack: refuse absurd nesting with an error
/// instead of overflowing it.
bool Parser::enterNesting(const char *what, const char *hint) {
  if (++nesting <= kMaxNesting)
    return true;
  giveUpTooDeep(Twine(what) + " nested too deeply (more than " +
                Twine(kMaxNesting) + " levels); " + hint);
  return false;
}

void Parser::giveUpTooDeep(const Twine &msg) {
  if (!nestingReported)
    diags.error(tok.loc(), msg);
  nestingReported = true;
  // Give up on the rest of the file: recovering inside hundreds of open
  // constructs would only repeat this error (and used to loop).
  diags.silence();
  while (!tok.is(Tok::Eof))
    advance();
}

ExprPtr Parser::parseUnary() {
  NestingScope scope(*this);
  if (!enterNesting("expression", "split it with let statements"))
    return nullptr;
  if (tok.is(Tok::Minus) || tok.is(Tok::Not) || tok.is(Tok::Tilde)) {
    auto e = std::make_unique<Expr>(ExprKind::Unary, tok.loc());
    e->unOp = tok.is(Tok::Minus) ? UnOp::Neg
              : tok.is(Tok::Not) ? UnOp::Not
                                 : UnOp::BitNot;
    advance();
    e->lhs = parseUnary();
    if (!e->lhs)
      return nullptr;
    return e;
  }
  return parsePostfix();
}

ExprPtr Parser::parsePostfix() {
  auto e = parsePrimary();
  if (!e)
    return nullptr;
  while (true) {
    if (tok.is(Tok::LParen)) {
      if (e->kind != ExprKind::Ident) {
        errorHere("only named functions can be called");
        return nullptr;
      }
      auto call = std::make_unique<Expr>(ExprKind::Call, e->loc);
      call->name = e->name;
      advance();
      while (!tok.is(Tok::RParen)) {
        CallArg arg;
        if (tok.is(Tok::Ident) && peekTok.is(Tok::Assign)) {
          arg.keyword = tok.text.str();
          arg.keywordLoc = tok.loc();
          advance();
          advance();
        }
        arg.value = parseExpr();
        if (!arg.value)
          return nullptr;
        call->args.push_back(std::move(arg));
        if (!consumeIf(Tok::Comma))
          break;
      }
      if (!expect(Tok::RParen, "to close the call to '" + call->name + "'"))
        return nullptr;
      e = std::move(call);
    } else if (tok.is(Tok::LBracket)) {
      auto idx = std::make_unique<Expr>(ExprKind::Index, tok.loc());
      advance();
      while (!tok.is(Tok::RBracket)) {
        if (tok.is(Tok::Colon)) {
          idx->indexIsNone.push_back(false);
        } else if (tok.is(Tok::KwNone)) {
          idx->indexIsNone.push_back(true);
        } else {
          errorHere("only ':' and 'None' are allowed in an index (e.g. "
                    "t[:, None]); found " + describe(tok));
          return nullptr;
        }
        advance();
        if (!consumeIf(Tok::Comma))
          break;
      }
      if (!expect(Tok::RBracket, "to close the index"))
        return nullptr;
      idx->lhs = std::move(e);
      e = std::move(idx);
    } else {
      return e;
    }
  }
}

ExprPtr Parser::parsePrimary() {
  SMLoc loc = tok.loc();
  switch (tok.kind) {
  case Tok::IntLit: {
    auto e = std::make_unique<Expr>(ExprKind::IntLit, loc);
    uint64_t v = 0;
    if (tok.text.getAsInteger(0, v) || v > uint64_t(INT64_MAX))
      e->intTooLarge = true;
    e->intValue = v;
    advance();
    return e;
  }
  case Tok::FloatLit: {
    auto e = std::make_unique<Expr>(ExprKind::FloatLit, loc);
    e->floatValue = std::strtod(tok.text.str().c_str(), nullptr);
    // Past the range of f64 strtod gives inf: that is no number the user
    // wrote (they can write inf).
    if (std::isinf(e->floatValue))
      errorHere("float literal " + tok.text +
                " is out of range even for f64 (the largest is about "
                "1.8e308); write inf for infinity");
    advance();
    return e;
  }
  case Tok::KwInf:
  case Tok::KwNan: {
    auto e = std::make_unique<Expr>(ExprKind::FloatLit, loc);
    e->floatValue = tok.is(Tok::KwInf) ? HUGE_VAL : std::nan("");
    advance();
    return e;
  }
  case Tok::KwTrue:
  case Tok::KwFalse: {
    auto e = std::make_unique<Expr>(ExprKind::BoolLit, loc);
    e->boolValue = tok.is(Tok::KwTrue);
    advance();
    return e;
  }
  case Tok::Ident: {
    auto e = std::make_unique<Expr>(ExprKind::Ident, loc);
    e->name = tok.text.str();
    advance();
    return e;
  }
  case Tok::LParen: {
    advance();
    auto e = parseExpr();
    if (!e)
      return nullptr;
    if (!expect(Tok::RParen, "to close '('"))
      return nullptr;
    return e;
  }
  case Tok::LBracket: {
    auto e = std::make_unique<Expr>(ExprKind::List, loc);
    advance();
    while (!tok.is(Tok::RBracket)) {
      auto el = parseExpr();
      if (!el)
        return nullptr;
      e->elements.push_back(std::move(el));
      if (!consumeIf(Tok::Comma))
        break;
    }
    if (!expect(Tok::RBracket, "to close the list"))
      return nullptr;
    return e;
  }
  default:
    errorHere("expected an expression, found " + describe(tok));
    return nullptr;
  }
}

Module kcc::frontend::parseModule(StringRef buffer, Diagnostics &diags) {
  Parser p(buffer, diags);
  return p.parseModule();
}

ExprPtr kcc::frontend::parseExpression(StringRef buffer, Diagnostics &diags) {
  Parser p(buffer, diags);
  auto e = p.parseExpr();
  if (e)
    p.expectEof();
  return e;
}
