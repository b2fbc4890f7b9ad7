//===- AsyncToNVVM.cpp - async IR -> NVVM (TMA, mbarriers, bulk groups) ---===//
//
// Lowers the layout+effects IR of ir/KccAsyncOps.td. Every async op is
// executed by the whole CTA in program order; here one thread (thread 0)
// issues what the hardware wants issued once (barrier init, expect_tx,
// arrivals, TMA copies, bulk groups), and every thread executes waits, proxy
// fences, barriers and its own registers' part of smem_load/smem_store.
//
// Shared memory (kcc-allocate-shared-memory, run before conversion): the
// kernel's scratch buffer for relayouts and reductions comes first; each
// smem_alloc / mbarrier_alloc then gets its own region after it (128-byte
// aligned stages, 1024 with a swizzle; 8 bytes per mbarrier; the most
// aligned first, so little is lost to padding), recorded as
// kcc.smem_offset, because stages and barriers live across the relayouts that
// reuse the scratch. A stage holds its tile densely in row-major order, which
// is how TMA writes a box without swizzle.
//
// Tensor maps are 128-byte kernel parameters passed by value and marked
// `nvvm.grid_constant`, so TMA reads them in parameter space (their generic
// address) without a copy to local memory.
//
//===----------------------------------------------------------------------===//
#include "backends/nvidia/NVVMLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;
using namespace kcc::nvidia;

namespace {

constexpr StringLiteral kSmemOffsetAttr = KccDialect::kSmemOffsetAttr;

/// The suspend-time hint of mbarrier.try_wait (ns), as CUTLASS uses.
constexpr int64_t kTryWaitTicks = 0x989680;

} // namespace

Value kcc::nvidia::smemAt(OpBuilder &b, Location loc, Operation *user,
                          int64_t offset) {
  Value base = smemBase(b, loc, user);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

/// Address of element `index` (i32) of `base` with `elemBytes`-byte elements.
static Value elementAddr(OpBuilder &b, Location loc, Value base, Value index,
                         unsigned elemBytes) {
  Value bytes =
      arith::MulIOp::create(b, loc, index, i32Const(b, loc, elemBytes));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{bytes});
}

void kcc::nvidia::onLeader(const ConversionPattern &pattern, OpBuilder &b,
                           Location loc, function_ref<void(OpBuilder &)> body) {
  if (roleAt(b.getInsertionBlock()).role == Role::Producer)
    return body(b);
  const TargetOps &ops = targetOpsOf(pattern);
  Value leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            ops.threadId(b, loc), i32Const(b, loc, 0));
  emitIf(b, loc, leader, body);
}

namespace {

template <typename Op>
struct AllocLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto offset = op->template getAttrOfType<IntegerAttr>(kSmemOffsetAttr);
    if (!offset)
      return op.emitError("internal error: no shared-memory offset assigned");
    rewriter.replaceOp(op,
                       smemAt(rewriter, op.getLoc(), op, offset.getInt()));
    return success();
  }
};

} // namespace

Value kcc::nvidia::barrierAt(OpBuilder &b, Location loc, Value bars,
                             Value index) {
  return elementAddr(b, loc, bars, index, 8); // 8 bytes per mbarrier
}

namespace {

/// Element `flat` (row-major in the tile) of a stage of `type`: dense, or
/// with `pad` bytes after each row.
Value stageElementAddr(OpBuilder &b, Location loc, Value stage, Value flat,
                       SmemType type) {
  unsigned bytes = storageBytes(type.getElementType());
  if (unsigned swizzle = type.getSwizzle()) {
    // Boxes one swizzle span wide side by side (as TMA fills and drains
    // them), each row-major and permuted as TMA swizzles by address: the
    // 16-byte chunk (bits 4-6) XOR bits 7-9, masked to the span's chunks.
    // The stage is 1024-byte aligned, so its offsets stand for addresses.
    // Callers access at most 16 aligned bytes, which stay in one chunk.
    int64_t rows = type.getShape().front(), cols = type.getShape().back();
    int64_t span = swizzle / bytes;
    auto k = [&](int64_t v) { return i32Const(b, loc, v); };
    Value row = arith::DivUIOp::create(b, loc, flat, k(cols));
    Value col = arith::RemUIOp::create(b, loc, flat, k(cols));
    Value part = arith::DivUIOp::create(b, loc, col, k(span));
    Value inner = arith::RemUIOp::create(b, loc, col, k(span));
    Value offset = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, part, k(rows * swizzle)),
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, row, k(swizzle)),
            arith::MulIOp::create(b, loc, inner, k(bytes))));
    Value bits = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, offset, k(7)),
        k(swizzle / 16 - 1));
    offset = arith::XOrIOp::create(
        b, loc, offset, arith::ShLIOp::create(b, loc, bits, k(4)));
    return LLVM::GEPOp::create(b, loc, stage.getType(), b.getI8Type(), stage,
                               ValueRange{offset});
  }
  if (type.getPad() == 0)
    return elementAddr(b, loc, stage, flat, bytes);
  int64_t cols = type.getShape().back();
  Value row = arith::DivUIOp::create(b, loc, flat, i32Const(b, loc, cols));
  Value col = arith::RemUIOp::create(b, loc, flat, i32Const(b, loc, cols));
  Value offset = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, row, i32Const(b, loc, type.getRowBytes())),
      arith::MulIOp::create(b, loc, col, i32Const(b, loc, bytes)));
  return LLVM::GEPOp::create(b, loc, stage.getType(), b.getI8Type(), stage,
                             ValueRange{offset});
}

