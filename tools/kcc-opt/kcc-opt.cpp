//===- kcc-opt.cpp - run kcc passes on .mlir files --------------------------===//
#include "pipeline/Pipeline.h"
#include "tests/lib/TestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kcc::pipeline::registerCompilerDialects(registry);
  // Upstream passes (canonicalize, cse, conversions) for pipelines in tests.
  mlir::registerAllPasses();
  kcc::pipeline::registerPassesAndPipelines();
  kcc::test::registerKccTestPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kcc optimizer driver\n", registry));
}
