//===- Pipeline.h - the one place that knows kcc's pass order -----*- C++ -*-===//
//
// Every pass list of the compiler is built here, and only here: the driver
// (tools/kcc), kcc-opt's named pipelines, kcc-difftest, kcc-sim and the
// fuzzers call these builders. The stages, as data flows through them:
//
//   tile IR      buildTilePipeline        coverage proof (isl), pointer
//                                         tiles lifted to tensor accesses,
//                                         rasterized launch order,
//                                         persistence
//                buildTensorMapPipeline   TMA tensor-map arguments (NVIDIA)
//   layout IR    buildLayoutPipeline      per target: legality, TMA/MMA
//                                         materialization, pipelining, warp
//                                         specialization, async verifier,
//                                         layouts, shared layouts, lane
//                                         exchanges
//   LLVM dialect buildLowerToLLVMPipeline kcc-allocate-shared-memory (the
//                                         target's limit), kcc-convert-to-llvm
//                                         with the target's vendor, then
//                                         upstream conversions
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PIPELINE_PIPELINE_H
#define KCC_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kcc {
struct TargetModel;
} // namespace kcc

namespace kcc::pipeline {

/// Every dialect and LLVM IR translation kcc's pipelines use (tile and
/// layout IR, the LLVM dialect with NVVM and ROCDL), and the vendors of
/// kcc-convert-to-llvm. Every tool calls it before building a pipeline.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Registers every kcc pass and the named pipelines (kcc-lower-to-llvm) for
/// kcc-opt.
void registerPassesAndPipelines();

/// The tile-IR passes every target shares, run once per input.
struct TileOptions {
  /// The isl coverage proof of store_tile (its unproven sizes become launch
  /// guards); `unprovenCoverageIsError` makes an unproven size an error.
  bool proveCoverage = true;
  bool unprovenCoverageIsError = true;
  /// Tiles of pointers that address strided boxes become load_tile/
  /// store_tile (descriptor synthesis); off where the kernel must run as
  /// written (kcc-difftest's interpreter, the reference).
  bool liftPointerTiles = true;
  /// group(N) kernels launched as a 1-D grid in grouped order.
  bool rasterize = true;
  /// > 0: a persistent build with that many CTAs per multiprocessor
  /// (kcc --persistent).
  unsigned persistent = 0;
  /// > 1: group(N) kernels' one-program-per-tile builds launched as
  /// clusters of that many CTAs (kcc --clusters).
  unsigned cluster = 0;
  /// Kernels over tensor<> parameters also get a build that does not assume
  /// the tensor contract, launched for tensors that break it.
  bool fallbackBuilds = true;
  /// GEMM-shaped kernels also get split-K builds (a partial and a reduce
  /// kernel), launched instead when the grid is too small for the GPU.
  bool splitK = true;
  /// A kernel whose top-level if the launch decides (kcc.launch_guard) is
  /// compiled once per branch; the launch runs the branch's build.
  bool versionBranches = true;
  /// With versionBranches: a kernel whose masks the launch decides gets a
  /// build without them (kcc --version-masks).
  bool versionMasks = true;
};
void buildTilePipeline(mlir::OpPassManager &pm, const TileOptions &options);
/// Why `--clusters=N` is refused ("" when N is 0, 1 or 2): the tools that
/// take the flag (kcc, kcc-difftest, kcc-sim) say the same.
std::string clusterSizeError(unsigned ctas);
/// After buildTilePipeline: erases the persistent builds whose tiles run
/// different trip counts (kcc::persistentTilesRunUnevenly), so that kcc,
/// kcc-difftest and kcc-sim launch one CTA per tile there alike; returns
/// each erased build's symbol and why.
std::vector<std::pair<std::string, std::string>>
dropUnevenPersistentBuilds(mlir::ModuleOp module);

/// The targets among `targets` whose kernels receive TMA tensor maps (the
/// NVIDIA targets with TMA): one set of arguments serves them all.
std::vector<const TargetModel *>
tensorMapTargets(const std::vector<const TargetModel *> &targets);
/// Appends the tensor-map arguments for `targets` (tensorMapTargets), found
/// by name in the kcc dialect's registry as buildLayoutPipeline's target is.
void buildTensorMapPipeline(mlir::OpPassManager &pm,
                            std::vector<const TargetModel *> targets);

/// Tile IR -> layout IR for one target.
/// kcc-defer-register-a-mma's `turns` for a --warpgroup-turns[=true|false]
/// flag: on, off, or auto when it is not given.
inline std::string warpgroupTurnsMode(llvm::cl::boolOrDefault flag) {
  return flag == llvm::cl::BOU_TRUE    ? "on"
         : flag == llvm::cl::BOU_FALSE ? "off"
                                       : "auto";
}

struct LayoutOptions {
  /// kcc --num-warps (0: the compiler's choice).
  unsigned numWarps = 0;
  /// The access-width remarks of --report.
  bool remarks = false;
  /// kcc --warp-specialize / --chunk-epilogues.
  bool warpSpecialize = true;
  bool pingPong = true; // kcc --ping-pong (docs/gemm.md, "Ping-pong")
  bool prefetchTileLoads = true; // kcc --prefetch-tile-loads
  bool chunkEpilogues = true;
  /// kcc --pipeline-stages: a K loop's shared stages (a wgmma loop gets one
  /// more for the product in flight; fewer where they do not fit).
  unsigned pipelineStages = 3;
  /// kcc --overlap-products / --warpgroup-turns (kcc-defer-register-a-mma).
  bool overlapProducts = true;
  /// kcc --late-promotion (kcc-defer-block-promotion).
  bool latePromotion = false;
  /// auto (where the key blocks are long enough), on or off.
  std::string warpgroupTurns = "auto";
  /// kcc --version-masks (kcc-version-full-masks).
  bool versionMasks = true;
};
/// The passes find `target` by its name in the kcc dialect's registry
/// (ir/TargetLookup.h), which must hold it when the pass manager runs: the
/// built-in models, or the registry of --target-model files a tool set.
void buildLayoutPipeline(mlir::OpPassManager &pm, const TargetModel &target,
                         const LayoutOptions &options);

/// Layout IR -> a builtin module of LLVM + NVVM (or ROCDL) dialect ops only,
/// translatable with mlir::translateModuleToLLVMIR. `keepNVVMOps`: leave
/// NVVM ops that have no intrinsic (mbarrier.try_wait.parity) as ops instead
/// of inline PTX, for the SIMT simulator, which executes them.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const TargetModel &target,
                              bool keepNVVMOps = false);

/// For the simulator's users (kcc-sim, kcc-difftest): a copy of `tileIR`
/// with the tensor maps kcc gives its kernels for `target` (none on targets
/// without TMA); null on failure.
mlir::OwningOpRef<mlir::ModuleOp> withTensorMaps(mlir::ModuleOp tileIR,
                                                 const TargetModel &target);
/// A copy of `tileIR` (with its tensor maps: withTensorMaps) lowered for
/// `target` as kcc lowers it, NVVM ops kept for the simulator; diagnostics
/// go to the context's handler; null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
lowerForSimulator(mlir::ModuleOp tileIR, const TargetModel &target,
                  const LayoutOptions &options = {});

} // namespace kcc::pipeline

#endif // KCC_PIPELINE_PIPELINE_H
