//===- TileWork.h - how a program's work changes along the grid -*- C++ -*-===//
//
// A persistent kernel's CTAs take tiles in turn, so they finish together only
// where every tile costs the same. Where the trip counts of a kernel's loops
// grow (or shrink) with program_id(0) alone — causal attention's key loop
// stops at the diagonal — kcc-rasterize-programs pairs each tile with its
// mirror along x (docs/gemm.md, "Uneven tiles"). This analysis says which
// case a kernel is in, from its tile IR before rasterization: each loop's
// trip count is followed through the integer ops whose monotonicity is
// known (sums, differences, products and quotients by positive constants,
// min, max, casts).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_TILEWORK_H
#define KCC_PASSES_TILEWORK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace kcc {

struct TileWork {
  enum Kind {
    Even,    // no loop's trip count depends on the program ids
    Grows,   // non-decreasing in program_id(0), independent of the others
    Shrinks, // non-increasing in program_id(0), independent of the others
    Uneven,  // depends on the program ids in another way
  };
  Kind kind = Even;
  /// The first loop whose trip count depends on the program ids.
  mlir::Operation *loop = nullptr;
};

/// How the trip counts of `func`'s scf.for loops change with its program
/// ids (kcc.program_id, before kcc-rasterize-programs rewrites them).
TileWork tileWorkAlongX(mlir::func::FuncOp func);

} // namespace kcc

#endif // KCC_PASSES_TILEWORK_H
