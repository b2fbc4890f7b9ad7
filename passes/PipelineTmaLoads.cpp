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
#include "passes/MmaOperands.h"
#include "passes/Passes.h"
#include "passes/TensorMaps.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace {

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

/// Whether `v` is computed by pure arith ops from constants and the kernel's
/// arguments only (what the async verifier can evaluate).
bool fromArguments(Value v, func::FuncOp func, unsigned depth = 0) {
  if (depth > 32)
    return false;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &func.getBody().front();
  Operation *def = v.getDefiningOp();
  if (!def || def->getDialect()->getNamespace() != "arith" ||
      def->getNumRegions() != 0)
    return false;
  return llvm::all_of(def->getOperands(), [&](Value o) {
    return fromArguments(o, func, depth + 1);
  });
}

/// The ops of `loop`'s body that compute `v` from the induction variable
/// and values defined outside the loop, in program order; false if `v`
/// depends on anything else (loads, iteration arguments, region ops).
bool coordinateSlice(Value v, scf::ForOp loop,
                     llvm::SetVector<Operation *> &slice) {
  if (v == loop.getInductionVar())
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return !loop->isAncestor(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (!loop->isAncestor(def))
    return true;
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      !(def->getDialect()->getNamespace() == "arith" ||
        isa<kcc::ProgramIdOp, kcc::NumProgramsOp>(def)))
    return false;
  for (Value o : def->getOperands())
    if (!coordinateSlice(o, loop, slice))
      return false;
  slice.insert(def);
  return true;
}

/// Shared memory `func` already has for async buffers (the stages of
/// materialized copies and of loops pipelined before, their mbarriers),
/// alignment included.
int64_t asyncBufferBytes(func::FuncOp func) {
  int64_t bytes = 0;
  func.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<kcc::SmemAllocOp>(op)) {
      kcc::SmemType t = alloc.getType();
      bytes += t.getStageBytes() * t.getStages() + (t.getSwizzle() ? 1024 : 128);
    } else if (auto bars = dyn_cast<kcc::MBarrierAllocOp>(op)) {
      bytes += 8 * int64_t(bars.getType().getCount());
    }
  });
  return bytes;
}

