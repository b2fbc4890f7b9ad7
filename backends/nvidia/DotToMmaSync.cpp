//===- DotToMmaSync.cpp - kcc.dot -> ldmatrix + mma.sync.m16n8k16 ---------===//
//
// A dot whose accumulator kcc-materialize-warp-mma gave the #kcc.wgmma_acc
// layout (f16/bf16 operands in #kcc.blocked registers, f32 accumulator):
//   1. barrier (earlier readers of the scratch are done); the owners store
//      a and b row-major into the shared-memory scratch, one vector store
//      per layout chunk, rows padded by 16 bytes (dotScratch); barrier;
//   2. per K step of 16: warp w of warpgroup g loads the A fragments of
//      each of its 16-row slabs (rows 64 (g + W rep) + 16 w ..) with one
//      `ldmatrix.x4`, and per pair of 8-column blocks of N the B fragments
//      with one `ldmatrix.x4.trans` (b is K x N row-major: the transposed
//      load hands each lane the k-pairs that mma's "col" B operand wants);
//      then one `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}` per
//      (slab, 8-column block).
// Register 4 j + c of a slab's N/2 accumulators is the mma's c[c] for
// column block j, which is the #kcc.wgmma_acc register order
// (accumulatorOffset), so the accumulator needs no shuffling.
//
//===----------------------------------------------------------------------===//
#include "backends/nvidia/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::nvidia;

namespace {

struct DotMmaSyncLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType();
    RankedTensorType cT = op.getC().getType();
    auto layout = dyn_cast_or_null<WgmmaAccLayoutAttr>(cT.getEncoding());
    if (!layout)
      return rewriter.notifyMatchFailure(op, "not an mma.sync dot");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    const TargetOps &ops = targetOpsOf(*this);
    MLIRContext *ctx = b.getContext();
    Type elem = aT.getElementType();
    bool bf16 = elem.isBF16();
    int64_t m = aT.getDimSize(0), k = aT.getDimSize(1), n = bT.getDimSize(1);
    unsigned warpgroups = layout.getWarpgroups();
    int64_t reps = m / (64 * warpgroups); // 64-row blocks per warpgroup
    DotScratch s = dotScratch(op);
    auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
    auto k32 = [&](int64_t v) { return i32Const(b, loc, v); };

    // 1. a and b to shared memory.
    Value aBase, bBase;
    std::tie(aBase, bBase) =
        stageDotOperands(ops, b, loc, op, adaptor.getA(), adaptor.getB());

