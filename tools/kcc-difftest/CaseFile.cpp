//===- CaseFile.cpp - kcc-difftest case files -----------------------------===//
#include "tools/kcc-difftest/CaseFile.h"
#include "ir/MessageText.h"
#include "targets/TargetModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <tuple>

// See targets/TargetModel.cpp: toml++ 3.3 asserts things its own error paths
// then report; make the asserts no-ops so malformed files give errors.
#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_ASSERT(expr) static_assert(true)
#include <toml++/toml.h>
#pragma pop_macro("NDEBUG")

using namespace kcc;
using namespace kcc::difftest;
using llvm::StringRef;

std::string CaseFile::error(Loc loc, const llvm::Twine &msg) const {
  return llvm::formatv("{0}:{1}:{2}: error: {3}", path, loc.line, loc.column,
                       msg.str())
      .str();
}

namespace {
Loc locOf(const toml::source_region &src) {
  if (!src.begin.line) // the root table has no position
    return {1, 1};
  return {src.begin.line, src.begin.column};
}

bool isName(StringRef s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.')
      return false;
  return true;
}

/// Reads the keys of one table; every key must be read (`finish`).
class Reader {
public:
  Reader(const toml::table &table, const CaseFile &file, std::string what,
         std::string &error)
      : table(table), file(file), what(std::move(what)), error(error) {}

  const toml::node *get(const char *key) {
    known.insert(key);
    return table.get(key);
  }
  bool fail(const toml::node &node, const llvm::Twine &msg) {
    error = file.error(locOf(node.source()), msg);
    return false;
  }
  bool fail(Loc loc, const llvm::Twine &msg) {
    error = file.error(loc, msg);
    return false;
  }
  Loc loc() const { return locOf(table.source()); }

