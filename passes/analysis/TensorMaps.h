//===- TensorMaps.h - which tile accesses can be TMA copies -------*- C++ -*-===//
//
// Shared by kcc-add-tensor-maps (which tensor maps a kernel receives) and
// kcc-materialize-tma-copies (which accesses use them): the tensor parameter
// behind a load_tile/store_tile, and the compile-time half of the TMA rules
// (element type, box, swizzle) judged by the target model's predicate. The
// run-time half (address, sizes, strides) is checked by the launch stub.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_TENSORMAPS_H
#define KCC_PASSES_TENSORMAPS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kcc {
struct TargetModel;
class TensorMapType;

/// The CUtensorMapDataType that moves `elem` (i1 and i8 as bytes), if any.
std::optional<int64_t> tmaDataType(mlir::Type elem);

/// Why a box of `elem` with `swizzle` bytes cannot be a TMA copy on `target`,
/// judged on what is known at compile time; empty if it can.
std::string tmaStaticRefusal(const TargetModel &target,
                             llvm::ArrayRef<int64_t> box, mlir::Type elem,
                             unsigned swizzle);

/// The index of the base-pointer argument of the tensor parameter that the
/// tile access `op` (load_tile/store_tile) moves, or why there is none the
/// stub could encode a map from (the access's base, sizes and strides must be
/// the parameter's own arguments).
std::optional<unsigned> tensorParamOf(mlir::Operation *op, std::string &why);

/// For a tile access lifted from a tile of pointers (kcc.lifted): its sizes
/// then strides as kcc.tensor_map_shape holds them (argument numbers as
/// index attributes, constants as i32), or null if one is neither. Null for
/// the accesses of tensor parameters.
mlir::ArrayAttr liftedTensorShape(mlir::Operation *op);

/// The !kcc.tensormap argument (kcc-add-tensor-maps) for the tensor and box
/// of the tile access `op`, or null with the reason in `why`.
mlir::Value tensorMapFor(mlir::Operation *op, std::string &why);

/// Why the tile access `op` cannot be a TMA copy whatever the target (in a
/// loop, or a load whose `other` is not zero); empty if it can.
std::string tmaAccessRefusal(mlir::Operation *op);

/// How many boxes of `map` side by side along the innermost dimension make
/// the tile of the access `op` (1 unless the box is a swizzle span of a
/// wider wgmma operand).
int64_t tmaPartsOf(mlir::Operation *op, TensorMapType map);

/// The tile shape of a load_tile/store_tile.
llvm::ArrayRef<int64_t> tileShapeOf(mlir::Operation *op);

/// `shape` (a tile's, or a box over its dimensions) with leading 1s up to
/// the rank of the tensor that the access `op` reads or writes: the box of
/// a batched access covers one element of the batch dimension.
llvm::SmallVector<int64_t> withBatchDims(mlir::Operation *op,
                                         llvm::ArrayRef<int64_t> shape);

} // namespace kcc

#endif // KCC_PASSES_TENSORMAPS_H
