//===- MaterializeWarpMma.cpp - dots on warp-level tensor cores -----------===//
//
// kcc-materialize-warp-mma (Passes.td). #kcc.wgmma_acc is the layout in
// which warp w of warpgroup g holds rows 16 w.. of the 64-row blocks g,
// g + W, ...: exactly the D fragments of mma.sync when each warp computes
// its 16-row slabs over all N columns (backends/nvidia/DotToMmaSync.cpp:
// ldmatrix from padded shared memory). In #kcc.mfma_acc wave w holds the
// 16-row slabs w, w + W, ... (backends/amd/DotToMfma.cpp: fragments from
// padded LDS).
//
//===----------------------------------------------------------------------===//

#include "ir/ElementTypes.h"
#include "ir/TargetLookup.h"
#include "passes/Passes.h"
#include "passes/analysis/AccumulatorWeb.h"
#include "passes/analysis/AxisInfo.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCMATERIALIZEWARPMMA
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

std::string typeName(Type t) { return kcc::elementTypeName(t); }

/// The m16n8k16 entry of an mma.sync target's [mma] table for `elem`
/// (m16n8k32 s8 for i8: the same 32 bytes of K per instruction).
const kcc::MmaShape *m16n8k16(const kcc::TargetModel &target, Type elem) {
  bool int8 = elem.isInteger(8);
  for (const kcc::MmaShape &s : target.mma.shapes)
    if (s.a == (int8 ? "s8" : typeName(elem)) && s.m == 16 && s.nMin <= 8 &&
        8 <= s.nMax && s.k == (int8 ? 32 : 16))
      return &s;
  return nullptr;
}

/// The row-padded stage read behind dot operand `v`: smem_load, optionally
/// under a trans.
kcc::SmemLoadOp paddedRead(Value v, bool &transposed) {
  transposed = false;
  if (auto tr = v.getDefiningOp<kcc::TransOp>()) {
    transposed = true;
    v = tr.getSrc();
  }
  auto read = v.getDefiningOp<kcc::SmemLoadOp>();
  if (!read || read.getSrc().getType().getPad() == 0)
    return nullptr;
  return read;
}

/// The accumulator operand of a kcc.dot or kcc.warp_mma.
OpOperand &accOperand(Operation *op) {
  if (auto mma = dyn_cast<kcc::WarpMmaOp>(op))
    return mma.getAccMutable();
  return cast<kcc::DotOp>(op).getCMutable();
}

