//===- ROCDLTargetOps.cpp - what the lowering does on AMD -----------------===//
//
// ROCDL for AMD (64-lane waves). Cross-lane exchanges are emitted by the
// name the butterfly plan chose (kcc-plan-lane-exchanges,
// targets/LaneExchange.h): DPP quad_perm / row_half_mirror / row_mirror
// (VALU operand modifiers, within 4/8/16 lanes), ds_swizzle in bit-mask mode
// (any xor within 32 lanes, no LDS memory, no address register) and
// ds_bpermute (any lane, by byte address).
//
//===----------------------------------------------------------------------===//
#include "backends/amd/ROCDLLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace {

class ROCDLTargetOps final : public TargetOps {
public:
  unsigned warpSize() const override { return 64; }
  std::optional<llvm::StringRef> syncScope(MemoryScope scope) const override {
    return scope == MemoryScope::Cta   ? "workgroup"
           : scope == MemoryScope::Gpu ? "agent"
                                       : "";
  }
  Value threadId(OpBuilder &b, Location loc) const override {
    return ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type());
  }
  Value blockId(OpBuilder &b, Location loc, unsigned axis) const override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return ROCDL::BlockIdXOp::create(b, loc, i32);
    case 1:
      return ROCDL::BlockIdYOp::create(b, loc, i32);
    default:
      return ROCDL::BlockIdZOp::create(b, loc, i32);
    }
  }
  /// From the HSA dispatch packet (no device library needed): the grid size
  /// in work-items (u32 at offset 12 + 4 * axis) divided, rounding up, by
  /// the work-group size (u16 at offset 4 + 2 * axis).
  Value numBlocks(OpBuilder &b, Location loc, unsigned axis) const override {
    MLIRContext *ctx = b.getContext();
    auto constPtr = LLVM::LLVMPointerType::get(ctx, 4);
    Value packet =
        LLVM::CallIntrinsicOp::create(
            b, loc, constPtr, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
            ValueRange{})
            .getResult(0);
    auto fieldAt = [&](int64_t offset, Type t) -> Value {
      Value addr = LLVM::GEPOp::create(b, loc, constPtr, b.getI8Type(), packet,
                                       ArrayRef<LLVM::GEPArg>{offset});
      return LLVM::LoadOp::create(b, loc, t, addr,
                                  /*alignment=*/t.getIntOrFloatBitWidth() / 8,
                                  /*isVolatile=*/false, /*isNonTemporal=*/false,
                                  /*isInvariant=*/true);
    };
    Value gridSize = fieldAt(12 + 4 * axis, b.getI32Type());
    Value groupSize = arith::ExtUIOp::create(
        b, loc, b.getI32Type(), fieldAt(4 + 2 * axis, b.getI16Type()));
    return arith::CeilDivUIOp::create(b, loc, gridSize, groupSize);
  }
  void barrier(OpBuilder &b, Location loc) const override {
    // s_barrier between workgroup-scope release and acquire fences: what
    // __syncthreads() is on AMD; the fences order the LDS accesses.
    ROCDL::BarrierOp::create(b, loc);
  }
  Value exchange32(OpBuilder &b, Location loc, Value v, StringRef kind,
                   unsigned mask) const override {
    Type i32 = b.getI32Type();
    Type orig = v.getType();
    // DPP controls (GCN3+ encoding): quad_perm selectors 2 bits per lane,
    // row_mirror 0x140, row_half_mirror 0x141.
    std::optional<uint32_t> dpp;
    if (kind == "dpp.quad_perm" && mask >= 1 && mask <= 3) {
      dpp = 0;
      for (unsigned l = 0; l < 4; ++l)
        *dpp |= (l ^ mask) << (2 * l);
    } else if (kind == "dpp.row_half_mirror" && mask == 7) {
      dpp = 0x141;
    } else if (kind == "dpp.row_mirror" && mask == 15) {
      dpp = 0x140;
    } else if (!((kind == "ds_swizzle" && mask >= 1 && mask < 32) ||
                 (kind == "ds_bpermute" && mask >= 1 && mask < 64))) {
      return nullptr;
    }
    if (orig != i32)
      v = LLVM::BitcastOp::create(b, loc, i32, v);
    Value r;
    if (dpp) {
      // All rows and banks enabled. Every source lane of these controls
      // exists, so bound_ctrl (0 for a missing source) changes nothing; it
      // lets LLVM's DPP combiner fold the move into the combining VALU op.
      r = ROCDL::DPPUpdateOp::create(b, loc, i32, v, v, *dpp, 0xf, 0xf,
                                     /*boundCtrl=*/true);
    } else if (kind == "ds_swizzle") {
      // Bit-mask mode: lane' = ((lane & and) | or) ^ xor within 32 lanes;
      // offset bit 15 clear selects it.
      int32_t pattern = 0x1f | (int32_t(mask) << 10);
      r = ROCDL::DsSwizzleOp::create(b, loc, i32, v, i32Const(b, loc, pattern));
    } else {
      Value lo =
          ROCDL::MbcntLoOp::create(b, loc, i32, i32Const(b, loc, -1),
                                   i32Const(b, loc, 0), nullptr, nullptr);
      Value lane = ROCDL::MbcntHiOp::create(b, loc, i32, i32Const(b, loc, -1),
                                            lo, nullptr, nullptr);
      Value src = arith::XOrIOp::create(b, loc, lane, i32Const(b, loc, mask));
      Value addr = arith::ShLIOp::create(b, loc, src, i32Const(b, loc, 2));
      r = ROCDL::DsBpermuteOp::create(b, loc, i32, addr, v);
    }
    if (orig != i32)
      r = LLVM::BitcastOp::create(b, loc, orig, r);
    return r;
  }
  StringRef defaultExchange(unsigned mask) const override {
    return mask < 32 ? "ds_swizzle" : "ds_bpermute";
  }
  bool hasF64Transcendentals() const override { return false; }
  void markKernel(LLVM::LLVMFuncOp fn, unsigned threads) const override {
    Builder b(fn.getContext());
    fn->setAttr("rocdl.kernel", b.getUnitAttr());
    // The stubs always launch `threads` threads: tell the backend, so that
    // it budgets registers for exactly that many.
    fn->setAttr("rocdl.flat_work_group_size",
                b.getStringAttr(std::to_string(threads) + "," +
                                std::to_string(threads)));
    fn->setAttr("rocdl.reqd_work_group_size",
                b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  }
  void addMathPatterns(KccTypeConverter &tc, RewritePatternSet &patterns,
                       ConversionTarget &target) const override {
    // math-to-llvm: llvm.exp/exp2/log/log2/sqrt.f32 have native AMDGPU
    // lowerings (v_exp_f32, v_log_f32, v_sqrt_f32 with range reduction).
    amd::populateFloat8Patterns(tc, patterns, target);
  }
  void addLegalDialects(ConversionTarget &target) const override {
    target.addLegalDialect<ROCDL::ROCDLDialect>();
  }
};

} // namespace

std::unique_ptr<TargetOps> kcc::amd::createROCDLTargetOps() {
  return std::make_unique<ROCDLTargetOps>();
}

void kcc::amd::registerROCDLLowering() {
  if (gpu::lookupVendorLowering("amd"))
    return;
  gpu::VendorLowering lowering;
  lowering.createTargetOps = createROCDLTargetOps;
  // A static LDS array: AMD has no dynamic shared memory at launch here.
  lowering.dynamicSharedMemory = false;
  lowering.defaultTarget = "gfx942";
  lowering.populatePatterns = populateDotMfmaPatterns;
  gpu::registerVendorLowering("amd", std::move(lowering));
}
