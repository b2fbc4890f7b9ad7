//===- AtomicsToLLVM.cpp - kcc.atomic_rmw / kcc.atomic_cas to LLVM --------===//
//
// An atomic updates each element once per program: the thread that owns an
// element in the tile's layout issues its llvm.atomicrmw / llvm.cmpxchg
// (replicas of a replicated layout do not), and a scalar (uniform) atomic is
// issued by thread 0. Where the old values are used, the owners pass them to
// the replicas through the shared-memory scratch, as a relayout does. The
// memory order and scope become LLVM's ordering and the vendor's sync scope
// (TargetOps::syncScope); what the instruction is (atom.add.f32,
// global_atomic_add_f32, a compare-and-swap loop for what the hardware
// lacks) is the NVPTX/AMDGPU backends' choice. kcc.histogram counts in
// shared memory with CTA-scoped atomics (its privatized counters).
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace {

LLVM::AtomicOrdering llvmOrdering(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::Relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case MemoryOrder::Acquire:
    return LLVM::AtomicOrdering::acquire;
  case MemoryOrder::Release:
    return LLVM::AtomicOrdering::release;
  case MemoryOrder::AcqRel:
    return LLVM::AtomicOrdering::acq_rel;
  }
  llvm_unreachable("unknown memory order");
}

/// A compare-and-swap that fails only reads: it cannot release.
LLVM::AtomicOrdering failureOrdering(MemoryOrder order) {
  return order == MemoryOrder::Acquire || order == MemoryOrder::AcqRel
             ? LLVM::AtomicOrdering::acquire
             : LLVM::AtomicOrdering::monotonic;
}

LLVM::AtomicBinOp llvmBinOp(AtomicKind kind, Type elem) {
  bool f = isa<FloatType>(elem);
  switch (kind) {
  case AtomicKind::Add:
    return f ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case AtomicKind::Min: // NaN-propagating, as the elementwise min
    return f ? LLVM::AtomicBinOp::fminimum : LLVM::AtomicBinOp::min;
  case AtomicKind::Max:
    return f ? LLVM::AtomicBinOp::fmaximum : LLVM::AtomicBinOp::max;
  case AtomicKind::Xchg:
    return LLVM::AtomicBinOp::xchg;
  }
  llvm_unreachable("unknown atomic kind");
}

