//===- PipelineTmaLoads.cpp - multi-stage TMA pipelines for loop loads ----===//
//
// kcc-pipeline-tma-loads software-pipelines the load_tile ops of an scf.for
// body that have a tensor map (kcc-add-tensor-maps) over S shared stages:
//
//   entry:     S-stage buffer + S mbarriers per load, initialized once
//   prologue:  for p < S: if lb + p*step < ub: expect_tx + tma_load of
//              iteration p into stage p
//   body:      it = (k - lb) / step; wait stage it % S with parity
//              (it / S) & 1; smem_load; ...; at the end of the body every
//              thread has read the stage (cta_barrier), and if k + S*step <
//              ub the stage is refilled with iteration it + S
//
// so S - 1 copies are in flight while an iteration computes. The copy
// coordinates of a later iteration are the body's coordinate computation
// cloned with the induction variable advanced. A loop whose trip count is
// below S simply skips the prologue copies it does not need (the "pipeline
// deeper than its trip count" deadlock cannot happen). Loops qualify when
// their bounds are computed from constants and the kernel's integer
// arguments (so kcc-verify-async-protocol can prove the protocol), the step
// is a positive constant, and the load sits directly in the body with
// coordinates computed from the induction variable and loop-invariant
// values. Others keep vector loads, with the reason in kcc.tma_refused.
//
// S is the `stages` option (3), lowered (not below 2) until the stages fit
// what the target's shared memory per block leaves: the target model's
// bytes_per_block (dynamic shared memory on NVIDIA) minus the kernel's other
// TMA buffers and a reserve for the relayout/reduction scratch (its largest
// such tile). A loop whose two stages do not fit keeps vector loads.
//
//===----------------------------------------------------------------------===//

#include "passes/AxisInfo.h"
#include "passes/EpilogueChunks.h"
#include "passes/LoopPipelining.h"
#include "passes/MmaOperands.h"
#include "passes/Passes.h"
#include "passes/PersistentTiles.h"
#include "passes/TensorMaps.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace mlir;

using namespace kcc::pipelining;

namespace {

struct PipelineTmaLoads
    : PassWrapper<PipelineTmaLoads, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelineTmaLoads)

  PipelineTmaLoads() = default;
  PipelineTmaLoads(const PipelineTmaLoads &other) : PassWrapper(other) {
    target = other.target;
  }
  PipelineTmaLoads(const kcc::TargetModel &model, unsigned depth, bool ws,
                   bool chunks)
      : target(&model) {
    stages = depth;
    warpSpecialize = ws;
    chunkEpilogues = chunks;
  }

  StringRef getArgument() const override { return "kcc-pipeline-tma-loads"; }
  StringRef getDescription() const override {
    return "Software-pipeline the TMA loads of scf.for bodies over N shared "
           "stages";
  }

  Option<unsigned> stages{*this, "stages",
                          llvm::cl::desc("Pipeline depth (shared stages)"),
                          llvm::cl::init(3)};
  Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("Split loops whose loads feed wgmma into a producer "
                     "warpgroup and consumer warpgroups where the target "
                     "model has [warp_specialization]"),
      llvm::cl::init(true)};
  Option<bool> chunkEpilogues{
      *this, "chunk-epilogues",
      llvm::cl::desc("Copy an MMA accumulator's TMA store out in column "
                     "chunks when its whole-tile stage would cost the loop "
                     "a pipeline stage"),
      llvm::cl::init(true)};
  Option<std::string> targetName{
      *this, "target",
      llvm::cl::desc("Built-in target model whose shared memory bounds the "
                     "stages (kcc-opt)"),
      llvm::cl::init("sm_90a")};

  LogicalResult initialize(MLIRContext *ctx) override {
    return kcc::resolvePassTarget(ctx, "kcc-pipeline-tma-loads", targetName,
                                  target);
  }

  const kcc::TargetModel *target = nullptr;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func);
  void pipelineLoop(func::FuncOp func, scf::ForOp loop,
                    ArrayRef<std::pair<kcc::LoadTileOp, Value>> loads);
};

