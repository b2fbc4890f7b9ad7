//===- LoweringUtils.h - what every vendor's lowering shares -----*- C++ -*-===//
//
// Thread semantics of `#kcc.blocked<vec, threads, warp>` (see ir/KccTypes.td):
// with ve = effective vec and nchunks = N / ve, register r of thread t holds
//   chunk = (r / ve) * threads + t            (nchunks >= threads)
//   chunk = t mod nchunks                     (nchunks <  threads: replicated)
//   flat  = chunk * ve + r % ve
// Only threads t < nchunks own (write) a replicated tile's chunks.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_GPU_LOWERINGUTILS_H
#define KCC_BACKENDS_GPU_LOWERINGUTILS_H

#include "backends/gpu/SharedAccesses.h"
#include "ir/Dialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>
#include <memory>
#include <string>

namespace kcc::gpu {

/// Per-thread view of one tile type.
struct TileLayout {
  int64_t numElems = 0;
  unsigned vec = 1; // effective vec
  unsigned threads = 0;
  unsigned warp = 32;
  unsigned regs = 0; // registers per thread
  int64_t nchunks = 0;
  bool replicated() const { return nchunks < threads; }
  static TileLayout get(mlir::RankedTensorType type);
  /// Compile-time part of the flat index of register r.
  int64_t regOffset(unsigned r) const {
    if (replicated())
      return r % vec;
    return int64_t(r / vec) * threads * vec + r % vec;
  }
};

/// A 2-D broadcast of an expanded arange into a blocked layout: lowered
/// from each element's coordinate, with no shared memory (what
/// kcc-rematerialize-broadcasts leaves of index math).
bool isArangeBroadcast(BroadcastOp op);

/// A row vector of a wgmma accumulator (isWgmmaRowSlice) broadcast over the
/// accumulator's columns: register copies, no shared memory.
bool isRowBroadcast(BroadcastOp op);

/// How a rank >= 2 reduction along one axis combines (ReduceToLLVM.cpp; the
/// bank-conflict report, SharedAccesses.cpp, mirrors it). In a blocked
/// layout of a power-of-two shape an element's flat index is a bit field of
/// register, lane and warp bits, and the reduced coordinate is the bits
/// [axisLo, axisHi) of it. So: registers that differ only in axis bits
/// combine in the thread, lanes that do with a butterfly over those lane
/// bits, and warps that do through one partial per warp slot in shared
/// memory; each thread then reads its result registers' partials.
struct AxisReductionPlan {
  unsigned axisLo = 0, axisHi = 0;
  /// Registers with the same output element; the first one represents them.
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> regGroups;
  /// Lane-id bits along the axis (one butterfly step each).
  unsigned laneMask = 0;
  /// Thread-id bits above the lane bits along the axis, low to high.
  llvm::SmallVector<unsigned, 4> warpAxisBits;
  int64_t outElems = 0;

