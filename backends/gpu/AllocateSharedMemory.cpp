//===- AllocateSharedMemory.cpp - place each kernel's shared memory -------===//
//
// The `kcc-allocate-shared-memory` pass, run right before
// kcc-convert-to-llvm: per kernel, the async buffers, which live across the
// kernel's other ops and so each get their own region (kcc.smem_offset, most
// aligned first), and the scratch its relayouts, reductions and dot staging
// reuse (the largest one op needs). The scratch goes first or last,
// whichever needs less padding: first, it pads up to the alignment of the
// buffers (1024 bytes for a swizzled stage); last, it starts at the next
// 128-byte boundary (kcc.scratch_offset). In a GEMM those padding bytes can
// decide whether a pipeline stage fits. The total must fit what one block
// may use; the kernel records it (kcc.smem_bytes, kcc.smem_alignment) for
// the conversion, which only creates the buffer.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"
#include "backends/gpu/Passes.h"

#include "targets/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace kcc::gpu {
#define GEN_PASS_DEF_ALLOCATESHAREDMEMORY
#include "backends/gpu/Passes.h.inc"
} // namespace kcc::gpu

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

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

/// Places the stages, mbarriers and TMEM address slots of `fn` from `start`
/// (kcc.smem_offset on each); returns where they end and raises `alignment`
/// to what they need.
static int64_t placeAsyncBuffers(func::FuncOp fn, int64_t start,
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
  int64_t end = start;
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

struct AllocateSharedMemory
    : kcc::gpu::impl::AllocateSharedMemoryBase<AllocateSharedMemory> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

/// "32x32 f32": a dot operand in messages.
static std::string operandShape(RankedTensorType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(t.getShape(), os, "x");
  os << " " << t.getElementType();
  return s;
}

void AllocateSharedMemory::runOnOperation() {
  ModuleOp module = getOperation();
  const VendorLowering *lowering = lookupVendorLowering(vendor);
  if (!lowering) {
    module.emitError(getArgument()) << ": unknown vendor '" << vendor
                                    << "'; valid vendors are nvidia and amd";
    return signalPassFailure();
  }
  int64_t limit = maxSharedBytes;
  if (limit <= 0) {
    const TargetModel *model =
        TargetRegistry::builtin().lookup(lowering->defaultTarget);
    limit = model ? model->sharedMemory.bytesPerBlock : 48 * 1024;
  }
  auto targetAttr = module->getAttrOfType<StringAttr>(KccDialect::kTargetAttr);
  std::string target = targetAttr ? targetAttr.str() : "this target";

  bool ok = true;
  Builder b(module.getContext());
  for (auto fn : module.getOps<func::FuncOp>()) {
    int64_t scratch = 0;
    fn.walk([&](Operation *op) {
      // The FMA lowering of dot stages a and b in shared memory: name the
      // dot that does not fit, not only the kernel's total (which then
      // leaves it out, so it is not reported twice).
      if (auto dot = dyn_cast<DotOp>(op)) {
        int64_t bytes = dotScratch(dot).bytes;
        if (bytes > limit) {
          dot.emitError("kcc: dot needs ")
              << bytes << " bytes of shared memory for a ("
              << operandShape(dot.getA().getType()) << ") and b ("
              << operandShape(dot.getB().getType()) << "), which its "
              << (isAccumulatorLayout(dot.getC().getType().getEncoding())
                      ? "tensor-core"
                      : "CUDA-core")
              << " lowering stages there: more than the " << limit
              << " bytes one block may use on " << target
              << "; use smaller tiles (e.g. a loop over K)";
          ok = false;
          return;
        }
      }
      scratch = std::max(scratch, smemBytesFor(op));
    });
    // Ping-pong consumer groups run concurrently: each has its own scratch
    // (group g's at g x scratch, kcc::gpu::scratchBase).
    if (auto groups =
            fn->getAttrOfType<IntegerAttr>(KccDialect::kConsumerGroupsAttr);
        groups && groups.getInt() > 1 && scratch > 0) {
      scratch = llvm::alignTo(scratch, 128);
      fn->setAttr(KccDialect::kScratchBytesAttr, b.getI32IntegerAttr(scratch));
      scratch *= groups.getInt();
    }
    int64_t smem = scratch, alignment = 16;
    bool async = hasAsyncOps(fn);
    if (async) {
      int64_t buffers = placeAsyncBuffers(fn, 0, alignment);
      // Last, the scratch starts at a 128-byte boundary: a relayout's
      // accesses are then conflict-free where its layout was chosen so.
      int64_t last = llvm::alignTo(buffers, 128);
      int64_t first = llvm::alignTo(scratch, alignment);
      if (scratch && last + scratch < first + buffers) {
        fn->setAttr(KccDialect::kScratchOffsetAttr, b.getI32IntegerAttr(last));
        smem = last + scratch;
      } else {
        smem = placeAsyncBuffers(fn, first, alignment);
      }
    }
    if (smem > limit) {
      auto diag = fn.emitError("kcc: kernel needs ")
                  << smem << " bytes of shared memory (" << scratch
                  << " for layout conversions and reductions";
      if (async)
        diag << ", " << smem - scratch << " for TMA stages and mbarriers";
      diag << "), more than the " << limit << " bytes one block may use on "
           << target;
      ok = false;
    }
    fn->setAttr(KccDialect::kSmemBytesAttr, b.getI64IntegerAttr(smem));
    fn->setAttr(KccDialect::kSmemAlignmentAttr, b.getI64IntegerAttr(alignment));
  }
  if (!ok)
    signalPassFailure();
}
