//===- LoweringUtils.cpp - helpers shared by every vendor's lowering ------===//
//
// See LoweringUtils.h for the thread semantics of the blocked layout.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"
#include "ir/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

//===----------------------------------------------------------------------===//
// Layout and helpers
//===----------------------------------------------------------------------===//

TileLayout TileLayout::get(RankedTensorType type) {
  TileLayout l;
  // A wgmma accumulator: only its register count means anything here (splats
  // and elementwise ops); WarpgroupMmaToNVVM.cpp maps its registers.
  if (isAccumulatorLayout(type.getEncoding())) {
    l.numElems = type.getNumElements();
    l.threads = accumulatorThreads(type.getEncoding());
    l.warp = isa<MfmaAccLayoutAttr>(type.getEncoding()) ? 64 : 32;
    l.regs = accumulatorRegs(type);
    l.nchunks = l.numElems;
    return l;
  }
  auto enc = cast<BlockedLayoutAttr>(type.getEncoding());
  l.numElems = type.getNumElements();
  l.vec = enc.getEffectiveVec(l.numElems);
  l.threads = enc.getThreads();
  l.warp = enc.getWarp();
  l.regs = enc.getElemsPerThread(l.numElems);
  l.nchunks = l.numElems / l.vec;
  return l;
}

KccTypeConverter::KccTypeConverter(MLIRContext *ctx, const TargetOps &ops)
    : ops(ops) {
  addConversion([](Type t) { return t; });
  addConversion([ctx](PtrType t) -> Type {
    return LLVM::LLVMPointerType::get(ctx, t.getAddressSpace());
  });
  // Stages and mbarriers are shared-memory addresses; a tensor map is the
  // generic address of its grid-constant parameter.
  addConversion([ctx](SmemType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 3);
  });
  addConversion([ctx](MBarrierType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 3);
  });
  // A TMEM allocation is its 32-bit TMEM address.
  addConversion([ctx](TmemType) -> Type { return IntegerType::get(ctx, 32); });
  addConversion(
      [ctx](TensorMapType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  addConversion([](RankedTensorType t) -> std::optional<Type> {
    if (isAccumulatorLayout(t.getEncoding())) {
      // Pointers (a row scale's addresses) are 64-bit integers here too.
      Type elem = t.getElementType();
      return VectorType::get({accumulatorRegs(t)},
                             isa<PtrType>(elem) ? registerType(elem) : elem);
    }
    auto enc = dyn_cast_or_null<BlockedLayoutAttr>(t.getEncoding());
    if (!enc)
      return std::nullopt;
    Type elem = registerType(t.getElementType());
    return VectorType::get({enc.getElemsPerThread(t.getNumElements())}, elem);
  });
  // LLVM has no 8-bit floats: registers hold their bytes
  // (Float8ToNVVM.cpp, Float8ToROCDL.cpp convert them).
  addConversion([ctx](FloatType t) -> std::optional<Type> {
    if (!isFloat8(t))
      return std::nullopt;
    return IntegerType::get(ctx, 8);
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Value kcc::gpu::intConst(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}
Value kcc::gpu::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return intConst(b, loc, b.getI32Type(), v);
}
Value kcc::gpu::threadBase(OpBuilder &b, Location loc, const TileLayout &l,
                              Value tid) {
  Value t = tid;
  if (l.replicated())
    t = arith::AndIOp::create(b, loc, tid, i32Const(b, loc, l.nchunks - 1));
  if (l.vec == 1)
    return t;
  return arith::MulIOp::create(b, loc, t, i32Const(b, loc, l.vec));
}
Value kcc::gpu::flatIndex(OpBuilder &b, Location loc, const TileLayout &l,
                             Value base, unsigned r) {
  int64_t off = l.regOffset(r);
  if (off == 0)
    return base;
  return arith::AddIOp::create(b, loc, base, i32Const(b, loc, off));
}
Value kcc::gpu::ownerPred(OpBuilder &b, Location loc, const TileLayout &l,
                             Value tid) {
  if (!l.replicated())
    return Value();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                               i32Const(b, loc, l.nchunks));
}
Value kcc::gpu::extractElem(OpBuilder &b, Location loc, Value v, int64_t i) {
  return LLVM::ExtractElementOp::create(b, loc, v, i32Const(b, loc, i));
}
Value kcc::gpu::buildVector(OpBuilder &b, Location loc,
                               ArrayRef<Value> elems) {
  auto vt = VectorType::get({(int64_t)elems.size()}, elems[0].getType());
  Value v = LLVM::PoisonOp::create(b, loc, vt);
  for (auto [i, e] : llvm::enumerate(elems))
    v = LLVM::InsertElementOp::create(b, loc, v, e, i32Const(b, loc, i));
  return v;
}
Value kcc::gpu::splatVector(OpBuilder &b, Location loc, Value scalar,
                               unsigned n) {
  auto vt = VectorType::get({(int64_t)n}, scalar.getType());
  Value v = LLVM::PoisonOp::create(b, loc, vt);
  v = LLVM::InsertElementOp::create(b, loc, v, scalar, i32Const(b, loc, 0));
  SmallVector<int32_t> mask(n, 0);
  return LLVM::ShuffleVectorOp::create(b, loc, v, v, mask);
}
SmallVector<Value> kcc::gpu::unpack(OpBuilder &b, Location loc, Value v) {
  SmallVector<Value> out;
  auto vt = cast<VectorType>(v.getType());
  for (int64_t i = 0; i < vt.getNumElements(); ++i)
    out.push_back(extractElem(b, loc, v, i));
  return out;
}
std::string kcc::gpu::smemName(StringRef kernel) {
  return ("__kcc_smem_" + kernel).str();
}
Value kcc::gpu::smemBase(OpBuilder &b, Location loc, Operation *user) {
  Operation *fn = user->getParentWithTrait<OpTrait::SymbolTable>();
  (void)fn;
  StringRef name;
  if (auto f = user->getParentOfType<LLVM::LLVMFuncOp>())
    name = f.getName();
  else if (auto f = user->getParentOfType<func::FuncOp>())
    name = f.getName();
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), smemName(name));
}
Value kcc::gpu::scratchBase(const TargetOps &ops, OpBuilder &b, Location loc,
                            Operation *user) {
  Value base = smemBase(b, loc, user);
  Operation *fn = user->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  auto at = [&](Value offset) -> Value {
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{offset});
  };
  if (auto first =
          fn->getAttrOfType<IntegerAttr>(KccDialect::kScratchOffsetAttr))
    base = at(
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(first.getInt())));
  auto bytes = fn->getAttrOfType<IntegerAttr>(KccDialect::kScratchBytesAttr);
  Value g = bytes ? ops.consumerGroup(b, loc) : nullptr;
  if (!g)
    return base;
  return at(arith::MulIOp::create(
      b, loc, g,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(bytes.getInt()))));
}
Type kcc::gpu::storageType(Type elem) {
  // LLVM has no 8-bit float types: fp8 values are their bytes in memory.
  if (elem.isInteger(1) || isFloat8(elem))
    return IntegerType::get(elem.getContext(), 8);
  if (isa<PtrType, LLVM::LLVMPointerType>(elem))
    return IntegerType::get(elem.getContext(), 64);
  return elem;
}
Type kcc::gpu::registerType(Type elem) {
  if (isa<PtrType>(elem))
    return IntegerType::get(elem.getContext(), 64);
  if (isFloat8(elem))
    return IntegerType::get(elem.getContext(), 8);
  return elem;
}
unsigned kcc::gpu::storageBytes(Type elem) {
  return storageType(elem).getIntOrFloatBitWidth() / 8;
}
Value kcc::gpu::toStorage(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  return v;
}
Value kcc::gpu::fromStorage(OpBuilder &b, Location loc, Value v, Type elem) {
  if (elem.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 intConst(b, loc, v.getType(), 0));
  return v;
}
Value kcc::gpu::toGlobalPtr(OpBuilder &b, Location loc, Value i64,
                            unsigned as) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), as), i64);
}
Value kcc::gpu::andConditions(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(b, loc, x, y);
}
void kcc::gpu::emitIf(OpBuilder &b, Location loc, Value cond,
                         function_ref<void(OpBuilder &)> body) {
  if (!cond) {
    body(b);
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  body(b);
}
Value kcc::gpu::linearize(OpBuilder &b, Location loc, ArrayRef<Value> multi,
                             ArrayRef<int64_t> shape) {
  Value flat;
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      Value term = multi[d];
      if (stride != 1)
        term = arith::MulIOp::create(b, loc, term, i32Const(b, loc, stride));
      flat =
          flat ? arith::AddIOp::create(b, loc, flat, term).getResult() : term;
    }
    stride *= shape[d];
  }
  return flat ? flat : i32Const(b, loc, 0);
}
SmallVector<Value> kcc::gpu::delinearize(OpBuilder &b, Location loc,
                                            Value flat,
                                            ArrayRef<int64_t> shape) {
  SmallVector<Value> multi(shape.size());
  int64_t shift = 0;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value v = flat;
    if (shift)
      v = arith::ShRUIOp::create(b, loc, v, i32Const(b, loc, shift));
    if (d != 0)
      v = arith::AndIOp::create(b, loc, v, i32Const(b, loc, shape[d] - 1));
    multi[d] = v;
    shift += llvm::Log2_64(shape[d]);
  }
  return multi;
}

