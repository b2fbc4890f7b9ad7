//===- NVVMTargetOps.cpp - what the lowering does on NVIDIA ---------------===//
//
// NVVM for NVIDIA (32-lane warps): %tid/%ctaid, bar.sync (a named barrier
// per role in a warp-specialized kernel), shfl.sync.bfly for the butterfly
// exchanges kcc-plan-lane-exchanges chose, nvvm.kernel + maxntid, and the
// NVIDIA math lowerings (MathToNVVM.cpp).
//
//===----------------------------------------------------------------------===//
#include "backends/nvidia/NVVMLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;
using namespace kcc::nvidia;

namespace {

class NVVMTargetOps final : public TargetOps {
public:
  unsigned warpSize() const override { return 32; }
  // LLVM 22's NVPTX backend emits every atomicrmw as a relaxed, gpu-scoped
  // atom (its memory orders and scopes landed after, llvm-project#176015):
  // the order is kept by fences (fence.acq_rel.gpu/.cta), which do take
  // their scope; a system-scoped atom it cannot emit (refused at the call).
  std::optional<llvm::StringRef> syncScope(MemoryScope scope) const override {
    if (scope == MemoryScope::System)
      return std::nullopt;
    return scope == MemoryScope::Cta ? "block" : "device";
  }
  bool fencesAtomicOrder() const override { return true; }
  Value threadId(OpBuilder &b, Location loc) const override {
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    // A ping-pong consumer group runs the consumer code as the only group
    // would: its threads count from 0.
    RoleInfo role = roleAt(b.getInsertionBlock());
    if (role.role == Role::Consumer && role.groups > 1)
      return arith::RemUIOp::create(
          b, loc, tid, i32Const(b, loc, role.consumerThreads / role.groups));
    return tid;
  }
  Value consumerGroup(OpBuilder &b, Location loc) const override {
    return consumerGroupAt(b, loc);
  }
  Value blockId(OpBuilder &b, Location loc, unsigned axis) const override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::BlockIdXOp::create(b, loc, i32);
    case 1:
      return NVVM::BlockIdYOp::create(b, loc, i32);
    default:
      return NVVM::BlockIdZOp::create(b, loc, i32);
    }
  }
  Value numBlocks(OpBuilder &b, Location loc, unsigned axis) const override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::GridDimXOp::create(b, loc, i32);
    case 1:
      return NVVM::GridDimYOp::create(b, loc, i32);
    default:
      return NVVM::GridDimZOp::create(b, loc, i32);
    }
  }
  void barrier(OpBuilder &b, Location loc) const override {
    // Warp-specialized consumers synchronize among themselves: a named
    // barrier (1) with their thread count; the producer is not in it. (The
    // intrinsic, not nvvm.barrier: MLIR 22 prints nvvm.barrier with both
    // operands in a form its parser misreads, taking a trailing loc(...) for
    // the reduction attribute.)
    // Ping-pong consumer groups have one each (1 + the group).
    RoleInfo role = roleAt(b.getInsertionBlock());
    if (role.role == Role::Consumer) {
      Value id = i32Const(b, loc, 1);
      if (Value g = consumerGroupAt(b, loc))
        id = arith::AddIOp::create(b, loc, id, g);
      LLVM::CallIntrinsicOp::create(
          b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.sync.aligned.count"),
          ValueRange{id, i32Const(b, loc, role.consumerThreads / role.groups)});
      return;
    }
    NVVM::Barrier0Op::create(b, loc);
  }
  Value exchange32(OpBuilder &b, Location loc, Value v, StringRef kind,
                   unsigned mask) const override {
    if (kind != "shfl.bfly" || mask == 0 || mask >= 32)
      return nullptr;
    return NVVM::ShflOp::create(b, loc, v.getType(), i32Const(b, loc, -1), v,
                                i32Const(b, loc, mask), i32Const(b, loc, 0x1f),
                                NVVM::ShflKind::bfly, UnitAttr());
  }
  StringRef defaultExchange(unsigned) const override { return "shfl.bfly"; }
  void markTensorMapArg(LLVM::LLVMFuncOp fn, unsigned i) const override {
    fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                  UnitAttr::get(fn.getContext()));
  }
  void markKernel(LLVM::LLVMFuncOp fn, unsigned threads) const override {
    Builder b(fn.getContext());
    fn->setAttr("nvvm.kernel", b.getUnitAttr());
    fn->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  }
  bool markCluster(LLVM::LLVMFuncOp fn, unsigned ctas) const override {
    // PTX .reqnctapercluster: a plain cuLaunchKernel runs it as clusters.
    fn->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                DenseI32ArrayAttr::get(fn.getContext(), {int32_t(ctas), 1, 1}));
    return true;
  }
  void addMathPatterns(KccTypeConverter &tc, RewritePatternSet &patterns,
                       ConversionTarget &target) const override {
    populateMathPatterns(tc, patterns, target);
    populateFloat8Patterns(tc, patterns, target);
  }
  void addLegalDialects(ConversionTarget &target) const override {
    target.addLegalDialect<NVVM::NVVMDialect>();
  }
};

} // namespace

std::unique_ptr<TargetOps> kcc::nvidia::createNVVMTargetOps() {
  return std::make_unique<NVVMTargetOps>();
}

void kcc::nvidia::registerNVVMLowering() {
  if (gpu::lookupVendorLowering("nvidia"))
    return;
  gpu::VendorLowering lowering;
  lowering.createTargetOps = createNVVMTargetOps;
  lowering.dynamicSharedMemory = true;
  lowering.defaultTarget = "sm_90a";
  // In the order the single pass added them before the vendor split.
  lowering.populatePatterns = [](KccTypeConverter &tc,
                                 RewritePatternSet &patterns) {
    populateDotMmaSyncPatterns(tc, patterns);
    populateAsyncPatterns(tc, patterns);
    populateWarpgroupMmaPatterns(tc, patterns);
    populateTcgen05Patterns(tc, patterns);
  };
  lowering.splitRoles = splitRoles;
  gpu::registerVendorLowering("nvidia", std::move(lowering));
}
