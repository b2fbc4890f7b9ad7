// kcc-prove-tile-coverage against brute force: for small kernels and every
// combination of small sizes, the launch guard the proof computes (or its
// absence: covered for all sizes) must say exactly whether running the
// kernel on the reference interpreter writes every element of the tensor.
#include "InterpTestUtil.h"
#include "frontend/Frontend.h"
#include "interp/Element.h"
#include "interp/Interpreter.h"
#include "ir/CExpr.h"
#include "ir/Dialect.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <functional>
#include <map>

using namespace kcc::interp;
using namespace kcc::interp::test;

namespace {

const char *kSource = R"(
kernel copy(dst: tensor<f32, 2>, src: tensor<f32, 2>)
    grid(cdiv(dim(src, 1), 4), cdiv(dim(src, 0), 2))
{
  let t = load_tile(src, [2, 4], [program_id(1), program_id(0)]);
  store_tile(dst, [program_id(1), program_id(0)], t);
}
kernel rows(out: tensor<f32, 2>, inp: tensor<f32, 2>) grid(dim(inp, 0))
{
  let row = program_id(0);
  for k in range(0, cdiv(dim(inp, 1), 4)) {
    store_tile(out, [row, k], load_tile(inp, [1, 4], [row, k]));
  }
}
kernel fixed(out: tensor<f32, 1>, n: i32) grid(3)
{
  if program_id(0) < n {
    store_tile(out, [program_id(0)], full([4], 1.0, f32));
  }
}
kernel stepped(out: tensor<f32, 1>) grid(2)
{
  for k in range(program_id(0), cdiv(dim(out, 0), 4), 2) {
    store_tile(out, [k], full([4], 1.0, f32));
  }
}
kernel halves(out: tensor<f32, 1>, m: i32) grid(cdiv(m, 8))
{
  store_tile(out, [2 * program_id(0)], full([4], 1.0, f32));
  store_tile(out, [2 * program_id(0) + 1], full([4], 2.0, f32));
}
kernel capped(out: tensor<f32, 1>, m: i32) grid(min(cdiv(m, 4), 3))
{
  store_tile(out, [program_id(0)], full([4], 1.0, f32));
}
)";

struct Proven {
  mlir::MLIRContext ctx;
  llvm::SourceMgr sm;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  Proven() {
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(kSource, "cov.kc"),
                          llvm::SMLoc());
    unsigned errors = 0;
    module = kcc::frontend::buildTileIR(sm, ctx, {}, errors);
    REQUIRE(module);
    REQUIRE(errors == 0);
    mlir::PassManager pm(&ctx);
    pm.addPass(kcc::createKccProveTileCoverage());
    REQUIRE(mlir::succeeded(pm.run(*module)));
  }
  mlir::func::FuncOp get(llvm::StringRef name) {
    auto f = module->lookupSymbol<mlir::func::FuncOp>(name);
    REQUIRE(f);
    return f;
  }
};

/// The proof's verdict for the first stored tensor of `f` at `values`.
bool guardHolds(mlir::func::FuncOp f,
                const std::map<std::string, int64_t> &values) {
  auto cov = f->getAttrOfType<mlir::ArrayAttr>("kcc.coverage");
  REQUIRE(cov);
  REQUIRE(cov.size() == 1);
  auto entry = mlir::cast<mlir::DictionaryAttr>(cov[0]);
  REQUIRE(!entry.get("unproven"));
  auto guard = entry.getAs<mlir::StringAttr>("guard");
  if (!guard)
    return true;
  int64_t result = 0;
  std::string error;
  auto lookup = [&](std::string_view n) -> std::optional<int64_t> {
    auto it = values.find(std::string(n));
    if (it == values.end())
      return std::nullopt;
    return it->second;
  };
  REQUIRE_MESSAGE(kcc::evaluateCExpr(guard.str(), lookup, result, error),
                  error);
  return result != 0;
}

Buffer filled(const char *name, int64_t n, double v) {
  Buffer b;
  b.name = name;
  b.array.dtype = DType::f32;
  b.array.shape = {n};
  b.array.data.assign(std::max<int64_t>(n, 1) * 4, 0);
  for (int64_t i = 0; i < n; ++i)
    storeFloatElement(b.array.data.data(), DType::f32, i, v);
  return b;
}

/// Runs `f`; true if every element of buffers[0] changed from the sentinel.
bool runCovers(mlir::func::FuncOp f, const std::vector<KernelArg> &args,
               std::vector<Buffer> &buffers) {
  Grid grid;
  std::string error;
  REQUIRE_MESSAGE(evaluateGrid(f, args, /*processors=*/2, grid, error), error);
  std::optional<RunError> e = runKernel(f, args, buffers, grid);
  REQUIRE_MESSAGE(!e, (e ? e->message : ""));
  const Buffer &out = buffers[0];
  for (int64_t i = 0; i < out.array.shape[0]; ++i)
    if (loadFloatElement(out.array.data.data(), DType::f32, i) == -7.0)
      return false;
  return true;
}

