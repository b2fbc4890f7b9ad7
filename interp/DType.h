//===- DType.h - element types of kcc buffers --------------------*- C++
//-*-===//
//
// The element types a kcc buffer or scalar can have: the runtime's kcc::DType
// (kcc/runtime.h, with its names from kcc::dtypeName), plus parsing and sizes.
// Plain C++17 (no LLVM): the GPU leg of kcc-difftest, which builds on the GPU
// machine without LLVM, uses it too.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_INTERP_DTYPE_H
#define KCC_INTERP_DTYPE_H

#include "kcc/runtime.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace kcc::interp {

using ::kcc::DType;
/// "f32", "bf16", "i1", ... (the language's spelling).
using ::kcc::dtypeName;
/// Parses the language's spelling; "bool" is i1.
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element in memory (i1 is one byte, 0 or 1, like the GPU's).
inline size_t dtypeSize(DType type) {
  switch (type) {
  case DType::i1:
  case DType::i8:
  case DType::f8e4m3:
  case DType::f8e5m2:
  case DType::f8e4m3fnuz:
  case DType::f8e5m2fnuz:
    return 1;
  case DType::i16:
  case DType::f16:
  case DType::bf16:
    return 2;
  case DType::i32:
  case DType::f32:
    return 4;
  case DType::i64:
  case DType::f64:
    return 8;
  }
  return 1;
}
/// f8e4m3, f8e5m2, f8e4m3fnuz or f8e5m2fnuz.
inline bool isFloat8(DType type) {
  return type == DType::f8e4m3 || type == DType::f8e5m2 ||
         type == DType::f8e4m3fnuz || type == DType::f8e5m2fnuz;
}
/// f8e4m3fnuz or f8e5m2fnuz (no infinities, no -0, NaN 0x80).
inline bool isFnuzFloat8(DType type) {
  return type == DType::f8e4m3fnuz || type == DType::f8e5m2fnuz;
}
/// Inline: the interpreter asks per element.
inline bool isFloat(DType type) {
  return type == DType::f16 || type == DType::bf16 || type == DType::f32 ||
         type == DType::f64 || isFloat8(type);
}
/// Bit width of an integer type (1 for i1).
unsigned intWidth(DType type);

} // namespace kcc::interp

#endif
