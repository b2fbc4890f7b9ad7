//===- CExpr.h - the C expressions kcc attaches to kernels ------*- C++ -*-===//
//
// Launch grids (`kcc.grid`) and coverage guards (`kcc.coverage`) are integer
// C expressions over a kernel's parameter names: the launch stubs compile
// them, the interpreter and the simulators evaluate them, and the coverage
// proof reads them as quasi-affine functions. This is their one parser.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_IR_CEXPR_H
#define KCC_IR_CEXPR_H

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcc {

/// The name a grid expression uses for `num_multiprocessors()`: the launch
/// stub defines it from kcc::rt::multiprocessorCount, the interpreter and
/// the simulators from their device's (kcc-difftest --sim-processors).
inline constexpr const char *kMultiprocessorsName = "kcc_multiprocessors";

/// A parsed expression: integer literals, names, parentheses, unary - + !,
/// * / % (C's truncating division), + -, < <= > >=, == !=, && ||, ?:.
struct CExpr {
  enum class Kind {
    Int,
    Name,
    Neg,
    Not,
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Select
  };
  Kind kind = Kind::Int;
  int64_t value = 0;                            // Int
  std::string name;                             // Name
  std::vector<std::unique_ptr<CExpr>> operands; // in source order
};

/// Parses `text`; on a syntax error returns null and sets `error`.
std::unique_ptr<CExpr> parseCExpr(std::string_view text, std::string &error);

/// Evaluates `e` in int64_t as C would, looking names up with `lookup`.
/// Fails with a message on an unknown name, division by zero or overflow
/// (where C would have undefined behavior).
bool evaluateCExpr(
    const CExpr &e,
    const std::function<std::optional<int64_t>(std::string_view)> &lookup,
    int64_t &result, std::string &error);

/// parseCExpr then evaluateCExpr.
bool evaluateCExpr(
    std::string_view text,
    const std::function<std::optional<int64_t>(std::string_view)> &lookup,
    int64_t &result, std::string &error);

} // namespace kcc

#endif // KCC_IR_CEXPR_H
