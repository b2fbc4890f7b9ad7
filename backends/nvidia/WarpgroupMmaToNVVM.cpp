//===- WarpgroupMmaToNVVM.cpp - kcc.warpgroup_mma -> wgmma.mma_async ------===//
//
// Lowers kcc.warpgroup_mma (sm_90a) and its wait (kcc.convert_layout, which
// both vendors use, is in backends/gpu/TileOpsToLLVM.cpp).
//
// warpgroup_mma: warpgroup g of the CTA owns the accumulator's 64-row blocks
// g, g + W, ... (#kcc.wgmma_acc). For each of its blocks and each K step of
// 16, one `wgmma.mma_async.m64nNk16` reads A's 64 x 16 slice and all of B's
// 16 x N slice straight from the TMA stages through shared-memory matrix
// descriptors; `wgmma.fence` heads the first one's asm (so the copies into
// its tied accumulator registers precede it), `commit_group` + `wait_group
// pending` after. A complete accumulator (after `wait_group 0`) passes
// through an operand fence, so LLVM cannot hoist its readers above the wait
// (ptxas would serialize the wgmma pipeline, C7514).
//
// Stage layout (what the TMA copies of kcc-materialize-tma-copies /
// kcc-pipeline-tma-loads produce with the 128-byte swizzle): a tile of R
// rows whose innermost extent is P swizzle spans is P column blocks of
// R x 128 bytes, one after another; in a block, row r is 128 bytes at r * 128
// with its 16-byte chunks permuted by the hardware's 128B swizzle (the same
// pattern TMA writes and wgmma reads, anchored at 1024-byte boundaries; the
// stages are 1024-byte aligned). Descriptor fields (PTX ISA, "Matrix
// Descriptor Format"; CUTLASS's canonical GMMA layouts agree):
//   K-major operand (K innermost):  start = block(k) * R*128 + row0 * 128
//     + (k bytes within the span); SBO = 1024 (next 8 rows); LBO unused.
//   MN-major operand (M/N innermost): start = block(mn0) * R*128 + k0 * 128;
//     LBO = R*128 (next 64-element column block along M/N); SBO = 1024 (next
//     8 rows along K).
// The constant fields are encoded (and checked) by the target model's
// encodeWgmmaDescriptor; only the start address is added at run time.
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/NVVMLowering.h"

#include "ir/ElementTypes.h"
#include "targets/PtxInlineAsm.h"
#include "targets/TmemRules.h"
#include "targets/WgmmaRules.h"
#include <map>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;
using namespace kcc::nvidia;