  static AxisReductionPlan get(const TileLayout &src,
                               llvm::ArrayRef<int64_t> shape, int64_t axis);
  /// Partials per output element (warp slots along the axis).
  unsigned slots() const { return 1u << warpAxisBits.size(); }
  /// Output flat index of the source element with flat index `e`.
  int64_t outIndex(int64_t e) const {
    return ((e >> axisHi) << axisLo) | (e & ((int64_t(1) << axisLo) - 1));
  }
  /// The warp slot of thread `t`.
  unsigned slotOf(unsigned t) const {
    unsigned s = 0;
    for (auto [i, bit] : llvm::enumerate(warpAxisBits))
      s |= ((t >> bit) & 1u) << i;
    return s;
  }
  int64_t scratchBytes(unsigned accBytes) const {
    return int64_t(slots()) * outElems * accBytes;
  }
};

/// Accumulator bytes of a reduction of `elem`: f16/bf16 combine in f32,
/// i1/i8/i16 in i32.
unsigned reductionAccBytes(mlir::Type elem);
/// Registers per shared-memory load of an axis reduction's result: a chunk
/// of `vec` consecutive elements, at most 16 bytes of accumulators.
unsigned axisReductionLoadElems(const TileLayout &dst, unsigned accBytes);

/// What differs between vendors in the lowering: special registers, the
/// block barrier, cross-lane exchange within a warp/wave and the kernel's
/// attributes. Everything else (layouts, memory, arithmetic) is shared.
class TargetOps {
public:
  virtual ~TargetOps() = default;
  /// Lanes per warp (32) or wave (64); layouts must agree.
  virtual unsigned warpSize() const = 0;
  virtual mlir::Value threadId(mlir::OpBuilder &b,
                               mlir::Location loc) const = 0;
  virtual mlir::Value blockId(mlir::OpBuilder &b, mlir::Location loc,
                              unsigned axis) const = 0;
  virtual mlir::Value numBlocks(mlir::OpBuilder &b, mlir::Location loc,
                                unsigned axis) const = 0;
  /// Block-wide barrier that also orders shared-memory accesses.
  virtual void barrier(mlir::OpBuilder &b, mlir::Location loc) const = 0;
  /// In a ping-pong consumer region, the consumer group running it (which
  /// picks the group's scratch); null elsewhere or on targets without.
  virtual mlir::Value consumerGroup(mlir::OpBuilder &b,
                                    mlir::Location loc) const {
    return nullptr;
  }
  /// The 32-bit value `v` of lane (this lane ^ mask) through the exchange
  /// instruction `kind` (a target-model name, targets/LaneExchange.h), or
  /// null when this vendor has no such instruction or it cannot reach that
  /// partner.
  virtual mlir::Value exchange32(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value v, llvm::StringRef kind,
                                 unsigned mask) const = 0;
  /// The exchange used for lane ^ mask when no plan was made (kcc-opt
  /// pipelines without kcc-plan-lane-exchanges).
  virtual llvm::StringRef defaultExchange(unsigned mask) const = 0;
  /// The LLVM sync scope of an atomic of `scope` (each backend names its
  /// own: NVPTX "block"/"device", AMDGPU "workgroup"/"agent"; "" is the
  /// whole system), or none where the backend cannot give it.
  virtual std::optional<llvm::StringRef> syncScope(MemoryScope scope) const = 0;
  /// Whether the backend drops an atomicrmw's ordering, so that the
  /// lowering orders it with fences around a relaxed one.
  virtual bool fencesAtomicOrder() const { return false; }
  /// Whether f64 exp/exp2/log/log2 can be lowered (NVIDIA: libdevice; AMD
  /// would need the ROCm device libraries, which kcc does not link).
  virtual bool hasF64Transcendentals() const { return true; }
  /// Marks `fn` as a kernel entry launched with `threads` threads per block.
  virtual void markKernel(mlir::LLVM::LLVMFuncOp fn,
                          unsigned threads) const = 0;
  /// Launch `fn` as clusters of `ctas` CTAs along x (kcc.cluster); false
  /// where the vendor has no clusters (kcc-multicast-tma-loads never asks).
  virtual bool markCluster(mlir::LLVM::LLVMFuncOp, unsigned) const {
    return false;
  }
  /// Marks argument `i` of kernel `fn`, a tensor map passed by value, as the
  /// vendor reads it in place (NVIDIA: __grid_constant__).
  virtual void markTensorMapArg(mlir::LLVM::LLVMFuncOp fn, unsigned i) const {}
  /// Adds the vendor's math lowerings (none: upstream math-to-llvm).
  virtual void addMathPatterns(class KccTypeConverter &tc,
                               mlir::RewritePatternSet &patterns,
                               mlir::ConversionTarget &target) const = 0;
  /// The vendor's LLVM dialect extension, legal in the conversion.
  virtual void addLegalDialects(mlir::ConversionTarget &target) const = 0;
};

/// The tile type converter: tensors -> vector<regs x T> (pointers -> i64),
/// !kcc.ptr -> !llvm.ptr<as>. Carries the target's ops for the patterns.
class KccTypeConverter : public mlir::TypeConverter {
public:
  KccTypeConverter(mlir::MLIRContext *ctx, const TargetOps &ops);
  const TargetOps &targetOps() const { return ops; }

private:
  const TargetOps &ops;
};

/// The target ops of a pattern built with a KccTypeConverter.
inline const TargetOps &targetOpsOf(const mlir::ConversionPattern &p) {
  return static_cast<const KccTypeConverter *>(p.getTypeConverter())
      ->targetOps();
}

// --- small builders -------------------------------------------------------
mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                     int64_t v);
/// tid-dependent part of the flat index (i32).
mlir::Value threadBase(mlir::OpBuilder &b, mlir::Location loc,
                       const TileLayout &l, mlir::Value tid);
/// flat index (i32) of register r of this thread.
mlir::Value flatIndex(mlir::OpBuilder &b, mlir::Location loc,
                      const TileLayout &l, mlir::Value base, unsigned r);
/// i1 "this thread owns its chunks" (null when every thread owns).
mlir::Value ownerPred(mlir::OpBuilder &b, mlir::Location loc,
                      const TileLayout &l, mlir::Value tid);
mlir::Value extractElem(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        int64_t i);
mlir::Value buildVector(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ArrayRef<mlir::Value> elems);
mlir::Value splatVector(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value scalar, unsigned n);
/// Unpack a converted tile (vector) into its registers.
llvm::SmallVector<mlir::Value> unpack(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value v);
/// Base pointer (addrspace 3) of the kernel's shared-memory buffer.
mlir::Value smemBase(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Operation *user);
/// The scratch (relayouts, reductions, dot staging) of the code at `user`:
/// the buffer's start, or its consumer group's copy with ping-pong.
mlir::Value scratchBase(const TargetOps &ops, mlir::OpBuilder &b,
                        mlir::Location loc, mlir::Operation *user);
