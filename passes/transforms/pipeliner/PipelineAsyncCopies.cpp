//===- PipelineAsyncCopies.cpp - cp.async pipelines for loop dot operands -===//
//
// kcc-pipeline-async-copies (Passes.td), scheduled with each thread's
// cp.async groups as the protocol:
//
//   entry:     an S-stage buffer per load, rows padded by 16 bytes (the 8
//              rows an ldmatrix reads then fall in distinct banks)
//   prologue:  for p < S - 1: if lb + p*step < ub: cp_async iteration p
//              into stage p; commit_group (an empty group when skipped)
//   body:      it = (k - lb) / step
//              wait_group S - 2     this thread's copies of iteration it
//              cta_barrier          ... and every other thread's landed;
//                                   every thread finished iteration it - 1,
//                                   so its stage (it + S - 1) % S is free
//              if k + (S-1)*step < ub: cp_async iteration it + S - 1 into
//              stage (it + S - 1) % S; commit_group
//              smem_load stage it % S (kcc-materialize-warp-mma turns the
//              dot of such reads into kcc.warp_mma: ldmatrix straight from
//              the stage)
//
// Group g holds iteration g's copies; at iteration it's wait, S - 1 + it
// groups are committed, so "at most S - 2 pending" retires groups 0..it.
// The groups a loop commits past its last iteration are empty, so nothing
// is in flight when it ends. A loop that runs more than once (nested in
// another loop or region) gets a cta_barrier before its prologue: the
// previous run's last reads of the stages come first. The tensor contract
// (16-byte aligned bases, row strides in multiples of 16 bytes) keeps every
// 16-byte chunk aligned; cp.async's src-size zero-fills what lies outside
// the tensor.
//
// Gathered tiles: a load through a tile of pointers (kcc.load) that a dot
// reads takes the same pipeline (kcc.cp_async_gather) when AxisInfo proves
// each 16-byte chunk of it contiguous and aligned and its mask uniform per
// chunk, and when the pointers and mask of a later iteration can be
// recomputed: from the induction variable, values from outside the loop,
// pure ops and loads of memory the kernel never writes. That is a K/V block
// whose rows come from pages named by a block table: the table's entries
// for iteration it + S - 1 are read when its copies are issued. Its loop's
// bounds may also read scalars from memory (a sequence's length); the
// verifier runs the protocol for representative values of them.
//
//===----------------------------------------------------------------------===//

#include "ir/TargetLookup.h"
#include "ir/TileCoords.h"
#include "passes/Passes.h"
#include "passes/analysis/AxisInfo.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace kcc::pipelining;

namespace kcc {
#define GEN_PASS_DEF_KCCPIPELINEASYNCCOPIES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Bytes of padding after each staged row (one 16-byte chunk).
constexpr unsigned kRowPad = 16;

/// Whether `v` is used only as an operand of dots (a or b), directly or
/// through trans; `any` is set when it has such a use at all.
bool onlyDotOperand(Value v, bool &any) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto tr = dyn_cast<kcc::TransOp>(user)) {
      if (!onlyDotOperand(tr.getResult(), any))
        return false;
      continue;
    }
    if (!isa<kcc::DotOp>(user) || use.getOperandNumber() == 2)
      return false;
    any = true;
  }
  return true;
}

