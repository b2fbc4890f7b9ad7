// The interpreter against independent C++ references (computed in double)
// on bundled kernels: vector_add, softmax (one-read and streaming paths) and
// layernorm (both paths), f32 and f16, ragged sizes. This tests the
// interpreter itself, not just its agreement with itself.
#include "InterpTestUtil.h"
#include "frontend/Frontend.h"
#include "interp/Element.h"
#include "interp/Interpreter.h"
#include "ir/Dialect.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

using namespace kcc::interp;
using namespace kcc::interp::test;

namespace {
struct Kernels {
  mlir::MLIRContext ctx;
  llvm::SourceMgr sm;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  explicit Kernels(const char *file) {
    std::string path = std::string(KCC_SOURCE_DIR) + "/kernels/" + file;
    auto buf = llvm::MemoryBuffer::getFile(path);
    REQUIRE(buf);
    sm.AddNewSourceBuffer(std::move(*buf), llvm::SMLoc());
    unsigned errors = 0;
    module = kcc::frontend::buildTileIR(sm, ctx, {}, errors);
    REQUIRE(module);
  }
  mlir::func::FuncOp get(llvm::StringRef name) {
    auto f = module->lookupSymbol<mlir::func::FuncOp>(name);
    REQUIRE(f);
    return f;
  }
};

Buffer makeBuffer(const char *name, DType t, int64_t n,
                  const std::vector<double> &values = {}) {
  Buffer b;
  b.name = name;
  b.array.dtype = t;
  b.array.shape = {n};
  b.array.data.assign(n * dtypeSize(t), 0);
  for (size_t i = 0; i < values.size(); ++i)
    storeFloatElement(b.array.data.data(), t, i, roundToFloat(values[i], t));
  return b;
}

double at(const Buffer &b, int64_t i) {
  return loadFloatElement(b.array.data.data(), b.array.dtype, i);
}

std::vector<double> randomValues(int64_t n, double lo, double hi, unsigned seed,
                                 DType t) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = roundToFloat(dist(gen), t); // what the kernel reads
  return v;
}

KernelArg f32(double v) {
  KernelArg a;
  a.floatValue = v;
  return a;
}

void run(mlir::func::FuncOp f, std::vector<KernelArg> args,
         std::vector<Buffer> &buffers) {
  Grid grid;
  std::string error;
  REQUIRE(evaluateGrid(f, args, /*processors=*/2, grid, error));
  std::optional<RunError> e = runKernel(f, args, buffers, grid);
  if (e)
    FAIL(e->message);
}

/// |got - want| <= atol + rtol * |want|
bool close(double got, double want, double rtol, double atol) {
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}
} // namespace

TEST_CASE("interp reference: vector_add f32/f16 exact, ragged") {
  Kernels k("vector_add.kc");
  for (auto [name, t] : {std::pair{"vector_add_f32_1024", DType::f32},
                         std::pair{"vector_add_f16_2048", DType::f16}}) {
    const int64_t n = 3001;
    std::vector<double> a = randomValues(n, -8, 8, 1, t);
    std::vector<double> b = randomValues(n, -8, 8, 2, t);
    std::vector<Buffer> bufs = {makeBuffer("a", t, n, a),
                                makeBuffer("b", t, n, b),
                                makeBuffer("c", t, n + 5)};
    run(k.get(name), {ptr(0), ptr(1), ptr(2), i32(n)}, bufs);
    for (int64_t i = 0; i < n; ++i)
      REQUIRE(at(bufs[2], i) == roundToFloat(a[i] + b[i], t)); // one rounding
    for (int64_t i = n; i < n + 5; ++i)
      REQUIRE(at(bufs[2], i) == 0.0); // masked tail untouched
  }
}

