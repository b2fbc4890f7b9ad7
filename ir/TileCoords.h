//===- TileCoords.h - what a load_tile's coordinates count ------*- C++ -*-===//
//
// kcc.load_tile's and kcc.store_tile's coordinates count blocks of the
// tile's shape (`load_tile`, `store_tile`); with kcc.element_coords they
// count elements (`load_tile_at`, `store_tile_at`: a tile starting at any
// row and column, as a MoE group or a packed sequence does). Every stage that
// turns coordinates into addresses, TMA coordinates or copies scales them by
// tileCoordScale.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_IR_TILECOORDS_H
#define KCC_IR_TILECOORDS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace kcc {

inline constexpr llvm::StringLiteral kElementCoordsAttr = "kcc.element_coords";

/// Whether `op` (a kcc.load_tile or kcc.store_tile) takes element
/// coordinates.
inline bool hasElementCoords(mlir::Operation *op) {
  return op->hasAttr(kElementCoordsAttr);
}

/// What coordinate d of `op` is multiplied by to give an element index:
/// `box[d]` (the tile's shape, batch dimensions 1) for block coordinates, 1
/// for element ones.
inline llvm::SmallVector<int64_t> tileCoordScale(mlir::Operation *op,
                                                 llvm::ArrayRef<int64_t> box) {
  if (hasElementCoords(op))
    return llvm::SmallVector<int64_t>(box.size(), 1);
  return llvm::SmallVector<int64_t>(box.begin(), box.end());
}

} // namespace kcc

#endif // KCC_IR_TILECOORDS_H