struct MBarrierInitLowering : OpConversionPattern<MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onLeader(*this, rewriter, loc,
           [&](OpBuilder &b) {
             NVVM::MBarrierInitOp::create(
                 b, loc, barrierAt(b, loc, a.getBars(), a.getIndex()),
                 i32Const(b, loc, op.getCount()), Value());
           });
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceMBarrierInitLowering : OpConversionPattern<FenceMBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceMBarrierInitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onLeader(*this, rewriter, loc,
             [&](OpBuilder &b) { NVVM::FenceMbarrierInitOp::create(b, loc); });
    targetOpsOf(*this).barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// barrier.cluster.arrive (release) + barrier.cluster.wait (acquire), by
/// every thread; not .aligned: a warp may reach it from diverged code.
struct ClusterBarrierLowering : OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), UnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The ping-pong consumer group: %tid.x over the group's threads (0 where
/// the region runs as one group).
struct ConsumerGroupLowering : OpConversionPattern<ConsumerGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConsumerGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value g = consumerGroupAt(rewriter, op.getLoc());
    rewriter.replaceOp(op, g ? g : i32Const(rewriter, op.getLoc(), 0));
    return success();
  }
};

struct ArriveExpectTxLowering : OpConversionPattern<MBarrierArriveExpectTxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveExpectTxOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getBytes() > INT32_MAX)
      return op.emitError("kcc: expect_tx of ")
             << op.getBytes() << " bytes does not fit a 32-bit tx count";
    onLeader(*this, rewriter, loc,
           [&](OpBuilder &b) {
             NVVM::MBarrierArriveExpectTxOp::create(
                 b, loc, Type(), barrierAt(b, loc, a.getBars(), a.getIndex()),
                 i32Const(b, loc, op.getBytes()), NVVM::MemScopeKind::CTA,
                 /*relaxed=*/false, Value());
           });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ArriveLowering : OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The kernel may already be an llvm.func (kcc.cluster carried over).
    int64_t ctas = 1;
    if (op.getCluster()) {
      auto func = op->getParentOfType<FunctionOpInterface>();
      auto n = func ? func->getAttrOfType<IntegerAttr>(KccDialect::kClusterAttr)
                    : IntegerAttr();
      if (!n)
        return op.emitError("kcc: internal error: a cluster-wide arrival "
                            "outside a kernel launched as clusters");
      ctas = n.getInt();
    }
    // expect_tx of 0 is a plain arrive (and has the same intrinsic form).
    auto arrive = [&](OpBuilder &b) {
      Value bar = barrierAt(b, loc, a.getBars(), a.getIndex());
      if (!op.getCluster()) {
        NVVM::MBarrierArriveExpectTxOp::create(
            b, loc, Type(), bar, i32Const(b, loc, 0), NVVM::MemScopeKind::CTA,
            /*relaxed=*/false, Value());
        return;
      }
      // The barrier at this offset in every CTA of the cluster, this one's
      // included: each counts the releases of all of them.
      for (int64_t r = 0; r < ctas; ++r) {
        Value peer = NVVM::MapaOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), bar,
            i32Const(b, loc, r));
        // Release at CTA scope, as CUTLASS's cluster barriers arrive: what
        // the arrival orders is this warpgroup's wgmma reads of the stage.
        NVVM::MBarrierArriveOp::create(b, loc, Type(), peer, Value(),
                                       NVVM::MemScopeKind::CTA,
                                       /*relaxed=*/false);
      }
    };
    if (op.getPerWarpgroup()) {
      // The first thread of each consumer warpgroup, after that
      // warpgroup's own wgmma waits (warpgroups are 128 aligned threads).
      const TargetOps &ops = targetOpsOf(*this);
      Value lane =
          arith::AndIOp::create(rewriter, loc, ops.threadId(rewriter, loc),
                                i32Const(rewriter, loc, 127));
      emitIf(rewriter, loc,
             arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                   lane, i32Const(rewriter, loc, 0)),
             arrive);
    } else {
      onLeader(*this, rewriter, loc, arrive);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitLowering : OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::MBarrierTryWaitParityOp::create(
        rewriter, loc, barrierAt(rewriter, loc, a.getBars(), a.getIndex()),
        a.getParity(), i32Const(rewriter, loc, kTryWaitTicks));
    rewriter.eraseOp(op);
    return success();
  }
};

struct InvalLowering : OpConversionPattern<MBarrierInvalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInvalOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onLeader(*this, rewriter, loc,
           [&](OpBuilder &b) {
             NVVM::MBarrierInvalOp::create(
                 b, loc, barrierAt(b, loc, a.getBars(), a.getIndex()));
           });
    rewriter.eraseOp(op);
    return success();
  }
};

/// TMA coordinates are innermost first; kcc's are outermost first.
SmallVector<Value> tmaCoords(ValueRange coords) {
  return SmallVector<Value>(llvm::reverse(coords));
}

