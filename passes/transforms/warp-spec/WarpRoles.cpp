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
#include "passes/analysis/ReadOnlyMemory.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

/// A scalar addptr: arithmetic on an address.
bool isScalarAddress(Operation *op) {
  return isa<kcc::AddPtrOp>(op) &&
         isa<kcc::PtrType>(op->getResult(0).getType());
}

/// A scalar load from memory the kernel never writes (an offsets array every
/// program reads) gives the same value when read again, so the producer may
/// recompute what depends on it.
bool isReadOnlyScalarLoad(const kcc::ReadOnlyMemory &readOnly, Operation *op) {
  return readOnly.isReadOnlyLoad(op) &&
         !isa<RankedTensorType>(op->getResult(0).getType());
}

/// A scalar loop the producer may run again: its body only pure scalar ops
/// and read-only scalar loads (a scan of a group offsets array).
bool isRecomputableLoop(Operation *op, const kcc::ReadOnlyMemory &readOnly) {
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop || !llvm::all_of(loop.getResultTypes(),
                             [](Type t) { return t.isIntOrIndexOrFloat(); }))
    return false;
  return !loop.getBody()
              ->walk([&](Operation *inner) {
                if (isa<scf::YieldOp>(inner) || isPureScalar(inner) ||
                    isScalarAddress(inner) ||
                    isReadOnlyScalarLoad(readOnly, inner))
                  return WalkResult::advance();
                return WalkResult::interrupt();
              })
              .wasInterrupted();
}

/// The index operand that selects a stage or barrier of buffer operand
/// `use` (a consumer-side op on a private buffer), or null.
OpOperand *indexOf(OpOperand &use) {
  Operation *op = use.getOwner();
  auto is = [&](OpOperand &o) { return &o == &use; };
  if (auto o = dyn_cast<kcc::SmemLoadOp>(op))
    return is(o.getSrcMutable()) ? &o.getStageMutable() : nullptr;
  if (auto o = dyn_cast<kcc::SmemStoreOp>(op))
    return is(o.getDstMutable()) ? &o.getStageMutable() : nullptr;
  if (auto o = dyn_cast<kcc::TmaStoreOp>(op))
    return is(o.getSrcMutable()) ? &o.getStageMutable() : nullptr;
  if (auto o = dyn_cast<kcc::TmaLoadOp>(op))
    return is(o.getDstMutable())    ? &o.getStageMutable()
           : is(o.getBarsMutable()) ? &o.getIndexMutable()
                                    : nullptr;
  if (auto o = dyn_cast<kcc::MBarrierWaitOp>(op))
    return &o.getIndexMutable();
  if (auto o = dyn_cast<kcc::MBarrierArriveOp>(op))
    return &o.getIndexMutable();
  if (auto o = dyn_cast<kcc::MBarrierArriveExpectTxOp>(op))
    return &o.getIndexMutable();
  return nullptr;
}

/// Whether `v` is computed from the induction variable of the tile loop
/// `tiles` (through ops in it).
bool readsTile(Value v, scf::ForOp tiles) {
  llvm::SmallPtrSet<Operation *, 16> seen;
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (x == tiles.getInductionVar())
      return true;
    Operation *def = x.getDefiningOp();
    if (!def || !tiles->isAncestor(def) || !seen.insert(def).second)
      continue;
    // A select on a constant (`where(CAUSAL != 0, ...)` in a specialization
    // that fixed CAUSAL) reads one side only; nothing has folded it yet.
    if (auto sel = dyn_cast<arith::SelectOp>(def))
      if (std::optional<int64_t> c = getConstantIntValue(sel.getCondition())) {
        work.push_back(*c ? sel.getTrueValue() : sel.getFalseValue());
        continue;
      }
    work.append(def->getOperands().begin(), def->getOperands().end());
  }
  return false;
}