/// How a pipelined loop is warp-specialized: where the CTA splits, what the
/// producer recomputes, and the roles' sizes.
struct RolePlan {
  Operation *splitAfter = nullptr;        // last op before kcc.warp_specialize
  SmallVector<Operation *> producerSlice; // scalar ops the producer clones
  // A persistent kernel: the tile loop around the pipelined loop, and the
  // scalar ops of its body the producer clones into its own tile loop.
  scf::ForOp tiles;
  SmallVector<Operation *> tileSlice;
  unsigned consumerWarpgroups = 0;
  unsigned producerRegs = 0, consumerRegs = 0;
};

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

/// Why `loop` (pipelined with `lag` 1 for wgmma) cannot be split into a
/// producer warpgroup and consumer warpgroups; empty when `plan` is filled.
std::string planRoles(func::FuncOp func, scf::ForOp loop,
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

/// The iterations of a loop from `lb` to `ub` by the positive `step`:
/// max(0, ceil((ub - lb) / step)), in i32.
Value tripCount(OpBuilder &b, Location loc, Value lb, Value ub, int64_t step) {
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value n = arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, constI32(b, loc, step - 1)),
      constI32(b, loc, step));
  return arith::MaxSIOp::create(b, loc, n, constI32(b, loc, 0));
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
void buildRoles(
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
      roles.consumerRegs);
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

void PipelineTmaLoads::runOnKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  llvm::MapVector<Operation *, SmallVector<std::pair<kcc::LoadTileOp, Value>>>
      byLoop;
  func.walk([&](kcc::LoadTileOp load) {
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    if (!loop || load->hasAttr(kcc::KccDialect::kTmaRefusedAttr))
      return;
    auto refuse = [&](const Twine &why) {
      load->setAttr(kcc::KccDialect::kTmaRefusedAttr,
                    StringAttr::get(ctx, why));
    };
    std::string why;
    Value map = kcc::tensorMapFor(load, why);
    if (!map)
      return refuse(why);
    byLoop[loop].push_back({load, map});
  });
  for (auto &[op, loads] : byLoop)
    pipelineLoop(func, cast<scf::ForOp>(op), loads);
}

