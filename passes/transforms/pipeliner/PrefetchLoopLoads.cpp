//===- PrefetchLoopLoads.cpp - loop loads issued iterations ahead ---------===//
//
// kcc-prefetch-loop-loads (Passes.td). A streaming loop (GEMV, row and
// column sums) issues its loads, waits for them and computes, one iteration
// at a time: each CTA has one iteration's bytes in flight, far short of
// what the memory needs to run at its bandwidth (Little's law). Issuing the
// loads D iterations ahead into registers keeps D + 1 iterations in flight
// at the cost of D copies of the tiles in registers, which is why D is
// bounded by a byte budget. Dots and async copies have their own pipelines
// (shared-memory stages); loops that write memory are left alone, as a
// load moved ahead of a store could read the old value.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/AxisInfo.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kcc;

namespace kcc {
#define GEN_PASS_DEF_KCCPREFETCHLOOPLOADS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Whether nothing in `loop` may write memory or is pipelined elsewhere.
bool streamsOnly(scf::ForOp loop) {
  WalkResult r = loop.getBody()->walk([](Operation *op) {
    if (isa<DotOp>(op) || (isa<KccDialect>(op->getDialect()) &&
                           !isa<LoadOp>(op) && !isMemoryEffectFree(op)))
      return WalkResult::interrupt();
    if (isMemoryEffectFree(op) || isa<LoadOp>(op) ||
        op->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects && effects.onlyHasEffect<MemoryEffects::Read>())
      return WalkResult::advance();
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance(); // its nested ops are visited
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

/// Adds the ops of `body` that `v` is computed from (in the body, from the
/// induction variable and values defined outside the loop) to `closure`;
/// false if `v` depends on anything else (an iter_arg, a nested region, a
/// value read from memory).
bool collectClosure(scf::ForOp loop, Value v,
                    llvm::SetVector<Operation *> &closure) {
  if (v == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != loop.getBody() || def->getNumRegions() ||
      !isMemoryEffectFree(def))
    return false;
  if (closure.contains(def))
    return true;
  for (Value operand : def->getOperands())
    if (!collectClosure(loop, operand, closure))
      return false;
  closure.insert(def);
  return true;
}

int64_t tileBytes(LoadOp load) {
  auto t = cast<RankedTensorType>(load.getType());
  return t.getNumElements() * getElementBytes(t.getElementType());
}

/// Masks `load` off unless `cond` holds.
void guard(OpBuilder &b, LoadOp load, Value cond) {
  auto ptr = cast<RankedTensorType>(load.getPtr().getType());
  auto i1 = RankedTensorType::get(ptr.getShape(), b.getI1Type(),
                                  ptr.getEncoding());
  Value all = SplatOp::create(b, load.getLoc(), i1, cond);
  Value mask =
      load.getMask()
          ? arith::AndIOp::create(b, load.getLoc(), load.getMask(), all)
          : all;
  load.getMaskMutable().assign(mask);
}

struct PrefetchLoopLoads
    : kcc::impl::KccPrefetchLoopLoadsBase<PrefetchLoopLoads> {
  using Base::Base;

  void runOnOperation() override {
    if (distance == 0)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      prefetch(loop);
  }

  void prefetch(scf::ForOp loop) {
    APInt step;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
        step.getSExtValue() <= 0 ||
        !loop.getInductionVar().getType().isInteger(32) || !streamsOnly(loop))
      return;
    SmallVector<LoadOp> loads;
    llvm::SetVector<Operation *> closure;
    int64_t bytes = 0;
    for (Operation &op : *loop.getBody()) {
      auto load = dyn_cast<LoadOp>(op);
      if (!load || !isa<RankedTensorType>(load.getType()))
        continue;
      llvm::SetVector<Operation *> mine = closure;
      if (!llvm::all_of(load->getOperands(), [&](Value v) {
            return collectClosure(loop, v, mine);
          }))
        continue;
      closure = std::move(mine);
      loads.push_back(load);
      bytes += tileBytes(load);
    }
    if (loads.empty())
      return;
    int64_t d =
        std::min<int64_t>(distance, budget / std::max<int64_t>(1, bytes));
    if (d < 1)
      return;
    // In block order, so each clone finds its operands' clones.
    SmallVector<Operation *> ordered(closure.begin(), closure.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    MLIRContext *ctx = loop.getContext();
    Location loc = loop.getLoc();
    Value iv = loop.getInductionVar();
    // The loads of iteration `at`, masked off unless it runs.
    auto issue = [&](OpBuilder &b, Value at, Attribute tag) {
      IRMapping map;
      map.map(iv, at);
      for (Operation *op : ordered)
        b.clone(*op, map);
      Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         at, loop.getUpperBound());
      SmallVector<Value> out;
      for (LoadOp load : loads) {
        auto clone = cast<LoadOp>(b.clone(*load, map));
        OpBuilder atClone(clone);
        guard(atClone, clone, runs);
        clone->setAttr(KccDialect::kPrefetchAttr, tag);
        out.push_back(clone.getResult());
      }
      return out;
    };
    auto stepBy = [&](OpBuilder &b, Value from, int64_t k) {
      return arith::AddIOp::create(
          b, loc, from,
          arith::ConstantIntOp::create(b, loc, k * step.getSExtValue(), 32));
    };
    // Iterations lb .. lb + (d - 1) step, before the loop: inits ordered
    // load-major (load l's stage k at l * d + k).
    OpBuilder before(loop);
    SmallVector<SmallVector<Value>> stages;
    for (int64_t k = 0; k < d; ++k)
      stages.push_back(issue(before, stepBy(before, loop.getLowerBound(), k),
                             StringAttr::get(ctx, "prologue")));
    SmallVector<Value> inits;
    for (size_t l = 0; l < loads.size(); ++l)
      for (int64_t k = 0; k < d; ++k)
        inits.push_back(stages[k][l]);
    IRRewriter rewriter(ctx);
    rewriter.setInsertionPoint(loop);
    unsigned firstNew = loop.getNumRegionIterArgs();
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args) {
          Value at = stepBy(b, b.getInsertionBlock()->getArgument(0), d);
          SmallVector<Value> next =
              issue(b, at, IntegerAttr::get(IntegerType::get(ctx, 32), d));
          SmallVector<Value> yields;
          for (size_t l = 0; l < loads.size(); ++l) {
            for (int64_t k = 1; k < d; ++k)
              yields.push_back(args[l * d + k]);
            yields.push_back(next[l]);
          }
          return yields;
        });
    if (failed(replaced))
      return;
    auto newLoop = cast<scf::ForOp>(replaced->getOperation());
    // Each load's iteration reads the stage issued for it.
    for (auto [l, load] : llvm::enumerate(loads)) {
      load.getResult().replaceAllUsesWith(
          newLoop.getRegionIterArgs()[firstNew + l * d]);
      load.erase();
    }
    for (Operation *op : llvm::reverse(ordered))
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
