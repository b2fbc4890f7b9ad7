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

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kcc::interp {

/// Evaluates a C expression of integer literals, names (looked up with
/// `lookup`), parentheses, unary - +, * / %, + -, < > <= >= == != and ?:,
/// in int64_t. Fails with a message on an unknown name, division by zero,
/// overflow or a syntax error.
bool evaluateCExpr(
    std::string_view expr,
    const std::function<std::optional<int64_t>(std::string_view)> &lookup,
    int64_t &result, std::string &error);

} // namespace kcc::interp

#endif
