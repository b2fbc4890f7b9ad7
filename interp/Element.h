//===- Element.h - element values: rounding and memory encoding --*- C++
//-*-===//
//
// The interpreter keeps every float element as a double that is exactly
// representable in its element type (f16, bf16, f32 or f64) and every integer
// as an int64_t sign-extended from its width (i1: 0 or -1). These helpers
// round results to a type, wrap integers, and encode/decode elements in
// buffer memory (little-endian, the GPU's layout; i1 is a byte, 0 or 1, read
// back as "byte != 0" like the NVIDIA lowering). Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_INTERP_ELEMENT_H
#define KCC_INTERP_ELEMENT_H

#include "interp/DType.h"

#include <cstdint>

namespace kcc::interp {

/// Rounds `x` to the nearest value of float type `type` (round to nearest,
/// ties to even; overflow gives infinity, NaN stays NaN, subnormals kept).
/// Rounding straight from double avoids the double rounding of a detour
/// through f32. The 8-bit floats saturate instead (as the hardware's only
/// conversion, cvt.rn.satfinite, does): a finite value beyond the largest
/// rounds to it; an infinity stays one in f8e5m2 and is the largest value in
/// f8e4m3 and the FNUZ types, which have none (FNUZ has no -0: a zero is +0).
/// f32 and f64 inline (the interpreter rounds every element of every result);
/// the narrow formats out of line.
double roundToNarrowFloat(double x, DType type);
inline double roundToFloat(double x, DType type) {
  if (type == DType::f32)
    return static_cast<double>(static_cast<float>(x));
  if (type == DType::f64)
    return x;
  return roundToNarrowFloat(x, type);
}
/// kcc's conversion to an 8-bit float (`arith.truncf` to f8e4m3/f8e5m2,
/// PTX cvt.rn.satfinite): round to nearest even, anything beyond the largest
/// finite value, infinities included, becomes it with its sign; NaN stays NaN.
double saturateToFloat8(double x, DType type);
/// Sign-extends the low `width` bits of `v` (inline, as the next: the
/// interpreter calls them per element).
inline int64_t wrapInt(int64_t v, unsigned width) {
  if (width >= 64)
    return v;
  uint64_t u = static_cast<uint64_t>(v) << (64 - width);
  return static_cast<int64_t>(u) >> (64 - width);
}
/// The value of the low `width` bits of `v` read as unsigned.
inline uint64_t asUnsigned(int64_t v, unsigned width) {
  if (width >= 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

/// IEEE binary16 / bfloat16 bit patterns of a value exactly representable in
/// the type (round first). NaN becomes the canonical quiet NaN.
uint16_t toHalfBits(double x);
double fromHalfBits(uint16_t bits);
uint16_t toBF16Bits(double x);
double fromBF16Bits(uint16_t bits);

/// The byte of an 8-bit float value (roundToFloat first): NaN is 0x7f
/// whatever its sign, as NVIDIA's conversions give (0x80, the one NaN, for
/// the FNUZ types); E5M2's infinities are 0x7c/0xfc. And back: 0x7f/0xff
/// (E4M3), E5M2's NaN patterns and FNUZ's 0x80 read as NaN.
uint8_t toFloat8Bits(double x, DType type);
double fromFloat8Bits(uint8_t bits, DType type);

/// Element `index` of type `type` in little-endian memory at `base`.
double loadFloatElement(const uint8_t *base, DType type, int64_t index);
int64_t loadIntElement(const uint8_t *base, DType type, int64_t index);
void storeFloatElement(uint8_t *base, DType type, int64_t index, double v);
void storeIntElement(uint8_t *base, DType type, int64_t index, int64_t v);

} // namespace kcc::interp

#endif