namespace {

constexpr int64_t kSpan = 128; // swizzle span (bytes): one stage row

/// One `wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T` on `acc` (N/2 f32),
/// or for `elem` s8 one `m64nNk32.s32.s8.s8` (N/2 i32; no scales, no
/// transposes: both operands K-major).
/// `elem` / `bElem` are the PTX multiplicand names (f16, bf16, s8, e4m3,
/// e5m2); only the 8-bit floats may differ.
SmallVector<Value> emitWgmma(OpBuilder &b, Location loc, StringRef elem,
                             StringRef bElem, int64_t n, Value descA,
                             Value descB, ArrayRef<Value> acc, bool transA,
                             bool transB, bool fence) {
  bool int8 = elem == "s8";
  bool f8 = elem == "e4m3" || elem == "e5m2";
  int64_t regs = n / 2;
  ptx::AsmFields fields;
  fields.setRange("d", 0, regs)
      .set("a", regs)
      .set("b", regs + 1)
      .set("scale", regs + 2)
      .set("n", n);
  if (f8)
    fields.set("ea", elem).set("eb", bElem).set("sa", 1).set("sb", 1);
  else
    fields.set("elem", elem);
  if (!int8 && !f8)
    fields.set("sa", 1)
        .set("sb", 1)
        .set("ta", transA ? 1 : 0)
        .set("tb", transB ? 1 : 0);
  std::string text = (fence ? ptx::kWgmmaFencePrefix : "") +
                     ptx::format(int8 ? ptx::kWgmmaMmaInt8
                                 : f8 ? ptx::kWgmmaMmaFp8
                                      : ptx::kWgmmaMma,
                                 fields);
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += int8 ? "=r," : "=f,";
  constraints += "l,l,r";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands{descA, descB, i32Const(b, loc, 1)};
  operands.append(acc.begin(), acc.end());
  Type out = int8 ? Type(b.getI32Type()) : Type(b.getF32Type());
  return asmWithOutputs(b, loc, SmallVector<Type>(regs, out), operands, text,
                        constraints);
}

/// The register-A form on `acc`: `aRegs` are A's 4 f16x2 / bf16x2 registers
/// (i32) of this K step.
SmallVector<Value> emitWgmmaRegA(OpBuilder &b, Location loc, StringRef elem,
                                 int64_t n, ArrayRef<Value> aRegs, Value descB,
                                 ArrayRef<Value> acc, bool transB, bool fence) {
  int64_t regs = n / 2;
  std::string text =
      (fence ? ptx::kWgmmaFencePrefix : "") +
      ptx::format(ptx::kWgmmaMmaRegA, ptx::AsmFields()
                                          .setRange("d", 0, regs)
                                          .setRange("a", regs, 4)
                                          .set("b", regs + 4)
                                          .set("scale", regs + 5)
                                          .set("n", n)
                                          .set("elem", elem)
                                          .set("sa", 1)
                                          .set("sb", 1)
                                          .set("tb", transB ? 1 : 0));
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l,r";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(aRegs);
  operands.append({descB, i32Const(b, loc, 1)});
  operands.append(acc.begin(), acc.end());
  return asmWithOutputs(b, loc, SmallVector<Type>(regs, b.getF32Type()),
                        operands, text, constraints);
}

/// `regs` kept in place across an empty asm with outputs tied to inputs
/// (CUTLASS's warpgroup_fence_operand): the returned values depend on the
/// asm, which is ordered after the wait before it (both have side effects),
/// so no reader of the accumulator is scheduled before its wgmma retired.
SmallVector<Value> fenceOperands(OpBuilder &b, Location loc,
                                 ArrayRef<Value> regs) {
  std::string constraints;
  for (size_t i = 0; i < regs.size(); ++i)
    constraints += "=f,";
  for (size_t i = 0; i < regs.size(); ++i)
    constraints += (i ? "," : "") + std::to_string(i);
  return asmWithOutputs(b, loc, SmallVector<Type>(ValueRange(regs).getTypes()),
                        regs, ptx::kOperandFence.text, constraints);
}

/// The shared-window address (i64) of stage `stage` of `buffer`; the stage
/// offset in 64-bit arithmetic (ptxas keeps the wgmma pipeline free of
/// injected warpgroup.arrive this way, C7519).
Value stageAddress(OpBuilder &b, Location loc, Value buffer, Value stage,
                   SmemType t) {
  Value off = arith::ExtUIOp::create(
      b, loc, b.getI64Type(),
      arith::MulIOp::create(b, loc, stage,
                            i32Const(b, loc, t.getStageBytes())));
  return arith::AddIOp::create(b, loc, sharedAddress(b, loc, buffer), off);
}

/// Closes the wgmma group just issued and waits until at most `pending`
/// groups are in flight, then replaces `op` by the accumulator `regs`. With
/// nothing left in flight the result is complete: it is fenced behind the
/// wait (with groups in flight, only the next wgmma may touch it).
void closeGroup(ConversionPatternRewriter &rewriter, Location loc,
                Operation *op, unsigned pending, SmallVector<Value> regs) {
  NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, pending);
  if (pending == 0)
    regs = fenceOperands(rewriter, loc, regs);
  rewriter.replaceOp(op, buildVector(rewriter, loc, regs));
}

