//===- AxisInfo.h - contiguity / divisibility / constancy analysis -*- C++ -*-===//
//
// A forward analysis over the integer and pointer values of a kcc kernel (tile
// IR). For every value and every dimension d of its tile (scalars are treated
// as 1-element 1-D tiles) it proves three power-of-two facts:
//
//   contiguity[d] = c : along d the tile is cut into aligned runs of c elements
//     (starting at indices that are multiples of c) whose values are x, x+1,
//     ..., x+c-1 (modulo 2^bitwidth for integers; for pointers: consecutive
//     elements, i.e. addresses x, x+e, x+2e, ... with e the pointee size).
//   divisibility[d] = v : every element at an index whose d-coordinate is a
//     multiple of contiguity[d] (the first element of each run) is divisible by
//     v. For pointers v counts BYTES. With contiguity 1 this holds for every
//     element. For integers "divisible by 2^k" means "the low min(k, bitwidth)
//     bits are zero", so the fact survives wrap-around.
//   constancy[d] = k : along d the tile is cut into aligned runs of k elements
//     with equal values.
//
// Soundness beats precision: code generation vectorizes memory accesses from
// these facts, so a wrong fact is a misaligned or wrong access on the GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_AXISINFO_H
#define KCC_PASSES_AXISINFO_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>

namespace mlir {
class Block;
namespace scf {
class ForOp;
class IfOp;
} // namespace scf
} // namespace mlir

namespace kcc {

/// Largest divisibility the lattice tracks; 0 (and large powers of two) map to
/// it. Keeping it at 2^30 makes products of two facts fit in int64_t.
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

/// Largest power of two dividing `value`, capped at kMaxDivisibility (0 is
/// divisible by everything).
int64_t highestPowerOf2Divisor(int64_t value);

class AxisInfo {
public:
  using DimVector = llvm::SmallVector<int64_t, 2>;

  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constantValue = std::nullopt,
           int64_t unit = 1);

  /// Nothing known: every fact is 1. `unit` is the pointee size in bytes for
  /// pointers (pointer divisibility counts bytes), 1 for integers.
  static AxisInfo getPessimistic(unsigned rank, int64_t unit = 1);
  /// A tile (or scalar when shape is empty) whose elements all equal `value`.
  static AxisInfo getConstant(llvm::ArrayRef<int64_t> shape, int64_t value);
  /// Exact facts of a constant tile given by its row-major `values`, which
  /// are compared modulo 2^bitWidth.
  static AxisInfo getFromValues(llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<int64_t> values,
                                unsigned bitWidth);
  /// A fact that holds for values described by `a` and for those described by
  /// `b` (control-flow merge). Never stronger than either input.
  static AxisInfo join(const AxisInfo &a, const AxisInfo &b);

  bool isInitialized() const { return !contiguity.empty(); }
  unsigned getRank() const { return contiguity.size(); }
  int64_t getContiguity(unsigned d) const { return contiguity[d]; }
  int64_t getDivisibility(unsigned d) const { return divisibility[d]; }
  int64_t getConstancy(unsigned d) const { return constancy[d]; }
  const DimVector &getContiguity() const { return contiguity; }
  const DimVector &getDivisibility() const { return divisibility; }
  const DimVector &getConstancy() const { return constancy; }
  std::optional<int64_t> getConstantValue() const { return constantValue; }
  int64_t getUnit() const { return unit; }

  /// Divisibility of the elements whose d-coordinate is a multiple of
  /// `stride` (a power of two). When stride is below the contiguity, those
  /// elements sit inside runs: x + m*stride (times the unit for pointers).
  int64_t getDivisibilityAt(unsigned d, int64_t stride) const;
  /// Divisibility that holds for every element of the tile.
  int64_t getElementDivisibility() const;

  bool operator==(const AxisInfo &other) const;
  bool operator!=(const AxisInfo &other) const { return !(*this == other); }
  void print(llvm::raw_ostream &os) const;

  // Facts are public for transfer functions; keep them powers of two.
  DimVector contiguity, divisibility, constancy;
  std::optional<int64_t> constantValue;
  int64_t unit = 1;
};

/// Runs the analysis over one function (normally a kcc.kernel in tile IR) at
/// construction time. Results are keyed by Value, so they stay valid when a
/// later pass changes types in place (e.g. layout assignment).
class AxisInfoAnalysis {
public:
  explicit AxisInfoAnalysis(mlir::Operation *funcOp);

  /// Facts for `value`; pessimistic facts for values the analysis did not see
  /// (floats, values defined outside the function).
  const AxisInfo &get(mlir::Value value) const;

private:
  void visitBlock(mlir::Block &block);
  void visitOperation(mlir::Operation *op);
  void visitFor(mlir::scf::ForOp forOp);
  void visitIf(mlir::scf::IfOp ifOp);
  AxisInfo computeResult(mlir::Operation *op);
  void setPessimisticDeep(mlir::Operation *op);
  void set(mlir::Value value, AxisInfo info);

  llvm::DenseMap<mlir::Value, AxisInfo> infos;
  mutable llvm::DenseMap<mlir::Value, AxisInfo> fallbacks;
};

/// Bytes one element of pointee type `type` occupies in memory (i1 counts as
/// one byte, pointers as eight).
int64_t getElementBytes(mlir::Type type);

} // namespace kcc

#endif // KCC_PASSES_AXISINFO_H
