//===- CExpr.cpp - the C expressions kcc attaches to kernels --------------===//
#include "ir/CExpr.h"

#include <cctype>

using namespace kcc;

namespace {
using Kind = CExpr::Kind;

/// Recursive descent with C's precedence, low to high: ?:, ||, &&,
/// == !=, < <= > >=, + -, * / %, unary.
class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  std::unique_ptr<CExpr> parse(std::string &error) {
    std::unique_ptr<CExpr> e = conditional();
    skipSpace();
    if (e && pos != text.size())
      fail("unexpected '" + std::string(text.substr(pos)) + "'");
    if (!message.empty()) {
      error = message;
      return nullptr;
    }
    return e;
  }

private:
  std::string_view text;
  size_t pos = 0;
  std::string message;
  int depth = 0;

  std::nullptr_t fail(const std::string &m) {
    if (message.empty())
      message = m;
    return nullptr;
  }
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool peek(std::string_view tok) {
    skipSpace();
    return text.substr(pos, tok.size()) == tok;
  }
  bool eat(std::string_view tok) {
    if (!peek(tok))
      return false;
    pos += tok.size();
    return true;
  }
  static std::unique_ptr<CExpr> node(Kind kind,
                                     std::unique_ptr<CExpr> a = nullptr,
                                     std::unique_ptr<CExpr> b = nullptr) {
    auto e = std::make_unique<CExpr>();
    e->kind = kind;
    if (a)
      e->operands.push_back(std::move(a));
    if (b)
      e->operands.push_back(std::move(b));
    return e;
  }

  /// One left-associative level: `ops` are tried in order (longer first).
  template <typename Next>
  std::unique_ptr<CExpr>
  binaryLevel(Next next,
              std::initializer_list<std::pair<std::string_view, Kind>> ops) {
    std::unique_ptr<CExpr> lhs = (this->*next)();
    while (lhs) {
      const std::pair<std::string_view, Kind> *op = nullptr;
      for (const auto &o : ops)
        if (peek(o.first) &&
            // `<` is not `<=`/`<<`, `&` alone and `|` alone are not ours.
            !(o.first.size() == 1 && pos + 1 < text.size() &&
              (text[pos + 1] == '=' || text[pos + 1] == text[pos]))) {
          op = &o;
          break;
        }
      if (!op)
        return lhs;
      pos += op->first.size();
      std::unique_ptr<CExpr> rhs = (this->*next)();
      if (!rhs)
        return nullptr;
      lhs = node(op->second, std::move(lhs), std::move(rhs));
    }
    return nullptr;
  }

  std::unique_ptr<CExpr> conditional() {
    if (++depth > 256) // the frontend bounds grid expressions too
      return fail("expression nests too deeply");
    std::unique_ptr<CExpr> e = logicalOr();
    if (e && eat("?")) {
      std::unique_ptr<CExpr> a = conditional();
      if (a && !eat(":"))
        a = fail("expected ':'");
      std::unique_ptr<CExpr> b = a ? conditional() : nullptr;
      if (!b)
        e = nullptr;
      else {
        std::unique_ptr<CExpr> s =
            node(Kind::Select, std::move(e), std::move(a));
        s->operands.push_back(std::move(b));
        e = std::move(s);
      }
    }
    --depth;
    return e;
  }
  std::unique_ptr<CExpr> logicalOr() {
    return binaryLevel(&Parser::logicalAnd, {{"||", Kind::Or}});
  }
  std::unique_ptr<CExpr> logicalAnd() {
    return binaryLevel(&Parser::equality, {{"&&", Kind::And}});
  }
  std::unique_ptr<CExpr> equality() {
    return binaryLevel(&Parser::relational,
                       {{"==", Kind::Eq}, {"!=", Kind::Ne}});
  }
  std::unique_ptr<CExpr> relational() {
    return binaryLevel(
        &Parser::additive,
        {{"<=", Kind::Le}, {">=", Kind::Ge}, {"<", Kind::Lt}, {">", Kind::Gt}});
  }
  std::unique_ptr<CExpr> additive() {
    return binaryLevel(&Parser::multiplicative,
                       {{"+", Kind::Add}, {"-", Kind::Sub}});
  }
  std::unique_ptr<CExpr> multiplicative() {
    return binaryLevel(&Parser::unary,
                       {{"*", Kind::Mul}, {"/", Kind::Div}, {"%", Kind::Rem}});
  }

  std::unique_ptr<CExpr> unary() {
    if (++depth > 256)
      return fail("expression nests too deeply");
    std::unique_ptr<CExpr> e;
    if (peek("!=")) // not a unary operator
      e = fail("unexpected '!='");
    else if (eat("-"))
      e = (e = unary()) ? node(Kind::Neg, std::move(e)) : nullptr;
    else if (eat("!"))
      e = (e = unary()) ? node(Kind::Not, std::move(e)) : nullptr;
    else if (eat("+"))
      e = unary();
    else
      e = primary();
    --depth;
    return e;
  }

