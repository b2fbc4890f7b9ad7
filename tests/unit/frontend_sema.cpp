// Unit tests for kcc frontend semantics: typing, broadcasting,
// specialization, grid expressions and the emitted tile IR.
#include "frontend/Frontend.h"
#include "frontend/Sema.h"
#include "ir/Dialect.h"

#include "mlir/IR/Verifier.h"

#include <doctest/doctest.h>

using namespace kcc::frontend;

namespace {
struct Compiled {
  mlir::MLIRContext ctx;
  llvm::SourceMgr sm;
  std::string errors;
  std::string ir;
  unsigned numErrors = 0;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  Compiled(llvm::StringRef src, std::vector<Define> defines = {}) {
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(src, "t.kc"),
                          llvm::SMLoc());
    sm.setDiagHandler(
        [](const llvm::SMDiagnostic &d, void *c) {
          llvm::raw_string_ostream os(*static_cast<std::string *>(c));
          d.print(nullptr, os, false);
        },
        &errors);
    Options opts;
    opts.defines = std::move(defines);
    module = buildTileIR(sm, ctx, opts, numErrors);
    if (module) {
      llvm::raw_string_ostream os(ir);
      module->print(os);
    }
  }
  bool has(llvm::StringRef s) const {
    return llvm::StringRef(ir).contains(s) || llvm::StringRef(errors).contains(s);
  }
};

/// Wraps a body into a kernel with a few typical parameters.
std::string kernelWith(llvm::StringRef body) {
  return ("kernel k<B: i32 = 128>(p: ptr<f32>, q: ptr<f16>, n: i32, m: i64, "
          "h: f16) grid(1) {\n" + body + "\n}\n").str();
}
} // namespace

TEST_CASE("frontend sema: softmax compiles to verified tile IR") {
  Compiled c(R"(
kernel softmax<BLOCK: i32, T: dtype>(out: ptr<T> align(16), inp: ptr<T> align(16),
                                     stride: i32 multiple_of(16), ncols: i32, nrows: i32)
    grid(nrows)
    specialize(BLOCK = 1024, T = f32)
    specialize(BLOCK = 1024, T = f16)
    specialize(BLOCK = 1024, T = f32)
{
  let row = program_id(0);
  let cols = arange(0, BLOCK);
  let mask = cols < ncols;
  let x = cast(load(inp + row * stride + cols, mask, -inf), f32);
  let m = max(x);
  let e = exp(x - m);
  let s = sum(e);
  store(out + row * stride + cols, cast(e / s, T), mask);
}
)");
  INFO(c.errors);
  INFO(c.ir);
  REQUIRE(c.module);
  CHECK(mlir::succeeded(mlir::verify(*c.module)));
  // duplicate specializations collapse: two functions
  int funcs = 0;
  c.module->walk([&](mlir::func::FuncOp) { ++funcs; });
  CHECK(funcs == 2);
  CHECK(c.has("func.func @softmax_1024_f32(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64}"));
  CHECK(c.has("func.func @softmax_1024_f16"));
  CHECK(c.has("kcc.divisibility = 16 : i64"));
  CHECK(c.has("kcc.grid = [\"nrows\", \"1\", \"1\"]"));
  CHECK(c.has("kcc.arg_names = [\"out\", \"inp\", \"stride\", \"ncols\", \"nrows\"]"));
  CHECK(c.has("kcc.specialization = {BLOCK = 1024 : i32, T = f16}"));
  CHECK(c.has("kcc.base_name = \"softmax\""));
  CHECK(c.has("kcc.arange"));
  CHECK(c.has("kcc.reduce  max"));
  CHECK(c.has("kcc.reduce  sum"));
  CHECK(c.has("arith.truncf"));
  CHECK(c.has("0xFF800000")); // -inf as f32
  CHECK(c.has("kcc.splat"));
  CHECK(c.has("kcc.addptr"));
  // Ops carry the location of their source expression.
  bool sawArange = false;
  c.module->walk([&](kcc::ArangeOp op) {
    auto l = mlir::dyn_cast<mlir::FileLineColLoc>(op.getLoc());
    REQUIRE(l);
    CHECK(l.getFilename() == "t.kc");
    CHECK(l.getLine() == 10);
    CHECK(l.getColumn() == 14);
    sawArange = true;
  });
  CHECK(sawArange);
  c.module->walk([&](mlir::Operation *op) {
    if (!mlir::isa<mlir::ModuleOp>(op))
      CHECK(mlir::isa<mlir::FileLineColLoc>(op->getLoc()));
  });
}

