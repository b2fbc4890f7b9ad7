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
                              unsigned numWarps, bool remarks,
                              bool warpSpecialize, bool chunkEpilogues) {
  pm.addPass(createCheckTargetSupport(target));
  // TMA copies first (accesses with a tensor map), proven before anything
  // else touches them; the rest are expanded to vector accesses.
  pm.addPass(createMaterializeTmaCopies(target));
  if (target.hasAsyncCopy("tma")) {
    pm.addPass(createPipelineTmaLoads(target, /*stages=*/3, warpSpecialize,
                                      chunkEpilogues));
    if (target.mma.instruction == "tcgen05.mma")
      pm.addPass(createKccMaterializeTcgen05Mma());
    else
      pm.addPass(createKccMaterializeWarpgroupMma());
  }
  // Loop loads feeding dots that TMA did not take: cp.async stages.
  pm.addPass(createPipelineAsyncCopies(target));
  if (target.hasAsyncCopy("tma") || target.hasAsyncCopy("cp.async"))
    pm.addPass(createKccVerifyAsyncProtocol());
  KccExpandTileAccessesOptions expand;
  expand.tmaReason =
      llvm::is_contained(target.asyncCopy, "tma")
          ? "the kernel has no tensor map for this access"
          : "target '" + target.name + "' has no TMA";
  pm.addPass(createKccExpandTileAccesses(expand));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createMaterializeWarpMma(target, numWarps));
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
