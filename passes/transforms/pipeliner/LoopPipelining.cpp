//===- LoopPipelining.cpp - helpers of the loop pipeliners ----------------===//
//
// See LoopPipelining.h.
//
//===----------------------------------------------------------------------===//
#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "passes/analysis/AccumulatorWeb.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/analysis/PersistentTiles.h"
#include "passes/analysis/ReadOnlyMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

using namespace mlir;

namespace kcc::pipelining {

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

bool fromArguments(Value v, func::FuncOp func, bool scalarLoads) {
  // A walk over the DAG, each value once (expanded ceil-divisions and
  // selects read their operands several times: a tree walk is exponential).
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      // A persistent kernel's tile: its program ids come from the tile
      // loop's induction variable, which the verifier runs tile by tile.
      auto tiles = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (tiles && kcc::isPersistentTileLoop(tiles) &&
          arg == tiles.getInductionVar())
        continue;
      if (arg.getOwner() != &func.getBody().front())
        return false;
      continue;
    }
    Operation *def = x.getDefiningOp();
    // Program ids are run-time integers like the arguments (a causal
    // attention loop stops at its block's diagonal); the verifier runs the
    // protocol for representative values of both.
    if (isa_and_nonnull<kcc::ProgramIdOp, kcc::NumProgramsOp>(def))
      continue;
    if (auto load = dyn_cast_or_null<kcc::LoadOp>(def);
        scalarLoads && load && load.getType().isIntOrIndex())
      continue;
    if (!def || def->getDialect()->getNamespace() != "arith" ||
        def->getNumRegions() != 0)
      return false;
    // A scalar choice between such values on a condition read from memory
    // (no trips for a program without a group tile): the verifier runs
    // both sides, as for branches computed from loads.
    if (auto sel = dyn_cast<arith::SelectOp>(def);
        sel && sel.getType().isIntOrIndex()) {
      work.push_back(sel.getTrueValue());
      work.push_back(sel.getFalseValue());
      continue;
    }
    work.append(def->getOperands().begin(), def->getOperands().end());
  }
  return true;
}

/// The ops of `loop`'s body that compute `v` from the induction variable
/// and values defined outside the loop, each accepted by `allowed`.
static bool loopSlice(Value v, scf::ForOp loop,
                      llvm::SetVector<Operation *> &slice,
                      llvm::function_ref<bool(Operation *)> allowed) {
  if (v == loop.getInductionVar())
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return !loop->isAncestor(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (!loop->isAncestor(def) || slice.contains(def))
    return true;
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      !allowed(def))
    return false;
  for (Value o : def->getOperands())
    if (!loopSlice(o, loop, slice, allowed))
      return false;
  slice.insert(def);
  return true;
}

bool coordinateSlice(Value v, scf::ForOp loop,
                     llvm::SetVector<Operation *> &slice) {
  return loopSlice(v, loop, slice, [](Operation *def) {
    return def->getDialect()->getNamespace() == "arith" ||
           isa<kcc::ProgramIdOp, kcc::NumProgramsOp>(def);
  });
}

bool gatherSlice(Value v, scf::ForOp loop,
                 llvm::SetVector<Operation *> &slice) {
  // What the kernel writes, found once for the whole slice.
  std::optional<kcc::ReadOnlyMemory> readOnly;
  return loopSlice(v, loop, slice, [&](Operation *def) {
    if (def->getDialect()->getNamespace() == "arith" ||
        isa<kcc::ProgramIdOp, kcc::NumProgramsOp, kcc::SplatOp, kcc::ArangeOp,
            kcc::ExpandDimsOp, kcc::BroadcastOp, kcc::AddPtrOp>(def))
      return true;
    if (!isa<kcc::LoadOp>(def))
      return false;
    if (!readOnly)
      readOnly.emplace(def->getParentOfType<func::FuncOp>());
    return readOnly->isReadOnlyLoad(def);
  });
}

int64_t asyncBufferBytes(func::FuncOp func) {
  int64_t bytes = 0;
  func.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<kcc::SmemAllocOp>(op)) {
      kcc::SmemType t = alloc.getType();
      bytes += llvm::alignTo(t.getStageBytes() * t.getStages(),
                             kcc::stageAlignment(t.getSwizzle()));
    } else if (auto bars = dyn_cast<kcc::MBarrierAllocOp>(op)) {
      bytes += 8 * int64_t(bars.getType().getCount());
    }
  });
  return bytes;
}