struct WarpgroupMmaLowering : OpConversionPattern<WarpgroupMmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupMmaOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    auto layout = cast<WgmmaAccLayoutAttr>(accType.getEncoding());
    SmemType aType = op.getA().getType(), bType = op.getB().getType();
    Type elem = aType.getElementType();
    int64_t eb = storageBytes(elem);
    int64_t m = accType.getShape()[0], n = accType.getShape()[1];
    int64_t k = op.getAKMajor() ? aType.getShape()[1] : aType.getShape()[0];
    int64_t aRows = aType.getShape()[0], bRows = bType.getShape()[0];
    unsigned wgs = layout.getWarpgroups();
    int64_t blocks = m / 64, reps = (blocks + wgs - 1) / wgs;

    FailureOr<uint64_t> aConst = mmaDescriptorConstant(
        op, swizzledOperandLbo(op.getAKMajor(), aRows), 1024,
        /*tcgen05=*/false);
    FailureOr<uint64_t> bConst = mmaDescriptorConstant(
        op, swizzledOperandLbo(op.getBKMajor(), bRows), 1024,
        /*tcgen05=*/false);
    if (failed(aConst) || failed(bConst))
      return failure();

    Value aBase = stageAddress(b, loc, a.getA(), a.getAStage(), aType);
    MmaDescriptorBase bDesc = mmaDescriptorBase(
        b, loc, *bConst, stageAddress(b, loc, a.getB(), a.getBStage(), bType));
    MmaDescriptorBase aDesc = mmaDescriptorBase(b, loc, *aConst, aBase);

    Value tid = targetOpsOf(*this).threadId(b, loc);
    Value wg = arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, 128));
    SmallVector<Value> regs = unpack(b, loc, a.getAcc());
    int64_t perBlock = n / 2;
    StringRef elemName = mmaOperandName(elem);
    StringRef bElemName = mmaOperandName(bType.getElementType());
    if (isEightBitMmaOperand(elem) && (!op.getAKMajor() || !op.getBKMajor()))
      return op.emitOpError("8-bit wgmma operands must both be K-major");

    for (int64_t rep = 0; rep < reps; ++rep) {
      // Block index of this warpgroup's rep-th block: wg + W * rep; A's
      // row-0 (or M column block) offset for it, in 16-byte units.
      Value mb = arith::AddIOp::create(b, loc, wg, i32Const(b, loc, rep * wgs));
      int64_t blockBytes = op.getAKMajor() ? 64 * kSpan : aRows * kSpan;
      MmaDescriptorBase aBlock{
          arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, mb,
                                    i32Const(b, loc, blockBytes / 16)),
              aDesc.lo),
          aDesc.constant};
      ArrayRef<Value> acc(regs.data() + rep * perBlock, perBlock);
      SmallVector<Value> cur(acc);
      // One instruction reads 32 bytes of K: 16 16-bit or 32 8-bit
      // elements.
      for (int64_t k0 = 0; k0 < k; k0 += 32 / eb) {
        Value da = mmaDescriptorAt(
            b, loc, aBlock,
            swizzledKStepOffset(op.getAKMajor(), aRows, k0, eb));
        Value db = mmaDescriptorAt(
            b, loc, bDesc, swizzledKStepOffset(op.getBKMajor(), bRows, k0, eb));
        cur = emitWgmma(b, loc, elemName, bElemName, n, da, db, cur,
                        /*transA=*/!op.getAKMajor(),
                        /*transB=*/!op.getBKMajor(),
                        /*fence=*/rep == 0 && k0 == 0);
      }
      std::copy(cur.begin(), cur.end(), regs.begin() + rep * perBlock);
    }
    closeGroup(rewriter, loc, op, op.getPending(), std::move(regs));
    return success();
  }
};