/// Lowers both atomics: `Op` is AtomicRMWOp or AtomicCASOp.
template <typename Op> struct AtomicLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename Op::Adaptor;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TargetOps &ops = targetOpsOf(*this);
    Type elem = getElementTypeOrSelf(op.getValue().getType());
    unsigned bytes = storageBytes(elem);
    unsigned as = cast<PtrType>(getElementTypeOrSelf(op.getPtr().getType()))
                      .getAddressSpace();
    std::optional<StringRef> syncScope = ops.syncScope(op.getScope());
    if (!syncScope)
      return op.emitError("scope=")
             << stringifyMemoryScope(op.getScope())
             << " atomics are not supported on this target by kcc 0.1 (its "
                "LLVM backend emits only gpu-scoped atomics); use scope=gpu";
    StringRef scope = *syncScope;
    MemoryOrder order = op.getOrder();
    bool release =
        order == MemoryOrder::Release || order == MemoryOrder::AcqRel;
    bool acquire =
        order == MemoryOrder::Acquire || order == MemoryOrder::AcqRel;
    // Fences around a relaxed atomicrmw where the backend drops its order
    // (a compare-and-swap keeps it).
    bool fences = ops.fencesAtomicOrder() && std::is_same_v<Op, AtomicRMWOp>;
    bool used = !op.getResult().use_empty();
    Value tid = ops.threadId(rewriter, loc);

    // The atomic on one element, or `value` where `cond` is off.
    auto one = [&](Value ptr, Value cmp, Value value, Value cond) -> Value {
      auto issue = [&](OpBuilder &b) -> Value {
        // A scalar pointer is converted already; a tile's are i64 lanes.
        Value addr = isa<LLVM::LLVMPointerType>(ptr.getType())
                         ? ptr
                         : toGlobalPtr(b, loc, ptr, as);
        if constexpr (std::is_same_v<Op, AtomicCASOp>) {
          auto cas = LLVM::AtomicCmpXchgOp::create(
              b, loc, addr, cmp, value, llvmOrdering(order),
              failureOrdering(order), scope, bytes);
          return LLVM::ExtractValueOp::create(b, loc, cas, 0);
        } else {
          if (fences && release)
            LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, scope);
          Value old = LLVM::AtomicRMWOp::create(
              b, loc, llvmBinOp(op.getKind(), elem), addr, value,
              fences ? LLVM::AtomicOrdering::monotonic : llvmOrdering(order),
              scope, bytes);
          if (fences && acquire)
            LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, scope);
          return old;
        }
      };
      if (!cond)
        return issue(rewriter);
      auto ifOp = scf::IfOp::create(
          rewriter, loc, cond,
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, issue(b));
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, value); });
      return ifOp.getResult(0);
    };
    Value cmpOperand;
    if constexpr (std::is_same_v<Op, AtomicCASOp>)
      cmpOperand = adaptor.getCmp();

    if (!isa<RankedTensorType>(op.getValue().getType())) {
      // Uniform scalar: the program's atomic (docs/language.md, "Atomics").
      // Thread 0 updates; a barrier before a release makes every thread's
      // earlier accesses its own (PTX's and HSA's barriers are cumulative),
      // one after an acquire orders every thread's later ones; the others
      // read the old value through the scratch, whose barriers serve both.
      if (release)
        ops.barrier(rewriter, loc);
      Value first =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid,
                                i32Const(rewriter, loc, 0));
      Value old = one(adaptor.getPtr(), cmpOperand, adaptor.getValue(),
                      andConditions(rewriter, loc, first, adaptor.getMask()));
      if (!used) {
        if (acquire)
          ops.barrier(rewriter, loc);
        rewriter.eraseOp(op);
        return success();
      }
      rewriter.replaceOp(
          op, broadcastFromThread0(ops, rewriter, loc, op, old, first));
      return success();
    }

    TileLayout l =
        TileLayout::get(cast<RankedTensorType>(op.getValue().getType()));
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> vals = unpack(rewriter, loc, adaptor.getValue());
    SmallVector<Value> cmps, masks;
    if (cmpOperand)
      cmps = unpack(rewriter, loc, cmpOperand);
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    Value owner = ownerPred(rewriter, loc, l, tid);
    SmallVector<Value> olds;
    for (unsigned r = 0; r < l.regs; ++r)
      olds.push_back(one(ptrs[r], cmps.empty() ? Value() : cmps[r], vals[r],
                         andConditions(rewriter, loc, owner,
                                       masks.empty() ? Value() : masks[r])));
    if (!used) {
      rewriter.eraseOp(op);
      return success();
    }
    Value result = buildVector(rewriter, loc, olds);
    // Replicas hold `value`, not what the owner read: the owners' copy goes
    // to every thread through the scratch (smemBytesFor reserves it).
    if (l.replicated())
      result = relayoutThroughSmem(ops, rewriter, loc, op, result, l, l, elem,
                                   [](Value flat) { return flat; });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Thread 0's `v` in every thread, through the scratch.
  static Value broadcastFromThread0(const TargetOps &ops, OpBuilder &b,
                                    Location loc, Operation *op, Value v,
                                    Value isFirst) {
    Value base = scratchBase(ops, b, loc, op);
    Type st = storageType(v.getType());
    unsigned bytes = storageBytes(v.getType());
    ops.barrier(b, loc); // earlier readers of the scratch are done
    emitIf(b, loc, isFirst, [&](OpBuilder &ib) {
      LLVM::StoreOp::create(ib, loc, toStorage(ib, loc, v), base, bytes);
    });
    ops.barrier(b, loc);
    Value x = LLVM::LoadOp::create(b, loc, st, base, bytes);
    return fromStorage(b, loc, x, v.getType());
  }
};

