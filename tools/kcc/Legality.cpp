//===- Legality.cpp - `kcc legality`: query the target models
//---------------===//
#include "tools/kcc/Legality.h"
#include "targets/TmaRules.h"
#include "tools/kcc/JsonNesting.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace kcc;
using namespace llvm;

namespace {
/// The C type of a field of cuTensorMapEncodeTiled: what values it holds.
enum class CType { Enum, U32, U64 };

/// An integer field read as its C parameter type would hold it: an enum
/// (int) takes [-2^31, 2^31); a cuuint32_t or cuuint64_t takes [0, 2^64),
/// a cuuint32_t modulo 2^32 (docs/target-models.md). A number outside,
/// a fraction or a non-number is an error, never clamped to the range.
Expected<int64_t> readInt(const json::Value &v, StringRef field, CType type) {
  auto outOfRange = [&](const Twine &value) {
    const char *range = type == CType::Enum ? "[-2^31, 2^31) (a C enum)"
                        : type == CType::U32
                            ? "[0, 2^64) (a cuuint32_t, taken modulo 2^32)"
                            : "[0, 2^64) (a cuuint64_t)";
    return createStringError(inconvertibleErrorCode(),
                             "field '" + field + "' is " + value +
                                 ", outside " + range);
  };
  std::optional<int64_t> i = v.getAsInteger();
  std::optional<uint64_t> u = i ? std::nullopt : v.getAsUINT64();
  if (!i && !u) {
    std::optional<double> d = v.getAsNumber();
    if (!d || *d != std::floor(*d))
      return createStringError(inconvertibleErrorCode(),
                               "field '" + field + "' must be an integer");
    return outOfRange(formatv("{0:e}", *d));
  }
  if (type == CType::Enum) {
    if (!i || *i < INT32_MIN || *i > INT32_MAX)
      return outOfRange(i ? Twine(*i) : Twine(*u));
    return *i;
  }
  if (i && *i < 0)
    return outOfRange(Twine(*i));
  uint64_t value = i ? uint64_t(*i) : *u;
  if (type == CType::U32)
    return int64_t(uint32_t(value));
  // The rules hold values in int64: 2^63 and above are checked as 2^63 - 1,
  // which every rule on dimensions and strides refuses as it refuses them.
  return value > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(value);
}

Error readCase(const json::Object &obj, TmaTensorMapParams &p) {
  struct Scalar {
    const char *name;
    int64_t *field;
    CType type;
  } scalars[] = {{"dtype", &p.dtype, CType::Enum},
                 {"rank", &p.rank, CType::U32},
                 {"address_mod", &p.addressMod, CType::Enum},
                 {"interleave", &p.interleave, CType::Enum},
                 {"swizzle", &p.swizzle, CType::Enum},
                 {"l2_promotion", &p.l2Promotion, CType::Enum},
                 {"oob_fill", &p.oobFill, CType::Enum}};
  for (const Scalar &s : scalars) {
    const json::Value *v = obj.get(s.name);
    if (!v)
      return createStringError(inconvertibleErrorCode(),
                               Twine("missing field '") + s.name + "'");
    Expected<int64_t> i = readInt(*v, s.name, s.type);
    if (!i)
      return i.takeError();
    *s.field = *i;
  }
  // boxDim and elementStrides are cuuint32_t arrays, the others cuuint64_t.
  struct Array {
    const char *name;
    std::vector<int64_t> *field;
    CType type;
  } arrays[] = {{"global_dim", &p.globalDim, CType::U64},
                {"global_strides", &p.globalStrides, CType::U64},
                {"box_dim", &p.boxDim, CType::U32},
                {"element_strides", &p.elementStrides, CType::U32}};
  for (const Array &a : arrays) {
    const json::Value *v = obj.get(a.name);
    if (!v)
      continue; // reads as zeros up to the rank
    const json::Array *arr = v->getAsArray();
    if (!arr)
      return createStringError(inconvertibleErrorCode(),
                               Twine("field '") + a.name +
                                   "' must be an array of integers");
    for (const json::Value &elem : *arr) {
      Expected<int64_t> i = readInt(elem, a.name, a.type);
      if (!i)
        return i.takeError();
      a.field->push_back(*i);
    }
  }
  return Error::success();
}
} // namespace

int driver::runTmaLegality(const TargetModel &target, StringRef input,
                           StringRef inputName, raw_ostream &out,
                           raw_ostream &errs) {
  int status = 0;
  unsigned lineNo = 0;
  while (!input.empty()) {
    auto [line, rest] = input.split('\n');
    input = rest;
    ++lineNo;
    if (line.trim().empty())
      continue;
    auto fail = [&](const Twine &msg) {
      errs << formatv("{0}:{1}: error: {2}\n", inputName, lineNo, msg.str());
      json::Object err{{"line", lineNo}, {"error", msg.str()}};
      out << json::Value(std::move(err)) << "\n";
      status = 1;
    };
    // A case is an object of numbers and arrays of numbers: two levels.
    constexpr unsigned kMaxNesting = 16;
    if (unsigned depth = jsonNesting(line); depth > kMaxNesting) {
      fail("the line nests arrays and objects " + Twine(depth) +
           " levels deep (at most " + Twine(kMaxNesting) +
           "); a case is one object of numbers and arrays of numbers");
      continue;
    }
    Expected<json::Value> value = json::parse(line);
    if (!value) {
      fail("not JSON: " + toString(value.takeError()));
      continue;
    }
    const json::Object *obj = value->getAsObject();
    if (!obj) {
      fail("each line must be a JSON object");
      continue;
    }
    TmaTensorMapParams params;
    if (Error e = readCase(*obj, params)) {
      fail(toString(std::move(e)));
      continue;
    }
    TmaVerdict verdict = checkTmaTensorMap(target, params);
    json::Object result;
    if (const json::Value *id = obj->get("id"))
      result["id"] = *id;
    result["legal"] = verdict.legal();
    if (!verdict.legal()) {
      json::Array rules, reasons;
      for (const TmaRuleFailure &f : verdict.failures) {
        rules.push_back(f.rule);
        reasons.push_back(f.message);
      }
      result["failed_rules"] = std::move(rules);
      result["reasons"] = std::move(reasons);
    }
    out << json::Value(std::move(result)) << "\n";
  }
  return status;
}
