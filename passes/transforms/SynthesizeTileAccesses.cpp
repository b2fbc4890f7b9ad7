//===- SynthesizeTileAccesses.cpp - pointer tiles to tensor accesses ------===//
//
// kcc-synthesize-tile-accesses (Passes.td): descriptor synthesis. A kernel
// written with tiles of pointers, as Triton's tutorials teach, says the same
// as one written with tensor<> and load_tile whenever its addresses are a
// strided box and its masks the box's bounds; lifting it to load_tile gives
// its dots everything the tensor form gets (TMA pipelines into swizzled
// shared memory and wgmma on sm_90a, cp.async stages on sm_80), with tensor
// maps the launch stub encodes from the kernel's own scalar arguments. The
// reading of the address is passes/analysis/StridedBoxes.cpp.
//
// Only kernels with a dot are lifted: a memory-bound kernel reads each
// element once into registers, where vector loads already move it at the
// rate of the memory.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/StridedBoxes.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kcc;

namespace kcc {
#define GEN_PASS_DEF_KCCSYNTHESIZETILEACCESSES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

Value materialize(OpBuilder &b, Location loc, OpFoldResult r) {
  if (auto v = dyn_cast<Value>(r))
    return v;
  return arith::ConstantIntOp::create(
      b, loc, cast<IntegerAttr>(cast<Attribute>(r)).getInt(), 32);
}

/// `v` if defined outside `loop`, else a copy at `b` of the pure ops that
/// compute it from values defined outside (null if it depends on the loop).
Value invariantCopy(scf::ForOp loop, OpBuilder &b, Value v,
                    unsigned depth = 0) {
  if (loop.isDefinedOutsideOfLoop(v))
    return v;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8 || def->getNumRegions() || def->getNumResults() != 1 ||
      !isMemoryEffectFree(def))
    return Value();
  IRMapping map;
  for (Value operand : def->getOperands()) {
    Value copy = invariantCopy(loop, b, operand, depth + 1);
    if (!copy)
      return Value();
    map.map(operand, copy);
  }
  return b.clone(*def, map)->getResult(0);
}

/// A load whose address a loop recomputes every iteration (a reduction or
/// GEMV walking its rows): lifted, the loop pipelines it through shared
/// stages (kcc-pipeline-tma-loads, kcc-pipeline-async-copies), which keeps
/// several tiles in flight where registers hold one. Accesses outside
/// loops stay vector accesses: a stage would only add a round trip.
bool isStreamingLoad(Operation *op) {
  auto loop = op->getParentOfType<scf::ForOp>();
  return isa<LoadOp>(op) && loop &&
         !loop.isDefinedOutsideOfLoop(op->getOperand(0));
}