/// The ops of the tile loop's body that `loop`'s bounds are computed from,
/// in order, into `slice`; false where one reads memory, has regions or
/// reads a value the tile loop carries (a consumer group could not compute
/// the bounds of the other group's tiles from their induction variables).
bool tileBoundsSlice(scf::ForOp tiles, scf::ForOp loop,
                     SmallVectorImpl<Operation *> &slice) {
  llvm::SetVector<Operation *> ops;
  std::function<bool(Value)> collect = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() != tiles.getBody() ||
             arg == tiles.getInductionVar();
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != tiles.getBody() || ops.contains(def))
      return true; // from before the tile loop, or collected
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      return false;
    for (Value o : def->getOperands())
      if (!collect(o))
        return false;
    ops.insert(def);
    return true;
  };
  if (!collect(loop.getLowerBound()) || !collect(loop.getUpperBound()) ||
      !collect(loop.getStep()))
    return false;
  slice.assign(ops.begin(), ops.end());
  llvm::sort(slice,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return true;
}

/// The trip count of `loop` in the tile whose induction variable is `iv`:
/// `slice` (tileBoundsSlice) cloned at `b` with the tile loop's induction
/// variable replaced.
Value tripsOfTile(OpBuilder &b, Location loc, scf::ForOp tiles, scf::ForOp loop,
                  ArrayRef<Operation *> slice, Value iv, int64_t step) {
  IRMapping m;
  m.map(tiles.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, m);
  return tripCount(b, loc, m.lookupOrDefault(loop.getLowerBound()),
                   m.lookupOrDefault(loop.getUpperBound()), step);
}

/// Whether an operand of `dot` is a load_tile that gets a wgmma operand
/// stage (the other may be a stage loaded before the loop, attention's Q,
/// or a tile in registers, its P).
bool readsMmaStage(kcc::DotOp dot) {
  return llvm::any_of(ValueRange{dot.getA(), dot.getB()}, [](Value v) {
    bool t;
    kcc::LoadTileOp load = kcc::mmaOperandLoad(v, t);
    return load && load->hasAttr(kcc::KccDialect::kMmaOperandAttr);
  });
}

} // namespace

std::string kcc::warpspec::planRoles(func::FuncOp func, scf::ForOp loop,
                                     ArrayRef<Value> needed,
                                     const kcc::TargetModel &target,
                                     bool pingPong, RolePlan &plan) {
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
    if (!readsMmaStage(dot))
      return;
    anyDot = true;
    warpgroups = std::min(
        warpgroups, kcc::accumulatorWarpgroups(dot.getType().getShape()[0]));
  });
  if (!anyDot)
    return "no wgmma dot reads the loop's stages";
  // Ping-pong: two consumer groups of one warpgroup each, on alternate
  // tiles of a persistent kernel, so that one group's epilogue runs while
  // the other's K loop keeps the tensor cores busy. Each warpgroup then
  // holds a whole tile's accumulators.
  constexpr int64_t kPingPongAccRegs = 128;
  unsigned groups = 1;
  if (!pingPong) {
    // Not asked for: nothing to explain.
  } else if (target.mma.instruction != "wgmma") {
    plan.pingPongWhy = "the tensor cores of '" + target.name +
                       "' are not driven by wgmma (ping-pong is built for "
                       "wgmma accumulators in registers)";
  } else if (!tiles) {
    plan.pingPongWhy = "not a persistent kernel: consumer groups take "
                       "alternate tiles of its tile loop (kcc --persistent)";
  } else {
    int64_t accRegs = 0;
    func.walk([&](kcc::DotOp dot) {
      if (!readsMmaStage(dot))
        return;
      RankedTensorType acc = dot.getType();
      accRegs += acc.getNumElements() *
                 std::max<int64_t>(acc.getElementTypeBitWidth(), 32) / 32 / 128;
    });
    SmallVector<Value> buffers;
    if (accRegs > kPingPongAccRegs)
      plan.pingPongWhy = "one warpgroup would hold " + std::to_string(accRegs) +
                         " accumulator registers per thread (at most " +
                         std::to_string(kPingPongAccRegs) +
                         "; a 128 x 128 or 64 x 256 tile fits)";
    else if (SmallVector<Operation *> slice;
             (readsTile(loop.getLowerBound(), tiles) ||
              readsTile(loop.getUpperBound(), tiles)) &&
             !tileBoundsSlice(tiles, loop, slice))
      // A group counts the stages the other group's tiles use from their
      // trip counts, which it computes again from their tiles.
      plan.pingPongWhy = "the loop's trip count changes from tile to tile "
                         "and is not computed from the tile alone (its "
                         "bounds read memory or values the tile loop "
                         "carries), so a consumer group cannot count the "
                         "stages the other group's tiles used";
    else if (std::string why = privateBuffers(func, buffers); !why.empty())
      plan.pingPongWhy = why;
    else {
      groups = 2;
      warpgroups = 1;
    }
  }
  unsigned warps = 4 * warpgroups * groups + kProducerWarps;
  if (warps * target.warpSize > target.maxThreadsPerBlock)
    return std::to_string(warps * target.warpSize) +
           " threads with the producer warpgroup exceed the target's " +
           std::to_string(target.maxThreadsPerBlock);
  // The consumers take what the producer gives back. The pool is the CTA's
  // allocation: one CTA per SM (the lowering asks ptxas for it) gets the
  // most registers per thread the register file allows for its threads,
  // in setmaxnreg's steps of 8 (168 for 384 threads of a 64K file).
  unsigned consumerThreads = 4 * warpgroups * groups * target.warpSize;
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
  kcc::ReadOnlyMemory readOnly(func);
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
    if (isRecomputableLoop(def, readOnly)) {
      // The values its body reads from outside, then its own operands.
      bool ok = true;
      def->walk([&](Operation *inner) {
        for (Value o : inner->getOperands())
          if (ok && !def->isAncestor(o.getParentBlock()->getParentOp()) &&
              o.getParentRegion() != &cast<scf::ForOp>(def).getRegion())
            ok = collect(o);
      });
      for (Value o : def->getOperands())
        if (ok)
          ok = collect(o);
      if (!ok)
        return false;
      (inTile ? tileSlice : slice).insert(def);
      return true;
    }
    // Scalar address arithmetic and read-only scalar loads (a tile's group
    // read from an inspector's table) are recomputed like arithmetic.
    if (!isPureScalar(def) && !isScalarAddress(def) &&
        !isReadOnlyScalarLoad(readOnly, def)) {
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
  plan.consumerGroups = groups;
  plan.producerRegs = ws.producerRegisters;
  plan.consumerRegs = consumerRegs;
  return "";
}

