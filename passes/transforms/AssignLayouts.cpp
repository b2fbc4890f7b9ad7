//===- AssignLayouts.cpp - tile IR -> layout IR ---------------------------===//
//
// kcc-assign-layouts gives every tile of a kernel a #kcc.blocked encoding and
// records, per tile load/store, how many consecutive elements one vector
// memory instruction may move (kcc.access_width).
//
// Rules (the lowering relies on them):
//  * Tiles are grouped by element count; tiles linked by kcc.reduce (source
//    and tile result) join one group, because the reduce verifier wants the
//    result to carry the source's encoding. Every tile of a group gets the
//    same #kcc.blocked<vec = V, threads = T, warp = W>, so elementwise ops,
//    expand_dims and scf region types never need conversions.
//  * For each tile access, AxisInfo bounds the width K (a power of two):
//      K * elemBytes <= max-vector-bytes, K <= 16, K divides the innermost
//      non-unit dimension (a chunk never straddles rows), K divides the
//      pointer's contiguity along that dimension, K * elemBytes divides the
//      pointer's proven byte alignment. The mask does not bound K: when its
//      constancy is a multiple of K the access gets kcc.mask_uniform and the
//      chunk's first mask bit guards the whole vector; otherwise the lowering
//      tests all K bits at run time (all true: one vector access; else
//      per-element accesses), so ragged tails do not cost the vector path.
//      A load's mask that is a bounds check of a contiguous index (on for a
//      prefix or suffix of each chunk) gets kcc.mask_monotone: its first and
//      last bits decide the chunk.
//    V of a group = max K over its accesses (1 without accesses); so every K
//    of the group divides V, and V divides the element count.
//  * num_warps: kept if the function has kcc.num_warps, else the pass option
//    if non-zero, else clamp(N / (2 * W * V), 1, 16) for the largest tile N and
//    its group's V (1 for kernels without tiles). T = num_warps * W.
//
//===----------------------------------------------------------------------===//

#include "ir/ElementTypes.h"
#include "passes/Passes.h"
#include "passes/analysis/AxisInfo.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCASSIGNLAYOUTS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Where to report a problem with `op`: its own location, or, for ops that
/// canonicalization created or merged without one (constants hoisted to the
/// function entry), the first user that has one, else the kernel's.
Location sourceLocOf(Operation *op) {
  auto located = [](Location loc) { return !isa<UnknownLoc>(loc); };
  if (located(op->getLoc()))
    return op->getLoc();
  for (Operation *user : op->getUsers())
    if (located(user->getLoc()))
      return user->getLoc();
  if (auto func = op->getParentOfType<func::FuncOp>())
    return func.getLoc();
  return op->getLoc();
}

/// What bounds the vector width of one tile load/store. Every limit is a
/// power of two, counted in elements.
struct AccessLimits {
  int64_t hardware = 1;  // max-vector-bytes / element bytes
  int64_t shape = 1;     // innermost non-unit dimension
  int64_t contiguity = 1;
  int64_t alignment = 1; // pointer divisibility / element bytes
  int64_t mask = 1;      // mask constancy (= shape without a mask)
  int64_t constancy = 1; // pointer constancy: runs of one address
  int64_t alignBytes = 1;
  // The mask is on for a prefix or a suffix of every access chunk.
  bool maskMonotone = false;
  int64_t width() const {
    return std::min({hardware, shape, contiguity, alignment});
  }
  bool maskUniform() const { return mask % width() == 0; }
};

int64_t floorPow2(int64_t v) {
  return v <= 1 ? 1 : int64_t(1) << llvm::Log2_64(static_cast<uint64_t>(v));
}
int64_t largestPow2Divisor(int64_t v) {
  return v == 0 ? 1 : int64_t(1) << llvm::countr_zero(static_cast<uint64_t>(v));
}