std::string smemName(llvm::StringRef kernel);
/// Memory representation of an element type: i1 -> i8, ptr -> i64.
mlir::Type storageType(mlir::Type elem);
/// The type of a tile element in a thread's registers: pointers as i64,
/// 8-bit floats as their bytes (LLVM has no 8-bit float types).
mlir::Type registerType(mlir::Type elem);
unsigned storageBytes(mlir::Type elem);
/// Converted value -> storage type and back (only i1 changes).
mlir::Value toStorage(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value fromStorage(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        mlir::Type elem);
/// A tile lane's pointer (its i64 form) as an LLVM pointer of address
/// space `as`.
mlir::Value toGlobalPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i64,
                        unsigned as);
/// `x && y` for i1 conditions where null means "always" (no mask, every
/// thread an owner).
mlir::Value andConditions(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          mlir::Value y);
/// Runs `body` only when `cond` holds (no-op guard when cond is null).
void emitIf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
            llvm::function_ref<void(mlir::OpBuilder &)> body);
/// Flat index of element `multi` of a row-major shape (i32 arithmetic).
mlir::Value linearize(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> multi,
                      llvm::ArrayRef<int64_t> shape);
/// Multi-index (i32) of a flat index in a row-major power-of-two shape.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value flat,
                                           llvm::ArrayRef<int64_t> shape);

/// The padding an op's kcc.smem_padding asks for (none without it).
SmemPadding smemPaddingOf(mlir::Operation *op);
/// index() on an i32 flat index in the lowering.
mlir::Value padIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value flat,
                     const SmemPadding &padding);

/// Shared-memory bytes needed by one op (0 if none).
int64_t smemBytesFor(mlir::Operation *op);

/// Where the lowerings of dot (DotToFMA.cpp, DotToMmaSync.cpp) stage its
/// operands in the shared-memory scratch: a row-major with rows of
/// `aRowStride` elements (K plus padding) from byte 0, b row-major with rows
/// of `bRowStride` elements from byte `bOffset`.
struct DotScratch {
  int64_t aRowStride = 0;
  int64_t bRowStride = 0;
  int64_t bOffset = 0;
  int64_t bytes = 0; // in all
};
DotScratch dotScratch(DotOp op);
/// Stores tile `v` (#kcc.blocked, owners only) row-major at `base` (shared
/// memory) with rows of `rowStride` elements, one vector store per chunk of
/// the layout: the chunk never crosses a row (its width divides the row) and
/// `rowStride` must keep every chunk aligned to its size (DotToMmaSync.cpp).
/// The tensor-core lowerings' staging (DotToMmaSync.cpp, DotToMfma.cpp):
/// barrier, a and b (converted values) stored with storeTileRows into the
/// scratch as dotScratch lays it out, barrier; returns a's and b's bases.
std::pair<mlir::Value, mlir::Value>
stageDotOperands(const TargetOps &ops, mlir::OpBuilder &b, mlir::Location loc,
                 DotOp op, mlir::Value a, mlir::Value bTile);
/// The tensor-core lowerings' K loop: an scf.for over `steps` K steps of
/// `kStep` elements carrying the registers of accumulator `acc` (a converted
/// vector); `body` gets k0 = kStep x step and updates the registers in
/// place. Returns the final accumulator vector.
mlir::Value accumulateKSteps(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc, int64_t steps,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value,
                            llvm::MutableArrayRef<mlir::Value>)>
        body,
    int64_t kStep = 16);
void storeTileRows(const TargetOps &ops, mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Value v, mlir::RankedTensorType type, mlir::Value base,
                   int64_t rowStride);

/// A position in an MMA accumulator tile (#kcc.wgmma_acc, #kcc.mfma_acc):
/// thread t's registers sit at accumulatorOrigin(layout, t) +
/// accumulatorOffset(layout, n, r), the offsets being the same for every
/// thread (Accumulators.cpp; registerMap emits the same in IR).
struct AccumulatorPos {
  int64_t row, col;
};
bool isAccumulatorLayout(mlir::Attribute layout);
/// Threads an accumulator layout spreads over, and registers per thread.
unsigned accumulatorThreads(mlir::Attribute layout);
unsigned accumulatorRegs(mlir::RankedTensorType type);
AccumulatorPos accumulatorOrigin(mlir::Attribute layout, unsigned t);
AccumulatorPos accumulatorOffset(mlir::Attribute layout, int64_t n, unsigned r);