/// Splits the kernel after its setup into kcc.warp_specialize: the producer
/// region recomputes the loop bounds and coordinates (`roles.producerSlice`)
/// and runs the loop's copies (`issue`, which waits for the consumers to
/// release a stage before refilling it: waitForRelease); the consumer
/// region gets the rest of the kernel, `loop` included. In a persistent
/// kernel the producer runs its own tile loop over the same tiles,
/// recomputing `roles.tileSlice` per tile and carrying the stage counter
/// across tiles as the consumers' tile loop does, so it fills the next
/// tile's stages while the consumers finish this one.
void kcc::warpspec::buildRoles(
    func::FuncOp func, scf::ForOp loop, const RolePlan &roles, int64_t depth,
    int64_t step,
    function_ref<void(OpBuilder &, Value, Value, Value, const IRMapping &)>
        issue,
    function_ref<void(OpBuilder &, Value, const IRMapping &)> issueTile) {
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
      roles.consumerRegs,
      roles.consumerGroups > 1 ? b.getI32IntegerAttr(roles.consumerGroups)
                               : IntegerAttr());
  if (roles.consumerGroups == 1 && !roles.pingPongWhy.empty())
    ws->setAttr(kcc::KccDialect::kPingPongRefusedAttr,
                b.getStringAttr(roles.pingPongWhy));
  Block *producer = &ws.getProducer().emplaceBlock();
  Block *consumer = &ws.getConsumer().emplaceBlock();
  consumer->getOperations().splice(consumer->end(), entry.getOperations(),
                                   std::next(ws->getIterator()),
                                   entry.getTerminator()->getIterator());
  func->setAttr(kcc::KccDialect::kProducerWarpsAttr,
                b.getI32IntegerAttr(kProducerWarps));
  if (roles.consumerGroups > 1)
    func->setAttr(kcc::KccDialect::kConsumerGroupsAttr,
                  b.getI32IntegerAttr(roles.consumerGroups));

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
    if (issueTile) {
      Value ordinal = arith::DivUIOp::create(
          pb, loc,
          arith::SubIOp::create(pb, loc, tileLoop.getInductionVar(),
                                tileLoop.getLowerBound()),
          tileLoop.getStep());
      issueTile(pb, ordinal, mapping);
    }
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
  issue(lb2, k, it, stage, mapping);
}

