// Unit tests for MI300's 8-bit floats (f8e4m3fnuz, f8e5m2fnuz): the
// interpreter's rounding and encoding (interp/Element.cpp) and the
// simulator's gfx942 conversions (sim/Float.h) against LLVM's APFloat
// (Float8E4M3FNUZ / Float8E5M2FNUZ semantics), an implementation neither
// shares code with. kcc's cast saturates (APFloat overflows to NaN: the
// oracle clamps first), keeps NaN as the one NaN 0x80 and has no -0.
#include "interp/Element.h"
#include "sim/Float.h"

#include "llvm/ADT/APFloat.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

using namespace kcc::interp;

namespace {

const llvm::fltSemantics &semantics(DType t) {
  return t == DType::f8e4m3fnuz ? llvm::APFloat::Float8E4M3FNUZ()
                                : llvm::APFloat::Float8E5M2FNUZ();
}
kcc::sim::F8 simFormat(DType t) {
  return t == DType::f8e4m3fnuz ? kcc::sim::F8::E4M3FNUZ
                                : kcc::sim::F8::E5M2FNUZ;
}

double decodedByAPFloat(uint8_t bits, DType t) {
  return llvm::APFloat(semantics(t), llvm::APInt(8, bits)).convertToDouble();
}

/// kcc's cast of `x` by APFloat: NaN is 0x80; others clamped to the largest
/// finite value, then rounded to nearest even.
uint8_t encodedByAPFloat(float x, DType t) {
  if (std::isnan(x))
    return 0x80;
  double largest = llvm::APFloat::getLargest(semantics(t)).convertToDouble();
  double clamped = std::fmin(std::fmax(double(x), -largest), largest);
  llvm::APFloat f(clamped);
  bool lost = false;
  f.convert(semantics(t), llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint8_t(f.bitcastToAPInt().getZExtValue());
}

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Every value and midpoint of the format, its neighbours in f32, the
/// saturation boundary, infinities, zeros, NaN, and random f32s.
std::vector<float> probes(DType t) {
  std::vector<float> xs = {0.0f,  -0.0f,  INFINITY, -INFINITY, NAN,
                           1e30f, -1e30f, 1e-30f,   -1e-30f};
  for (unsigned b = 0; b < 256; ++b) {
    double v = decodedByAPFloat(uint8_t(b), t);
    if (std::isnan(v))
      continue;
    double next = decodedByAPFloat(uint8_t(b + 1), t);
    for (double y :
         {v, std::isnan(next) || b == 0x7f ? v * 1.04 : (v + next) / 2}) {
      float f = float(y);
      xs.insert(xs.end(),
                {f, std::nextafter(f, INFINITY), std::nextafter(f, -INFINITY)});
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint32_t u = rng();
    // Mostly exponents near the format's range.
    if (i % 4)
      u = (u & 0x807fffff) | (uint32_t(100 + rng() % 60) << 23);
    xs.push_back(floatOf(u));
  }
  return xs;
}

} // namespace

TEST_CASE("fnuz: every bit pattern decodes as APFloat's") {
  for (DType t : {DType::f8e4m3fnuz, DType::f8e5m2fnuz}) {
    for (unsigned bits = 0; bits < 256; ++bits) {
      INFO(dtypeName(t), " bits 0x", std::hex, bits);
      double want = decodedByAPFloat(uint8_t(bits), t);
      uint8_t byte = uint8_t(bits);
      double got = fromFloat8Bits(byte, t);
      double sim = kcc::sim::float8ToDouble(byte, simFormat(t));
      if (bits == 0x80) { // the one NaN (where -0 would be)
        CHECK(std::isnan(want));
        CHECK(std::isnan(got));
        CHECK(std::isnan(sim));
        continue;
      }
      CHECK(got == want);
      CHECK(sim == want);
      CHECK(std::signbit(got) == std::signbit(want));
      CHECK(loadFloatElement(&byte, t, 0) == want);
      CHECK(roundToFloat(got, t) == got);
      CHECK(toFloat8Bits(got, t) == byte);
    }
    CHECK(dtypeSize(t) == 1);
    CHECK(isFloat(t));
    CHECK(parseDType(dtypeName(t)) == t);
  }
  CHECK(fromFloat8Bits(0x7f, DType::f8e4m3fnuz) == 240.0);
  CHECK(fromFloat8Bits(0x7f, DType::f8e5m2fnuz) == 57344.0);
}

TEST_CASE("fnuz: f32 -> f8 saturates and rounds as APFloat does") {
  for (DType t : {DType::f8e4m3fnuz, DType::f8e5m2fnuz}) {
    double largest = llvm::APFloat::getLargest(semantics(t)).convertToDouble();
    unsigned mismatches = 0;
    for (float x : probes(t)) {
      INFO(dtypeName(t), " f32 ", double(x));
      uint8_t want = encodedByAPFloat(x, t);
      // The interpreter: the cast's value, then the byte a store writes.
      uint8_t interp = toFloat8Bits(saturateToFloat8(x, t), t);
      CHECK(unsigned(interp) == unsigned(want));
      mismatches += interp != want;
      // The simulator's v_cvt_pk_{fp8,bf8}_f32, given what kcc's lowering
      // hands it: x clamped to the largest value (NaN kept).
      float clamped =
          std::isnan(x)
              ? x
              : float(std::fmin(std::fmax(double(x), -largest), largest));
      CHECK(unsigned(kcc::sim::floatToFloat8(clamped, simFormat(t))) ==
            unsigned(want));
    }
    CHECK(mismatches == 0);
  }
  // No negative zero: -tiny rounds to +0, and -0 is stored as 0x00.
  CHECK(toFloat8Bits(saturateToFloat8(-1e-30, DType::f8e4m3fnuz),
                     DType::f8e4m3fnuz) == 0);
  CHECK(!std::signbit(roundToFloat(-1e-30, DType::f8e5m2fnuz)));
  // Unclamped, the simulator reads an overflow as NaN (the instruction
  // without clamp); a value that rounds down to the largest is not one.
  CHECK(kcc::sim::floatToFloat8(1000.0f, kcc::sim::F8::E4M3FNUZ) == 0x80);
  CHECK(kcc::sim::floatToFloat8(247.0f, kcc::sim::F8::E4M3FNUZ) == 0x7f);
  CHECK(kcc::sim::floatToFloat8(248.0f, kcc::sim::F8::E4M3FNUZ) == 0x80);
}
