//===- Float.h - float bit patterns of the simulator's registers --*- C++
//-*-===//
//
// Registers hold floats as their bit patterns in their own type. f32 and f64
// arithmetic is done natively (IEEE, round to nearest even, as the GPU's
// non-approximate instructions); f16 and bf16 go through f32, which rounds
// + - * / correctly since f32 has more than 2p+2 bits of precision.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_SIM_FLOAT_H
#define KCC_SIM_FLOAT_H

#include "sim/Program.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kcc::sim {

inline float asF32(uint64_t b) {
  uint32_t u = uint32_t(b);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline double asF64(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t bitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f,
           man = h & 0x3ff;
  uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000 | (man << 13);
  } else if (exp == 0) {
    if (man == 0)
      return asF32(sign);
    float f = std::ldexp(float(man), -24);
    return sign ? -f : f;
  } else {
    u = sign | ((exp + 112) << 23) | (man << 13);
  }
  return asF32(u);
}

/// Round to nearest even; overflow to infinity; NaN stays NaN.
inline uint16_t floatToHalf(float f) {
  uint32_t u = uint32_t(bitsOf(f));
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t exp = (u >> 23) & 0xff, man = u & 0x7fffff;
  if (exp == 0xff)
    return sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0);
  int e = int(exp) - 127 + 15;
  if (e >= 0x1f)
    return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10)
      return sign;
    man |= 0x800000;
    unsigned shift = unsigned(14 - e);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1),
             half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      ++h;
    return sign | uint16_t(h);
  }
  uint32_t h = (uint32_t(e) << 10) | (man >> 13), rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent, up to infinity: correct
  return sign | uint16_t(h);
}

inline float bf16ToFloat(uint16_t b) { return asF32(uint32_t(b) << 16); }
inline uint16_t floatToBF16(float f) {
  uint32_t u = uint32_t(bitsOf(f));
  if ((u & 0x7fffffff) > 0x7f800000)
    return uint16_t((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

/// The value of 8-bit float `bits` (NaN for its NaN encodings; E5M2 has
/// infinities, E4M3 none; the FNUZ formats' one NaN is 0x80, and every other
/// pattern is a finite value with exponent bias 8 / 16).
inline double float8ToDouble(uint8_t bits, F8 f) {
  if (f == F8::E4M3FNUZ || f == F8::E5M2FNUZ) {
    if (bits == 0x80)
      return std::nan("");
    bool e5 = f == F8::E5M2FNUZ;
    int manBits = e5 ? 2 : 3, bias = e5 ? 16 : 8;
    int e = (bits & 0x7f) >> manBits, m = bits & ((1 << manBits) - 1);
    double mag =
        e == 0 ? std::ldexp(double(m), 1 - bias - manBits)
               : std::ldexp(double(m + (1 << manBits)), e - bias - manBits);
    return (bits & 0x80) ? -mag : mag;
  }
  bool e5 = f == F8::E5M2;
  unsigned manBits = e5 ? 2 : 3, bias = e5 ? 15 : 7;
  unsigned e = (bits & 0x7f) >> manBits, m = bits & ((1u << manBits) - 1);
  double sign = (bits & 0x80) ? -1.0 : 1.0;
  unsigned eMax = (1u << (7 - manBits)) - 1;
  if (e5 && e == eMax)
    return m ? std::nan("") : sign * HUGE_VAL;
  if (!e5 && e == eMax && m == (1u << manBits) - 1)
    return std::nan("");
  if (e == 0) // subnormal
    return sign * std::ldexp(double(m), 1 - int(bias) - int(manBits));
  return sign * std::ldexp(1.0 + std::ldexp(double(m), -int(manBits)),
                           int(e) - int(bias));
}

/// cvt.rn.satfinite to an 8-bit float: the nearest value, ties to the even
/// encoding; beyond the largest finite value (infinities included) that
/// value; NaN the canonical NaN 0x7f. For the FNUZ formats, gfx942's
/// v_cvt_pk_{fp8,bf8}_f32 (no clamp): NaN 0x80, no -0, NaN past the top.
/// A search over the format's finite values, so it shares nothing with the
/// interpreter's rounding.
inline uint8_t floatToFloat8(float x, F8 f) {
  bool fnuz = f == F8::E4M3FNUZ || f == F8::E5M2FNUZ;
  if (std::isnan(x))
    return fnuz ? 0x80 : 0x7f;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(double(x));
  // lo: the largest encoding whose value is at most |x|; hi the next one.
  unsigned lo = 0, hi = 0;
  for (unsigned b = 1; b < 0x80; ++b) {
    double v = float8ToDouble(uint8_t(b), f);
    if (!std::isfinite(v))
      break; // the encodings grow with the value; the rest are not finite
    if (v > a) {
      hi = b;
      break;
    }
    lo = b;
  }
  if (!hi) { // at or beyond the largest finite value
    // gfx942's v_cvt_pk_{fp8,bf8}_f32 without clamp: from half an ulp past
    // the largest value on (a tie rounds to the even pattern, past it)
    // there is nothing to round to, and the simulator reads that as NaN
    // (kcc clamps first, so its casts never get there).
    double top = float8ToDouble(uint8_t(lo), f);
    if (fnuz && a >= top + (top - float8ToDouble(uint8_t(lo - 1), f)) / 2)
      return 0x80;
    return sign | uint8_t(lo);
  }
  // Exact in double: both values are short binary fractions.
  double mid =
      (float8ToDouble(uint8_t(lo), f) + float8ToDouble(uint8_t(hi), f)) / 2;
  unsigned r = a < mid ? lo : a > mid ? hi : (lo % 2 == 0 ? lo : hi);
  if (fnuz && r == 0) // FNUZ has no -0 (0x80 is its NaN)
    return 0;
  return sign | uint8_t(r);
}

/// A register element of kind `ek` as a double (exact for every kind).
inline double toDouble(uint64_t bits, EK ek) {
  switch (ek) {
  case EK::F16:
    return halfToFloat(uint16_t(bits));
  case EK::BF16:
    return bf16ToFloat(uint16_t(bits));
  case EK::F32:
    return asF32(bits);
  case EK::F64:
    return asF64(bits);
  default:
    return double(bits);
  }
}

/// Rounds `d` to kind `ek` (f16/bf16 via f32: double rounding can differ
/// from a direct rounding only in ties far below the tolerances used).
inline uint64_t fromDouble(double d, EK ek) {
  switch (ek) {
  case EK::F16:
    return floatToHalf(float(d));
  case EK::BF16:
    return floatToBF16(float(d));
  case EK::F32:
    return bitsOf(float(d));
  case EK::F64:
    return bitsOf(d);
  default:
    return uint64_t(d);
  }
}

} // namespace kcc::sim

#endif // KCC_SIM_FLOAT_H
