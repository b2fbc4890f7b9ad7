//===- ClusterUniform.h - values equal in every CTA of a cluster -*- C++
//-*-===//
//
// A kernel launched as clusters of N CTAs along x (kcc.cluster) may share
// TMA copies between the cluster's CTAs only where they run the same
// protocol: the same copies, at the same coordinates, under the same
// control flow. kcc-multicast-tma-loads decides with this analysis, and
// kcc-verify-async-protocol checks the result with it.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_ANALYSIS_CLUSTERUNIFORM_H
#define KCC_PASSES_ANALYSIS_CLUSTERUNIFORM_H

#include "ir/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace kcc {

/// Which values are equal in every CTA of an N-CTA cluster along x: those
/// computed from arguments, constants, the grid's other axes and the
/// cluster's index (program_id(0) divided by a multiple of N, which is how
/// kcc-rasterize-programs numbers clusters), through operations without
/// memory effects, the counters of loops whose bounds are such values, and
/// the values loops carry from such a start through such updates.
/// program_id(0) itself and loaded values are not.
class ClusterUniform {
public:
  explicit ClusterUniform(unsigned ctas) : ctas(ctas) {}
  bool operator()(mlir::Value v);

private:
  bool compute(mlir::Value v);
  bool iterArg(mlir::scf::ForOp loop, mlir::BlockArgument arg);
  unsigned ctas;
  llvm::DenseMap<mlir::Value, bool> known;
  llvm::DenseSet<mlir::Value> varying; // carried values found not equal
};

/// The first op around `op`, below `stop`, whose control flow the
/// cluster's CTAs may take differently (a loop bound or branch condition
/// that is not ClusterUniform, or control flow it does not know), or null.
mlir::Operation *divergentControl(mlir::Operation *op, mlir::Operation *stop,
                                  ClusterUniform &uniform);

} // namespace kcc

#endif
