//===- Passes.h - NVIDIA target lowering passes -------------------*- C++ -*-===//
#ifndef KCC_BACKENDS_NVIDIA_PASSES_H
#define KCC_BACKENDS_NVIDIA_PASSES_H

#include "backends/nvidia/Pipeline.h"
#include "ir/Dialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Pass/Pass.h"

namespace kcc {
struct BankGeometry;
struct TargetModel;
} // namespace kcc

namespace kcc::nvidia {
#define GEN_PASS_DECL
#include "backends/nvidia/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backends/nvidia/Passes.h.inc"

/// kcc-choose-shared-layouts with a target model's bank geometry.
std::unique_ptr<mlir::Pass>
createChooseSharedLayouts(const BankGeometry &geometry);

/// kcc-plan-lane-exchanges with a target model's exchanges and costs.
std::unique_ptr<mlir::Pass> createPlanLaneExchanges(const TargetModel &model);

/// registerKccNVIDIAPasses(): every pass of this folder plus the
/// `kcc-lower-to-llvm` pipeline (for kcc-opt).
inline void registerKccNVIDIAPasses() {
  registerKccNVIDIAGenPasses();
  registerLowerToLLVMPipeline();
}
} // namespace kcc::nvidia

#endif // KCC_BACKENDS_NVIDIA_PASSES_H
