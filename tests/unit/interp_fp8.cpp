// Unit tests for the interpreter's 8-bit floats (interp/Element.cpp) against
// NVIDIA's conversions: interp_fp8_table.inc is written by
// scripts/gen-fp8-table.cpp from cuda_fp8.hpp's host code, which NVIDIA
// documents to match the hardware (cvt.rn.satfinite.{e4m3,e5m2}x2.f32 and
// cvt.rn.f16x2.{e4m3,e5m2}x2).
#include "interp/Element.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace kcc::interp;

namespace {
#include "interp_fp8_table.inc"

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The byte kcc's cast gives for `x` (arith.truncf f32 -> f8: the value the
/// interpreter computes, then the byte a store writes).
uint8_t castToFloat8(float x, DType type) {
  return toFloat8Bits(saturateToFloat8(x, type), type);
}

void checkDecoded(const uint32_t (&table)[256], DType type) {
  for (unsigned bits = 0; bits < 256; ++bits) {
    INFO(dtypeName(type), " bits 0x", std::hex, bits);
    float want = floatOf(table[bits]);
    uint8_t byte = uint8_t(bits);
    double got = fromFloat8Bits(byte, type);
    double loaded = loadFloatElement(&byte, type, 0);
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
      CHECK(std::isnan(loaded));
      continue;
    }
    CHECK(got == double(want));
    CHECK(std::signbit(got) == std::signbit(want)); // -0 is 0x80
    CHECK(loaded == double(want));
    // Decoded values are the format's: rounding keeps them, and a store
    // writes the same byte (NaNs are canonical: checked below).
    CHECK(roundToFloat(got, type) == got);
    CHECK(toFloat8Bits(got, type) == byte);
  }
}
} // namespace

TEST_CASE("f8: every bit pattern decodes as CUDA's f8 -> f16 conversion") {
  checkDecoded(kE4M3Decoded, DType::f8e4m3);
  checkDecoded(kE5M2Decoded, DType::f8e5m2);
}

TEST_CASE("f8: f32 -> f8 is CUDA's satfinite conversion") {
  // Every value, tie, neighbour of a tie, saturation boundary, NaN, zero and
  // subnormal boundary of both formats, and pseudo-random inputs.
  REQUIRE(sizeof(kFp8Encode) / sizeof(kFp8Encode[0]) > 5000);
  unsigned mismatches = 0;
  for (const Fp8EncodeCase &c : kFp8Encode) {
    float x = floatOf(c.input);
    INFO("f32 bits 0x", std::hex, c.input, " (", double(x), ")");
    uint8_t e4m3 = castToFloat8(x, DType::f8e4m3);
    uint8_t e5m2 = castToFloat8(x, DType::f8e5m2);
    CHECK(unsigned(e4m3) == unsigned(c.e4m3));
    CHECK(unsigned(e5m2) == unsigned(c.e5m2));
    mismatches += e4m3 != c.e4m3 || e5m2 != c.e5m2;
    // The value the interpreter keeps is the byte's.
    double v = saturateToFloat8(x, DType::f8e4m3);
    if (!std::isnan(v))
      CHECK(v == fromFloat8Bits(c.e4m3, DType::f8e4m3));
    v = saturateToFloat8(x, DType::f8e5m2);
    if (!std::isnan(v))
      CHECK(v == fromFloat8Bits(c.e5m2, DType::f8e5m2));
  }
  CHECK(mismatches == 0);
}

TEST_CASE("f8: the interpreter rounds from double in one step") {
  // A double between f32 values that sits just above an f8 midpoint: a
  // detour through f32 would round it to the midpoint and then to even.
  double mid = (1.0 + 1.125) / 2; // E4M3 neighbours 1 and 1.125
  CHECK(roundToFloat(mid, DType::f8e4m3) == 1.0);
  CHECK(roundToFloat(mid + 0x1p-40, DType::f8e4m3) == 1.125);
}

TEST_CASE("f8: storing keeps E5M2's infinities; truncf saturates them") {
  const double inf = std::numeric_limits<double>::infinity();
  uint8_t byte = 0;
  storeFloatElement(&byte, DType::f8e5m2, 0, -inf);
  CHECK(unsigned(byte) == 0xfcu); // a loaded -inf stored back
  CHECK(saturateToFloat8(-inf, DType::f8e5m2) == -57344.0);
  // E4M3 has no infinity: the nearest value is the largest.
  storeFloatElement(&byte, DType::f8e4m3, 0, inf);
  CHECK(unsigned(byte) == 0x7eu);
  storeFloatElement(&byte, DType::f8e4m3, 0,
                    std::numeric_limits<double>::quiet_NaN());
  CHECK(unsigned(byte) == 0x7fu);
  CHECK(dtypeSize(DType::f8e4m3) == 1);
  CHECK(dtypeSize(DType::f8e5m2) == 1);
  CHECK(isFloat(DType::f8e5m2));
  CHECK(parseDType("f8e4m3") == DType::f8e4m3);
  CHECK(parseDType("f8e5m2") == DType::f8e5m2);
  CHECK(parseDType("f8") == std::nullopt);
}
