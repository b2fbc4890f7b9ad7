//===- PersistentTiles.h - the tile loop of a persistent kernel --*- C++
//-*-===//
//
// kcc-rasterize-programs (with --persistent) runs a kernel's body in an
// scf.for {kcc.persistent_tiles} over the program's tiles. What runs in that
// loop runs once per tile, as the body of a non-persistent kernel would: the
// TMA passes look through it when they ask whether an access or a K loop is
// "in a loop", and find it when a once-per-tile barrier needs its phase.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_PERSISTENTTILES_H
#define KCC_PASSES_PERSISTENTTILES_H

#include "mlir/IR/Operation.h"

namespace kcc {

/// The innermost loop around `op` other than a persistent kernel's tile
/// loop (kcc.persistent_tiles: what runs in it runs once per tile, as the
/// kernel body would), or null. The TMA pipelines and copies ask this
/// instead of "is `op` in a loop".
mlir::Operation *enclosingLoop(mlir::Operation *op);

/// Whether `op` is a persistent kernel's tile loop.
bool isPersistentTileLoop(mlir::Operation *op);

/// The persistent tile loop around `op`, or null.
mlir::Operation *persistentTileLoopOf(mlir::Operation *op);

/// The ordinal (0, 1, ... per program) of the tile that the persistent tile
/// loop `loop` runs: its first iter_arg (kcc-rasterize-programs).
mlir::Value persistentTileOrdinal(mlir::Operation *loop);

} // namespace kcc

#endif // KCC_PASSES_PERSISTENTTILES_H
