//===- GridExpr.h - evaluate kcc.grid expressions ----------------*- C++
//-*-===//
//
// The frontend writes a kernel's launch grid as three C expressions over its
// integer parameters (`kcc.grid`, docs/language.md "Grid"); the launch stubs
// compile them with int64_t parameters. This evaluates the same expressions
// the same way, with checks where C would have undefined behavior.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_INTERP_GRIDEXPR_H
#define KCC_INTERP_GRIDEXPR_H

#include "ir/CExpr.h"

namespace kcc::interp {

/// The grid's C expressions are parsed and evaluated by ir/CExpr.h.
using kcc::evaluateCExpr;

} // namespace kcc::interp

#endif