/// Whether in every aligned run of `k` elements along `dim` the i1 tile
/// `mask` is on exactly for a prefix or a suffix of the run (possibly empty
/// or whole). True for a run-uniform value, for a monotone comparison of an
/// index that counts up by one along the run against a value constant along
/// it (`c < n`, `c >= lo`), and for conjunctions of such terms: a conjunction
/// of prefixes and suffixes is all on iff it is on at both ends. The index
/// run must start at a multiple of k, so that it cannot wrap around (2^31
/// and 2^32 are multiples of k) and stays monotone.
bool onPrefixOrSuffix(const kcc::AxisInfoAnalysis &analysis, Value mask,
                      unsigned dim, int64_t k, unsigned depth = 0) {
  if (analysis.get(mask).getConstancy(dim) % k == 0)
    return true;
  if (depth > 8)
    return false;
  Operation *def = mask.getDefiningOp();
  if (auto conj = dyn_cast_or_null<arith::AndIOp>(def))
    return onPrefixOrSuffix(analysis, conj.getLhs(), dim, k, depth + 1) &&
           onPrefixOrSuffix(analysis, conj.getRhs(), dim, k, depth + 1);
  auto cmp = dyn_cast_or_null<arith::CmpIOp>(def);
  if (!cmp || cmp.getPredicate() == arith::CmpIPredicate::eq ||
      cmp.getPredicate() == arith::CmpIPredicate::ne)
    return false;
  auto counts = [&](Value v) {
    const kcc::AxisInfo &info = analysis.get(v);
    return info.getContiguity(dim) % k == 0 &&
           info.getDivisibility(dim) % k == 0;
  };
  auto flat = [&](Value v) {
    return analysis.get(v).getConstancy(dim) % k == 0;
  };
  return (counts(cmp.getLhs()) && flat(cmp.getRhs())) ||
         (flat(cmp.getLhs()) && counts(cmp.getRhs()));
}

AccessLimits computeLimits(const kcc::AxisInfoAnalysis &analysis,
                           Operation *access, Value ptr, Value mask,
                           unsigned maxVectorBytes) {
  auto type = cast<RankedTensorType>(ptr.getType());
  auto ptrType = cast<kcc::PtrType>(type.getElementType());
  int64_t elemBytes = kcc::getElementBytes(ptrType.getPointeeType());
  // Consecutive flat elements are consecutive along the innermost dimension
  // of size > 1 (all later dimensions have size 1).
  unsigned dim = type.getRank() - 1;
  while (dim > 0 && type.getDimSize(dim) == 1)
    --dim;

  AccessLimits limits;
  limits.hardware =
      std::min<int64_t>(16, floorPow2(std::max<int64_t>(1, maxVectorBytes / elemBytes)));
  limits.shape = largestPow2Divisor(type.getDimSize(dim));
  const kcc::AxisInfo &ptrInfo = analysis.get(ptr);
  limits.contiguity = ptrInfo.getContiguity(dim);
  limits.constancy = std::min<int64_t>(limits.hardware, ptrInfo.getConstancy(dim));
  limits.alignBytes = ptrInfo.getDivisibility(dim);
  limits.alignment = std::max<int64_t>(1, limits.alignBytes / elemBytes);
  limits.mask = limits.shape;
  if (mask && isa<RankedTensorType>(mask.getType()))
    limits.mask = analysis.get(mask).getConstancy(dim);
  // Loads only: they are what runs in the loops. A store runs once per tile,
  // and the changed schedule of an epilogue at the register cap (sm_100a,
  // 128 x 256 tile) spills.
  if (mask && !limits.maskUniform() && isa<kcc::LoadOp>(access))
    limits.maskMonotone = onPrefixOrSuffix(analysis, mask, dim, limits.width());
  return limits;
}

/// kcc's "explained when refused": the width and, when below the hardware
/// maximum, every fact that bounds it.
void emitAccessRemark(Operation *op, const AccessLimits &limits,
                      Type elemType, int64_t elemBytes) {
  int64_t k = limits.width();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "access width " << k << " x " << kcc::elementTypeName(elemType) << " ("
     << k * elemBytes << " bytes)";
  if (k < limits.hardware) {
    os << ", " << limits.hardware << " possible; limited by";
    SmallVector<std::string> reasons;
    if (limits.shape == k)
      reasons.push_back("tile shape (innermost dimension " +
                        std::to_string(limits.shape) + ")");
    if (limits.contiguity == k)
      reasons.push_back("pointer contiguity (" +
                        std::to_string(limits.contiguity) + " elements)");
    if (limits.alignment == k)
      reasons.push_back("pointer alignment (" +
                        std::to_string(limits.alignBytes) + " bytes)");
    os << " ";
    llvm::interleaveComma(reasons, os);
  }
  if (!limits.maskUniform() && limits.maskMonotone)
    os << "; mask not uniform per vector but a bounds check of a contiguous "
          "index: each vector checked at run time by its first and last "
          "element";
  else if (!limits.maskUniform())
    os << "; mask not provably uniform per vector (constancy " << limits.mask
       << "): checked at run time";
  if (isa<kcc::LoadOp>(op) && k == 1 && limits.constancy > 1)
    os << "; the address repeats in runs of " << limits.constancy
       << " elements (a broadcast): one load per run";
  // Which copy of kcc-version-full-masks the access is in.
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent);
        ifOp && ifOp->hasAttr(kcc::KccDialect::kFullMasksAttr)) {
      os << (ifOp.getThenRegion().isAncestor(op->getParentRegion())
                 ? "; in the copy for blocks whose masks are all on"
                 : "; in the copy for blocks whose masks are partly off");
      break;
    }
  op->emitRemark(text);
}

