//===- Element.cpp - element values: rounding and memory encoding ---------===//
#include "interp/Element.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kcc::interp {

namespace {
/// Rounds to a binary format with `p` significand bits (the leading one
/// included), minimum normal exponent `emin` and maximum exponent `emax`.
double roundToFormat(double x, int p, int emin, int emax) {
  if (!std::isfinite(x) || x == 0)
    return x;
  int e;
  std::frexp(x, &e); // x = m * 2^e with 0.5 <= |m| < 1
  int lead = e - 1;  // exponent of the leading bit
  // The quantum: one unit in the last place, fixed below emin (subnormals).
  int q = (lead > emin ? lead : emin) - (p - 1);
  // Scaling by a power of two is exact; nearbyint rounds ties to even in the
  // default rounding mode.
  double y = std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, 1 - p), emax);
  if (std::fabs(y) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  return y;
}

/// roundToFormat on the bits of `x` (the simulators round every f16/bf16
/// value, and frexp/ldexp/nearbyint were a tenth of their time): adding
/// half a quantum less one, plus the kept last bit, and clearing the
/// dropped bits rounds to nearest even; a carry into the exponent is the
/// right result too. Values whose quantum is fixed below the format's
/// normals by more than 52 bits, and non-finite ones, take roundToFormat.
double roundToFormatFast(double x, int p, int emin, int emax,
                         double maxFinite) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  int biased = int(u >> 52 & 0x7ff);
  if (biased == 0 || biased == 0x7ff)
    return roundToFormat(x, p, emin, emax); // zero, subnormal, inf, NaN
  int lead = biased - 1023;
  // Bits of the 52-bit fraction to drop: below the format's normals the
  // quantum stays at emin - (p - 1).
  int drop = 52 - (p - 1) + (lead < emin ? emin - lead : 0);
  if (drop > 52)
    return roundToFormat(x, p, emin, emax);
  // The last kept bit: a fraction bit, or at drop 52 the implicit one.
  uint64_t lastKept = drop == 52 ? 1 : u >> drop & 1;
  u += (uint64_t(1) << (drop - 1)) - 1 + lastKept;
  u &= ~((uint64_t(1) << drop) - 1);
  double y;
  std::memcpy(&y, &u, sizeof y);
  if (std::fabs(y) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  return y;
}

/// The parameters of the 8-bit float formats.
struct Float8Format {
  int p;    // significand bits, the leading one included
  int emin; // exponent of the smallest normal
  int bias; // exponent bias
  double maxFinite;
};
Float8Format float8Format(DType type) {
  // E4M3 spends the exponent field's top value on normals (only S.1111.111
  // is NaN), so its largest finite value is 1.75 x 2^8 rather than 1.875 x 2^7.
  // The FNUZ formats spend no exponent value on NaN or infinity (0x80, the
  // pattern of -0, is their one NaN), and their bias is one more.
  switch (type) {
  case DType::f8e4m3:
    return {4, -6, 7, 448.0};
  case DType::f8e4m3fnuz:
    return {4, -7, 8, 240.0};
  case DType::f8e5m2fnuz:
    return {3, -15, 16, 57344.0};
  default:
    return {3, -14, 15, 57344.0};
  }
}

template <typename T> T readLE(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T)); // x86-64 and aarch64 are little-endian
  return v;
}
template <typename T> void writeLE(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
} // namespace

double roundToNarrowFloat(double x, DType type) {
  switch (type) {
  case DType::f16:
    return roundToFormatFast(x, 11, -14, 15, 65504.0);
  case DType::bf16:
    return roundToFormatFast(x, 8, -126, 127, 0x1.fep127);
  case DType::f32:
    return static_cast<double>(static_cast<float>(x));
  case DType::f8e4m3:
  case DType::f8e5m2:
  case DType::f8e4m3fnuz:
  case DType::f8e5m2fnuz: {
    Float8Format f = float8Format(type);
    if (std::isnan(x))
      return x;
    // E5M2 holds infinities; the others have none, their nearest value is
    // the largest.
    if (std::isinf(x))
      return type == DType::f8e5m2 ? x : std::copysign(f.maxFinite, x);
    // An exponent range no finite double leaves: rounding is only bounded
    // below (subnormals), and the saturation follows.
    double y = roundToFormat(x, f.p, f.emin, 1000);
    if (!(std::fabs(y) <= f.maxFinite))
      return std::copysign(f.maxFinite, x);
    // FNUZ has one zero, +0 (its -0 pattern is the NaN).
    if (y == 0 && isFnuzFloat8(type))
      return 0.0;
    return y;
  }
  default:
    return x;
  }
}

double saturateToFloat8(double x, DType type) {
  if (std::isinf(x))
    x = std::copysign(float8Format(type).maxFinite, x);
  return roundToFloat(x, type);
}

uint8_t toFloat8Bits(double x, DType type) {
  Float8Format f = float8Format(type);
  // The one NaN cvt.rn.satfinite and CUDA's host conversions produce, for
  // either sign; FNUZ's only NaN is 0x80.
  if (std::isnan(x))
    return isFnuzFloat8(type) ? 0x80 : 0x7f;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double y = std::fabs(roundToFloat(x, type));
  if (std::isinf(y)) // E5M2 only
    return sign | 0x7c;
  if (y == 0)
    return isFnuzFloat8(type) ? 0 : sign;
  int mantBits = f.p - 1;
  int e;
  std::frexp(y, &e);
  int lead = e - 1;
  if (lead < f.emin) // subnormal: a multiple of 2^(emin - mantBits)
    return sign | static_cast<uint8_t>(std::ldexp(y, mantBits - f.emin));
  int mant = static_cast<int>(std::ldexp(y, mantBits - lead)) - (1 << mantBits);
  return sign | static_cast<uint8_t>((lead + f.bias) << mantBits | mant);
}

