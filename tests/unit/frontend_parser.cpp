// Unit tests for the kcc frontend parser: precedence, structure, recovery.
#include "frontend/Parser.h"

#include <doctest/doctest.h>

using namespace kcc::frontend;

namespace {
struct Parsed {
  llvm::SourceMgr sm;
  std::string errors;
  std::unique_ptr<Diagnostics> diags;
  Parsed(llvm::StringRef src) {
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(src, "t.kc"),
                          llvm::SMLoc());
    sm.setDiagHandler(
        [](const llvm::SMDiagnostic &d, void *ctx) {
          llvm::raw_string_ostream os(*static_cast<std::string *>(ctx));
          d.print(nullptr, os, false);
        },
        &errors);
    diags = std::make_unique<Diagnostics>(sm);
  }
  llvm::StringRef buffer() {
    return sm.getMemoryBuffer(sm.getMainFileID())->getBuffer();
  }
};

/// Fully parenthesized rendering of an expression.
std::string show(const Expr &e) {
  switch (e.kind) {
  case ExprKind::IntLit: return std::to_string(e.intValue);
  case ExprKind::FloatLit: return std::to_string(e.floatValue);
  case ExprKind::BoolLit: return e.boolValue ? "true" : "false";
  case ExprKind::Ident: return e.name;
  case ExprKind::Unary:
    return std::string("(") + (e.unOp == UnOp::Neg ? "-" : e.unOp == UnOp::Not ? "!" : "~") +
           show(*e.lhs) + ")";
  case ExprKind::Binary:
    return "(" + show(*e.lhs) + " " + binOpSpelling(e.binOp) + " " +
           show(*e.rhs) + ")";
  case ExprKind::Call: {
    std::string s = e.name + "(";
    for (size_t i = 0; i < e.args.size(); ++i)
      s += (i ? ", " : "") +
           (e.args[i].keyword.empty() ? "" : e.args[i].keyword + "=") +
           show(*e.args[i].value);
    return s + ")";
  }
  case ExprKind::Index: {
    std::string s = show(*e.lhs) + "[";
    for (size_t i = 0; i < e.indexIsNone.size(); ++i)
      s += std::string(i ? ", " : "") + (e.indexIsNone[i] ? "None" : ":");
    return s + "]";
  }
  case ExprKind::List: {
    std::string s = "[";
    for (size_t i = 0; i < e.elements.size(); ++i)
      s += (i ? ", " : "") + show(*e.elements[i]);
    return s + "]";
  }
  }
  return "?";
}

std::string parseShow(llvm::StringRef src) {
  Parsed p(src);
  auto e = parseExpression(p.buffer(), *p.diags);
  if (!e)
    return "ERROR: " + p.errors;
  return show(*e);
}
} // namespace

TEST_CASE("frontend parser: operator precedence") {
  CHECK(parseShow("a + b * c") == "(a + (b * c))");
  CHECK(parseShow("a - b - c") == "((a - b) - c)");
  CHECK(parseShow("a || b && c") == "(a || (b && c))");
  CHECK(parseShow("a | b ^ c & d") == "(a | (b ^ (c & d)))");
  CHECK(parseShow("a == b < c") == "(a == (b < c))");
  CHECK(parseShow("a < b << c") == "(a < (b << c))");
  CHECK(parseShow("a << b + c") == "(a << (b + c))");
  CHECK(parseShow("-a * b") == "((-a) * b)");
  CHECK(parseShow("!a && ~b") == "((!a) && (~b))");
  CHECK(parseShow("a * (b + c) % d") == "((a * (b + c)) % d)");
  CHECK(parseShow("-x[:, None]") == "(-x[:, None])");
  CHECK(parseShow("sum(x, axis=1) / n") == "(sum(x, axis=1) / n)");
  CHECK(parseShow("zeros([BLOCK, 64], f32)") == "zeros([BLOCK, 64], f32)");
}

TEST_CASE("frontend parser: index may only hold ':' and None") {
  std::string r = parseShow("t[0]");
  CHECK(r.find("ERROR") == 0);
  CHECK(r.find("only ':' and 'None'") != std::string::npos);
}

TEST_CASE("frontend parser: kernel structure") {
  Parsed p(R"(
kernel add<BLOCK: i32 = 256, T: dtype>(o: ptr<T> align(16), n: i32 multiple_of(8))
    grid(cdiv(n, BLOCK)) specialize(T = f32) specialize(T = f16, BLOCK = 512)
{
  let i = program_id(0);
  var acc = 0.0;
  for k in range(0, n, 2) { acc += 1.0; }
  if i < 3 { acc = 1.0; } else if i < 4 { } else { acc = 2.0; }
  store(o, acc);
}
kernel second() grid(1) { }
)");
  Module m = parseModule(p.buffer(), *p.diags);
  CHECK(p.errors == "");
  REQUIRE(m.kernels.size() == 2);
  const Kernel &k = *m.kernels[0];
  CHECK(k.name == "add");
  REQUIRE(k.constParams.size() == 2);
  CHECK(k.constParams[0].hasDefault);
  CHECK(k.constParams[0].defaultValue.intValue == 256);
  CHECK(k.constParams[1].kindName == "dtype");
  REQUIRE(k.params.size() == 2);
  CHECK(k.params[0].type->isPtr);
  CHECK(k.params[0].type->pointee->name == "T");
  REQUIRE(k.params[0].facts.size() == 1);
  CHECK(k.params[0].facts[0].kind == Fact::Align);
  CHECK(k.params[0].facts[0].value == 16);
  CHECK(k.params[1].facts[0].kind == Fact::MultipleOf);
  CHECK(k.grid.size() == 1);
  CHECK(k.specializations.size() == 2);
  CHECK(k.specializations[1].bindings.size() == 2);
  REQUIRE(k.body.size() == 5);
  CHECK(k.body[0]->kind == StmtKind::Let);
  CHECK(k.body[1]->isMutable);
  CHECK(k.body[2]->kind == StmtKind::For);
  CHECK(k.body[2]->rangeArgs.size() == 3);
  CHECK(k.body[2]->body[0]->isCompound);
  CHECK(k.body[3]->kind == StmtKind::If);
  CHECK(k.body[3]->hasElse);
  REQUIRE(k.body[3]->elseBody.size() == 1);
  CHECK(k.body[3]->elseBody[0]->kind == StmtKind::If);
  CHECK(k.body[4]->kind == StmtKind::ExprStmt);
}

TEST_CASE("frontend parser: recovers and reports several errors") {
  Parsed p(R"(kernel k(a: i32) grid(1) {
  let x = ;
  let y = 1 +;
  store(a 1);
  let z = 2;
}
kernel bad( { }
kernel ok() grid(1) { }
)");
  Module m = parseModule(p.buffer(), *p.diags);
  CHECK(p.diags->numErrors() == 4);
  CHECK(p.errors.find("t.kc:2:11: error: expected an expression, found ';'") !=
        std::string::npos);
  CHECK(p.errors.find("t.kc:3:14: error: expected an expression") !=
        std::string::npos);
  CHECK(p.errors.find("t.kc:4:11: error: expected ')'") != std::string::npos);
  CHECK(p.errors.find("t.kc:7:13: error: expected a parameter name") !=
        std::string::npos);
  // The good kernels and the good statement survive.
  REQUIRE(m.kernels.size() == 2);
  CHECK(m.kernels[1]->name == "ok");
  bool sawZ = false;
  for (auto &s : m.kernels[0]->body)
    sawZ |= s->kind == StmtKind::Let && s->name == "z" && s->init;
  CHECK(sawZ);
}
