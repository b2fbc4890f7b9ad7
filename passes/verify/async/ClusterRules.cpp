//===- ClusterRules.cpp - a cluster's barriers and shared copies ----------===//
//
// A kernel launched as clusters (kcc.cluster) runs the same protocol in
// every CTA (VerifyAsyncProtocol.cpp checks that first), so the interpreter
// runs one CTA and lets its multicast copies and cluster-wide arrivals stand
// for all of them (StageRules.cpp, MbarrierRules.cpp). What one CTA's run
// cannot show by itself is the lifetime across CTAs: a peer's copy or
// arrival may reach this CTA's barriers only after they exist, and only
// while this CTA has not ended.
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

bool clusterBarrier(Interpreter &in) {
  // Past the fence, every CTA's barriers are initialized once every CTA is
  // past this barrier.
  bool fenced = false;
  for (auto &entry : in.state.barriers)
    for (Barrier &b : entry.second)
      fenced |= b.life == Barrier::Live && b.fenced;
  in.state.clusterSynced |= fenced;
  in.state.clusterUnsynced = nullptr;
  return true;
}

bool clusterAccess(Interpreter &in, Operation *op) {
  const char *what =
      isa<kcc::TmaLoadOp>(op) ? "multicast copy" : "cluster-wide arrival";
  if (!in.state.clusterSynced) {
    in.fail(op->getLoc(),
            llvm::Twine("this ") + what +
                " may reach a peer CTA's barriers before that CTA has "
                "initialized them: no cluster barrier follows the barriers' "
                "initialization before it",
            "a kcc.cluster_barrier after kcc.fence_mbarrier_init, before "
            "any multicast copy or cluster-wide arrival");
    return false;
  }
  in.state.clusterUnsynced = op;
  return true;
}

bool clusterAtExit(Interpreter &in) {
  Operation *last = in.state.clusterUnsynced;
  if (!last)
    return true;
  in.fail(last->getLoc(),
          llvm::Twine("the CTA may end while a peer still reaches its shared "
                      "memory: no cluster barrier follows this ") +
              (isa<kcc::TmaLoadOp>(last) ? "multicast copy"
                                         : "cluster-wide arrival") +
              " before the kernel ends",
          "a kcc.cluster_barrier before the kernel returns");
  return false;
}

} // namespace kcc::verify
