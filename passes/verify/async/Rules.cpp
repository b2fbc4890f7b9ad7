//===- Rules.cpp - dispatch of async ops to their transfer rules ----------===//

#include "passes/verify/async/Rules.h"
#include "passes/verify/async/Interpreter.h"

using namespace mlir;

namespace kcc::verify {

/// Barriers or stages per allocation the verifier tracks.
constexpr unsigned kMaxResources = 1024;

bool isAsyncOp(Operation *op) {
  // Most executed ops are arith: one dialect test before the list.
  if (!isa_and_nonnull<kcc::KccDialect>(op->getDialect()))
    return false;
  return isa<kcc::SmemAllocOp, kcc::MBarrierAllocOp, kcc::MBarrierInitOp,
             kcc::FenceMBarrierInitOp, kcc::MBarrierArriveExpectTxOp,
             kcc::MBarrierArriveOp, kcc::MBarrierWaitOp, kcc::MBarrierInvalOp,
             kcc::TmaLoadOp, kcc::TmaStoreOp, kcc::BulkCommitGroupOp,
             kcc::BulkWaitGroupOp, kcc::FenceProxyAsyncOp, kcc::CtaBarrierOp,
             kcc::SmemLoadOp, kcc::SmemStoreOp, kcc::WarpgroupMmaOp,
             kcc::WarpgroupMmaRegAOp, kcc::WarpgroupMmaWaitOp,
             kcc::ConvertLayoutOp, kcc::CpAsyncOp, kcc::CpAsyncGatherOp,
             kcc::CpAsyncCommitGroupOp, kcc::CpAsyncWaitGroupOp, kcc::WarpMmaOp,
             kcc::TmemAllocOp, kcc::TmemDeallocOp, kcc::Tcgen05MmaOp,
             kcc::Tcgen05CommitOp, kcc::TmemLoadOp, kcc::WarpgroupTurnOp,
             kcc::ClusterBarrierOp>(op);
}

bool containsAsyncOp(Operation *root) {
  bool found = false;
  root->walk([&](Operation *op) {
    if (op != root && isAsyncOp(op)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// An allocation the verifier can track.
static bool trackable(Interpreter &in, Operation *op, unsigned n) {
  if (n <= kMaxResources)
    return true;
  in.fail(op->getLoc(),
          "cannot prove the async protocol: the verifier tracks at most " +
              llvm::Twine(kMaxResources) +
              " barriers or stages per "
              "allocation, this one has " +
              llvm::Twine(n),
          "allocate fewer barriers or stages");
  return false;
}

bool transfer(Interpreter &in, Operation *op) {
  // mbarriers
  if (auto alloc = dyn_cast<kcc::MBarrierAllocOp>(op))
    return trackable(in, op, alloc.getType().getCount()) &&
           mbarrierAlloc(in, alloc);
  if (auto alloc = dyn_cast<kcc::SmemAllocOp>(op))
    return trackable(in, op, alloc.getType().getStages()) &&
           smemAlloc(in, alloc);
  if (auto init = dyn_cast<kcc::MBarrierInitOp>(op))
    return mbarrierInit(in, init);
  if (isa<kcc::FenceMBarrierInitOp>(op))
    return fenceMBarrierInit(in);
  if (auto e = dyn_cast<kcc::MBarrierArriveExpectTxOp>(op))
    return mbarrierArriveExpectTx(in, e);
  if (auto a = dyn_cast<kcc::MBarrierArriveOp>(op))
    return mbarrierArrive(in, a);
  if (auto w = dyn_cast<kcc::MBarrierWaitOp>(op))
    return mbarrierWait(in, w);
  if (auto inval = dyn_cast<kcc::MBarrierInvalOp>(op))
    return mbarrierInval(in, inval);
  // TMA copies and bulk groups
  if (auto load = dyn_cast<kcc::TmaLoadOp>(op))
    return tmaLoad(in, load);
  if (auto store = dyn_cast<kcc::TmaStoreOp>(op))
    return tmaStore(in, store);
  if (isa<kcc::BulkCommitGroupOp>(op))
    return bulkCommitGroup(in);
  if (auto w = dyn_cast<kcc::BulkWaitGroupOp>(op))
    return bulkWaitGroup(in, w);
  // A global-space fence orders TMA and generic accesses of global memory
  // around a program's atomics; it fences no shared stage.
  if (auto fence = dyn_cast<kcc::FenceProxyAsyncOp>(op))
    return fence.getGlobal() || fenceProxyAsync(in);
  // cp.async
  if (auto cp = dyn_cast<kcc::CpAsyncOp>(op))
    return cpAsync(in, op, cp.getDst(), cp.getStage());
  if (auto cp = dyn_cast<kcc::CpAsyncGatherOp>(op))
    return cpAsync(in, op, cp.getDst(), cp.getStage());
  if (isa<kcc::CpAsyncCommitGroupOp>(op))
    return cpAsyncCommitGroup(in);
  if (auto w = dyn_cast<kcc::CpAsyncWaitGroupOp>(op))
    return cpAsyncWaitGroup(in, w);
  if (auto mma = dyn_cast<kcc::WarpMmaOp>(op))
    return warpMma(in, mma);
  if (isa<kcc::CtaBarrierOp>(op))
    return ctaBarrier(in);
  if (isa<kcc::ClusterBarrierOp>(op))
    return clusterBarrier(in);
  if (auto turn = dyn_cast<kcc::WarpgroupTurnOp>(op))
    return warpgroupTurn(in, turn);
  // wgmma
  if (auto mma = dyn_cast<kcc::WarpgroupMmaOp>(op))
    return warpgroupMma(in, mma);
  if (auto mma = dyn_cast<kcc::WarpgroupMmaRegAOp>(op))
    return warpgroupMmaRegA(in, mma);
  if (auto wait = dyn_cast<kcc::WarpgroupMmaWaitOp>(op))
    return warpgroupMmaWait(in, wait);
  // tcgen05 and TMEM
  if (auto alloc = dyn_cast<kcc::TmemAllocOp>(op))
    return tmemAlloc(in, alloc);
  if (auto dealloc = dyn_cast<kcc::TmemDeallocOp>(op))
    return tmemDealloc(in, dealloc);
  if (auto mma = dyn_cast<kcc::Tcgen05MmaOp>(op))
    return tcgen05Mma(in, mma);
  if (auto commit = dyn_cast<kcc::Tcgen05CommitOp>(op))
    return tcgen05Commit(in, commit);
  if (auto load = dyn_cast<kcc::TmemLoadOp>(op))
    return tmemLoad(in, load);
  // Generic-proxy accesses; an epilogue smem_store may read the wgmma
  // accumulator.
  if (isa<kcc::ConvertLayoutOp>(op))
    return accumulatorRead(in, op);
  if (auto load = dyn_cast<kcc::SmemLoadOp>(op))
    return smemLoad(in, load);
  if (auto store = dyn_cast<kcc::SmemStoreOp>(op))
    return accumulatorRead(in, op) && smemStore(in, store);
  return true;
}

bool checkExit(Interpreter &in) {
  return clusterAtExit(in) && tcgen05AtExit(in) && wgmmaAtExit(in) &&
         turnsAtExit(in) && bulkGroupsAtExit(in) && cpAsyncAtExit(in) &&
         loadsLandedAtExit(in);
}

} // namespace kcc::verify
