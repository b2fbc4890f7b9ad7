//===- MaterializeWarpgroupMma.cpp - dots on Hopper tensor cores ----------===//
//
// kcc-materialize-warpgroup-mma rewrites
//   %a = smem_load %A[%s]         (or trans of it)
//   %b = smem_load %B[%t]         (or trans of it)
//   %r = dot %a, %b, %acc
// where both stages are 128-byte swizzled (kcc-add-tensor-maps gave the
// loads wgmma operand maps, the TMA passes landed them), into
//   %r = warpgroup_mma %A[%s], %B[%t], %acc {a_k_major, b_k_major}
// so the tensor cores read shared memory directly. The accumulator "web"
// (the dot's accumulator and result, the scf.for iter_args/results/yields
// that carry it, its splat initialization) is retyped to #kcc.wgmma_acc;
// every other producer or user of the web goes through kcc.convert_layout.
// In a loop refilled one iteration late (kcc.mma_overlap) the groups stay in
// flight across iterations: the loop then runs under `if (lb < ub)` with
// `warpgroup_mma_wait 0` on its accumulators inside. A tile that leaves the
// web only to be staged for a TMA store is stored from the accumulator
// registers (kcc::stageAccumulatorEpilogues). kcc-assign-layouts leaves those
// types alone and gives the rest #kcc.blocked with the warps this pass fixes (4
// per warpgroup).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/AccumulatorWeb.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kcc {
#define GEN_PASS_DEF_KCCMATERIALIZEWARPGROUPMMA
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;

namespace {

struct MaterializeWarpgroupMma
    : kcc::impl::KccMaterializeWarpgroupMmaBase<MaterializeWarpgroupMma> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        if (failed(runOnKernel(func)))
          return signalPassFailure();
  }
  LogicalResult runOnKernel(func::FuncOp func);
};

