//===- Passes.h - kcc tile IR and layout passes -------------------*- C++ -*-===//
#ifndef KCC_PASSES_PASSES_H
#define KCC_PASSES_PASSES_H

#include "ir/Dialect.h"
#include "mlir/Pass/Pass.h"

namespace kcc {
struct TargetModel;

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// registerKccPasses(): every pass of this folder (for kcc-opt).
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Makes the 2-D grid of every group(N) kernel a 1-D launch in grouped order
/// (RasterizePrograms.cpp); with `persistent` > 0 a persistent launch of
/// that many CTAs per multiprocessor, each looping over tiles. Run on the
/// tile IR once, right after the frontend; kernels without group(N) are
/// untouched.
std::unique_ptr<mlir::Pass> createRasterizePrograms(unsigned persistent = 0);

/// Refuses operations the target cannot compile (CheckTargetSupport.cpp).
std::unique_ptr<mlir::Pass> createCheckTargetSupport(const TargetModel &target);

/// Appends the !kcc.tensormap arguments of every kernel: one per (tensor,
/// box) that load_tile/store_tile can copy with TMA on each of `targets`
/// (AddTensorMaps.cpp). Run once on the tile IR shared by a fatbin's targets.
std::unique_ptr<mlir::Pass>
createAddTensorMaps(std::vector<const TargetModel *> targets);
/// Rewrites tile accesses that have a tensor map into TMA copies for
/// `target` (MaterializeTmaCopies.cpp).
std::unique_ptr<mlir::Pass>
createMaterializeTmaCopies(const TargetModel &target);
/// Software-pipelines the TMA loads of for loops over `stages` shared
/// stages, fewer where they would not fit `target`'s shared memory
/// (PipelineTmaLoads.cpp). With `warpSpecialize`, loops feeding wgmma on a
/// target with [warp_specialization] get a producer warpgroup; with
/// `chunkEpilogues`, an MMA tile's TMA store goes out in column chunks when
/// its whole-tile stage would cost the loop a stage (EpilogueChunks.h).
std::unique_ptr<mlir::Pass> createPipelineTmaLoads(const TargetModel &target,
                                                   unsigned stages = 3,
                                                   bool warpSpecialize = true,
                                                   bool chunkEpilogues = true);
void registerPipelineTmaLoadsPass();
/// Software-pipelines the loads of for loops that feed dots with cp.async
/// over `stages` row-padded shared stages, fewer where they would not fit
/// `target`'s shared memory (PipelineAsyncCopies.cpp); a no-op on targets
/// without cp.async.
std::unique_ptr<mlir::Pass> createPipelineAsyncCopies(const TargetModel &target,
                                                      unsigned stages = 3);
void registerPipelineAsyncCopiesPass();
/// Puts the f16/bf16 dots of a target whose tensor-core instruction is
/// mma.sync on the tensor cores (MaterializeWarpMma.cpp); a no-op elsewhere.
/// `numWarps` (0: not given) is kcc --num-warps, which a kernel's own
/// kcc.num_warps overrides.
std::unique_ptr<mlir::Pass> createMaterializeWarpMma(const TargetModel &target,
                                                     unsigned numWarps = 0);
void registerMaterializeWarpMmaPass();
/// Registers both for kcc-opt (with built-in target models by name).
void registerTensorMapPasses();
void registerMaterializeTmaCopiesPass();

/// kcc-plan-lane-exchanges with a target model's exchanges and costs
/// (transforms/PlanLaneExchanges.cpp).
std::unique_ptr<mlir::Pass> createPlanLaneExchanges(const TargetModel &model);
} // namespace kcc

#endif // KCC_PASSES_PASSES_H
