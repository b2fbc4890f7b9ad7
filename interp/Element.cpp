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

template <typename T> T readLE(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T)); // x86-64 and aarch64 are little-endian
  return v;
}
template <typename T> void writeLE(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
} // namespace

double roundToFloat(double x, DType type) {
  switch (type) {
  case DType::f16:
    return roundToFormat(x, 11, -14, 15);
  case DType::bf16:
    return roundToFormat(x, 8, -126, 127);
  case DType::f32:
    return static_cast<double>(static_cast<float>(x));
  default:
    return x;
  }
}

int64_t wrapInt(int64_t v, unsigned width) {
  if (width >= 64)
    return v;
  uint64_t u = static_cast<uint64_t>(v) << (64 - width);
  return static_cast<int64_t>(u) >> (64 - width);
}

uint64_t asUnsigned(int64_t v, unsigned width) {
  if (width >= 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

uint16_t toHalfBits(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return 0x7e00;
  double a = std::fabs(x);
  if (std::isinf(a) || a >= 65520.0)
    return sign | 0x7c00;
  if (a == 0)
    return sign;
  int e;
  std::frexp(a, &e);
  int lead = e - 1;
  if (lead < -14) // subnormal: multiples of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24)));
  auto mant = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, 10 - lead)));
  if (mant == 2048) { // rounding carried into the exponent
    mant = 1024;
    ++lead;
    if (lead > 15)
      return sign | 0x7c00;
  }
  return sign | static_cast<uint16_t>((lead + 15) << 10) |
         static_cast<uint16_t>(mant & 0x3ff);
}

double fromHalfBits(uint16_t bits) {
  int exp = (bits >> 10) & 0x1f;
  int mant = bits & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(mant, -24);
  else if (exp == 31)
    v = mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(mant + 1024, exp - 25);
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
