//===- PlanLaneExchanges.cpp - wave-reduction butterflies from costs ------===//
//
// kcc-plan-lane-exchanges (Passes.td). On gfx9, for example, the planner
// puts the bits DPP can reach first (quad_perm for xor 1 and 2,
// row_half_mirror and row_mirror for 4 and 8 once the lower bits are
// reduced), then ds_swizzle (xor 16) and ds_bpermute (xor 32).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "ir/TargetLookup.h"
#include "targets/LaneExchange.h"
#include "targets/TargetModel.h"

using namespace mlir;
using namespace kcc;

namespace kcc {
#define GEN_PASS_DEF_KCCPLANLANEEXCHANGES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

struct PlanLaneExchanges
    : kcc::impl::KccPlanLaneExchangesBase<PlanLaneExchanges> {
  using Base::Base;

  void runOnOperation() override {
    const TargetModel *model = lookupTarget(
        getOperation(), targetName, getArgument(), /*fallback=*/"sm_90a");
    if (!model)
      return signalPassFailure();
    SmallVector<ReduceOp> reduces;
    getOperation().walk([&](ReduceOp op) {
      if (op.getSrc().getType().getRank() == 1)
        reduces.push_back(op);
    });
    if (reduces.empty())
      return;
    // A model may lack the exchanges a butterfly needs (a layout-only
    // experiment, say): that is an error only for kernels that reduce.
    llvm::Expected<ButterflyPlan> plan = planButterfly(*model, model->warpSize);
    if (!plan) {
      reduces.front().emitError("kcc: cannot reduce across the lanes of a "
                                "warp on this target: ")
          << llvm::toString(plan.takeError());
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    SmallVector<Attribute> steps;
    for (const ButterflyStep &s : plan->steps)
      steps.push_back(DictionaryAttr::get(
          ctx, {NamedAttribute(StringAttr::get(ctx, "op"),
                               StringAttr::get(ctx, s.op)),
                NamedAttribute(
                    StringAttr::get(ctx, "mask"),
                    IntegerAttr::get(IntegerType::get(ctx, 32), s.mask))}));
    auto attr = ArrayAttr::get(ctx, steps);
    for (ReduceOp op : reduces)
      op->setAttr(KccDialect::kButterflyAttr, attr);
  }
};

} // namespace
