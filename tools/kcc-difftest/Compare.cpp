//===- Compare.cpp - dtype-aware comparison of outputs --------------------===//
#include "tools/kcc-difftest/Compare.h"
#include "interp/Element.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace kcc::interp;
using namespace kcc::difftest;

Tolerance kcc::difftest::defaultTolerance(DType type, int64_t reduction) {
  Tolerance t;
  switch (type) {
  case DType::f16:
    t = {1e-3, 1e-3};
    break; // 1 ulp of f16 is <= 2^-10
  case DType::bf16:
    t = {1e-2, 1e-2};
    break; // 1 ulp of bf16 is <= 2^-7
  case DType::f32:
    t = {1e-5, 1e-6};
    break;
  case DType::f64:
    t = {1e-12, 1e-14};
    break;
  // An 8-bit float output is an f32 cast (cvt.rn.satfinite on the GPU, the
  // same rounding here), so it is exact for the same f32; but the f32 may
  // differ in its last bits (fused multiply-adds, a tensor core's sums) and
  // then round to the neighbouring f8 value where it sits near a midpoint.
  // One f8 ulp is allowed: at most 2^-3 (E4M3) / 2^-2 (E5M2) of a normal
  // value, and the smallest subnormal near zero.
  case DType::f8e4m3:
    t = {0x1p-3, 0x1p-9};
    break;
  case DType::f8e5m2:
    t = {0x1p-2, 0x1p-16};
    break;
  case DType::f8e4m3fnuz:
    t = {0x1p-3, 0x1p-10};
    break;
  case DType::f8e5m2fnuz:
    t = {0x1p-2, 0x1p-17};
    break;
  default:
    return {0, 0}; // integers and booleans: exact
  }
  if (reduction > 1) {
    // Summation order differs (sequential here, a tree on the GPU): the
    // difference grows like sqrt(n) ulps of the accumulator (a random
    // walk), f32 unless the output itself is f64.
    double s = std::sqrt(static_cast<double>(reduction));
    Tolerance acc =
        type == DType::f64 ? Tolerance{1e-12, 1e-14} : Tolerance{1e-5, 1e-6};
    t.rtol += acc.rtol * s;
    t.atol += acc.atol * s;
  }
  return t;
}

double kcc::difftest::elementAsDouble(const NpyArray &a, int64_t i) {
  if (isFloat(a.dtype))
    return loadFloatElement(a.data.data(), a.dtype, i);
  int64_t v = loadIntElement(a.data.data(), a.dtype, i);
  return a.dtype == DType::i1 ? (v != 0) : static_cast<double>(v);
}

std::string kcc::difftest::formatElement(const NpyArray &a, int64_t i) {
  char buf[64];
  if (!isFloat(a.dtype)) {
    int64_t v = loadIntElement(a.data.data(), a.dtype, i);
    std::snprintf(buf, sizeof buf, "%lld",
                  static_cast<long long>(a.dtype == DType::i1 ? (v != 0) : v));
    return buf;
  }
  // Digits that round-trip: 5 for f16, 4 for bf16, 9 for f32 and the 8-bit
  // floats (f32 values: 57344, not 5.73e+04), 17 for f64.
  int digits = a.dtype == DType::f16                        ? 5
               : a.dtype == DType::bf16                     ? 4
               : a.dtype == DType::f32 || isFloat8(a.dtype) ? 9
                                                            : 17;
  std::snprintf(buf, sizeof buf, "%.*g", digits,
                loadFloatElement(a.data.data(), a.dtype, i));
  return buf;
}

namespace {
std::string formatIndex(const NpyArray &a, int64_t i) {
  if (a.shape.size() == 2 && a.shape[1] > 0)
    return "[" + std::to_string(i / a.shape[1]) + ", " +
           std::to_string(i % a.shape[1]) + "]";
  return "[" + std::to_string(i) + "]";
}

std::string shapeString(const NpyArray &a) {
  std::string s = dtypeName(a.dtype);
  s += "[";
  for (size_t i = 0; i < a.shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(a.shape[i]);
  return s + "]";
}
} // namespace

Comparison kcc::difftest::compareArrays(const std::string &name,
                                        const NpyArray &ref,
                                        const NpyArray &got, Tolerance tol) {
  Comparison c;
  if (ref.dtype != got.dtype || ref.shape != got.shape) {
    c.summary = name + ": shape mismatch: expected " + shapeString(ref) +
                ", got " + shapeString(got);
    return c;
  }
  int64_t n = ref.numElements();
  double maxAbs = 0, maxRel = 0;
  int64_t mismatches = 0, first = -1;
  // The element type's decoding chosen once, not per element (an output
  // of thousands of elements took longer to compare than to simulate).
  auto each = [&](auto value) {
    for (int64_t i = 0; i < n; ++i) {
      double r = value(ref, i), g = value(got, i);
      bool same;
      if (std::isnan(r) || std::isnan(g))
        same = std::isnan(r) && std::isnan(g);
      else if (std::isinf(r) || std::isinf(g))
        same = r == g;
      else {
        double abs = std::fabs(g - r);
        double rel = r != 0 ? abs / std::fabs(r) : (abs != 0 ? INFINITY : 0);
        maxAbs = std::max(maxAbs, abs);
        maxRel = std::max(maxRel, rel);
        same = abs <= tol.atol + tol.rtol * std::fabs(r);
      }
      if (!same && mismatches++ == 0)
        first = i;
    }
  };
  auto bits16 = [](const NpyArray &a, int64_t i) {
    return uint16_t(a.data[2 * i] | a.data[2 * i + 1] << 8);
  };
  switch (ref.dtype) {
  case DType::f32:
    each([](const NpyArray &a, int64_t i) {
      float f;
      std::memcpy(&f, a.data.data() + 4 * i, 4);
      return double(f);
    });
    break;
  case DType::f16:
    each([&](const NpyArray &a, int64_t i) {
      return fromHalfBits(bits16(a, i));
    });
    break;
  case DType::bf16:
    each([&](const NpyArray &a, int64_t i) {
      return fromBF16Bits(bits16(a, i));
    });
    break;
  default:
    each(elementAsDouble);
  }
  char stats[160];
  std::snprintf(stats, sizeof stats, "max abs err %.3g, max rel err %.3g",
                maxAbs, maxRel);
  c.ok = mismatches == 0;
  if (c.ok) {
    c.summary = stats;
    return c;
  }
  char tolText[96];
  std::snprintf(tolText, sizeof tolText, "(rtol %.3g, atol %.3g)", tol.rtol,
                tol.atol);
  c.summary = name + formatIndex(ref, first) + ": expected " +
              formatElement(ref, first) + ", got " + formatElement(got, first) +
              "; " + std::to_string(mismatches) + " of " + std::to_string(n) +
              " elements differ " + tolText + "; " + stats;
  return c;
}
