//===- Pipeline.h - NVIDIA lowering pipeline ----------------------*- C++
//-*-===//
#ifndef KCC_BACKENDS_NVIDIA_PIPELINE_H
#define KCC_BACKENDS_NVIDIA_PIPELINE_H

#include "targets/TargetModel.h"

#include "mlir/Pass/PassManager.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kcc::nvidia {
/// Every dialect and LLVM IR translation kcc's compile pipeline uses (tile
/// and layout IR, the LLVM dialect with NVVM and ROCDL), for the driver and
/// the fuzzers.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Tile IR -> layout IR for `target` as kcc compiles a kernel: the passes of
/// buildLayoutPipeline (passes/), then shared-memory buffers laid out with the
/// target's bank model (kcc-choose-shared-layouts). `target` must outlive the
/// pass manager.
void buildTargetLayoutPipeline(mlir::OpPassManager &pm,
                               const TargetModel &target, unsigned numWarps,
                               bool remarks, bool warpSpecialize = true,
                               bool chunkEpilogues = true);

/// kcc-convert-to-llvm followed by the upstream clean-up conversions: the
/// result is a builtin module of LLVM + NVVM (or, for AMD, ROCDL) dialect ops
/// only, translatable with mlir::translateModuleToLLVMIR. Runs on a
/// builtin.module. `target` gives the vendor and the shared memory a block
/// may use. `keepNVVMOps`: leave NVVM ops that have no intrinsic
/// (mbarrier.try_wait.parity) as ops instead of inline PTX, for the SIMT
/// simulator, which executes them.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const TargetModel &target,
                              bool keepNVVMOps = false);
/// Registers `kcc-lower-to-llvm` as a pass pipeline (idempotent).
void registerLowerToLLVMPipeline();
} // namespace kcc::nvidia

#endif
