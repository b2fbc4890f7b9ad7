//===- VersionFullLaunches.cpp - a build without masks for full launches --===//
//
// kcc-version-full-launches (Passes.td). A mask whose terms compare only
// the kernel's integer parameters, constants and aranges (`cols < ncols`
// in a row kernel) is on everywhere or not for the whole launch, and the
// launch stub can tell which. kcc-version-full-masks decides it per block
// inside one build, which keeps the masked copy's registers in the kernel
// (layernorm f16 BLOCK 1024 on sm_90a: 73 registers, against 32 without
// masks: twelve CTAs per multiprocessor instead of 32). Here the kernel
// becomes the build without those masks and a copy, @<name>__ragged, keeps
// them; the stub runs the copy when the condition is false, as it runs an
// else-branch build (kcc-version-launch-branches).
//
//===----------------------------------------------------------------------===//

#include "ir/SourceLocation.h"
#include "passes/Passes.h"
#include "passes/analysis/FullMasks.h"
#include "passes/transforms/KernelBuilds.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCVERSIONFULLLAUNCHES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Terms of at most this many per kernel: each is a few operations of C.
constexpr unsigned kMaxTerms = 16;

struct VersionFullLaunches
    : kcc::impl::KccVersionFullLaunchesBase<VersionFullLaunches> {
  void runOnOperation() override {
    // The list is taken first: the copies are added as it goes.
    auto funcs = llvm::to_vector(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal() &&
          failed(runOnKernel(func)))
        return signalPassFailure();
  }

  LogicalResult runOnKernel(func::FuncOp func);
};

LogicalResult VersionFullLaunches::runOnKernel(func::FuncOp func) {
  auto names = func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kArgNamesAttr);
  Block &entry = func.getBody().front();
  if (!names || names.size() != entry.getNumArguments())
    return success();
  // An integer parameter, which the stub has by name.
  auto isParam = [&](Value s) {
    auto arg = dyn_cast<BlockArgument>(s);
    return arg && arg.getOwner() == &entry && s.getType().isInteger(32);
  };
  llvm::SetVector<Value> terms;
  func.walk([&](Operation *op) {
    if (Value mask = kcc::accessMask(op)) {
      SmallVector<Value> parts;
      kcc::collectMaskTerms(mask, parts);
      for (Value t : parts)
        if (terms.size() < kMaxTerms && kcc::fullTermDecidable(t, isParam))
          terms.insert(t);
    }
  });
  if (terms.empty())
    return success();

  std::string full = kcc::fullConditionC(terms.getArrayRef(), [&](Value s) {
    return cast<StringAttr>(names[cast<BlockArgument>(s).getArgNumber()]).str();
  });
  // The kernel runs where its own guard holds (an else-branch build takes
  // the rest) and the masks are on; the ragged copy takes the other
  // launches of that guard.
  func::FuncOp elseBuild = kcc::versionBuildOf(func);
  DictionaryAttr elseGuard = elseBuild
                                 ? elseBuild->getAttrOfType<DictionaryAttr>(
                                       kcc::KccDialect::kVersionGuardAttr)
                                 : DictionaryAttr();
  std::string guard = elseGuard
                          ? "(" + elseGuard.getAs<StringAttr>("guard").str() +
                                ") && (" + full + ")"
                          : full;
  FailureOr<func::FuncOp> ragged =
      kcc::cloneBuild(func, "__ragged", kcc::KccDialect::kVersionOfAttr,
                      "a build for launches whose masks are not all on");
  if (failed(ragged))
    return failure();
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  (*ragged)->setAttr(
      kcc::KccDialect::kVersionGuardAttr,
      b.getDictionaryAttr(
          {b.getNamedAttr("guard", b.getStringAttr(guard)),
           b.getNamedAttr("when", b.getStringAttr("every mask is on: " + full)),
           b.getNamedAttr("at",
                          b.getStringAttr(kcc::sourceLocationText(
                              terms.front().getLoc(), /*baseName=*/true))),
           b.getNamedAttr("masks", b.getUnitAttr())}));
  (*ragged)->setAttr(kcc::KccDialect::kMasksRaggedAttr, b.getUnitAttr());
  if (elseBuild)
    elseBuild->setAttr(kcc::KccDialect::kVersionOfAttr,
                       FlatSymbolRefAttr::get((*ragged).getSymNameAttr()));
  kcc::assumeTermsOn(func.getBody(), terms.getArrayRef());
  return success();
}

} // namespace
