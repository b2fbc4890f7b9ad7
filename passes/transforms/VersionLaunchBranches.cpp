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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCVERSIONLAUNCHBRANCHES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Replaces `ifOp` by the operations of the branch it takes.
void keepBranch(scf::IfOp ifOp, bool thenBranch) {
  Block *taken = thenBranch ? ifOp.thenBlock() : ifOp.elseBlock();
  Operation *yield = taken->getTerminator();
  ifOp->replaceAllUsesWith(yield->getOperands());
  yield->erase();
  Block *block = ifOp->getBlock();
  block->getOperations().splice(ifOp->getIterator(), taken->getOperations());
  ifOp->erase();
}

/// The first marked `if` in the body of `func` (the frontend marks only
/// those at its top level).
scf::IfOp versionedBranch(func::FuncOp func) {
  for (auto ifOp : func.getBody().getOps<scf::IfOp>())
    if (ifOp->hasAttr(kcc::KccDialect::kLaunchGuardAttr))
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
        FailureOr<func::FuncOp> copy =
            kcc::cloneBuild(func, "__else", kcc::KccDialect::kVersionOfAttr,
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