struct TmaLoadLowering : OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TensorMapType map = op.getMap().getType();
    unsigned parts = op.getParts();
    unsigned multicast = op.getMulticast().value_or(1);
    onLeader(*this, rewriter, loc, [&](OpBuilder &b) {
      Value stage =
          stageAt(b, loc, a.getDst(), a.getStage(), op.getDst().getType());
      Value bar = barrierAt(b, loc, a.getBars(), a.getIndex());
      // Every CTA of the cluster (bit r: rank r) receives the box.
      Value mask =
          multicast > 1
              ? arith::ConstantOp::create(
                    b, loc, b.getI16IntegerAttr(int16_t((1u << multicast) - 1)))
                    .getResult()
              : Value();
      // Part p: the box p widths further along the innermost dimension,
      // into the stage's p-th box-sized block.
      auto copy = [&](OpBuilder &b, Value p) {
        SmallVector<Value> coords(a.getCoords());
        coords.back() = arith::AddIOp::create(
            b, loc, coords.back(),
            arith::MulIOp::create(b, loc, p,
                                  i32Const(b, loc, map.getBox().back())));
        Value part = elementAddr(b, loc, stage, p, map.getBoxBytes());
        // A CTA's own shared::cta address is valid in shared::cluster (and
        // names the same offset in every CTA a multicast writes).
        Value dst = LLVM::AddrSpaceCastOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), part);
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, dst, a.getMap(), tmaCoords(coords), bar,
            /*im2colOffsets=*/ValueRange(), mask,
            /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, /*group=*/nullptr,
            /*predicate=*/Value());
      };
      if (multicast > 1 && parts % multicast == 0) {
        // CTA r copies parts r * P / N .. for the whole cluster.
        unsigned per = parts / multicast;
        Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
        Value first =
            arith::MulIOp::create(b, loc, rank, i32Const(b, loc, per));
        for (unsigned j = 0; j < per; ++j)
          copy(b, j ? arith::AddIOp::create(b, loc, first, i32Const(b, loc, j))
                          .getResult()
                    : first);
        return;
      }
      auto all = [&](OpBuilder &b) {
        for (unsigned p = 0; p < parts; ++p)
          copy(b, i32Const(b, loc, p));
      };
      if (multicast == 1)
        return all(b);
      // A box that does not split evenly: CTA 0 copies it for all.
      Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
      emitIf(b, loc,
             arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rank,
                                   i32Const(b, loc, 0)),
             all);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreLowering : OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TensorMapType map = op.getMap().getType();
    onLeader(*this, rewriter, loc,
           [&](OpBuilder &b) {
             Value stage = stageAt(b, loc, a.getSrc(), a.getStage(),
                                   op.getSrc().getType());
             // Part p: the stage's p-th box-sized block, p box widths
             // further along the innermost dimension.
             for (unsigned p = 0; p < op.getParts(); ++p) {
               SmallVector<Value> coords(a.getCoords());
               if (p > 0)
                 coords.back() = arith::AddIOp::create(
                     b, loc, coords.back(),
                     i32Const(b, loc, p * map.getBox().back()));
               Value part = elementAddr(b, loc, stage, i32Const(b, loc, p),
                                        map.getBoxBytes());
               NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                   b, loc, a.getMap(), part, tmaCoords(coords),
                   /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
                   /*predicate=*/Value());
             }
           });
    rewriter.eraseOp(op);
    return success();
  }
};

struct CommitGroupLowering : OpConversionPattern<BulkCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BulkCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onLeader(*this, rewriter, loc,
           [&](OpBuilder &b) { NVVM::CpAsyncBulkCommitGroupOp::create(b, loc); });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Only the issuing thread has bulk groups to wait for. Whoever reuses the
/// source afterwards is ordered behind it by the cta_barrier the protocol
/// puts before the reuse.
struct WaitGroupLowering : OpConversionPattern<BulkWaitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BulkWaitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onLeader(*this, rewriter, loc,
           [&](OpBuilder &b) {
             NVVM::CpAsyncBulkWaitGroupOp::create(
                 b, loc, b.getI32IntegerAttr(op.getPending()),
                 op.getRead() ? b.getUnitAttr() : UnitAttr());
           });
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceProxyAsyncLowering : OpConversionPattern<FenceProxyAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceProxyAsyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getGlobal())
      NVVM::FenceProxyOp::create(rewriter, op.getLoc(),
                                 NVVM::ProxyKind::async_global, nullptr);
    else
      NVVM::FenceProxyOp::create(
          rewriter, op.getLoc(), NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
};

struct CtaBarrierLowering : OpConversionPattern<CtaBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CtaBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (roleAt(rewriter.getInsertionBlock()).role == Role::Producer)
      return op.emitError("kcc: kcc.cta_barrier in the producer role of "
                          "kcc.warp_specialize, which one thread runs: it "
                          "would wait for threads that never arrive");
    targetOpsOf(*this).barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Consumer warpgroup w (threads 128 w .. 128 w + 127) waits at named
