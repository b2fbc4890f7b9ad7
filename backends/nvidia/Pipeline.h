//===- Pipeline.h - NVIDIA lowering pipeline ----------------------*- C++
//-*-===//
#ifndef KCC_BACKENDS_NVIDIA_PIPELINE_H
#define KCC_BACKENDS_NVIDIA_PIPELINE_H

#include "targets/TargetModel.h"

#include "mlir/Pass/PassManager.h"

namespace kcc::nvidia {
/// kcc-convert-to-llvm followed by the upstream clean-up conversions: the
/// result is a builtin module of LLVM + NVVM (or, for AMD, ROCDL) dialect ops
/// only, translatable with mlir::translateModuleToLLVMIR. Runs on a
/// builtin.module.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              Vendor vendor = Vendor::NVIDIA);
/// Registers `kcc-lower-to-llvm` as a pass pipeline (idempotent).
void registerLowerToLLVMPipeline();
} // namespace kcc::nvidia

#endif
