//===- TileLoads.h - once-per-tile loads issued by the producer ---*- C++
//-*-===//
//
// In a warp-specialized persistent kernel, a TMA load that runs once per
// tile (attention's query block) is issued by the consumers at the start of
// each tile, so the next tile waits for it after the previous one ended.
// The producer warpgroup issues it instead, one tile ahead: it waits on a
// "tile empty" barrier the consumers arrive on once their K loop is done
// with the stage, then copies the next tile's block while the consumers
// run this tile's epilogue. A store that reused the stage (the epilogue's
// output tile) gets a stage of its own.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_TRANSFORMS_WARPSPEC_TILELOADS_H
#define KCC_PASSES_TRANSFORMS_WARPSPEC_TILELOADS_H

#include "ir/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <string>

namespace kcc::warpspec {

struct TileLoad {
  kcc::MBarrierArriveExpectTxOp arm;
  kcc::TmaLoadOp copy;
  // The consumers' barrier before the copy (and the bulk wait before it
  // where a store reused the stage), which the producer's wait replaces.
  mlir::Operation *ctaBarrier = nullptr, *bulkWait = nullptr;
  // The proxy fence after that barrier (the previous tile's ordinary loads
  // before the copy), replaced with it.
  mlir::Operation *proxyFence = nullptr;
  // Stores (smem_store, tma_store) of the epilogue that reused the stage.
  llvm::SmallVector<mlir::Operation *> reusers;
};

/// The once-per-tile TMA loads of the tile loop `tiles` that the producer
/// can issue a tile ahead, the extra shared memory (`extraBytes`: stages
/// for the stores that reused theirs) and the values the producer must
/// recompute (`needed`); or why not (empty `loads`).
/// planTileLoads' answer for a tile loop without once-per-tile copies.
inline constexpr const char *kNoTileLoad = "no once-per-tile TMA load";

std::string planTileLoads(mlir::scf::ForOp tiles, mlir::scf::ForOp loop,
                          llvm::SmallVectorImpl<TileLoad> &loads,
                          llvm::SmallVectorImpl<mlir::Value> &needed,
                          int64_t &extraBytes);

/// Before the split (buffers and barriers at the kernel's entry, `eb`):
/// the stores' own stages and the "tile empty" barrier, counting one
/// arrival per consumer warpgroup. Returns the barrier.
mlir::Value allocateTileLoads(mlir::OpBuilder &eb,
                              llvm::ArrayRef<TileLoad> loads,
                              unsigned consumerWarpgroups);

/// In the producer's tile loop at `b` (tile `ordinal` of this CTA, values
/// mapped by `mapping`): waits for the previous tile's release of `empty`
/// and issues the copies.
void issueTileLoads(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::ArrayRef<TileLoad> loads, mlir::Value empty,
                    mlir::Value ordinal, const mlir::IRMapping &mapping);

/// Where the producer does not issue them: says why on each once-per-tile
/// copy of `tiles` (its kcc.tile_access text, which --report prints).
void noteTileLoadsRefused(mlir::scf::ForOp tiles, llvm::StringRef why);

/// In the consumers: drops their copies and the barriers before them, and
/// releases `empty` after `loop` (which reads the stages last), at
/// `after`, where the wgmma reading them has retired.
void releaseTileLoads(llvm::ArrayRef<TileLoad> loads, mlir::Value empty,
                      mlir::Operation *after);

} // namespace kcc::warpspec

#endif // KCC_PASSES_TRANSFORMS_WARPSPEC_TILELOADS_H