/// barrier `barrier + w` with the 128 arrivals of the warpgroup before it,
/// or arrives at the next warpgroup's; `start` is the last warpgroup's
/// pass to warpgroup 0.
struct WarpgroupTurnLowering : OpConversionPattern<WarpgroupTurnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupTurnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    RoleInfo role = roleAt(rewriter.getInsertionBlock());
    if (role.role != Role::Consumer || role.groups != 1 ||
        role.consumerThreads < 256)
      return op.emitError("kcc: kcc.warpgroup_turn outside a consumer role "
                          "of two or more warpgroups");
    int64_t warpgroups = role.consumerThreads / 128;
    Value wg = arith::DivUIOp::create(
        b, loc, targetOpsOf(*this).threadId(b, loc), i32Const(b, loc, 128));
    Value first = i32Const(b, loc, op.getBarrier());
    Value count = i32Const(b, loc, 256);
    auto barrierOf = [&](Value w) {
      return arith::AddIOp::create(b, loc, first, w).getResult();
    };
    auto next = [&](Value w) {
      return arith::RemUIOp::create(
                 b, loc, arith::AddIOp::create(b, loc, w, i32Const(b, loc, 1)),
                 i32Const(b, loc, warpgroups))
          .getResult();
    };
    auto arrive = [&](OpBuilder &ab, Value id) {
      LLVM::CallIntrinsicOp::create(
          ab, loc,
          ab.getStringAttr("llvm.nvvm.barrier.cta.arrive.aligned.count"),
          ValueRange{id, count});
    };
    switch (op.getKind()) {
    case WarpgroupTurnKind::Wait:
      LLVM::CallIntrinsicOp::create(
          b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.sync.aligned.count"),
          ValueRange{barrierOf(wg), count});
      break;
    case WarpgroupTurnKind::Pass:
      arrive(b, barrierOf(next(wg)));
      break;
    case WarpgroupTurnKind::Start: {
      Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg,
                                         i32Const(b, loc, warpgroups - 1));
      auto branch = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
      OpBuilder tb = OpBuilder::atBlockBegin(branch.thenBlock());
      arrive(tb, first);
      break;
    }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Each thread moves its own registers: chunk by chunk (`vec` consecutive
/// elements, at most 16 bytes, aligned in the dense stage).
struct SmemLoadLowering : OpConversionPattern<SmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SmemLoadOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType();
    Type st = storageType(elem);
    unsigned bytes = storageBytes(elem);
    Value stage =
        stageAt(rewriter, loc, a.getSrc(), a.getStage(), op.getSrc().getType());
    Value tid = targetOpsOf(*this).threadId(rewriter, loc);
    if (isAccumulatorLayout(type.getEncoding())) {
      // An accumulator's rows (a column read from a [1, N] stage): each
      // register's element by its row-major index, the stage's too.
      RegisterMap map = registerMap(rewriter, loc, type, tid);
      SmallVector<Value> regs;
      for (Value flat : map.flat) {
        Value addr = stageElementAddr(rewriter, loc, stage, flat,
                                      op.getSrc().getType());
        regs.push_back(fromStorage(
            rewriter, loc, LLVM::LoadOp::create(rewriter, loc, st, addr, bytes),
            elem));
      }
      rewriter.replaceOp(op, buildVector(rewriter, loc, regs));
      return success();
    }
    TileLayout l = TileLayout::get(type);
    Value base = threadBase(rewriter, loc, l, tid);
    SmallVector<Value> regs;
    for (unsigned r = 0; r < l.regs; r += l.vec) {
      Value addr = stageElementAddr(rewriter, loc, stage,
                                    flatIndex(rewriter, loc, l, base, r),
                                    op.getSrc().getType());
      auto vt = VectorType::get({int64_t(l.vec)}, st);
      Value v = LLVM::LoadOp::create(rewriter, loc, vt, addr, l.vec * bytes);
      for (Value e : unpack(rewriter, loc, v))
        regs.push_back(fromStorage(rewriter, loc, e, elem));
    }
    rewriter.replaceOp(op, buildVector(rewriter, loc, regs));
    return success();
  }
};

/// Elements of an accumulator each thread stores to shared memory as one
/// vector: row neighbours (pairs in #kcc.wgmma_acc, 16 bytes of a 32-column
/// chunk in #kcc.tmem_acc, one in #kcc.mfma_acc).
static unsigned accumulatorStoreVector(Attribute layout, unsigned bytes) {
  if (isa<WgmmaAccLayoutAttr>(layout))
    return 2;
  if (isa<TmemAccLayoutAttr>(layout))
    return std::max(1u, 16 / bytes);
  return 1;
}