  bool string(const char *key, std::string &out, bool required) {
    const toml::node *n = get(key);
    if (!n)
      return !required ||
             fail(loc(), "missing key '" + StringRef(key) + "' in " + what);
    std::optional<std::string> v = n->value<std::string>();
    if (!v)
      return fail(*n, "'" + StringRef(key) + "' must be a string");
    out = *v;
    return true;
  }
  bool number(const char *key, double &out) {
    const toml::node *n = get(key);
    if (!n)
      return true;
    if (!n->is_number())
      return fail(*n, "'" + StringRef(key) + "' must be a number");
    out = *n->value<double>();
    return true;
  }
  bool integer(const char *key, int64_t &out) {
    const toml::node *n = get(key);
    if (!n)
      return true;
    if (!n->is_integer())
      return fail(*n, "'" + StringRef(key) + "' must be an integer");
    out = *n->value<int64_t>();
    return true;
  }
  bool boolean(const char *key, bool &out) {
    const toml::node *n = get(key);
    if (!n)
      return true;
    if (!n->is_boolean())
      return fail(*n, "'" + StringRef(key) + "' must be true or false");
    out = *n->value<bool>();
    return true;
  }
  /// Rejects keys nobody read: a typo must not fall back to a default.
  bool finish() {
    for (const auto &[key, node] : table) {
      StringRef k(key.data(), key.length());
      if (!known.contains(k))
        return fail(locOf(key.source()),
                    "unknown key '" + elidedText(k) + "' in " + what);
    }
    return true;
  }

private:
  const toml::table &table;
  const CaseFile &file;
  std::string what;
  std::string &error;
  llvm::StringSet<> known;
};

bool parseSize(Reader &r, const toml::node &n, SizeSpec &out) {
  out.loc = locOf(n.source());
  if (n.is_integer()) {
    int64_t v = *n.value<int64_t>();
    if (v <= 0)
      return r.fail(n, "a buffer size must be positive, got " + llvm::Twine(v));
    out.expr = std::to_string(v);
    return true;
  }
  if (std::optional<std::string> s = n.value<std::string>()) {
    out.expr = *s;
    return true;
  }
  return r.fail(n, "a size is an integer or a string with an expression of "
                   "the scalars (\"nrows * stride\")");
}

bool parseInit(Reader &r, const toml::node &n, InitSpec &init) {
  std::optional<std::string> kind = n.value<std::string>();
  if (!kind)
    return r.fail(n, "'init' must be \"constant\", \"uniform\" or \"iota\"");
  if (*kind == "constant")
    init.kind = InitSpec::Constant;
  else if (*kind == "uniform")
    init.kind = InitSpec::Uniform;
  else if (*kind == "iota")
    init.kind = InitSpec::Iota;
  else
    return r.fail(n, "unknown init '" + *kind +
                         "' (expected constant, uniform or iota)");
  return true;
}

bool parseBuffer(const CaseFile &file, StringRef name, const toml::node &node,
                 BufferSpec &b, std::string &error) {
  b.name = name.str();
  b.loc = locOf(node.source());
  const toml::table *t = node.as_table();
  if (!t) {
    error = file.error(b.loc, "buffer '" + name +
                                  "' must be a table "
                                  "({ size = ..., init = ... })");
    return false;
  }
  Reader r(*t, file, "buffer '" + name.str() + "'", error);
  if (const toml::node *d = r.get("dtype")) {
    b.dtypeLoc = locOf(d->source());
    std::optional<std::string> s = d->value<std::string>();
    std::optional<interp::DType> dt = s ? interp::parseDType(*s) : std::nullopt;
    if (!dt)
      return r.fail(*d, "'dtype' must be one of i1 i8 i16 i32 i64 f16 bf16 "
                        "f32 f64 f8e4m3 f8e5m2 f8e4m3fnuz f8e5m2fnuz");
    b.dtype = dt;
  }
  const toml::node *size = r.get("size");
  const toml::node *shape = r.get("shape");
  if (size && shape)
    return r.fail(*shape, "give 'size' or 'shape', not both");
  if (size) {
    b.shape.emplace_back();
    if (!parseSize(r, *size, b.shape.back()))
      return false;
  } else if (shape) {
    const toml::array *arr = shape->as_array();
    if (!arr || arr->empty() || arr->size() > 2)
      return r.fail(*shape, "'shape' must be an array of one or two sizes");
    for (const toml::node &d : *arr) {
      b.shape.emplace_back();
      if (!parseSize(r, d, b.shape.back()))
        return false;
    }
  } else {
    return r.fail(b.loc, "buffer '" + elidedText(name) +
                             "' needs a 'size' or a 'shape'");
  }
  if (const toml::node *init = r.get("init"))
    if (!parseInit(r, *init, b.init))
      return false;
  int64_t seedInt = 0;
  if (!r.number("value", b.init.value) || !r.number("min", b.init.min) ||
      !r.number("max", b.init.max) || !r.number("start", b.init.start) ||
      !r.number("step", b.init.step) || !r.integer("seed", seedInt) ||
      !r.boolean("output", b.output))
    return false;
  b.init.seed = static_cast<uint64_t>(seedInt);
  if (const toml::node *v = r.get("values")) {
    const toml::array *arr = v->as_array();
    if (!arr || r.get("init"))
      return r.fail(*v, "'values' is an array of numbers and replaces 'init'");
    b.init.kind = InitSpec::List;
    for (const toml::node &e : *arr) {
      if (!e.is_number())
        return r.fail(e, "'values' must hold numbers");
      b.init.values.push_back(*e.value<double>());
    }
  }
  if (b.init.kind == InitSpec::Uniform && !(b.init.min <= b.init.max))
    return r.fail(b.loc, "uniform init of '" + elidedText(name) +
                             "' needs min <= max");
  return r.finish();
}

bool parseCase(const CaseFile &file, const toml::table &t, CaseSpec &c,
               std::string &error) {
  Reader r(t, file, "a case", error);
  c.loc = r.loc();
  if (!r.string("name", c.name, true))
    return false;
  if (!isName(c.name))
    return r.fail(*r.get("name"), "case names may use letters, digits, "
                                  "'_', '-' and '.'");
  if (const toml::node *s = r.get("scalars")) {
    const toml::table *st = s->as_table();
    if (!st)
      return r.fail(*s, "'scalars' must be a table { name = value, ... }");
    for (const auto &[key, node] : *st) {
      ScalarSpec sc;
      sc.name = std::string(key.str());
      sc.loc = locOf(node.source());
      if (node.is_integer()) {
        sc.kind = ScalarSpec::Int;
        sc.intValue = *node.value<int64_t>();
        sc.floatValue = static_cast<double>(sc.intValue);
      } else if (node.is_floating_point()) {
        sc.kind = ScalarSpec::Float;
        sc.floatValue = *node.value<double>();
      } else if (node.is_boolean()) {
        sc.kind = ScalarSpec::Bool;
        sc.intValue = *node.value<bool>() ? 1 : 0;
      } else {
        return r.fail(node, "scalar '" + sc.name +
                                "' must be an integer, a float or a boolean");
      }
      c.scalars.push_back(sc);
    }
  }
  const toml::node *bufs = r.get("buffers");
  if (!bufs || !bufs->as_table())
    return r.fail(bufs ? locOf(bufs->source()) : c.loc,
                  "case '" + c.name + "' needs a table 'buffers'");
  for (const auto &[key, node] : *bufs->as_table()) {
    c.buffers.emplace_back();
    if (!parseBuffer(file, StringRef(key.data(), key.length()), node,
                     c.buffers.back(), error))
      return false;
  }
  double rtol = -1, atol = -1;
  if (!r.integer("reduction", c.reduction) || !r.number("rtol", rtol) ||
      !r.number("atol", atol))
    return false;
  if (c.reduction < 1)
    return r.fail(*r.get("reduction"), "'reduction' must be at least 1");
  // A tolerance compares |got - want| against it: a negative or NaN one
  // would fail (or pass) every element whatever the results.
  for (auto [key, value, into] :
       {std::tuple("rtol", rtol, &c.rtol), std::tuple("atol", atol, &c.atol)}) {
    const toml::node *n = r.get(key);
    if (!n)
      continue;
    if (!(value >= 0) || std::isinf(value)) {
      char shown[32];
      std::snprintf(shown, sizeof shown, "%g", value);
      return r.fail(*n, llvm::Twine("'") + key +
                            "' must be a finite number >= 0, got " + shown);
    }
    *into = value;
  }
  return r.finish();
}

bool parseKernel(const CaseFile &file, const toml::table &t, KernelSpec &k,
                 std::string &error) {
  Reader r(t, file, "a [[kernel]] table", error);
  k.loc = r.loc();
  if (!r.string("name", k.name, true))
    return false;
  if (const toml::node *s = r.get("specializations")) {
    const toml::array *arr = s->as_array();
    if (!arr)
      return r.fail(*s, "'specializations' must be an array of function "
                        "names");
    for (const toml::node &e : *arr) {
      std::optional<std::string> name = e.value<std::string>();
      if (!name)
        return r.fail(e, "a specialization is a function name (a string)");
      k.specializations.push_back(*name);
      k.specializationLocs.push_back(locOf(e.source()));
    }
  }
  const toml::node *cases = r.get("case");
  const toml::array *arr = cases ? cases->as_array() : nullptr;
  if (!arr || arr->empty())
    return r.fail(cases ? locOf(cases->source()) : k.loc,
                  "kernel '" + elidedText(k.name) +
                      "' needs at least one [[kernel.case]]");
  llvm::StringSet<> names;
  for (const toml::node &c : *arr) {
    const toml::table *ct = c.as_table();
    if (!ct)
      return r.fail(c, "a case must be a table ([[kernel.case]])");
    k.cases.emplace_back();
    if (!parseCase(file, *ct, k.cases.back(), error))
      return false;
    if (!names.insert(k.cases.back().name).second)
      return r.fail(k.cases.back().loc,
                    "two cases named '" + k.cases.back().name + "'");
  }
  return r.finish();
}
} // namespace