LogicalResult MaterializeWarpgroupMma::runOnKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  SmallVector<kcc::StagedDot> sites =
      kcc::collectStagedDots(func, /*registerA=*/true);
  if (sites.empty())
    return success();

  // Ping-pong consumer groups (kcc-pipeline-tma-loads) are one warpgroup
  // each, holding a whole tile.
  unsigned warpgroups =
      func->hasAttr(kcc::KccDialect::kConsumerGroupsAttr) ? 1 : 2;
  for (kcc::StagedDot &s : sites)
    warpgroups = std::min(
        warpgroups, kcc::accumulatorWarpgroups(s.dot.getType().getShape()[0]));
  unsigned warps = 4 * warpgroups;
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kNumWarpsAttr))
    if (attr.getInt() != warps)
      return func.emitError("kcc: this kernel's wgmma dots need ")
             << warps << " warps (" << warpgroups
             << " warpgroups), but it asks for " << attr.getInt();
  func->setAttr(kcc::KccDialect::kNumWarpsAttr,
                IntegerAttr::get(IntegerType::get(ctx, 32), warps));
  auto layout = kcc::WgmmaAccLayoutAttr::get(ctx, warpgroups);

  // Rewrite the dots (their results keep the plain type until the web is
  // retyped below).
  SmallVector<Value> seeds;
  SmallVector<kcc::WarpgroupMmaRegAOp> registerA;
  llvm::SetVector<scf::ForOp> drained;
  for (kcc::StagedDot &s : sites) {
    OpBuilder b(s.dot);
    // In a loop whose stages are refilled one iteration late
    // (kcc.mma_overlap), the group stays in flight while the next iteration
    // issues; the accumulator is complete after a wait behind the loop
    // (added below, once the accumulators have their layout).
    auto loop = dyn_cast<scf::ForOp>(s.dot->getParentOp());
    // The register-A form retires in its iteration: its A registers must
    // not change while the group is in flight, and the next iteration
    // computes them again.
    bool overlap = loop && loop->hasAttr(kcc::KccDialect::kMmaOverlapAttr) &&
                   !s.registerA() && kcc::carriedOnlyThroughDot(s.dot, loop);
    if (overlap)
      drained.insert(loop);
    Value result;
    if (s.registerA()) {
      // A stays in registers, in the accumulator's mapping (converted
      // there below, once the accumulator layout is known).
      auto mma = kcc::WarpgroupMmaRegAOp::create(
          b, s.dot.getLoc(), s.dot.getType(), s.dot.getA(), s.b.getSrc(),
          s.b.getStage(), s.dot.getC(), /*b_k_major=*/s.bTransposed,
          /*pending=*/overlap ? 1 : 0);
      registerA.push_back(mma);
      result = mma.getResult();
    } else {
      result = kcc::WarpgroupMmaOp::create(
          b, s.dot.getLoc(), s.dot.getType(), s.a.getSrc(), s.a.getStage(),
          s.b.getSrc(), s.b.getStage(), s.dot.getC(),
          /*a_k_major=*/!s.aTransposed, /*b_k_major=*/s.bTransposed,
          /*pending=*/overlap ? 1 : 0);
    }
    Value acc = s.dot.getC();
    s.dot.replaceAllUsesWith(result);
    kcc::eraseDotAndOperandReads(s.dot);
    seeds.append({result, acc});
  }

  auto isWgmma = [](Operation *op) {
    return isa<kcc::WarpgroupMmaOp, kcc::WarpgroupMmaRegAOp>(op);
  };
  FailureOr<llvm::SetVector<Value>> retyped = kcc::retypeAccumulatorWeb(
      func, seeds, layout,
      [&](OpOperand &use) {
        if (auto m = dyn_cast<kcc::WarpgroupMmaOp>(use.getOwner()))
          return &use == &m.getAccMutable();
        if (auto m = dyn_cast<kcc::WarpgroupMmaRegAOp>(use.getOwner()))
          return &use == &m.getAccMutable();
        return false;
      },
      isWgmma);
  if (failed(retyped))
    return failure();
  llvm::SetVector<Value> &web = *retyped;
  auto inWeb = [&](Value v) { return web.contains(v); };

  // Register A operands move into the accumulator's mapping (for 16-bit
  // elements, the instruction's A fragment).
  for (kcc::WarpgroupMmaRegAOp mma : registerA) {
    auto a = cast<RankedTensorType>(mma.getA().getType());
    OpBuilder b(mma);
    auto cvt = kcc::ConvertLayoutOp::create(
        b, mma.getLoc(),
        RankedTensorType::get(a.getShape(), a.getElementType(), layout),
        mma.getA());
    mma.getAMutable().set(cvt.getResult());
  }

  // The wait behind each overlapped loop: the loop's accumulators pass
  // through it, so every reader comes after the retirement. The loop and its
  // wait sit under `if (lb < ub)`: on the path that skips the loop the
  // accumulators keep their initial values without a wait after them
  // (ptxas serializes every wgmma of the kernel when a non-wgmma
  // instruction may define an accumulator ahead of a wait, C7515).
  for (scf::ForOp loop : drained) {
    Location loc = loop.getLoc();
    scf::IfOp guard = kcc::pipelining::guardLoopRuns(loop);
    loop->replaceAllUsesWith(guard.getResults());
    Block *then = &guard.getThenRegion().front();
    loop->moveBefore(then, then->end());
    SmallVector<Value> accs;
    for (Value r : loop.getResults())
      if (inWeb(r))
        accs.push_back(r);
    OpBuilder tb = OpBuilder::atBlockEnd(then);
    auto wait = kcc::WarpgroupMmaWaitOp::create(tb, loc, 0, accs);
    SmallVector<Value> out(loop.getResults());
    for (auto [acc, done] : llvm::zip(accs, wait.getResults()))
      std::replace(out.begin(), out.end(), acc, Value(done));
    scf::YieldOp::create(tb, loc, out);
  }

  kcc::propagateAccumulatorLayout(func, layout);
  kcc::rematerializeRowVectors(func, layout);
  kcc::foldRelayoutRoundTrips(func);
  kcc::stageAccumulatorEpilogues(func, layout);
  return success();
}

} // namespace