/// The addresses of an accumulator's registers (every `vec`-th: one vector
/// store each) in a 128-byte swizzled stage, factored so that a thread
/// needs few registers for them: at most 8 bases plus constant offsets,
/// which the stores take as immediates. The swizzle XORs a 16-byte chunk's
/// index (bits 4-6) with bits 7-9 of its offset, the row mod 8. Where every
/// register's offset from the thread's origin is a multiple of 8 rows and
/// of a 16-byte chunk, and every origin's vector stays inside its chunk,
/// the XOR mask is one value per thread (its origin's row mod 8) and only
/// the chunk bits of each register's constant offset meet it. Otherwise
/// (other swizzles, f32 stages whose origins span two chunks) empty: the
/// caller swizzles each address (stageElementAddr). Without the factoring
/// the 128 addresses of a 128 x 128 tile held by one warpgroup were computed
/// once per kernel and spilled.
static SmallVector<Value>
factoredAccumulatorAddrs(OpBuilder &b, Location loc, Value stage,
                         SmemType stageType, RankedTensorType tile,
                         unsigned vec, const RegisterMap &map,
                         ArrayRef<int64_t> window = {0, 0},
                         function_ref<bool(unsigned)> include = nullptr) {
  Attribute layout = tile.getEncoding();
  unsigned bytes = storageBytes(tile.getElementType());
  int64_t rows = stageType.getShape().front();
  int64_t tileCols = tile.getShape().back();
  if (stageType.getSwizzle() != 128 || stageType.getShape().size() != 2 ||
      tile.getRank() != 2 || rows % 8 != 0 || window[0] % 8 != 0 ||
      (128 / bytes) * bytes != 128)
    return {};
  int64_t span = 128 / bytes;
  for (unsigned t = 0, e = accumulatorThreads(layout); t < e; ++t) {
    AccumulatorPos o = accumulatorOrigin(layout, t);
    if (o.col < 0 || (o.col + vec) * bytes > 16)
      return {};
  }
  unsigned n = accumulatorRegs(tile);
  AccumulatorPos first = accumulatorOffset(layout, tileCols, 0);
  if (first.row != 0 || first.col != 0)
    return {};
  // Each register's place in the stage, relative to the thread's origin
  // (the window's corner moved to the stage's); nullopt: not stored.
  SmallVector<std::optional<int64_t>> offsets;
  for (unsigned r = 0; r + vec <= n; r += vec) {
    if (include && !include(r)) {
      offsets.push_back(std::nullopt);
      continue;
    }
    AccumulatorPos off = accumulatorOffset(layout, tileCols, r);
    int64_t dr = off.row - window[0], dc = off.col - window[1];
    if (dr % 8 != 0 || dc < 0 || (dc % span) * bytes % 16 != 0)
      return {};
    offsets.push_back((dc / span) * rows * 128 + dr * 128 +
                      (dc % span) * int64_t(bytes));
  }
  auto k = [&](int64_t v) { return i32Const(b, loc, v); };
  // The thread's first register: its offset (origin row x 128 + origin
  // column x bytes; the first register sits in part 0) and swizzle mask.
  Value row = map.rows[0], col = map.cols[0];
  Value base =
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, row, k(128)),
                            arith::MulIOp::create(b, loc, col, k(bytes)));
  Value mask = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, row, k(7)), k(4));
  std::array<Value, 8> chunkBase;
  SmallVector<Value> addrs;
  for (std::optional<int64_t> place : offsets) {
    if (!place) {
      addrs.push_back(nullptr);
      continue;
    }
    int64_t c = *place;
    int64_t chunk = (c >> 4) & 7;
    Value &cb = chunkBase[chunk];
    if (!cb)
      cb = LLVM::GEPOp::create(
          b, loc, stage.getType(), b.getI8Type(), stage,
          ValueRange{arith::AddIOp::create(
              b, loc, base,
              arith::XOrIOp::create(b, loc, mask, k(chunk << 4)))});
    addrs.push_back(LLVM::GEPOp::create(
        b, loc, stage.getType(), b.getI8Type(), cb,
        ArrayRef<LLVM::GEPArg>{int32_t(c & ~int64_t(0x70))}));
  }
  return addrs;
}