/// kcc.histogram: the program's counters in the shared-memory scratch,
/// zeroed, incremented by each owner thread's values with CTA-scoped
/// shared-memory atomics (atom.shared.add on NVIDIA, ds_add on AMD), then
/// read into the result's layout. Replicas of a replicated layout do not
/// count (each element once).
struct HistogramLowering : OpConversionPattern<HistogramOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HistogramOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TargetOps &ops = targetOpsOf(*this);
    std::optional<StringRef> scope = ops.syncScope(MemoryScope::Cta);
    if (!scope)
      return op.emitError("histogram needs CTA-scoped shared-memory atomics, "
                          "which this target's lowering lacks");
    Type i32 = rewriter.getI32Type();
    Value tid = ops.threadId(rewriter, loc);
    Value base = scratchBase(ops, rewriter, loc, op);
    auto counter = [&](OpBuilder &b, Value index) {
      return LLVM::GEPOp::create(b, loc, base.getType(), i32, base,
                                 ArrayRef<LLVM::GEPArg>{index});
    };
    TileLayout src = TileLayout::get(op.getSrc().getType());
    TileLayout dst = TileLayout::get(op.getType());
    int64_t bins = op.getBins();

    // Zero the counters, thread t taking bins t, t + threads, ...
    ops.barrier(rewriter, loc); // earlier readers of the scratch are done
    Value zero = i32Const(rewriter, loc, 0);
    for (int64_t first = 0; first < bins; first += src.threads) {
      Value index = arith::AddIOp::create(rewriter, loc, tid,
                                          i32Const(rewriter, loc, first));
      Value inRange =
          first + src.threads <= bins
              ? Value()
              : arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                      index, i32Const(rewriter, loc, bins));
      emitIf(rewriter, loc, inRange, [&](OpBuilder &b) {
        LLVM::StoreOp::create(b, loc, zero, counter(b, index), 4);
      });
    }
    ops.barrier(rewriter, loc);

    // Count: values outside [0, bins) (an unsigned compare) and masked-off
    // or replicated elements are skipped.
    SmallVector<Value> vals = unpack(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    Value owner = ownerPred(rewriter, loc, src, tid);
    Value one = i32Const(rewriter, loc, 1);
    for (unsigned r = 0; r < src.regs; ++r) {
      Value inRange =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                vals[r], i32Const(rewriter, loc, bins));
      Value cond = andConditions(rewriter, loc,
                                 andConditions(rewriter, loc, owner, inRange),
                                 masks.empty() ? Value() : masks[r]);
      emitIf(rewriter, loc, cond, [&](OpBuilder &b) {
        LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                                  counter(b, vals[r]), one,
                                  LLVM::AtomicOrdering::monotonic, *scope, 4);
      });
    }
    ops.barrier(rewriter, loc);

    // Read the counts in the result's layout.
    Value threadPart = threadBase(rewriter, loc, dst, tid);
    SmallVector<Value> counts;
    for (unsigned r = 0; r < dst.regs; ++r) {
      Value index = flatIndex(rewriter, loc, dst, threadPart, r);
      counts.push_back(LLVM::LoadOp::create(rewriter, loc, i32,
                                            counter(rewriter, index), 4));
    }
    rewriter.replaceOp(op, buildVector(rewriter, loc, counts));
    return success();
  }
};

} // namespace

void kcc::gpu::populateAtomicPatterns(KccTypeConverter &tc,
                                      RewritePatternSet &patterns) {
  patterns.add<AtomicLowering<AtomicRMWOp>, AtomicLowering<AtomicCASOp>,
               HistogramLowering>(tc, patterns.getContext());
}