void kcc::warpspec::waitForRelease(OpBuilder &b, Location loc, Value empty,
                                   Value it, Value stage, int64_t depth) {
  // Iteration `it` (counted across tiles) reuses the stage of iteration
  // it - depth: wait for its release, phase (it / depth) - 1 of the stage's
  // empty barrier. The first round of stages is free.
  Value reuse = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, it,
                                      constI32(b, loc, depth));
  auto wait = scf::IfOp::create(b, loc, reuse, /*withElseRegion=*/false);
  OpBuilder wb = OpBuilder::atBlockBegin(wait.thenBlock());
  Value round = arith::SubIOp::create(
      wb, loc, arith::DivUIOp::create(wb, loc, it, constI32(wb, loc, depth)),
      constI32(wb, loc, 1));
  Value parity = arith::AndIOp::create(wb, loc, round, constI32(wb, loc, 1));
  kcc::MBarrierWaitOp::create(wb, loc, empty, stage, parity);
}

/// The kernel's buffers (before the pipeline adds its own), which each
/// consumer group would get a copy of; why not, if one is used otherwise.
std::string kcc::warpspec::privateBuffers(func::FuncOp func,
                                          SmallVectorImpl<Value> &out) {
  std::string why;
  func.walk([&](Operation *op) {
    if (!isa<kcc::SmemAllocOp, kcc::MBarrierAllocOp>(op))
      return WalkResult::advance();
    for (OpOperand &use : op->getResult(0).getUses())
      if (!isa<kcc::MBarrierInitOp>(use.getOwner()) && !indexOf(use)) {
        why = "'" + use.getOwner()->getName().getStringRef().str() +
              "' uses a buffer that each consumer group would need a copy "
              "of";
        return WalkResult::interrupt();
      }
    out.push_back(op->getResult(0));
    return WalkResult::advance();
  });
  return why;
}

