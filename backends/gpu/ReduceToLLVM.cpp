//===- ReduceToLLVM.cpp - kcc.reduce -> registers, shuffles, shared memory ==//
//
// 1-D tile -> uniform scalar:
//   1. each thread combines its registers in four chains (replicated
//      tiles: only owners of a distinct chunk contribute, the others use
//      the identity);
//   2. warp/wave butterfly with the exchanges kcc-plan-lane-exchanges chose
//      (shfl.sync.bfly on NVIDIA; DPP, ds_swizzle, ds_bpermute on AMD);
//   3. with several warps: barrier, lane 0 of each warp writes its partial to
//      shared memory, barrier, every thread combines the partials in warp
//      order, so that all threads hold the same (uniform) value.
// A #kcc.wgmma_acc tile: rows within quads of lanes (no shared memory);
//   columns by butterfly over the rows of a warp, then partials per warp
//   through shared memory, into a #kcc.blocked vector.
// Rank >= 2 tile along an axis (AxisReductionPlan, LoweringUtils.h): each
//   thread combines its registers that differ only along the axis, lanes
//   that do exchange with a butterfly, then (barrier) one lane per group
//   writes a partial per warp slot along the axis, (barrier) and each
//   thread combines the slots of its result registers, in slot order.
// Every shared-memory use starts with a barrier, so that repeated uses (in
// loops, or one after the other) never overwrite data still being read.
// f16/bf16 are combined in f32 and i1/i8/i16 in i32, then converted back.
// Float max/min propagate NaN (arith.maximumf/minimumf); integer max/min
// are signed.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace {

static Type accType(Type elem) {
  MLIRContext *ctx = elem.getContext();
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(ctx);
  if (auto it = dyn_cast<IntegerType>(elem))
    if (it.getWidth() < 32)
      return IntegerType::get(ctx, 32);
  return elem;
}

static Value toAcc(OpBuilder &b, Location loc, Value v, Type acc) {
  if (v.getType() == acc)
    return v;
  if (isa<FloatType>(acc))
    return arith::ExtFOp::create(b, loc, acc, v);
  if (v.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, acc, v);
  return arith::ExtSIOp::create(b, loc, acc, v);
}

static Value fromAcc(OpBuilder &b, Location loc, Value v, Type elem) {
  if (v.getType() == elem)
    return v;
  if (isa<FloatType>(elem))
    return arith::TruncFOp::create(b, loc, elem, v);
  if (elem.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 intConst(b, loc, v.getType(), 0));
  return arith::TruncIOp::create(b, loc, elem, v);
}

static Value identity(OpBuilder &b, Location loc, ReduceKind kind, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat v = kind == ReduceKind::Sum   ? APFloat::getZero(sem)
                : kind == ReduceKind::Max ? APFloat::getInf(sem, true)
                                          : APFloat::getInf(sem, false);
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  }
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = kind == ReduceKind::Sum   ? APInt::getZero(w)
            : kind == ReduceKind::Max ? APInt::getSignedMinValue(w)
                                      : APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

static Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                     Value y) {
  bool f = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::Sum:
    return f ? (Value)arith::AddFOp::create(b, loc, x, y)
             : (Value)arith::AddIOp::create(b, loc, x, y);
  case ReduceKind::Max:
    return f ? (Value)arith::MaximumFOp::create(b, loc, x, y)
             : (Value)arith::MaxSIOp::create(b, loc, x, y);
  case ReduceKind::Min:
    return f ? (Value)arith::MinimumFOp::create(b, loc, x, y)
             : (Value)arith::MinSIOp::create(b, loc, x, y);
  }
  return x;
}

/// Combines `xs` in four interleaved chains, then the chains pairwise:
/// four combines in flight where one chain waits for every result in turn
/// (a row of 32 registers: 10 dependent steps instead of 31), and only
/// four partials live, where a balanced tree keeps half the row's
/// (attention's softmax at head_dim 128 has no registers for them).
static Value combineInChains(OpBuilder &b, Location loc, ReduceKind kind,
                             SmallVector<Value> xs) {
  constexpr size_t kChains = 4;
  SmallVector<Value> chains;
  for (auto [i, x] : llvm::enumerate(xs)) {
    if (i < kChains)
      chains.push_back(x);
    else
      chains[i % kChains] = combine(b, loc, kind, chains[i % kChains], x);
  }
  while (chains.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < chains.size(); i += 2)
      next.push_back(combine(b, loc, kind, chains[i], chains[i + 1]));
    if (chains.size() % 2)
      next.push_back(chains.back());
    chains = std::move(next);
  }
  return chains.front();
}

