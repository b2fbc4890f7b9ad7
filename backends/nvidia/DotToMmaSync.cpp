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
//      load hands each lane the k-pairs that mma's "col" B operand wants;
//      a last odd block with `.x2`);
//      then one `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}` per
//      (slab, 8-column block).
// Register 4 j + c of a slab's N/2 accumulators is the mma's c[c] for
// column block j, which is the #kcc.wgmma_acc register order
// (accumulatorOffset), so the accumulator needs no shuffling.
//
//===----------------------------------------------------------------------===//
#include "backends/nvidia/NVVMLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;
using namespace kcc::nvidia;

namespace {

/// Where the tensor cores read one operand: row-major in shared memory from
/// `base` with rows of `rowStride` elements, along K (A: M x K, B: N x K)
/// when `kMajor`, else across it (A: K x M, B: K x N).
struct StagedOperand {
  Value base;
  int64_t rowStride;
  bool kMajor;
};

/// acc (a converted #kcc.wgmma_acc vector) + A x B over K = `k` with
/// ldmatrix + mma.sync.m16n8k16; warp w of warpgroup g computes the 16-row
/// slabs 64 (g + W rep) + 16 w of A over all N columns.
Value emitMmaSync(const TargetOps &ops, OpBuilder &b, Location loc, Value acc,
                  Type elem, int64_t m, int64_t n, int64_t k,
                  unsigned warpgroups, StagedOperand a, StagedOperand bOp) {
  MLIRContext *ctx = b.getContext();
  bool bf16 = elem.isBF16();
  // 8-bit operands (both K-major): m16n8k32 reads the same 32 bytes of K
  // per row as m16n8k16 on 16-bit ones, and its fragment registers hold
  // the same bytes, so the stages are addressed as pairs of 8-bit elements
  // (i16) and everything below is the 16-bit path but the instruction.
  bool int8 = elem.isInteger(8);
  if (int8) {
    elem = b.getI16Type();
    a.rowStride /= 2, bOp.rowStride /= 2, k /= 2;
  }
  int64_t reps = m / (64 * warpgroups); // 64-row blocks per warpgroup
  auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
  auto k32 = [&](int64_t v) { return i32Const(b, loc, v); };
  auto add = [&](OpBuilder &ob, Value x, Value y) {
    return arith::AddIOp::create(ob, loc, x, y).getResult();
  };

  // ldmatrix.x4 takes one row address per lane: lanes 8j..8j+7 give the
  // rows of matrix j. Along K (A: M x K) matrices 0-3 are (rows 0-7, k
  // 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15): lane
  // l gives row l % 16, column 8 (l / 16). Across K (A: K x M) the same
  // four come transposed (.trans) from stage row k = l % 8 + 8 (l / 16),
  // column 8 ((l / 8) % 2). B's four are (k 0-7, n 0-7), (k 8-15, n 0-7),
  // (k 0-7, n 8-15), (k 8-15, n 8-15): across K (K x N) lane l gives row
  // l % 16, column 8 (l / 16), .trans; along K (N x K) row n = l % 8 +
  // 8 (l / 16), column k = 8 ((l / 8) % 2).
  Value tid = ops.threadId(b, loc);
  Value lane = arith::AndIOp::create(b, loc, tid, k32(31));
  Value warp = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, tid, k32(5)), k32(3));
  Value wg = arith::ShRUIOp::create(b, loc, tid, k32(7));
  Value row16 = arith::AndIOp::create(b, loc, lane, k32(15));
  Value col16 = arith::MulIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, lane, k32(4)), k32(8));
  Value row8 = add(b, arith::AndIOp::create(b, loc, lane, k32(7)), col16);
  Value col8 = arith::MulIOp::create(
      b, loc,
      arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lane, k32(3)), k32(1)),
      k32(8));
  // This lane's element offset in an operand for block (rows, K) offsets 0:
  // the A layout of the fragment is row16/col16 along K, row8/col8 across.
  auto laneOffset = [&](const StagedOperand &o, bool isA) {
    bool first = isA == o.kMajor; // row16/col16 (A along K, B across K)
    Value r = first ? row16 : row8, c = first ? col16 : col8;
    return add(b, arith::MulIOp::create(b, loc, r, k32(o.rowStride)), c);
  };
  // Row of this warp's first slab: 64 g + 16 w.
  Value slabRow = add(b, arith::MulIOp::create(b, loc, wg, k32(64)),
                      arith::MulIOp::create(b, loc, warp, k32(16)));
  // The lane's address for (m or n offset `mn`, k offset `k0`).
  Value aLane = laneOffset(a, /*isA=*/true);
  Value bLane = laneOffset(bOp, /*isA=*/false);
  auto at = [&](OpBuilder &ob, const StagedOperand &o, Value lanePart, Value mn,
                Value k0) {
    Value row = o.kMajor ? mn : k0, col = o.kMajor ? k0 : mn;
    return add(
        ob, lanePart,
        add(ob,
            arith::MulIOp::create(ob, loc, row, i32Const(ob, loc, o.rowStride)),
            col));
  };

  auto i32 = b.getI32Type();
  Type accElem = int8 ? Type(i32) : Type(b.getF32Type());
  Type x4 = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
  Type d4 = LLVM::LLVMStructType::getLiteral(
      ctx, {accElem, accElem, accElem, accElem});
  auto half2 = VectorType::get({2}, elem);
  auto shape = NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8);
  // Four 8x8 b16 matrices; .trans where the stage's rows run across the
  // fragment's (A across K, B across K is the "col" operand's natural
  // transpose).
  // `count` = 2 loads matrices 0 and 1 only, from lanes 0-15's addresses
  // (B's last 8-column block when N is an odd multiple of 8).
  auto ldmatrix = [&](OpBuilder &lb, Value base, Value offset, bool trans,
                      int64_t count = 4) {
    Value addr = LLVM::GEPOp::create(lb, loc, ptr3, elem, base, offset);
    Value x = NVVM::LdMatrixOp::create(
        lb, loc,
        count == 4 ? x4 : LLVM::LLVMStructType::getLiteral(ctx, {i32, i32}),
        addr, count, trans ? NVVM::MMALayout::col : NVVM::MMALayout::row, shape,
        NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < count; ++i) {
      Value r = LLVM::ExtractValueOp::create(lb, loc, x, i);
      // f16 operands are vector<2xf16>; bf16 and s8 ones stay packed in
      // i32.
      regs.push_back(bf16 || int8 ? r
                                  : LLVM::BitcastOp::create(lb, loc, half2, r));
    }
    return regs;
  };

  return accumulateKSteps(
      b, loc, acc, k / 16,
      [&](OpBuilder &lb, Location l, Value k0, MutableArrayRef<Value> next) {
        auto c32 = [&](int64_t v) { return i32Const(lb, l, v); };
        // A fragments of every slab of this warp.
        SmallVector<SmallVector<Value>> aFrag;
        for (int64_t rep = 0; rep < reps; ++rep) {
          Value mn = add(lb, slabRow, c32(64 * warpgroups * rep));
          aFrag.push_back(ldmatrix(lb, a.base, at(lb, a, aLane, mn, k0),
                                   /*trans=*/!a.kMajor));
        }
        for (int64_t n0 = 0; n0 < n; n0 += 16) {
          int64_t halves = std::min<int64_t>(2, (n - n0) / 8);
          SmallVector<Value> bFrag =
              ldmatrix(lb, bOp.base, at(lb, bOp, bLane, c32(n0), k0),
                       /*trans=*/!bOp.kMajor, 2 * halves);
          for (int64_t half = 0; half < halves; ++half) {
            int64_t block = n0 / 8 + half; // 8-column block j
            for (int64_t rep = 0; rep < reps; ++rep) {
              int64_t r0 = rep * (n / 2) + 4 * block;
              SmallVector<Value> c(next.begin() + r0, next.begin() + r0 + 4);
              NVVM::MMATypes type = int8   ? NVVM::MMATypes::s8
                                    : bf16 ? NVVM::MMATypes::bf16
                                           : NVVM::MMATypes::f16;
              auto mma = NVVM::MmaOp::create(
                  lb, l, d4, aFrag[rep],
                  ValueRange{bFrag[2 * half], bFrag[2 * half + 1]}, c,
                  ArrayRef<int64_t>{16, 8, int8 ? 32 : 16}, std::nullopt,
                  int8 ? std::optional(NVVM::MMAIntOverflow::wrapped)
                       : std::nullopt,
                  std::array<NVVM::MMATypes, 2>{type, type},
                  std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                 NVVM::MMALayout::col});
              for (int64_t i = 0; i < 4; ++i)
                next[r0 + i] = LLVM::ExtractValueOp::create(lb, l, mma, i);
            }
          }
        }
      });
}