  std::unique_ptr<CExpr> primary() {
    skipSpace();
    if (eat("(")) {
      std::unique_ptr<CExpr> e = conditional();
      return e && !eat(")") ? fail("expected ')'") : std::move(e);
    }
    size_t start = pos;
    if (pos < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[pos]))) {
      int64_t v = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos])))
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, text[pos++] - '0', &v))
          return fail("integer literal overflows int64");
      while (pos < text.size() && (text[pos] == 'L' || text[pos] == 'l'))
        ++pos; // C suffixes
      std::unique_ptr<CExpr> e = node(Kind::Int);
      e->value = v;
      return e;
    }
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '_'))
      ++pos;
    if (pos == start)
      return fail(pos < text.size()
                      ? "unexpected '" + std::string(1, text[pos]) + "'"
                      : "unexpected end of expression");
    std::unique_ptr<CExpr> e = node(Kind::Name);
    e->name = std::string(text.substr(start, pos - start));
    return e;
  }
};

class Evaluator {
public:
  explicit Evaluator(
      const std::function<std::optional<int64_t>(std::string_view)> &lookup)
      : lookup(lookup) {}
  std::string message;

  bool eval(const CExpr &e, int64_t &v) {
    auto overflow = [&] { return fail("expression overflows int64"); };
    int64_t a = 0, b = 0;
    switch (e.kind) {
    case Kind::Int:
      v = e.value;
      return true;
    case Kind::Name:
      if (std::optional<int64_t> x = lookup(e.name)) {
        v = *x;
        return true;
      }
      return fail("unknown name '" + e.name + "'");
    case Kind::Neg:
      if (!eval(*e.operands[0], a))
        return false;
      if (a == INT64_MIN)
        return overflow();
      v = -a;
      return true;
    case Kind::Not:
      if (!eval(*e.operands[0], a))
        return false;
      v = !a;
      return true;
    case Kind::And: // short-circuit, as in C
    case Kind::Or:
      if (!eval(*e.operands[0], a))
        return false;
      if ((e.kind == Kind::And) != (a != 0)) {
        v = a != 0;
        return true;
      }
      if (!eval(*e.operands[1], b))
        return false;
      v = b != 0;
      return true;
    case Kind::Select:
      if (!eval(*e.operands[0], a))
        return false;
      return eval(*e.operands[a ? 1 : 2], v);
    default:
      break;
    }
    if (!eval(*e.operands[0], a) || !eval(*e.operands[1], b))
      return false;
    switch (e.kind) {
    case Kind::Add:
      return !__builtin_add_overflow(a, b, &v) || overflow();
    case Kind::Sub:
      return !__builtin_sub_overflow(a, b, &v) || overflow();
    case Kind::Mul:
      return !__builtin_mul_overflow(a, b, &v) || overflow();
    case Kind::Div:
    case Kind::Rem:
      if (b == 0)
        return fail("division by zero in the expression");
      if (a == INT64_MIN && b == -1)
        return overflow();
      v = e.kind == Kind::Div ? a / b : a % b;
      return true;
    case Kind::Lt:
      v = a < b;
      return true;
    case Kind::Le:
      v = a <= b;
      return true;
    case Kind::Gt:
      v = a > b;
      return true;
    case Kind::Ge:
      v = a >= b;
      return true;
    case Kind::Eq:
      v = a == b;
      return true;
    case Kind::Ne:
      v = a != b;
      return true;
    default:
      return fail("unknown expression kind");
    }
  }

private:
  const std::function<std::optional<int64_t>(std::string_view)> &lookup;
  bool fail(const std::string &m) {
    if (message.empty())
      message = m;
    return false;
  }
};
} // namespace

std::unique_ptr<CExpr> kcc::parseCExpr(std::string_view text,
                                       std::string &error) {
  return Parser(text).parse(error);
}

bool kcc::evaluateCExpr(
    const CExpr &e,
    const std::function<std::optional<int64_t>(std::string_view)> &lookup,
    int64_t &result, std::string &error) {
  Evaluator ev(lookup);
  if (ev.eval(e, result))
    return true;
  error = ev.message;
  return false;
}

bool kcc::evaluateCExpr(
    std::string_view text,
    const std::function<std::optional<int64_t>(std::string_view)> &lookup,
    int64_t &result, std::string &error) {
  std::unique_ptr<CExpr> e = parseCExpr(text, error);
  return e && evaluateCExpr(*e, lookup, result, error);
}
