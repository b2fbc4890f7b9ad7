//===- MaterializeWarpMma.cpp - dots on Ampere tensor cores ---------------===//
//
// kcc-materialize-warp-mma puts dots on the warp-level `mma.sync` tensor
// cores: on sm_80, whose [mma] instruction it is, and on later targets that
// list it as `mma_sync` (sm_90a, sm_100a: the dots their main instruction
// did not take). A qualifying dot keeps its register operands, and its
// accumulator web (the dot's accumulator and result, the scf.for links that
// carry it, its splat initialization, a lone elementwise epilogue) is
// retyped to #kcc.wgmma_acc, the layout in which warp w of warpgroup g holds
// rows 16 w.. of the 64-row blocks g, g + W, ...: exactly the D fragments of
// `mma.sync.m16n8k16` when each warp computes its 16-row slabs over all N
// columns. The NVIDIA lowering (backends/nvidia/DotToMmaSync.cpp) stages the
// operands in padded shared memory and loads their fragments with ldmatrix.
// Each dot is marked kcc.mma, or kcc.mma_refused with the reason it stays
// on the CUDA cores (FMAs), which --report shows.
//
//===----------------------------------------------------------------------===//

#include "passes/AccumulatorWeb.h"
#include "passes/MmaOperands.h"
#include "passes/Passes.h"
#include "passes/TensorMaps.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace {

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The m16n8k16 entry of the target's [mma] table for `elem`, if any.
const kcc::MmaShape *m16n8k16(const kcc::TargetModel &target, Type elem) {
  for (const kcc::MmaShape &s : target.mma.shapes)
    if (s.a == typeName(elem) && s.m == 16 && s.nMin <= 8 && 8 <= s.nMax &&
        s.k == 16)
      return &s;
  return nullptr;
}

