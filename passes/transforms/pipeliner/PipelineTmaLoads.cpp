//===- PipelineTmaLoads.cpp - multi-stage TMA pipelines for loop loads ----===//
//
// kcc-pipeline-tma-loads (Passes.td), over S stages:
//
//   entry:     S-stage buffer + S mbarriers per load, initialized once
//   prologue:  for p < S: if lb + p*step < ub: expect_tx + tma_load of
//              iteration p into stage p
//   body:      it = (k - lb) / step; wait stage it % S with parity
//              (it / S) & 1; smem_load; ...; at the end of the body every
//              thread has read the stage (cta_barrier), and if k + S*step <
//              ub the stage is refilled with iteration it + S
//
// The copy coordinates of a later iteration are the body's coordinate
// computation cloned with the induction variable advanced. A loop whose trip
// count is below S simply skips the prologue copies it does not need (the
// "pipeline deeper than its trip count" deadlock cannot happen). Bounds must
// come from constants and the kernel's integer arguments so that
// kcc-verify-async-protocol can prove the protocol.
//
//===----------------------------------------------------------------------===//

#include "ir/TargetLookup.h"
#include "ir/TileCoords.h"
#include "passes/Passes.h"
#include "passes/analysis/AccumulatorWeb.h"
#include "passes/analysis/AxisInfo.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/analysis/PersistentTiles.h"
#include "passes/analysis/TensorMaps.h"
#include "passes/transforms/pipeliner/EpilogueChunks.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "passes/transforms/warp-spec/TileLoads.h"
#include "passes/transforms/warp-spec/WarpRoles.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace mlir;

using namespace kcc::pipelining;
using namespace kcc::warpspec;

namespace kcc {
#define GEN_PASS_DEF_KCCPIPELINETMALOADS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

struct PipelineTmaLoads : kcc::impl::KccPipelineTmaLoadsBase<PipelineTmaLoads> {
  using Base::Base;

  const kcc::TargetModel *target = nullptr;