/// The register-A form: per 64-row block of the warpgroup and K step of 16,
/// A's 8 registers of that step in the #kcc.wgmma_acc mapping (rows g and
/// g + 8, columns 2q, 2q + 1 and 8 further) are, paired, the instruction's
/// 4 A registers; B is read from its stage as in warpgroup_mma.
struct WarpgroupMmaRegALowering : OpConversionPattern<WarpgroupMmaRegAOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupMmaRegAOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto layout = cast<WgmmaAccLayoutAttr>(accType.getEncoding());
    SmemType bType = op.getB().getType();
    Type elem = bType.getElementType();
    int64_t eb = storageBytes(elem);
    int64_t m = accType.getShape()[0], n = accType.getShape()[1];
    int64_t k = aType.getShape()[1], bRows = bType.getShape()[0];
    unsigned wgs = layout.getWarpgroups();
    int64_t blocks = m / 64, reps = (blocks + wgs - 1) / wgs;
    FailureOr<uint64_t> bConst = mmaDescriptorConstant(
        op, swizzledOperandLbo(op.getBKMajor(), bRows), 1024,
        /*tcgen05=*/false);
    if (failed(bConst))
      return failure();
    MmaDescriptorBase bDesc = mmaDescriptorBase(
        b, loc, *bConst, stageAddress(b, loc, a.getB(), a.getBStage(), bType));
    SmallVector<Value> regs = unpack(b, loc, a.getAcc());
    SmallVector<Value> aVals = unpack(b, loc, a.getA());
    int64_t perBlock = n / 2, aPerBlock = k / 2;
    StringRef elemName = elem.isBF16() ? "bf16" : "f16";
    SmallVector<Value> packed;
    for (size_t i = 0; i + 1 < aVals.size(); i += 2)
      packed.push_back(LLVM::BitcastOp::create(
          b, loc, b.getI32Type(),
          buildVector(b, loc, {aVals[i], aVals[i + 1]})));
    for (int64_t rep = 0; rep < reps; ++rep) {
      ArrayRef<Value> acc(regs.data() + rep * perBlock, perBlock);
      SmallVector<Value> cur(acc);
      for (int64_t k0 = 0; k0 < k; k0 += 16) {
        ArrayRef<Value> aRegs(packed.data() + (rep * aPerBlock + k0 / 2) / 2,
                              4);
        Value db = mmaDescriptorAt(
            b, loc, bDesc, swizzledKStepOffset(op.getBKMajor(), bRows, k0, eb));
        cur = emitWgmmaRegA(b, loc, elemName, n, aRegs, db, cur,
                            /*transB=*/!op.getBKMajor(),
                            /*fence=*/rep == 0 && k0 == 0);
      }
      std::copy(cur.begin(), cur.end(), regs.begin() + rep * perBlock);
    }
    closeGroup(rewriter, loc, op, op.getPending(), std::move(regs));
    return success();
  }
};

struct WarpgroupMmaWaitLowering : OpConversionPattern<WarpgroupMmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupMmaWaitOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());
    // The registers of the groups it retires pass through it, fenced: their
    // readers (and writers) stay behind the wait.
    SmallVector<Value> results;
    for (Value v : a.getValues())
      results.push_back(
          buildVector(rewriter, loc,
                      fenceOperands(rewriter, loc, unpack(rewriter, loc, v))));
    rewriter.replaceOp(op, results);
    return success();
  }
};


} // namespace

/// Shared-window address (i64, low 18 bits significant) of `ptr3`.
Value kcc::nvidia::sharedAddress(OpBuilder &b, Location loc, Value ptr3) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr3);
}

MmaDescriptorBase kcc::nvidia::mmaDescriptorBase(OpBuilder &b, Location loc,
                                                 uint64_t constant,
                                                 Value addr) {
  Value a = arith::TruncIOp::create(b, loc, b.getI32Type(), addr);
  a = arith::AndIOp::create(b, loc, a, i32Const(b, loc, 0x3FFFF));
  a = arith::ShRUIOp::create(b, loc, a, i32Const(b, loc, 4));
  a = arith::AddIOp::create(b, loc, a,
                            i32Const(b, loc, int64_t(uint32_t(constant))));
  return {a, constant};
}

