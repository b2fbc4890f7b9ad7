//===- SharedAccesses.h - the shared-memory accesses kcc's lowering emits -===//
//
// The lowering moves data through shared memory for cross-warp reductions and
// for relayouts (broadcast, expand_dims between layouts). This describes those
// accesses -- which lane touches which byte, per instruction -- from the
// layout IR, so that `kcc --report` can give each one's bank-conflict degree
// under a target's bank model before any code exists. The address arithmetic
// mirrors ConvertKccToLLVM.cpp / ReduceToLLVM.cpp (flatIndex, threadBase).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_NVIDIA_SHAREDACCESSES_H
#define KCC_BACKENDS_NVIDIA_SHAREDACCESSES_H

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kcc::nvidia {

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

/// The shared-memory instructions the lowering emits for `op` (none when it
/// needs no shared memory). `op` must be in layout IR.
std::vector<SharedAccess> describeSharedAccesses(mlir::Operation *op);

} // namespace kcc::nvidia

#endif // KCC_BACKENDS_NVIDIA_SHAREDACCESSES_H
