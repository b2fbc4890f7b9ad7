//===- DotToMfma.cpp - kcc.dot -> LDS + v_mfma_f32_16x16x16 ---------------===//
//
// A dot whose accumulator kcc-materialize-warp-mma gave the #kcc.mfma_acc
// layout (AMD, wave64; f16/bf16 operands in #kcc.blocked registers, f32
// accumulator):
//   1. barrier (earlier readers of the scratch are done); the owners store
//      a and b row-major into LDS, one vector store per layout chunk, rows
//      padded by 16 bytes (dotScratch); barrier;
//   2. per K step of 16: wave w loads, for each of its 16-row slabs (rows
//      16 (w + W rep) ..), lane l's A fragment A[l % 16][4 (l / 16) .. + 3]
//      (one 8-byte LDS load), and per 16-column block j of N the B fragment
//      B[4 (l / 16) .. + 3][16 j + l % 16] (four 2-byte loads down a column);
//      then one `v_mfma_f32_16x16x16f16` (`..bf16_1k` for bf16) per
//      (slab, block). i8 operands with an i32 accumulator: 4 bytes a lane
//      (`v_mfma_i32_16x16x16i8`, gfx90a) or 8 (`v_mfma_i32_16x16x32_i8`,
//      gfx942, K steps of 32), packed into one integer operand; the FNUZ
//      8-bit floats the same way, 8 bytes a lane, with an f32 accumulator
//      (`v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}`, gfx942).
// Register 4 j + i of a slab's N/4 accumulators is the MFMA's D[i] for
// column block j, the #kcc.mfma_acc register order (accumulatorOffset).
// Fragment layouts: AMD's matrix instruction calculator for
// v_mfma_f32_16x16x16f16 (A[i][k]: lane i + 16 (k / 4), item k mod 4;
// B[k][j]: lane j + 16 (k / 4), item k mod 4; D[i][j]: lane j + 16 (i / 4),
// item i mod 4). No AMD GPU runs this here: sim/WarpMma.cpp executes it.
//
//===----------------------------------------------------------------------===//
#include "backends/amd/ROCDLLowering.h"

#include "ir/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace {

