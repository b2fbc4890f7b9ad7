//===- Dialect.h - kcc tile IR dialect ----------------------------*- C++ -*-===//
#ifndef KCC_IR_DIALECT_H
#define KCC_IR_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include <string>

namespace kcc {
class TargetRegistry;
} // namespace kcc

#include "ir/KccDialect.h.inc"
#include "ir/KccEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ir/KccTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "ir/KccAttrs.h.inc"

namespace kcc {
/// The most bins a histogram may count (its shared-memory counters: 64 KiB).
inline constexpr int64_t kMaxHistogramBins = 16384;
/// For a pointer or a tile of pointers, the pointee type (or a tile of it).
mlir::Type getPointeeLike(mlir::Type ptrLike);
/// i1, or a tile of i1 with the same shape.
mlir::Type getI1Like(mlir::Type type);
/// Number of elements of a tile; 1 for scalars.
int64_t getNumElements(mlir::Type type);
/// The blocked layout of a tile type, or null if it has none yet.
BlockedLayoutAttr getBlockedLayout(mlir::Type type);
/// Warps per block of a kernel: its kcc.num_warps (the warps tile layouts
/// use) plus its kcc.producer_warps (a warp-specialized producer); 0 when
/// the kernel has no kcc.num_warps yet.
unsigned blockWarps(mlir::Operation *func);
/// The alignment of a shared stage buffer: 1024 bytes with a swizzle (the
/// swizzle pattern repeats every 1024 bytes), else 128. The NVIDIA lowering
/// places buffers at it and the pipeliners' budgets count it.
inline int64_t stageAlignment(unsigned swizzle) { return swizzle ? 1024 : 128; }
/// Whether a tile of `shape` in #kcc.wgmma_acc is a row vector of the
/// accumulator layout ([M] or [M, 1]: each thread holds the rows its
/// accumulator registers lie in, replicated over the 4 lanes of a quad),
/// what a row reduction of an accumulator makes (attention's row max and
/// sum) and a row broadcast reads.
inline bool isWgmmaRowSlice(llvm::ArrayRef<int64_t> shape) {
  return shape.size() == 1 || (shape.size() == 2 && shape[1] == 1);
}
} // namespace kcc

#define GET_OP_CLASSES
#include "ir/KccOps.h.inc"

namespace kcc {
/// kcc --persistent: the persistent build of kernel `func` (the function of
/// its module whose kcc.persistent_of names it), or null.
mlir::func::FuncOp persistentBuildOf(mlir::func::FuncOp func);
/// The one-CTA-per-tile build a persistent build stands in for, or null.
mlir::func::FuncOp oneCtaPerTileBuildOf(mlir::func::FuncOp persistentBuild);
/// After the layout pipeline: why the launch should keep the
/// one-CTA-per-tile build instead of `persistentBuild` on this target (a
/// clause: "it runs fewer ..."), or nothing: it issues fewer wgmma /
/// tcgen05.mma (the tensor-core paths fed from TMA stages) than that build.
std::optional<std::string>
persistentBuildNotLaunched(mlir::func::FuncOp persistentBuild);
/// Why `persistentBuild` is not worth compiling (a clause), or nothing: a
/// loop in its tile loop runs a trip count that changes from tile to tile
/// (causal attention's key loop, which stops at the diagonal), and its CTAs
/// take the tiles in turn, so they would finish unevenly.
std::optional<std::string>
persistentTilesRunUnevenly(mlir::func::FuncOp persistentBuild);
} // namespace kcc

#endif // KCC_IR_DIALECT_H
