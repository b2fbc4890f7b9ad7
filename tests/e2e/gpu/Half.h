// f16/bf16 <-> float on the host (round to nearest even), for references.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include <kcc/runtime.h>

inline float bitsToFloat(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t floatToBits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

inline kcc::bf16 toBF16(float f) {
  uint32_t u = floatToBits(f);
  if (std::isnan(f)) return {uint16_t(0x7fc0)};
  u += 0x7fff + ((u >> 16) & 1);
  return {uint16_t(u >> 16)};
}
inline float fromBF16(kcc::bf16 h) { return bitsToFloat(uint32_t(h.bits) << 16); }

inline kcc::f16 toF16(float f) {
  uint32_t x = floatToBits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx > 0x7f800000) return {uint16_t(sign | 0x7e00)};          // NaN
  if (absx >= 0x477ff000) return {uint16_t(sign | 0x7c00)};         // overflow -> inf
  if (absx < 0x38800000) {                                          // subnormal / zero
    float a = bitsToFloat(absx);
    uint32_t m = uint32_t(std::nearbyint(a * 16777216.0f));         // a / 2^-24
    return {uint16_t(sign | m)};
  }
  uint32_t e = ((absx >> 23) - 112) << 10;
  uint32_t m = (absx >> 13) & 0x3ff;
  uint32_t rest = absx & 0x1fff;
  uint32_t h = e | m;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return {uint16_t(sign | h)};
}
inline float fromF16(kcc::f16 h) {
  uint32_t sign = uint32_t(h.bits & 0x8000) << 16;
  uint32_t e = (h.bits >> 10) & 0x1f, m = h.bits & 0x3ff;
  if (e == 0) { float f = std::ldexp(float(m), -24); return sign ? -f : f; }
  if (e == 31) return bitsToFloat(sign | 0x7f800000 | (m << 13));
  return bitsToFloat(sign | ((e + 112) << 23) | (m << 13));
}

// Element traits: storage type <-> float.
template <typename T> struct Elem;
template <> struct Elem<float> {
  static float get(float v) { return v; }
  static float put(float v) { return v; }
  static constexpr const char *name = "f32";
  static constexpr double tol = 1e-5;
};
template <> struct Elem<kcc::f16> {
  static float get(kcc::f16 v) { return fromF16(v); }
  static kcc::f16 put(float v) { return toF16(v); }
  static constexpr const char *name = "f16";
  static constexpr double tol = 2e-3;
};
template <> struct Elem<kcc::bf16> {
  static float get(kcc::bf16 v) { return fromBF16(v); }
  static kcc::bf16 put(float v) { return toBF16(v); }
  static constexpr const char *name = "bf16";
  static constexpr double tol = 1.6e-2;
};
