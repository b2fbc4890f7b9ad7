//===- MaterializeTcgen05Mma.cpp - dots on Blackwell tensor cores ---------===//
//
// kcc-materialize-tcgen05-mma is kcc-materialize-warpgroup-mma for targets
// whose tensor-core instruction is tcgen05.mma (sm_100a). The operands are
// the same 128-byte swizzled TMA stages; the accumulator lives in tensor
// memory (TMEM) instead of registers, so the loop no longer carries it:
//
//   entry:   %tm = tmem_alloc relinquish : !kcc.tmem<C>
//                                               C = max(32, pow2ceil(N))
//            %done = mbarrier x stages, %ready = mbarrier x 1 (count 1)
//   loop:    it = (k - lb) / step
//            tcgen05_mma %A[s], %B[s], %tm, (it != 0)
//            tcgen05_commit %done[s]
//            if it >= 1: mbarrier_wait %done[(it - 1) % S]  -- stage it-1
//                        is no longer read, the pipeliner refills it next
//   after:   %acc = if lb < ub { tcgen05_commit %ready[0];
//                                mbarrier_wait %ready[0], 0;
//                                tmem_load %tm }
//                   else { zeros }
//   exit:    tmem_dealloc %tm
//
// In a persistent kernel's tile loop the accumulator stays in TMEM from
// tile to tile: `it` above is the pipeline counter (base + it, carried
// across tiles) wherever it picks a stage or a `done` phase, and every tile
// commits `ready` and waits for the phase of its ordinal before the
// `if lb < ub` (a commit with no mma pending arrives at once). The CTA
// barrier before each tile's prologue orders the tile's tmem_load before
// the next tile's mma (the lowering fences tcgen05 around it; the verifier
// checks the barrier is there).
//
// The wait one iteration late is wgmma's `wait_group 1` (the pipeliner
// refills a stage one iteration after its use, kcc.mma_overlap). The
// accumulator read from TMEM has the #kcc.tmem_acc layout (two warpgroups
// when N >= 128); the epilogue runs in it and is staged like wgmma's
// (kcc::stageAccumulatorEpilogues). MmaOperands.cpp only lets dots whose
// accumulator is a zero-initialized loop-carried value reach this pass.
// kcc-verify-async-protocol then checks the stage protocol and the TMEM
// life cycle.
//
//===----------------------------------------------------------------------===//

#include "passes/analysis/AccumulatorWeb.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/Passes.h"
#include "passes/analysis/PersistentTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

namespace kcc {
#define GEN_PASS_DEF_KCCMATERIALIZETCGEN05MMA
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;
using kcc::pipelining::constI32;

namespace {

struct MaterializeTcgen05Mma
    : kcc::impl::KccMaterializeTcgen05MmaBase<MaterializeTcgen05Mma> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        if (failed(runOnKernel(func)))
          return signalPassFailure();
  }
  LogicalResult runOnKernel(func::FuncOp func);
};

struct Site : kcc::StagedDot {
  scf::ForOp loop;
  unsigned iterArg = 0; // index of the accumulator among the loop's iter_args
};

/// The dot's loop and accumulator position, or an error: MmaOperands.cpp
/// admitted only such dots, so a failure here is a pipeline bug.
LogicalResult locate(Site &s) {
  s.loop = dyn_cast<scf::ForOp>(s.dot->getParentOp());
  auto arg = dyn_cast<BlockArgument>(s.dot.getC());
  if (!s.loop || !s.loop->hasAttr(kcc::KccDialect::kMmaOverlapAttr) || !arg ||
      arg.getOwner() != s.loop.getBody() || arg.getArgNumber() == 0 ||
      !arg.hasOneUse() || !s.dot->hasOneUse())
    return s.dot.emitError(
        "kcc: this dot's operands reached tcgen05 stages, but it is not the "
        "only reader and writer of an accumulator carried by a TMA-pipelined "
        "loop (kcc.mma_overlap); write acc = dot(load_tile(...), "
        "load_tile(...), acc) directly in the K loop");
  s.iterArg = arg.getArgNumber() - 1;
  return success();
}

/// The iteration number (k - lb) / step at the top of `loop`'s body.
Value iterationNumber(OpBuilder &b, Location loc, scf::ForOp loop) {
  return arith::DivSIOp::create(b, loc,
                                arith::SubIOp::create(b, loc,
                                                      loop.getInductionVar(),
                                                      loop.getLowerBound()),
                                loop.getStep());
}