struct MaterializeWarpMma
    : kcc::impl::KccMaterializeWarpMmaBase<MaterializeWarpMma> {
  using Base::Base;

  bool mfma() const { return target->mma.instruction == "mfma"; }
  /// The instruction's name, its accumulator's unit (a warpgroup of 128
  /// threads for mma.sync, a wave of 64 for MFMA) and the rows one unit
  /// takes per block (64, 16).
  const char *instruction() const { return mfma() ? "MFMA" : "mma.sync"; }
  unsigned unitThreads() const { return mfma() ? 64 : 128; }
  unsigned unitRows() const { return mfma() ? 16 : 64; }
  const char *unitName() const { return mfma() ? "wave" : "warpgroup"; }

  /// The kcc.mma name of the instruction for `elem` operands (A's; `bElem`
  /// is B's where they may differ, the 8-bit floats), or empty when the
  /// target has none: mma.sync.m16n8k16 from its main instruction's table
  /// (sm_80) or the [mma] mma_sync list of a later architecture; the
  /// 16x16x16 MFMA from an mfma table (gfx90a, gfx942), 16x16x32 for the
  /// FNUZ 8-bit floats (gfx942: AMD's fp8 = e4m3fnuz, bf8 = e5m2fnuz).
  std::string instructionFor(Type elem, Type bElem = {}) const {
    if (mfma() && kcc::isFnuzFloat8(elem)) {
      bElem = bElem ? bElem : elem;
      auto listed = [&](Type t) {
        return llvm::any_of(target->mma.shapes, [&](const kcc::MmaShape &s) {
          return s.a == kcc::mmaOperandName(t) && s.m == 16 && s.nMin <= 16 &&
                 16 <= s.nMax && s.k == 32;
        });
      };
      if (!kcc::isFnuzFloat8(bElem) || !listed(elem) || !listed(bElem))
        return "";
      auto amdName = [](Type t) {
        return kcc::isFloat8E5M2(t) ? "bf8" : "fp8";
      };
      return std::string("mfma.f32.16x16x32.") + amdName(elem) + "." +
             amdName(bElem);
    }
    if (mfma()) {
      // i8: 16x16x16 (gfx90a, 4 bytes a lane) or 16x16x32 (gfx942, 8).
      bool int8 = elem.isInteger(8);
      for (const kcc::MmaShape &s : target->mma.shapes)
        if (s.a == (int8 ? "s8" : typeName(elem)) && s.m == 16 &&
            s.nMin <= 16 && 16 <= s.nMax && (s.k == 16 || (int8 && s.k == 32)))
          return int8            ? (s.k == 16 ? "mfma.i32.16x16x16i8"
                                              : "mfma.i32.16x16x32.i8")
                 : elem.isBF16() ? "mfma.f32.16x16x16bf16.1k"
                                 : "mfma.f32.16x16x16f16";
      return "";
    }
    bool int8 = elem.isInteger(8);
    bool has = target->mma.instruction == "mma.sync"
                   ? m16n8k16(*target, elem) != nullptr
                   : llvm::is_contained(target->mma.mmaSync,
                                        int8 ? "s8" : typeName(elem));
    return has ? (int8 ? "mma.sync.m16n8k32" : "mma.sync.m16n8k16") : "";
  }

  void runOnOperation() override {
    target = kcc::lookupTarget(getOperation(), targetName, getArgument(),
                               /*fallback=*/"sm_80");
    if (!target)
      return signalPassFailure();
    if (target->mma.instruction != "mma.sync" && !mfma() &&
        target->mma.mmaSync.empty()) {
      // Say why the dots stay on the CUDA cores (--report).
      if (!target->mma.instruction.empty())
        getOperation().walk([&](kcc::DotOp dot) {
          dot->setAttr(
              kcc::KccDialect::kMmaRefusedAttr,
              StringAttr::get(&getContext(), "kcc does not lower target '" +
                                                 target->name + "''s " +
                                                 target->mma.instruction +
                                                 " instructions yet"));
        });
      return;
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        if (failed(runOnKernel(func)))
          return signalPassFailure();
  }

  /// A padded one-stage buffer holding `regs` (an operand of `dot` in
  /// registers) and its stage index, written between two block barriers:
  /// once before the loop around `dot` when `regs` is computed outside it,
  /// else before `dot`. None when its rows are not whole 16-byte chunks.
  std::optional<std::pair<Value, Value>> stageRegisterOperand(kcc::DotOp dot,
                                                              Value regs);

  /// Why `dot` cannot run on the tensor cores with `units` accumulator
  /// units (empty: it can).
  std::string refusal(kcc::DotOp dot, unsigned units) const;
  LogicalResult runOnKernel(func::FuncOp func);

  const kcc::TargetModel *target = nullptr;
};

std::string MaterializeWarpMma::refusal(kcc::DotOp dot, unsigned units) const {
  auto a = dot.getA().getType(), b = dot.getB().getType();
  auto c = dot.getC().getType();
  Type elem = a.getElementType();
  std::string inst = instruction();
  // MFMA mixes AMD's two 8-bit floats (v_mfma_f32_16x16x32_fp8_bf8 ...).
  bool fp8 = mfma() && kcc::isFnuzFloat8(elem) &&
             kcc::isFnuzFloat8(b.getElementType());
  if (elem != b.getElementType() && !fp8)
    return "its operands have different element types (" + typeName(elem) +
           ", " + typeName(b.getElementType()) + ")";
  bool int8 = elem.isInteger(8);
  if (!elem.isF16() && !elem.isBF16() && !int8 && !fp8)
    return "kcc runs " + inst + " on f16 and bf16 inputs (and i8 with an i32 " +
           "accumulator" +
           (mfma() ? ", f8e4m3fnuz and f8e5m2fnuz with f32" : "") + "), not " +
           typeName(elem);
  if (instructionFor(elem, b.getElementType()).empty())
    return "target '" + target->name + "' lists no " +
           (mfma() ? (int8  ? "16x16x16 or 16x16x32 s8 MFMA"
                      : fp8 ? "16x16x32 MFMA"
                            : "16x16x16 MFMA")
            : int8 ? "m16n8k32 s8 mma.sync"
                   : "m16n8k16 mma.sync") +
           " shape for " + typeName(elem);
  if (int8 ? !c.getElementType().isInteger(32) : !c.getElementType().isF32())
    return inst + " is used with an " + (int8 ? "i32" : "f32") +
           " accumulator, not " + typeName(c.getElementType());
  // ldmatrix hands out 16-bit pairs; only its untransposed form delivers
  // the 4 consecutive K bytes an 8-bit fragment register holds, so both
  // operands are read K-major from the pipelined stages.
  if (int8 && !mfma()) {
    bool aTrans = false, bTrans = false;
    if (!paddedRead(dot.getA(), aTrans) || !paddedRead(dot.getB(), bTrans))
      return "mma.sync takes 8-bit operands from the pipelined shared-memory "
             "stages of a loop's load_tiles, and an operand here is not one";
    if (aTrans || !bTrans)
      return "mma.sync reads 8-bit operands K-major only: A as loaded ([M, "
             "K]), B as trans(load_tile(bt, [BN, BK], ...)) of the [N, K] "
             "tensor";
  }
  int64_t m = a.getShape()[0], k = a.getShape()[1], n = b.getShape()[1];
  int64_t rows = int64_t(unitRows()) * units;
  if (m % rows != 0)
    return "M = " + std::to_string(m) + " is not a multiple of " +
           std::to_string(rows) + " (each of the kernel's " +
           std::to_string(units) + " " + unitName() + "(s) takes " +
           (mfma() ? "16-row slabs" : "64-row blocks, a warp 16 rows of each") +
           ")";
  // mma.sync's N is 8 (B's fragments load two 8-column blocks at a time
  // with ldmatrix.x4, a last odd one with .x2); MFMA's is 16.
  int64_t nStep = mfma() ? 16 : 8;
  if (n % nStep != 0)
    return "N = " + std::to_string(n) + " is not a multiple of " +
           std::to_string(nStep) + " (the instruction's N)";
  int64_t kStep =
      fp8 || (int8 && instructionFor(elem) != "mfma.i32.16x16x16i8") ? 32 : 16;
  if (k % kStep != 0)
    return "K = " + std::to_string(k) + " is not a multiple of " +
           std::to_string(kStep) + " (the instruction's K)";
  // The accumulator and the operand tiles live in registers of the
  // accumulator's threads: each within the layout pass's per-tile budget
  // (half the register file, as kcc-assign-layouts allows).
  int64_t budget = llvm::PowerOf2Ceil(target->registersPerThread / 2);
  int64_t threads = int64_t(unitThreads()) * units;
  for (auto [what, t] :
       {std::pair<const char *, RankedTensorType>{"the accumulator", c},
        {"operand a", a},
        {"operand b", b}}) {
    int64_t regs = t.getNumElements() / threads;
    if (regs > budget)
      return std::string(what) + " (" + std::to_string(t.getDimSize(0)) + "x" +
             std::to_string(t.getDimSize(1)) + ") would take " +
             std::to_string(regs) + " registers per thread with " +
             std::to_string(threads / target->warpSize) + " " +
             (mfma() ? "waves" : "warps") + " (at most " +
             std::to_string(budget) + ")";
  }
  return "";
}

std::optional<std::pair<Value, Value>>
MaterializeWarpMma::stageRegisterOperand(kcc::DotOp dot, Value regs) {
  auto type = cast<RankedTensorType>(regs.getType());
  if (type.getEncoding() ||
      type.getDimSize(1) * kcc::getElementBytes(type.getElementType()) % 16)
    return std::nullopt;
  auto func = dot->getParentOfType<func::FuncOp>();
  Location loc = dot.getLoc();
  auto smem = kcc::SmemType::get(dot.getContext(), type.getShape(),
                                 type.getElementType(), /*stages=*/1,
                                 /*swizzle=*/0, /*pad=*/16);
  // Only where it fits beside the stages and the scratch the kernel's
  // relayouts may need (else the dot stages it through that scratch).
  int64_t need =
      kcc::pipelining::asyncBufferBytes(func) +
      llvm::alignTo(smem.getStageBytes(), 128) +
      kcc::pipelining::scratchReserve(func, [](kcc::TransOp) { return false; });
  if (need > int64_t(target->sharedMemory.bytesPerBlock))
    return std::nullopt;
  OpBuilder eb = OpBuilder::atBlockBegin(&func.getBody().front());
  Value buffer = kcc::SmemAllocOp::create(eb, loc, smem);
  // Outside the innermost loop around the dot: written once, before it.
  Operation *at = dot;
  if (auto loop = dot->getParentOfType<scf::ForOp>();
      loop && !loop->isAncestor(regs.getParentBlock()->getParentOp()) &&
      regs.getParentRegion()->isAncestor(loop->getParentRegion()))
    at = loop;
  OpBuilder b(at);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  kcc::CtaBarrierOp::create(b, loc); // earlier readers are done
  kcc::SmemStoreOp::create(b, loc, regs, buffer, zero);
  kcc::CtaBarrierOp::create(b, loc);
  return std::make_pair(buffer, zero);
}

LogicalResult MaterializeWarpMma::runOnKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  SmallVector<kcc::DotOp> dots;
  func.walk([&](kcc::DotOp dot) { dots.push_back(dot); });
  if (dots.empty())
    return success();

  // One accumulator layout per kernel, over all of its threads: as many
  // units as the kernel's num_warps makes, or else the fewest any dot's M
  // suggests (mma.sync: two warpgroups from 128 rows, as for wgmma; MFMA:
  // up to four waves, one 16-row slab each at least).
  auto natural = [&](int64_t m) -> unsigned {
    if (!mfma())
      return kcc::accumulatorWarpgroups(m);
    return std::max<int64_t>(1, std::min<int64_t>(4, m / 16));
  };
  unsigned units = mfma() ? 4 : 2;
  for (kcc::DotOp dot : dots)
    units = std::min(units, natural(dot.getType().getShape()[0]));
  unsigned warpsPerUnit = unitThreads() / target->warpSize;
  std::string kernelWhy;
  if (func->hasAttr(kcc::KccDialect::kProducerWarpsAttr))
    kernelWhy = "the kernel is warp-specialized for its wgmma pipeline; its "
                "other dots stay on the CUDA cores";
  else if (auto attr =
               func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kNumWarpsAttr);
           attr || numWarps) {
    int64_t asked = attr ? attr.getInt() : numWarps;
    int64_t most = mfma() ? 16 : 8;
    if (asked % warpsPerUnit == 0 && asked <= most && asked >= warpsPerUnit)
      units = asked / warpsPerUnit;
    else
      kernelWhy = "the kernel asks for " + std::to_string(asked) + " " +
                  (mfma() ? "waves" : "warps") + "; " + instruction() +
                  " accumulators are laid out over " +
                  (mfma() ? "1 to 16 waves" : "4 or 8 warps");
  }

  SmallVector<kcc::DotOp> sites;
  for (kcc::DotOp dot : dots) {
    std::string why = kernelWhy.empty() ? refusal(dot, units) : kernelWhy;
    if (!why.empty()) {
      dot->setAttr(kcc::KccDialect::kMmaRefusedAttr, StringAttr::get(ctx, why));
      continue;
    }
    dot->setAttr(
        kcc::KccDialect::kMmaAttr,
        StringAttr::get(ctx,
                        instructionFor(dot.getA().getType().getElementType(),
                                       dot.getB().getType().getElementType())));
    sites.push_back(dot);
  }
  if (sites.empty())
    return success();

  // Operands that kcc-pipeline-async-copies staged (row-padded stages read
  // by smem_load, possibly under trans): the tensor cores read the stages
  // (kcc.warp_mma), not registers.
  SmallVector<Operation *> mmaOps;
  for (kcc::DotOp dot : sites) {
    bool aTrans = false, bTrans = false;
    kcc::SmemLoadOp a = paddedRead(dot.getA(), aTrans);
    kcc::SmemLoadOp b = paddedRead(dot.getB(), bTrans);
    // One operand staged, the other in registers (a gathered K block times
    // the query tile; P times a gathered V block): the register operand is
    // written to its own padded stage, and both are read in place. Else
    // the staged one would be read into registers only to be staged again
    // (measured on paged decode attention: shared-memory round trips were
    // the top stall).
    Value aSrc = a ? a.getSrc() : Value(), aStage = a ? a.getStage() : Value();
    Value bSrc = b ? b.getSrc() : Value(), bStage = b ? b.getStage() : Value();
    if (!mfma() && (a || b) && !(a && b)) {
      Value regs = a ? dot.getB() : dot.getA();
      if (auto staged = stageRegisterOperand(dot, regs)) {
        (a ? bSrc : aSrc) = staged->first;
        (a ? bStage : aStage) = staged->second;
      }
    }
    if (mfma() || !aSrc || !bSrc) {
      mmaOps.push_back(dot);
      continue;
    }
    OpBuilder builder(dot);
    auto mma = kcc::WarpMmaOp::create(builder, dot.getLoc(), dot.getType(),
                                      aSrc, aStage, bSrc, bStage, dot.getC(),
                                      builder.getBoolAttr(!a || !aTrans),
                                      builder.getBoolAttr(b && bTrans));
    mma->setAttr(kcc::KccDialect::kMmaAttr,
                 dot->getAttr(kcc::KccDialect::kMmaAttr));
    if (Attribute refused =
            dot->getAttr(kcc::KccDialect::kTensorCoreRefusedAttr))
      mma->setAttr(kcc::KccDialect::kTensorCoreRefusedAttr, refused);
    Value aUse = dot.getA(), bUse = dot.getB();
    dot.replaceAllUsesWith(mma.getResult());
    dot.erase();
    for (Value v : {aUse, bUse}) {
      Operation *def = v.getDefiningOp();
      if (!def || !def->use_empty())
        continue;
      Value src = isa<kcc::TransOp>(def) ? def->getOperand(0) : Value();
      def->erase();
      if (src && src.use_empty())
        src.getDefiningOp()->erase();
    }
    mmaOps.push_back(mma);
  }

  func->setAttr(
      kcc::KccDialect::kNumWarpsAttr,
      IntegerAttr::get(IntegerType::get(ctx, 32), units * warpsPerUnit));
  Attribute layout = mfma()
                         ? Attribute(kcc::MfmaAccLayoutAttr::get(ctx, units))
                         : Attribute(kcc::WgmmaAccLayoutAttr::get(ctx, units));
  SmallVector<Value> seeds;
  for (Operation *op : mmaOps)
    seeds.append({op->getResult(0), accOperand(op).get()});
  auto isSite = [&](Operation *op) {
    return isa<kcc::DotOp, kcc::WarpMmaOp>(op) &&
           op->hasAttr(kcc::KccDialect::kMmaAttr);
  };
  if (failed(kcc::retypeAccumulatorWeb(
          func, seeds, layout,
          [&](OpOperand &use) {
            return isSite(use.getOwner()) &&
                   &accOperand(use.getOwner()) == &use;
          },
          isSite)))
    return failure();
  // mma.sync's fragments are the wgmma accumulator's registers, so the work
  // between two products of a loop (a decode step's softmax along the keys)
  // stays in them as wgmma's does; MFMA's layout has no such lowering.
  if (isa<kcc::WgmmaAccLayoutAttr>(layout)) {
    kcc::propagateAccumulatorLayout(func, layout);
    kcc::rematerializeRowVectors(func, layout);
    kcc::foldRelayoutRoundTrips(func);
  }
  // A tile that leaves the accumulator only for a TMA store's stage goes
  // there from its registers, as wgmma's do (the pipeliners' budgets keep no
  // relayout scratch for it: kcc::pipelining::scratchReserve).
  kcc::stageAccumulatorEpilogues(func, layout);
  return success();
}

} // namespace