struct AssignLayouts : kcc::impl::KccAssignLayoutsBase<AssignLayouts> {
  using KccAssignLayoutsBase::KccAssignLayoutsBase;

  void runOnOperation() override {
    if (warpSize != 32 && warpSize != 64) {
      getOperation().emitError("kcc-assign-layouts: warp-size must be 32 or 64");
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        if (failed(runOnKernel(func)))
          return signalPassFailure();
  }

  LogicalResult runOnKernel(func::FuncOp func);
};

LogicalResult AssignLayouts::runOnKernel(func::FuncOp func) {
  // Facts are keyed by Value, so they survive the in-place retyping below.
  kcc::AxisInfoAnalysis analysis(func);
  MLIRContext *ctx = func.getContext();

  // Element-count classes, merged across kcc.reduce.
  llvm::EquivalenceClasses<int64_t> classes;
  int64_t largest = 0;
  // Tiles that already have a layout (wgmma accumulators,
  // kcc-materialize-warpgroup-mma) keep it.
  auto hasLayout = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getEncoding();
  };
  auto noteType = [&](Type type) {
    if (hasLayout(type))
      return;
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      classes.insert(tensor.getNumElements());
      largest = std::max(largest, tensor.getNumElements());
    }
  };
  struct Access {
    Operation *op;
    Value ptr, mask;
    AccessLimits limits;
  };
  SmallVector<Access> accesses;
  struct StageAccess {
    Operation *op;
    int64_t elements, width;
  };
  SmallVector<StageAccess> stageAccesses;
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          noteType(arg.getType());
    for (Type type : op->getResultTypes())
      noteType(type);
    if (auto reduce = dyn_cast<kcc::ReduceOp>(op))
      if (auto result = dyn_cast<RankedTensorType>(reduce.getType());
          result && !hasLayout(result))
        classes.unionSets(reduce.getSrc().getType().getNumElements(),
                          result.getNumElements());
    Value ptr, mask;
    if (auto load = dyn_cast<kcc::LoadOp>(op)) {
      ptr = load.getPtr();
      mask = load.getMask();
    } else if (auto store = dyn_cast<kcc::StoreOp>(op)) {
      ptr = store.getPtr();
      mask = store.getMask();
    } else if (auto copy = dyn_cast<kcc::CpAsyncGatherOp>(op)) {
      // Its 16-byte chunks are runs of the pointer tile's registers.
      ptr = copy.getPtrs();
      mask = copy.getMask();
    }
    // An access already in an accumulator's layout (a row scale,
    // kcc-rematerialize-broadcasts) reads one element per register.
    if (ptr && isa<RankedTensorType>(ptr.getType()) &&
        !hasLayout(ptr.getType()))
      accesses.push_back(
          {op, ptr, mask,
           computeLimits(analysis, op, ptr, mask, maxVectorBytes)});
    // A shared stage holds its tile densely in row-major order at a 128-byte
    // aligned address: contiguous and aligned for any vector width.
    if (isa<kcc::SmemLoadOp, kcc::SmemStoreOp>(op)) {
      auto tile = cast<RankedTensorType>(isa<kcc::SmemLoadOp>(op)
                                             ? op->getResult(0).getType()
                                             : op->getOperand(0).getType());
      // An accumulator stored from its own layout has nothing to choose.
      if (tile.getEncoding())
        return;
      int64_t bytes = kcc::getElementBytes(tile.getElementType());
      int64_t k = std::min<int64_t>(
          {16, floorPow2(std::max<int64_t>(1, maxVectorBytes / bytes)),
           largestPow2Divisor(tile.getNumElements())});
      stageAccesses.push_back({op, tile.getNumElements(), k});
    }
  });

  // V per class: the widest proven access of the class.
  llvm::DenseMap<int64_t, unsigned> leaderVec;
  for (const Access &access : accesses) {
    int64_t n = cast<RankedTensorType>(access.ptr.getType()).getNumElements();
    unsigned &vec = leaderVec[classes.getLeaderValue(n)];
    vec = std::max<unsigned>({vec, 1u, static_cast<unsigned>(access.limits.width())});
  }
  for (const StageAccess &access : stageAccesses) {
    unsigned &vec = leaderVec[classes.getLeaderValue(access.elements)];
    vec = std::max<unsigned>({vec, 1u, unsigned(access.width)});
  }
  auto vecOf = [&](int64_t n) -> unsigned {
    auto it = leaderVec.find(classes.getLeaderValue(n));
    return it == leaderVec.end() ? 1u : it->second;
  };

  // Warps per CTA.
  unsigned warps = 1;
  if (auto attr = func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kNumWarpsAttr)) {
    warps = attr.getInt();
  } else if (numWarps != 0) {
    warps = numWarps;
  } else if (largest > 0) {
    // Two vector chunks per thread: a second load in flight per thread is
    // what keeps HBM busy on memory-bound kernels (measured on an H100,
    // docs/benchmarks.md), and fewer warps make reductions cheaper.
    int64_t want = largest / (int64_t(warpSize) * vecOf(largest) * 2);
    warps = floorPow2(std::clamp<int64_t>(want, 1, 16));
  }
  if (!llvm::isPowerOf2_32(warps))
    return func.emitError("kcc-assign-layouts: cannot use ")
           << warps << " warps; the number of warps must be a power of two";
  if (uint64_t(warps) * warpSize > maxThreadsPerBlock)
    return func.emitError()
           << warps << " warps of " << unsigned(warpSize) << " lanes are "
           << uint64_t(warps) * warpSize << " threads per block, more than the "
           << unsigned(maxThreadsPerBlock)
           << " this target allows; use --num-warps="
           << std::max<uint64_t>(1,
                                 llvm::bit_floor(unsigned(maxThreadsPerBlock) /
                                                 unsigned(warpSize)))
           << " or fewer";
  func->setAttr(kcc::KccDialect::kNumWarpsAttr,
                IntegerAttr::get(IntegerType::get(ctx, 32), warps));
  unsigned threads = warps * warpSize;

  auto convert = [&](Type type) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.getEncoding())
      return type;
    auto layout = kcc::BlockedLayoutAttr::get(
        ctx, vecOf(tensor.getNumElements()), threads, warpSize);
    return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                                 layout);
  };

  // Retype in place: every result and region argument. Shapes are
  // unchanged and same-count tiles get the same type, so scf.for/if
  // init/arg/yield/result types stay consistent.
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(convert(arg.getType()));
    for (OpResult result : op->getResults())
      result.setType(convert(result.getType()));
    if (auto cst = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
  });
  func.setFunctionType(FunctionType::get(
      ctx, func.getBody().front().getArgumentTypes(),
      llvm::map_to_vector(func.getResultTypes(), convert)));

  // Tiles live in registers: refuse one that cannot fit instead of emitting
  // thousands of unrolled registers (a compile that would take minutes and a
  // kernel that would spill everything).
  WalkResult fits = func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      auto layout = tensor ? kcc::getBlockedLayout(tensor) : nullptr;
      if (!layout)
        continue;
      // In 64 bits: the count of a huge tile does not fit `unsigned`.
      int64_t n = tensor.getNumElements();
      int64_t vec = layout.getEffectiveVec(n);
      int64_t perThread = (n / vec + threads - 1) / threads * vec;
      if (perThread <= int64_t(maxElemsPerThread))
        continue;
      mlir::emitError(sourceLocOf(op))
                      << "a tile of " << tensor.getNumElements()
                      << " elements needs " << perThread
                      << " registers per thread with " << threads
                      << " threads, more than the " << unsigned(maxElemsPerThread)
                      << " this target allows; use a smaller tile (at most "
                      << int64_t(unsigned(maxElemsPerThread)) * threads
                      << " elements) and loop over the data";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (fits.wasInterrupted())
    return failure();

  for (const StageAccess &access : stageAccesses)
    access.op->setAttr(kcc::KccDialect::kAccessWidthAttr,
                       IntegerAttr::get(IntegerType::get(ctx, 32),
                                        access.width));
  // Access widths (and their explanations).
  for (const Access &access : accesses) {
    int64_t k = access.limits.width();
    access.op->setAttr(kcc::KccDialect::kAccessWidthAttr,
                       IntegerAttr::get(IntegerType::get(ctx, 32), k));
    if (k > 1 && access.mask && access.limits.maskUniform())
      access.op->setAttr(kcc::KccDialect::kMaskUniformAttr, UnitAttr::get(ctx));
    else if (k > 1 && access.mask && access.limits.maskMonotone)
      access.op->setAttr(kcc::KccDialect::kMaskMonotoneAttr,
                         UnitAttr::get(ctx));
    if (k == 1 && access.limits.constancy > 1 && isa<kcc::LoadOp>(access.op))
      access.op->setAttr(
          kcc::KccDialect::kAccessUniformAttr,
          IntegerAttr::get(IntegerType::get(ctx, 32), access.limits.constancy));
    if (remarks) {
      Type elem = cast<kcc::PtrType>(
                      cast<RankedTensorType>(access.ptr.getType()).getElementType())
                      .getPointeeType();
      emitAccessRemark(access.op, access.limits, elem,
                       kcc::getElementBytes(elem));
    }
  }
  return verify(func);
}

} // namespace
