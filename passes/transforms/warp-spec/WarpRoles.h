//===- WarpRoles.h - warp specialization of a TMA pipeline --------*- C++ -*-===//
//
// A loop whose TMA loads feed wgmma is split into a producer warpgroup (one
// thread issues the copies) and consumer warpgroups (the math), which meet
// only through mbarriers: planRoles decides whether and how, buildRoles
// rewrites the kernel into kcc.warp_specialize. kcc-verify-async-protocol
// proves the result.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_TRANSFORMS_WARPSPEC_WARPROLES_H
#define KCC_PASSES_TRANSFORMS_WARPSPEC_WARPROLES_H

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <string>

namespace kcc {
struct TargetModel;
} // namespace kcc

namespace kcc::warpspec {

/// How a pipelined loop is warp-specialized: where the CTA splits, what the
/// producer recomputes, and the roles' sizes.
struct RolePlan {
  mlir::Operation *splitAfter = nullptr;        // last op before kcc.warp_specialize
  llvm::SmallVector<mlir::Operation *> producerSlice; // scalar ops the producer clones
  // A persistent kernel: the tile loop around the pipelined loop, and the
  // scalar ops of its body the producer clones into its own tile loop.
  mlir::scf::ForOp tiles;
  llvm::SmallVector<mlir::Operation *> tileSlice;
  unsigned consumerWarpgroups = 0;
  unsigned producerRegs = 0, consumerRegs = 0;
  // Ping-pong: consumer groups of `consumerWarpgroups` warpgroups taking
  // alternate tiles (2), or 1; why not, when 1 and --ping-pong asked for
  // it (for --report).
  unsigned consumerGroups = 1;
  std::string pingPongWhy;
  // With ping-pong: the buffers (smem stages, mbarriers) the kernel had
  // before the pipeline, which each group gets a copy of (privateBuffers).
  llvm::SmallVector<mlir::Value> privateBuffers;
};

/// The kernel's buffers (before the pipeline adds its own), which each
/// consumer group gets a copy of with ping-pong; why that cannot be, if a
/// use of one is not an indexed access or a barrier init.
std::string privateBuffers(mlir::func::FuncOp func,
                           llvm::SmallVectorImpl<mlir::Value> &out);

/// Why `loop` (pipelined with `lag` 1 for wgmma) cannot be split into a
/// producer warpgroup and consumer warpgroups; empty when `plan` is filled.
std::string planRoles(mlir::func::FuncOp func, mlir::scf::ForOp loop,
                      llvm::ArrayRef<mlir::Value> needed,
                      const TargetModel &target, bool pingPong, RolePlan &plan);

/// Splits the kernel after its setup into kcc.warp_specialize: the producer
/// region recomputes the loop bounds and coordinates (`roles.producerSlice`)
/// and runs the loop's copies; the consumer region gets the rest of the
/// kernel, `loop` included. `issue(b, k, it, s, mapping)` builds the copies
/// of iteration `k` (the pipeline's iteration `it`, counted across a
/// persistent kernel's tiles) into stage `s`, each after waitForRelease of
/// its stage (see WarpRoles.cpp). In a persistent kernel,
/// `issueTile(b, ordinal, mapping)` builds what the producer issues once per
/// tile (the CTA's `ordinal`-th), before the loop's copies.
void buildRoles(
    mlir::func::FuncOp func, mlir::scf::ForOp loop, const RolePlan &roles,
    int64_t depth, int64_t step,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Value, mlir::Value,
                            mlir::Value, const mlir::IRMapping &)>
        issue,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Value,
                            const mlir::IRMapping &)>
        issueTile = nullptr);

/// In the producer: before pipeline iteration `it` refills `stage`, waits
/// for the consumers' release of its previous round on `empty` (none in
/// the first `depth` iterations).
void waitForRelease(mlir::OpBuilder &b, mlir::Location loc, mlir::Value empty,
                    mlir::Value it, mlir::Value stage, int64_t depth);

/// Ping-pong (`roles.consumerGroups` = 2, after buildRoles): the consumer
/// region's tile loop `tiles` takes every other tile from the group's own
/// (kcc.consumer_group) on, its copies of `roles.privateBuffers` are the
/// group's half of each (doubled here), and the groups' K loops take turns
/// through `turn` (an mbarrier pair, count 1 each: turn[g] completes a
/// phase when the other group's K loop has ended), so a group never waits
/// for a stage's next round while the round before it is pending. The tile
/// loop's pipeline counter `base` (its last iter_arg) advances by both
/// groups' tiles' trip counts (computed again from the other group's tile
/// where they change from tile to tile); returns the counter of this
/// group's tile, for `loop`'s stages.
mlir::Value buildPingPong(mlir::func::FuncOp func, mlir::scf::ForOp tiles,
                          mlir::scf::ForOp loop, const RolePlan &roles,
                          mlir::Value base, mlir::Value turn, int64_t step);

} // namespace kcc::warpspec

#endif // KCC_PASSES_TRANSFORMS_WARPSPEC_WARPROLES_H
