//===- WarpRoles.cpp - warp specialization of a TMA pipeline --------------===//
//
// See WarpRoles.h. The pipeliner (kcc-pipeline-tma-loads) decides that a
// loop feeding wgmma is warp-specialized; planning which ops each role runs
// and building the kcc.warp_specialize regions happen here.
//
//===----------------------------------------------------------------------===//
#include "passes/transforms/warp-spec/WarpRoles.h"

#include "passes/analysis/MmaOperands.h"
#include "passes/analysis/PersistentTiles.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kcc::pipelining;
using namespace kcc::warpspec;

namespace {
constexpr unsigned kProducerWarps = 4; // one warpgroup: setmaxnreg's unit

bool isSetupOp(Operation *op) {
  return isa<kcc::SmemAllocOp, kcc::MBarrierAllocOp, kcc::MBarrierInitOp,
             kcc::FenceMBarrierInitOp>(op);
}

/// Scalar, side-effect-free and region-free: safe to run on every thread
/// (before the split) or to recompute in the producer.
bool isPureScalar(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         llvm::all_of(op->getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); });
}

} // namespace

std::string kcc::warpspec::planRoles(func::FuncOp func, scf::ForOp loop,
                      ArrayRef<Value> needed, const kcc::TargetModel &target,
                      RolePlan &plan) {
  const kcc::WarpSpecializationModel &ws = target.warpSpecialization;
  if (!ws.enabled())
    return "target '" + target.name +
           "' has no register reallocation between warpgroups "
           "([warp_specialization] in its model)";
  Block &entry = func.getBody().front();
  // A persistent kernel's loop sits in the tile loop, which is in the body:
  // each role runs its own tile loop.
  auto tiles = dyn_cast_or_null<scf::ForOp>(kcc::persistentTileLoopOf(loop));
  Operation *top = tiles ? tiles.getOperation() : loop.getOperation();
  if (top->getBlock() != &entry || (tiles && loop->getParentOp() != tiles))
    return "the loop is not directly in the kernel's body (the consumer "
           "role takes everything after it)";
  // Warpgroups: as kcc-materialize-warpgroup-mma will choose them.
  unsigned warpgroups = 2;
  bool anyDot = false;
  func.walk([&](kcc::DotOp dot) {
    bool t;
    kcc::LoadTileOp a = kcc::mmaOperandLoad(dot.getA(), t);
    if (!a || !a->hasAttr(kcc::KccDialect::kMmaOperandAttr))
      return;
    anyDot = true;
    warpgroups = std::min(
        warpgroups, kcc::accumulatorWarpgroups(dot.getType().getShape()[0]));
  });
  if (!anyDot)
    return "no wgmma dot reads the loop's stages";
  unsigned warps = 4 * warpgroups + kProducerWarps;
  if (warps * target.warpSize > target.maxThreadsPerBlock)
    return std::to_string(warps * target.warpSize) +
           " threads with the producer warpgroup exceed the target's " +
           std::to_string(target.maxThreadsPerBlock);
  // The consumers take what the producer gives back. The pool is the CTA's
  // allocation: one CTA per SM (the lowering asks ptxas for it) gets the
  // most registers per thread the register file allows for its threads,
  // in setmaxnreg's steps of 8 (168 for 384 threads of a 64K file).
  unsigned consumerThreads = 4 * warpgroups * target.warpSize;
  unsigned producerThreads = kProducerWarps * target.warpSize;
  int64_t perThread = std::min<int64_t>(
      target.registersPerThread,
      int64_t(ws.registerFile) / (consumerThreads + producerThreads) / 8 * 8);
  int64_t left = perThread * (consumerThreads + producerThreads) -
                 int64_t(producerThreads) * ws.producerRegisters;
  unsigned consumerRegs = std::min<int64_t>(
      ws.consumerRegisters, left > 0 ? left / consumerThreads / 8 * 8 : 0);
  if (consumerRegs < 24 || consumerRegs <= ws.producerRegisters)
    return "the register file of " + std::to_string(ws.registerFile) +
           " leaves the consumer threads " + std::to_string(consumerRegs) +
           " registers each, no more than the producer's " +
           std::to_string(ws.producerRegisters) + ": nothing to reallocate";
  // The split: after the kernel's barrier and buffer setup; what comes
  // before it runs on every thread, so it must be scalar.
  Operation *splitAfter = nullptr;
  for (Operation &op : entry) {
    if (&op == top)
      break;
    if (isSetupOp(&op))
      splitAfter = &op;
  }
  for (Operation &op : entry) {
    if (!splitAfter || &op == splitAfter)
      break;
    if (!isSetupOp(&op) && !isPureScalar(&op))
      return "'" + op.getName().getStringRef().str() +
             "' runs before the kernel's barrier setup ends, and would run on "
             "the producer warpgroup too";
  }
  // The producer recomputes the loop bounds and the copies' loop-invariant
  // coordinates from scalar ops after the split.
  // In a persistent kernel it also recomputes, per tile, what the tile
  // loop's body computes before the loop (the program ids).
  llvm::SetVector<Operation *> slice, tileSlice;
  std::string why;
  std::function<bool(Value)> collect = [&](Value v) {
    if (tiles && v == tiles.getInductionVar())
      return true; // the producer's own tile loop's
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (tiles && arg.getOwner() == tiles.getBody()) {
        why = "the producer would need a value the tile loop carries";
        return false;
      }
    Operation *def = v.getDefiningOp();
    bool inTile = def && tiles && def->getBlock() == tiles.getBody();
    if (!def || (!inTile && def->getBlock() != &entry) ||
        (!inTile && splitAfter && !splitAfter->isBeforeInBlock(def)))
      return true; // an argument, or defined before the split
    if (slice.contains(def) || tileSlice.contains(def))
      return true;
    if (!isPureScalar(def)) {
      why = "the producer would recompute a value of '" +
            def->getName().getStringRef().str() +
            "', which is not a side-effect-free scalar op";
      return false;
    }
    for (Value o : def->getOperands())
      if (!collect(o))
        return false;
    (inTile ? tileSlice : slice).insert(def);
    return true;
  };
  SmallVector<Value> all(needed);
  if (tiles)
    all.append({tiles.getLowerBound(), tiles.getUpperBound(), tiles.getStep()});
  for (Value v : all)
    if (!collect(v))
      return why;
  auto inOrder = [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  };
  plan.splitAfter = splitAfter;
  plan.producerSlice = slice.takeVector();
  llvm::sort(plan.producerSlice, inOrder);
  plan.tiles = tiles;
  plan.tileSlice = tileSlice.takeVector();
  llvm::sort(plan.tileSlice, inOrder);
  plan.consumerWarpgroups = warpgroups;
  plan.producerRegs = ws.producerRegisters;
  plan.consumerRegs = consumerRegs;
  return "";
}

