//===- KernelBuilds.h - the builds kcc compiles beside a kernel -*- C++ -*-===//
//
// A kernel's launch may run another build of it, a copy placed after it
// whose symbol attribute names it: its persistent build
// (kcc-rasterize-programs, kcc.persistent_of), its fallback build for
// tensors outside the tensor contract (kcc-add-fallback-builds,
// kcc.fallback_of) and the build of the else branch of an `if` the launch
// decides (kcc-version-launch-branches, kcc.version_of). A fallback or
// persistent build also tags every location: a FusedLoc around the original
// location whose metadata is kFallbackLocPrefix (kPersistentLocPrefix)
// followed by the copy's symbol; diagnostics print the original location,
// and the driver reads the tag to tell which build a target refused and
// drops it (tools/kcc/Driver.cpp). The helpers below
// are what those passes, the driver, the report and kcc-difftest share.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_TRANSFORMS_KERNELBUILDS_H
#define KCC_PASSES_TRANSFORMS_KERNELBUILDS_H

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace kcc {

inline constexpr llvm::StringLiteral kFallbackLocPrefix = "kcc.fallback:";
inline constexpr llvm::StringLiteral kPersistentLocPrefix = "kcc.persistent:";
inline constexpr llvm::StringLiteral kSplitKLocPrefix = "kcc.split_k:";

/// Tags every location of build `copy` with `prefix` followed by its
/// symbol (a FusedLoc around the original): the driver tells the build's
/// errors from its kernel's by it and drops the build instead of failing.
inline void tagBuildLocations(mlir::func::FuncOp copy, llvm::StringRef prefix) {
  mlir::MLIRContext *ctx = copy.getContext();
  auto tag = mlir::StringAttr::get(ctx, prefix + copy.getSymName());
  auto tagged = [&](mlir::Location loc) {
    return mlir::FusedLoc::get(ctx, {loc}, tag);
  };
  copy->setLoc(tagged(copy.getLoc()));
  copy.walk([&](mlir::Operation *op) { op->setLoc(tagged(op->getLoc())); });
  for (mlir::BlockArgument arg : copy.getArguments())
    arg.setLoc(tagged(arg.getLoc()));
}

/// The build (fallback or persistent) whose tagged location `loc` is, or "".
inline std::string droppableBuildOf(mlir::Location loc) {
  std::string symbol;
  loc->walk([&](mlir::Location l) {
    if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(l))
      if (auto tag =
              mlir::dyn_cast_or_null<mlir::StringAttr>(fused.getMetadata()))
        for (llvm::StringRef prefix :
             {kFallbackLocPrefix, kPersistentLocPrefix, kSplitKLocPrefix})
          if (tag.getValue().starts_with(prefix)) {
            symbol = tag.getValue().drop_front(prefix.size()).str();
            return mlir::WalkResult::interrupt();
          }
    return mlir::WalkResult::advance();
  });
  return symbol;
}

/// The suffix of the build kcc-version-launch-branches makes for the else
/// branch of a kernel's launch-decided `if` (`<kernel>__else`).
inline constexpr llvm::StringLiteral kElseBuildSuffix = "__else";

/// A copy of kernel `func` named <name><suffix>, placed after it, whose
/// attribute `ofAttr` names `func`. Launched by its kernel's launch only, it
/// is no candidate of a variant group unless `ranked` (a persistent build is
/// ranked with its kernel). Fails with an error at the kernel (`what`: "a
/// persistent build") if the name is taken: the stub would never find a
/// renamed one.
inline mlir::FailureOr<mlir::func::FuncOp> cloneBuild(mlir::func::FuncOp func,
                                                      llvm::StringRef suffix,
                                                      llvm::StringRef ofAttr,
                                                      const llvm::Twine &what,
                                                      bool ranked = false) {
  std::string name = (func.getSymName() + suffix).str();
  if (mlir::SymbolTable::lookupNearestSymbolFrom(
          func, mlir::StringAttr::get(func.getContext(), name)))
    return func.emitError("kernel '")
           << func.getSymName() << "' has " << what << ", @" << name
           << ", but that symbol is taken; rename the kernel";
  mlir::OpBuilder b(func);
  b.setInsertionPointAfter(func);
  auto copy = mlir::cast<mlir::func::FuncOp>(b.clone(*func));
  copy.setSymName(name);
  copy->setAttr(ofAttr, mlir::FlatSymbolRefAttr::get(func.getSymNameAttr()));
  if (!ranked) {
    copy->removeAttr(KccDialect::kVariantOfAttr);
    copy->removeAttr(KccDialect::kVariantOnlyAttr);
  }
  return copy;
}

/// The function of `func`'s module whose symbol attribute `attr` names
/// `func` (its fallback or else-branch build), or null.
inline mlir::func::FuncOp buildNaming(mlir::func::FuncOp func,
                                      llvm::StringRef attr) {
  auto module = func->getParentOfType<mlir::ModuleOp>();
  if (!module)
    return {};
  for (auto build : module.getOps<mlir::func::FuncOp>())
    if (auto of = build->getAttrOfType<mlir::FlatSymbolRefAttr>(attr);
        of && of.getValue() == func.getSymName())
      return build;
  return {};
}

/// The fallback build of `func` in its module (kcc.fallback_of), or null.
inline mlir::func::FuncOp fallbackBuildOf(mlir::func::FuncOp func) {
  return buildNaming(func, KccDialect::kFallbackOfAttr);
}

/// The build of the else branch of `func`'s versioned `if`
/// (kcc.version_of, kcc-version-launch-branches), or null.
inline mlir::func::FuncOp versionBuildOf(mlir::func::FuncOp func) {
  return buildNaming(func, KccDialect::kVersionOfAttr);
}

/// Whether `func` is a build a kernel's launch runs in its stead
/// (persistent, fallback or split-K), not a kernel of its own: the passes
/// that add builds give none to another build.
inline bool isLaunchedBuild(mlir::func::FuncOp func) {
  return func->hasAttr(KccDialect::kPersistentOfAttr) ||
         func->hasAttr(KccDialect::kFallbackOfAttr) ||
         func->hasAttr(KccDialect::kSplitKOfAttr);
}

/// Whether `module` holds builds a target may drop (fallback, persistent,
/// split-K).
inline bool hasDroppableBuilds(mlir::ModuleOp module) {
  return llvm::any_of(module.getOps<mlir::func::FuncOp>(), isLaunchedBuild);
}

} // namespace kcc

#endif // KCC_PASSES_TRANSFORMS_KERNELBUILDS_H
