//===- CoverageAffine.h - isl sets of the coverage proof --------*- C++ -*-===//
//
// Internal to kcc-prove-tile-coverage (ProveTileCoverage.cpp): the program
// ids, loop variables, tile coordinates and branch conditions of the tile IR
// as quasi-affine isl functions and sets over the kernel's integer parameters,
// or the reason (Unprovable) a value is not one. Defined in CoverageAffine.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_VERIFY_COVERAGEAFFINE_H
#define KCC_PASSES_VERIFY_COVERAGEAFFINE_H

#include "passes/verify/Isl.h"

#include "ir/CExpr.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <memory>
#include <optional>
#include <string>

namespace kcc::coverage {

/// Why a tensor's coverage cannot be proven: the value or op at `loc`.
struct Unprovable {
  mlir::Location loc;
  std::string why;
};

/// Quasi-affine functions of one statement's iteration space: set dims
/// [p0, p1, p2, loop ivs (outermost first), element coordinates] over the
/// kernel's integer parameters.
class AffineBuilder {
public:
  AffineBuilder(isl::Space space,
                const llvm::DenseMap<mlir::Value, unsigned> &params,
                const llvm::StringMap<unsigned> &paramNames,
                llvm::DenseMap<mlir::Value, unsigned> dims,
                const std::array<std::unique_ptr<CExpr>, 3> &grid)
      : space(std::move(space)), params(params), paramNames(paramNames),
        dims(std::move(dims)), grid(grid) {}

  isl_ctx *ctx() const { return isl_space_get_ctx(space.get()); }
  isl::Set universe() const { return isl::Set(isl_set_universe(space.copy())); }

  isl::PwAff constant(int64_t c) const {
    isl_local_space *ls = isl_local_space_from_space(space.copy());
    return isl::PwAff(isl_pw_aff_from_aff(
        isl_aff_val_on_domain(ls, isl_val_int_from_si(ctx(), c))));
  }
  isl::PwAff var(isl_dim_type type, unsigned pos) const {
    isl_local_space *ls = isl_local_space_from_space(space.copy());
    return isl::PwAff(
        isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, type, pos)));
  }

  /// The value of `v` as a quasi-affine function, or the reason it is not.
  mlir::FailureOr<isl::PwAff> value(mlir::Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    mlir::FailureOr<isl::PwAff> r = compute(v);
    if (mlir::succeeded(r))
      memo.try_emplace(v, *r);
    return r;
  }

  /// The i1 `v` as the set where it is true.
  mlir::FailureOr<isl::Set> condition(mlir::Value v);

  /// `e` (a grid or guard C expression over parameter names).
  mlir::FailureOr<isl::PwAff> cexpr(const CExpr &e, mlir::Location loc);

  std::optional<Unprovable> reason;

private:
  isl::Space space;
  const llvm::DenseMap<mlir::Value, unsigned> &params;
  const llvm::StringMap<unsigned> &paramNames;
  llvm::DenseMap<mlir::Value, unsigned> dims;
  const std::array<std::unique_ptr<CExpr>, 3> &grid;
  llvm::DenseMap<mlir::Value, isl::PwAff> memo;

  mlir::LogicalResult fail(mlir::Location loc, const std::string &why) {
    if (!reason)
      reason = Unprovable{loc, why};
    return mlir::failure();
  }
  static bool isConstant(const isl::PwAff &a) {
    return isl_pw_aff_is_cst(a.get()) == isl_bool_true;
  }
  /// A nonzero constant divisor, or failure.
  mlir::FailureOr<isl::PwAff> divisor(mlir::Value v, mlir::Location loc,
                                      llvm::StringRef what);

  mlir::FailureOr<isl::PwAff> compute(mlir::Value v);
  static isl::PwAff wrap(isl_pw_aff *p) { return isl::PwAff(p); }
};

} // namespace kcc::coverage

#endif // KCC_PASSES_VERIFY_COVERAGEAFFINE_H
