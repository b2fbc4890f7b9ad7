//===- Pipeline.cpp - NVIDIA lowering pipeline
//--------------------------------===//
#include "backends/nvidia/Pipeline.h"
#include "backends/nvidia/Passes.h"

#include "passes/Passes.h"
#include "targets/BankConflicts.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

using namespace mlir;

namespace {
/// scf-to-cf tags a loop's back edge with the discardable attribute
/// `llvm.loop_annotation`, and cf-to-llvm copies it onto llvm.br as such,
/// where translation ignores it: move it into llvm.br's own
/// `loop_annotation`, which becomes !llvm.loop metadata.
struct AdoptLoopAnnotations
    : PassWrapper<AdoptLoopAnnotations, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AdoptLoopAnnotations)
  StringRef getArgument() const override {
    return "kcc-adopt-loop-annotations";
  }
  void runOnOperation() override {
    getOperation().walk([](LLVM::BrOp br) {
      if (auto a = br->getDiscardableAttr("llvm.loop_annotation")) {
        br.setLoopAnnotationAttr(cast<LLVM::LoopAnnotationAttr>(a));
        br->removeDiscardableAttr("llvm.loop_annotation");
      }
    });
  }
};
} // namespace

/// The pipeline for a vendor given by name (an unknown name is diagnosed by
/// kcc-convert-to-llvm); `maxSharedBytes` 0 is the vendor's default.
static void buildPipeline(OpPassManager &pm, StringRef vendor,
                          int64_t maxSharedBytes = 0,
                          bool keepNVVMOps = false) {
  kcc::nvidia::ConvertKccToLLVMOptions options;
  options.vendor = vendor.str();
  options.maxSharedBytes = maxSharedBytes;
  pm.addPass(kcc::nvidia::createConvertKccToLLVM(options));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
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
  pm.addPass(std::make_unique<AdoptLoopAnnotations>());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void kcc::nvidia::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<KccDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

void kcc::nvidia::buildTargetLayoutPipeline(OpPassManager &pm,
                                            const TargetModel &target,
                                            unsigned numWarps, bool remarks,
                                            bool warpSpecialize,
                                            bool chunkEpilogues) {
  buildLayoutPipeline(pm, target, numWarps, remarks, warpSpecialize,
                      chunkEpilogues);
  pm.addPass(createChooseSharedLayouts(bankGeometry(target)));
  pm.addPass(createPlanLaneExchanges(target));
}

void kcc::nvidia::buildLowerToLLVMPipeline(OpPassManager &pm,
                                           const TargetModel &target,
                                           bool keepNVVMOps) {
  buildPipeline(pm, target.vendor == Vendor::AMD ? "amd" : "nvidia",
                target.sharedMemory.bytesPerBlock, keepNVVMOps);
}

void kcc::nvidia::registerLowerToLLVMPipeline() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
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
      "(kcc-convert-to-llvm + upstream conversions)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildPipeline(pm, options.vendor, options.maxSharedBytes);
      });
}
