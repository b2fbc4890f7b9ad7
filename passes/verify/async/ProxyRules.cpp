//===- ProxyRules.cpp - transfer rules of the memory proxies --------------===//
//
// kcc.smem_store writes through the generic proxy, TMA reads through the
// async proxy: a tma_store may read a stage written by smem_store only after
// kcc.fence_proxy_async and then a kcc.cta_barrier (every thread's writes
// fenced). The cta_barrier's part is in StageRules.cpp (ctaBarrier).
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

bool fenceProxyAsync(Interpreter &in) {
  for (auto &entry : in.state.stages)
    for (Stage &s : entry.second)
      if (s.data == Stage::Generic)
        s.fenced = true;
  return true;
}

bool asyncProxyReadable(Interpreter &in, kcc::TmaStoreOp op, Stage &s) {
  std::string name = "stage " + std::to_string(stageIndex(in, op.getSrc(), &s));
  if (s.data == Stage::Generic && !s.fenced) {
    in.fail(op.getLoc(),
            "kcc.tma_store reads " + name +
                " through the async proxy, but the kcc.smem_store that "
                "wrote it (generic proxy) is not followed by "
                "kcc.fence_proxy_async",
            "add kcc.fence_proxy_async and then kcc.cta_barrier between the "
            "kcc.smem_store and the kcc.tma_store")
        .notes.push_back({s.writer->getLoc(), "the generic-proxy write"});
    return false;
  }
  if (s.data == Stage::Generic && !s.fencedSynced) {
    in.fail(op.getLoc(),
            "kcc.tma_store reads " + name +
                " but no kcc.cta_barrier follows the kcc.fence_proxy_async "
                "after its kcc.smem_store: other threads' writes may not be "
                "fenced yet",
            "add kcc.cta_barrier after kcc.fence_proxy_async")
        .notes.push_back({s.writer->getLoc(), "the generic-proxy write"});
    return false;
  }
  return true;
}

} // namespace kcc::verify
