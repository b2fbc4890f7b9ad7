//===- WgmmaRules.cpp - transfer rules of wgmma groups --------------------===//
//
// A kcc.warpgroup_mma reads both operand stages and writes its accumulator
// until its wgmma group retires: when the op returns if `pending` is 0,
// else at a later kcc.warpgroup_mma_wait (or warpgroup_mma) that leaves at
// most `pending` groups in flight.
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace kcc::verify {

/// Retires wgmma groups until at most `pending` are in flight.
static void retireMma(Interpreter &in, int64_t pending) {
  std::deque<MmaGroup> &groups = in.queues().mmaGroups;
  while (int64_t(groups.size()) > pending) {
    for (Stage *st : groups.front().stages) {
      if (st->mmaReader == groups.front().op)
        st->mmaReader = nullptr;
      st->readEnd = std::max(st->readEnd, in.now());
    }
    groups.pop_front();
  }
}

bool warpgroupMma(Interpreter &in, kcc::WarpgroupMmaOp op) {
  if (!readStage(in, op, op.getA(), op.getAStage()) ||
      !readStage(in, op, op.getB(), op.getBStage()))
    return false;
  MmaGroup g{op,
             {stageAt(in, op, op.getA(), op.getAStage()),
              stageAt(in, op, op.getB(), op.getBStage())},
             in.newMmaId()};
  for (Stage *st : g.stages)
    st->mmaReader = op;
  in.set(op.getResult(), constant(g.id));
  in.queues().mmaGroups.push_back(g);
  retireMma(in, op.getPending());
  return true;
}

bool warpgroupMmaRegA(Interpreter &in, kcc::WarpgroupMmaRegAOp op) {
  if (!readStage(in, op, op.getB(), op.getBStage()))
    return false;
  MmaGroup g{op, {stageAt(in, op, op.getB(), op.getBStage())}, in.newMmaId()};
  g.stages.front()->mmaReader = op;
  in.set(op.getResult(), constant(g.id));
  in.queues().mmaGroups.push_back(g);
  retireMma(in, op.getPending());
  return true;
}

bool warpgroupMmaWait(Interpreter &in, kcc::WarpgroupMmaWaitOp op) {
  retireMma(in, op.getPending());
  // The accumulators passed through have been written: readable. (One whose
  // group is still in flight fails at its reader through the operand.)
  for (auto [v, r] : llvm::zip(op.getValues(), op.getResults())) {
    const Scalar *s = in.lookup(v);
    bool inFlight = s && s->isConst() &&
                    llvm::any_of(in.queues().mmaGroups, [&](const MmaGroup &g) {
                      return g.id == s->c;
                    });
    in.set(r, inFlight ? *s : constant(0));
  }
  return true;
}

bool accumulatorsRetired(Interpreter &in, Operation *op) {
  // Products chain through the next product's accumulator; loops, branches
  // and waits pass them on.
  if (isa<kcc::WarpgroupMmaOp, kcc::WarpgroupMmaRegAOp, kcc::WarpgroupMmaWaitOp,
          scf::ForOp, scf::IfOp, scf::YieldOp>(op))
    return true;
  for (Value v : op->getOperands()) {
    if (!isWgmmaAccumulator(v.getType()))
      continue;
    const Scalar *s = in.lookup(v);
    if (!s || !s->isConst() || s->c <= 0)
      continue;
    for (const MmaGroup &g : in.queues().mmaGroups)
      if (g.id == s->c) {
        in.fail(op->getLoc(),
                "reads a wgmma accumulator while a kcc.warpgroup_mma group "
                "is still writing it",
                "add kcc.warpgroup_mma_wait 0 before using the accumulator")
            .notes.push_back({g.op->getLoc(), "the group in flight"});
        return false;
      }
  }
  return true;
}

bool accumulatorRead(Interpreter &in, Operation *op) {
  // The accumulator leaves its layout through convert_layout or an
  // epilogue smem_store.
  Value read;
  if (auto cvt = dyn_cast<kcc::ConvertLayoutOp>(op))
    read = cvt.getSrc();
  else if (auto store = dyn_cast<kcc::SmemStoreOp>(op))
    read = store.getValue();
  if (!read || !isa_and_nonnull<kcc::WgmmaAccLayoutAttr>(
                   cast<RankedTensorType>(read.getType()).getEncoding()))
    return true;
  if (!in.queues().mmaGroups.empty()) {
    in.fail(op->getLoc(),
            "reads a wgmma accumulator while a kcc.warpgroup_mma group is "
            "still writing it",
            "add kcc.warpgroup_mma_wait 0 before using the accumulator")
        .notes.push_back(
            {in.queues().mmaGroups.back().op->getLoc(), "the group in flight"});
    return false;
  }
  return true;
}

bool wgmmaAtExit(Interpreter &in) {
  for (const IssueQueues &q : in.state.queues) {
    if (q.mmaGroups.empty())
      continue;
    in.fail(q.mmaGroups.front().op->getLoc(),
            "the kernel ends while this kcc.warpgroup_mma group is still in "
            "flight (reading shared memory, writing its accumulator)",
            "add kcc.warpgroup_mma_wait 0 after the last warpgroup_mma")
        .notes.push_back({in.exitLoc(), "the kernel ends here"});
    return false;
  }
  return true;
}

} // namespace kcc::verify