/// A dot on registers: a and b staged row-major (A along K, B across K)
/// into the padded scratch first.
struct DotMmaSyncLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType();
    auto layout =
        dyn_cast_or_null<WgmmaAccLayoutAttr>(op.getC().getType().getEncoding());
    if (!layout)
      return rewriter.notifyMatchFailure(op, "not an mma.sync dot");
    Location loc = op.getLoc();
    const TargetOps &ops = targetOpsOf(*this);
    DotScratch s = dotScratch(op);
    auto [aBase, bBase] = stageDotOperands(ops, rewriter, loc, op,
                                           adaptor.getA(), adaptor.getB());
    rewriter.replaceOp(
        op, emitMmaSync(ops, rewriter, loc, adaptor.getC(), aT.getElementType(),
                        aT.getDimSize(0), bT.getDimSize(1), aT.getDimSize(1),
                        layout.getWarpgroups(), {aBase, s.aRowStride, true},
                        {bBase, s.bRowStride, false}));
    return success();
  }
};

/// Operands already in row-padded stages (kcc-pipeline-async-copies): read
/// in place.
struct WarpMmaLowering : OpConversionPattern<WarpMmaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto accT = cast<RankedTensorType>(op.getAcc().getType());
    auto layout = dyn_cast_or_null<WgmmaAccLayoutAttr>(accT.getEncoding());
    if (!layout)
      return op.emitError("kcc: internal error: kcc.warp_mma without the "
                          "#kcc.wgmma_acc layout");
    Location loc = op.getLoc();
    SmemType aT = op.getA().getType(), bT = op.getB().getType();
    unsigned bytes = storageBytes(aT.getElementType());
    int64_t k = op.getAKMajor() ? aT.getShape()[1] : aT.getShape()[0];
    StagedOperand a{
        stageAt(rewriter, loc, adaptor.getA(), adaptor.getAStage(), aT),
        aT.getRowBytes() / bytes, op.getAKMajor()};
    StagedOperand b{
        stageAt(rewriter, loc, adaptor.getB(), adaptor.getBStage(), bT),
        bT.getRowBytes() / bytes, op.getBKMajor()};
    rewriter.replaceOp(op, emitMmaSync(targetOpsOf(*this), rewriter, loc,
                                       adaptor.getAcc(), aT.getElementType(),
                                       accT.getDimSize(0), accT.getDimSize(1),
                                       k, layout.getWarpgroups(), a, b));
    return success();
  }
};

} // namespace

void kcc::nvidia::populateDotMmaSyncPatterns(KccTypeConverter &tc,
                                             RewritePatternSet &patterns) {
  patterns.add<DotMmaSyncLowering, WarpMmaLowering>(tc, patterns.getContext());
}