Value kcc::nvidia::mmaDescriptorAt(OpBuilder &b, Location loc,
                                   const MmaDescriptorBase &base,
                                   int64_t offset) {
  assert(offset % 16 == 0 && "operand slices start at 16-byte boundaries");
  Value lo = offset ? arith::AddIOp::create(b, loc, base.lo,
                                            i32Const(b, loc, offset / 16))
                    : base.lo;
  // {lo, hi} as one 64-bit register pair (mov.b64): the high word is the
  // constant's and never changes.
  Value hi = i32Const(b, loc, int64_t(uint32_t(base.constant >> 32)));
  return LLVM::BitcastOp::create(b, loc, b.getI64Type(),
                                 buildVector(b, loc, {lo, hi}));
}

/// A side-effecting inline asm with one output per type in `outputs`
/// (returned as values: a single output is the asm's result, several are the
/// fields of its struct).
SmallVector<Value> kcc::nvidia::asmWithOutputs(OpBuilder &b, Location loc,
                                               ArrayRef<Type> outputs,
                                               ValueRange operands,
                                               StringRef text,
                                               StringRef constraints) {
  // No outputs: no result; one: the output itself; more: a struct of them.
  SmallVector<Type, 1> resultType;
  if (outputs.size() == 1)
    resultType.push_back(outputs.front());
  else if (!outputs.empty())
    resultType.push_back(
        LLVM::LLVMStructType::getLiteral(b.getContext(), outputs));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, TypeRange(resultType), operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  if (outputs.size() <= 1)
    return SmallVector<Value>(asmOp->getResults());
  SmallVector<Value> out;
  for (size_t i = 0; i < outputs.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return out;
}

uint32_t kcc::nvidia::swizzledOperandLbo(bool kMajor, int64_t rows) {
  return kMajor ? 16 : uint32_t(rows * kSpan);
}

int64_t kcc::nvidia::swizzledKStepOffset(bool kMajor, int64_t rows, int64_t k0,
                                         int64_t elemBytes) {
  int64_t kBytes = k0 * elemBytes;
  // K-major: the block along K, then the bytes in its span; MN-major: k0
  // rows down.
  return kMajor ? (kBytes / kSpan) * rows * kSpan + kBytes % kSpan : k0 * kSpan;
}

FailureOr<uint64_t> kcc::nvidia::mmaDescriptorConstant(Operation *op,
                                                       uint32_t lbo,
                                                       uint32_t sbo,
                                                       bool tcgen05) {
  llvm::Expected<uint64_t> desc = [&] {
    if (tcgen05) {
      Tcgen05DescriptorFields f;
      f.leadingByteOffset = lbo;
      f.strideByteOffset = sbo;
      f.swizzle = Tcgen05Swizzle::B128;
      return encodeTcgen05Descriptor(f);
    }
    WgmmaDescriptorFields f;
    f.leadingByteOffset = lbo;
    f.strideByteOffset = sbo;
    f.swizzle = WgmmaSwizzle::B128;
    return encodeWgmmaDescriptor(f);
  }();
  if (!desc)
    return op->emitError("kcc: the ")
           << (tcgen05 ? "tcgen05" : "wgmma")
           << " descriptor is illegal: " << llvm::toString(desc.takeError());
  return *desc;
}

void kcc::nvidia::populateWarpgroupMmaPatterns(KccTypeConverter &tc,
                                               RewritePatternSet &patterns) {
  patterns.add<WarpgroupMmaLowering, WarpgroupMmaRegALowering,
               WarpgroupMmaWaitLowering>(tc, patterns.getContext());
}