TEST_CASE("frontend sema: literal typing") {
  {
    Compiled c(kernelWith("let a = h * 2; let b = h + 1.5; let c = n + 1;"
                          "let d = m * 3; store(q, a + b);"));
    INFO(c.errors);
    CHECK(c.numErrors == 0);
    CHECK(c.has("arith.constant 2.000000e+00 : f16"));
    CHECK(c.has("arith.constant 1 : i32"));
    CHECK(c.has("arith.constant 3 : i64"));
  }
  {
    Compiled c(kernelWith("let a = n + 1.5;"));
    CHECK(c.numErrors == 1);
    CHECK(c.has("t.kc:2:13: error: float literal cannot be used as i32"));
  }
  {
    Compiled c(kernelWith("let a = h + 70000.0;"));
    CHECK(c.has("float literal is out of range for f16"));
  }
  {
    Compiled c(kernelWith("let a: i8 = 300;"));
    CHECK(c.has("integer literal 300 is out of range for i8"));
  }
  {
    Compiled c(kernelWith("let a = n + h;"));
    CHECK(c.has("mismatched element types i32 and f16 for operator '+'"));
    CHECK(c.has("cast(x, f16)"));
  }
  {
    Compiled c(kernelWith("var x = 1; x = 2.5;"));
    CHECK(c.has("float literal cannot be used as i32"));
  }
}

TEST_CASE("frontend sema: broadcasting rules") {
  REQUIRE(broadcastShapes({128}, {}));
  CHECK(*broadcastShapes({128}, {}) == llvm::SmallVector<int64_t>{128});
  CHECK(*broadcastShapes({64, 1}, {128}) == llvm::SmallVector<int64_t>{64, 128});
  CHECK(*broadcastShapes({1, 32}, {16, 1}) == llvm::SmallVector<int64_t>{16, 32});
  CHECK(!broadcastShapes({64}, {128}));
  CHECK(!broadcastShapes({2, 64}, {4, 64}));
  {
    Compiled c(kernelWith(
        "let r = arange(0, 64); let cidx = arange(0, 128);"
        "let off = r[:, None] * 128 + cidx[None, :];"
        "let v = load(p + off); store(p + off, v * 2.0);"));
    INFO(c.errors);
    CHECK(c.numErrors == 0);
    CHECK(c.has("kcc.expand_dims"));
    CHECK(c.has("kcc.broadcast"));
    CHECK(c.has("tensor<64x128x!kcc.ptr<f32>>"));
  }
  {
    Compiled c(kernelWith("let a = arange(0, 64); let b = arange(0, 128);"
                          "let s = a + b;"));
    INFO(c.errors);
    CHECK(c.has("t.kc:2:57: error: cannot broadcast shapes [64] and [128] in "
                "operator '+'"));
  }
}

