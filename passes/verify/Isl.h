//===- Isl.h - owning handles for isl objects -------------------*- C++ -*-===//
//
// isl's C API passes ownership by convention (__isl_take / __isl_give /
// __isl_keep). isl's own C++ bindings abort on errors when exceptions are
// off, as they are in kcc, so kcc uses the C API through these handles: a
// failed operation (e.g. the operation budget running out) returns null,
// which the caller turns into a diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_ISL_H
#define KCC_PASSES_ISL_H

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <utility>

namespace kcc::isl {

/// Owns one isl object; `take()` hands it to an __isl_take parameter,
/// `copy()` gives a new reference, `get()` lends it (__isl_keep).
template <typename T, T *(*Copy)(T *), T *(*Free)(T *)> class Obj {
public:
  Obj() = default;
  explicit Obj(T *p) : p(p) {}
  Obj(const Obj &o) : p(o.p ? Copy(o.p) : nullptr) {}
  Obj(Obj &&o) noexcept : p(std::exchange(o.p, nullptr)) {}
  Obj &operator=(Obj o) {
    std::swap(p, o.p);
    return *this;
  }
  ~Obj() {
    if (p)
      Free(p);
  }
  T *get() const { return p; }
  T *copy() const { return p ? Copy(p) : nullptr; }
  T *take() { return std::exchange(p, nullptr); }
  explicit operator bool() const { return p != nullptr; }

private:
  T *p = nullptr;
};

using Set = Obj<isl_set, isl_set_copy, isl_set_free>;
using Map = Obj<isl_map, isl_map_copy, isl_map_free>;
using PwAff = Obj<isl_pw_aff, isl_pw_aff_copy, isl_pw_aff_free>;
using Space = Obj<isl_space, isl_space_copy, isl_space_free>;
using Val = Obj<isl_val, isl_val_copy, isl_val_free>;
using Point = Obj<isl_point, isl_point_copy, isl_point_free>;
using AstExpr = Obj<isl_ast_expr, isl_ast_expr_copy, isl_ast_expr_free>;

/// An isl context that reports errors by returning null (never aborting)
/// and gives up after a bounded amount of work.
class Ctx {
public:
  explicit Ctx(unsigned long maxOperations) : ctx(isl_ctx_alloc()) {
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
    isl_ctx_set_max_operations(ctx, maxOperations);
  }
  ~Ctx() { isl_ctx_free(ctx); }
  Ctx(const Ctx &) = delete;
  Ctx &operator=(const Ctx &) = delete;
  isl_ctx *get() const { return ctx; }
  /// True once an operation failed or the budget ran out.
  bool failed() const { return isl_ctx_last_error(ctx) != isl_error_none; }

private:
  isl_ctx *ctx;
};

} // namespace kcc::isl

#endif // KCC_PASSES_ISL_H