double fromFloat8Bits(uint8_t bits, DType type) {
  Float8Format f = float8Format(type);
  int mantBits = f.p - 1;
  int exp = (bits & 0x7f) >> mantBits;
  int mant = bits & ((1 << mantBits) - 1);
  int maxExp = (1 << (7 - mantBits)) - 1;
  double v;
  if (type == DType::f8e4m3 && (bits & 0x7f) == 0x7f)
    return std::numeric_limits<double>::quiet_NaN();
  if (isFnuzFloat8(type) && bits == 0x80)
    return std::numeric_limits<double>::quiet_NaN();
  if (type == DType::f8e5m2 && exp == maxExp) {
    if (mant)
      return std::numeric_limits<double>::quiet_NaN();
    v = std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(mant, f.emin - mantBits);
  } else {
    v = std::ldexp(mant + (1 << mantBits), exp - f.bias - mantBits);
  }
  return (bits & 0x80) ? -v : v;
}

uint16_t toHalfBits(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return 0x7e00;
  // Rounded to f16 first (an infinity past the largest finite), the bits
  // are the double's: its exponent re-biased, its fraction's top 10 bits;
  // a subnormal is its value in units of 2^-24.
  double y = std::fabs(roundToFloat(x, DType::f16));
  if (std::isinf(y))
    return sign | 0x7c00;
  if (y == 0)
    return sign;
  uint64_t u;
  std::memcpy(&u, &y, sizeof u);
  int lead = int(u >> 52 & 0x7ff) - 1023;
  uint64_t fraction = u & ((uint64_t(1) << 52) - 1);
  if (lead < -14) // subnormal: 1.fraction x 2^lead = k x 2^-24
    return sign |
           static_cast<uint16_t>((fraction | uint64_t(1) << 52) >> (28 - lead));
  return sign | static_cast<uint16_t>((lead + 15) << 10) |
         static_cast<uint16_t>(fraction >> 42);
}

double fromHalfBits(uint16_t bits) {
  int exp = (bits >> 10) & 0x1f;
  int mant = bits & 0x3ff;
  double v;
  if (exp == 0) {
    v = mant * 0x1p-24; // exact: a power of two times a small integer
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  } else {
    // A normal f16 is a normal double with the exponent re-biased and the
    // fraction's 10 bits on top (no ldexp: loads of f16 tensors call this
    // per element).
    uint64_t u = uint64_t(exp - 15 + 1023) << 52 | uint64_t(mant) << 42;
    std::memcpy(&v, &u, sizeof v);
  }
  return (bits & 0x8000) ? -v : v;
}

uint16_t toBF16Bits(double x) {
  if (std::isnan(x))
    return std::signbit(x) ? 0xffc0 : 0x7fc0;
  // A bf16 value is an f32 whose low 16 bits are zero.
  float f = static_cast<float>(roundToFloat(x, DType::bf16));
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}

double fromBF16Bits(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

double loadFloatElement(const uint8_t *base, DType type, int64_t index) {
  const uint8_t *p = base + index * dtypeSize(type);
  switch (type) {
  case DType::f16:
    return fromHalfBits(readLE<uint16_t>(p));
  case DType::bf16:
    return fromBF16Bits(readLE<uint16_t>(p));
  case DType::f32:
    return readLE<float>(p);
  case DType::f8e4m3:
  case DType::f8e5m2:
  case DType::f8e4m3fnuz:
  case DType::f8e5m2fnuz:
    return fromFloat8Bits(*p, type);
  default:
    return readLE<double>(p);
  }
}

int64_t loadIntElement(const uint8_t *base, DType type, int64_t index) {
  const uint8_t *p = base + index * dtypeSize(type);
  switch (type) {
  case DType::i1:
    return *p != 0 ? -1 : 0;
  case DType::i8:
    return readLE<int8_t>(p);
  case DType::i16:
    return readLE<int16_t>(p);
  case DType::i32:
    return readLE<int32_t>(p);
  default:
    return readLE<int64_t>(p);
  }
}

void storeFloatElement(uint8_t *base, DType type, int64_t index, double v) {
  uint8_t *p = base + index * dtypeSize(type);
  switch (type) {
  case DType::f16:
    return writeLE<uint16_t>(p, toHalfBits(v));
  case DType::bf16:
    return writeLE<uint16_t>(p, toBF16Bits(v));
  case DType::f32:
    return writeLE<float>(p, static_cast<float>(v));
  case DType::f8e4m3:
  case DType::f8e5m2:
  case DType::f8e4m3fnuz:
  case DType::f8e5m2fnuz:
    *p = toFloat8Bits(v, type);
    return;
  default:
    return writeLE<double>(p, v);
  }
}

void storeIntElement(uint8_t *base, DType type, int64_t index, int64_t v) {
  uint8_t *p = base + index * dtypeSize(type);
  switch (type) {
  case DType::i1:
    *p = v != 0;
    return;
  case DType::i8:
    return writeLE<int8_t>(p, static_cast<int8_t>(v));
  case DType::i16:
    return writeLE<int16_t>(p, static_cast<int16_t>(v));
  case DType::i32:
    return writeLE<int32_t>(p, static_cast<int32_t>(v));
  default:
    return writeLE<int64_t>(p, v);
  }
}

} // namespace kcc::interp
