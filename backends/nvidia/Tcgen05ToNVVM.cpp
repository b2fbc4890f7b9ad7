//===- Tcgen05ToNVVM.cpp - TMEM and tcgen05.mma (sm_100a) -----------------===//
//
// Lowers the Blackwell ops of kcc-materialize-tcgen05-mma to inline PTX:
//
//   tmem_alloc     warp 0: tcgen05.alloc.cta_group::1 of C columns into a
//                  4-byte shared slot (kcc.smem_offset), then (the last
//                  allocation) relinquish_alloc_permit; every thread:
//                  before_thread_sync fence, CTA barrier, after_thread_sync
//                  fence, load the address.
//   tmem_dealloc   every thread: fence, barrier, fence; warp 0 frees.
//   tcgen05_mma    thread 0: after_thread_sync fence, then one
//                  tcgen05.mma.cta_group::1.kind::f16 (kind::i8 for s8
//                  operands, kind::f8f6f4 for e4m3/e5m2 ones) per 32 bytes of
//                  K, shared-memory descriptors for A and B (the stage layout
//                  of WarpgroupMmaToNVVM.cpp; the sm_100 descriptor format,
//                  encodeTcgen05Descriptor) and the instruction descriptor
//                  (encodeTcgen05{F16,I8,F8F6F4}InstrDescriptor).
//   tcgen05_commit thread 0: tcgen05.commit.cta_group::1.mbarrier::arrive::
//                  one on the mbarrier (its shared::cta address is a valid
//                  shared::cluster address of the executing CTA).
//   tmem_load      after_thread_sync fence; each warp reads its lane
//                  quarter (warp-uniform address: base + (32 (w mod 4)) << 16
//                  + column) 32 columns per tcgen05.ld.32x32b.x32, then
//                  tcgen05.wait::ld and a before_thread_sync fence.
//
// Nothing here has run on a GPU: no Blackwell GPU is available to kcc's
// developers. ptxas -arch=sm_100a accepts the output
// (tests/Conversion/KccToNVVM/tcgen05-ptxas.test).
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/NVVMLowering.h"

#include "ir/ElementTypes.h"
#include "targets/PtxInlineAsm.h"
#include "targets/TmemRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;
using namespace kcc::nvidia;

namespace {

/// A side-effecting inline asm without outputs.
void asmVoid(OpBuilder &b, Location loc, ValueRange operands, StringRef text,
             StringRef constraints) {
  asmWithOutputs(b, loc, {}, operands, text, constraints);
}

Value isWarp0(OpBuilder &b, Location loc, Value tid) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                               i32Const(b, loc, 32));
}

/// The CTA barrier between tcgen05 work of different threads, with the
/// tcgen05 fences around it that order their TMEM accesses.
void tcgen05Barrier(const TargetOps &ops, OpBuilder &b, Location loc) {
  asmVoid(b, loc, {}, ptx::kTcgen05FenceBefore.text, "");
  ops.barrier(b, loc);
  asmVoid(b, loc, {}, ptx::kTcgen05FenceAfter.text, "");
}

struct TmemAllocLowering : OpConversionPattern<TmemAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmemAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto offset = op->getAttrOfType<IntegerAttr>(KccDialect::kSmemOffsetAttr);
    if (!offset)
      return op.emitError("internal error: no shared-memory offset assigned");
    Value slot = smemAt(b, loc, op, offset.getInt());
    Value slot32 = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), slot);
    const TargetOps &ops = targetOpsOf(*this);
    Value tid = ops.threadId(b, loc);
    unsigned columns = op.getType().getColumns();
    emitIf(b, loc, isWarp0(b, loc, tid), [&](OpBuilder &wb) {
      std::string text = ptx::format(op.getRelinquish()
                                         ? ptx::kTcgen05AllocRelinquish
                                         : ptx::kTcgen05Alloc,
                                     ptx::AsmFields().set("cols", columns));
      asmVoid(wb, loc, {slot32}, text, "r");
    });
    tcgen05Barrier(ops, b, loc);
    rewriter.replaceOp(op, LLVM::LoadOp::create(b, loc, b.getI32Type(), slot));
    return success();
  }
};

