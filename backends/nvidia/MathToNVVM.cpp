//===- MathToNVVM.cpp - math dialect functions for NVIDIA ----------------===//
//
// Transcendentals are the fast hardware approximations:
//   f32 exp(x)   = ex2.approx.ftz.f32(x * log2(e))
//   f32 exp2(x)  = ex2.approx.ftz.f32(x)
//   f32 log(x)   = lg2.approx.f32(x) * ln(2)
//   f32 log2(x)  = lg2.approx.f32(x)
//   f32 rsqrt(x) = rsqrt.approx.f32(x)
// (ex2/lg2.approx have ~2 ulp relative error on the f32 range). ex2 flushes
// subnormals: its results below 2^-126 read 0 (an absolute error below
// 1.2e-38; a subnormal input reads 0 and gives exp2(0) = 1, its exact
// result rounded), and ptxas drops the range fix-ups around each MUFU
// instruction (one instruction for an ex2, not four: an attention softmax
// is mostly ex2). lg2 and rsqrt keep subnormal inputs, whose results are
// far from those of 0. f16/bf16 are computed in f32 and rounded back.
// Ops marked approximate (fastmath `afn`, what sigmoid(x) emits) flush the
// reciprocal too:
//   afn f32 1 / x    = rcp.approx.ftz.f32(x)
// Other divisions are IEEE (div.rn.f32), or LLVM's div.approx under `afn`.
// f32 tanh and erf stay math ops for kcc-expand-math-functions (polynomials);
// f64 versions and the other transcendentals (sin, cos, tan, ...)
// call libdevice (`__nv_exp`, `__nv_sinf`, ...), declared here as external
// llvm.func; the backend links libdevice.10.bc when such calls exist.
// sqrt, abs, fma, floor, ceil, ... are left to math-to-llvm (llvm intrinsics;
// sqrt is IEEE sqrt.rn).
//
//===----------------------------------------------------------------------===//
#include "backends/nvidia/NVVMLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;
using namespace kcc::nvidia;

namespace {

enum class Approx { None, Exp, Exp2, Log, Log2, Rsqrt };

static Value callIntrinsic(OpBuilder &b, Location loc, StringRef name,
                           Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                       b.getStringAttr(name), ValueRange{x})
      .getResult(0);
}

static Value callLibdevice(OpBuilder &b, Location loc, Operation *user,
                           StringRef name, ValueRange args) {
  auto module = user->getParentOfType<ModuleOp>();
  Type t = args[0].getType();
  auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!fn) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> argTypes(args.size(), t);
    fn = LLVM::LLVMFuncOp::create(b, loc, name,
                                  LLVM::LLVMFunctionType::get(t, argTypes));
  }
  return LLVM::CallOp::create(b, loc, fn, args).getResult();
}

static Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(v));
}

/// Whether `op` may flush subnormals (marked approximate: fastmath `afn`).
static bool ftz(Operation *op) {
  auto fm = dyn_cast<arith::ArithFastMathInterface>(op);
  return fm && arith::bitEnumContainsAll(fm.getFastMathFlagsAttr().getValue(),
                                         arith::FastMathFlags::afn);
}

/// Applies `scalar` to each element of `v` (a scalar or a vector of them).
static Value elementwise(OpBuilder &b, Location loc, Value v,
                         function_ref<Value(Value)> scalar) {
  if (!isa<VectorType>(v.getType()))
    return scalar(v);
  SmallVector<Value> out;
  for (Value x : unpack(b, loc, v))
    out.push_back(scalar(x));
  return buildVector(b, loc, out);
}

/// An approximate (`afn`) f32 reciprocal, 1 / x: one rcp.approx.ftz, where
/// LLVM would keep the subnormal fix-ups of rcp.approx.
struct ApproxReciprocal : OpConversionPattern<arith::DivFOp> {
  ApproxReciprocal(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value lhs = op.getLhs();
    if (auto splat = lhs.getDefiningOp<SplatOp>())
      lhs = splat.getSrc();
    if (!ftz(op) || !getElementTypeOrSelf(op.getType()).isF32() ||
        !matchPattern(lhs, m_OneFloat()))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, adaptor.getRhs(), [&](Value x) {
          return callIntrinsic(rewriter, loc, "llvm.nvvm.rcp.approx.ftz.f", x);
        }));
    return success();
  }
};

template <typename OpT>
struct MathLowering : OpConversionPattern<OpT> {
  MathLowering(const TypeConverter &tc, MLIRContext *ctx, StringRef base,
               Approx approx)
      : OpConversionPattern<OpT>(tc, ctx, /*benefit=*/2), base(base.str()),
        approx(approx) {}

