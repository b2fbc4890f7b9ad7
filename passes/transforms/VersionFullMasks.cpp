//===- VersionFullMasks.cpp - unmasked copies of code whose masks are full
//-===//
//
// kcc-version-full-masks (Passes.td). Kernels are written with masks on
// every access (`load(p + cols, cols < n, 0)`, the way Triton's tutorials
// teach), and nearly every program of a launch runs a block whose masks are
// all on: every block but the last of a 1-D grid, every full row of a
// softmax, every iteration but the last of a streaming loop. A masked access
// costs a per-chunk test and a per-element path for ragged chunks (softmax
// f16 at 4096 columns: 1056 SASS instructions against 256 unmasked, and the
// registers of both paths). Where a mask term compares an index tile built
// from aranges, splats and +, -, * by constants against a uniform value,
// whether the term is on everywhere is a comparison of the index's largest
// (or smallest) element, a few scalar instructions. This pass puts the code
// after the terms' inputs under `if all terms are full { the code with the
// terms replaced by true } else { the code as written }`: the condition is
// uniform across the CTA, so neither copy diverges.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "ir/Dialect.h"
#include "passes/analysis/FullMasks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kcc;

namespace kcc {
#define GEN_PASS_DEF_KCCVERSIONFULLMASKS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// A region larger than this is not copied (each level of versioning
/// doubles the code inside it).
constexpr unsigned kMaxOps = 4000;
/// Mask terms per versioned region at most.
constexpr unsigned kMaxTerms = 16;

/// Operations the copied code may hold: memory-bound tile code. Dots,
/// pipelines and barriers of their own stay out (a pipelined loop must keep
/// its loads in its body; an mbarrier protocol is proven as written).
bool copyable(Operation *op) {
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return true;
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::YieldOp, scf::ConditionOp,
          func::ReturnOp, ProgramIdOp, NumProgramsOp, ProgramGridOp, ArangeOp,
          SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp, AddPtrOp,
          LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp, ReduceOp, HistogramOp>(op))
    return true;
  // A reduction's combiner.
  return isa<ReduceOp>(op->getParentOp());
}

struct VersionFullMasks : kcc::impl::KccVersionFullMasksBase<VersionFullMasks> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(KccDialect::kKernelAttr) && !func.isExternal())
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func) {
    // Innermost blocks first: a streaming loop's body is versioned per
    // iteration, then the code around it.
    SmallVector<Block *> blocks;
    func.walk<WalkOrder::PostOrder>(
        [&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>() &&
          !isa<ReduceOp>(block->getParentOp()))
        versionBlock(block);
  }

  void versionBlock(Block *block);
};

void VersionFullMasks::versionBlock(Block *block) {
  // Every op of the block must be copyable, nested ones included, and the
  // code small enough to copy.
  unsigned count = 0;
  bool ok = true;
  for (Operation &op : block->without_terminator()) {
    op.walk([&](Operation *nested) {
      ++count;
      if (!copyable(nested))
        ok = false;
    });
  }
  if (!ok || count > kMaxOps)
    return;

  // The mask terms of the accesses in the block, in order of appearance.
  llvm::SetVector<Value> terms;
  for (Operation &op : block->without_terminator())
    op.walk([&](Operation *access) {
      if (Value mask = accessMask(access)) {
        SmallVector<Value> parts;
        collectMaskTerms(mask, parts);
        terms.insert(parts.begin(), parts.end());
      }
    });

  // Terms decidable from scalars available in the block; the copy starts
  // after the last of them defined in it. In the ragged build of a kernel
  // with a full build (kcc-version-full-launches), the terms the launch
  // decided are not on everywhere: not copied for.
  Operation *owner = block->getParentOp();
  auto func = isa<func::FuncOp>(owner) ? cast<func::FuncOp>(owner)
                                       : owner->getParentOfType<func::FuncOp>();
  bool ragged = func && func->hasAttr(KccDialect::kMasksRaggedAttr);
  Region *body = block->getParent();
  SmallVector<Value> chosen;
  llvm::SetVector<Operation *> leaves;
  for (Value term : terms) {
    if (chosen.size() == kMaxTerms)
      break;
    llvm::SetVector<Operation *> mine;
    bool launchDecided = true;
    auto available = [&](Value s) {
      launchDecided &=
          isa<BlockArgument>(s) &&
          isa<func::FuncOp>(cast<BlockArgument>(s).getOwner()->getParentOp());
      Operation *def = s.getDefiningOp();
      Block *defBlock =
          def ? def->getBlock() : cast<BlockArgument>(s).getOwner();
      if (defBlock == block) {
        if (def)
          mine.insert(def);
        return true;
      }
      // Defined in an enclosing block: dominates all of this one.
      return defBlock->getParent()->isProperAncestor(body);
    };
    if (!fullTermDecidable(term, available) || (ragged && launchDecided))
      continue;
    chosen.push_back(term);
    leaves.insert(mine.begin(), mine.end());
  }
  if (chosen.empty())
    return;
  Operation *start = &block->front();
  for (Operation *leaf : leaves)
    if (start->isBeforeInBlock(leaf->getNextNode()))
      start = leaf->getNextNode();
  // An access before `start` keeps its mask; at least one must follow.
  bool anyAfter = false;
  for (Operation *op = start; op != block->getTerminator();
       op = op->getNextNode())
    op->walk([&](Operation *access) { anyAfter |= bool(accessMask(access)); });
  if (!anyAfter)
    return;

  Location loc = start->getLoc();
  OpBuilder b(start);
  Value cond = buildFullCondition(b, loc, chosen);

  // The values the terminator uses become the if's results.
  Operation *terminator = block->getTerminator();
  SmallVector<Value> results;
  for (Value v : terminator->getOperands())
    if (Operation *def = v.getDefiningOp(); def && def->getBlock() == block &&
                                            !def->isBeforeInBlock(start) &&
                                            !llvm::is_contained(results, v))
      results.push_back(v);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange(ValueRange(results)), cond,
                                /*withElseRegion=*/true);
  ifOp->setAttr(KccDialect::kFullMasksAttr, b.getUnitAttr());
  // Without results the builder added empty yields; each block gets its own.
  for (Block *b : {ifOp.thenBlock(), ifOp.elseBlock()})
    if (!b->empty())
      b->back().erase();

  // Else: the code as written, moved.
  Block *elseBlock = ifOp.elseBlock();
  elseBlock->getOperations().splice(elseBlock->begin(), block->getOperations(),
                                    start->getIterator(),
                                    terminator->getIterator());
  OpBuilder eb = OpBuilder::atBlockEnd(elseBlock);
  scf::YieldOp::create(eb, loc, results);

  // Then: a copy with the chosen terms on everywhere.
  Block *thenBlock = ifOp.thenBlock();
  OpBuilder tb = OpBuilder::atBlockBegin(thenBlock);
  IRMapping map;
  for (Operation &op : elseBlock->without_terminator())
    tb.clone(op, map);
  scf::YieldOp::create(tb, loc, llvm::map_to_vector(results, [&](Value v) {
                         return map.lookup(v);
                       }));
  assumeTermsOn(ifOp.getThenRegion(),
                llvm::map_to_vector(chosen, [&](Value term) {
                  return map.lookupOrDefault(term);
                }));

  for (auto [i, v] : llvm::enumerate(results))
    v.replaceUsesWithIf(ifOp.getResult(i), [&](OpOperand &use) {
      return use.getOwner() == terminator;
    });
}

} // namespace