struct SynthesizeTileAccesses
    : kcc::impl::KccSynthesizeTileAccessesBase<SynthesizeTileAccesses> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(KccDialect::kKernelAttr) && !func.isExternal())
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    bool hasDot = func.walk([](DotOp) { return WalkResult::interrupt(); })
                      .wasInterrupted();
    // Pointer tiles carried by a loop (`a_ptrs += BK` each iteration, as
    // Triton's tutorial writes it): read in iteration i as init + i * step,
    // so that they lift like addresses computed from the index; undone
    // where an access of them does not lift.
    SmallVector<std::pair<BlockArgument, Value>> carried;
    if (hasDot)
      func.walk([&](scf::ForOp loop) {
        APInt lb, step;
        if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
            !matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
            !lb.isZero() || !step.isOne())
          return;
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
          auto type = dyn_cast<RankedTensorType>(arg.getType());
          auto next = yield.getOperand(i).getDefiningOp<AddPtrOp>();
          if (!type || !isa<PtrType>(type.getElementType()) || !next ||
              next.getPtr() != arg)
            continue;
          Value by = next.getOffset();
          std::optional<OpFoldResult> advance = uniformScalarOf(by);
          if (!advance || !getElementTypeOrSelf(by.getType()).isInteger(32))
            continue;
          OpBuilder b(loop.getBody(), loop.getBody()->begin());
          Location loc = loop.getLoc();
          Value scalar = isa<Value>(*advance)
                             ? invariantCopy(loop, b, cast<Value>(*advance))
                             : materialize(b, loc, *advance);
          if (!scalar)
            continue;
          Value iv = loop.getInductionVar();
          Value off = arith::MulIOp::create(b, loc, iv, scalar);
          Value offs = SplatOp::create(b, loc, by.getType(), off);
          Value now = AddPtrOp::create(b, loc, type,
                                       loop.getInitArgs()[i], offs);
          arg.replaceAllUsesExcept(now, next);
          carried.push_back({arg, now});
        }
      });
    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (isa<LoadOp, StoreOp>(op) &&
          isa<RankedTensorType>(op->getOperand(0).getType()))
        accesses.push_back(op);
    });
    SetVector<Operation *> maybeDead;
    for (Operation *op : accesses) {
      if (!hasDot && !isStreamingLoad(op)) {
        op->setAttr(KccDialect::kLiftRefusedAttr,
                    StringAttr::get(ctx, "the kernel has no dot and this is "
                                         "not a load that walks a loop: kcc "
                                         "lifts tiles of pointers to tensor "
                                         "maps for dots, their epilogues "
                                         "and loads that loops pipeline"));
        continue;
      }
      std::string why;
      std::optional<StridedBox> box = liftStridedBox(op, why);
      if (!box) {
        op->setAttr(KccDialect::kLiftRefusedAttr, StringAttr::get(ctx, why));
        continue;
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> sizes, strides, coords;
      // Sizes and strides are the kernel's: constants at its entry, where
      // a pipeliner's prologue (outside the access's loop) can read them.
      OpBuilder entry(&func.getBody().front(), func.getBody().front().begin());
      for (OpFoldResult r : box->sizes)
        sizes.push_back(materialize(entry, loc, r));
      for (OpFoldResult r : box->strides)
        strides.push_back(materialize(entry, loc, r));
      for (auto [r, shifts] : llvm::zip(box->coords, box->shifts)) {
        Value q = materialize(b, loc, r);
        for (const StridedBox::Shift &shift : shifts) {
          Value term = arith::ConstantIntOp::create(b, loc, shift.blocks, 32);
          for (Value f : shift.factors)
            term = arith::MulIOp::create(b, loc, term, f);
          q = arith::AddIOp::create(b, loc, q, term);
        }
        coords.push_back(q);
      }
      Operation *lifted;
      if (auto load = dyn_cast<LoadOp>(op)) {
        auto tile = LoadTileOp::create(b, loc, load.getType(), box->base,
                                       sizes, strides, coords, box->other);
        load.replaceAllUsesWith(tile.getResult());
        lifted = tile;
      } else {
        lifted = StoreTileOp::create(b, loc, cast<StoreOp>(op).getValue(),
                                     box->base, sizes, strides, coords);
      }
      lifted->setAttr(KccDialect::kLiftedAttr,
                      StringAttr::get(ctx, describeStridedBox(*box)));
      if (!box->tmaRefusal.empty())
        lifted->setAttr(KccDialect::kTmaRefusedAttr,
                        StringAttr::get(ctx, box->tmaRefusal));
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp())
          maybeDead.insert(def);
      op->erase();
    }
    // A carried pointer some access still reads as a pointer goes back to
    // the loop's own (no i32 product that could overflow where the sum of
    // steps does not).
    for (auto [arg, now] : carried) {
      now.replaceAllUsesWith(arg);
      maybeDead.insert(now.getDefiningOp());
    }
    // The address and mask arithmetic the lifted accesses no longer use.
    while (!maybeDead.empty()) {
      Operation *op = maybeDead.pop_back_val();
      if (!isOpTriviallyDead(op))
        continue;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp())
          maybeDead.insert(def);
      op->erase();
    }
  }
};

} // namespace
