//===- ElementTypes.h - kcc's element types by their language names -*- C++
//-*-===//
//
// Passes that explain a refusal name element types the way a .kc file
// spells them ("f8e4m3", not MLIR's "f8E4M3FN"), and the 8-bit floats take
// the 8-bit paths (K-major tensor-core operands, 1-byte TMA elements) that
// i8 takes.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_IR_ELEMENTTYPES_H
#define KCC_IR_ELEMENTTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kcc {

/// f8e4m3 (OCP E4M3FN: no infinities, NaN S.1111.111, max 448) or f8e5m2
/// (OCP E5M2: IEEE-style infinities and NaNs, max 57344): NVIDIA's formats.
inline bool isOcpFloat8(mlir::Type t) {
  return mlir::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(t);
}

/// f8e4m3fnuz / f8e5m2fnuz (exponent bias 8 / 16, no infinities, no -0, the
/// one NaN 0x80, max 240 / 57344): MI300's (gfx942) formats.
inline bool isFnuzFloat8(mlir::Type t) {
  return mlir::isa<mlir::Float8E4M3FNUZType, mlir::Float8E5M2FNUZType>(t);
}

/// Any of the 8-bit floats.
inline bool isFloat8(mlir::Type t) { return isOcpFloat8(t) || isFnuzFloat8(t); }

/// The 8-bit floats with 2 significand bits (e5m2, e5m2fnuz; AMD's "bf8").
inline bool isFloat8E5M2(mlir::Type t) {
  return mlir::isa<mlir::Float8E5M2Type, mlir::Float8E5M2FNUZType>(t);
}

/// Elements of one byte that tensor cores read K-major only (PTX wgmma and
/// tcgen05 transpose 16-bit operands alone).
inline bool isEightBitMmaOperand(mlir::Type t) {
  return t.isInteger(8) || isFloat8(t);
}

/// `t` (a scalar, vector or tensor type) with `elem` as its element type.
inline mlir::Type withElementType(mlir::Type t, mlir::Type elem) {
  if (auto shaped = mlir::dyn_cast<mlir::ShapedType>(t))
    return shaped.clone(elem);
  return elem;
}

/// The language's spelling of an element type: "f8e4m3", "bf16", "i32".
inline std::string elementTypeName(mlir::Type t) {
  if (mlir::isa<mlir::Float8E4M3FNType>(t))
    return "f8e4m3";
  if (mlir::isa<mlir::Float8E5M2Type>(t))
    return "f8e5m2";
  if (mlir::isa<mlir::Float8E4M3FNUZType>(t))
    return "f8e4m3fnuz";
  if (mlir::isa<mlir::Float8E5M2FNUZType>(t))
    return "f8e5m2fnuz";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The multiplicand name of the target models' [mma] shapes and of PTX
/// ("e4m3", "s8", "bf16"), or "" for a type no tensor core takes.
inline llvm::StringRef mmaOperandName(mlir::Type t) {
  if (mlir::isa<mlir::Float8E4M3FNType>(t))
    return "e4m3";
  if (mlir::isa<mlir::Float8E5M2Type>(t))
    return "e5m2";
  if (mlir::isa<mlir::Float8E4M3FNUZType>(t))
    return "e4m3fnuz";
  if (mlir::isa<mlir::Float8E5M2FNUZType>(t))
    return "e5m2fnuz";
  if (t.isInteger(8))
    return "s8"; // kcc integers are signed
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  return "";
}

} // namespace kcc

#endif // KCC_IR_ELEMENTTYPES_H