struct MaterializeWarpMma
    : PassWrapper<MaterializeWarpMma, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MaterializeWarpMma)

  MaterializeWarpMma() = default;
  MaterializeWarpMma(const MaterializeWarpMma &other) : PassWrapper(other) {
    target = other.target;
  }
  MaterializeWarpMma(const kcc::TargetModel &model, unsigned numWarps)
      : target(&model), numWarps(numWarps) {}

  StringRef getArgument() const override { return "kcc-materialize-warp-mma"; }
  StringRef getDescription() const override {
    return "Put f16/bf16 dots with an f32 accumulator on mma.sync tensor "
           "cores (targets whose [mma] instruction is mma.sync)";
  }

  Option<std::string> targetName{
      *this, "target", llvm::cl::desc("Built-in target model (kcc-opt)"),
      llvm::cl::init("sm_80")};

  LogicalResult initialize(MLIRContext *ctx) override {
    return kcc::resolvePassTarget(ctx, "kcc-materialize-warp-mma", targetName,
                                  target);
  }

  /// Whether the target runs mma.sync.m16n8k16 on `elem` operands: its main
  /// instruction's table (sm_80), or the [mma] mma_sync list of a later
  /// architecture.
  bool hasMmaSync(Type elem) const {
    if (target->mma.instruction == "mma.sync")
      return m16n8k16(*target, elem) != nullptr;
    return llvm::is_contained(target->mma.mmaSync, typeName(elem));
  }

  void runOnOperation() override {
    if (target->mma.instruction != "mma.sync" && target->mma.mmaSync.empty()) {
      // Say why the dots stay on the SIMD cores (--report).
      if (!target->mma.instruction.empty())
        getOperation().walk([&](kcc::DotOp dot) {
          dot->setAttr(kcc::KccDialect::kMmaRefusedAttr,
                       StringAttr::get(&getContext(),
                                       "kcc does not lower target '" +
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

  /// Why `dot` cannot run as mma.sync with `warpgroups` warpgroups (empty:
  /// it can).
  std::string refusal(kcc::DotOp dot, unsigned warpgroups) const;
  LogicalResult runOnKernel(func::FuncOp func);

  const kcc::TargetModel *target = nullptr;
  unsigned numWarps = 0; // kcc --num-warps (0: not given)
};

std::string MaterializeWarpMma::refusal(kcc::DotOp dot,
                                        unsigned warpgroups) const {
  auto a = dot.getA().getType(), b = dot.getB().getType();
  auto c = dot.getC().getType();
  Type elem = a.getElementType();
  if (elem != b.getElementType())
    return "its operands have different element types (" + typeName(elem) +
           ", " + typeName(b.getElementType()) + ")";
  if (!elem.isF16() && !elem.isBF16())
    return "kcc runs mma.sync on f16 and bf16 inputs, not " + typeName(elem);
  if (!hasMmaSync(elem))
    return "target '" + target->name + "' lists no m16n8k16 mma.sync shape "
           "for " + typeName(elem);
  if (!c.getElementType().isF32())
    return "mma.sync is used with an f32 accumulator, not " +
           typeName(c.getElementType());
  int64_t m = a.getShape()[0], k = a.getShape()[1], n = b.getShape()[1];
  if (m % 64 != 0)
    return "M = " + std::to_string(m) + " is not a multiple of 64 (each warp "
           "of a warpgroup takes 16 rows of a 64-row block)";
  if (n % 16 != 0)
    return "N = " + std::to_string(n) + " is not a multiple of 16 (B's "
           "fragments are loaded two 8-column blocks at a time)";
  if (k % 16 != 0)
    return "K = " + std::to_string(k) + " is not a multiple of 16 (the "
           "m16n8k16 instruction's K)";
  // The accumulator and the operand tiles live in registers of 128 W
  // threads: each within the layout pass's per-tile budget (half the
  // register file, as kcc-assign-layouts allows).
  int64_t budget = llvm::PowerOf2Ceil(target->registersPerThread / 2);
  int64_t threads = 128 * warpgroups;
  for (auto [what, t] : {std::pair<const char *, RankedTensorType>{
                             "the accumulator", c},
                         {"operand a", a},
                         {"operand b", b}}) {
    int64_t regs = t.getNumElements() / threads;
    if (regs > budget)
      return std::string(what) + " (" + std::to_string(t.getDimSize(0)) +
             "x" + std::to_string(t.getDimSize(1)) + ") would take " +
             std::to_string(regs) + " registers per thread with " +
             std::to_string(threads / 32) + " warps (at most " +
             std::to_string(budget) + ")";
  }
  return "";
}

LogicalResult MaterializeWarpMma::runOnKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  SmallVector<kcc::DotOp> dots;
  func.walk([&](kcc::DotOp dot) { dots.push_back(dot); });
  if (dots.empty())
    return success();

  // One accumulator layout per kernel: the fewest warpgroups any dot's M
  // allows (as for wgmma), or what the kernel's num_warps asks for.
  unsigned warpgroups = 2;
  for (kcc::DotOp dot : dots)
    warpgroups = std::min(warpgroups, kcc::accumulatorWarpgroups(
                                          dot.getType().getShape()[0]));
  std::string kernelWhy;
  if (func->hasAttr(kcc::KccDialect::kProducerWarpsAttr))
    kernelWhy = "the kernel is warp-specialized for its wgmma pipeline; its "
                "other dots stay on the CUDA cores";
  else if (auto attr =
               func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kNumWarpsAttr);
           attr || numWarps) {
    int64_t asked = attr ? attr.getInt() : numWarps;
    if (asked == 4 || asked == 8)
      warpgroups = std::min<unsigned>(warpgroups, asked / 4);
    else
      kernelWhy = "the kernel asks for " + std::to_string(asked) +
                  " warps; mma.sync accumulators are laid out over 4 or 8";
  }

  SmallVector<kcc::DotOp> sites;
  for (kcc::DotOp dot : dots) {
    std::string why = kernelWhy.empty() ? refusal(dot, warpgroups) : kernelWhy;
    if (!why.empty()) {
      dot->setAttr(kcc::KccDialect::kMmaRefusedAttr, StringAttr::get(ctx, why));
      continue;
    }
    dot->setAttr(kcc::KccDialect::kMmaAttr,
                 StringAttr::get(ctx, "mma.sync.m16n8k16"));
    sites.push_back(dot);
  }
  if (sites.empty())
    return success();

  func->setAttr(kcc::KccDialect::kNumWarpsAttr,
                IntegerAttr::get(IntegerType::get(ctx, 32), 4 * warpgroups));
  SmallVector<Value> seeds;
  for (kcc::DotOp dot : sites)
    seeds.append({dot.getResult(), dot.getC()});
  auto isSite = [&](Operation *op) {
    auto dot = dyn_cast<kcc::DotOp>(op);
    return dot && dot->hasAttr(kcc::KccDialect::kMmaAttr);
  };
  return success(succeeded(kcc::retypeAccumulatorWeb(
      func, seeds, kcc::WgmmaAccLayoutAttr::get(ctx, warpgroups),
      [&](OpOperand &use) {
        return isSite(use.getOwner()) && use.getOperandNumber() == 2;
      },
      isSite)));
}

} // namespace

std::unique_ptr<Pass> kcc::createMaterializeWarpMma(const TargetModel &target,
                                                    unsigned numWarps) {
  return std::make_unique<MaterializeWarpMma>(target, numWarps);
}

void kcc::registerMaterializeWarpMmaPass() {
  PassRegistration<MaterializeWarpMma>();
}