Value kcc::warpspec::buildPingPong(func::FuncOp func, scf::ForOp tiles,
                                   scf::ForOp loop, const RolePlan &roles,
                                   Value base, Value turn, int64_t stepK) {
  Location loc = loop.getLoc();
  auto ws = cast<kcc::WarpSpecializeOp>(tiles->getParentOp());
  Block &consumer = ws.getConsumer().front();
  OpBuilder b = OpBuilder::atBlockBegin(&consumer);
  Value g = kcc::ConsumerGroupOp::create(b, loc, b.getI32Type());
  Value other = arith::SubIOp::create(b, loc, constI32(b, loc, 1), g);

  // Private buffers: group g's half of each (stages or barriers
  // [g x n, (g + 1) x n)); the setup initializes both halves.
  for (Value buf : roles.privateBuffers) {
    int64_t n;
    if (auto smem = dyn_cast<kcc::SmemType>(buf.getType())) {
      n = smem.getStages();
      buf.setType(kcc::SmemType::get(b.getContext(), smem.getShape(),
                                     smem.getElementType(), 2 * n,
                                     smem.getSwizzle(), smem.getPad()));
    } else {
      auto bars = cast<kcc::MBarrierType>(buf.getType());
      n = bars.getCount();
      buf.setType(kcc::MBarrierType::get(b.getContext(), 2 * n));
    }
    Value offset;
    // A constant index's group copy is computed once, at the region's
    // start, where it dominates every use (the epilogue's relayout
    // reuses a stage index in other blocks).
    llvm::SmallDenseMap<int64_t, Value> atStart;
    for (OpOperand &use : llvm::make_early_inc_range(buf.getUses())) {
      Operation *user = use.getOwner();
      if (auto init = dyn_cast<kcc::MBarrierInitOp>(user)) {
        OpBuilder ib(init->getContext());
        ib.setInsertionPointAfter(init);
        kcc::MBarrierInitOp::create(
            ib, init.getLoc(), buf,
            arith::AddIOp::create(ib, init.getLoc(), init.getIndex(),
                                  constI32(ib, init.getLoc(), n)),
            init.getCount());
        continue;
      }
      if (!offset)
        offset = arith::MulIOp::create(b, loc, g, constI32(b, loc, n));
      OpOperand *index = indexOf(use);
      if (std::optional<int64_t> c = getConstantIntValue(index->get())) {
        Value &v = atStart[*c];
        if (!v)
          v = arith::AddIOp::create(b, loc, constI32(b, loc, *c), offset);
        index->set(v);
        continue;
      }
      OpBuilder ub(user);
      index->set(
          arith::AddIOp::create(ub, user->getLoc(), index->get(), offset));
    }
  }

  // Alternate tiles: from the group's own on, by twice the launch's extent.
  OpBuilder tb(tiles);
  Value lb =
      arith::AddIOp::create(tb, loc, tiles.getLowerBound(),
                            arith::MulIOp::create(tb, loc, g, tiles.getStep()));
  Value step =
      arith::MulIOp::create(tb, loc, tiles.getStep(), constI32(tb, loc, 2));
  tiles.getLowerBoundMutable().assign(lb);
  tiles.getStepMutable().assign(step);
  // The counter advances by both groups' tiles: group 0's tile t0 of the
  // pair and group 1's t0 + step; this group's tile comes after t0's when
  // g = 1. Where the trip count changes from tile to tile (a causal bound)
  // each group computes both tiles' counts from their induction variables;
  // past the last tile the other group runs none.
  OpBuilder kb(loop);
  Value first, second;
  SmallVector<Operation *> slice;
  if (readsTile(loop.getLowerBound(), tiles) ||
      readsTile(loop.getUpperBound(), tiles)) {
    (void)tileBoundsSlice(tiles, loop, slice); // checked by planRoles
    // The launch's extent, as half the groups' step (the async verifier
    // runs the tile loop as one program of a one-program launch would).
    Value origStep =
        arith::DivUIOp::create(kb, loc, tiles.getStep(), constI32(kb, loc, 2));
    Value t0 =
        arith::SubIOp::create(kb, loc, tiles.getInductionVar(),
                              arith::MulIOp::create(kb, loc, g, origStep));
    Value t1 = arith::AddIOp::create(kb, loc, t0, origStep);
    first = tripsOfTile(kb, loc, tiles, loop, slice, t0, stepK);
    Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::slt,
                                          t1, tiles.getUpperBound());
    second = arith::SelectOp::create(
        kb, loc, inRange, tripsOfTile(kb, loc, tiles, loop, slice, t1, stepK),
        constI32(kb, loc, 0));
  } else {
    first = second =
        tripCount(kb, loc, loop.getLowerBound(), loop.getUpperBound(), stepK);
  }
  auto yield = cast<scf::YieldOp>(tiles.getBody()->getTerminator());
  OpOperand &next = yield->getOpOperand(yield->getNumOperands() - 1);
  {
    OpBuilder yb(yield);
    next.set(arith::AddIOp::create(
        yb, loc, base, arith::AddIOp::create(yb, loc, first, second)));
  }
  Value mine = arith::AddIOp::create(kb, loc, base,
                                     arith::MulIOp::create(kb, loc, g, first));

  // Turns: the j-th tile of group g waits for phase j - 1 + g of turn[g]
  // (the other group's K loop of the tile before), except tile 0.
  Value j = arith::DivUIOp::create(
      kb, loc, arith::SubIOp::create(kb, loc, tiles.getInductionVar(), lb),
      step);
  Value jg = arith::AddIOp::create(kb, loc, j, g);
  Value later = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ugt, jg,
                                      constI32(kb, loc, 0));
  auto wait = scf::IfOp::create(kb, loc, later, /*withElseRegion=*/false);
  {
    OpBuilder wb = OpBuilder::atBlockBegin(wait.thenBlock());
    Value parity = arith::AndIOp::create(
        wb, loc, arith::SubIOp::create(wb, loc, jg, constI32(wb, loc, 1)),
        constI32(wb, loc, 1));
    kcc::MBarrierWaitOp::create(wb, loc, turn, g, parity);
  }
  OpBuilder ab(loop->getContext());
  ab.setInsertionPointAfter(loop);
  kcc::MBarrierArriveOp::create(ab, loc, turn, other, /*per_warpgroup=*/true);
  return mine;
}
