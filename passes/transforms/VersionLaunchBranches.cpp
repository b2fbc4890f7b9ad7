//===- VersionLaunchBranches.cpp - one build per branch of a launch-uniform if
//-===//
//
// kcc-version-launch-branches (Passes.td). A kernel that picks between two
// algorithms by its arguments (`if ncols <= BLOCK { one pass } else { a
// streaming loop }`) pays for both in one build: registers are allocated for
// the larger branch, and for more than either where the branches' live
// ranges meet (softmax f16 BLOCK 16384 on sm_90a: 85 registers against 64
// for each branch alone, one CTA per SM instead of two). The frontend marks
// an `if` whose condition the host can evaluate (kcc.launch_guard); this
// pass compiles the kernel once per branch, and the launch stub evaluates
// the condition and runs the build of the branch it takes, as CUDA
// programmers write two kernels and choose on the host.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/KernelBuilds.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCVERSIONLAUNCHBRANCHES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Whether `a` and `b` compute the same value from the same arguments: the
/// same pure op over operands that are the same value, equal constants or
/// (to `depth`) such computations themselves. The frontend writes each
/// `causal != 0` of the source as its own compare.
bool sameComputation(Value a, Value b, unsigned depth = 4) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth == 0 || x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumOperands() != y->getNumOperands() || x->getNumRegions() ||
      x->getNumResults() != 1 || !isPure(x))
    return false;
  if (matchPattern(x, m_Constant()))
    return true; // equal attributes: equal values
  return llvm::all_of(
      llvm::zip(x->getOperands(), y->getOperands()), [&](auto pair) {
        return sameComputation(std::get<0>(pair), std::get<1>(pair), depth - 1);
      });
}

/// Replaces `ifOp` by the operations of the branch it takes. The build runs
/// only where its condition has that value, so every test of the same
/// condition (the one repeated in a loop) folds too.
void keepBranch(scf::IfOp ifOp, bool thenBranch) {
  Value cond = ifOp.getCondition();
  if (!matchPattern(cond, m_Constant())) {
    auto func = ifOp->getParentOfType<func::FuncOp>();
    OpBuilder b(func.getBody());
    Value known = arith::ConstantIntOp::create(b, cond.getLoc(), cond.getType(),
                                               thenBranch);
    SmallVector<Value> same;
    func.walk([&](Operation *op) {
      if (op->getNumResults() == 1 && op->getResult(0) != known &&
          op->getResult(0).getType() == cond.getType() &&
          sameComputation(op->getResult(0), cond))
        same.push_back(op->getResult(0));
    });
    for (Value v : same)
      v.replaceAllUsesWith(known);
  }
  Block *taken = thenBranch ? ifOp.thenBlock() : ifOp.elseBlock();
  Operation *yield = taken->getTerminator();
  ifOp->replaceAllUsesWith(yield->getOperands());
  yield->erase();
  Block *block = ifOp->getBlock();
  block->getOperations().splice(ifOp->getIterator(), taken->getOperations());
  ifOp->erase();
}

/// Whether compiling each branch of `ifOp` alone pays: both branches hold
/// tile operations or loops (each build allocates registers for its own
/// branch only), or a value the `if` yields decides a loop's bounds (each
/// build's loop then has one known shape: a trip count from the arguments
/// alone, or one that changes from tile to tile, as in causal attention's
/// `if causal != 0 { blocks = min(blocks, diagonal) }`).
bool worthVersioning(scf::IfOp ifOp) {
  auto substantial = [](Region &r) {
    return r
        .walk([](Operation *op) {
          bool tile = llvm::any_of(op->getResultTypes(), [](Type t) {
            return isa<RankedTensorType>(t);
          });
          return tile || isa<scf::ForOp>(op) ? WalkResult::interrupt()
                                             : WalkResult::advance();
        })
        .wasInterrupted();
  };
  if (substantial(ifOp.getThenRegion()) && substantial(ifOp.getElseRegion()))
    return true;
  // Scalar values only: follow them through the scalar arithmetic they feed.
  SmallVector<Value> work(ifOp.getResults());
  llvm::DenseSet<Value> seen(work.begin(), work.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<scf::ForOp>(user) &&
          use.getOperandNumber() < 3) // lower bound, upper bound, step
        return true;
      if (user->getNumRegions() || user->getNumResults() != 1 ||
          isa<RankedTensorType>(user->getResult(0).getType()))
        continue;
      if (seen.insert(user->getResult(0)).second)
        work.push_back(user->getResult(0));
    }
  }
  return false;
}

/// The first marked `if` in the body of `func` worth versioning (the
/// frontend marks only those at its top level).
scf::IfOp versionedBranch(func::FuncOp func) {
  for (auto ifOp : func.getBody().getOps<scf::IfOp>())
    if (ifOp->hasAttr(kcc::KccDialect::kLaunchGuardAttr) &&
        worthVersioning(ifOp))
      return ifOp;
  return {};
}

struct VersionLaunchBranches
    : kcc::impl::KccVersionLaunchBranchesBase<VersionLaunchBranches> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The list is taken first: the copies are added as it goes.
    auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      scf::IfOp branch =
          func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal()
              ? versionedBranch(func)
              : scf::IfOp();
      // One condition per kernel: each more would double the builds.
      if (branch) {
        auto guard = branch->getAttrOfType<DictionaryAttr>(
            kcc::KccDialect::kLaunchGuardAttr);
        FailureOr<func::FuncOp> copy = kcc::cloneBuild(
            func, kcc::kElseBuildSuffix, kcc::KccDialect::kVersionOfAttr,
            "a build for the else branch of its `if` at " +
                guard.getAs<StringAttr>("at").getValue());
        if (failed(copy))
          return signalPassFailure();
        (*copy)->setAttr(kcc::KccDialect::kVersionGuardAttr, guard);
        keepBranch(versionedBranch(*copy), /*thenBranch=*/false);
        keepBranch(branch, /*thenBranch=*/true);
      }
    }
    // The other marks have served (or a pipeline without this pass keeps
    // them as they were; nothing else reads them).
    module.walk([](scf::IfOp ifOp) {
      ifOp->removeAttr(kcc::KccDialect::kLaunchGuardAttr);
    });
  }
};

} // namespace
