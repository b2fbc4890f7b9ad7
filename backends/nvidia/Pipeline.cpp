//===- Pipeline.cpp - NVIDIA lowering pipeline --------------------------------===//
#include "backends/nvidia/Pipeline.h"
#include "backends/nvidia/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kcc::nvidia::buildLowerToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createConvertKccToLLVM());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  // arith-to-llvm first, so maximumf/minimumf become llvm.intr.maximum/minimum
  // (PTX max.NaN/min.NaN); then expand what has no direct LLVM form
  // (ceildivsi, floordivsi, ...) and convert again.
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void kcc::nvidia::registerLowerToLLVMPipeline() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  PassPipelineRegistration<>(
      "kcc-lower-to-llvm",
      "Lower layout-assigned kcc kernels to LLVM + NVVM dialects "
      "(kcc-convert-to-llvm + upstream conversions)",
      [](OpPassManager &pm) { buildLowerToLLVMPipeline(pm); });
}
