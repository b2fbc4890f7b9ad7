//===- GridExpr.cpp - evaluate kcc.grid expressions -----------------------===//
#include "interp/GridExpr.h"
#include "interp/Interpreter.h"

#include "ir/Dialect.h"

#include <cctype>

using namespace kcc::interp;

namespace {
/// Recursive descent over the C subset; precedence from low to high:
/// ?:, relational/equality, additive, multiplicative, unary.
class Parser {
public:
  Parser(std::string_view text,
         const std::function<std::optional<int64_t>(std::string_view)> &lookup)
      : text(text), lookup(lookup) {}

  bool parse(int64_t &out, std::string &error) {
    if (!conditional(out))
      return (error = message), false;
    skipSpace();
    if (pos != text.size()) {
      error = "unexpected '" + std::string(text.substr(pos)) + "'";
      return false;
    }
    return true;
  }

private:
  std::string_view text;
  const std::function<std::optional<int64_t>(std::string_view)> &lookup;
  size_t pos = 0;
  std::string message;
  int depth = 0;

  bool failWith(const std::string &m) {
    if (message.empty())
      message = m;
    return false;
  }
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool eat(std::string_view tok) {
    skipSpace();
    if (text.substr(pos, tok.size()) != tok)
      return false;
    pos += tok.size();
    return true;
  }

  bool conditional(int64_t &v) {
    if (++depth > 256) // the frontend bounds grid expressions too
      return failWith("grid expression nests too deeply");
    bool ok = relational(v);
    if (ok && eat("?")) {
      int64_t a, b;
      ok = conditional(a) && (eat(":") || failWith("expected ':'")) &&
           conditional(b);
      v = v ? a : b;
    }
    --depth;
    return ok;
  }

  bool relational(int64_t &v) {
    if (!additive(v))
      return false;
    static const char *ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    for (const char *op : ops) {
      if (!eat(op))
        continue;
      int64_t r;
      if (!additive(r))
        return false;
      std::string_view o = op;
      v = o == "<="   ? v <= r
          : o == ">=" ? v >= r
          : o == "==" ? v == r
          : o == "!=" ? v != r
          : o == "<"  ? v < r
                      : v > r;
      return true;
    }
    return true;
  }

  bool additive(int64_t &v) {
    if (!multiplicative(v))
      return false;
    while (true) {
      bool plus = eat("+");
      if (!plus && !eat("-"))
        return true;
      int64_t r;
      if (!multiplicative(r))
        return false;
      if (plus ? __builtin_add_overflow(v, r, &v)
               : __builtin_sub_overflow(v, r, &v))
        return failWith("grid expression overflows int64");
    }
  }

  bool multiplicative(int64_t &v) {
    if (!unary(v))
      return false;
    while (true) {
      char op = 0;
      if (eat("*"))
        op = '*';
      else if (eat("/"))
        op = '/';
      else if (eat("%"))
        op = '%';
      else
        return true;
      int64_t r;
      if (!unary(r))
        return false;
      if (op == '*') {
        if (__builtin_mul_overflow(v, r, &v))
          return failWith("grid expression overflows int64");
        continue;
      }
      if (r == 0)
        return failWith("division by zero in the grid expression");
      if (v == INT64_MIN && r == -1)
        return failWith("grid expression overflows int64");
      v = op == '/' ? v / r : v % r;
    }
  }

  bool unary(int64_t &v) {
    if (eat("-")) {
      if (!unary(v))
        return false;
      if (v == INT64_MIN)
        return failWith("grid expression overflows int64");
      v = -v;
      return true;
    }
    if (eat("+"))
      return unary(v);
    return primary(v);
  }

  bool primary(int64_t &v) {
    skipSpace();
    if (eat("("))
      return conditional(v) && (eat(")") || failWith("expected ')'"));
    size_t start = pos;
    if (pos < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[pos]))) {
      v = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos])))
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, text[pos++] - '0', &v))
          return failWith("integer literal overflows int64");
      while (pos < text.size() && (text[pos] == 'L' || text[pos] == 'l'))
        ++pos; // C suffixes
      return true;
    }
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '_'))
      ++pos;
    if (pos == start)
      return failWith(pos < text.size()
                          ? "unexpected '" + std::string(1, text[pos]) + "'"
                          : "unexpected end of expression");
    std::string_view name = text.substr(start, pos - start);
    std::optional<int64_t> value = lookup(name);
    if (!value)
      return failWith("unknown name '" + std::string(name) + "'");
    v = *value;
    return true;
  }
};
} // namespace

bool kcc::interp::evaluateCExpr(
    std::string_view expr,
    const std::function<std::optional<int64_t>(std::string_view)> &lookup,
    int64_t &result, std::string &error) {
  return Parser(expr, lookup).parse(result, error);
}

bool kcc::interp::evaluateGrid(mlir::func::FuncOp func,
                               const std::vector<KernelArg> &args, Grid &grid,
                               std::string &error) {
  auto exprs = func->getAttrOfType<mlir::ArrayAttr>("kcc.grid");
  auto names = func->getAttrOfType<mlir::ArrayAttr>("kcc.arg_names");
  if (!exprs || exprs.size() != 3 || !names) {
    error = "function '" + func.getSymName().str() +
            "' has no kcc.grid/kcc.arg_names (not a kcc kernel?)";
    return false;
  }
  mlir::ArrayRef<mlir::Type> inputs = func.getFunctionType().getInputs();
  auto lookup = [&](std::string_view name) -> std::optional<int64_t> {
    for (size_t i = 0; i < names.size() && i < args.size(); ++i) {
      auto n = mlir::dyn_cast<mlir::StringAttr>(names[i]);
      if (n && n.getValue() == llvm::StringRef(name.data(), name.size()) &&
          !args[i].isPointer && i < inputs.size() && inputs[i].isInteger())
        return args[i].intValue;
    }
    return std::nullopt;
  };
  for (unsigned d = 0; d < 3; ++d) {
    auto e = mlir::dyn_cast<mlir::StringAttr>(exprs[d]);
    std::string text = e ? e.str() : "";
    if (text.empty())
      text = "1";
    if (!evaluateCExpr(text, lookup, grid[d], error)) {
      error = "grid expression '" + text + "': " + error;
      return false;
    }
    if (grid[d] < 0) {
      error = "grid expression '" + text + "' is negative (" +
              std::to_string(grid[d]) + ")";
      return false;
    }
  }
  return true;
}