AxisReductionPlan AxisReductionPlan::get(const TileLayout &src,
                                         ArrayRef<int64_t> shape,
                                         int64_t axis) {
  AxisReductionPlan p;
  unsigned below = 0;
  for (int64_t d = shape.size() - 1; d > axis; --d)
    below += llvm::Log2_64(shape[d]);
  p.axisLo = below;
  p.axisHi = below + llvm::Log2_64(shape[axis]);
  p.outElems = src.numElems / shape[axis];
  int64_t axisMask =
      ((int64_t(1) << p.axisHi) - 1) & ~((int64_t(1) << p.axisLo) - 1);
  // Registers grouped by their offset outside the axis bits.
  llvm::SmallDenseMap<int64_t, unsigned> groupOf;
  for (unsigned r = 0; r < src.regs; ++r) {
    int64_t key = src.regOffset(r) & ~axisMask;
    auto [it, fresh] = groupOf.try_emplace(key, p.regGroups.size());
    if (fresh)
      p.regGroups.emplace_back();
    p.regGroups[it->second].push_back(r);
  }
  // Thread bit j is flat-index bit log2(vec) + j, for the threads that hold
  // distinct chunks (the others replicate them).
  unsigned vecBits = llvm::Log2_32(src.vec);
  unsigned threadBits =
      llvm::Log2_64(std::min<int64_t>(src.threads, src.nchunks));
  unsigned laneBits = llvm::Log2_32(src.warp);
  for (unsigned j = 0; j < threadBits; ++j) {
    unsigned e = vecBits + j;
    if (e < p.axisLo || e >= p.axisHi)
      continue;
    if (j < laneBits)
      p.laneMask |= 1u << j;
    else
      p.warpAxisBits.push_back(j);
  }
  return p;
}