TEST_CASE("interp reference: softmax, one-read and streamed rows") {
  Kernels k("softmax.kc");
  struct Case {
    const char *fn;
    DType t;
    int64_t nrows, ncols, stride;
    double rtol, atol; // f16: half an ulp of f16's subnormals is 2^-25
  } cases[] = {{"softmax_f32_1024", DType::f32, 5, 1000, 1008, 1e-5, 1e-12},
               {"softmax_f32_1024", DType::f32, 3, 3000, 3000, 1e-5, 1e-12},
               {"softmax_f32_4096", DType::f32, 2, 4097, 4104, 1e-5, 1e-12},
               {"softmax_f16_1024", DType::f16, 4, 777, 784, 1e-3, 3e-8},
               {"softmax_f16_1024", DType::f16, 2, 2500, 2504, 1e-3, 3e-8}};
  for (const Case &c : cases) {
    CAPTURE(c.fn);
    CAPTURE(c.ncols);
    int64_t size = c.nrows * c.stride;
    std::vector<double> x = randomValues(size, -6, 6, 3, c.t);
    std::vector<Buffer> bufs = {makeBuffer("out", c.t, size),
                                makeBuffer("inp", c.t, size, x)};
    run(k.get(c.fn),
        {ptr(0), ptr(1), i32(c.stride), i32(c.ncols), i32(c.nrows)}, bufs);
    for (int64_t r = 0; r < c.nrows; ++r) {
      const double *row = x.data() + r * c.stride;
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < c.ncols; ++j)
        m = std::max(m, row[j]);
      for (int64_t j = 0; j < c.ncols; ++j)
        s += std::exp(row[j] - m);
      for (int64_t j = 0; j < c.ncols; ++j) {
        double want = std::exp(row[j] - m) / s;
        double got = at(bufs[0], r * c.stride + j);
        if (!close(got, want, c.rtol, c.atol))
          FAIL("row " << r << " col " << j << ": got " << got << ", want "
                      << want);
      }
    }
  }
}

TEST_CASE("interp reference: layernorm, one-read and streamed rows") {
  Kernels k("layernorm.kc");
  struct Case {
    const char *fn;
    DType t;
    int64_t nrows, ncols, stride;
    double rtol, atol;
  } cases[] = {{"layernorm_f32_1024", DType::f32, 4, 1000, 1000, 1e-4, 1e-5},
               {"layernorm_f32_1024", DType::f32, 2, 2600, 2600, 1e-4, 1e-5},
               {"layernorm_f16_1024", DType::f16, 3, 500, 504, 2e-3, 2e-3},
               {"layernorm_bf16_1024", DType::bf16, 2, 3000, 3000, 1e-2, 1e-2}};
  const double eps = 1e-5;
  for (const Case &c : cases) {
    CAPTURE(c.fn);
    CAPTURE(c.ncols);
    int64_t size = c.nrows * c.stride;
    std::vector<double> x = randomValues(size, 1, 3, 4, c.t);
    std::vector<double> w = randomValues(c.ncols, 0.5, 1.5, 5, c.t);
    std::vector<double> b = randomValues(c.ncols, -0.5, 0.5, 6, c.t);
    std::vector<Buffer> bufs = {makeBuffer("out", c.t, size),
                                makeBuffer("inp", c.t, size, x),
                                makeBuffer("weight", c.t, c.ncols, w),
                                makeBuffer("bias", c.t, c.ncols, b)};
    run(k.get(c.fn),
        {ptr(0), ptr(1), ptr(2), ptr(3), i32(c.stride), i32(c.ncols),
         i32(c.nrows), f32(eps)},
        bufs);
    for (int64_t r = 0; r < c.nrows; ++r) {
      const double *row = x.data() + r * c.stride;
      double mean = 0, var = 0;
      for (int64_t j = 0; j < c.ncols; ++j)
        mean += row[j];
      mean /= c.ncols;
      for (int64_t j = 0; j < c.ncols; ++j)
        var += (row[j] - mean) * (row[j] - mean);
      var /= c.ncols;
      double rstd = 1 / std::sqrt(var + eps);
      for (int64_t j = 0; j < c.ncols; ++j) {
        double want = (row[j] - mean) * rstd * w[j] + b[j];
        double got = at(bufs[0], r * c.stride + j);
        if (!close(got, want, c.rtol, c.atol))
          FAIL("row " << r << " col " << j << ": got " << got << ", want "
                      << want);
      }
    }
  }
}

TEST_CASE("interp: unmasked out-of-bounds load is an error, not UB") {
  Kernels k("vector_add.kc");
  // a is one element short: program 0 reads a[n-1] past it.
  const int64_t n = 100;
  std::vector<Buffer> bufs = {makeBuffer("a", DType::f32, n - 1),
                              makeBuffer("b", DType::f32, n),
                              makeBuffer("c", DType::f32, n)};
  std::vector<KernelArg> args = {ptr(0), ptr(1), ptr(2), i32(n)};
  auto f = k.get("vector_add_f32_1024");
  std::optional<RunError> e = runKernel(f, args, bufs, {1, 1, 1});
  REQUIRE(e);
  CHECK(e->message.find("out-of-bounds load of buffer 'a' at element offset "
                        "99") != std::string::npos);
  CHECK(findFileLineCol(e->loc));
  // A pointee type that does not match the buffer is refused up front.
  bufs[0] = makeBuffer("a", DType::f16, n);
  e = runKernel(f, args, bufs, {1, 1, 1});
  REQUIRE(e);
  CHECK(e->message.find("holds f16") != std::string::npos);
}
