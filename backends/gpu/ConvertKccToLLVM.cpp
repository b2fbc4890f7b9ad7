//===- ConvertKccToLLVM.cpp - kcc layout IR -> LLVM + NVVM/ROCDL ----------===//
//
// The `kcc-convert-to-llvm` pass: checks what this version lowers, places
// each kernel's shared memory, then applies the vendor-neutral patterns
// (TileOpsToLLVM.cpp, ReduceToLLVM.cpp, DotToFMA.cpp) together with those of
// the vendor named by the `vendor` option (backends/nvidia, backends/amd),
// which registered themselves with registerVendorLowering.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"
#include "backends/gpu/Passes.h"

#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

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

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

bool kcc::gpu::hasAsyncOps(Operation *op) {
  return op
      ->walk([](Operation *o) {
        return isa<SmemAllocOp, MBarrierAllocOp, TmaLoadOp, TmaStoreOp,
                   TmemAllocOp>(o)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

int64_t kcc::gpu::prepareAsyncBuffers(func::FuncOp fn, int64_t scratch,
                                         int64_t &alignment) {
  struct Buffer {
    Operation *op;
    int64_t align, size;
  };
  SmallVector<Buffer> buffers;
  fn.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<SmemAllocOp>(op)) {
      SmemType t = alloc.getType();
      buffers.push_back({op, stageAlignment(t.getSwizzle()),
                         t.getStageBytes() * t.getStages()});
    } else if (auto bars = dyn_cast<MBarrierAllocOp>(op)) {
      buffers.push_back({op, 8, 8 * int64_t(bars.getType().getCount())});
    } else if (isa<TmemAllocOp>(op)) {
      // The slot tcgen05.alloc writes the TMEM address into.
      buffers.push_back({op, 4, 4});
    }
  });
  // Most aligned first (program order within an alignment): the padding is
  // then at most each buffer's own round-up (what
  // kcc::pipelining::asyncBufferBytes counts), not a swizzle span after
  // every mbarrier array.
  SmallVector<int64_t> alignments;
  for (const Buffer &buf : buffers)
    if (!llvm::is_contained(alignments, buf.align))
      alignments.push_back(buf.align);
  llvm::sort(alignments, std::greater<int64_t>());
  int64_t end = scratch;
  for (int64_t align : alignments)
    for (const Buffer &buf : buffers) {
      if (buf.align != align)
        continue;
      int64_t offset = llvm::alignTo(end, buf.align);
      buf.op->setAttr(
          KccDialect::kSmemOffsetAttr,
          IntegerAttr::get(IntegerType::get(fn.getContext(), 32), offset));
      alignment = std::max(alignment, buf.align);
      end = offset + buf.size;
    }
  return end;
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

/// Where a kernel's shared memory lives and how much a block may use.
struct SharedMemoryPlan {
  /// NVIDIA: dynamic shared memory (sized at launch), the only way past the
  /// 48 KiB of static shared memory. AMD: a static LDS array.
  bool dynamic = true;
  int64_t limit = 0; // bytes per block
  std::string target; // for messages: "sm_90a", or "this target"
};

/// Rejects what this version does not lower, with a clear message, and
/// creates each kernel's shared-memory buffer.
static LogicalResult prepare(ModuleOp module, const VendorLowering &vendor,
                             const TargetOps &ops,
                             const SharedMemoryPlan &plan) {
  bool ok = true;
  OpBuilder b(module.getContext());
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    int64_t smem = 0;
    fn.walk([&](Operation *op) {
      // The FMA lowering of dot stages a and b in shared memory: name the
      // dot that does not fit, not only the kernel's total.
      if (auto dot = dyn_cast<DotOp>(op)) {
        int64_t bytes = dotScratch(dot).bytes;
        if (bytes > plan.limit) {
          auto shape = [](RankedTensorType t) {
            std::string s;
            llvm::raw_string_ostream os(s);
            llvm::interleave(t.getShape(), os, "x");
            os << " " << t.getElementType();
            return s;
          };
          dot.emitError("kcc: dot needs ")
              << bytes << " bytes of shared memory for a ("
              << shape(dot.getA().getType()) << ") and b ("
              << shape(dot.getB().getType()) << "), which its "
              << (isAccumulatorLayout(dot.getC().getType().getEncoding())
                      ? "tensor-core"
                      : "CUDA-core")
              << " lowering stages there: more than "
                 "the "
              << plan.limit << " bytes one block may use on " << plan.target
              << "; use smaller tiles (e.g. a loop over K)";
          ok = false;
          return;
        }
      }
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
          bool elementwise =
              isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
                  op->getDialect());
          if (!elementwise &&
              !isa<WarpgroupMmaOp, WarpgroupMmaWaitOp, WarpMmaOp, DotOp,
                   TmemLoadOp, ConvertLayoutOp, SmemStoreOp, SplatOp,
                   BroadcastOp, scf::ForOp, scf::IfOp, scf::YieldOp>(op)) {
            op->emitError("kcc: internal error: ")
                << op->getName()
                << " on an MMA accumulator (only dot, warpgroup_mma, its "
                   "wait, warp_mma, convert_layout, smem_store, splat, "
                   "broadcast, "
                   "elementwise arith/math and control flow handle that "
                   "layout)";
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
      smem = std::max(smem, smemBytesFor(op));
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
    int64_t scratch = smem, alignment = 16;
    if (async) {
      smem = prepareAsyncBuffers(fn, smem, alignment);
      if (vendor.splitRoles)
        vendor.splitRoles(fn, ops);
    }
    if (smem > plan.limit) {
      auto diag = fn.emitError("kcc: kernel needs ")
                  << smem << " bytes of shared memory (" << scratch
                  << " for layout conversions and reductions";
      if (async)
        diag << ", " << smem - scratch << " for TMA stages and mbarriers";
      diag << "), more than the " << plan.limit
           << " bytes one block may use on " << plan.target;
      ok = false;
    }
    if (smem > 0) {
      b.setInsertionPoint(fn);
      if (plan.dynamic) {
        // `extern __shared__`: a zero-sized external array is PTX's
        // `.extern .shared` (dynamic shared memory, sized by the launch).
        // 1024-byte aligned, so swizzled stages at 1024-byte offsets are
        // aligned too, whatever the kernel holds.
        LLVM::GlobalOp::create(
            b, fn.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
            /*isConstant=*/false, LLVM::Linkage::External,
            smemName(fn.getName()), Attribute(), /*alignment=*/1024,
            /*addrSpace=*/3);
        fn->setAttr(KccDialect::kDynamicSmemBytesAttr,
                    b.getI64IntegerAttr(smem));
      } else {
        auto arr = LLVM::LLVMArrayType::get(b.getI8Type(), smem);
        LLVM::GlobalOp::create(b, fn.getLoc(), arr, /*isConstant=*/false,
                               LLVM::Linkage::Internal,
                               smemName(fn.getName()), Attribute(),
                               /*alignment=*/alignment, /*addrSpace=*/3);
      }
    }
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
  SharedMemoryPlan plan;
  plan.dynamic = lowering->dynamicSharedMemory;
  plan.limit = maxSharedBytes;
  if (plan.limit <= 0) {
    const TargetModel *model =
        TargetRegistry::builtin().lookup(lowering->defaultTarget);
    plan.limit = model ? model->sharedMemory.bytesPerBlock : 48 * 1024;
  }
  auto targetName = module->getAttrOfType<StringAttr>(KccDialect::kTargetAttr);
  plan.target = targetName ? targetName.str() : "this target";
  if (failed(prepare(module, *lowering, *ops, plan)))
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
  lowering->populatePatterns(tc, patterns);
  ops->addMathPatterns(tc, patterns, target);
  scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);

  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return signalPassFailure();
}

} // namespace
