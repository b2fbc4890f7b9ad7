//===- HostExpr.h - a kernel's i32 values as C over its parameters -*- C++
//-*-===//
//
// The launch stubs evaluate some of a kernel's values on the host before the
// launch (a split-K launch's trip count, the sizes a launch-time tile choice
// weighs): the ones that are i32 arithmetic on integer parameters and
// constants, as the grid's expressions are.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_HOSTEXPR_H
#define KCC_PASSES_HOSTEXPR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include <string>

namespace kcc {

/// `v` as a C expression over the kernel's parameter names (`names`: its
/// kcc.arg_names), or "" where it is not one the host can evaluate exactly.
std::string hostExpr(mlir::Value v, mlir::ArrayAttr names);

} // namespace kcc

#endif // KCC_PASSES_HOSTEXPR_H
