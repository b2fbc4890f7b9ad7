//===- Pipeline.cpp - the one place that knows kcc's pass order -----------===//
//
// See Pipeline.h. A new pass goes into one of these builders (and nowhere
// else); a tool that needs a new combination gets an option here.
//
//===----------------------------------------------------------------------===//
#include "pipeline/Pipeline.h"

#include "backends/amd/ROCDLLowering.h"
#include "backends/gpu/Passes.h"
#include "backends/nvidia/NVVMLowering.h"
#include "ir/Dialect.h"
#include "passes/Passes.h"
#include "targets/TargetModel.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kcc;

void pipeline::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<KccDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  nvidia::registerNVVMLowering();
  amd::registerROCDLLowering();
}

//===----------------------------------------------------------------------===//
// Tile IR
//===----------------------------------------------------------------------===//

void pipeline::buildTilePipeline(OpPassManager &pm,
                                 const TileOptions &options) {
  // Before anything is lowered: the stores of each tensor cover it exactly
  // once (isl), or the sizes that do become launch guards.
  if (options.proveCoverage) {
    KccProveTileCoverageOptions coverage;
    coverage.unproven = options.unprovenCoverageIsError ? "error" : "warning";
    pm.addPass(createKccProveTileCoverage(coverage));
  }
  // Descriptor synthesis: a dot's pointer tiles take the tensor paths.
  if (options.liftPointerTiles)
    pm.addPass(createKccSynthesizeTileAccesses());
  // An if the launch decides: one build per branch (each then gets its own
  // persistent and fallback builds below).
  if (options.versionBranches)
    pm.addPass(createKccVersionLaunchBranches());
  // Masks the launch decides (row kernels' `cols < ncols`): a build
  // without them, the masked one for the other launches.
  if (options.versionBranches && options.versionMasks)
    pm.addPass(createKccVersionFullLaunches());
  // group(N) kernels: from here on every consumer (both vendors, the stubs,
  // the manifest) sees the flat 1-D launch in grouped order.
  if (options.rasterize) {
    KccRasterizeProgramsOptions rasterize;
    rasterize.persistent = options.persistent;
    rasterize.cluster = options.cluster;
    pm.addPass(createKccRasterizePrograms(rasterize));
  }
  // Tensors outside the tensor contract: a build without it, beside each.
  if (options.fallbackBuilds)
    pm.addPass(createKccAddFallbackBuilds());
  // Grids too small to fill the GPU: the K loop split over a third axis.
  if (options.splitK)
    pm.addPass(createKccAddSplitKBuilds());
}

std::string pipeline::clusterSizeError(unsigned ctas) {
  if (ctas <= 2)
    return "";
  return "invalid --clusters=" + std::to_string(ctas) +
         ": kcc builds clusters of 2 CTAs (--clusters=2), or none (0 or 1)";
}

std::vector<std::pair<std::string, std::string>>
pipeline::dropUnevenPersistentBuilds(ModuleOp module) {
  std::vector<std::pair<std::string, std::string>> dropped;
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (std::optional<std::string> why =
            kcc::persistentTilesRunUnevenly(func)) {
      dropped.emplace_back(func.getSymName().str(), *why);
      func.erase();
    }
  return dropped;
}

std::vector<const TargetModel *>
pipeline::tensorMapTargets(const std::vector<const TargetModel *> &targets) {
  std::vector<const TargetModel *> tma;
  for (const TargetModel *target : targets)
    if (target->vendor == Vendor::NVIDIA && target->hasAsyncCopy("tma"))
      tma.push_back(target);
  return tma;
}

void pipeline::buildTensorMapPipeline(OpPassManager &pm,
                                      std::vector<const TargetModel *> targets) {
  KccAddTensorMapsOptions maps;
  for (const TargetModel *target : targets)
    maps.targetNames.push_back(target->name);
  pm.addPass(createKccAddTensorMaps(maps));
}

//===----------------------------------------------------------------------===//
// Layout IR
//===----------------------------------------------------------------------===//