/// What the NVIDIA lowering's scratch buffer (relayouts and reductions, one
/// buffer reused by all) can need: the largest tile one of those ops moves
/// through shared memory, before the padding of kcc-choose-shared-layouts.
/// Layouts are not chosen yet, so every such op counts.
int64_t scratchReserve(func::FuncOp func, const kcc::TargetModel &target) {
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
  func.walk([&](Operation *op) {
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
      if (!kcc::epilogueStore(leaving))
        reserve = std::max(reserve, tileBytes(op->getResult(0).getType()));
      return;
    }
    if (!isa<kcc::ReduceOp, kcc::BroadcastOp, kcc::TransOp, kcc::ExpandDimsOp,
             kcc::ReshapeOp>(op))
      return;
    // Nor a wgmma operand's trans: the tensor cores read the stage
    // transposed (the instruction's transpose flag).
    if (auto load = op->getOperand(0).getDefiningOp<kcc::LoadTileOp>();
        load && isa<kcc::TransOp>(op) &&
        load->hasAttr(kcc::KccDialect::kMmaOperandAttr) &&
        kcc::mmaStageRefusal(load, target).empty())
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

struct PipelineTmaLoads
    : PassWrapper<PipelineTmaLoads, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelineTmaLoads)

  PipelineTmaLoads() = default;
  PipelineTmaLoads(const PipelineTmaLoads &other) : PassWrapper(other) {
    target = other.target;
  }
  PipelineTmaLoads(const kcc::TargetModel &model, unsigned depth)
      : target(&model) {
    stages = depth;
  }

  StringRef getArgument() const override { return "kcc-pipeline-tma-loads"; }
  StringRef getDescription() const override {
    return "Software-pipeline the TMA loads of scf.for bodies over N shared "
           "stages";
  }

  Option<unsigned> stages{*this, "stages",
                          llvm::cl::desc("Pipeline depth (shared stages)"),
                          llvm::cl::init(3)};
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
  if (loop->getParentOfType<LoopLikeOpInterface>())
    return refuseAll("the loop is nested in another loop; the TMA pipeline "
                     "handles outermost loops only (its barrier phases do not "
                     "restart)");
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
  int64_t perStage = 0;
  for (auto [load, map] : loads)
    perStage += kcc::tmaPartsOf(load, cast<kcc::TensorMapType>(map.getType())) *
                cast<kcc::TensorMapType>(map.getType()).getBoxBytes();
  // Loads feeding wgmma dots: the dot of iteration i keeps reading its stage
  // while iteration i+1 issues (kcc-materialize-warpgroup-mma makes it
  // asynchronous, one group in flight), so a stage is refilled one iteration
  // later than its use ("lag" 1) and the pipeline gets one more stage.
  int64_t lag = llvm::any_of(loads, [](auto &entry) {
    return entry.first->hasAttr(kcc::KccDialect::kMmaOperandAttr);
  });
  int64_t depth = stages + lag;
  // The stages must fit the target's shared memory per block, less what the
  // kernel already holds and the scratch its relayouts and reductions may
  // need (kcc-convert-to-llvm checks the exact total).
  int64_t limit = target->sharedMemory.bytesPerBlock;
  int64_t others = asyncBufferBytes(func),
          reserve = scratchReserve(func, *target);
  int64_t budget = limit - others - reserve;
  // A depth's bytes: its stages and mbarriers, and each buffer's alignment.
  auto cost = [&](int64_t d) {
    int64_t bytes = d * perStage;
    for (auto [load, map] : loads)
      bytes +=
          8 * d + (cast<kcc::TensorMapType>(map.getType()).getSwizzle() ? 1024
                                                                         : 128);
    return bytes;
  };
  while (depth > 2 && cost(depth) > budget)
    --depth;
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
    Pipe p{load, map, Value(), Value(), parts * mapType.getBoxBytes(), parts,
           SmallVector<Value>(load.getCoords()),
           SmallVector<int64_t>(load.getType().getShape()), load.getLoc()};
    p.buffer = kcc::SmemAllocOp::create(
        eb, loc,
        kcc::SmemType::get(ctx, load.getType().getShape(),
                           mapType.getElementType(), depth,
                           mapType.getSwizzle()));
    p.bars = kcc::MBarrierAllocOp::create(eb, loc,
                                          kcc::MBarrierType::get(ctx, depth));
    for (int64_t s = 0; s < depth; ++s)
      kcc::MBarrierInitOp::create(eb, loc, p.bars, constI32(eb, loc, s), 1);
    pipes.push_back(p);
  }
  kcc::FenceMBarrierInitOp::create(eb, loc);

  // Copy of iteration `k` (a value of the induction variable's type) into
  // stage `s`, built with `b`.
  auto issue = [&](OpBuilder &b, unsigned i, Value k, Value s) {
    Pipe &p = pipes[i];
    Location loc = p.loc;
    IRMapping mapping;
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

  // Prologue.
  OpBuilder pb(loop);
  for (int64_t s = 0; s < depth; ++s) {
    Value k = arith::AddIOp::create(pb, loc, lb,
                                    constI32(pb, loc, s * *step));
    Value go = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::slt, k, ub);
    auto guard = scf::IfOp::create(pb, loc, go, /*withElseRegion=*/false);
    OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
    for (unsigned i = 0; i < pipes.size(); ++i)
      issue(gb, i, k, constI32(gb, loc, s));
  }

  // Body: wait and read at each load; release and refill at the end.
  OpBuilder bb = OpBuilder::atBlockBegin(loop.getBody());
  Value iv = loop.getInductionVar();
  Value it = arith::DivSIOp::create(bb, loc,
                                    arith::SubIOp::create(bb, loc, iv, lb),
                                    constI32(bb, loc, *step));
  Value stage = arith::RemSIOp::create(bb, loc, it, constI32(bb, loc, depth));
  Value parity = arith::AndIOp::create(
      bb, loc, arith::DivSIOp::create(bb, loc, it, constI32(bb, loc, depth)),
      constI32(bb, loc, 1));
  for (Pipe &p : pipes) {
    OpBuilder lb2(p.load);
    kcc::MBarrierWaitOp::create(lb2, p.load.getLoc(), p.bars, stage, parity);
    auto read = kcc::SmemLoadOp::create(lb2, p.load.getLoc(),
                                        p.load.getType(), p.buffer, stage);
    p.load.replaceAllUsesWith(read.getResult());
    p.load.erase();
  }
  // Release and refill: the stage read `lag` iterations ago gets the
  // iteration `depth` after it.
  OpBuilder tb(loop.getBody()->getTerminator());
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
    refillStage = arith::RemSIOp::create(
        tb, loc,
        arith::AddIOp::create(tb, loc, it, constI32(tb, loc, depth - lag)),
        constI32(tb, loc, depth));
  }
  auto refill = scf::IfOp::create(tb, loc, more, /*withElseRegion=*/false);
  OpBuilder rb = OpBuilder::atBlockBegin(refill.thenBlock());
  for (unsigned i = 0; i < pipes.size(); ++i)
    issue(rb, i, next, refillStage);
}

} // namespace

std::unique_ptr<Pass> kcc::createPipelineTmaLoads(const TargetModel &target,
                                                  unsigned stages) {
  return std::make_unique<PipelineTmaLoads>(target, stages);
}

void kcc::registerPipelineTmaLoadsPass() {
  PassRegistration<PipelineTmaLoads>();
}
