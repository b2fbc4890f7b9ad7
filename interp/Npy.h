//===- Npy.h - NumPy .npy files ----------------------------------*- C++
//-*-===//
//
// Reads and writes NumPy's .npy format (version 1.0 written; 1.0, 2.0 and 3.0
// read), little-endian, C order, so that kcc-difftest's inputs and outputs can
// be checked with other tools (`numpy.load`). dtypes: <f2 <f4 <f8, |i1 <i2
// <i4 <i8, |b1 (i1). NumPy has no bfloat16: a bf16 array is stored as its bit
// patterns with dtype <u2 and the file name ends in ".bf16.npy"; that suffix
// is the only place the fact is recorded (numpy users: view the uint16 bits
// shifted left by 16 as float32). Nor has it 8-bit floats: an f8e4m3 or
// f8e5m2 array is stored as its bytes with dtype |u1 in a file whose name ends
// in ".f8e4m3.npy" or ".f8e5m2.npy" (numpy users: decode the bytes with
// ml_dtypes' float8_e4m3fn / float8_e5m2, `a.view(ml_dtypes.float8_e4m3fn)`).
// Plain C++17: the GPU leg uses it too.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_INTERP_NPY_H
#define KCC_INTERP_NPY_H

#include "interp/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcc::interp {

/// A dense C-order array: `data` holds product(shape) elements of `dtype`,
/// little-endian (i1 as bytes 0/1).
struct NpyArray {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
};

/// The file name suffix that marks a bf16 array.
inline constexpr std::string_view kBF16Suffix = ".bf16.npy";

/// The types numpy cannot name, stored as bit patterns (bf16, f8e4m3,
/// f8e5m2).
bool isBitPatternType(DType type);
/// The file name suffix of an array of `type`: ".bf16.npy", ".f8e4m3.npy",
/// ".f8e5m2.npy", or ".npy" for the types numpy has.
std::string npySuffix(DType type);
/// The bit-pattern type a file name's suffix names, if any.
std::optional<DType> bitPatternTypeOfPath(std::string_view path);

/// The bytes of a .npy file holding `array`.
std::string encodeNpy(const NpyArray &array);
/// Parses the bytes of a .npy file. `<u2` data is accepted only when
/// `bitPattern` is bf16 and `|u1` only when it is an 8-bit float (which the
/// data then is); on failure returns false and sets `error`.
bool decodeNpy(std::string_view bytes, std::optional<DType> bitPattern,
               NpyArray &array, std::string &error);

/// Writes `array` to `path`; the path of a bit-pattern type's array must end
/// in its suffix (npySuffix), and only such a path may.
bool writeNpyFile(const std::string &path, const NpyArray &array,
                  std::string &error);
/// Reads `path`; the suffix says bf16/f8 (npySuffix). Errors name the file.
bool readNpyFile(const std::string &path, NpyArray &array, std::string &error);

} // namespace kcc::interp

#endif