int64_t scratchReserve(func::FuncOp func,
                       llvm::function_ref<bool(kcc::TransOp)> stagedTrans,
                       const llvm::DenseSet<Value> &rowWise) {
  auto tileBytes = [](Type type) -> int64_t {
    auto tile = dyn_cast<RankedTensorType>(type);
    if (!tile)
      return 0;
    Type elem = tile.getElementType();
    int64_t bytes = elem.isIntOrFloat()
                        ? std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8)
                        : 8; // pointers
    return tile.getNumElements() * bytes;
  };
  int64_t reserve = 0;
  // Row-wise values relayout only where they leave the accumulator layout
  // (the epilogue's stores are staged from the registers, below).
  for (Value v : rowWise)
    for (OpOperand &use : v.getUses())
      if (!isa<kcc::StoreTileOp, kcc::SmemStoreOp>(use.getOwner()) &&
          !kcc::staysInRowWiseWeb(use, rowWise))
        reserve = std::max(reserve, tileBytes(v.getType()));
  func.walk([&](Operation *op) {
    if (isa<kcc::DotOp>(op) && rowWise.contains(op->getResult(0)))
      return;
    if (op->getNumOperands() && rowWise.contains(op->getOperand(0)) &&
        llvm::all_of(op->getResults(),
                     [&](Value r) { return rowWise.contains(r); }))
      return;
    // A wgmma accumulator reaches other ops through a relayout in shared
    // memory (kcc-materialize-warpgroup-mma).
    // Not when it goes straight into a TMA store's stage (the GEMM
    // epilogue, kcc::epilogueStore): follow the accumulator out of its loop
    // and through its elementwise epilogue (bias, activation, the cast to
    // the output type: kcc::epilogueChain).
    if (isa<kcc::DotOp>(op)) {
      Value leaving = op->getResult(0);
      if (leaving.hasOneUse())
        if (auto yield = dyn_cast<scf::YieldOp>(*leaving.getUsers().begin()))
          if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp()))
            leaving =
                loop.getResult(leaving.getUses().begin()->getOperandNumber());
      if (leaving.hasOneUse()) {
        SmallVector<Operation *> chain =
            kcc::epilogueChain(*leaving.getUses().begin());
        if (!chain.empty())
          leaving = chain.back()->getResult(0);
      }
      // An epilogue copied per column chunk: each copy's tile is stored in
      // windows from the registers.
      SmallVector<SmallVector<Operation *>> copies =
          kcc::epilogueCopies(leaving);
      if (!copies.empty() &&
          llvm::all_of(copies, [](ArrayRef<Operation *> chain) {
            return kcc::storedInWindows(chain.back()->getResult(0));
          }))
        return;
      // The relayout moves the tile where it leaves the accumulator layout:
      // after its epilogue (the cast to a narrower output type included).
      if (!kcc::epilogueStore(leaving) && !kcc::storedInWindows(leaving))
        reserve = std::max(reserve, tileBytes(leaving.getType()));
      return;
    }
    if (!isa<kcc::ReduceOp, kcc::BroadcastOp, kcc::TransOp, kcc::ExpandDimsOp,
             kcc::ReshapeOp>(op))
      return;
    // Nor the trans of an operand the tensor cores read from its stage
    // transposed (the caller's `stagedTrans`).
    if (auto trans = dyn_cast<kcc::TransOp>(op); trans && stagedTrans(trans))
      return;
    Type src = op->getOperand(0).getType();
    int64_t bytes = tileBytes(src);
    // A 1-D reduction keeps one 8-byte partial per warp (at most 32).
    if (isa<kcc::ReduceOp>(op) && cast<RankedTensorType>(src).getRank() == 1)
      bytes = 32 * 8;
    reserve = std::max(reserve, bytes);
  });
  return reserve;
}

int64_t registerOperandScratch(kcc::DotOp dot) {
  int64_t bytes = 0;
  for (Value v : {dot.getA(), dot.getB()}) {
    auto t = cast<RankedTensorType>(v.getType());
    bytes += t.getDimSize(0) *
             (t.getDimSize(1) *
                  std::max<int64_t>(1, t.getElementTypeBitWidth() / 8) +
              16);
  }
  return bytes;
}

} // namespace kcc::pipelining

Value kcc::pipelining::tripCount(OpBuilder &b, Location loc, Value lb, Value ub,
                                 int64_t step) {
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value n = arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, constI32(b, loc, step - 1)),
      constI32(b, loc, step));
  return arith::MaxSIOp::create(b, loc, n, constI32(b, loc, 0));
}

int64_t kcc::pipelining::accumulatorRegisters(Value tile) {
  auto t = cast<RankedTensorType>(tile.getType());
  auto layout = cast<kcc::WgmmaAccLayoutAttr>(t.getEncoding());
  int64_t bytes = t.getNumElements() * (t.getElementTypeBitWidth() / 8);
  return bytes / (4 * 128 * int64_t(layout.getWarpgroups()));
}

int64_t kcc::pipelining::tileRegisterBudget(Operation *op) {
  // 48 on the H200: head_dim 256 attention with 80-key blocks (188
  // registers of tiles) ran 5-6 % faster than with 64-key blocks despite
  // 80-148 bytes spilled; head_dim 128 with 176-key blocks (196) ran no
  // faster than with 128.
  constexpr int64_t kOthers = 48;
  if (auto ws = op->getParentOfType<kcc::WarpSpecializeOp>())
    return int64_t(ws.getConsumerRegs()) - kOthers;
  return 255 - kOthers;
}

scf::IfOp kcc::pipelining::guardLoopRuns(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value runs =
      arith::CmpIOp::create(b, loc,
                            loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                  : arith::CmpIPredicate::slt,
                            loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                 /*withElseRegion=*/true);
  OpBuilder eb = OpBuilder::atBlockEnd(&guard.getElseRegion().front());
  scf::YieldOp::create(eb, loc, loop.getInitArgs());
  return guard;
}
