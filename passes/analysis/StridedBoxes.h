//===- StridedBoxes.h - pointer tiles lifted to boxes of tensors -*- C++ -*-===//
//
// Descriptor synthesis, the analysis half: the address arithmetic of a tile
// of pointers (`a + rows[:, None] * stride + cols[None, :]`) and its mask
// (`rows[:, None] < m & cols[None, :] < n`) read as the box of a strided
// tensor at block coordinates, the form load_tile/store_tile take and a TMA
// tensor map describes. kcc-synthesize-tile-accesses rewrites what lifts;
// what does not keeps its reason, in .kc terms, for --report.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_STRIDEDBOXES_H
#define KCC_PASSES_STRIDEDBOXES_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace kcc {

/// A tile access read as the box of a row-major strided tensor: element i of
/// the tile (per dimension d) is tensor element coords[d] * tile[d] + i, the
/// tensor starts at `base` with `sizes` (outermost first) and the row
/// strides `strides` in elements (the innermost stride is 1).
struct StridedBox {
  /// The kernel's pointer parameter.
  mlir::BlockArgument base;
  /// Block coordinates (i32 values or integer attributes).
  llvm::SmallVector<mlir::OpFoldResult> coords;
  /// Per dimension, terms added to its block coordinate, each a constant
  /// times the product of non-negative scalars: a pointer advanced by a
  /// uniform offset (`a_ptrs + iv * BK`, a loop-carried pointer tile
  /// rewritten by kcc-synthesize-tile-accesses).
  struct Shift {
    int64_t blocks = 0;
    llvm::SmallVector<mlir::Value, 2> factors;
  };
  llvm::SmallVector<llvm::SmallVector<Shift, 1>> shifts;
  /// From the mask, a kernel argument or a constant; unbounded (no mask
  /// along that dimension) is INT32_MAX: the access is in bounds there.
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  /// A kernel argument or a constant, per dimension but the innermost.
  llvm::SmallVector<mlir::OpFoldResult> strides;
  /// The `other` scalar of a load (null: none or undefined).
  mlir::Value other;
  /// Why a TMA copy could not be legal at launch for every argument the
  /// declared facts allow (alignment, divisibility); empty if it could.
  std::string tmaRefusal;
};

/// The scalar every element of the tile `v` equals (a splat, a splat
/// constant, through broadcasts and expand_dims), or `v` itself if it is a
/// scalar.
std::optional<mlir::OpFoldResult> uniformScalarOf(mlir::Value v);

/// What `box` reads, in .kc terms for --report ("the tile of pointers is a
/// box of the tensor at a with sizes [m, k] and row stride stride_am").
std::string describeStridedBox(const StridedBox &box);

/// Lifts the kcc.load or kcc.store `op` of a 1-D or 2-D tile of pointers, or
/// says in `why` which part of its address or mask is not a strided box.
/// Builds nothing.
std::optional<StridedBox> liftStridedBox(mlir::Operation *op,
                                         std::string &why);

} // namespace kcc

#endif // KCC_PASSES_STRIDEDBOXES_H