  void runOnOperation() override {
    target = kcc::lookupTarget(getOperation(), targetName, getArgument(),
                               /*fallback=*/"sm_90a");
    if (!target)
      return signalPassFailure();
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
  // Bounds may read scalars from memory (a packed sequence's length from
  // its offsets): the verifier chooses representative values for them.
  if (!fromArguments(loop.getLowerBound(), func, /*scalarLoads=*/true) ||
      !fromArguments(loop.getUpperBound(), func, /*scalarLoads=*/true))
    return refuseAll("the loop's bounds are not computed from constants, "
                     "the kernel's integer arguments and scalars loaded from "
                     "memory, so the TMA pipeline's protocol could not be "
                     "proven");
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
  int64_t depth = stagesOf(func, stages) + lag;
  // A streaming loop (its tiles are read by threads, not tensor cores: a
  // reduction or GEMV walking its rows) has nothing to overlap but memory:
  // enough stages to keep `stream-bytes` in flight per CTA, which covers
  // HBM's latency even with one CTA per multiprocessor (a column
  // reduction's grid is its column blocks), at most 8. Only for stages of
  // at least 4 KiB: small stages come with small CTAs, which get their
  // parallelism from many resident CTAs, and deeper stages would evict
  // some (layernorm_tma's 1 KiB rows fell from 69% to 32% of copy
  // bandwidth on an H100 at 8 stages).
  constexpr int64_t kMinStreamStageBytes = 4096;
  // A kernel's stages(S) is the user's depth, not a floor.
  if (!lag && streamBytes &&
      !func->hasAttr(kcc::KccDialect::kPipelineStagesAttr)) {
    int64_t stageBytes = 0;
    for (auto [load, map] : loads) {
      auto type = cast<kcc::TensorMapType>(map.getType());
      stageBytes += kcc::tmaPartsOf(load, type) * type.getBoxBytes();
    }
    if (stageBytes >= kMinStreamStageBytes)
      depth = std::clamp<int64_t>(
          llvm::divideCeil(int64_t(streamBytes), stageBytes), depth,
          std::max<int64_t>(depth, 8));
  }
  // Warp specialization (loops feeding wgmma): a producer warpgroup issues
  // the copies and waits on per-stage "empty" barriers the consumers arrive
  // on, so no barrier across the CTA is left in the loop.
  RolePlan roles;
  bool specialize = false;
  // A persistent kernel's once-per-tile loads (attention's query block),
  // issued by the producer a tile ahead where they can be (TileLoads.h).
  SmallVector<TileLoad> tileLoads;
  int64_t tileLoadBytes = 0;
  std::string tileLoadsWhy;
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
    // Stages read by threads (smem_load; a GEMM's block scales) are
    // released like the products' operands, an iteration after their read,
    // behind a barrier of the consumers and a proxy fence (below).
    std::string why;
    SmallVector<Value> tileNeeded;
    if (why.empty() && tiles && prefetchTileLoads)
      tileLoadsWhy = planTileLoads(cast<scf::ForOp>(tiles), loop, tileLoads,
                                   tileNeeded, tileLoadBytes);
    if (why.empty() && !tileLoads.empty()) {
      SmallVector<Value> withTile(needed);
      withTile.append(tileNeeded);
      if (!planRoles(func, loop, withTile, *target, pingPong, roles).empty()) {
        tileLoads.clear();
        tileLoadsWhy = "the producer cannot recompute the copy's coordinates";
      } else if (roles.consumerGroups > 1) {
        tileLoads.clear();
        tileLoadsWhy = "with ping-pong each consumer group loads its own";
      }
    }
    if (why.empty() && tileLoads.empty())
      why = planRoles(func, loop, needed, *target, pingPong, roles);
    specialize = why.empty();
    if (!specialize)
      loop->setAttr(kcc::KccDialect::kWarpSpecializeRefusedAttr,
                    StringAttr::get(ctx, why));
  }
  // Warp-specialized, each load's stage goes back to the producer when the
  // dots reading it are done with it: with the iteration that read it (a
  // product whose result the iteration reads, attention's S = Q K^T), or
  // `lag` iterations later (a GEMM's accumulation, a register-A product the
  // next iteration may issue). Loads released alike share an empty barrier
  // per stage, so a K block is refilled while the previous V block is
  // still read.
  SmallVector<int64_t> releaseLags;
  for (auto [load, map] : loads)
    releaseLags.push_back(
        lag && (target->mma.instruction != "wgmma" ||
                !load->hasAttr(kcc::KccDialect::kMmaOperandAttr) ||
                kcc::readPastItsIteration(kcc::LoadTileOp(load), loop))
            ? lag
            : 0);
  // Whether threads read a stage (not only tensor cores): asked before the
  // loads are replaced by the stage reads below.
  bool threadRead = llvm::any_of(loads, [](auto &entry) {
    return !entry.first->hasAttr(kcc::KccDialect::kMmaOperandAttr);
  });
  SmallVector<int64_t> releases;
  for (int64_t l : {int64_t(0), lag})
    if (llvm::is_contained(releaseLags, l) && !llvm::is_contained(releases, l))
      releases.push_back(l);
  // The stages must fit the target's shared memory per block, less what the
  // kernel already holds and the scratch its relayouts and reductions may
  // need (kcc-allocate-shared-memory checks the exact total).
  int64_t limit = target->sharedMemory.bytesPerBlock;
  // With ping-pong each consumer group has its own copy of the kernel's
  // buffers and its own scratch.
  int64_t groups = specialize ? roles.consumerGroups : 1;
  int64_t others = groups * asyncBufferBytes(func),
          reserve = scratchReserve(
              func,
              [&](kcc::TransOp trans) {
                // A wgmma operand's trans: the tensor cores read the stage
                // transposed (the instruction's transpose flag).
                auto load = trans.getSrc().getDefiningOp<kcc::LoadTileOp>();
                return load &&
                       load->hasAttr(kcc::KccDialect::kMmaOperandAttr) &&
                       kcc::mmaStageRefusal(load, *target).empty();
              },
              target->mma.instruction == "wgmma" ? kcc::predictRowWiseWeb(func)
                                                 : llvm::DenseSet<Value>{});
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
  // The lowering places the most aligned buffers first, each padded to its
  // alignment, then the scratch at a 128-byte boundary
  // (kcc-allocate-shared-memory). kcc-choose-shared-layouts may pad the
  // scratch's rows against bank conflicts (an eighth more is plenty).
  int64_t budget = limit - others -
                   groups * llvm::alignTo(reserve + reserve / 8, 128) -
                   (reserve ? 128 : 0);
  // A depth's bytes: its stages and mbarriers.
  auto cost = [&](int64_t d) {
    int64_t bytes =
        specialize ? 8 * d * int64_t(releases.size()) + 16 * (groups > 1) : 0;
    for (auto [load, map] : loads) {
      auto type = cast<kcc::TensorMapType>(map.getType());
      bytes +=
          llvm::alignTo(d * kcc::tmaPartsOf(load, type) * type.getBoxBytes(),
                        kcc::stageAlignment(type.getSwizzle())) +
          8 * d;
    }
    return bytes;
  };
  // Stages released at two lags (attention's K with its iteration, V an
  // iteration later) keep a power-of-two depth: on the H200 three stages
  // ran slower than both two and four (head_dim 64: 2-6 % below two, which
  // were 1-5 % below four; head_dim 128: 3-14 % below two), though the
  // stage and phase arithmetic differs by a few instructions only.
  bool powerOfTwo = specialize && releases.size() > 1;
  auto deepest = [&](int64_t bytes) -> int64_t {
    int64_t d = depth;
    while (d > 2 &&
           (cost(d) > bytes || (powerOfTwo && !llvm::isPowerOf2_64(d))))
      --d;
    return cost(d) <= bytes ? d : 0;
  };
  // A whole-tile epilogue stage that costs this loop a pipeline stage, or a
  // fused epilogue (one that computes more than a cast): the tile goes out
  // in column chunks instead (EpilogueChunks.h).
  if (chunkEpilogues) {
    SmallVector<kcc::ChunkableEpilogue> chunkable =
        kcc::chunkableEpilogues(func, *target);
    int64_t saved = 0, fusedSaved = 0;
    for (const kcc::ChunkableEpilogue &e : chunkable)
      (e.fused ? fusedSaved : saved) += e.savedBytes;
    bool buysStage =
        cost(depth) > budget && saved &&
        deepest(budget + fusedSaved + saved) > deepest(budget + fusedSaved);
    for (const kcc::ChunkableEpilogue &e : chunkable)
      if (e.fused || buysStage)
        kcc::chunkEpilogue(e);
    int64_t freed = groups * (fusedSaved + (buysStage ? saved : 0));
    others -= freed;
    budget += freed;
  }
  depth = std::max<int64_t>(deepest(budget), 2);
  // The stores that reused a prefetched stage need their own; not at the
  // price of a pipeline stage.
  if (!tileLoads.empty() && cost(depth) + tileLoadBytes > budget) {
    tileLoads.clear();
    tileLoadsWhy = "the epilogue's own stage (" +
                   std::to_string(tileLoadBytes) +
                   " bytes) does not fit beside the pipeline's stages";
  }
  if (cost(depth) > budget)
    return refuseAll(
        Twine(depth) + " pipeline stages of this loop's tiles (" +
        Twine(cost(depth)) + " bytes with their mbarriers) do not fit the " +
        Twine(std::max<int64_t>(budget, 0)) +
        " bytes of shared memory left for them on " + target->name + " (" +
        Twine(limit) + " per block, less " + Twine(others) +
        " for the kernel's other TMA buffers and " + Twine(reserve) +
        " kept for relayouts and reductions)");

