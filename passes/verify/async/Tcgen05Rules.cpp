//===- Tcgen05Rules.cpp - transfer rules of tcgen05 and TMEM --------------===//
//
// A kcc.tcgen05_mma (issued by one thread) reads both operand stages through
// the async proxy and writes its TMEM accumulator until a wait observes the
// phase of a kcc.tcgen05_commit issued after it. TMEM is allocated and freed
// by the rules of targets/TmemRules.h, and every thread's kcc.tmem_load of
// an accumulator must be followed by a kcc.cta_barrier before the next
// tcgen05_mma writes it.
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

void retireTcgen05(Interpreter &in, int64_t covered) {
  CtaState &st = in.state;
  if (covered <= st.tcRetired)
    return;
  st.tcRetired = covered;
  for (auto &entry : st.stages)
    for (Stage &s : entry.second)
      if (s.mmaReader && isa<kcc::Tcgen05MmaOp>(s.mmaReader) &&
          s.tcSeq <= st.tcRetired) {
        s.mmaReader = nullptr;
        s.readEnd = std::max(s.readEnd, in.now());
      }
}

/// `tm` is a live TMEM allocation.
static bool tmemLive(Interpreter &in, Operation *op, Value tm) {
  if (!in.state.tmemIds.count(tm)) {
    in.fail(op->getLoc(),
            "uses TMEM that no kcc.tmem_alloc executed before allocated",
            "allocate it with kcc.tmem_alloc at the start of the kernel");
    return false;
  }
  if (Operation *freed = in.state.tmemFreed.lookup(tm)) {
    in.fail(op->getLoc(), "uses TMEM after kcc.tmem_dealloc freed it",
            "free the allocation after its last use")
        .notes.push_back({freed->getLoc(), "freed here"});
    return false;
  }
  return true;
}

/// No tcgen05_mma may still be running when `op` needs TMEM settled.
static bool tcgen05Retired(Interpreter &in, Operation *op,
                           const llvm::Twine &what) {
  if (in.state.tcRetired >= in.state.tcIssued)
    return true;
  in.fail(op->getLoc(),
          what + " while a kcc.tcgen05_mma may still be writing TMEM (no wait "
                 "has observed a kcc.tcgen05_commit issued after it)",
          "commit the tcgen05_mma ops to an mbarrier (kcc.tcgen05_commit) "
          "and wait on that phase first")
      .notes.push_back(
          {in.state.lastTcMma->getLoc(), "the tcgen05_mma in flight"});
  return false;
}

bool tmemAlloc(Interpreter &in, kcc::TmemAllocOp op) {
  CtaState &st = in.state;
  unsigned id = st.tmemIds.size();
  st.tmemIds[op.getResult()] = id;
  llvm::Error e = st.tmem.alloc(id, op.getType().getColumns());
  if (!e && op.getRelinquish())
    e = st.tmem.relinquishAllocPermit();
  if (e) {
    in.fail(op->getLoc(), llvm::toString(std::move(e)),
            "allocate at most 512 TMEM columns per CTA, each allocation "
            "once, before the kernel's first tcgen05 op, and relinquish "
            "the permit only with the last one");
    return false;
  }
  return true;
}

bool tmemDealloc(Interpreter &in, kcc::TmemDeallocOp op) {
  Value tm = op.getTmem();
  if (!tmemLive(in, op, tm) || !tcgen05Retired(in, op, "frees TMEM"))
    return false;
  if (llvm::Error e = in.state.tmem.dealloc(
          in.state.tmemIds[tm], op.getTmem().getType().getColumns())) {
    in.fail(op->getLoc(), llvm::toString(std::move(e)),
            "free each allocation once");
    return false;
  }
  in.state.tmemFreed[tm] = op;
  return true;
}

bool tcgen05Mma(Interpreter &in, kcc::Tcgen05MmaOp op) {
  if (!tmemLive(in, op, op.getTmem()) ||
      !readStage(in, op, op.getA(), op.getAStage()) ||
      !readStage(in, op, op.getB(), op.getBStage()))
    return false;
  if (Operation *read = in.state.tmemReadUnsynced.lookup(op.getTmem())) {
    in.fail(op->getLoc(),
            "this kcc.tcgen05_mma (issued by one thread) writes the TMEM "
            "accumulator while other threads' kcc.tmem_load of it may "
            "still be reading",
            "add kcc.cta_barrier between the tmem_load and the next "
            "tcgen05_mma (the lowering fences tcgen05 around it)")
        .notes.push_back({read->getLoc(), "the tmem_load"});
    return false;
  }
  ++in.state.tcIssued;
  in.state.lastTcMma = op;
  for (Stage *st : {stageAt(in, op, op.getA(), op.getAStage()),
                    stageAt(in, op, op.getB(), op.getBStage())}) {
    st->mmaReader = op;
    st->tcSeq = in.state.tcIssued;
  }
  return true;
}

bool tcgen05Commit(Interpreter &in, kcc::Tcgen05CommitOp op) {
  if (!arrive(in, op, op.getBars(), op.getIndex(), 0))
    return false;
  Barrier *b = barrierAt(in, op, op.getBars(), op.getIndex());
  b->cur.tcCovered = std::max(b->cur.tcCovered, in.state.tcIssued);
  return true;
}

bool tmemLoad(Interpreter &in, kcc::TmemLoadOp op) {
  if (!tmemLive(in, op, op.getTmem()) ||
      !tcgen05Retired(in, op, "reads the TMEM accumulator"))
    return false;
  in.state.tmemReadUnsynced[op.getTmem()] = op;
  return true;
}

bool tcgen05AtExit(Interpreter &in) {
  CtaState &st = in.state;
  if (st.lastTcMma && !tcgen05Retired(in, st.lastTcMma, "the kernel ends"))
    return false;
  if (llvm::Error e = st.tmem.exit()) {
    in.fail(in.exitLoc(), llvm::toString(std::move(e)),
            "free every TMEM allocation with kcc.tmem_dealloc on every path "
            "to the kernel's end");
    return false;
  }
  return true;
}

} // namespace kcc::verify
