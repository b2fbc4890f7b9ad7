//===- FullMasks.h - when a mask is on for a whole tile --------*- C++ -*-===//
//
// Masks are bounds checks: `cols < ncols`, `offs < n`, `rows[:, None] < m`.
// A conjunction term that compares an index tile built from aranges, splats
// of i32 scalars, +, - and * by constants (through broadcasts) with another
// such tile is on for every element exactly when the index's largest (or
// smallest) element passes: a comparison of two scalars, computed exactly
// in 64 bits together with checks that the tile's own i32 arithmetic did
// not wrap. A term that splats an i1 scalar is on when the scalar is.
// kcc-version-full-masks emits that condition in the kernel (per block),
// kcc-version-full-launches in C for the launch stub (per launch).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_ANALYSIS_FULLMASKS_H
#define KCC_PASSES_ANALYSIS_FULLMASKS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace kcc {

/// The tile mask of a kcc.load or kcc.store, if any.
mlir::Value accessMask(mlir::Operation *op);

/// The conjunction terms of a mask (through arith.andi).
void collectMaskTerms(mlir::Value mask,
                      llvm::SmallVectorImpl<mlir::Value> &terms);

/// Whether every element of `term` being on can be decided from scalars:
/// each scalar the decision reads (a splat's source) must satisfy `leafOk`.
bool fullTermDecidable(mlir::Value term,
                       llvm::function_ref<bool(mlir::Value)> leafOk);

/// The i1 condition, built at `b`'s insertion point, that every term (all
/// decidable) is on for every element.
mlir::Value buildFullCondition(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::ArrayRef<mlir::Value> terms);

/// The same condition as C over int64_t values, `nameOf` giving each leaf
/// scalar's C spelling.
std::string fullConditionC(llvm::ArrayRef<mlir::Value> terms,
                           llvm::function_ref<std::string(mlir::Value)> nameOf);

/// Replaces `terms` by true in `region` (uses inside it) and drops the masks
/// of kcc.load/kcc.store in it that are then on everywhere.
void assumeTermsOn(mlir::Region &region, llvm::ArrayRef<mlir::Value> terms);

} // namespace kcc

#endif // KCC_PASSES_ANALYSIS_FULLMASKS_H