struct TmemDeallocLowering : OpConversionPattern<TmemDeallocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmemDeallocOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TargetOps &ops = targetOpsOf(*this);
    tcgen05Barrier(ops, rewriter, loc);
    Value tid = ops.threadId(rewriter, loc);
    unsigned columns = op.getTmem().getType().getColumns();
    emitIf(rewriter, loc, isWarp0(rewriter, loc, tid), [&](OpBuilder &wb) {
      asmVoid(wb, loc, {a.getTmem()},
              ptx::format(ptx::kTcgen05Dealloc,
                          ptx::AsmFields().set("cols", columns)),
              "r");
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct Tcgen05MmaLowering : OpConversionPattern<Tcgen05MmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05MmaOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SmemType aType = op.getA().getType(), bType = op.getB().getType();
    bool aK = op.getAKMajor(), bK = op.getBKMajor();
    int64_t eb = storageBytes(aType.getElementType());
    int64_t m = aK ? aType.getShape()[0] : aType.getShape()[1];
    int64_t k = aK ? aType.getShape()[1] : aType.getShape()[0];
    int64_t n = bK ? bType.getShape()[0] : bType.getShape()[1];
    int64_t aRows = aType.getShape()[0], bRows = bType.getShape()[0];
    // The stages wgmma reads (WarpgroupMmaToNVVM.cpp); SBO 1024: the next
    // 8 rows.
    FailureOr<uint64_t> aConst = mmaDescriptorConstant(
        op, swizzledOperandLbo(aK, aRows), 1024, /*tcgen05=*/true);
    FailureOr<uint64_t> bConst = mmaDescriptorConstant(
        op, swizzledOperandLbo(bK, bRows), 1024, /*tcgen05=*/true);
    if (failed(aConst) || failed(bConst))
      return failure();
    // Signed 8-bit operands (an s32 accumulator) run kind::i8 and 8-bit
    // floats kind::f8f6f4 (an f32 one; the descriptor names each operand's
    // format), 32 K a step; 16-bit ones kind::f16, 16 a step: 32 bytes of K
    // either way.
    Type aElem = aType.getElementType(), bElem = bType.getElementType();
    bool int8 = aElem.isInteger(8), f8 = isFloat8(aElem);
    auto f8Format = [](Type t) {
      return isa<Float8E5M2Type>(t) ? Tcgen05F8F6F4Format::E5M2
                                    : Tcgen05F8F6F4Format::E4M3;
    };
    llvm::Expected<uint32_t> idesc =
        int8 ? encodeTcgen05I8InstrDescriptor(!aK, !bK, m, n)
        : f8 ? encodeTcgen05F8F6F4InstrDescriptor(
                   f8Format(aElem), f8Format(bElem), !aK, !bK, m, n)
             : encodeTcgen05F16InstrDescriptor(aElem.isBF16(), !aK, !bK, m, n);
    const ptx::AsmTemplate &mma = int8 ? ptx::kTcgen05MmaI8
                                  : f8 ? ptx::kTcgen05MmaF8F6F4
                                       : ptx::kTcgen05Mma;
    if (!idesc)
      return op.emitError("kcc: no tcgen05 instruction descriptor: ")
             << llvm::toString(idesc.takeError());
    auto stageAddr = [&](Value buffer, Value stage, SmemType t) {
      return sharedAddress(b, loc, stageAt(b, loc, buffer, stage, t));
    };
    Value first =
        arith::ExtUIOp::create(b, loc, b.getI32Type(), a.getAccumulate());
    MmaDescriptorBase aDesc = mmaDescriptorBase(
        b, loc, *aConst, stageAddr(a.getA(), a.getAStage(), aType));
    MmaDescriptorBase bDesc = mmaDescriptorBase(
        b, loc, *bConst, stageAddr(a.getB(), a.getBStage(), bType));
    onLeader(*this, b, loc, [&](OpBuilder &ib) {
      // After the CTA barrier that follows other threads' tcgen05.ld of the
      // accumulator (a persistent kernel's previous tile): the mma writes
      // D only after those reads.
      asmVoid(ib, loc, {}, ptx::kTcgen05FenceAfter.text, "");
      Value id = i32Const(ib, loc, int64_t(*idesc));
      for (int64_t k0 = 0; k0 < k; k0 += 32 / eb) {
        Value da = mmaDescriptorAt(ib, loc, aDesc,
                                   swizzledKStepOffset(aK, aRows, k0, eb));
        Value db = mmaDescriptorAt(ib, loc, bDesc,
                                   swizzledKStepOffset(bK, bRows, k0, eb));
        Value enable = k0 == 0 ? first : i32Const(ib, loc, 1);
        asmVoid(ib, loc, {a.getTmem(), da, db, id, enable}, mma.text,
                "r,l,l,r,r");
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct Tcgen05CommitLowering : OpConversionPattern<Tcgen05CommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05CommitOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value bar32 = LLVM::PtrToIntOp::create(
        b, loc, b.getI32Type(), barrierAt(b, loc, a.getBars(), a.getIndex()));
    onLeader(*this, b, loc, [&](OpBuilder &ib) {
      asmVoid(ib, loc, {bar32}, ptx::kTcgen05Commit.text, "r");
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmemLoadLowering : OpConversionPattern<TmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmemLoadOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto type = cast<RankedTensorType>(op.getType());
    auto layout = dyn_cast_or_null<TmemAccLayoutAttr>(type.getEncoding());
    if (!layout)
      return op.emitError("kcc: internal error: kcc.tmem_load without the "
                          "#kcc.tmem_acc layout");
    unsigned wgs = layout.getWarpgroups();
    int64_t chunks = type.getShape()[1] / (32 * wgs);
    Value tid = targetOpsOf(*this).threadId(b, loc);
    // The warp's lane quarter in bits 16-31, warpgroup g's first chunk.
    Value warp = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, 32)),
        i32Const(b, loc, 4));
    Value lanes = arith::ShLIOp::create(
        b, loc, arith::MulIOp::create(b, loc, warp, i32Const(b, loc, 32)),
        i32Const(b, loc, 16));
    Value col0 = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, 128)),
        i32Const(b, loc, 32));
    Value base = arith::AddIOp::create(
        b, loc, a.getTmem(), arith::AddIOp::create(b, loc, lanes, col0));
    asmVoid(b, loc, {}, ptx::kTcgen05FenceAfter.text, "");
    std::string text =
        ptx::format(ptx::kTcgen05Ld32x32bX32,
                    ptx::AsmFields().setRange("d", 0, 32).set("addr", 32));
    std::string constraints;
    for (int i = 0; i < 32; ++i)
      constraints += "=r,";
    constraints += "r";
    SmallVector<Value> regs;
    for (int64_t c = 0; c < chunks; ++c) {
      Value addr = arith::AddIOp::create(
          b, loc, base, i32Const(b, loc, 32 * int64_t(wgs) * c));
      for (Value v :
           asmWithOutputs(b, loc, SmallVector<Type>(32, b.getI32Type()), {addr},
                          text, constraints))
        regs.push_back(v);
    }
    // The registers are defined once tcgen05.wait::ld retires the loads:
    // pass them through it so no reader is scheduled before it.
    std::string waitConstraints;
    for (size_t i = 0; i < regs.size(); ++i)
      waitConstraints += "=r,";
    for (size_t i = 0; i < regs.size(); ++i)
      waitConstraints += (i ? "," : "") + std::to_string(i);
    SmallVector<Value> done =
        asmWithOutputs(b, loc, SmallVector<Type>(regs.size(), b.getI32Type()),
                       regs, ptx::kTcgen05WaitLd.text, waitConstraints);
    // Orders the loads before the next CTA barrier, after which a later
    // tcgen05.mma may overwrite D (a persistent kernel's next tile).
    asmVoid(b, loc, {}, ptx::kTcgen05FenceBefore.text, "");
    // The 32-bit cells as the accumulator's type (f32, or kind::i8's s32).
    Type elem = getElementTypeOrSelf(op.getType());
    SmallVector<Value> cells;
    for (Value v : done)
      cells.push_back(
          elem.isF32() ? Value(LLVM::BitcastOp::create(b, loc, elem, v)) : v);
    rewriter.replaceOp(op, buildVector(b, loc, cells));
    return success();
  }
};

} // namespace

void kcc::nvidia::populateTcgen05Patterns(KccTypeConverter &tc,
                                          RewritePatternSet &patterns) {
  patterns.add<TmemAllocLowering, TmemDeallocLowering, Tcgen05MmaLowering,
               Tcgen05CommitLowering, TmemLoadLowering>(tc,
                                                        patterns.getContext());
}
