//===- FallbackBuilds.h - finding and telling apart fallback builds -*- C++
//-*-===//
//
// kcc-add-fallback-builds (Passes.td) gives each kernel over tensor<>
// parameters a copy, @<name>__fallback {kcc.fallback_of = @<name>}, and
// tags every location of the copy: a FusedLoc around the original location
// whose metadata is kFallbackLocPrefix followed by the copy's symbol.
// Diagnostics print the original location; the driver reads the tag to tell
// which fallback build a target refused (tools/kcc/Driver.cpp). The lookups
// below are what the driver, the report and kcc-difftest share.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_TRANSFORMS_FALLBACKBUILDS_H
#define KCC_PASSES_TRANSFORMS_FALLBACKBUILDS_H

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace kcc {

inline constexpr llvm::StringLiteral kFallbackLocPrefix = "kcc.fallback:";

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

/// Whether `module` holds fallback builds.
inline bool hasFallbackBuilds(mlir::ModuleOp module) {
  return llvm::any_of(module.getOps<mlir::func::FuncOp>(),
                      [](mlir::func::FuncOp f) {
                        return f->hasAttr(KccDialect::kFallbackOfAttr);
                      });
}

} // namespace kcc

#endif // KCC_PASSES_TRANSFORMS_FALLBACKBUILDS_H