unsigned kcc::gpu::reductionAccBytes(Type elem) {
  return std::max(4u, elem.getIntOrFloatBitWidth() / 8);
}

unsigned kcc::gpu::axisReductionLoadElems(const TileLayout &dst,
                                          unsigned accBytes) {
  unsigned n = dst.vec;
  while (n > 1 && (n * accBytes > 16 || dst.regs % n != 0))
    n /= 2;
  return n;
}

SmemPadding kcc::gpu::smemPaddingOf(Operation *op) {
  SmemPadding p;
  if (auto a = op->getAttrOfType<DenseI32ArrayAttr>(KccDialect::kSmemPaddingAttr)) {
    p.every = a[0];
    p.pad = a[1];
  }
  return p;
}

Value kcc::gpu::padIndex(OpBuilder &b, Location loc, Value flat,
                            const SmemPadding &padding) {
  if (padding.none())
    return flat;
  Type t = flat.getType();
  Value rows = arith::DivUIOp::create(b, loc, flat,
                                      intConst(b, loc, t, padding.every));
  Value extra =
      arith::MulIOp::create(b, loc, rows, intConst(b, loc, t, padding.pad));
  return arith::AddIOp::create(b, loc, flat, extra);
}

/// Writes a tile (converted vector `src` with layout `sl`) to shared memory
/// (owners only), then reads back the element `mapFlat(dstFlat)` for every
/// register of the destination layout. Barriers before the write (earlier
/// readers of the buffer are done) and after it (the data is visible).
Value kcc::gpu::relayoutThroughSmem(const TargetOps &ops, OpBuilder &b,
                                 Location loc, Operation *op, Value src,
                                 const TileLayout &sl, const TileLayout &dl,
                                 Type elem,
                                 function_ref<Value(Value)> mapFlat) {
  Type st = storageType(elem);
  unsigned bytes = storageBytes(elem);
  Value base = scratchBase(ops, b, loc, op);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value tid = ops.threadId(b, loc);
  SmemPadding padding = smemPaddingOf(op);
  ops.barrier(b, loc);
  SmallVector<Value> regs = unpack(b, loc, src);
  Value sBase = threadBase(b, loc, sl, tid);
  emitIf(b, loc, ownerPred(b, loc, sl, tid), [&](OpBuilder &ib) {
    for (unsigned r = 0; r < sl.regs; ++r) {
      Value flat = padIndex(ib, loc, flatIndex(ib, loc, sl, sBase, r), padding);
      Value addr = LLVM::GEPOp::create(ib, loc, ptr3, st, base, flat);
      LLVM::StoreOp::create(ib, loc, toStorage(ib, loc, regs[r]), addr, bytes);
    }
  });
  ops.barrier(b, loc);
  Value dBase = threadBase(b, loc, dl, tid);
  SmallVector<Value> out;
  for (unsigned r = 0; r < dl.regs; ++r) {
    Value sflat = padIndex(b, loc, mapFlat(flatIndex(b, loc, dl, dBase, r)),
                           padding);
    Value addr = LLVM::GEPOp::create(b, loc, ptr3, st, base, sflat);
    Value v = LLVM::LoadOp::create(b, loc, st, addr, bytes);
    out.push_back(fromStorage(b, loc, v, elem));
  }
  return buildVector(b, loc, out);
}