TEST_CASE("frontend sema: specialization expansion and -D") {
  const char *src = R"(kernel k<BLOCK: i32, T: dtype = f32, FAST: bool = false>(o: ptr<T>)
    grid(BLOCK) specialize(BLOCK = 128) specialize(BLOCK = 256, T = f16) {
  let i = arange(0, BLOCK);
  store(o + i, zeros([BLOCK], T));
}
)";
  {
    Compiled c(src);
    INFO(c.errors);
    CHECK(c.numErrors == 0);
    CHECK(c.has("@k_128_f32_false"));
    CHECK(c.has("@k_256_f16_false"));
    CHECK(c.has("kcc.grid = [\"128\", \"1\", \"1\"]"));
  }
  {
    // -D overrides in every specialization; duplicates collapse.
    Compiled c(src, {{"BLOCK", "512"}});
    INFO(c.errors);
    CHECK(c.numErrors == 0);
    CHECK(c.has("@k_512_f32_false"));
    CHECK(c.has("@k_512_f16_false"));
    CHECK(!c.has("@k_128"));
  }
  {
    Compiled c(src, {{"T", "bf16"}, {"FAST", "true"}});
    CHECK(c.has("@k_128_bf16_true"));
    CHECK(c.has("@k_256_bf16_true"));
  }
  {
    Compiled c(src, {{"BLOCK", "abc"}});
    CHECK(c.numErrors == 1);
    CHECK(c.has("t.kc: error: invalid value 'abc' in -D BLOCK=abc"));
  }
  {
    Compiled c(src, {{"T", "f33"}});
    CHECK(c.has("'f33' is not an element type; did you mean 'f32'?"));
  }
  {
    Compiled c(src, {{"BLOCKK", "1"}});
    CHECK(c.has("no kernel has a constant parameter named 'BLOCKK'; did you mean 'BLOCK'?"));
  }
  {
    Compiled c("kernel k<BLOCK: i32>(o: ptr<f32>) grid(1) { }\n");
    CHECK(
        c.has("t.kc:1:10: error: constant parameter 'BLOCK' has no value; add "
              "specialize(BLOCK = ...), pass -D BLOCK=... or declare "
              "candidates (BLOCK: i32 in (...)) for the compiler to choose "
              "from"));
    Compiled d("kernel k<BLOCK: i32>(o: ptr<f32>) grid(1) { }\n",
               {{"BLOCK", "64"}});
    CHECK(d.numErrors == 0);
    CHECK(d.has("func.func @k("));
  }
}

TEST_CASE("frontend sema: grid C expressions") {
  Compiled c(R"(kernel g<B: i32 = 64>(n: i32, m: i64, p: ptr<f32>)
    grid(cdiv(n, B), min(m, 4) * 2, max(n % 3, 1)) { }
)");
  INFO(c.errors);
  CHECK(c.numErrors == 0);
  CHECK(c.has("kcc.grid = [\"(((n) + (64) - 1) / (64))\", "
              "\"(((m) < (4) ? (m) : (4)) * 2)\", "
              "\"(((n % 3)) > (1) ? ((n % 3)) : (1))\"]"));
  Compiled bad("kernel g(n: i32, p: ptr<f32>) grid(p) { }\n");
  CHECK(bad.has("grid expressions may only use scalar integer parameters, but "
                "'p' has type ptr<f32>"));
  Compiled tile("kernel g(n: i32) grid(arange(0, 4)) { }\n");
  CHECK(tile.numErrors == 1);
  CHECK(tile.has("function 'arange' cannot be used in grid"));
}

