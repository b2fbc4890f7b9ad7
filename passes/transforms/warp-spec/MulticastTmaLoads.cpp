//===- MulticastTmaLoads.cpp - one copy for what a cluster loads alike ----===//
//
// kcc-multicast-tma-loads (Passes.td). kcc-rasterize-programs launched the
// kernel as clusters of N CTAs that take neighbouring tile rows of one tile
// column: in a GEMM both CTAs of a pair load the same B tiles. Here each such
// load becomes one TMA multicast copy that the CTAs split between them and
// that lands in every CTA's stage, so L2 serves the shared operand once per
// cluster instead of once per CTA (CUTLASS's 2x1 clusters, cuBLAS's
// `_1x2_` kernels).
//
// What makes it safe, in the order the protocol needs it:
//  - Every CTA of the cluster issues the same copies into the same stages
//    at the same steps: the pipeline's control flow and the shared loads'
//    coordinates are computed from values equal across the cluster
//    (ClusterUniform below), never from the CTA's rank within it.
//  - A peer's copy overwrites this CTA's stage, so the producer must know
//    that every CTA's consumers released it: the stage-empty barriers (the
//    ones the producer waits on) count the releases of all N CTAs, each
//    consumer arriving on the barrier of every CTA (mapa + a cluster-scope
//    arrive). Each CTA's stage-full barrier still expects the whole box: the
//    parts its peers copy complete bytes on it too.
//  - A cluster barrier after the barriers' initialization (a peer may
//    arrive on them or copy into the stages only once they exist) and one
//    before the kernel ends (a CTA's shared memory must outlive its peers'
//    arrivals on it).
// kcc-verify-async-protocol proves the result like any pipeline.
//
//===----------------------------------------------------------------------===//

#include "ir/SourceLocation.h"
#include "ir/TargetLookup.h"
#include "passes/Passes.h"
#include "passes/analysis/ClusterUniform.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

namespace kcc {
#define GEN_PASS_DEF_KCCMULTICASTTMALOADS
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;

namespace {

struct MulticastTmaLoads
    : kcc::impl::KccMulticastTmaLoadsBase<MulticastTmaLoads> {
  using Base::Base;

  void runOnOperation() override {
    const kcc::TargetModel *target = kcc::lookupTarget(
        getOperation(), targetName, getArgument(), /*fallback=*/"sm_90a");
    if (!target)
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      auto n = func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kClusterAttr);
      if (!n)
        continue;
      std::string why = multicast(func, unsigned(n.getInt()), *target);
      if (why.empty())
        continue;
      // The paired order stays (it is only an order); the launch is plain.
      func->removeAttr(kcc::KccDialect::kClusterAttr);
      func->setAttr(kcc::KccDialect::kClusterRefusedAttr,
                    StringAttr::get(func.getContext(), why));
    }
  }