void pipeline::buildLayoutPipeline(OpPassManager &pm, const TargetModel &target,
                                   const LayoutOptions &options) {
  // Every pass that reads the model finds it by this name in the kcc
  // dialect's registry (ir/TargetLookup.h).
  const std::string &name = target.name;
  // Refuse what the target cannot do, at its source location.
  KccCheckTargetSupportOptions check;
  check.targetName = name;
  pm.addPass(createKccCheckTargetSupport(check));
  // TMA copies first (accesses with a tensor map), proven before anything
  // else touches them; the rest are expanded to vector accesses.
  KccMaterializeTmaCopiesOptions tma;
  tma.targetName = name;
  pm.addPass(createKccMaterializeTmaCopies(tma));
  if (target.hasAsyncCopy("tma")) {
    KccPipelineTmaLoadsOptions tmaLoads;
    tmaLoads.targetName = name;
    tmaLoads.warpSpecialize = options.warpSpecialize;
    tmaLoads.pingPong = options.pingPong;
    tmaLoads.prefetchTileLoads = options.prefetchTileLoads;
    tmaLoads.chunkEpilogues = options.chunkEpilogues;
    tmaLoads.stages = options.pipelineStages;
    pm.addPass(createKccPipelineTmaLoads(tmaLoads));
    if (target.mma.instruction == "tcgen05.mma")
      pm.addPass(createKccMaterializeTcgen05Mma());
    else
      pm.addPass(createKccMaterializeWarpgroupMma());
    // Attention's P @ V beside the next block's softmax.
    if (target.mma.instruction == "wgmma" && options.overlapProducts) {
      KccDeferRegisterAMmaOptions defer;
      defer.turns = options.warpgroupTurns;
      pm.addPass(createKccDeferRegisterAMma(defer));
    }
    // FP8 block scales: a K block's promotion beside the next product.
    if (target.mma.instruction == "wgmma" && options.latePromotion)
      pm.addPass(createKccDeferBlockPromotion());
  }
  // Clusters (kcc --clusters): the loads a cluster's CTAs share become one
  // multicast copy, before the async verifier proves the protocol; other
  // targets and kernels drop the cluster launch, saying why.
  KccMulticastTmaLoadsOptions multicast;
  multicast.targetName = name;
  pm.addPass(createKccMulticastTmaLoads(multicast));
  // Loop loads feeding dots that TMA did not take: cp.async stages.
  KccPipelineAsyncCopiesOptions cpAsync;
  cpAsync.targetName = name;
  cpAsync.stages = options.pipelineStages;
  pm.addPass(createKccPipelineAsyncCopies(cpAsync));
  // Program-wide atomics order the TMA traffic around them too.
  pm.addPass(createKccOrderProgramAtomics());
  if (target.hasAsyncCopy("tma") || target.hasAsyncCopy("cp.async")) {
    KccVerifyAsyncProtocolOptions verify;
    verify.generated = true;
    pm.addPass(createKccVerifyAsyncProtocol(verify));
  }
  KccExpandTileAccessesOptions expand;
  expand.tmaReason =
      llvm::is_contained(target.asyncCopy, "tma")
          ? "the kernel has no tensor map for this access"
          : "target '" + target.name + "' has no TMA";
  pm.addPass(createKccExpandTileAccesses(expand));
  pm.addPass(createKccRematerializeBroadcasts());
  // Blocks whose masks are all on run a copy without them.
  if (options.versionMasks)
    pm.addPass(createKccVersionFullMasks());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  KccMaterializeWarpMmaOptions warpMma;
  warpMma.targetName = name;
  warpMma.numWarps = options.numWarps;
  pm.addPass(createKccMaterializeWarpMma(warpMma));
  KccAssignLayoutsOptions layouts;
  layouts.warpSize = target.warpSize;
  layouts.maxVectorBytes = target.maxVectorBytes;
  layouts.numWarps = options.numWarps;
  layouts.maxThreadsPerBlock = target.maxThreadsPerBlock;
  // Half the register file per tile leaves room for the rest.
  layouts.maxElemsPerThread = llvm::PowerOf2Ceil(target.registersPerThread / 2);
  layouts.remarks = options.remarks;
  pm.addPass(createKccAssignLayouts(layouts));
  // Shared buffers are laid out with the bank model here, so --report shows
  // the conflicts of what will be emitted.
  kcc::gpu::ChooseSharedLayoutsOptions shared;
  shared.targetName = name;
  pm.addPass(kcc::gpu::createChooseSharedLayouts(shared));
  KccPlanLaneExchangesOptions lanes;
  lanes.targetName = name;
  pm.addPass(createKccPlanLaneExchanges(lanes));
  pm.addPass(kcc::gpu::createCheckTileExtents());
}