  Value scalar(OpBuilder &b, Location loc, Operation *op,
               ArrayRef<Value> xs) const {
    Type t = xs[0].getType();
    if (t.isF64())
      return callLibdevice(b, loc, op, "__nv_" + base, xs);
    // f32, f16, bf16: compute in f32.
    Type f32 = b.getF32Type();
    SmallVector<Value> ys;
    for (Value x : xs)
      ys.push_back(t == f32 ? x : (Value)arith::ExtFOp::create(b, loc, f32, x));
    Value r;
    switch (approx) {
    case Approx::Exp:
      r = callIntrinsic(
          b, loc, "llvm.nvvm.ex2.approx.ftz.f",
          arith::MulFOp::create(b, loc, ys[0],
                                f32Const(b, loc, 1.4426950408889634)));
      break;
    case Approx::Exp2:
      r = callIntrinsic(b, loc, "llvm.nvvm.ex2.approx.ftz.f", ys[0]);
      break;
    case Approx::Log:
      r = arith::MulFOp::create(
          b, loc, callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.f", ys[0]),
          f32Const(b, loc, 0.6931471805599453));
      break;
    case Approx::Log2:
      r = callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.f", ys[0]);
      break;
    case Approx::Rsqrt:
      r = callIntrinsic(b, loc, "llvm.nvvm.rsqrt.approx.f", ys[0]);
      break;
    case Approx::None:
      r = callLibdevice(b, loc, op, "__nv_" + base + "f", ys);
      break;
    }
    if (t != f32)
      r = arith::TruncFOp::create(b, loc, t, r);
    return r;
  }

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> operands(adaptor.getOperands().begin(),
                                adaptor.getOperands().end());
    Type t = operands[0].getType();
    if (!isa<FloatType>(getElementTypeOrSelf(t)))
      return op.emitError("kcc: math on non-float types is not supported");
    if (auto vt = dyn_cast<VectorType>(t)) {
      SmallVector<SmallVector<Value>> parts;
      for (Value v : operands)
        parts.push_back(unpack(rewriter, loc, v));
      SmallVector<Value> out;
      for (int64_t i = 0; i < vt.getNumElements(); ++i) {
        SmallVector<Value> xs;
        for (auto &p : parts)
          xs.push_back(p[i]);
        out.push_back(scalar(rewriter, loc, op, xs));
      }
      rewriter.replaceOp(op, buildVector(rewriter, loc, out));
      return success();
    }
    rewriter.replaceOp(op, scalar(rewriter, loc, op, operands));
    return success();
  }

  std::string base;
  Approx approx;
};

} // namespace

void kcc::nvidia::populateMathPatterns(KccTypeConverter &tc,
                                       RewritePatternSet &patterns,
                                       ConversionTarget &target) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ApproxReciprocal>(tc, ctx);
#define KCC_MATH(OP, NAME, APPROX)                                             \
  patterns.add<MathLowering<math::OP>>(tc, ctx, NAME, Approx::APPROX);         \
  target.addIllegalOp<math::OP>();
  KCC_MATH(ExpOp, "exp", Exp)
  KCC_MATH(Exp2Op, "exp2", Exp2)
  KCC_MATH(LogOp, "log", Log)
  KCC_MATH(Log2Op, "log2", Log2)
  KCC_MATH(RsqrtOp, "rsqrt", Rsqrt)
  KCC_MATH(SinOp, "sin", None)
  KCC_MATH(CosOp, "cos", None)
  KCC_MATH(TanOp, "tan", None)
  KCC_MATH(SinhOp, "sinh", None)
  KCC_MATH(CoshOp, "cosh", None)
  KCC_MATH(AsinOp, "asin", None)
  KCC_MATH(AcosOp, "acos", None)
  KCC_MATH(AtanOp, "atan", None)
  KCC_MATH(Atan2Op, "atan2", None)
  KCC_MATH(AsinhOp, "asinh", None)
  KCC_MATH(AcoshOp, "acosh", None)
  KCC_MATH(AtanhOp, "atanh", None)
  KCC_MATH(ErfcOp, "erfc", None)
  KCC_MATH(Log10Op, "log10", None)
  KCC_MATH(Log1pOp, "log1p", None)
  KCC_MATH(ExpM1Op, "expm1", None)
  KCC_MATH(CbrtOp, "cbrt", None)
  KCC_MATH(PowFOp, "pow", None)
#undef KCC_MATH
}