/// Row-major flat index (i32) of each register of this thread in a tile of
/// `type` (#kcc.blocked or an accumulator layout), and whether the thread
/// owns it (Accumulators.cpp). In #kcc.wgmma_acc, registers 2i and
/// 2i + 1 are neighbours in a row.
struct RegisterMap {
  llvm::SmallVector<mlir::Value> flat;
  mlir::Value owner; // null: every thread owns its registers
  /// Accumulator layouts only: each register's row and column, one Value per
  /// distinct row / column (registers share them).
  llvm::SmallVector<mlir::Value> rows, cols;
};
RegisterMap registerMap(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type, mlir::Value tid);

/// Whether `op` contains async IR (stages, mbarriers, TMA copies, TMEM),
/// whose buffers kcc-allocate-shared-memory places after the scratch.
bool hasAsyncOps(mlir::Operation *op);

/// Writes a tile (converted vector `src` with layout `sl`) to shared memory
/// (owners only), then reads back the element `mapFlat(dstFlat)` for every
/// register of the destination layout, with barriers before and after the
/// write.
mlir::Value relayoutThroughSmem(const TargetOps &ops, mlir::OpBuilder &b,
                                mlir::Location loc, mlir::Operation *op,
                                mlir::Value src, const TileLayout &sl,
                                const TileLayout &dl, mlir::Type elem,
                                llvm::function_ref<mlir::Value(mlir::Value)>
                                    mapFlat);

/// 8-bit float casts work on a tile's registers, which hold bytes
/// (KccTypeConverter); the vendors' conversion instructions take them in
/// pairs (Float8Registers.cpp).
/// The elements of `v` (a scalar is one).
llvm::SmallVector<mlir::Value> elementsOf(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value v);
/// Replaces `op` by `values`, its converted result's registers (a scalar or
/// a vector).
void replaceWithRegisters(mlir::ConversionPatternRewriter &rewriter,
                          mlir::Operation *op, const mlir::TypeConverter &tc,
                          llvm::ArrayRef<mlir::Value> values);
/// `xs` converted two at a time by `convert(lo, hi)`, whose <2 x T> result
/// has lo's value first; an odd last element is paired with itself.
llvm::SmallVector<mlir::Value>
pairwise(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> xs,
         llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> convert);
/// The elements of `v` (f16, bf16 or f32) widened to f32, which is exact: a
/// cast to an 8-bit float then rounds once.
llvm::SmallVector<mlir::Value> f32ElementsOf(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value v);
/// `y` (an f16 or f32 holding an 8-bit float's value) as `out` (f16, bf16,
/// f32 or f64), through f32: exact, every 8-bit float being each of them.
mlir::Value fromFloat8Value(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value y, mlir::Type out);
/// 8-bit float constants (a masked load's `other`, a splat) as their bytes,
/// and the casts to and from 8-bit floats illegal: each vendor's patterns
/// lower those.
void populateFloat8ConstantPatterns(KccTypeConverter &tc,
                                    mlir::RewritePatternSet &patterns,
                                    mlir::ConversionTarget &target);

// The vendor-neutral pattern sets (TileOpsToLLVM.cpp, ReduceToLLVM.cpp,
// DotToFMA.cpp).
void populateTileOpPatterns(KccTypeConverter &tc,
                            mlir::RewritePatternSet &patterns);
void populateReducePatterns(KccTypeConverter &tc,
                            mlir::RewritePatternSet &patterns);
void populateAtomicPatterns(KccTypeConverter &tc,
                            mlir::RewritePatternSet &patterns);
void populateDotPatterns(KccTypeConverter &tc,
                         mlir::RewritePatternSet &patterns);
/// What kcc-convert-to-llvm (and kcc-allocate-shared-memory, for the default
/// limit) needs from a vendor (backends/nvidia, backends/amd register theirs;
/// the passes find it by their `vendor` option).
struct VendorLowering {
  std::function<std::unique_ptr<TargetOps>()> createTargetOps;
  /// Dynamic shared memory sized at launch (NVIDIA) or a static array (AMD).
  bool dynamicSharedMemory = false;
  /// The built-in target whose shared memory a block may use when the pass
  /// is given no limit.
  std::string defaultTarget;
  /// The vendor's patterns (tensor cores, async copies, ...).
  std::function<void(KccTypeConverter &, mlir::RewritePatternSet &)>
      populatePatterns;
  /// Rewrites the kcc.warp_specialize ops of a kernel with async IR into
  /// the branches its roles run (null: the vendor has none).
  std::function<void(mlir::func::FuncOp, const TargetOps &)> splitRoles;
};
void registerVendorLowering(llvm::StringRef vendor, VendorLowering lowering);
const VendorLowering *lookupVendorLowering(llvm::StringRef vendor);

} // namespace kcc::gpu

#endif
