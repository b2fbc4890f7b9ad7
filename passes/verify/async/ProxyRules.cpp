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
    for (Stage &s : entry.second) {
      if (s.data == Stage::Generic)
        s.fenced = true;
      // This role's reads of the stage so far are ordered before the async
      // proxy's later writes.
      if (s.threadReadEnd >= 0 && (s.lastReaderRole == in.role() ||
                                   in.role() == Cta || s.lastReaderRole == Cta))
        s.threadReadFenced = in.now();
    }
  return true;
}

bool asyncProxyWritable(Interpreter &in, kcc::TmaLoadOp op, Stage &s) {
  if (s.threadReadEnd < 0 || s.threadReadFenced > s.threadReadEnd)
    return true;
  std::string name = "stage " + std::to_string(stageIndex(in, op.getDst(), &s));
  in.fail(op.getLoc(),
          "kcc.tma_load overwrites " + name +
              " through the async proxy, but the threads' kcc.smem_load of "
              "it (generic proxy) is not followed by kcc.fence_proxy_async",
          "add kcc.fence_proxy_async after the last read of the stage, "
          "before the barrier or arrival that releases it")
      .notes.push_back(
          {s.lastThreadReader->getLoc(), "the generic-proxy read"});
  return false;
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
