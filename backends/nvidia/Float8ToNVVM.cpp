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

struct TruncToFloat8 : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Type f8 = getElementTypeOrSelf(op.getType());
    if (!isOcpFloat8(f8))
      return failure();
    Location loc = op.getLoc();
    Type in = getElementTypeOrSelf(op.getIn().getType());
    if (!(in.isF32() || in.isF16() || in.isBF16()))
      return rewriter.notifyMatchFailure(
          op, "kcc casts f32, f16 and bf16 to 8-bit floats");
    Type i8 = rewriter.getI8Type();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<Value> xs = f32ElementsOf(rewriter, loc, a.getIn());
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
    if (!isOcpFloat8(f8))
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
    for (Value &y : ys)
      y = fromFloat8Value(rewriter, loc, y, out);
    replaceWithRegisters(rewriter, op, *getTypeConverter(), ys);
    return success();
  }
};

} // namespace

void kcc::nvidia::populateFloat8Patterns(KccTypeConverter &tc,
                                         RewritePatternSet &patterns,
                                         ConversionTarget &target) {
  patterns.add<TruncToFloat8, ExtFromFloat8>(tc, patterns.getContext());
  gpu::populateFloat8ConstantPatterns(tc, patterns, target);
}