/// One butterfly step: the exchange instruction and the partner mask.
struct ExchangeStep {
  StringRef kind;
  unsigned mask;
};

/// The butterfly of `op`: its kcc.butterfly plan, or without one the
/// vendor's default exchange for xor warp/2 down to 1.
static SmallVector<ExchangeStep> butterflyOf(ReduceOp op, const TargetOps &ops,
                                             unsigned warp) {
  SmallVector<ExchangeStep> steps;
  if (auto plan = op->getAttrOfType<ArrayAttr>(KccDialect::kButterflyAttr)) {
    for (Attribute a : plan) {
      auto d = cast<DictionaryAttr>(a);
      steps.push_back({d.getAs<StringAttr>("op").getValue(),
                       unsigned(d.getAs<IntegerAttr>("mask").getInt())});
    }
    return steps;
  }
  for (unsigned m = warp / 2; m >= 1; m /= 2)
    steps.push_back({ops.defaultExchange(m), m});
  return steps;
}

/// Butterfly exchange (lane ^ mask) of an i32/f32/i64/f64 value; null when
/// the target cannot emit `step`.
static Value exchange(const TargetOps &ops, OpBuilder &b, Location loc, Value v,
                      ExchangeStep step) {
  Type i32 = b.getI32Type();
  auto shfl = [&](Value x) -> Value {
    return ops.exchange32(b, loc, x, step.kind, step.mask);
  };
  Type t = v.getType();
  if (t.getIntOrFloatBitWidth() == 32)
    return shfl(v);
  // 64-bit: shuffle both halves.
  auto v2 = VectorType::get({2}, i32);
  Value pair = LLVM::BitcastOp::create(b, loc, v2, v);
  Value lo = shfl(extractElem(b, loc, pair, 0));
  Value hi = shfl(extractElem(b, loc, pair, 1));
  if (!lo || !hi)
    return nullptr;
  return LLVM::BitcastOp::create(b, loc, t, buildVector(b, loc, {lo, hi}));
}

/// `a` combined across the lanes whose index differs only in the bits of
/// `laneMask` (lane ^ m for each such bit m, lowest first); failure, with
/// the step in `missing`, when the target has no exchange for one.
static FailureOr<Value> butterflyOver(const TargetOps &ops, OpBuilder &b,
                                      Location loc, ReduceKind kind, Value a,
                                      unsigned laneMask, unsigned &missing) {
  for (unsigned m = 1; m <= laneMask; m <<= 1) {
    if (!(laneMask & m))
      continue;
    Value other = exchange(ops, b, loc, a, {ops.defaultExchange(m), m});
    if (!other) {
      missing = m;
      return failure();
    }
    a = combine(b, loc, kind, a, other);
  }
  return a;
}

