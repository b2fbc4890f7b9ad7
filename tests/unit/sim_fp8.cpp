// Unit tests for the simulator's 8-bit float conversions (sim/Float.h: the
// cvt.rn.satfinite and cvt.rn.f16x2 instructions kcc's casts lower to)
// against NVIDIA's conversions in interp_fp8_table.inc (see
// interp_fp8.cpp). The simulator encodes by searching the format's values,
// the interpreter by rounding arithmetic: both must give CUDA's bytes.
#include "sim/Float.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

using namespace kcc::sim;

namespace {
#include "interp_fp8_table.inc"

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void checkDecoded(const uint32_t (&table)[256], F8 format) {
  for (unsigned bits = 0; bits < 256; ++bits) {
    INFO("bits 0x", std::hex, bits);
    float want = bitsToFloat(table[bits]);
    double got = float8ToDouble(uint8_t(bits), format);
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
      continue;
    }
    CHECK(got == double(want));
    CHECK(std::signbit(got) == std::signbit(want));
    // cvt.rn.f16x2 from 8-bit floats is exact.
    CHECK(halfToFloat(floatToHalf(float(got))) == want);
  }
}
} // namespace

TEST_CASE("sim f8: cvt.rn.f16x2.{e4m3x2,e5m2x2} of every bit pattern") {
  checkDecoded(kE4M3Decoded, F8::E4M3);
  checkDecoded(kE5M2Decoded, F8::E5M2);
}

TEST_CASE("sim f8: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 is CUDA's") {
  unsigned mismatches = 0;
  for (const Fp8EncodeCase &c : kFp8Encode) {
    float x = bitsToFloat(c.input);
    INFO("f32 bits 0x", std::hex, c.input, " (", double(x), ")");
    uint8_t e4m3 = floatToFloat8(x, F8::E4M3);
    uint8_t e5m2 = floatToFloat8(x, F8::E5M2);
    CHECK(unsigned(e4m3) == unsigned(c.e4m3));
    CHECK(unsigned(e5m2) == unsigned(c.e5m2));
    mismatches += e4m3 != c.e4m3 || e5m2 != c.e5m2;
  }
  CHECK(mismatches == 0);
}