bool kcc::difftest::parseCaseFile(StringRef path, StringRef text,
                                  CaseFile &file, std::string &error) {
  file.path = path.str();
  if (llvm::Error e = checkTomlText(text, path)) {
    error = llvm::toString(std::move(e));
    return false;
  }
  toml::parse_result parsed =
      toml::parse(std::string_view(text.data(), text.size()),
                  std::string_view(path.data(), path.size()));
  if (!parsed) {
    const toml::parse_error &err = parsed.error();
    error = file.error(locOf(err.source()), std::string(err.description()));
    return false;
  }
  const toml::table &root = parsed.table();
  Reader r(root, file, "the case file", error);
  const toml::node *kernels = r.get("kernel");
  const toml::array *arr = kernels ? kernels->as_array() : nullptr;
  if (!arr || arr->empty())
    return r.fail(kernels ? locOf(kernels->source()) : Loc{1, 1},
                  "a case file needs at least one [[kernel]] table");
  for (const toml::node &k : *arr) {
    const toml::table *kt = k.as_table();
    if (!kt)
      return r.fail(k, "'kernel' must be an array of tables ([[kernel]])");
    file.kernels.emplace_back();
    if (!parseKernel(file, *kt, file.kernels.back(), error))
      return false;
  }
  return r.finish();
}
