//===- EpilogueChunks.h - a GEMM epilogue copied out in column chunks -*- C++
//-*-===//
//
// kcc-materialize-tma-copies stages a tile for its TMA store whole: a
// 128 x 256 f16 accumulator takes a 64 KiB stage, which leaves room for only
// three 48 KiB pipeline stages on sm_90a. Copied out 64 columns at a time
// through a ring of two chunk stages (32 KiB), the epilogue makes room for a
// fourth. kcc-pipeline-tma-loads asks for it only when it buys a stage.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_EPILOGUECHUNKS_H
#define KCC_PASSES_EPILOGUECHUNKS_H

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallVector.h"

namespace kcc {
struct TargetModel;

/// A staged TMA store of an MMA accumulator that can go out in chunks.
struct ChunkableEpilogue {
  mlir::scf::IfOp branch; // then: the TMA store; else: the masked stores
  SmemAllocOp stage;      // the whole tile's stage
  SmemStoreOp staged;     // the registers into `stage`
  TmaStoreOp copy;        // `stage` out
  StoreTileOp edge;       // the masked-store fallback
  int64_t chunkColumns = 0, chunks = 0;
  int64_t savedBytes = 0; // the whole stage less the ring of two chunks
  // The elementwise epilogue that computes the stored tile from the
  // accumulator (kcc::epilogueChain, in block order) and the row/column
  // broadcasts only it reads; empty when the accumulator is stored as is.
  llvm::SmallVector<mlir::Operation *> epilogue;
  llvm::SmallVector<BroadcastOp> broadcasts;
  /// Whether the epilogue does more than cast (a bias, an activation):
  /// computed a chunk at a time, its temporaries and broadcast operands
  /// need a chunk's registers, not the whole tile's again beside the
  /// accumulator, which would spill.
  bool fused = false;
};

/// The TMA stores of `func` in kcc-materialize-tma-copies' form whose tile
/// is a K loop's accumulator on `target`'s staged tensor-core path
/// (kcc::storesMmaAccumulator), at least three chunks wide.
llvm::SmallVector<ChunkableEpilogue>
chunkableEpilogues(mlir::func::FuncOp func, const TargetModel &target);

/// Rewrites `e`: the stage becomes two chunk stages, and chunk j is written
/// (smem_store's window) into stage j % 2 once the TMA store of chunk j - 2
/// has read it, then copied out; the masked-store fallback relayouts
/// through the same stages a chunk at a time. A fused epilogue is computed
/// before each chunk's write, a copy per chunk marked with its columns
/// (kcc.epilogue_chunk; each copy's other columns are dead code after
/// lowering); a cast alone stays whole before the branch.
void chunkEpilogue(ChunkableEpilogue e);

} // namespace kcc

#endif // KCC_PASSES_EPILOGUECHUNKS_H
