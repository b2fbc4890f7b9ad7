//===- SharedAccesses.h - the shared-memory accesses kcc's lowering emits -===//
//
// The lowering moves data through shared memory for cross-warp reductions,
// for relayouts (broadcast, expand_dims between layouts) and for the operands
// of dot's FMA lowering. This describes those
// accesses -- which lane touches which byte, per instruction -- from the
// layout IR, so that `kcc --report` can give each one's bank-conflict degree
// under a target's bank model before any code exists. The address arithmetic
// mirrors ConvertKccToLLVM.cpp / ReduceToLLVM.cpp (flatIndex, threadBase).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_GPU_SHAREDACCESSES_H
#define KCC_BACKENDS_GPU_SHAREDACCESSES_H

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kcc::gpu {

/// One shared-memory instruction as every warp of the CTA executes it.
struct SharedAccess {
  mlir::Operation *op = nullptr;
  std::string what; // e.g. "cross-warp partial store"
  unsigned reg = 0; // which register of the tile (one instruction each)
  bool isStore = false;
  unsigned bytes = 0; // per lane
  /// warps[w][lane]: the byte offset lane `lane` of warp `w` touches, or
  /// nullopt when the lane does not take part.
  std::vector<std::vector<std::optional<uint64_t>>> warps;
};

/// Padding of a shared-memory buffer: `pad` elements after every `every`
/// elements (kcc.smem_padding), which shifts later rows across the banks.
struct SmemPadding {
  int64_t every = 1, pad = 0;
  bool none() const { return pad == 0; }
  /// Buffer position of flat element g.
  int64_t index(int64_t g) const { return g + g / every * pad; }
  /// Buffer elements for n flat elements.
  int64_t elements(int64_t n) const { return n == 0 ? 0 : index(n - 1) + 1; }
};
/// The shared-memory instructions the lowering emits for `op` (none when it
/// needs no shared memory). `op` must be in layout IR. `padding` replaces
/// the op's kcc.smem_padding (to evaluate a candidate layout).
std::vector<SharedAccess>
describeSharedAccesses(mlir::Operation *op,
                       std::optional<SmemPadding> padding = std::nullopt);

} // namespace kcc::gpu

#endif // KCC_BACKENDS_GPU_SHAREDACCESSES_H