/// The result of an axis reduction read back from its partials at
/// `base`: `slots` partials per result element, `stride` elements apart,
/// each result chunk of up to 16 bytes one vector load per slot, combined
/// in slot order.
static Value readPartials(OpBuilder &b, Location loc, const TileLayout &dl,
                          Value tid, Value base, Type acc, Type elem,
                          ReduceKind kind, unsigned slots, int64_t stride) {
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  unsigned abytes = acc.getIntOrFloatBitWidth() / 8;
  unsigned piece = axisReductionLoadElems(dl, abytes);
  Type lt = piece == 1 ? acc : (Type)VectorType::get({int64_t(piece)}, acc);
  Value dBase = threadBase(b, loc, dl, tid);
  SmallVector<Value> out;
  for (unsigned r = 0; r < dl.regs; r += piece) {
    Value o = flatIndex(b, loc, dl, dBase, r);
    SmallVector<Value> sums;
    for (unsigned s = 0; s < slots; ++s) {
      Value idx = arith::AddIOp::create(b, loc, o,
                                        i32Const(b, loc, int64_t(s) * stride));
      Value addr = LLVM::GEPOp::create(b, loc, ptr3, acc, base, idx);
      Value v = LLVM::LoadOp::create(b, loc, lt, addr, abytes * piece);
      SmallVector<Value> elems =
          piece == 1 ? SmallVector<Value>{v} : unpack(b, loc, v);
      if (sums.empty()) {
        sums = elems;
        continue;
      }
      for (unsigned i = 0; i < piece; ++i)
        sums[i] = combine(b, loc, kind, sums[i], elems[i]);
    }
    for (Value v : sums)
      out.push_back(fromAcc(b, loc, v, elem));
  }
  return buildVector(b, loc, out);
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  /// butterflyOver found no exchange for the lane ^ `missing` step.
  static LogicalResult noExchange(ReduceOp op, unsigned missing) {
    return op.emitError("kcc internal error: no lane exchange for lane ^ ")
           << missing << " on this target";
  }

  /// A row reduction of a #kcc.wgmma_acc tile into its row vector
  /// (isWgmmaRowSlice): a row of a 64-row block lies in one quad of lanes,
  /// each holding N/4 of its elements, so each thread combines its
  /// registers of each of its rows, then two butterfly steps (lane ^ 1,
  /// lane ^ 2) leave the row's result in all 4 lanes. No shared memory.
  LogicalResult lowerAccumulatorRows(ReduceOp op, OpAdaptor adaptor,
                                     ConversionPatternRewriter &rewriter,
                                     Type acc) const {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto srcT = op.getSrc().getType();
    if (!isa<WgmmaAccLayoutAttr>(srcT.getEncoding()) || srcT.getRank() != 2 ||
        op.getAxis() != 1)
      return op.emitError("kcc internal error: only row reductions of a "
                          "wgmma accumulator keep its layout");
    Type elem = srcT.getElementType();
    const TargetOps &ops = targetOpsOf(*this);
    ReduceKind kind = op.getKind();
    SmallVector<Value> regs = unpack(b, loc, adaptor.getSrc());
    int64_t perBlock = srcT.getShape()[1] / 2;
    unsigned blocks = regs.size() / perBlock;
    SmallVector<Value> out;
    for (unsigned blk = 0; blk < blocks; ++blk)
      for (unsigned half = 0; half < 2; ++half) {
        // Register i of the block lies in row 8 * ((i / 2) % 2).
        SmallVector<Value> row;
        for (int64_t i = 0; i < perBlock; ++i)
          if ((i / 2) % 2 == half)
            row.push_back(toAcc(b, loc, regs[blk * perBlock + i], acc));
        unsigned missing = 0;
        FailureOr<Value> a =
            butterflyOver(ops, b, loc, kind, combineInChains(b, loc, kind, row),
                          /*laneMask=*/3, missing);
        if (failed(a))
          return noExchange(op, missing);
        out.push_back(fromAcc(b, loc, *a, elem));
      }
    rewriter.replaceOp(op, buildVector(b, loc, out));
    return success();
  }

  /// A column reduction of a #kcc.wgmma_acc tile into a #kcc.blocked
  /// vector (the softmax of a decode step, its keys along M): each thread
  /// combines its registers of each of its columns, three butterfly
  /// steps (lane ^ 4, ^ 8, ^ 16) combine the warp's rows, lanes 0-3 write
  /// the warp's partials at [warp][column] (barrier) and each thread reads
  /// its result registers' columns from every warp, in warp order.
  LogicalResult lowerAccumulatorColumns(ReduceOp op, OpAdaptor adaptor,
                                        ConversionPatternRewriter &rewriter,
                                        Type acc) const {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto srcT = op.getSrc().getType();
    Attribute layout = srcT.getEncoding();
    Type elem = srcT.getElementType();
    const TargetOps &ops = targetOpsOf(*this);
    ReduceKind kind = op.getKind();
    int64_t n = srcT.getShape()[1];
    SmallVector<Value> regs = unpack(b, loc, adaptor.getSrc());
    // The thread's registers by column (the layout's register offsets), in
    // increasing order of their first register.
    llvm::MapVector<int64_t, SmallVector<unsigned>> byColumn;
    for (unsigned r = 0; r < regs.size(); ++r)
      byColumn[accumulatorOffset(layout, n, r).col].push_back(r);
    SmallVector<Value> partials;
    for (auto &[col, column] : byColumn) {
      SmallVector<Value> own;
      for (unsigned r : column)
        own.push_back(toAcc(b, loc, regs[r], acc));
      // Lane bits 4, 8 and 16 pick a warp's rows.
      unsigned missing = 0;
      FailureOr<Value> a = butterflyOver(
          ops, b, loc, kind, combineInChains(b, loc, kind, own), 28, missing);
      if (failed(a))
        return noExchange(op, missing);
      partials.push_back(*a);
    }
    auto k = [&](int64_t v) { return i32Const(b, loc, v); };
    auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
    unsigned abytes = acc.getIntOrFloatBitWidth() / 8;
    unsigned warps = accumulatorThreads(layout) / 32;
    Value tid = ops.threadId(b, loc);
    Value lane = arith::AndIOp::create(b, loc, tid, k(31));
    Value warp = arith::ShRUIOp::create(b, loc, tid, k(5));
    Value base = scratchBase(ops, b, loc, op);
    ops.barrier(b, loc);
    // The lanes of a warp's first row (its first quad) write the partials
    // at [warp][column].
    Value writer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, k(4));
    emitIf(b, loc, writer, [&](OpBuilder &ib) {
      // Lane l < 4's first column is 2 l (accumulatorOrigin).
      Value first = arith::AddIOp::create(
          ib, loc, arith::MulIOp::create(ib, loc, warp, k(n)),
          arith::ShLIOp::create(ib, loc, lane, k(1)));
      for (auto [column, a] : llvm::zip(byColumn, partials)) {
        Value idx = arith::AddIOp::create(ib, loc, first, k(column.first));
        LLVM::StoreOp::create(
            ib, loc, a, LLVM::GEPOp::create(ib, loc, ptr3, acc, base, idx),
            abytes);
      }
    });
    ops.barrier(b, loc);
    rewriter.replaceOp(
        op, readPartials(b, loc,
                         TileLayout::get(cast<RankedTensorType>(op.getType())),
                         tid, base, acc, elem, kind, warps, n));
    return success();
  }

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto srcT = op.getSrc().getType();
    Type elem = srcT.getElementType();
    if (isa<PtrType>(elem))
      return op.emitError("kcc: reductions of pointer tiles are not supported");
    Type acc = accType(elem);
    ReduceKind kind = op.getKind();
    if (isa<WgmmaAccLayoutAttr>(srcT.getEncoding()) && op.getAxis() == 0 &&
        srcT.getRank() == 2)
      return lowerAccumulatorColumns(op, adaptor, rewriter, acc);
    if (isAccumulatorLayout(srcT.getEncoding()))
      return lowerAccumulatorRows(op, adaptor, rewriter, acc);
    TileLayout sl = TileLayout::get(srcT);
    const TargetOps &ops = targetOpsOf(*this);
    Value tid = ops.threadId(b, loc);
    auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);

    if (srcT.getRank() == 1) {
      SmallVector<Value> regs = unpack(b, loc, adaptor.getSrc());
      SmallVector<Value> own;
      for (unsigned r = 0; r < sl.regs; ++r)
        own.push_back(toAcc(b, loc, regs[r], acc));
      Value a = combineInChains(b, loc, kind, own);
      if (Value own = ownerPred(b, loc, sl, tid))
        a = arith::SelectOp::create(b, loc, own, a,
                                    identity(b, loc, kind, acc));
      for (ExchangeStep step : butterflyOf(op, ops, sl.warp)) {
        Value other = exchange(ops, b, loc, a, step);
        if (!other)
          return op.emitError("kcc internal error: the butterfly step ")
                 << step.kind << " (lane ^ " << step.mask
                 << ") cannot be emitted for this target; its plan comes "
                    "from another target model";
        a = combine(b, loc, kind, a, other);
      }
      unsigned warps = sl.threads / sl.warp;
      if (warps > 1) {
        Value base = scratchBase(ops, b, loc, op);
        unsigned abytes = acc.getIntOrFloatBitWidth() / 8;
        Value lane =
            arith::AndIOp::create(b, loc, tid, i32Const(b, loc, sl.warp - 1));
        Value warp = arith::ShRUIOp::create(
            b, loc, tid, i32Const(b, loc, llvm::Log2_32(sl.warp)));
        Value isLane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              lane, i32Const(b, loc, 0));
        ops.barrier(b, loc);
        emitIf(b, loc, isLane0, [&](OpBuilder &ib) {
          Value addr = LLVM::GEPOp::create(ib, loc, ptr3, acc, base, warp);
          LLVM::StoreOp::create(ib, loc, a, addr, abytes);
        });
        ops.barrier(b, loc);
        Value r;
        for (unsigned w = 0; w < warps; ++w) {
          Value addr = LLVM::GEPOp::create(b, loc, ptr3, acc, base,
                                           ValueRange{i32Const(b, loc, w)});
          Value v = LLVM::LoadOp::create(b, loc, acc, addr, abytes);
          r = r ? combine(b, loc, kind, r, v) : v;
        }
        a = r;
      }
      rewriter.replaceOp(op, fromAcc(b, loc, a, elem));
      return success();
    }

    // Rank >= 2 along `axis` (AxisReductionPlan): registers, then a
    // butterfly over the lane bits along the axis, then one partial per
    // warp slot through shared memory, read back in the result's layout.
    auto dstT = cast<RankedTensorType>(op.getType());
    TileLayout dl = TileLayout::get(dstT);
    AxisReductionPlan plan =
        AxisReductionPlan::get(sl, srcT.getShape(), op.getAxis());
    SmallVector<Value> regs = unpack(b, loc, adaptor.getSrc());
    SmallVector<Value> partials;
    for (ArrayRef<unsigned> group : plan.regGroups) {
      SmallVector<Value> own;
      for (unsigned r : group)
        own.push_back(toAcc(b, loc, regs[r], acc));
      unsigned missing = 0;
      FailureOr<Value> a = butterflyOver(
          ops, b, loc, kind, combineInChains(b, loc, kind, own),
          plan.laneMask & (sl.warp - 1), missing);
      if (failed(a))
        return noExchange(op, missing);
      partials.push_back(*a);
    }
    // Writers: owners whose lane bits along the axis are 0 (after the
    // butterfly every lane of a group holds the same value).
    Value base = scratchBase(ops, b, loc, op);
    unsigned abytes = acc.getIntOrFloatBitWidth() / 8;
    ops.barrier(b, loc);
    Value writer = ownerPred(b, loc, sl, tid);
    if (plan.laneMask) {
      Value laneBits =
          arith::AndIOp::create(b, loc, tid, i32Const(b, loc, plan.laneMask));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          laneBits, i32Const(b, loc, 0));
      writer = writer ? arith::AndIOp::create(b, loc, writer, first) : first;
    }
    Value slot = i32Const(b, loc, 0);
    for (auto [i, bit] : llvm::enumerate(plan.warpAxisBits)) {
      Value one = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, tid, i32Const(b, loc, bit)),
          i32Const(b, loc, 1));
      slot = arith::OrIOp::create(
          b, loc, slot,
          arith::ShLIOp::create(b, loc, one, i32Const(b, loc, i)));
    }
    Value slotBase =
        arith::MulIOp::create(b, loc, slot, i32Const(b, loc, plan.outElems));
    Value sBase = threadBase(b, loc, sl, tid);
    emitIf(b, loc, writer, [&](OpBuilder &ib) {
      for (auto [group, a] : llvm::zip(plan.regGroups, partials)) {
        Value e = flatIndex(ib, loc, sl, sBase, group.front());
        Value hi = arith::ShLIOp::create(
            ib, loc,
            arith::ShRUIOp::create(ib, loc, e, i32Const(ib, loc, plan.axisHi)),
            i32Const(ib, loc, plan.axisLo));
        Value lo = arith::AndIOp::create(
            ib, loc, e, i32Const(ib, loc, (int64_t(1) << plan.axisLo) - 1));
        Value o = arith::OrIOp::create(ib, loc, hi, lo);
        Value idx = arith::AddIOp::create(ib, loc, slotBase, o);
        Value addr = LLVM::GEPOp::create(ib, loc, ptr3, acc, base, idx);
        LLVM::StoreOp::create(ib, loc, a, addr, abytes);
      }
    });
    ops.barrier(b, loc);
    rewriter.replaceOp(op, readPartials(b, loc, dl, tid, base, acc, elem, kind,
                                        plan.slots(), plan.outElems));
    return success();
  }
};

} // namespace

void kcc::gpu::populateReducePatterns(KccTypeConverter &tc,
                                         RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(tc, patterns.getContext());
}