void PipelineTmaLoads::pipelineLoop(
    func::FuncOp func, scf::ForOp loop,
    ArrayRef<std::pair<kcc::LoadTileOp, Value>> loads) {
  MLIRContext *ctx = func.getContext();
  auto refuseAll = [&](const Twine &why) {
    for (auto [load, map] : loads)
      load->setAttr(kcc::KccDialect::kTmaRefusedAttr,
                    StringAttr::get(ctx, why));
  };
  if (kcc::enclosingLoop(loop))
    return refuseAll("the loop is nested in another loop; the TMA pipeline "
                     "handles outermost loops only (its barrier phases do not "
                     "restart)");
  // A persistent kernel's loop runs once per tile: its stage counter is
  // carried by the tile loop, which must run it on every tile.
  Operation *tiles = kcc::persistentTileLoopOf(loop);
  if (tiles && loop->getParentOp() != tiles)
    return refuseAll("the loop is inside a branch of the persistent kernel's "
                     "tile loop; the TMA pipeline carries its stage counter "
                     "from tile to tile only for loops directly in the tile "
                     "loop's body");
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return refuseAll("the loop's step is not a positive constant, which the "
                     "TMA pipeline needs");
  if (!fromArguments(loop.getLowerBound(), func) ||
      !fromArguments(loop.getUpperBound(), func))
    return refuseAll("the loop's bounds are not computed from constants and "
                     "the kernel's integer arguments, so the TMA pipeline's "
                     "protocol could not be proven");
  // Coordinates: each must be recomputable for a later iteration.
  SmallVector<llvm::SetVector<Operation *>> slices(loads.size());
  for (auto [i, entry] : llvm::enumerate(loads))
    for (Value c : kcc::LoadTileOp(entry.first).getCoords())
      if (!coordinateSlice(c, loop, slices[i]))
        return refuseAll("the tile's block coordinates depend on values the "
                         "TMA pipeline cannot recompute for a later "
                         "iteration (only the induction variable, "
                         "loop-invariant values and arith ops)");
  // Depth: `stages` (fewer when they do not fit, below), one stage holding
  // the tile of every load.
  // Loads feeding wgmma dots: the dot of iteration i keeps reading its stage
  // while iteration i+1 issues (kcc-materialize-warpgroup-mma makes it
  // asynchronous, one group in flight), so a stage is refilled one iteration
  // later than its use ("lag" 1) and the pipeline gets one more stage.
  int64_t lag = llvm::any_of(loads, [](auto &entry) {
    return entry.first->hasAttr(kcc::KccDialect::kMmaOperandAttr);
  });
  int64_t depth = stages + lag;
  // Warp specialization (loops feeding wgmma): a producer warpgroup issues
  // the copies and waits on per-stage "empty" barriers the consumers arrive
  // on, so no barrier across the CTA is left in the loop.
  RolePlan roles;
  bool specialize = false;
  if (lag && warpSpecialize) {
    SmallVector<Value> needed{loop.getLowerBound(), loop.getUpperBound(),
                              loop.getStep()};
    auto outside = [&](Value v) {
      return !loop->isAncestor(v.getParentBlock()->getParentOp()) &&
             v.getParentBlock() != loop.getBody();
    };
    for (auto [i, entry] : llvm::enumerate(loads)) {
      for (Operation *op : slices[i])
        for (Value o : op->getOperands())
          if (outside(o))
            needed.push_back(o);
      for (Value c : kcc::LoadTileOp(entry.first).getCoords())
        if (outside(c))
          needed.push_back(c);
    }
    // Stages read by threads (smem_load) would need a barrier of all the
    // consumers before each release: the single role has one already.
    std::string why;
    for (auto [load, map] : loads)
      if (!load->hasAttr(kcc::KccDialect::kMmaOperandAttr))
        why = "a tile of the loop is read by threads, not only by wgmma: "
              "releasing its stage would need a barrier of all consumers, "
              "which the single-role pipeline has already";
    if (why.empty())
      why = planRoles(func, loop, needed, *target, roles);
    specialize = why.empty();
    if (!specialize)
      loop->setAttr(kcc::KccDialect::kWarpSpecializeRefusedAttr,
                    StringAttr::get(ctx, why));
  }
  // The stages must fit the target's shared memory per block, less what the
  // kernel already holds and the scratch its relayouts and reductions may
  // need (kcc-convert-to-llvm checks the exact total).
  int64_t limit = target->sharedMemory.bytesPerBlock;
  int64_t others = asyncBufferBytes(func),
          reserve = scratchReserve(func, [&](kcc::TransOp trans) {
            // A wgmma operand's trans: the tensor cores read the stage
            // transposed (the instruction's transpose flag).
            auto load = trans.getSrc().getDefiningOp<kcc::LoadTileOp>();
            return load && load->hasAttr(kcc::KccDialect::kMmaOperandAttr) &&
                   kcc::mmaStageRefusal(load, *target).empty();
          });
  // A dot of this loop that the target's staged tensor-core instruction
  // refuses (an accumulator tcgen05 cannot keep in TMEM, say) runs on
  // mma.sync, whose operands pass from the stages through registers into
  // the scratch.
  loop.walk([&](kcc::DotOp dot) {
    auto refused = dot->getAttrOfType<DictionaryAttr>(
        kcc::KccDialect::kTensorCoreRefusedAttr);
    if (refused && refused.get(target->name))
      reserve = std::max(reserve, registerOperandScratch(dot));
  });
  // The lowering places the scratch first, then the most aligned buffers
  // (kcc::nvidia::prepareAsyncBuffers): each is padded to its alignment.
  // kcc-choose-shared-layouts may pad the scratch's rows against bank
  // conflicts (an eighth more is plenty).
  int64_t budget = limit - others - llvm::alignTo(reserve + reserve / 8, 1024);
  // A depth's bytes: its stages and mbarriers.
  auto cost = [&](int64_t d) {
    int64_t bytes = specialize ? 8 * d : 0;
    for (auto [load, map] : loads) {
      auto type = cast<kcc::TensorMapType>(map.getType());
      bytes +=
          llvm::alignTo(d * kcc::tmaPartsOf(load, type) * type.getBoxBytes(),
                        kcc::stageAlignment(type.getSwizzle())) +
          8 * d;
    }
    return bytes;
  };
  auto deepest = [&](int64_t bytes) -> int64_t {
    int64_t d = depth;
    while (d > 2 && cost(d) > bytes)
      --d;
    return cost(d) <= bytes ? d : 0;
  };
  // A whole-tile epilogue stage that costs this loop a pipeline stage: the
  // tile goes out in column chunks instead (EpilogueChunks.h).
  if (chunkEpilogues && cost(depth) > budget) {
    SmallVector<kcc::ChunkableEpilogue> chunkable =
        kcc::chunkableEpilogues(func, *target);
    int64_t saved = 0;
    for (const kcc::ChunkableEpilogue &e : chunkable)
      saved += e.savedBytes;
    if (saved && deepest(budget + saved) > deepest(budget)) {
      for (const kcc::ChunkableEpilogue &e : chunkable)
        kcc::chunkEpilogue(e);
      others -= saved;
      budget += saved;
    }
  }
  depth = std::max<int64_t>(deepest(budget), 2);
  if (cost(depth) > budget)
    return refuseAll(
        Twine(depth) + " pipeline stages of this loop's tiles (" +
        Twine(cost(depth)) + " bytes with their mbarriers) do not fit the " +
        Twine(std::max<int64_t>(budget, 0)) +
        " bytes of shared memory left for them on " + target->name + " (" +
        Twine(limit) + " per block, less " + Twine(others) +
        " for the kernel's other TMA buffers and " + Twine(reserve) +
        " kept for relayouts and reductions)");

  Location loc = loop.getLoc();
  Block &entry = func.getBody().front();
  OpBuilder eb = OpBuilder::atBlockBegin(&entry);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  // The stage counter: iteration it of the loop is iteration base + it of
  // the pipeline, base being the iterations of the tiles before (carried
  // by the tile loop; 0 outside a persistent kernel). Stages and phases
  // follow the counter, so a tile's first copies go where the previous
  // tile's left off.
  Value base, trips;
  if (tiles) {
    IRRewriter rewriter(ctx);
    auto tileLoop = cast<scf::ForOp>(tiles);
    OpBuilder zb(tileLoop);
    OpBuilder tb2(ctx);
    tb2.setInsertionPointAfter(loop);
    trips = tripCount(tb2, loc, lb, ub, *step);
    FailureOr<LoopLikeOpInterface> grown = tileLoop.replaceWithAdditionalYields(
        rewriter, ValueRange{constI32(zb, loc, 0)},
        /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &yb, Location yl, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>{
              arith::AddIOp::create(yb, yl, args.front(), trips)};
        });
    if (failed(grown))
      return refuseAll("internal error: the tile loop could not carry the "
                       "pipeline's stage counter");
    tiles = grown->getOperation();
    base = cast<scf::ForOp>(tiles).getRegionIterArgs().back();
    if (specialize)
      roles.tiles = cast<scf::ForOp>(tiles);
  }
  // The pipeline's iteration of loop iteration `it`. Counters are never
  // negative: stages and phases use unsigned division, which ptxas turns
  // into shifts and masks even for a counter carried across tiles, whose
  // sign it cannot prove.
  auto counted = [&](OpBuilder &b, Value it) {
    return base ? arith::AddIOp::create(b, loc, base, it).getResult() : it;
  };
  struct Pipe {
    kcc::LoadTileOp load;
    Value map, buffer, bars;
    int64_t bytes, parts;
    SmallVector<Value> coords;  // the load's, kept after it is replaced
    SmallVector<int64_t> shape;
    Location loc;
  };
  SmallVector<Pipe> pipes;
  for (auto [load, map] : loads) {
    auto mapType = cast<kcc::TensorMapType>(map.getType());
    int64_t parts = kcc::tmaPartsOf(load, mapType);
    Pipe p{load,
           map,
           Value(),
           Value(),
           parts * mapType.getBoxBytes(),
           parts,
           SmallVector<Value>(load.getCoords()),
           kcc::withBatchDims(load, load.getType().getShape()),
           load.getLoc()};
    p.buffer = kcc::SmemAllocOp::create(
        eb, loc,
        kcc::SmemType::get(ctx, load.getType().getShape(),
                           mapType.getElementType(), depth,
                           mapType.getSwizzle(), /*pad=*/0));
    p.bars = kcc::MBarrierAllocOp::create(eb, loc,
                                          kcc::MBarrierType::get(ctx, depth));
    for (int64_t s = 0; s < depth; ++s)
      kcc::MBarrierInitOp::create(eb, loc, p.bars, constI32(eb, loc, s), 1);
    pipes.push_back(p);
  }
  // The consumers release a stage to the producer: one arrival per
  // consumer warpgroup once its wgmma group reading the stage retired.
  Value empty;
  if (specialize) {
    empty = kcc::MBarrierAllocOp::create(eb, loc,
                                         kcc::MBarrierType::get(ctx, depth));
    for (int64_t s = 0; s < depth; ++s)
      kcc::MBarrierInitOp::create(eb, loc, empty, constI32(eb, loc, s),
                                  roles.consumerWarpgroups);
  }
  kcc::FenceMBarrierInitOp::create(eb, loc);

  // Copy of iteration `k` (a value of the induction variable's type) into
  // stage `s`, built with `b`; `outer` maps loop-invariant values (the
  // producer's recomputed copies).
  auto issue = [&](OpBuilder &b, unsigned i, Value k, Value s,
                   const IRMapping *outer = nullptr) {
    Pipe &p = pipes[i];
    Location loc = p.loc;
    IRMapping mapping = outer ? *outer : IRMapping();
    mapping.map(loop.getInductionVar(), k);
    for (Operation *op : slices[i])
      b.clone(*op, mapping);
    SmallVector<Value> coords;
    for (auto [c, size] : llvm::zip(p.coords, p.shape))
      coords.push_back(arith::MulIOp::create(b, loc, mapping.lookupOrDefault(c),
                                             constI32(b, loc, size)));
    kcc::MBarrierArriveExpectTxOp::create(b, loc, p.bars, s, p.bytes);
    auto copy = kcc::TmaLoadOp::create(b, loc, p.map, coords, p.buffer, s,
                                       p.bars, s, p.parts);
    copy->setAttr(kcc::KccDialect::kTileAccessAttr,
                  StringAttr::get(ctx, "TMA box, " + Twine(depth) +
                                           "-stage pipeline (" +
                                           Twine(p.bytes) +
                                           " bytes per stage; expect_tx "
                                           "counts the full box)"));
  };

  // The copies: a producer role issuing every iteration's, or a prologue
  // issuing the first `depth` here and refills at the end of the body.
  if (specialize)
    buildRoles(func, loop, roles, depth, *step, empty,
               [&](OpBuilder &b, Value k, Value s, const IRMapping &m) {
                 for (unsigned i = 0; i < pipes.size(); ++i)
                   issue(b, i, k, s, &m);
               });
  OpBuilder pb(loop);
  // Once per tile, the prologue refills stages the previous tile read:
  // every thread must be done with them.
  if (tiles && !specialize)
    kcc::CtaBarrierOp::create(pb, loc);
  for (int64_t s = 0; s < depth && !specialize; ++s) {
    Value k = arith::AddIOp::create(pb, loc, lb,
                                    constI32(pb, loc, s * *step));
    Value go = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::slt, k, ub);
    auto guard = scf::IfOp::create(pb, loc, go, /*withElseRegion=*/false);
    OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
    Value into =
        base
            ? arith::RemUIOp::create(gb, loc, counted(gb, constI32(gb, loc, s)),
                                     constI32(gb, loc, depth))
                  .getResult()
            : constI32(gb, loc, s);
    for (unsigned i = 0; i < pipes.size(); ++i)
      issue(gb, i, k, into);
  }

  // Body: wait and read at each load; release and refill at the end.
  OpBuilder bb = OpBuilder::atBlockBegin(loop.getBody());
  Value iv = loop.getInductionVar();
  Value it =
      arith::DivUIOp::create(bb, loc, arith::SubIOp::create(bb, loc, iv, lb),
                             constI32(bb, loc, *step));
  Value at = counted(bb, it);
  Value stage = arith::RemUIOp::create(bb, loc, at, constI32(bb, loc, depth));
  Value parity = arith::AndIOp::create(
      bb, loc, arith::DivUIOp::create(bb, loc, at, constI32(bb, loc, depth)),
      constI32(bb, loc, 1));
  for (Pipe &p : pipes) {
    OpBuilder lb2(p.load);
    kcc::MBarrierWaitOp::create(lb2, p.load.getLoc(), p.bars, stage, parity);
    auto read = kcc::SmemLoadOp::create(lb2, p.load.getLoc(),
                                        p.load.getType(), p.buffer, stage);
    p.load.replaceAllUsesWith(read.getResult());
    p.load.erase();
  }
  OpBuilder tb(loop.getBody()->getTerminator());
  if (specialize) {
    // Release the stage read `lag` iterations ago: each warpgroup's
    // warpgroup_mma above retired its group (pending = 1).
    loop->setAttr(kcc::KccDialect::kMmaOverlapAttr, UnitAttr::get(ctx));
    Value done = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sge, it,
                                       constI32(tb, loc, lag));
    auto release = scf::IfOp::create(tb, loc, done, /*withElseRegion=*/false);
    OpBuilder rb = OpBuilder::atBlockBegin(release.thenBlock());
    Value old = arith::RemUIOp::create(
        rb, loc,
        arith::AddIOp::create(rb, loc, at, constI32(rb, loc, depth - lag)),
        constI32(rb, loc, depth));
    kcc::MBarrierArriveOp::create(rb, loc, empty, old,
                                  /*per_warpgroup=*/true);
    // A persistent kernel's next tile refills the stage of this tile's last
    // iteration too: it is released behind the loop, once the wait that
    // kcc-materialize-warpgroup-mma puts there retired its group.
    if (tiles) {
      OpBuilder ab(ctx);
      ab.setInsertionPointAfter(trips.getDefiningOp());
      Value ran = arith::CmpIOp::create(ab, loc, arith::CmpIPredicate::sgt,
                                        trips, constI32(ab, loc, 0));
      auto last = scf::IfOp::create(ab, loc, ran, /*withElseRegion=*/false);
      OpBuilder lb3 = OpBuilder::atBlockBegin(last.thenBlock());
      Value stageOfLast = arith::RemUIOp::create(
          lb3, loc,
          arith::AddIOp::create(
              lb3, loc, base,
              arith::SubIOp::create(lb3, loc, trips, constI32(lb3, loc, 1))),
          constI32(lb3, loc, depth));
      kcc::MBarrierArriveOp::create(lb3, loc, empty, stageOfLast,
                                    /*per_warpgroup=*/true);
    }
    return;
  }
  // Release and refill: the stage read `lag` iterations ago gets the
  // iteration `depth` after it.
  kcc::CtaBarrierOp::create(tb, loc);
  Value next = arith::AddIOp::create(
      tb, loc, iv, constI32(tb, loc, (depth - lag) * *step));
  Value more =
      arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::slt, next, ub);
  Value refillStage = stage;
  if (lag) {
    loop->setAttr(kcc::KccDialect::kMmaOverlapAttr, UnitAttr::get(ctx));
    more = arith::AndIOp::create(
        tb, loc, more,
        arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sge, it,
                              constI32(tb, loc, lag)));
    refillStage = arith::RemUIOp::create(
        tb, loc,
        arith::AddIOp::create(tb, loc, at, constI32(tb, loc, depth - lag)),
        constI32(tb, loc, depth));
  }
  auto refill = scf::IfOp::create(tb, loc, more, /*withElseRegion=*/false);
  OpBuilder rb = OpBuilder::atBlockBegin(refill.thenBlock());
  for (unsigned i = 0; i < pipes.size(); ++i)
    issue(rb, i, next, refillStage);
}

} // namespace

std::unique_ptr<Pass> kcc::createPipelineTmaLoads(const TargetModel &target,
                                                  unsigned stages,
                                                  bool warpSpecialize,
                                                  bool chunkEpilogues) {
  return std::make_unique<PipelineTmaLoads>(target, stages, warpSpecialize,
                                            chunkEpilogues);
}

void kcc::registerPipelineTmaLoadsPass() {
  PassRegistration<PipelineTmaLoads>();
}
