//===- LayoutPipeline.cpp - tile IR -> layout IR for one target -----------===//
//
// The per-target pipeline kcc runs on a kernel's tile IR (tools/kcc/Driver.cpp
// and the fuzzers in fuzz/ share it): refuse what the target cannot do
// (CheckTargetSupport.cpp), canonicalize, CSE, and assign layouts with the
// target model's numbers.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "targets/TargetModel.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

void kcc::buildLayoutPipeline(OpPassManager &pm, const TargetModel &target,
                              unsigned numWarps, bool remarks) {
  pm.addPass(createCheckTargetSupport(target));
  KccExpandTileAccessesOptions expand;
  expand.tmaReason =
      llvm::is_contained(target.asyncCopy, "tma")
          ? "kcc 0.1 lowers load_tile/store_tile to masked vector accesses; "
            "TMA copies for them are not implemented yet"
          : "target '" + target.name + "' has no TMA";
  pm.addPass(createKccExpandTileAccesses(expand));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  KccAssignLayoutsOptions options;
  options.warpSize = target.warpSize;
  options.maxVectorBytes = target.maxVectorBytes;
  options.numWarps = numWarps;
  options.maxThreadsPerBlock = target.maxThreadsPerBlock;
  // Half the register file per tile leaves room for the rest.
  options.maxElemsPerThread = llvm::PowerOf2Ceil(target.registersPerThread / 2);
  options.remarks = remarks;
  pm.addPass(createKccAssignLayouts(options));
}