TEST_CASE("frontend sema: control flow carries mutable variables") {
  Compiled c(kernelWith(R"(
  var acc = zeros([B], f32);
  var cnt = 0;
  for i in range(0, n, 4) {
    let v = load(p + i * B + arange(0, B));
    acc += v;
    if i > 8 { cnt = cnt + 1; } else { cnt -= 1; }
  }
  store(p + arange(0, B), acc);
  store(p, cast(cnt, f32));
)"));
  INFO(c.errors);
  CHECK(c.numErrors == 0);
  CHECK(c.has("scf.for"));
  CHECK(c.has("iter_args"));
  CHECK(c.has("scf.if"));
  CHECK(c.has("scf.yield"));
  CHECK(c.has("arith.sitofp"));
}

TEST_CASE("frontend sema: several located errors in one run") {
  Compiled c(kernelWith(R"(  let a = 1;
  a = 2;
  let b = undefined_name + 1;
  let c = expp(1.0);
  let d = load(p, 1, 2, 3);
  let a = 3;
  let e = arange(0, 2000000);
  let f = sum(zeros([4, 4], f32));
  if arange(0, 4) < 2 { }
  n + 1;)"));
  INFO(c.errors);
  CHECK(c.numErrors == 9);
  CHECK(c.has("t.kc:3:3: error: cannot assign to 'a'"));
  CHECK(c.has("t.kc:4:11: error: use of undeclared name 'undefined_name'"));
  CHECK(c.has("t.kc:5:11: error: unknown function 'expp'; did you mean 'exp'?"));
  CHECK(c.has("t.kc:6:11: error: wrong number of arguments to 'load' (got 4); "
              "accepted forms: load(ptr), load(ptr, mask), load(ptr, mask, other)"));
  CHECK(c.has("t.kc:7:7: error: redeclaration of 'a' in the same scope"));
  CHECK(c.has("t.kc:8:11: error: arange(0, 2000000) has 2000000 elements"));
  CHECK(c.has("t.kc:9:11: error: sum of a rank-2 tile needs an axis"));
  CHECK(c.has("t.kc:10:19: error: if condition must be a scalar i1"));
  CHECK(c.has("t.kc:11:5: error: expression result is unused"));
  CHECK(!c.module);
}

TEST_CASE("frontend sema: facts are validated") {
  Compiled c(R"(kernel f(a: ptr<f32> align(3), b: i32 align(16), c: i32 multiple_of(0),
         d: ptr<f32> align(16) align(32), e: ptr<f32> multiple_of(4)) grid(1) { }
)");
  CHECK(c.numErrors == 5);
  CHECK(c.has("t.kc:1:22: error: align(3) is not a power of two"));
  CHECK(c.has("align(16) applies to pointer parameters, but 'b' is not a pointer"));
  CHECK(c.has("multiple_of(0) must be positive"));
  CHECK(c.has("contradictory facts: 'd' is already align(16)"));
  CHECK(c.has("use align(N) for pointers"));
}

TEST_CASE("frontend sema: builtins emit the expected ops") {
  Compiled c(kernelWith(R"(
  let x = load(p + arange(0, B));
  let y = where(x > 0.0, x, 0.0);
  let z = fma(x, y, 1.0) + abs(x) + sqrt(x) + rsqrt(x) + exp2(x) + log(x);
  let w = max(x, y) + min(x, 2.0);
  let i = cast(x, i32);
  let j = min(i, 3) + abs(i) + cdiv(n, 4) + (n << 2) + (n >> 1) + (n % 3);
  let t = dot(zeros([16, 16], f16), zeros([16, 16], f16));
  let r = sum(t, axis=1) + max(t, axis=0);
  let bb = (x != 1.0) && !(x == y) || cast(n, i1);
  store(p + arange(0, B), z + w, bb);
  store(p + num_programs(1), cast(j + i, f32));
  store(p + arange(0, 16), r);
)"));
  INFO(c.errors);
  CHECK(c.numErrors == 0);
  for (const char *op : {"arith.select", "math.fma", "math.absf", "math.sqrt",
                         "math.rsqrt", "math.exp2", "math.log", "arith.maximumf",
                         "arith.minimumf", "arith.fptosi", "arith.minsi",
                         "math.absi", "arith.divsi", "arith.shli", "arith.shrsi",
                         "arith.remsi", "kcc.dot", "kcc.reduce  sum",
                         "arith.cmpf une", "arith.cmpf oeq", "arith.andi",
                         "arith.ori", "arith.xori", "arith.cmpi ne",
                         "kcc.num_programs", "kcc.store"})
    CHECK_MESSAGE(c.has(op), std::string(op));
}

TEST_CASE("tunable constants: one function per candidate, one launch name") {
  {
    // Two clauses, each leaving B to the compiler: 2 x 2 functions.
    Compiled c("kernel k<T: dtype, B: i32 in (64, 128)>(o: ptr<T>) grid(1)\n"
               "    specialize(T = f16) specialize(T = f32) { }\n");
    REQUIRE(c.numErrors == 0);
    for (const char *f :
         {"@k_f16_64(", "@k_f16_128(", "@k_f32_64(", "@k_f32_128("})
      CHECK(c.has(f));
    CHECK(c.has("kcc.variant_of = {k_f16 = [\"B\"]}"));
    CHECK(c.has("kcc.variant_of = {k_f32 = [\"B\"]}"));
    CHECK(c.has("kcc.variant_only"));
  }
  {
    // A clause binding B names a function of its own, also a candidate.
    Compiled c("kernel k<B: i32 in (64, 128)>(o: ptr<f32>) grid(1)\n"
               "    specialize() specialize(B = 64) { }\n");
    REQUIRE(c.numErrors == 0);
    CHECK(c.has("func.func @k_64(%arg0: !kcc.ptr<f32>) attributes {"));
    CHECK(c.has("kcc.variant_of = {k = [\"B\"]}"));
  }
  {
    // No clause: every tunable is left open; -D fixes one.
    Compiled c("kernel k<A: i32 in (1, 2), B: bool in (true, false)>"
               "(o: ptr<f32>) grid(1) { }\n",
               {{"A", "2"}});
    REQUIRE(c.numErrors == 0);
    CHECK(c.has("@k_2_true("));
    CHECK(c.has("@k_2_false("));
    CHECK(c.has("kcc.variant_of = {k_2 = [\"B\"]}"));
    CHECK(!c.has("@k_1_"));
  }
  {
    // One candidate and nothing else: just the kernel.
    Compiled c("kernel k<B: i32 in (64)>(o: ptr<f32>) grid(1) { }\n");
    REQUIRE(c.numErrors == 0);
    CHECK(c.has("@k("));
    CHECK(!c.has("kcc.variant_of"));
  }
}

TEST_CASE("tunable constants: errors") {
  struct Case {
    const char *src, *message;
  } cases[] = {
      {"kernel k<B: i32 in ()>(o: ptr<f32>) grid(1) { }\n",
       "t.kc:1:17: error: tunable constant 'B' needs at least one candidate "
       "value"},
      {"kernel k<B: i32 in (64) = 64>(o: ptr<f32>) grid(1) { }\n",
       "t.kc:1:27: error: tunable constant 'B' takes no default"},
      {"kernel k<B: i32 in (64, 64)>(o: ptr<f32>) grid(1) { }\n",
       "t.kc:1:25: error: candidate 64 of 'B' is listed twice"},
      {"kernel k<B: i32 in (64, f16)>(o: ptr<f32>) grid(1) { }\n",
       "t.kc:1:25: error: value 'f16' does not fit constant parameter 'B' of "
       "type i32"},
      {"kernel k<B: i32 in 64>(o: ptr<f32>) grid(1) { }\n",
       "t.kc:1:20: error: expected '(' after 'in' (write NAME: i32 in (64, "
       "128))"},
      // The launch name of the clause is another function's name.
      {"kernel k<N: i32, B: i32 in (1, 2)>(o: ptr<f32>) grid(1)\n"
       "    specialize(N = 4) { }\n"
       "kernel k_4(o: ptr<f32>) grid(1) { }\n",
       "t.kc:2:5: error: this specialization's launch function would be named "
       "'k_4', which kernel 'k_4' already uses for a function"},
  };
  for (const Case &t : cases) {
    Compiled c(t.src);
    CHECK_MESSAGE(c.has(t.message), t.src);
    CHECK(c.numErrors > 0);
  }
}
