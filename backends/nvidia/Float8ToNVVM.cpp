//===- Float8ToNVVM.cpp - casts to and from 8-bit floats on NVIDIA --------===//
//
// kcc's cast to f8e4m3 / f8e5m2 rounds to nearest even and saturates to the
// largest finite value (NaN stays NaN): PTX `cvt.rn.satfinite.{e4m3x2,
// e5m2x2}.f32`, which converts two values per instruction, so a thread's
// registers go in pairs. The cast back is exact: `cvt.rn.f16x2.{e4m3x2,
// e5m2x2}` (every 8-bit float is an f16, and a bf16: both are wider in
// exponent and significand), then f16 -> f32 -> the wanted type.
// f16/bf16 sources are widened to f32 first, which is exact, so each cast
// rounds once. sm_89 and later (CheckTargetSupport refuses the rest).
//
//===----------------------------------------------------------------------===//
#include "backends/nvidia/NVVMLowering.h"

#include "ir/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;
using namespace kcc::nvidia;

namespace {

/// The elements of `v` (a scalar is one).
SmallVector<Value> elementsOf(OpBuilder &b, Location loc, Value v) {
  auto vec = dyn_cast<VectorType>(v.getType());
  if (!vec)
    return {v};
  SmallVector<Value> out;
  for (int64_t i = 0; i < vec.getNumElements(); ++i)
    out.push_back(extractElem(b, loc, v, i));
  return out;
}

/// Replaces `op` by `values`, its converted result's registers (a scalar
/// or a vector; 8-bit floats are bytes there, KccTypeConverter).
void replaceWithRegisters(ConversionPatternRewriter &rewriter, Operation *op,
                          const TypeConverter &tc, ArrayRef<Value> values) {
  Type type = tc.convertType(op->getResult(0).getType());
  rewriter.replaceOp(op, isa<VectorType>(type)
                             ? buildVector(rewriter, op->getLoc(), values)
                             : values.front());
}

/// `xs` converted two at a time by `convert(lo, hi)`, whose <2 x T> result
/// has lo's value first; an odd last element is paired with itself.
SmallVector<Value> pairwise(OpBuilder &b, Location loc, ArrayRef<Value> xs,
                            function_ref<Value(Value, Value)> convert) {
  SmallVector<Value> out;
  for (size_t i = 0; i < xs.size(); i += 2) {
    Value two = convert(xs[i], xs[i + 1 < xs.size() ? i + 1 : i]);
    out.push_back(extractElem(b, loc, two, 0));
    if (i + 1 < xs.size())
      out.push_back(extractElem(b, loc, two, 1));
  }
  return out;
}

struct TruncToFloat8 : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Type f8 = getElementTypeOrSelf(op.getType());
    if (!isFloat8(f8))
      return failure();
    Location loc = op.getLoc();
    Type in = getElementTypeOrSelf(op.getIn().getType());
    if (!(in.isF32() || in.isF16() || in.isBF16()))
      return rewriter.notifyMatchFailure(
          op, "kcc casts f32, f16 and bf16 to 8-bit floats");
    Type f32 = rewriter.getF32Type(), i8 = rewriter.getI8Type();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<Value> xs = elementsOf(rewriter, loc, a.getIn());
    for (Value &x : xs)
      if (!x.getType().isF32())
        x = arith::ExtFOp::create(rewriter, loc, f32, x);
    auto pair = VectorType::get({2}, i8);
    // `a` goes to the upper byte, element 1 of the <2 x i8>.
    SmallVector<Value> bytes =
        pairwise(rewriter, loc, xs, [&](Value lo, Value hi) -> Value {
          return NVVM::ConvertF32x2ToF8x2Op::create(
              rewriter, loc, pair, hi, lo,
              NVVM::FPRoundingModeAttr::get(ctx, NVVM::FPRoundingMode::RN),
              NVVM::SaturationModeAttr::get(ctx,
                                            NVVM::SaturationMode::SATFINITE),
              rewriter.getBoolAttr(false), TypeAttr::get(f8));
        });
    replaceWithRegisters(rewriter, op, *getTypeConverter(), bytes);
    return success();
  }
};

struct ExtFromFloat8 : OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Type f8 = getElementTypeOrSelf(op.getIn().getType());
    if (!isFloat8(f8))
      return failure();
    Location loc = op.getLoc();
    Type out = getElementTypeOrSelf(op.getType());
    Type f16 = rewriter.getF16Type();
    SmallVector<Value> xs = elementsOf(rewriter, loc, a.getIn());
    SmallVector<Value> ys =
        pairwise(rewriter, loc, xs, [&](Value lo, Value hi) -> Value {
          return NVVM::ConvertF8x2ToF16x2Op::create(
              rewriter, loc, VectorType::get({2}, f16),
              buildVector(rewriter, loc, {lo, hi}), rewriter.getBoolAttr(false),
              TypeAttr::get(f8));
        });
    for (Value &y : ys) {
      if (out.isF16())
        continue;
      y = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), y);
      // Exact: an 8-bit float is a bf16 too.
      if (out.isBF16())
        y = arith::TruncFOp::create(rewriter, loc, out, y);
      else if (out.isF64())
        y = arith::ExtFOp::create(rewriter, loc, out, y);
    }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), ys);
    return success();
  }
};

/// An 8-bit float constant (a masked load's `other`, a splat) as its bytes.
struct Float8Constant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Type f8 = getElementTypeOrSelf(op.getType());
    if (!isFloat8(f8))
      return failure();
    Type i8 = rewriter.getI8Type();
    Type type = getTypeConverter()->convertType(op.getType());
    TypedAttr value;
    if (auto f = dyn_cast<FloatAttr>(op.getValue()))
      value = rewriter.getIntegerAttr(i8, f.getValue().bitcastToAPInt());
    else if (auto d = dyn_cast<DenseFPElementsAttr>(op.getValue());
             d && d.isSplat() && isa<ShapedType>(type))
      value = DenseElementsAttr::get(
          cast<ShapedType>(type),
          rewriter.getIntegerAttr(i8,
                                  d.getSplatValue<APFloat>().bitcastToAPInt()));
    if (!value)
      return rewriter.notifyMatchFailure(op, "not a scalar or splat constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, value);
    return success();
  }
};

} // namespace

void kcc::nvidia::populateFloat8Patterns(KccTypeConverter &tc,
                                         RewritePatternSet &patterns,
                                         ConversionTarget &target) {
  patterns.add<TruncToFloat8, ExtFromFloat8, Float8Constant>(
      tc, patterns.getContext());
  target.addDynamicallyLegalOp<arith::ConstantOp>([&tc](arith::ConstantOp op) {
    return !isFloat8(getElementTypeOrSelf(op.getType())) &&
           tc.isLegal(op.getOperation());
  });
  target.addDynamicallyLegalOp<arith::TruncFOp>([&tc](arith::TruncFOp op) {
    return !isFloat8(getElementTypeOrSelf(op.getType())) &&
           tc.isLegal(op.getOperation());
  });
  target.addDynamicallyLegalOp<arith::ExtFOp>([&tc](arith::ExtFOp op) {
    return !isFloat8(getElementTypeOrSelf(op.getIn().getType())) &&
           tc.isLegal(op.getOperation());
  });
}
