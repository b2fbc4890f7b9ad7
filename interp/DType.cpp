//===- DType.cpp - element types of kcc buffers ---------------------------===//
#include "interp/DType.h"

namespace kcc::interp {

std::optional<DType> parseDType(std::string_view name) {
  static const DType all[] = {
      DType::i1,        DType::i8,     DType::i16,    DType::i32,
      DType::i64,       DType::f16,    DType::bf16,   DType::f32,
      DType::f64,       DType::f8e4m3, DType::f8e5m2, DType::f8e4m3fnuz,
      DType::f8e5m2fnuz};
  if (name == "bool")
    return DType::i1;
  for (DType t : all)
    if (name == dtypeName(t))
      return t;
  return std::nullopt;
}

unsigned intWidth(DType type) {
  switch (type) {
  case DType::i1:
    return 1;
  case DType::i8:
    return 8;
  case DType::i16:
    return 16;
  case DType::i32:
    return 32;
  default:
    return 64;
  }
}

} // namespace kcc::interp
