//===- Npy.h - NumPy .npy files ----------------------------------*- C++
//-*-===//
//
// Reads and writes NumPy's .npy format (version 1.0 written; 1.0, 2.0 and 3.0
// read), little-endian, C order, so that kcc-difftest's inputs and outputs can
// be checked with other tools (`numpy.load`). dtypes: <f2 <f4 <f8, |i1 <i2
// <i4 <i8, |b1 (i1). NumPy has no bfloat16: a bf16 array is stored as its bit
// patterns with dtype <u2 and the file name ends in ".bf16.npy"; that suffix
// is the only place the fact is recorded (numpy users: view the uint16 bits
// shifted left by 16 as float32). Plain C++17: the GPU leg uses it too.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_INTERP_NPY_H
#define KCC_INTERP_NPY_H

#include "interp/DType.h"

#include <cstdint>
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

/// The bytes of a .npy file holding `array`.
std::string encodeNpy(const NpyArray &array);
/// Parses the bytes of a .npy file. `<u2` data is accepted only with
/// `isBF16`; on failure returns false and sets `error`.
bool decodeNpy(std::string_view bytes, bool isBF16, NpyArray &array,
               std::string &error);

/// Writes `array` to `path`; a bf16 array's path must end in ".bf16.npy".
bool writeNpyFile(const std::string &path, const NpyArray &array,
                  std::string &error);
/// Reads `path`; ".bf16.npy" files are bf16. Errors name the file.
bool readNpyFile(const std::string &path, NpyArray &array, std::string &error);

} // namespace kcc::interp

#endif