  if (specialize && roles.consumerGroups > 1)
    (void)privateBuffers(func, roles.privateBuffers); // checked by planRoles
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
    SmallVector<int64_t> scale; // of each coordinate (ir/TileCoords.h)
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
           kcc::tileCoordScale(
               load, kcc::withBatchDims(load, load.getType().getShape())),
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
  // consumer warpgroup once its wgmma group reading the stage retired; one
  // barrier per release lag (releases[r]).
  SmallVector<Value> empties;
  for (size_t r = 0; specialize && r < releases.size(); ++r) {
    Value empty = kcc::MBarrierAllocOp::create(
        eb, loc, kcc::MBarrierType::get(ctx, depth));
    for (int64_t s = 0; s < depth; ++s)
      kcc::MBarrierInitOp::create(eb, loc, empty, constI32(eb, loc, s),
                                  roles.consumerWarpgroups);
    empties.push_back(empty);
  }
  // Ping-pong: the consumer groups' turns for their K loops.
  Value turn;
  if (specialize && roles.consumerGroups > 1) {
    turn =
        kcc::MBarrierAllocOp::create(eb, loc, kcc::MBarrierType::get(ctx, 2));
    for (int64_t g = 0; g < 2; ++g)
      kcc::MBarrierInitOp::create(eb, loc, turn, constI32(eb, loc, g),
                                  roles.consumerWarpgroups);
  }
  Value tileEmpty;
  if (!tileLoads.empty())
    tileEmpty = allocateTileLoads(eb, tileLoads, roles.consumerWarpgroups);
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
    for (auto [c, size] : llvm::zip(p.coords, p.scale))
      coords.push_back(arith::MulIOp::create(b, loc, mapping.lookupOrDefault(c),
                                             constI32(b, loc, size)));
    kcc::MBarrierArriveExpectTxOp::create(b, loc, p.bars, s, p.bytes);
    auto copy = kcc::TmaLoadOp::create(b, loc, p.map, coords, p.buffer, s,
                                       p.bars, s, p.parts,
                                       /*multicast=*/nullptr);
    std::string released;
    if (specialize)
      released = releaseLags[i]
                     ? "; the consumers release its stage an iteration "
                       "after the one that reads it (a product that reads "
                       "it may still be in flight)"
                     : "; the consumers release its stage with the "
                       "iteration that reads it (its product retires "
                       "there)";
    copy->setAttr(kcc::KccDialect::kTileAccessAttr,
                  StringAttr::get(ctx, "TMA box, " + Twine(depth) +
                                           "-stage pipeline (" +
                                           Twine(p.bytes) +
                                           " bytes per stage; expect_tx "
                                           "counts the full box)" +
                                           released));
  };