LogicalResult MaterializeTcgen05Mma::runOnKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  SmallVector<Site> sites;
  for (kcc::StagedDot &d : kcc::collectStagedDots(func, /*registerA=*/false)) {
    Site s;
    static_cast<kcc::StagedDot &>(s) = d;
    if (failed(locate(s)))
      return failure();
    sites.push_back(s);
  }
  if (sites.empty())
    return success();

  unsigned warpgroups = 1, columns = 0;
  for (Site &s : sites) {
    int64_t n = s.dot.getType().getShape()[1];
    warpgroups = std::max(warpgroups, kcc::tmemAccumulatorWarpgroups(n));
    columns += std::max<uint64_t>(32, llvm::PowerOf2Ceil(n));
  }
  for (Site &s : sites)
    if (s.dot.getType().getShape()[1] % (32 * warpgroups))
      return s.dot.emitError("kcc: this dot's N is not a multiple of ")
             << 32 * warpgroups << ", the columns the kernel's " << warpgroups
             << " warpgroups read from TMEM per chunk; give the kernel's "
                "dots tiles with N >= 128 or all with N < 128";
  if (columns > 512)
    return func.emitError("kcc: the kernel's tcgen05 accumulators need ")
           << columns
           << " TMEM columns; TMEM has 512 per CTA (use smaller N tiles)";
  unsigned warps = 4 * warpgroups;
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kNumWarpsAttr))
    if (attr.getInt() != warps)
      return func.emitError("kcc: this kernel's tcgen05 accumulators are read "
                            "by ")
             << warps << " warps (" << warpgroups
             << " warpgroups), but it asks for " << attr.getInt();
  func->setAttr(kcc::KccDialect::kNumWarpsAttr,
                IntegerAttr::get(IntegerType::get(ctx, 32), warps));
  auto layout = kcc::TmemAccLayoutAttr::get(ctx, warpgroups);

  Block &entry = func.getBody().front();
  kcc::FenceMBarrierInitOp fence;
  for (Operation &op : entry)
    if (auto f = dyn_cast<kcc::FenceMBarrierInitOp>(op))
      fence = f;
  if (!fence)
    return func.emitError("kcc: internal error: a tcgen05 pipeline without "
                          "its mbarrier setup");

  SmallVector<Value> seeds;
  SmallVector<Value> allocs;
  for (Site &s : sites) {
    Location loc = s.dot.getLoc();
    auto accType = cast<RankedTensorType>(s.dot.getType());
    int64_t n = accType.getShape()[1];
    unsigned depth = s.a.getSrc().getType().getStages();
    // Setup: the allocation first (every thread, before any tcgen05 op),
    // the barriers beside the pipeline's, before their fence.
    OpBuilder eb = OpBuilder::atBlockBegin(&entry);
    Value tm = kcc::TmemAllocOp::create(
        eb, loc,
        kcc::TmemType::get(ctx, std::max<uint64_t>(32, llvm::PowerOf2Ceil(n))));
    allocs.push_back(tm);
    OpBuilder fb(fence);
    Value done = kcc::MBarrierAllocOp::create(
        fb, loc, kcc::MBarrierType::get(ctx, depth));
    for (unsigned i = 0; i < depth; ++i)
      kcc::MBarrierInitOp::create(fb, loc, done, constI32(fb, loc, i), 1);
    Value ready =
        kcc::MBarrierAllocOp::create(fb, loc, kcc::MBarrierType::get(ctx, 1));
    kcc::MBarrierInitOp::create(fb, loc, ready, constI32(fb, loc, 0), 1);

    // The loop body: issue, commit, retire the previous iteration's group.
    // Stages and the `done` phases follow the pipeline's counter (`at`,
    // the stage's numerator: it, or base + it in a persistent kernel's
    // tile loop, where the counter carries on from the previous tiles).
    auto stageOp = s.a.getStage().getDefiningOp<arith::RemUIOp>();
    if (!stageOp || getConstantIntValue(stageOp.getRhs()) != int64_t(depth))
      return s.dot.emitError("kcc: internal error: a tcgen05 operand stage "
                             "that is not the pipeline counter modulo its "
                             "depth");
    Value at = stageOp.getLhs();
    OpBuilder b(s.dot);
    Value it = iterationNumber(b, loc, s.loop);
    Value zero = constI32(b, loc, 0);
    Value accumulate =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, it, zero);
    kcc::Tcgen05MmaOp::create(b, loc, s.a.getSrc(), s.a.getStage(),
                              s.b.getSrc(), s.b.getStage(), tm, accumulate,
                              /*a_k_major=*/!s.aTransposed,
                              /*b_k_major=*/s.bTransposed);
    kcc::Tcgen05CommitOp::create(b, loc, done, s.a.getStage());
    Value after = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, it,
                                        constI32(b, loc, 1));
    auto retire = scf::IfOp::create(b, loc, after, /*withElseRegion=*/false);
    {
      OpBuilder rb = OpBuilder::atBlockBegin(retire.thenBlock());
      Value prev = arith::SubIOp::create(rb, loc, at, constI32(rb, loc, 1));
      Value stage =
          arith::RemUIOp::create(rb, loc, prev, constI32(rb, loc, depth));
      Value parity = arith::AndIOp::create(
          rb, loc,
          arith::DivUIOp::create(rb, loc, prev, constI32(rb, loc, depth)),
          constI32(rb, loc, 1));
      kcc::MBarrierWaitOp::create(rb, loc, done, stage, parity);
    }
    // The loop stops carrying the accumulator: its yield passes the
    // iter_arg through (canonicalization drops it).
    auto yield = cast<scf::YieldOp>(s.loop.getBody()->getTerminator());
    Value arg = s.loop.getRegionIterArgs()[s.iterArg];
    yield->setOperand(s.iterArg, arg);
    kcc::eraseDotAndOperandReads(s.dot);

    // After the loop: the accumulator, if the loop ran (else zeros).
    OpBuilder ab(s.loop->getBlock(), std::next(s.loop->getIterator()));
    Value runs = arith::CmpIOp::create(
        ab, loc,
        s.loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                : arith::CmpIPredicate::slt,
        s.loop.getLowerBound(), s.loop.getUpperBound());
    Value result = s.loop.getResult(s.iterArg);
    // The last commit, and the wait for it before the accumulator is read.
    // In a persistent kernel every tile commits and waits (a commit with no
    // mma pending arrives at once), so the phase is the tile's ordinal
    // whether or not the loop ran; otherwise only a loop that ran does.
    Operation *tiles = kcc::persistentTileLoopOf(s.loop.getOperation());
    auto commitAndWait = [&](OpBuilder &cb) {
      kcc::Tcgen05CommitOp::create(cb, loc, ready, constI32(cb, loc, 0));
      Value parity = tiles ? arith::AndIOp::create(
                                 cb, loc, kcc::persistentTileOrdinal(tiles),
                                 constI32(cb, loc, 1))
                                 .getResult()
                           : constI32(cb, loc, 0);
      kcc::MBarrierWaitOp::create(cb, loc, ready, constI32(cb, loc, 0), parity);
    };
    if (tiles)
      commitAndWait(ab);
    auto read = scf::IfOp::create(ab, loc, TypeRange{result.getType()}, runs,
                                  /*withElseRegion=*/true);
    auto laid = RankedTensorType::get(accType.getShape(),
                                      accType.getElementType(), layout);
    {
      OpBuilder tb = OpBuilder::atBlockBegin(read.thenBlock());
      if (!tiles)
        commitAndWait(tb);
      Value acc = kcc::TmemLoadOp::create(tb, loc, laid, tm);
      scf::YieldOp::create(tb, loc, acc);
      OpBuilder xb = OpBuilder::atBlockBegin(read.elseBlock());
      Value z = arith::ConstantOp::create(
          xb, loc, xb.getZeroAttr(accType.getElementType()));
      Value zeros = kcc::SplatOp::create(xb, loc, laid, z);
      scf::YieldOp::create(xb, loc, zeros);
    }
    result.replaceAllUsesWith(read.getResult(0));
    seeds.push_back(read.getResult(0));
  }
  // The last allocation gives up the CTA's permit to allocate (another CTA
  // on the SM may then allocate without waiting for this one's exit).
  allocs.back().getDefiningOp<kcc::TmemAllocOp>().setRelinquish(true);
  // Free every allocation where the kernel ends (its one return).
  OpBuilder xb(entry.getTerminator());
  for (Value tm : llvm::reverse(allocs))
    kcc::TmemDeallocOp::create(xb, tm.getLoc(), tm);

  auto isRead = [&](Operation *op) {
    return isa<scf::IfOp>(op) && llvm::is_contained(seeds, op->getResult(0));
  };
  if (failed(kcc::retypeAccumulatorWeb(
          func, seeds, layout, [](OpOperand &) { return false; }, isRead)))
    return failure();
  kcc::stageAccumulatorEpilogues(func, layout);
  return success();
}

} // namespace
