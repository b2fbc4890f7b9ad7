//===- Legality.cpp - `kcc legality`: query the target models
//---------------===//
#include "tools/kcc/Legality.h"
#include "targets/TmaRules.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace kcc;
using namespace llvm;

namespace {
/// An integer field; values beyond int64 saturate (they fail a range rule
/// anyway), fractions and non-numbers are errors.
Expected<int64_t> readInt(const json::Value &v, StringRef field) {
  if (std::optional<int64_t> i = v.getAsInteger())
    return *i;
  if (std::optional<uint64_t> u = v.getAsUINT64())
    return static_cast<int64_t>(std::min<uint64_t>(*u, INT64_MAX));
  if (std::optional<double> d = v.getAsNumber(); d && *d == std::floor(*d)) {
    if (*d >= 9.2e18)
      return INT64_MAX;
    if (*d <= -9.2e18)
      return INT64_MIN;
    return static_cast<int64_t>(*d);
  }
  return createStringError(inconvertibleErrorCode(),
                           "field '" + field + "' must be an integer");
}

Error readCase(const json::Object &obj, TmaTensorMapParams &p) {
  struct Scalar {
    const char *name;
    int64_t *field;
  } scalars[] = {{"dtype", &p.dtype},
                 {"rank", &p.rank},
                 {"address_mod", &p.addressMod},
                 {"interleave", &p.interleave},
                 {"swizzle", &p.swizzle},
                 {"l2_promotion", &p.l2Promotion},
                 {"oob_fill", &p.oobFill}};
  for (const Scalar &s : scalars) {
    const json::Value *v = obj.get(s.name);
    if (!v)
      return createStringError(inconvertibleErrorCode(),
                               Twine("missing field '") + s.name + "'");
    Expected<int64_t> i = readInt(*v, s.name);
    if (!i)
      return i.takeError();
    *s.field = *i;
  }
  // cuTensorMapEncodeTiled takes the rank as cuuint32_t: what a C caller
  // passes for a larger value is its low 32 bits.
  p.rank = static_cast<int64_t>(static_cast<uint32_t>(p.rank));
  // boxDim and elementStrides are cuuint32_t arrays (low 32 bits, as
  // above); the others are cuuint64_t.
  struct Array {
    const char *name;
    std::vector<int64_t> *field;
    bool u32;
  } arrays[] = {{"global_dim", &p.globalDim, false},
                {"global_strides", &p.globalStrides, false},
                {"box_dim", &p.boxDim, true},
                {"element_strides", &p.elementStrides, true}};
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
      Expected<int64_t> i = readInt(elem, a.name);
      if (!i)
        return i.takeError();
      a.field->push_back(a.u32 ? static_cast<int64_t>(static_cast<uint32_t>(*i))
                               : *i);
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