    // 2. This lane's ldmatrix row addresses (element offsets): lanes 0-15
    // give rows 0-15 of the first 8 columns, lanes 16-31 the same rows of
    // the next 8 (A: m rows x k columns; B: k rows x n columns).
    Value tid = ops.threadId(b, loc);
    Value lane = arith::AndIOp::create(b, loc, tid, k32(31));
    Value warp = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, tid, k32(5)), k32(3));
    Value wg = arith::ShRUIOp::create(b, loc, tid, k32(7));
    Value laneRow = arith::AndIOp::create(b, loc, lane, k32(15));
    Value laneCol = arith::MulIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, k32(4)), k32(8));
    // Row of this warp's first slab: 64 g + 16 w.
    Value slabRow = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, wg, k32(64)),
        arith::MulIOp::create(b, loc, warp, k32(16)));
    Value aLane = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              arith::AddIOp::create(b, loc, slabRow, laneRow),
                              k32(s.aRowStride)),
        laneCol);
    Value bLane = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, laneRow, k32(s.bRowStride)),
        laneCol);

    auto i32 = b.getI32Type();
    auto f32 = b.getF32Type();
    Type x4 = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
    Type d4 = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    auto half2 = VectorType::get({2}, elem);
    auto shape = NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8);
    // Four 8x8 b16 matrices; `trans` for B.
    auto ldmatrix = [&](OpBuilder &lb, Value offset, bool trans) {
      Value addr = LLVM::GEPOp::create(lb, loc, ptr3, elem,
                                       trans ? bBase : aBase, offset);
      Value x = NVVM::LdMatrixOp::create(lb, loc, x4, addr, 4,
                                         trans ? NVVM::MMALayout::col
                                               : NVVM::MMALayout::row,
                                         shape, NVVM::LdStMatrixEltType::B16);
      SmallVector<Value> regs;
      for (int64_t i = 0; i < 4; ++i) {
        Value r = LLVM::ExtractValueOp::create(lb, loc, x, i);
        // f16 operands are vector<2xf16>; bf16 ones stay packed in i32.
        regs.push_back(bf16 ? r : LLVM::BitcastOp::create(lb, loc, half2, r));
      }
      return regs;
    };

    // 3. The K steps, carrying the accumulators.
    Value result = accumulateKSteps(
        b, loc, adaptor.getC(), k / 16,
        [&](OpBuilder &lb, Location l, Value k0, MutableArrayRef<Value> next) {
          auto c32 = [&](int64_t v) { return i32Const(lb, l, v); };
          // A fragments of every slab of this warp.
          SmallVector<SmallVector<Value>> aFrag;
          Value aStep = arith::AddIOp::create(lb, l, aLane, k0);
          for (int64_t rep = 0; rep < reps; ++rep)
            aFrag.push_back(ldmatrix(
                lb,
                arith::AddIOp::create(
                    lb, l, aStep, c32(64 * warpgroups * rep * s.aRowStride)),
                /*trans=*/false));
          Value bStep = arith::AddIOp::create(
              lb, l, bLane,
              arith::MulIOp::create(lb, l, k0, c32(s.bRowStride)));
          for (int64_t n0 = 0; n0 < n; n0 += 16) {
            SmallVector<Value> bFrag =
                ldmatrix(lb, arith::AddIOp::create(lb, l, bStep, c32(n0)),
                         /*trans=*/true);
            for (int64_t half = 0; half < 2; ++half) {
              int64_t block = n0 / 8 + half; // 8-column block j
              for (int64_t rep = 0; rep < reps; ++rep) {
                int64_t r0 = rep * (n / 2) + 4 * block;
                SmallVector<Value> c(next.begin() + r0, next.begin() + r0 + 4);
                auto mma = NVVM::MmaOp::create(
                    lb, l, d4, aFrag[rep],
                    ValueRange{bFrag[2 * half], bFrag[2 * half + 1]}, c,
                    ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
                    std::array<NVVM::MMATypes, 2>{
                        bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16,
                        bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16},
                    std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                   NVVM::MMALayout::col});
                for (int64_t i = 0; i < 4; ++i)
                  next[r0 + i] = LLVM::ExtractValueOp::create(lb, l, mma, i);
              }
            }
          }
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kcc::nvidia::storeTileRows(const TargetOps &ops, OpBuilder &b,
                                Location loc, Value v, RankedTensorType type,
                                Value base, int64_t rowStride) {
  TileLayout l = TileLayout::get(type);
  Type elem = type.getElementType();
  unsigned bytes = storageBytes(elem);
  int64_t cols = type.getDimSize(1);
  unsigned vec = std::min<int64_t>(l.vec, cols);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value tid = ops.threadId(b, loc);
  SmallVector<Value> regs = unpack(b, loc, v);
  Value tBase = threadBase(b, loc, l, tid);
  unsigned logCols = llvm::Log2_64(cols);
  emitIf(b, loc, ownerPred(b, loc, l, tid), [&](OpBuilder &ib) {
    for (unsigned r = 0; r < l.regs; r += vec) {
      Value flat = flatIndex(ib, loc, l, tBase, r);
      Value row =
          arith::ShRUIOp::create(ib, loc, flat, i32Const(ib, loc, logCols));
      Value col =
          arith::AndIOp::create(ib, loc, flat, i32Const(ib, loc, cols - 1));
      Value idx = arith::AddIOp::create(
          ib, loc,
          arith::MulIOp::create(ib, loc, row, i32Const(ib, loc, rowStride)),
          col);
      Value addr = LLVM::GEPOp::create(ib, loc, ptr3, elem, base, idx);
      Value chunk = vec == 1
                        ? regs[r]
                        : buildVector(ib, loc, ArrayRef(regs).slice(r, vec));
      LLVM::StoreOp::create(ib, loc, chunk, addr, vec * bytes);
    }
  });
}

std::pair<Value, Value> kcc::nvidia::stageDotOperands(const TargetOps &ops,
                                                      OpBuilder &b,
                                                      Location loc, DotOp op,
                                                      Value a, Value bTile) {
  DotScratch s = dotScratch(op);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value aBase = smemBase(b, loc, op);
  Value bBase =
      LLVM::GEPOp::create(b, loc, ptr3, b.getI8Type(), aBase,
                          ArrayRef<LLVM::GEPArg>{int32_t(s.bOffset)});
  ops.barrier(b, loc); // earlier readers of the scratch are done
  storeTileRows(ops, b, loc, a, op.getA().getType(), aBase, s.aRowStride);
  storeTileRows(ops, b, loc, bTile, op.getB().getType(), bBase,
                s.bRowStride);
  ops.barrier(b, loc);
  return {aBase, bBase};
}

Value kcc::nvidia::accumulateKSteps(
    OpBuilder &b, Location loc, Value acc, int64_t steps,
    function_ref<void(OpBuilder &, Location, Value, MutableArrayRef<Value>)>
        body) {
  SmallVector<Value> init = unpack(b, loc, acc);
  auto loop = scf::ForOp::create(
      b, loc, i32Const(b, loc, 0), i32Const(b, loc, steps), i32Const(b, loc, 1),
      init, [&](OpBuilder &lb, Location l, Value step, ValueRange accs) {
        SmallVector<Value> next(accs.begin(), accs.end());
        body(lb, l, arith::MulIOp::create(lb, l, step, i32Const(lb, l, 16)),
             next);
        scf::YieldOp::create(lb, l, next);
      });
  SmallVector<Value> out(loop.getResults());
  return buildVector(b, loc, out);
}

void kcc::nvidia::populateDotMmaSyncPatterns(KccTypeConverter &tc,
                                             RewritePatternSet &patterns) {
  patterns.add<DotMmaSyncLowering>(tc, patterns.getContext());
}