//===----------------------------------------------------------------------===//
// LLVM dialect
//===----------------------------------------------------------------------===//

/// The lowering for a vendor given by name (an unknown name is diagnosed by
/// kcc-allocate-shared-memory); `maxSharedBytes` 0 is the vendor's default.
static void buildLowering(OpPassManager &pm, StringRef vendor,
                          int64_t maxSharedBytes, bool keepNVVMOps) {
  kcc::gpu::AllocateSharedMemoryOptions smem;
  smem.vendor = vendor.str();
  smem.maxSharedBytes = maxSharedBytes;
  pm.addPass(kcc::gpu::createAllocateSharedMemory(smem));
  kcc::gpu::ConvertKccToLLVMOptions options;
  options.vendor = vendor.str();
  pm.addPass(kcc::gpu::createConvertKccToLLVM(options));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // tanh and erf as polynomials, before math-to-llvm (no libdevice/ocml).
  pm.addPass(kcc::gpu::createExpandMathFunctions());
  // NVVM ops without an intrinsic (mbarrier.try_wait.parity's wait loop)
  // become inline PTX.
  if (vendor == "nvidia" && !keepNVVMOps)
    pm.addPass(createConvertNVVMToLLVMPass());
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
  pm.addPass(kcc::gpu::createAdoptLoopAnnotations());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void pipeline::buildLowerToLLVMPipeline(OpPassManager &pm,
                                        const TargetModel &target,
                                        bool keepNVVMOps) {
  buildLowering(pm, target.vendor == Vendor::AMD ? "amd" : "nvidia",
                target.sharedMemory.bytesPerBlock, keepNVVMOps);
}

void pipeline::registerPassesAndPipelines() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerKccPasses();
  kcc::gpu::registerKccGPUPasses();
  nvidia::registerNVVMLowering();
  amd::registerROCDLLowering();
  struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
    Option<std::string> vendor{*this, "vendor",
                               llvm::cl::desc("nvidia (default) or amd"),
                               llvm::cl::init("nvidia")};
    Option<int64_t> maxSharedBytes{
        *this, "max-shared-bytes",
        llvm::cl::desc("Shared memory per block (0: the vendor's default)"),
        llvm::cl::init(0)};
  };
  PassPipelineRegistration<PipelineOptions>(
      "kcc-lower-to-llvm",
      "Lower layout-assigned kcc kernels to LLVM + NVVM (or ROCDL) dialects "
      "(kcc-allocate-shared-memory, kcc-convert-to-llvm, upstream "
      "conversions)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildLowering(pm, options.vendor, options.maxSharedBytes,
                      /*keepNVVMOps=*/false);
      });
}

//===----------------------------------------------------------------------===//
// For the simulator
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> pipeline::withTensorMaps(ModuleOp tileIR,
                                               const TargetModel &target) {
  OwningOpRef<ModuleOp> module(tileIR.clone());
  std::vector<const TargetModel *> targets = tensorMapTargets({&target});
  if (targets.empty())
    return module;
  PassManager pm(tileIR.getContext());
  buildTensorMapPipeline(pm, std::move(targets));
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> pipeline::lowerForSimulator(ModuleOp tileIR,
                                                  const TargetModel &target,
                                                  const LayoutOptions &options) {
  OwningOpRef<ModuleOp> module(tileIR.clone());
  (*module)->setAttr(KccDialect::kTargetAttr,
                     StringAttr::get(tileIR.getContext(), target.name));
  PassManager layout(tileIR.getContext());
  buildLayoutPipeline(layout, target, options);
  if (failed(layout.run(*module)))
    return nullptr;
  PassManager lower(tileIR.getContext());
  buildLowerToLLVMPipeline(lower, target, /*keepNVVMOps=*/true);
  if (failed(lower.run(*module)))
    return nullptr;
  return module;
}