/// Splits the kernel after its setup into kcc.warp_specialize: the producer
/// region recomputes the loop bounds and coordinates (`roles.producerSlice`)
/// and runs the loop's copies, waiting for the consumers to release a stage
/// (`empty`) before refilling it; the consumer region gets the rest of the
/// kernel, `loop` included. In a persistent kernel the producer runs its own
/// tile loop over the same tiles, recomputing `roles.tileSlice` per tile
/// and carrying the stage counter across tiles as the consumers' tile loop
/// does, so it fills the next tile's stages while the consumers finish this
/// one. `issue(b, k, s, mapping)` builds the copies of iteration `k` into
/// stage `s`.
void kcc::warpspec::buildRoles(
    func::FuncOp func, scf::ForOp loop, const RolePlan &roles, int64_t depth,
    int64_t step, Value empty,
    function_ref<void(OpBuilder &, Value, Value, const IRMapping &)> issue) {
  MLIRContext *ctx = func.getContext();
  Location loc = loop.getLoc();
  Block &entry = func.getBody().front();
  scf::ForOp tiles = roles.tiles;
  Operation *top = tiles ? tiles.getOperation() : loop.getOperation();
  // Split after the last setup op (roles.splitAfter, or the pipeline's own
  // at the block's start).
  OpBuilder b(ctx);
  for (Operation &op : entry) {
    if (&op == top)
      break;
    if (isSetupOp(&op))
      b.setInsertionPointAfter(&op);
  }
  auto ws = kcc::WarpSpecializeOp::create(
      b, loc, kProducerWarps, roles.consumerWarpgroups, roles.producerRegs,
      roles.consumerRegs, /*consumer_groups=*/nullptr);
  Block *producer = &ws.getProducer().emplaceBlock();
  Block *consumer = &ws.getConsumer().emplaceBlock();
  consumer->getOperations().splice(consumer->end(), entry.getOperations(),
                                   std::next(ws->getIterator()),
                                   entry.getTerminator()->getIterator());
  func->setAttr(kcc::KccDialect::kProducerWarpsAttr,
                b.getI32IntegerAttr(kProducerWarps));

  OpBuilder pb = OpBuilder::atBlockBegin(producer);
  IRMapping mapping;
  for (Operation *op : roles.producerSlice)
    pb.clone(*op, mapping);
  // The stage counter at the loop's first iteration: 0, or carried by the
  // producer's tile loop.
  Value base;
  scf::ForOp tileLoop;
  if (tiles) {
    tileLoop = scf::ForOp::create(
        pb, tiles.getLoc(), mapping.lookupOrDefault(tiles.getLowerBound()),
        mapping.lookupOrDefault(tiles.getUpperBound()),
        mapping.lookupOrDefault(tiles.getStep()),
        ValueRange{constI32(pb, loc, 0)},
        [](OpBuilder &, Location, Value, ValueRange) {});
    tileLoop->setAttr(kcc::KccDialect::kPersistentTilesAttr,
                      UnitAttr::get(ctx));
    mapping.map(tiles.getInductionVar(), tileLoop.getInductionVar());
    base = tileLoop.getRegionIterArgs().front();
    pb.setInsertionPointToStart(tileLoop.getBody());
    for (Operation *op : roles.tileSlice)
      pb.clone(*op, mapping);
  }
  Value lb = mapping.lookupOrDefault(loop.getLowerBound());
  Value ub = mapping.lookupOrDefault(loop.getUpperBound());
  auto copies = scf::ForOp::create(pb, loc, lb, ub,
                                   mapping.lookupOrDefault(loop.getStep()));
  if (tileLoop)
    scf::YieldOp::create(pb, loc,
                         ValueRange{arith::AddIOp::create(
                             pb, loc, base, tripCount(pb, loc, lb, ub, step))});
  OpBuilder lb2 = OpBuilder::atBlockBegin(copies.getBody());
  Value k = copies.getInductionVar();
  Value it =
      arith::DivUIOp::create(lb2, loc, arith::SubIOp::create(lb2, loc, k, lb),
                             constI32(lb2, loc, step));
  if (base)
    it = arith::AddIOp::create(lb2, loc, base, it);
  Value stage = arith::RemUIOp::create(lb2, loc, it, constI32(lb2, loc, depth));
  // Iteration `it` (counted across tiles) reuses the stage of iteration
  // it - depth: wait for its release, phase (it / depth) - 1 of the stage's
  // empty barrier. The first round of stages is free.
  Value reuse = arith::CmpIOp::create(lb2, loc, arith::CmpIPredicate::sge, it,
                                      constI32(lb2, loc, depth));
  auto wait = scf::IfOp::create(lb2, loc, reuse, /*withElseRegion=*/false);
  {
    OpBuilder wb = OpBuilder::atBlockBegin(wait.thenBlock());
    Value round = arith::SubIOp::create(
        wb, loc, arith::DivUIOp::create(wb, loc, it, constI32(wb, loc, depth)),
        constI32(wb, loc, 1));
    Value parity = arith::AndIOp::create(wb, loc, round, constI32(wb, loc, 1));
    kcc::MBarrierWaitOp::create(wb, loc, empty, stage, parity);
  }
  issue(lb2, k, stage, mapping);
}

