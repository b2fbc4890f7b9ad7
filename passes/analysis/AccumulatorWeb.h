//===- AccumulatorWeb.h - give an MMA accumulator its register layout -*- C++
//-*-===//
//
// Shared by the passes that put dots on tensor cores
// (kcc-materialize-warpgroup-mma, kcc-materialize-warp-mma): the tiles that
// must hold an MMA accumulator in the instruction's register layout, and the
// rewrite that gives it to them.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_ACCUMULATORWEB_H
#define KCC_PASSES_ACCUMULATORWEB_H

#include "ir/Dialect.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace kcc {

/// The values that must carry the accumulator layout with `seeds` (the MMA
/// ops' accumulators and results): closed under scf.for
/// init/iter_arg/yield/result links.
llvm::SetVector<mlir::Value> accumulatorWeb(llvm::ArrayRef<mlir::Value> seeds);

/// Retypes the web of `seeds` to `layout`. `isAccUse(use)` says whether a use
/// is the accumulator operand of one of the rewritten MMA ops, and
/// `isMmaResult(op)` whether `op` is one of them. Splats in the web are
/// rebuilt in the layout; other producers hand over through
/// kcc.convert_layout; users outside the web read a converted copy, except
/// that a lone elementwise epilogue (kcc::epilogueChain) runs in the layout
/// and converts at its end. Returns the web; fails (with an error on `func`)
/// if a non-tile joined it.
mlir::FailureOr<llvm::SetVector<mlir::Value>>
retypeAccumulatorWeb(mlir::Operation *func, llvm::ArrayRef<mlir::Value> seeds,
                     mlir::Attribute layout,
                     llvm::function_ref<bool(mlir::OpOperand &)> isAccUse,
                     llvm::function_ref<bool(mlir::Operation *)> isMmaResult);

/// The epilogue of a GEMM: a tile that leaves the accumulator `layout`
/// (kcc.convert_layout) only to be staged for a TMA store goes into the
/// stage straight from the accumulator registers; its other readers (the
/// masked-store fallback beside the TMA store) relayout through that same
/// stage. The kernel then keeps no relayout scratch for the accumulator,
/// which lets 128 x 256 tiles keep three pipeline stages
/// (kcc::epilogueStore says when).
void stageAccumulatorEpilogues(mlir::Operation *func, mlir::Attribute layout);

/// The row-wise work between two products in a loop (attention's softmax:
/// S's row max and sum, P = exp2(S - m), the rescaling of the output
/// accumulator) kept in the accumulator `layout` (#kcc.wgmma_acc): from
/// each tile that leaves the layout in a loop that also runs a register-A
/// product, the layout spreads forward through elementwise ops, row
/// reductions (into row vectors, isWgmmaRowSlice), their expand_dims and
/// row broadcasts and the loops that carry them; splats and row/column
/// broadcasts they read are made in the layout, other operands and users
/// outside get a kcc.convert_layout. So S, P and the statistics never go
/// through shared memory (P's registers are the register-A operand).
void propagateAccumulatorLayout(mlir::Operation *func, mlir::Attribute layout);

/// Row vectors broadcast over an accumulator in `layout` (#kcc.wgmma_acc)
/// that are loads with index math and splats (an FP8 block scale per row and
/// K block, a per-row bias): computed again in the layout's row slice
/// (isWgmmaRowSlice), so each thread loads the rows its registers lie in
/// and the broadcast moves no data (it went through shared memory with two
/// barriers, every K block). Loads of memory the kernel never writes move to
/// the top of their block (their latency hides behind what the block issues
/// first, a K block's products); others stay at the broadcast, provided
/// nothing between may write memory. A load is issued again only when
/// nothing else reads what it feeds.
void rematerializeRowVectors(mlir::Operation *func, mlir::Attribute layout);

/// A tile that left a layout only to come back (a rescaled accumulator going
/// into the next product, P cast in the layout and moved back as the
/// register A operand) skips the round trip through shared memory.
void foldRelayoutRoundTrips(mlir::Operation *func);

/// The tile values kcc::propagateAccumulatorLayout will keep in the
/// accumulator layout, predicted on the tile IR before the dots become
/// wgmma (kcc-pipeline-tma-loads sizes the relayout scratch with it): in
/// each loop with a register-A candidate (a dot whose 16-bit A operand is
/// computed in registers in whole 64 x 16 fragments and whose B is a tile
/// the loop loads), forward from the loop's dot results through the same
/// ops as the propagation.
llvm::DenseSet<mlir::Value> predictRowWiseWeb(mlir::Operation *func);

/// Whether a use of a value of `web` (kcc::predictRowWiseWeb) keeps it in
/// the accumulator layout: an op that runs in the layout, a dot's
/// accumulator or register-A operand, a loop or branch link.
bool staysInRowWiseWeb(mlir::OpOperand &use,
                       const llvm::DenseSet<mlir::Value> &web);

} // namespace kcc

#endif // KCC_PASSES_ACCUMULATORWEB_H