struct SmemStoreLowering : OpConversionPattern<SmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  /// A window of the tile (smem_store's `window`): each register whose
  /// element falls inside it goes to its place in the smaller stage. In an
  /// accumulator layout whether it does is known per register at compile
  /// time (every thread's register r sits in the same 8-column block, or
  /// 32-column chunk). Only the GEMM epilogue stores windows
  /// (EpilogueChunks.cpp), from the accumulator's own layout.
  LogicalResult lowerWindow(SmemStoreOp op, OpAdaptor a,
                            ArrayRef<int64_t> window, Value stage, Value tid,
                            ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getValue().getType());
    Attribute layout = type.getEncoding();
    if (type.getRank() != 2 || !isAccumulatorLayout(layout))
      return op.emitError("kcc: a windowed smem_store of ")
             << type
             << " is not supported (only a 2-D MMA accumulator is stored in "
                "column chunks)";
    SmemType stageType = op.getDst().getType();
    unsigned bytes = storageBytes(type.getElementType());
    int64_t rows = stageType.getShape()[0], cols = stageType.getShape()[1];
    unsigned vec = accumulatorStoreVector(layout, bytes);
    // The rows and columns the threads' origins span.
    AccumulatorPos lo{INT64_MAX, INT64_MAX}, hi{INT64_MIN, INT64_MIN};
    for (unsigned t = 0, e = accumulatorThreads(layout); t < e; ++t) {
      AccumulatorPos o = accumulatorOrigin(layout, t);
      lo = {std::min(lo.row, o.row), std::min(lo.col, o.col)};
      hi = {std::max(hi.row, o.row), std::max(hi.col, o.col)};
    }
    // 1: register r's element is inside in every thread, 0: in none, -1:
    // it depends on the thread.
    auto inside = [&](unsigned r) {
      AccumulatorPos off = accumulatorOffset(layout, type.getShape()[1], r);
      int64_t r0 = off.row + lo.row, r1 = off.row + hi.row;
      int64_t c0 = off.col + lo.col, c1 = off.col + hi.col + vec - 1;
      bool in = r0 >= window[0] && r1 < window[0] + rows && c0 >= window[1] &&
                c1 < window[1] + cols;
      bool out = r1 < window[0] || r0 >= window[0] + rows || c1 < window[1] ||
                 c0 >= window[1] + cols;
      return in ? 1 : out ? 0 : -1;
    };
    auto k = [&](int64_t v) { return i32Const(rewriter, loc, v); };
    SmallVector<Value> regs = unpack(rewriter, loc, a.getValue());
    RegisterMap map = registerMap(rewriter, loc, type, tid);
    SmallVector<Value> factored =
        llvm::all_of(llvm::seq<unsigned>(0, regs.size() / vec),
                     [&](unsigned i) { return inside(i * vec) >= 0; })
            ? factoredAccumulatorAddrs(
                  rewriter, loc, stage, stageType, type, vec, map, window,
                  [&](unsigned r) { return inside(r) == 1; })
            : SmallVector<Value>();
    for (size_t r = 0; r + vec <= regs.size(); r += vec) {
      int where = inside(r);
      if (where < 0)
        return op.emitError("kcc: the window at [")
               << window[0] << ", " << window[1] << "] of a " << type
               << " cuts across the layout's register blocks (a register is "
                  "inside it in some threads and outside in others); start "
                  "and end windows on whole blocks";
      if (!where)
        continue;
      SmallVector<Value> chunk;
      for (size_t i = r; i < r + vec; ++i)
        chunk.push_back(toStorage(rewriter, loc, regs[i]));
      if (!factored.empty()) {
        LLVM::StoreOp::create(rewriter, loc, buildVector(rewriter, loc, chunk),
                              factored[r / vec], vec * bytes);
        continue;
      }
      // (row - window[0]) * cols + (col - window[1]) in the stage.
      Value place = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(
              rewriter, loc,
              arith::SubIOp::create(rewriter, loc, map.rows[r], k(window[0])),
              k(cols)),
          arith::SubIOp::create(rewriter, loc, map.cols[r], k(window[1])));
      LLVM::StoreOp::create(
          rewriter, loc, buildVector(rewriter, loc, chunk),
          stageElementAddr(rewriter, loc, stage, place, stageType),
          vec * bytes);
    }
    rewriter.eraseOp(op);
    return success();
  }

  LogicalResult
  matchAndRewrite(SmemStoreOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getValue().getType());
    unsigned bytes = storageBytes(type.getElementType());
    Value stage =
        stageAt(rewriter, loc, a.getDst(), a.getStage(), op.getDst().getType());
    Value tid = targetOpsOf(*this).threadId(rewriter, loc);
    if (std::optional<ArrayRef<int64_t>> window = op.getWindow())
      return lowerWindow(op, a, *window, stage, tid, rewriter);
    if (isa_and_nonnull<WgmmaAccLayoutAttr, TmemAccLayoutAttr>(
            type.getEncoding())) {
      // An accumulator straight into the stage (the epilogue of a GEMM):
      // each thread's row neighbours as one vector store (pairs in
      // #kcc.wgmma_acc, 16 bytes of a 32-column chunk in #kcc.tmem_acc).
      unsigned vec = accumulatorStoreVector(type.getEncoding(), bytes);
      SmallVector<Value> regs = unpack(rewriter, loc, a.getValue());
      RegisterMap map = registerMap(rewriter, loc, type, tid);
      SmallVector<Value> factored = factoredAccumulatorAddrs(
          rewriter, loc, stage, op.getDst().getType(), type, vec, map);
      for (size_t r = 0; r + vec <= regs.size(); r += vec) {
        Value addr = !factored.empty()
                         ? factored[r / vec]
                         : stageElementAddr(rewriter, loc, stage, map.flat[r],
                                            op.getDst().getType());
        SmallVector<Value> chunk;
        for (size_t i = r; i < r + vec; ++i)
          chunk.push_back(toStorage(rewriter, loc, regs[i]));
        LLVM::StoreOp::create(rewriter, loc, buildVector(rewriter, loc, chunk),
                              addr, vec * bytes);
      }
      rewriter.eraseOp(op);
      return success();
    }
    TileLayout l = TileLayout::get(type);
    Value base = threadBase(rewriter, loc, l, tid);
    SmallVector<Value> regs = unpack(rewriter, loc, a.getValue());
    emitIf(rewriter, loc, ownerPred(rewriter, loc, l, tid), [&](OpBuilder &b) {
      for (unsigned r = 0; r < l.regs; r += l.vec) {
        Value addr =
            stageElementAddr(b, loc, stage, flatIndex(b, loc, l, base, r),
                             op.getDst().getType());
        SmallVector<Value> chunk;
        for (unsigned i = r; i < r + l.vec; ++i)
          chunk.push_back(toStorage(b, loc, regs[i]));
        LLVM::StoreOp::create(b, loc, buildVector(b, loc, chunk), addr,
                              l.vec * bytes);
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// One 16-byte cp.async.cg from `src` to `dst`, `srcBytes` of it read (the
/// rest zero-filled).
void cpAsyncChunk(OpBuilder &b, Location loc, Value dst, Value src,
                  Value srcBytes) {
  NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(16),
                          NVVM::LoadCacheModifierKindAttr::get(
                              b.getContext(), NVVM::LoadCacheModifierKind::CG),
                          srcBytes);
}

/// Each thread copies chunks tid, tid + T, ... of the stage's 16-byte
/// chunks (row-major; T threads in the CTA) with cp.async.cg, whose
/// src-size is the chunk's bytes inside the tensor: 0 past the last row or
/// column (the chunk is zero-filled, and its source address is the tensor's
/// base so no address outside the tensor is formed), fewer than 16 where
/// the last column falls inside the chunk.
struct CpAsyncLowering : OpConversionPattern<CpAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CpAsyncOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SmemType type = op.getDst().getType();
    // The kernel (func.func, or llvm.func once converted: it keeps the
    // attributes).
    Operation *fn = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    unsigned warps = blockWarps(fn);
    unsigned threads = (warps ? warps : 4) * targetOpsOf(*this).warpSize();
    if (fn->hasAttr(KccDialect::kProducerWarpsAttr))
      return op.emitError("kcc: internal error: kcc.cp_async in a kernel "
                          "with warp roles");
    unsigned bytes = storageBytes(type.getElementType());
    int64_t rows = type.getShape()[0], cols = type.getShape()[1];
    int64_t chunkElems = 16 / bytes, perRow = cols / chunkElems;
    int64_t chunks = rows * perRow;
    auto k32 = [&](int64_t v) { return i32Const(b, loc, v); };
    auto i64 = b.getI64Type();
    Value tid = targetOpsOf(*this).threadId(b, loc);
    Value stage = stageAt(b, loc, a.getDst(), a.getStage(), type);
    // A batched tensor: the batch's matrix starts at batch * stride0, and a
    // batch index outside the tensor empties it (every chunk zero-filled).
    unsigned lead = a.getDims().size() - 2;
    Value base = a.getBase();
    Value dim0 = a.getDims()[lead], dim1 = a.getDims()[lead + 1];
    if (lead) {
      Value batch = a.getCoords()[0];
      Value inside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, batch,
          arith::MaxSIOp::create(b, loc, a.getDims()[0], k32(0)));
      dim1 = arith::SelectOp::create(b, loc, inside, dim1, k32(0));
      Value offset = arith::SelectOp::create(
          b, loc, inside,
          arith::MulIOp::create(
              b, loc, arith::ExtUIOp::create(b, loc, i64, batch),
              arith::ExtSIOp::create(b, loc, i64, a.getStrides()[0])),
          intConst(b, loc, i64, 0));
      base = LLVM::GEPOp::create(b, loc, base.getType(),
                                 storageType(type.getElementType()), base,
                                 ValueRange{offset});
    }
    Value rowBase =
        arith::MulIOp::create(b, loc, a.getCoords()[lead], k32(rows));
    Value colBase =
        arith::MulIOp::create(b, loc, a.getCoords()[lead + 1], k32(cols));
    Value stride = arith::ExtSIOp::create(b, loc, i64, a.getStrides()[lead]);
    for (int64_t q0 = 0; q0 < chunks; q0 += threads) {
      Value q = arith::AddIOp::create(b, loc, tid, k32(q0));
      Value guard =
          q0 + threads <= chunks
              ? Value()
              : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, q,
                                      k32(chunks));
      emitIf(b, loc, guard, [&](OpBuilder &ib) {
        auto c32 = [&](int64_t v) { return i32Const(ib, loc, v); };
        Value row = arith::DivUIOp::create(ib, loc, q, c32(perRow));
        Value chunk = arith::RemUIOp::create(ib, loc, q, c32(perRow));
        Value grow = arith::AddIOp::create(ib, loc, rowBase, row);
        Value gcol = arith::AddIOp::create(
            ib, loc, colBase,
            arith::MulIOp::create(ib, loc, chunk, c32(chunkElems)));
        // Unsigned comparisons: a negative coordinate or size is outside.
        Value inside = arith::AndIOp::create(
            ib, loc,
            arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult, grow,
                                  dim0),
            arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult, gcol,
                                  dim1));
        Value left = arith::MulIOp::create(
            ib, loc, arith::SubIOp::create(ib, loc, dim1, gcol), c32(bytes));
        Value srcBytes = arith::SelectOp::create(
            ib, loc, inside, arith::MinUIOp::create(ib, loc, left, c32(16)),
            c32(0));
        Value offset = arith::AddIOp::create(
            ib, loc,
            arith::MulIOp::create(
                ib, loc, arith::ExtUIOp::create(ib, loc, i64, grow), stride),
            arith::ExtUIOp::create(ib, loc, i64, gcol));
        offset = arith::SelectOp::create(ib, loc, inside, offset,
                                         intConst(ib, loc, i64, 0));
        Value src = LLVM::GEPOp::create(ib, loc, base.getType(),
                                        storageType(type.getElementType()),
                                        base, ValueRange{offset});
        Value dstOffset = arith::AddIOp::create(
            ib, loc,
            arith::MulIOp::create(ib, loc, row, c32(type.getRowBytes())),
            arith::MulIOp::create(ib, loc, chunk, c32(16)));
        Value dst =
            LLVM::GEPOp::create(ib, loc, stage.getType(), ib.getI8Type(), stage,
                                ValueRange{dstOffset});
        cpAsyncChunk(ib, loc, dst, src, srcBytes);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Each thread copies the 16-byte chunks it holds in the pointer tile's
/// blocked layout (runs of consecutive registers, consecutive and aligned
/// elements: kcc-pipeline-async-copies proved it) to the same elements of
/// the stage; a replicated tile's chunks are copied by their first owner. A
/// chunk whose mask is off is zero-filled (src-size 0) from an address
/// rounded down to 16 bytes: cp.async reads nothing then, but its operand
/// stays aligned.
struct CpAsyncGatherLowering : OpConversionPattern<CpAsyncGatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CpAsyncGatherOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemType type = op.getDst().getType();
    auto ptrs = cast<RankedTensorType>(op.getPtrs().getType());
    unsigned bytes = storageBytes(type.getElementType());
    unsigned chunk = 16 / bytes;
    TileLayout l = TileLayout::get(ptrs);
    if (l.vec % chunk != 0 || l.regs % chunk != 0)
      return op.emitError("kcc: internal error: kcc.cp_async_gather's "
                          "pointers are not laid out in 16-byte chunks");
    Value tid = targetOpsOf(*this).threadId(rewriter, loc);
    Value stage = stageAt(rewriter, loc, a.getDst(), a.getStage(), type);
    Value base = threadBase(rewriter, loc, l, tid);
    SmallVector<Value> addrs = unpack(rewriter, loc, a.getPtrs());
    SmallVector<Value> masks;
    if (a.getMask())
      masks = unpack(rewriter, loc, a.getMask());
    unsigned as = cast<PtrType>(ptrs.getElementType()).getAddressSpace();
    emitIf(rewriter, loc, ownerPred(rewriter, loc, l, tid), [&](OpBuilder &b) {
      for (unsigned r = 0; r < l.regs; r += chunk) {
        Value dst = stageElementAddr(b, loc, stage,
                                     flatIndex(b, loc, l, base, r), type);
        Value addr = addrs[r];
        Value srcBytes = i32Const(b, loc, 16);
        if (!masks.empty()) {
          srcBytes = arith::SelectOp::create(b, loc, masks[r], srcBytes,
                                             i32Const(b, loc, 0));
          addr = arith::SelectOp::create(
              b, loc, masks[r], addr,
              arith::AndIOp::create(b, loc, addr,
                                    intConst(b, loc, b.getI64Type(), ~15ll)));
        }
        cpAsyncChunk(b, loc, dst, toGlobalPtr(b, loc, addr, as), srcBytes);
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct CpAsyncCommitGroupLowering : OpConversionPattern<CpAsyncCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CpAsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct CpAsyncWaitGroupLowering : OpConversionPattern<CpAsyncWaitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CpAsyncWaitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

Value kcc::nvidia::stageAt(OpBuilder &b, Location loc, Value buffer,
                           Value stage, SmemType type) {
  return elementAddr(b, loc, buffer, stage, type.getStageBytes());
}

constexpr StringLiteral kRolesAttr = KccDialect::kRolesAttr;

RoleInfo kcc::nvidia::roleAt(Block *block) {
  for (Region *r = block ? block->getParent() : nullptr; r;
       r = r->getParentRegion()) {
    auto split = dyn_cast_or_null<scf::IfOp>(r->getParentOp());
    if (!split)
      continue;
    if (auto n = split->getAttrOfType<IntegerAttr>(kRolesAttr)) {
      auto groups =
          split->getAttrOfType<IntegerAttr>(KccDialect::kConsumerGroupsAttr);
      return {r == &split.getThenRegion() ? Role::Producer : Role::Consumer,
              unsigned(n.getInt()), groups ? unsigned(groups.getInt()) : 1u};
    }
  }
  return {};
}

Value kcc::nvidia::consumerGroupAt(OpBuilder &b, Location loc) {
  RoleInfo role = roleAt(b.getInsertionBlock());
  if (role.role != Role::Consumer || role.groups < 2)
    return nullptr;
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return arith::DivUIOp::create(
      b, loc, tid, i32Const(b, loc, role.consumerThreads / role.groups));
}

void kcc::nvidia::splitRoles(func::FuncOp fn, const TargetOps &ops) {
  auto warps = fn->getAttrOfType<IntegerAttr>(KccDialect::kNumWarpsAttr);
  auto groups = fn->getAttrOfType<IntegerAttr>(KccDialect::kConsumerGroupsAttr);
  unsigned consumers = (warps ? warps.getInt() : 4) * ops.warpSize() *
                       (groups ? groups.getInt() : 1);
  SmallVector<WarpSpecializeOp> splits;
  fn.walk([&](WarpSpecializeOp ws) { splits.push_back(ws); });
  for (WarpSpecializeOp ws : splits) {
    OpBuilder b(ws);
    Location loc = ws.getLoc();
    Value tid = ops.threadId(b, loc);
    Value producer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           tid, i32Const(b, loc, consumers));
    auto split = scf::IfOp::create(b, loc, producer, /*withElseRegion=*/true);
    split->setAttr(kRolesAttr, b.getI32IntegerAttr(consumers));
    if (groups)
      split->setAttr(KccDialect::kConsumerGroupsAttr, groups);
    // Producer warpgroup: give registers back, then one thread issues.
    OpBuilder pb = OpBuilder::atBlockBegin(split.thenBlock());
    NVVM::SetMaxRegisterOp::create(pb, loc, ws.getProducerRegs(),
                                   NVVM::SetMaxRegisterAction::decrease);
    auto issuer = scf::IfOp::create(
        pb, loc,
        arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tid,
                              i32Const(pb, loc, consumers)),
        /*withElseRegion=*/false);
    Block *thenBlock = issuer.thenBlock();
    thenBlock->getOperations().splice(thenBlock->getTerminator()->getIterator(),
                                      ws.getProducer().front().getOperations());
    OpBuilder cb = OpBuilder::atBlockBegin(split.elseBlock());
    NVVM::SetMaxRegisterOp::create(cb, loc, ws.getConsumerRegs(),
                                   NVVM::SetMaxRegisterAction::increase);
    Block *elseBlock = split.elseBlock();
    elseBlock->getOperations().splice(elseBlock->getTerminator()->getIterator(),
                                      ws.getConsumer().front().getOperations());
    ws.erase();
  }
}

void kcc::nvidia::populateAsyncPatterns(KccTypeConverter &tc,
                                        RewritePatternSet &patterns) {
  patterns.add<AllocLowering<SmemAllocOp>, AllocLowering<MBarrierAllocOp>,
               MBarrierInitLowering, FenceMBarrierInitLowering,
               ConsumerGroupLowering, ArriveExpectTxLowering, ArriveLowering,
               WaitLowering, InvalLowering, TmaLoadLowering,
               ClusterBarrierLowering, TmaStoreLowering, CommitGroupLowering,
               WaitGroupLowering, FenceProxyAsyncLowering, CtaBarrierLowering,
               WarpgroupTurnLowering, SmemLoadLowering, SmemStoreLowering,
               CpAsyncLowering, CpAsyncGatherLowering,
               CpAsyncCommitGroupLowering, CpAsyncWaitGroupLowering>(
      tc, patterns.getContext());
}
