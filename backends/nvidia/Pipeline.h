//===- Pipeline.h - NVIDIA lowering pipeline ----------------------*- C++ -*-===//
#ifndef KCC_BACKENDS_NVIDIA_PIPELINE_H
#define KCC_BACKENDS_NVIDIA_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace kcc::nvidia {
/// kcc-convert-to-llvm followed by the upstream clean-up conversions: the
/// result is a builtin module of LLVM + NVVM dialect ops only, translatable
/// with mlir::translateModuleToLLVMIR. Runs on a builtin.module.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm);
/// Registers `kcc-lower-to-llvm` as a pass pipeline (idempotent).
void registerLowerToLLVMPipeline();
} // namespace kcc::nvidia

#endif