/// Shared-memory bytes of one op, before the padding of relayouts.
bool kcc::gpu::isArangeBroadcast(BroadcastOp op) {
  auto e = op.getSrc().getDefiningOp<ExpandDimsOp>();
  Attribute enc = op.getType().getEncoding();
  return e && e.getSrc().getDefiningOp<ArangeOp>() &&
         op.getType().getRank() == 2 &&
         (!isAccumulatorLayout(enc) || isa<WgmmaAccLayoutAttr>(enc));
}

bool kcc::gpu::isRowBroadcast(BroadcastOp op) {
  Attribute enc = op.getSrc().getType().getEncoding();
  return isa_and_nonnull<WgmmaAccLayoutAttr>(enc) &&
         enc == op.getType().getEncoding();
}

static int64_t unpaddedSmemBytes(Operation *op) {
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    auto src = bc.getSrc().getType();
    if (src.getNumElements() == 1 || isArangeBroadcast(bc) ||
        isRowBroadcast(bc) ||
        src.getNumElements() == bc.getType().getNumElements())
      return 0;
    return src.getNumElements() * storageBytes(src.getElementType());
  }
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
    auto src = cvt.getSrc().getType();
    return src.getNumElements() * storageBytes(src.getElementType());
  }
  if (auto tr = dyn_cast<TransOp>(op)) {
    auto src = tr.getSrc().getType();
    return src.getNumElements() * storageBytes(src.getElementType());
  }
  if (auto dot = dyn_cast<DotOp>(op))
    return dotScratch(dot).bytes;
  // Atomics whose old values are used by threads that did not read them
  // (AtomicsToLLVM.cpp): thread 0's scalar, a replicated tile's owners'.
  if (isa<AtomicRMWOp, AtomicCASOp>(op) && !op->getResult(0).use_empty()) {
    Type t = op->getResult(0).getType();
    auto tile = dyn_cast<RankedTensorType>(t);
    if (!tile)
      return storageBytes(t);
    if (TileLayout::get(tile).replicated())
      return tile.getNumElements() * storageBytes(tile.getElementType());
  }
  // A histogram's counters (AtomicsToLLVM.cpp).
  if (auto h = dyn_cast<HistogramOp>(op))
    return int64_t(h.getBins()) * 4;
  if (isa<ExpandDimsOp, ReshapeOp>(op)) {
    auto src = cast<RankedTensorType>(op->getOperand(0).getType());
    if (src.getEncoding() ==
        cast<RankedTensorType>(op->getResult(0).getType()).getEncoding())
      return 0;
    return src.getNumElements() * storageBytes(src.getElementType());
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    auto src = red.getSrc().getType();
    // A wgmma accumulator's rows: quad shuffles only; its columns: one
    // partial per warp and column (ReduceToLLVM.cpp).
    if (isa_and_nonnull<WgmmaAccLayoutAttr>(src.getEncoding()))
      return red.getAxis() == 0 && src.getRank() == 2
                 ? int64_t(accumulatorThreads(src.getEncoding()) / 32) *
                       src.getShape()[1] *
                       reductionAccBytes(src.getElementType())
                 : 0;
    if (src.getRank() == 1)
      return 32 * 8; // one partial per warp, at most 32 warps, 8 bytes each
    return AxisReductionPlan::get(TileLayout::get(src), src.getShape(),
                                  red.getAxis())
        .scratchBytes(reductionAccBytes(src.getElementType()));
  }
  return 0;
}

int64_t kcc::gpu::smemBytesFor(Operation *op) {
  int64_t bytes = unpaddedSmemBytes(op);
  SmemPadding padding = smemPaddingOf(op);
  if (bytes == 0 || padding.none())
    return bytes;
  auto src = cast<RankedTensorType>(op->getOperand(0).getType());
  unsigned elem = storageBytes(src.getElementType());
  return padding.elements(bytes / elem) * elem;
}

