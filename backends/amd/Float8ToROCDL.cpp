//===- Float8ToROCDL.cpp - casts to and from 8-bit floats on MI300 --------===//
//
// gfx942's 8-bit floats are the FNUZ formats (f8e4m3fnuz, f8e5m2fnuz; AMD's
// "fp8" and "bf8"). kcc's cast to them rounds to nearest even and saturates
// to the largest finite value (infinities included; NaN stays NaN, 0x80):
// v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 round to nearest even, two values per
// instruction, and the values are clamped in f32 first (maximum/minimum
// keep NaN), as MLIR's arith-to-amdgpu does with saturate-fp8-truncf: the
// instruction's own overflow gives NaN, not the saturation kcc defines. The
// cast back is exact: v_cvt_f32_fp8 / v_cvt_f32_bf8 of one byte, then f32
// to the wanted type (every FNUZ value is an f16 and a bf16). f16/bf16
// sources are widened to f32 first, which is exact, so each cast rounds
// once. The OCP formats (NVIDIA's) are refused on AMD targets before
// lowering (CheckTargetSupport).
//
//===----------------------------------------------------------------------===//
#include "backends/amd/ROCDLLowering.h"

#include "ir/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace {

struct TruncToFnuz : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Type f8 = getElementTypeOrSelf(op.getType());
    if (!isFnuzFloat8(f8))
      return failure();
    Location loc = op.getLoc();
    Type in = getElementTypeOrSelf(op.getIn().getType());
    if (!(in.isF32() || in.isF16() || in.isBF16()))
      return rewriter.notifyMatchFailure(
          op, "kcc casts f32, f16 and bf16 to 8-bit floats");
    Type i32 = rewriter.getI32Type();
    double largest =
        APFloat::getLargest(cast<FloatType>(f8).getFloatSemantics())
            .convertToDouble();
    Value hi = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getF32FloatAttr(largest));
    Value lo = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getF32FloatAttr(-largest));
    SmallVector<Value> xs = f32ElementsOf(rewriter, loc, a.getIn());
    for (Value &x : xs)
      x = arith::MinimumFOp::create(
          rewriter, loc, arith::MaximumFOp::create(rewriter, loc, x, lo), hi);
    auto bytes4 = VectorType::get({4}, rewriter.getI8Type());
    Value old = LLVM::UndefOp::create(rewriter, loc, i32);
    bool e5 = isFloat8E5M2(f8);
    SmallVector<Value> bytes =
        pairwise(rewriter, loc, xs, [&](Value x0, Value x1) -> Value {
          // Bytes 0 and 1 of the word (wordSel = false): x0, x1.
          Value word =
              e5 ? ROCDL::CvtPkBf8F32Op::create(rewriter, loc, i32, x0, x1, old,
                                                /*wordSel=*/false)
                       .getResult()
                 : ROCDL::CvtPkFp8F32Op::create(rewriter, loc, i32, x0, x1, old,
                                                /*wordSel=*/false)
                       .getResult();
          return LLVM::BitcastOp::create(rewriter, loc, bytes4, word);
        });
    replaceWithRegisters(rewriter, op, *getTypeConverter(), bytes);
    return success();
  }
};

struct ExtFromFnuz : OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Type f8 = getElementTypeOrSelf(op.getIn().getType());
    if (!isFnuzFloat8(f8))
      return failure();
    Location loc = op.getLoc();
    Type out = getElementTypeOrSelf(op.getType());
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    bool e5 = isFloat8E5M2(f8);
    SmallVector<Value> ys;
    for (Value x : elementsOf(rewriter, loc, a.getIn())) {
      Value word = arith::ExtUIOp::create(rewriter, loc, i32, x);
      Value y = e5 ? ROCDL::CvtF32Bf8Op::create(rewriter, loc, f32, word,
                                                /*byteSel=*/0)
                         .getResult()
                   : ROCDL::CvtF32Fp8Op::create(rewriter, loc, f32, word,
                                                /*byteSel=*/0)
                         .getResult();
      ys.push_back(fromFloat8Value(rewriter, loc, y, out));
    }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), ys);
    return success();
  }
};

} // namespace

void kcc::amd::populateFloat8Patterns(KccTypeConverter &tc,
                                      RewritePatternSet &patterns,
                                      ConversionTarget &target) {
  patterns.add<TruncToFnuz, ExtFromFnuz>(tc, patterns.getContext());
  gpu::populateFloat8ConstantPatterns(tc, patterns, target);
}
