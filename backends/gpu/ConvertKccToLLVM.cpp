//===- ConvertKccToLLVM.cpp - kcc layout IR -> LLVM + NVVM/ROCDL ----------===//
//
// The `kcc-convert-to-llvm` pass: checks what this version lowers, creates
// each kernel's shared memory where kcc-allocate-shared-memory placed it
// (AllocateSharedMemory.cpp), then applies the vendor-neutral patterns
// (TileOpsToLLVM.cpp, ReduceToLLVM.cpp, DotToFMA.cpp) together with those of
// the vendor named by the `vendor` option (backends/nvidia, backends/amd),
// which registered themselves with registerVendorLowering.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"
#include "backends/gpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"

namespace kcc::gpu {
#define GEN_PASS_DEF_CONVERTKCCTOLLVM
#include "backends/gpu/Passes.h.inc"
} // namespace kcc::gpu

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

//===----------------------------------------------------------------------===//
// Vendors
//===----------------------------------------------------------------------===//

static llvm::StringMap<VendorLowering> &vendorLowerings() {
  static llvm::StringMap<VendorLowering> lowerings;
  return lowerings;
}

void kcc::gpu::registerVendorLowering(llvm::StringRef vendor,
                                      VendorLowering lowering) {
  vendorLowerings()[vendor] = std::move(lowering);
}

const VendorLowering *kcc::gpu::lookupVendorLowering(llvm::StringRef vendor) {
  auto it = vendorLowerings().find(vendor);
  return it == vendorLowerings().end() ? nullptr : &it->second;
}

namespace {

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertKccToLLVMPass
    : kcc::gpu::impl::ConvertKccToLLVMBase<ConvertKccToLLVMPass> {
  using ConvertKccToLLVMBase::ConvertKccToLLVMBase;
  void runOnOperation() override;
};

/// Creates the shared-memory buffer of `fn` as kcc-allocate-shared-memory
/// recorded it (kcc.smem_bytes, kcc.smem_alignment), which the lowering
/// addresses through smemBase; false (with an error) when `fn` needs one and
/// was not allocated.
static bool createSharedMemory(OpBuilder &b, func::FuncOp fn, bool usesSmem,
                               bool dynamic) {
  auto bytes = fn->getAttrOfType<IntegerAttr>(KccDialect::kSmemBytesAttr);
  auto align = fn->getAttrOfType<IntegerAttr>(KccDialect::kSmemAlignmentAttr);
  // The buffer and kcc.dynamic_smem_bytes carry them from here on; the
  // llvm.func keeps only what the launch needs.
  fn->removeAttr(KccDialect::kSmemBytesAttr);
  fn->removeAttr(KccDialect::kSmemAlignmentAttr);
  if (!bytes || !align) {
    if (!usesSmem)
      return true;
    fn.emitError("kcc: kernel '")
        << fn.getName() << "' uses shared memory but has no "
        << KccDialect::kSmemBytesAttr << " / " << KccDialect::kSmemAlignmentAttr
        << ": run kcc-allocate-shared-memory first (kcc-lower-to-llvm "
           "runs it before kcc-convert-to-llvm)";
    return false;
  }
  int64_t smem = bytes.getInt();
  if (smem <= 0)
    return true;
  b.setInsertionPoint(fn);
  if (dynamic) {
    // `extern __shared__`: a zero-sized external array is PTX's
    // `.extern .shared` (dynamic shared memory, sized by the launch).
    // 1024-byte aligned, so swizzled stages at 1024-byte offsets are
    // aligned too, whatever the kernel holds.
    LLVM::GlobalOp::create(b, fn.getLoc(),
                           LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           smemName(fn.getName()), Attribute(),
                           /*alignment=*/1024, /*addrSpace=*/3);
    fn->setAttr(KccDialect::kDynamicSmemBytesAttr, b.getI64IntegerAttr(smem));
  } else {
    auto arr = LLVM::LLVMArrayType::get(b.getI8Type(), smem);
    LLVM::GlobalOp::create(b, fn.getLoc(), arr, /*isConstant=*/false,
                           LLVM::Linkage::Internal, smemName(fn.getName()),
                           Attribute(), /*alignment=*/align.getInt(),
                           /*addrSpace=*/3);
  }
  return true;
}

/// Rejects what this version does not lower, with a clear message, splits
/// warp-specialized kernels into their roles and creates each kernel's
/// shared-memory buffer.
static LogicalResult prepare(ModuleOp module, const VendorLowering &vendor,
                             const TargetOps &ops) {
  bool ok = true;
  OpBuilder b(module.getContext());
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    bool usesSmem = false;
    fn.walk([&](Operation *op) {
      if (isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op>(op) &&
          !ops.hasF64Transcendentals() &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF64()) {
        op->emitError("kcc: ")
            << op->getName().stripDialect()
            << " on f64 is not supported on AMD targets yet (it needs the "
               "ROCm device libraries, which kcc does not link); compute it "
               "in f32 with cast(x, f32)";
        ok = false;
        return;
      }
      if (isa<func::CallOp, func::CallIndirectOp>(op)) {
        op->emitError("kcc: calls are not lowered in kcc 0.1 (inline first)");
        ok = false;
        return;
      }
      auto check = [&](Type t) {
        auto tt = dyn_cast<RankedTensorType>(t);
        if (!tt)
          return;
        if (isAccumulatorLayout(tt.getEncoding())) {
          // Only these ops know the accumulator's register mapping.
          // Elementwise arith/math ops work register by register.
          // So do loads and address arithmetic, and an arange in a row
          // vector of a wgmma accumulator (its registers' rows).
          bool elementwise =
              isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
                  op->getDialect()) ||
              isa<AddPtrOp, LoadOp>(op);
          bool rowArange = isa<ArangeOp>(op) &&
                           isa<WgmmaAccLayoutAttr>(tt.getEncoding()) &&
                           isWgmmaRowSlice(tt.getShape());
          if (!elementwise && !rowArange &&
              !isa<WarpgroupMmaOp, WarpgroupMmaRegAOp, WarpgroupMmaWaitOp,
                   WarpMmaOp, DotOp, TmemLoadOp, ReduceOp, ExpandDimsOp,
                   ConvertLayoutOp, SmemStoreOp, SmemLoadOp, SplatOp,
                   BroadcastOp, scf::ForOp, scf::IfOp, scf::YieldOp>(op)) {
            op->emitError("kcc: internal error: ")
                << op->getName()
                << " on an MMA accumulator (only dot, warpgroup_mma, its "
                   "wait, warp_mma, convert_layout, smem_store, smem_load, "
                   "splat, broadcast, loads, address and elementwise "
                   "arith/math, a row vector's arange and control flow "
                   "handle that layout)";
            ok = false;
          } else if (ops.warpSize() !=
                     (isa<MfmaAccLayoutAttr>(tt.getEncoding()) ? 64u : 32u)) {
            op->emitError("kcc: internal error: ")
                << tt.getEncoding() << " on a target with " << ops.warpSize()
                << "-lane warps";
            ok = false;
          }
          return;
        }
        auto enc = dyn_cast_or_null<BlockedLayoutAttr>(tt.getEncoding());
        if (!enc) {
          op->emitError("kcc: tile type ")
              << t
              << " has no #kcc.blocked layout (run layout assignment "
                 "before kcc-convert-to-llvm)";
          ok = false;
        } else if (enc.getWarp() != ops.warpSize()) {
          op->emitError("kcc: layout warp = ")
              << enc.getWarp() << " does not match the target's "
              << ops.warpSize() << "-lane "
              << (ops.warpSize() == 64 ? "waves" : "warps")
              << " (assign layouts for this target)";
          ok = false;
        }
      };
      for (Type t : op->getResultTypes())
        check(t);
      for (Type t : op->getOperandTypes())
        check(t);
      usesSmem |= smemBytesFor(op) > 0;
    });
    bool async = hasAsyncOps(fn);
    if (async && ops.warpSize() != 32) {
      fn.emitError("kcc: TMA copies and mbarriers are NVIDIA (sm_90+) "
                   "operations; this kernel was materialized for another "
                   "target");
      ok = false;
    }
    for (Type t : fn.getArgumentTypes())
      if (isa<TensorMapType>(t) && ops.warpSize() != 32) {
        fn.emitError("kcc: tensor map arguments exist on NVIDIA targets only");
        ok = false;
      }
    // Only once kcc-allocate-shared-memory placed the buffers (in program
    // order, before the roles' branches reorder them); an unallocated kernel
    // is refused just below.
    if (async && vendor.splitRoles && fn->hasAttr(KccDialect::kSmemBytesAttr))
      vendor.splitRoles(fn, ops);
    if (!createSharedMemory(b, fn, usesSmem || async,
                            vendor.dynamicSharedMemory))
      ok = false;
  }
  return success(ok);
}

void ConvertKccToLLVMPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  const VendorLowering *lowering = lookupVendorLowering(vendor);
  if (!lowering) {
    module.emitError("kcc-convert-to-llvm: unknown vendor '")
        << vendor << "'; valid vendors are nvidia and amd";
    return signalPassFailure();
  }
  std::unique_ptr<TargetOps> ops = lowering->createTargetOps();
  if (failed(prepare(module, *lowering, *ops)))
    return signalPassFailure();

  KccTypeConverter tc(ctx, *ops);
  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect>();
  ops->addLegalDialects(target);
  target.addLegalOp<ModuleOp, UnrealizedConversionCastOp>();
  target.addIllegalDialect<KccDialect, func::FuncDialect>();
  target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
      [&](Operation *op) { return tc.isLegal(op); });

  RewritePatternSet patterns(ctx);
  populateTileOpPatterns(tc, patterns);
  populateReducePatterns(tc, patterns);
  populateDotPatterns(tc, patterns);
  populateAtomicPatterns(tc, patterns);
  lowering->populatePatterns(tc, patterns);
  ops->addMathPatterns(tc, patterns, target);
  scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);

  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return signalPassFailure();

  // A persistent kernel's tile loop keeps what it computes from the thread
  // id: hoisted out of it (LLVM's LICM), the per-element indices and
  // addresses of every epilogue path, the masked fallback's included, stay
  // live across the whole kernel beside the accumulator and spill. Inner
  // loops still hoist into the tile loop's body.
  auto noLicm = LLVM::LoopAnnotationAttr::get(
      ctx, {}, {}, {}, {}, {},
      LLVM::LoopLICMAttr::get(ctx, BoolAttr::get(ctx, true), {}), {}, {}, {},
      {}, {}, {}, {}, {}, {});
  module.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(KccDialect::kPersistentTilesAttr))
      loop->setAttr("llvm.loop_annotation", noLicm);
  });
}

} // namespace