/// 2-D (dst, src) kernels: dst and src of every size up to 5 x 5 (dst
/// strides = its width).
void checkTwoTensors(Proven &p, llvm::StringRef name, const char *d,
                     const char *s) {
  mlir::func::FuncOp f = p.get(name);
  unsigned agree = 0, guarded = 0;
  for (int64_t d0 = 0; d0 <= 5; ++d0)
    for (int64_t d1 = 0; d1 <= 5; ++d1)
      for (int64_t s0 = 0; s0 <= 5; ++s0)
        for (int64_t s1 = 0; s1 <= 5; ++s1) {
          std::vector<Buffer> bufs = {filled("dst", d0 * d1, -7.0),
                                      filled("src", s0 * s1, 3.0)};
          std::vector<KernelArg> args = {ptr(0), i32(d0), i32(d1), i32(d1),
                                         ptr(1), i32(s0), i32(s1), i32(s1)};
          std::string dn(d), sn(s);
          bool guard = guardHolds(f, {{dn + "_dim0", d0},
                                      {dn + "_dim1", d1},
                                      {dn + "_stride0", d1},
                                      {sn + "_dim0", s0},
                                      {sn + "_dim1", s1},
                                      {sn + "_stride0", s1}});
          bool covers = runCovers(f, args, bufs);
          INFO(name.str() << " dst " << d0 << "x" << d1 << " src " << s0 << "x"
                          << s1);
          CHECK(guard == covers);
          agree += guard == covers;
          guarded += !guard;
        }
  CHECK(agree == 6 * 6 * 6 * 6);
  CHECK(guarded > 0); // the guard is not trivially true here
}

/// 1-D `out` with an optional integer parameter.
void checkOneTensor(Proven &p, llvm::StringRef name, const char *param,
                    bool expectGuard) {
  mlir::func::FuncOp f = p.get(name);
  unsigned guarded = 0;
  for (int64_t n = 0; n <= 21; ++n)
    for (int64_t m = param ? -1 : 0; m <= (param ? 21 : 0); ++m) {
      std::vector<Buffer> bufs = {filled("out", n, -7.0)};
      std::vector<KernelArg> args = {ptr(0), i32(n)};
      std::map<std::string, int64_t> values = {{"out_dim0", n}};
      if (param) {
        args.push_back(i32(m));
        values[param] = m;
      }
      bool guard = guardHolds(f, values);
      bool covers = runCovers(f, args, bufs);
      INFO(name.str() << " out " << n << " " << (param ? param : "") << " "
                      << m);
      CHECK(guard == covers);
      guarded += !guard;
    }
  CHECK((guarded > 0) == expectGuard);
}

} // namespace

TEST_CASE("coverage proof: guards agree with the interpreter, 2-D tiles") {
  Proven p;
  checkTwoTensors(p, "copy", "dst", "src");
  checkTwoTensors(p, "rows", "out", "inp");
}

TEST_CASE("coverage proof: guards agree with the interpreter, 1-D") {
  Proven p;
  checkOneTensor(p, "fixed", "n", /*expectGuard=*/true);
  checkOneTensor(p, "stepped", nullptr, /*expectGuard=*/false);
  checkOneTensor(p, "halves", "m", /*expectGuard=*/true);
  checkOneTensor(p, "capped", "m", /*expectGuard=*/true);
}

TEST_CASE("C expressions: precedence and short-circuit") {
  auto none = [](std::string_view) -> std::optional<int64_t> {
    return std::nullopt;
  };
  auto eval = [&](const char *text) {
    int64_t v = -99;
    std::string error;
    REQUIRE_MESSAGE(kcc::evaluateCExpr(text, none, v, error), error);
    return v;
  };
  CHECK(eval("1 + 2 * 3") == 7);
  CHECK(eval("-7 / 2") == -3); // C truncates
  CHECK(eval("-7 % 2") == -1);
  CHECK(eval("1 < 2 == 1") == 1);
  CHECK(eval("0 && 1 / 0") == 0); // not evaluated
  CHECK(eval("1 || 1 / 0") == 1);
  CHECK(eval("!0 && !(3 != 3)") == 1);
  CHECK(eval("0 ? 1 : 2 ? 3 : 4") == 3);
  CHECK(eval("(-9 < 0 ? -((9 + 4 - 1) / 4) : -9 / 4)") == -3); // floor
  int64_t v;
  std::string error;
  CHECK(!kcc::evaluateCExpr("1 / 0", none, v, error));
  CHECK(error == "division by zero in the expression");
  CHECK(!kcc::evaluateCExpr("1 +", none, v, error));
  CHECK(error == "unexpected end of expression");
  CHECK(!kcc::evaluateCExpr("x", none, v, error));
  CHECK(error == "unknown name 'x'");
  CHECK(!kcc::evaluateCExpr("1 != ", none, v, error));
}