struct DotMfmaLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType();
    RankedTensorType cT = op.getC().getType();
    auto layout = dyn_cast_or_null<MfmaAccLayoutAttr>(cT.getEncoding());
    if (!layout)
      return rewriter.notifyMatchFailure(op, "not an MFMA dot");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    const TargetOps &ops = targetOpsOf(*this);
    MLIRContext *ctx = b.getContext();
    Type elem = aT.getElementType();
    bool bf16 = elem.isBF16();
    // i8 x i8 -> i32: `e` 8-bit items a lane (4 for 16x16x16i8, 8 for
    // 16x16x32_i8), packed into one i32 / i64 operand; K steps of 4 e.
    auto mma = op->getAttrOfType<StringAttr>(KccDialect::kMmaAttr);
    bool float8 = isFloat8(elem);
    bool int8 = elem.isInteger(8) || float8; // 8-bit items, packed
    int64_t e =
        float8 || (int8 && mma && mma.getValue() == "mfma.i32.16x16x32.i8") ? 8
                                                                            : 4;
    // 8-bit floats are bytes in registers and in LDS (KccTypeConverter).
    if (float8)
      elem = b.getI8Type();
    bool aBf8 = isFloat8E5M2(aT.getElementType()),
         bBf8 = isFloat8E5M2(bT.getElementType());
    int64_t k = aT.getDimSize(1), n = bT.getDimSize(1);
    unsigned waves = layout.getWaves();
    int64_t reps = aT.getDimSize(0) / (16 * waves); // slabs per wave
    DotScratch s = dotScratch(op);
    auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
    auto k32 = [&](int64_t v) { return i32Const(b, loc, v); };

    // 1. a and b to LDS.
    Value aBase, bBase;
    std::tie(aBase, bBase) =
        stageDotOperands(ops, b, loc, op, adaptor.getA(), adaptor.getB());

    // 2. This lane's fragment origins (element offsets): A row
    // 16 w + l % 16, column 4 (l / 16); B row 4 (l / 16), column l % 16.
    Value tid = ops.threadId(b, loc);
    Value lane = arith::AndIOp::create(b, loc, tid, k32(63));
    Value wave = arith::ShRUIOp::create(b, loc, tid, k32(6));
    Value row16 = arith::AndIOp::create(b, loc, lane, k32(15));
    Value quad = arith::MulIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, k32(4)), k32(e));
    Value aLane = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, wave, k32(16)), row16),
            k32(s.aRowStride)),
        quad);
    Value bLane = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, quad, k32(s.bRowStride)), row16);

    auto i16 = b.getIntegerType(16);
    Type accElem =
        int8 && !float8 ? Type(b.getI32Type()) : Type(b.getF32Type());
    auto frag = VectorType::get({e}, elem);
    auto fragI16 = VectorType::get({4}, i16);
    auto acc4 = VectorType::get({4}, accElem);
    Value zero = LLVM::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    // bf16 operands go in as i16 bits (the intrinsic's <4 x i16>), 8-bit
    // ones packed into one integer.
    auto operand = [&](OpBuilder &lb, Value v) {
      if (int8)
        return (Value)LLVM::BitcastOp::create(lb, loc, lb.getIntegerType(8 * e),
                                              v);
      return bf16 ? (Value)LLVM::BitcastOp::create(lb, loc, fragI16, v) : v;
    };

    // 3. The K steps, carrying the accumulators.
    Value result = accumulateKSteps(
        b, loc, adaptor.getC(), k / (4 * e),
        [&](OpBuilder &lb, Location l, Value k0, MutableArrayRef<Value> next) {
          auto c32 = [&](int64_t v) { return i32Const(lb, l, v); };
          SmallVector<Value> aFrag;
          Value aStep = arith::AddIOp::create(lb, l, aLane, k0);
          for (int64_t rep = 0; rep < reps; ++rep) {
            Value idx = arith::AddIOp::create(
                lb, l, aStep, c32(16 * waves * rep * s.aRowStride));
            Value addr = LLVM::GEPOp::create(lb, l, ptr3, elem, aBase, idx);
            aFrag.push_back(
                operand(lb, LLVM::LoadOp::create(lb, l, frag, addr,
                                                 /*alignment=*/int8 ? e : 8)));
          }
          Value bStep = arith::AddIOp::create(
              lb, l, bLane,
              arith::MulIOp::create(lb, l, k0, c32(s.bRowStride)));
          for (int64_t j = 0; j < n / 16; ++j) {
            SmallVector<Value> bs;
            for (int64_t i = 0; i < e; ++i) {
              Value idx = arith::AddIOp::create(lb, l, bStep,
                                                c32(i * s.bRowStride + 16 * j));
              Value addr = LLVM::GEPOp::create(lb, l, ptr3, elem, bBase, idx);
              bs.push_back(
                  LLVM::LoadOp::create(lb, l, elem, addr, int8 ? 1 : 2));
            }
            Value bFrag = operand(lb, buildVector(lb, l, bs));
            for (int64_t rep = 0; rep < reps; ++rep) {
              int64_t r0 = rep * (n / 4) + 4 * j;
              Value c = buildVector(lb, l, ArrayRef<Value>(next).slice(r0, 4));
              SmallVector<Value> args = {aFrag[rep], bFrag, c,
                                         zero,       zero,  zero};
              auto fp8Mfma = [&]() -> Value {
                if (aBf8 && bBf8)
                  return ROCDL::mfma_f32_16x16x32_bf8_bf8::create(lb, l, acc4,
                                                                  args);
                if (aBf8)
                  return ROCDL::mfma_f32_16x16x32_bf8_fp8::create(lb, l, acc4,
                                                                  args);
                if (bBf8)
                  return ROCDL::mfma_f32_16x16x32_fp8_bf8::create(lb, l, acc4,
                                                                  args);
                return ROCDL::mfma_f32_16x16x32_fp8_fp8::create(lb, l, acc4,
                                                                args);
              };
              Value d =
                  float8 ? fp8Mfma()
                  : int8 && e == 8
                      ? ROCDL::mfma_i32_16x16x32_i8::create(lb, l, acc4, args)
                            .getResult()
                  : int8 ? ROCDL::mfma_i32_16x16x16i8::create(lb, l, acc4, args)
                               .getResult()
                  : bf16
                      ? ROCDL::mfma_f32_16x16x16bf16_1k::create(lb, l, acc4,
                                                                args)
                            .getResult()
                      : ROCDL::mfma_f32_16x16x16f16::create(lb, l, acc4, args)
                            .getResult();
              for (int64_t i = 0; i < 4; ++i)
                next[r0 + i] = extractElem(lb, l, d, i);
            }
          }
        },
        /*kStep=*/4 * e);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kcc::amd::populateDotMfmaPatterns(KccTypeConverter &tc,
                                          RewritePatternSet &patterns) {
  patterns.add<DotMfmaLowering>(tc, patterns.getContext());
}