  /// Rewrites `func` for clusters of `n`, or says why not (nothing changed).
  std::string multicast(func::FuncOp func, unsigned n,
                        const kcc::TargetModel &target) {
    if (target.vendor != kcc::Vendor::NVIDIA || target.sm < 90 ||
        !target.hasAsyncCopy("tma"))
      return "target '" + target.name +
             "' has no thread-block clusters "
             "with TMA multicast";
    if (target.mma.instruction != "wgmma")
      return "kcc multicasts the TMA pipelines of wgmma kernels (sm_90a); "
             "target '" +
             target.name + "' runs " + target.mma.instruction;
    SmallVector<kcc::WarpSpecializeOp> specializations;
    func.walk([&](kcc::WarpSpecializeOp ws) { specializations.push_back(ws); });
    if (specializations.size() != 1)
      return specializations.empty()
                 ? "no warp-specialized TMA pipeline: a multicast copy "
                   "writes the peer CTA's stage, which only the stage-empty "
                   "barriers of a producer warpgroup guard"
                 : "more than one warp-specialized pipeline";
    kcc::WarpSpecializeOp ws = specializations.front();
    // Measured, not a rule: ping-pong groups ran 0.84-1.00x as fast with
    // their pipelines coupled across the pair (H200, docs/gemm.md).
    if (ws.getNumConsumerGroups() > 1)
      return "its consumer groups take turns (ping-pong), which ran up to "
             "16 % slower as clusters on an H200 (docs/gemm.md, "
             "\"Clusters\"); --ping-pong=false keeps one group";

    kcc::ClusterUniform uniform(n);
    // The protocol's every step must happen in every CTA alike.
    std::string divergent;
    ws.walk([&](Operation *op) {
      if (!isa<kcc::MBarrierWaitOp, kcc::MBarrierArriveOp,
               kcc::MBarrierArriveExpectTxOp, kcc::TmaLoadOp>(op))
        return WalkResult::advance();
      if (Operation *at = kcc::divergentControl(op, ws, uniform)) {
        divergent = "the pipeline runs under control flow that differs "
                    "between the cluster's CTAs (" +
                    (kcc::sourceLocationText(at->getLoc()).empty()
                         ? std::string("the pipeline")
                         : kcc::sourceLocationText(at->getLoc())) +
                    ")";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!divergent.empty())
      return divergent;

    // The shared loads: the producer's loop copies whose coordinates are the
    // same in every CTA, into stages nothing else writes.
    Region &producer = ws.getProducer();
    SmallVector<kcc::TmaLoadOp> shared;
    llvm::SetVector<Value> emptyBars;
    producer.walk([&](Operation *op) {
      if (auto wait = dyn_cast<kcc::MBarrierWaitOp>(op))
        emptyBars.insert(wait.getBars());
      auto load = dyn_cast<kcc::TmaLoadOp>(op);
      if (!load || !load->getParentOfType<scf::ForOp>() ||
          !llvm::all_of(load.getCoords(), [&](Value c) { return uniform(c); }))
        return;
      bool onlyWriter =
          llvm::all_of(load.getDst().getUsers(), [&](Operation *u) {
            return !isa<kcc::TmaLoadOp, kcc::SmemStoreOp>(u) ||
                   (isa<kcc::TmaLoadOp>(u) &&
                    producer.isAncestor(u->getParentRegion()));
          });
      if (onlyWriter)
        shared.push_back(load);
    });
    if (shared.empty())
      return "no TMA load of the pipeline is the same in the cluster's CTAs "
             "(each one's coordinates depend on the CTA's tile row)";
    if (emptyBars.empty())
      return "the producer waits on no stage-empty barrier";
    for (Value bars : emptyBars) {
      if (!bars.getDefiningOp<kcc::MBarrierAllocOp>())
        return "a stage-empty barrier that is not an mbarrier allocation";
      for (Operation *user : bars.getUsers())
        if (isa<kcc::MBarrierArriveExpectTxOp, kcc::TmaLoadOp>(user))
          return "a stage-empty barrier also counts copies";
    }

    // The rewrite.
    for (kcc::TmaLoadOp load : shared) {
      load.setMulticast(n);
      if (auto note = load->getAttrOfType<StringAttr>("kcc.tile_access")) {
        unsigned parts = load.getParts();
        std::string how = parts % n == 0
                              ? "each copying " + std::to_string(parts / n) +
                                    " of its " + std::to_string(parts) +
                                    " boxes for all"
                              : "CTA 0 copying it for all";
        load->setAttr("kcc.tile_access",
                      StringAttr::get(func.getContext(),
                                      note.getValue() + "; multicast to the " +
                                          std::to_string(n) +
                                          " CTAs of its cluster, " + how));
      }
    }
    OpBuilder b(func.getContext());
    for (Value bars : emptyBars)
      for (Operation *user : bars.getUsers()) {
        if (auto init = dyn_cast<kcc::MBarrierInitOp>(user))
          init.setCount(init.getCount() * n);
        else if (auto arrive = dyn_cast<kcc::MBarrierArriveOp>(user))
          arrive.setCluster(true);
      }
    // Barriers exist in every CTA before any peer uses them.
    Operation *fence = nullptr;
    for (Operation &op : func.getBody().front())
      if (isa<kcc::FenceMBarrierInitOp>(op))
        fence = &op;
    if (fence)
      b.setInsertionPointAfter(fence);
    else
      b.setInsertionPoint(ws);
    kcc::ClusterBarrierOp::create(b, ws.getLoc());
    // No CTA leaves while a peer may still arrive on its barriers.
    b.setInsertionPoint(func.getBody().front().getTerminator());
    kcc::ClusterBarrierOp::create(b, ws.getLoc());
    return "";
  }
};

} // namespace