/// Whether `v` is zero (a constant, or a splat of one: a masked load's
/// `other` of the language's `load(p, mask, 0.0)`).
bool isZero(Value v) {
  if (auto splat = v.getDefiningOp<kcc::SplatOp>())
    v = splat->getOperand(0);
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

struct PipelineAsyncCopies
    : kcc::impl::KccPipelineAsyncCopiesBase<PipelineAsyncCopies> {
  using Base::Base;

  void runOnOperation() override {
    target = kcc::lookupTarget(getOperation(), targetName, getArgument(),
                               /*fallback=*/"sm_80");
    if (!target)
      return signalPassFailure();
    if (!target->hasAsyncCopy("cp.async"))
      return;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func);
  void pipelineLoop(func::FuncOp func, scf::ForOp loop,
                    MutableArrayRef<Operation *> loads);

  const kcc::TargetModel *target = nullptr;
};

/// Adds why `op` is not a cp.async copy to its kcc.tma_refused reason.
void refuse(Operation *op, const Twine &why) {
  std::string text;
  if (auto old =
          op->getAttrOfType<StringAttr>(kcc::KccDialect::kTmaRefusedAttr))
    text = old.str() + "; ";
  text += ("not pipelined with cp.async: " + why).str();
  op->setAttr(kcc::KccDialect::kTmaRefusedAttr,
              StringAttr::get(op->getContext(), text));
}

/// Why the tile of pointers `load` reads cannot be copied in 16-byte
/// chunks by cp.async (empty: it can).
std::string gatherRefusal(const kcc::AxisInfoAnalysis &info, kcc::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  int64_t chunk = 16 / kcc::getElementBytes(type.getElementType());
  const kcc::AxisInfo &ptr = info.get(load.getPtr());
  if (ptr.getContiguity(1) % chunk != 0 || ptr.getDivisibility(1) % 16 != 0)
    return "its rows are not provably made of contiguous, 16-byte aligned "
           "chunks (AxisInfo: contiguity " +
           std::to_string(ptr.getContiguity(1)) + ", alignment " +
           std::to_string(ptr.getDivisibility(1)) + " bytes)";
  Value mask = load.getMask();
  if (mask && !isa<RankedTensorType>(mask.getType()))
    return "its mask is a scalar (broadcast it to the tile)";
  if (mask && info.get(mask).getConstancy(1) % chunk != 0)
    return "its mask may change inside a 16-byte chunk, and cp.async "
           "copies or zero-fills whole chunks";
  return "";
}

void PipelineAsyncCopies::runOnKernel(func::FuncOp func) {
  llvm::MapVector<Operation *, SmallVector<Operation *>> byLoop;
  std::optional<kcc::AxisInfoAnalysis> info;
  func.walk([&](kcc::LoadOp load) {
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    bool any = false;
    auto type = dyn_cast<RankedTensorType>(load.getType());
    if (!loop || !type || !onlyDotOperand(load.getResult(), any) || !any)
      return;
    Type elem = type.getElementType();
    if (type.getRank() != 2 ||
        !(elem.isF16() || elem.isBF16() || elem.isInteger(8)))
      return refuse(load, "cp.async stages the 2-D f16/bf16/i8 operands of "
                          "tensor-core dots");
    if (type.getDimSize(1) * kcc::getElementBytes(elem) % 16 != 0)
      return refuse(load,
                    "rows of " +
                        Twine(type.getDimSize(1) * kcc::getElementBytes(elem)) +
                        " bytes are not whole 16-byte chunks");
    if (Value other = load.getOther(); other && !isZero(other))
      return refuse(load, "masked-off elements read a value other than "
                          "zero, and cp.async fills with zeros");
    if (!info)
      info.emplace(func);
    if (std::string why = gatherRefusal(*info, load); !why.empty())
      return refuse(load, why);
    byLoop[loop].push_back(load);
  });
  func.walk([&](kcc::LoadTileOp load) {
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    bool any = false;
    if (!loop || !onlyDotOperand(load.getResult(), any) || !any)
      return;
    RankedTensorType type = load.getType();
    Type elem = type.getElementType();
    if (type.getRank() != 2 ||
        !(elem.isF16() || elem.isBF16() || elem.isInteger(8)))
      return refuse(load, "cp.async stages the 2-D f16/bf16/i8 operands of "
                          "tensor-core dots");
    int64_t rowBytes = type.getDimSize(1) * kcc::getElementBytes(elem);
    if (rowBytes % 16 != 0)
      return refuse(load, "rows of " + Twine(rowBytes) +
                              " bytes are not whole 16-byte chunks");
    if (kcc::hasElementCoords(load))
      return refuse(load, "a tile at element offsets (load_tile_at) may "
                          "start inside a 16-byte chunk, which cp.async "
                          "cannot copy");
    if (Value other = load.getOther(); other && !isZero(other))
      return refuse(load, "elements outside the tensor read a value other "
                          "than zero, and cp.async fills with zeros");
    byLoop[loop].push_back(load);
  });
  for (auto &[op, loads] : byLoop)
    pipelineLoop(func, cast<scf::ForOp>(op), loads);
}

/// The values a staged load's copy recomputes for a later iteration: a
/// tile's coordinates, or a gather's pointers and mask.
SmallVector<Value> copyOperands(Operation *load) {
  if (auto tile = dyn_cast<kcc::LoadTileOp>(load))
    return llvm::to_vector(tile.getCoords());
  auto gather = cast<kcc::LoadOp>(load);
  SmallVector<Value> v{gather.getPtr()};
  if (Value mask = gather.getMask())
    v.push_back(mask);
  return v;
}

void PipelineAsyncCopies::pipelineLoop(func::FuncOp func, scf::ForOp loop,
                                       MutableArrayRef<Operation *> loads) {
  MLIRContext *ctx = func.getContext();
  auto refuseAll = [&](const Twine &why) {
    for (Operation *load : loads)
      refuse(load, why);
  };
  bool gathers = llvm::any_of(loads, llvm::IsaPred<kcc::LoadOp>);
  if (func->hasAttr(kcc::KccDialect::kProducerWarpsAttr))
    return refuseAll("the kernel is warp-specialized for its TMA pipeline; "
                     "cp.async copies are issued by every thread");
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return refuseAll("the loop's step is not a positive constant");
  // A loop of gathers may read its bounds from memory (a sequence's
  // length): the verifier then chooses values for them.
  if (!fromArguments(loop.getLowerBound(), func, gathers) ||
      !fromArguments(loop.getUpperBound(), func, gathers))
    return refuseAll(Twine("the loop's bounds are not computed from "
                           "constants and the kernel's integer arguments") +
                     (gathers ? " or scalars loaded from memory" : "") +
                     ", so the pipeline's protocol could not be proven");
  SmallVector<llvm::SetVector<Operation *>> slices(loads.size());
  for (auto [i, load] : llvm::enumerate(loads))
    for (Value c : copyOperands(load)) {
      bool gather = isa<kcc::LoadOp>(load);
      if (gather ? !gatherSlice(c, loop, slices[i])
                 : !coordinateSlice(c, loop, slices[i]))
        return refuseAll(
            gather ? "the tile's pointers or mask depend on values the "
                     "pipeline cannot recompute for a later iteration (only "
                     "the induction variable, loop-invariant values, pure "
                     "ops and loads of memory the kernel never writes)"
                   : "the tile's block coordinates depend on values the "
                     "pipeline cannot recompute for a later iteration "
                     "(only the induction variable, loop-invariant values "
                     "and arith ops)");
    }

  auto stageType = [&](Operation *load, int64_t depth) {
    auto t = cast<RankedTensorType>(load->getResult(0).getType());
    return kcc::SmemType::get(ctx, t.getShape(), t.getElementType(), depth,
                              /*swizzle=*/0, kRowPad);
  };
  // The stages must fit the target's shared memory per block next to what
  // the kernel holds and the scratch of its relayouts, reductions and of
  // dots that stay on registers (which stage their operands).
  int64_t limit = target->sharedMemory.bytesPerBlock;
  int64_t others = asyncBufferBytes(func);
  auto isStaged = [&](kcc::TransOp trans) {
    Operation *load = trans.getSrc().getDefiningOp();
    return load && llvm::is_contained(loads, load);
  };
  int64_t reserve = scratchReserve(func, isStaged);
  func.walk([&](kcc::DotOp dot) {
    reserve = std::max(reserve, registerOperandScratch(dot));
  });
  int64_t budget = limit - others - reserve;
  auto cost = [&](int64_t d) {
    int64_t bytes = 0;
    for (Operation *load : loads)
      bytes += stageType(load, d).getStageBytes() * d + 128;
    return bytes;
  };
  int64_t depth = std::max<int64_t>(2, stagesOf(func, stages));
  while (depth > 2 && cost(depth) > budget)
    --depth;
  // A gather loop is memory-bound: a second program per multiprocessor
  // hides more latency than a third stage (paged decode attention, head_dim
  // 128, on an H200: 1 CTA per SM with 3 stages ran at 0.75x of 2 CTAs
  // without the pipeline), so its stages stay within half the block's
  // shared memory where two stages do.
  while (gathers && depth > 2 && cost(depth) + others + reserve > limit / 2 &&
         cost(2) + others + reserve <= limit / 2)
    --depth;
  if (cost(depth) > budget)
    return refuseAll(
        Twine(depth) + " stages of this loop's tiles (" + Twine(cost(depth)) +
        " bytes) do not fit the " + Twine(std::max<int64_t>(budget, 0)) +
        " bytes of shared memory left for them on " + target->name + " (" +
        Twine(limit) + " per block, less " + Twine(others) +
        " for the kernel's other buffers and " + Twine(reserve) +
        " kept for relayouts, reductions and operand staging)");

  Location loc = loop.getLoc();
  Block &entry = func.getBody().front();
  OpBuilder eb = OpBuilder::atBlockBegin(&entry);
  SmallVector<Value> buffers;
  for (Operation *load : loads)
    buffers.push_back(
        kcc::SmemAllocOp::create(eb, loc, stageType(load, depth)));

  // The copies of iteration `k` (a value of the induction variable's type)
  // into stage `s`, built with `b`.
  auto issue = [&](OpBuilder &b, Value k, Value s) {
    // One mapping for all loads: the ops their slices share (a K and a V
    // block gathered through the same table entries) are cloned once.
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), k);
    for (auto [i, load] : llvm::enumerate(loads)) {
      for (Operation *op : slices[i])
        if (!mapping.contains(op))
          b.clone(*op, mapping);
      SmallVector<Value> operands;
      for (Value c : copyOperands(load))
        operands.push_back(mapping.lookupOrDefault(c));
      Operation *copy;
      if (auto tile = dyn_cast<kcc::LoadTileOp>(load))
        copy = kcc::CpAsyncOp::create(b, load->getLoc(), tile.getBase(),
                                      tile.getDims(), tile.getStrides(),
                                      operands, buffers[i], s);
      else
        copy = kcc::CpAsyncGatherOp::create(
            b, load->getLoc(), operands[0],
            operands.size() > 1 ? operands[1] : Value(), buffers[i], s);
      copy->setAttr(
          kcc::KccDialect::kTileAccessAttr,
          StringAttr::get(ctx, Twine("cp.async 16-byte chunks") +
                                   (isa<kcc::LoadOp>(load)
                                        ? " gathered through the tile's "
                                          "pointers"
                                        : "") +
                                   ", " + Twine(depth) +
                                   "-stage pipeline (rows padded by 16 "
                                   "bytes for ldmatrix)"));
      // Why TMA did not take it, for --report.
      if (auto why = load->getAttrOfType<StringAttr>(
              kcc::KccDialect::kTmaRefusedAttr))
        copy->setAttr(kcc::KccDialect::kTmaRefusedAttr, why);
    }
  };

  OpBuilder pb(loop);
  if (loop->getParentOp() != func.getOperation())
    kcc::CtaBarrierOp::create(pb, loc);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  for (int64_t s = 0; s + 1 < depth; ++s) {
    Value k = arith::AddIOp::create(pb, loc, lb, constI32(pb, loc, s * *step));
    Value go = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::slt, k, ub);
    auto guard = scf::IfOp::create(pb, loc, go, /*withElseRegion=*/false);
    OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
    issue(gb, k, constI32(gb, loc, s));
    kcc::CpAsyncCommitGroupOp::create(pb, loc);
  }

  OpBuilder bb = OpBuilder::atBlockBegin(loop.getBody());
  Value iv = loop.getInductionVar();
  Value it =
      arith::DivSIOp::create(bb, loc, arith::SubIOp::create(bb, loc, iv, lb),
                             constI32(bb, loc, *step));
  Value stage = arith::RemSIOp::create(bb, loc, it, constI32(bb, loc, depth));
  kcc::CpAsyncWaitGroupOp::create(bb, loc, depth - 2);
  kcc::CtaBarrierOp::create(bb, loc);
  Value next = arith::AddIOp::create(bb, loc, iv,
                                     constI32(bb, loc, (depth - 1) * *step));
  Value more =
      arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::slt, next, ub);
  Value refillStage = arith::RemSIOp::create(
      bb, loc, arith::AddIOp::create(bb, loc, it, constI32(bb, loc, depth - 1)),
      constI32(bb, loc, depth));
  auto refill = scf::IfOp::create(bb, loc, more, /*withElseRegion=*/false);
  OpBuilder rb = OpBuilder::atBlockBegin(refill.thenBlock());
  issue(rb, next, refillStage);
  kcc::CpAsyncCommitGroupOp::create(bb, loc);

  for (auto [i, load] : llvm::enumerate(loads)) {
    OpBuilder lb2(load);
    auto read = kcc::SmemLoadOp::create(
        lb2, load->getLoc(), load->getResult(0).getType(), buffers[i], stage);
    load->replaceAllUsesWith(read->getResults());
    load->erase();
  }
  // What only the replaced loads used (a gather's table entries, read
  // again when each copy is issued) goes too: loads are not pure, so the
  // canonicalizer would keep them.
  llvm::SetVector<Operation *> unique;
  for (auto &slice : slices)
    unique.insert(slice.begin(), slice.end());
  SmallVector<Operation *> dead(unique.begin(), unique.end());
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation *&op : dead)
      if (op && op->use_empty()) {
        op->erase();
        op = nullptr;
        erased = true;
      }
  }
}

} // namespace
