//===- LaunchCost.h - what one CTA of a GEMM-shaped kernel does per step -*-
// C++ -*-===//
//
// For the launch-time choice among a tunable group's tile shapes
// (pipeline/SelectVariants.h keeps several, the stubs weigh them with
// runtime/include/kcc/dispatch.h): a kernel with one loop of products
// described by what each iteration of one CTA computes and moves, and the
// host expressions that size the launch.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_LAUNCHCOST_H
#define KCC_PASSES_LAUNCHCOST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace kcc {

/// Mirrors kcc::rt::TileWork (runtime/include/kcc/dispatch.h) plus the C
/// expressions the launch evaluates.
struct LaunchCost {
  std::string trips;      // the product loop's iterations, C over params
  std::string rows, cols; // the stored output's sizes, C ("" if unknown)
  int64_t tileM = 0, tileN = 0;
  double flops = 0;      // 2*M*N*K summed over the loop's products
  double smemBytes = 0;  // operand bytes the products read per iteration
  double rowBytes = 0;   // bytes loaded per iteration for the A operands
  double colBytes = 0;   // ... for the B operands and anything else
  double storeBytes = 0; // bytes stored after the loop
  double flopsScale = 1; // 8-bit operands 2, 32-bit 0.5, else 1
  /// A kernel without products (softmax, layernorm: memory-bound): the
  /// bytes one program's loads and stores touch, masked lanes included, as
  /// C over the parameters (the loops' trip counts and the branches the
  /// launch decides folded in); the launch weighs it with
  /// kcc::rt::streamCycles. Empty for a product loop's cost above.
  std::string streamBytes;
};

/// The cost description of `func` (tile IR), or none with `why` set: it
/// needs one loop in its entry block with one product at its top level,
/// whose trip count the host can compute; or no product at all, and loops
/// and branches the host can size (then `streamBytes`).
std::optional<LaunchCost> launchCostOf(mlir::func::FuncOp func,
                                       std::string &why);

} // namespace kcc

#endif // KCC_PASSES_LAUNCHCOST_H
