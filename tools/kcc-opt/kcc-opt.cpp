//===- kcc-opt.cpp - run kcc passes on .mlir files --------------------------===//
#include "TestHostStubs.h"
#include "backends/nvidia/Passes.h"
#include "ir/Dialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "passes/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<kcc::KccDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::func::FuncDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect>();
  // Upstream passes (canonicalize, cse, conversions) for pipelines in tests.
  mlir::registerAllPasses();
  kcc::registerKccPasses();
  kcc::registerTensorMapPasses();
  kcc::registerMaterializeTmaCopiesPass();
  kcc::registerMaterializeWarpMmaPass();
  kcc::registerPipelineTmaLoadsPass();
  kcc::registerPipelineAsyncCopiesPass();
  kcc::nvidia::registerKccNVIDIAPasses();
  kcc::registerTestHostStubsPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kcc optimizer driver\n", registry));
}
