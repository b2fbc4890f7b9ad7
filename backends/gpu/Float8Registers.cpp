//===- Float8Registers.cpp - 8-bit floats in registers, any vendor --------===//
//
// A tile of 8-bit floats lives in registers as its bytes (KccTypeConverter).
// The vendors convert them in pairs (PTX cvt.*x2, AMD v_cvt_pk_*), so the
// casts' patterns (backends/nvidia/Float8ToNVVM.cpp, backends/amd/
// Float8ToROCDL.cpp) share the register plumbing here, and constants are
// bytes on every vendor.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"

#include "ir/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

SmallVector<Value> kcc::gpu::elementsOf(OpBuilder &b, Location loc, Value v) {
  auto vec = dyn_cast<VectorType>(v.getType());
  if (!vec)
    return {v};
  SmallVector<Value> out;
  for (int64_t i = 0; i < vec.getNumElements(); ++i)
    out.push_back(extractElem(b, loc, v, i));
  return out;
}

void kcc::gpu::replaceWithRegisters(ConversionPatternRewriter &rewriter,
                                    Operation *op, const TypeConverter &tc,
                                    ArrayRef<Value> values) {
  Type type = tc.convertType(op->getResult(0).getType());
  rewriter.replaceOp(op, isa<VectorType>(type)
                             ? buildVector(rewriter, op->getLoc(), values)
                             : values.front());
}

SmallVector<Value>
kcc::gpu::pairwise(OpBuilder &b, Location loc, ArrayRef<Value> xs,
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

SmallVector<Value> kcc::gpu::f32ElementsOf(OpBuilder &b, Location loc,
                                           Value v) {
  SmallVector<Value> xs = elementsOf(b, loc, v);
  for (Value &x : xs)
    if (!x.getType().isF32())
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return xs;
}

Value kcc::gpu::fromFloat8Value(OpBuilder &b, Location loc, Value y, Type out) {
  if (y.getType() == out)
    return y;
  if (!y.getType().isF32())
    y = arith::ExtFOp::create(b, loc, b.getF32Type(), y);
  if (out.isF32())
    return y;
  if (out.isF64())
    return arith::ExtFOp::create(b, loc, out, y);
  return arith::TruncFOp::create(b, loc, out, y);
}

namespace {

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

void kcc::gpu::populateFloat8ConstantPatterns(KccTypeConverter &tc,
                                              RewritePatternSet &patterns,
                                              ConversionTarget &target) {
  patterns.add<Float8Constant>(tc, patterns.getContext());
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