  // The copies: a producer role issuing every iteration's, or a prologue
  // issuing the first `depth` here and refills at the end of the body.
  if (specialize)
    buildRoles(
        func, loop, roles, depth, *step,
        [&](OpBuilder &b, Value k, Value it, Value s, const IRMapping &m) {
          for (auto [r, empty] : llvm::enumerate(empties)) {
            waitForRelease(b, loc, empty, it, s, depth);
            for (unsigned i = 0; i < pipes.size(); ++i)
              if (releaseLags[i] == releases[r])
                issue(b, i, k, s, &m);
          }
        },
        tileLoads.empty()
            ? nullptr
            : function_ref<void(OpBuilder &, Value, const IRMapping &)>(
                  [&](OpBuilder &b, Value ordinal, const IRMapping &m) {
                    issueTileLoads(b, loc, tileLoads, tileEmpty, ordinal, m);
                  }));
  if (turn)
    base = buildPingPong(func, cast<scf::ForOp>(tiles), loop, roles, base,
                         turn, *step);
  OpBuilder pb(loop);
  // Once per tile, the prologue refills stages the previous tile read:
  // every thread must be done with them.
  if (tiles && !specialize) {
    kcc::CtaBarrierOp::create(pb, loc);
    // Their reads were ordinary loads; the refills are async-proxy writes.
    kcc::FenceProxyAsyncOp::create(pb, loc);
  }
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
    auto fenceThreadReads = [](OpBuilder &b, Location l) {
      kcc::FenceProxyAsyncOp::create(b, l);
      kcc::CtaBarrierOp::create(b, l);
    };
    // Release the stages read `lag` iterations ago (each warpgroup's
    // warpgroup_mma above retired its group, pending = 1) and those read in
    // this iteration.
    loop->setAttr(kcc::KccDialect::kMmaOverlapAttr, UnitAttr::get(ctx));
    for (auto [r, empty] : llvm::enumerate(empties)) {
      int64_t late = releases[r];
      OpBuilder rb = tb;
      if (late) {
        Value done = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sge,
                                           it, constI32(tb, loc, late));
        auto release =
            scf::IfOp::create(tb, loc, done, /*withElseRegion=*/false);
        rb = OpBuilder::atBlockBegin(release.thenBlock());
      }
      Value old = late ? arith::RemUIOp::create(
                             rb, loc,
                             arith::AddIOp::create(
                                 rb, loc, at, constI32(rb, loc, depth - late)),
                             constI32(rb, loc, depth))
                             .getResult()
                       : stage;
      // Stages threads read: every consumer thread is done with the one
      // released here (it read it an iteration ago) once all pass a barrier,
      // and its reads, ordinary loads, are ordered before the producer's
      // refill (an async-proxy write) by a proxy fence.
      if (late && threadRead)
        fenceThreadReads(rb, loc);
      kcc::MBarrierArriveOp::create(rb, loc, empty, old,
                                    /*per_warpgroup=*/true);
      // A persistent kernel's next tile refills the stage of this tile's
      // last iteration too: one released late is released behind the
      // loop, once the wait that kcc-materialize-warpgroup-mma puts there
      // retired its group.
      if (tiles && late) {
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
        if (threadRead)
          fenceThreadReads(lb3, loc);
        kcc::MBarrierArriveOp::create(lb3, loc, empty, stageOfLast,
                                      /*per_warpgroup=*/true);
      }
    }
    if (!tileLoads.empty())
      releaseTileLoads(tileLoads, tileEmpty, trips.getDefiningOp());
    else if (tiles && prefetchTileLoads && !tileLoadsWhy.empty() &&
             tileLoadsWhy != kNoTileLoad)
      noteTileLoadsRefused(cast<scf::ForOp>(tiles), tileLoadsWhy);
    return;
  }
  // Release and refill: the stage read `lag` iterations ago gets the
  // iteration `depth` after it. Threads read the stages with ordinary
  // shared-memory loads and the TMA refill writes them through the async
  // proxy: after the barrier, a proxy fence orders those reads before the
  // refill (without it the copy may land under loads still in flight).
  kcc::CtaBarrierOp::create(tb, loc);
  kcc::FenceProxyAsyncOp::create(tb, loc);
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
