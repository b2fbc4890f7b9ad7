//===- ReadOnlyMemory.h - the memory a kernel never writes ------*- C++ -*-===//
//
// Loads from memory the kernel never writes (no store, atomic or TMA store
// reaches it) give the same value wherever they are issued: the producer
// warpgroup may recompute them, a pipeliner may issue them iterations ahead,
// and a row scale's loads may move to the top of the loop that reads them.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_READONLYMEMORY_H
#define KCC_PASSES_READONLYMEMORY_H

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace kcc {

/// The kernel argument a pointer (or tile of pointers) is computed from
/// through addptr, splat, broadcast and expand_dims; null if it is not one.
mlir::Value pointerBase(mlir::Value ptr);

/// The arguments a kernel writes through, found once per kernel.
class ReadOnlyMemory {
public:
  explicit ReadOnlyMemory(mlir::func::FuncOp func);
  /// Whether nothing in the kernel writes the memory behind `ptr`.
  bool isReadOnly(mlir::Value ptr) const;
  /// Whether `op` is a kcc.load (of a scalar or a tile) from such memory.
  bool isReadOnlyLoad(mlir::Operation *op) const;

private:
  llvm::DenseSet<mlir::Value> written;
  bool untraced = false; // a write through a pointer not traced to an argument
};

} // namespace kcc

#endif
