//===- ConvertKccToLLVM.cpp - kcc layout IR -> LLVM + NVVM dialects
//---------===//
//
// The `kcc-convert-to-llvm` pass. See LoweringUtils.h for the thread
// semantics of the blocked layout, ReduceToLLVM.cpp for reductions and
// MathToNVVM.cpp for math functions.
//
//===----------------------------------------------------------------------===//
#include "backends/nvidia/LoweringUtils.h"
#include "backends/nvidia/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/MathExtras.h"

namespace kcc::nvidia {
#define GEN_PASS_DEF_CONVERTKCCTOLLVM
#include "backends/nvidia/Passes.h.inc"
} // namespace kcc::nvidia

using namespace mlir;
using namespace kcc;
using namespace kcc::nvidia;

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
  addConversion([ctx](RankedTensorType t) -> std::optional<Type> {
    if (isAccumulatorLayout(t.getEncoding()))
      return VectorType::get({accumulatorRegs(t)}, t.getElementType());
    auto enc = dyn_cast_or_null<BlockedLayoutAttr>(t.getEncoding());
    if (!enc)
      return std::nullopt;
    Type elem = t.getElementType();
    if (isa<PtrType>(elem))
      elem = IntegerType::get(ctx, 64);
    return VectorType::get({enc.getElemsPerThread(t.getNumElements())}, elem);
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Value kcc::nvidia::intConst(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}
Value kcc::nvidia::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return intConst(b, loc, b.getI32Type(), v);
}
Value kcc::nvidia::threadBase(OpBuilder &b, Location loc, const TileLayout &l,
                              Value tid) {
  Value t = tid;
  if (l.replicated())
    t = arith::AndIOp::create(b, loc, tid, i32Const(b, loc, l.nchunks - 1));
  if (l.vec == 1)
    return t;
  return arith::MulIOp::create(b, loc, t, i32Const(b, loc, l.vec));
}
Value kcc::nvidia::flatIndex(OpBuilder &b, Location loc, const TileLayout &l,
                             Value base, unsigned r) {
  int64_t off = l.regOffset(r);
  if (off == 0)
    return base;
  return arith::AddIOp::create(b, loc, base, i32Const(b, loc, off));
}
Value kcc::nvidia::ownerPred(OpBuilder &b, Location loc, const TileLayout &l,
                             Value tid) {
  if (!l.replicated())
    return Value();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                               i32Const(b, loc, l.nchunks));
}
Value kcc::nvidia::extractElem(OpBuilder &b, Location loc, Value v, int64_t i) {
  return LLVM::ExtractElementOp::create(b, loc, v, i32Const(b, loc, i));
}
Value kcc::nvidia::buildVector(OpBuilder &b, Location loc,
                               ArrayRef<Value> elems) {
  auto vt = VectorType::get({(int64_t)elems.size()}, elems[0].getType());
  Value v = LLVM::PoisonOp::create(b, loc, vt);
  for (auto [i, e] : llvm::enumerate(elems))
    v = LLVM::InsertElementOp::create(b, loc, v, e, i32Const(b, loc, i));
  return v;
}
Value kcc::nvidia::splatVector(OpBuilder &b, Location loc, Value scalar,
                               unsigned n) {
  auto vt = VectorType::get({(int64_t)n}, scalar.getType());
  Value v = LLVM::PoisonOp::create(b, loc, vt);
  v = LLVM::InsertElementOp::create(b, loc, v, scalar, i32Const(b, loc, 0));
  SmallVector<int32_t> mask(n, 0);
  return LLVM::ShuffleVectorOp::create(b, loc, v, v, mask);
}
SmallVector<Value> kcc::nvidia::unpack(OpBuilder &b, Location loc, Value v) {
  SmallVector<Value> out;
  auto vt = cast<VectorType>(v.getType());
  for (int64_t i = 0; i < vt.getNumElements(); ++i)
    out.push_back(extractElem(b, loc, v, i));
  return out;
}
std::string kcc::nvidia::smemName(StringRef kernel) {
  return ("__kcc_smem_" + kernel).str();
}
Value kcc::nvidia::smemBase(OpBuilder &b, Location loc, Operation *user) {
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
Type kcc::nvidia::storageType(Type elem) {
  if (elem.isInteger(1))
    return IntegerType::get(elem.getContext(), 8);
  if (isa<PtrType, LLVM::LLVMPointerType>(elem))
    return IntegerType::get(elem.getContext(), 64);
  return elem;
}
unsigned kcc::nvidia::storageBytes(Type elem) {
  return storageType(elem).getIntOrFloatBitWidth() / 8;
}
Value kcc::nvidia::toStorage(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  return v;
}
Value kcc::nvidia::fromStorage(OpBuilder &b, Location loc, Value v, Type elem) {
  if (elem.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 intConst(b, loc, v.getType(), 0));
  return v;
}
void kcc::nvidia::emitIf(OpBuilder &b, Location loc, Value cond,
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
Value kcc::nvidia::linearize(OpBuilder &b, Location loc, ArrayRef<Value> multi,
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
SmallVector<Value> kcc::nvidia::delinearize(OpBuilder &b, Location loc,
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

unsigned kcc::nvidia::axisReductionStoreElems(const TileLayout &l,
                                              unsigned elemBytes) {
  unsigned n = l.vec;
  while (n > 1 && (n * elemBytes > 16 || l.regs % n != 0))
    n /= 2;
  return n;
}

SmemPadding kcc::nvidia::smemPaddingOf(Operation *op) {
  SmemPadding p;
  if (auto a = op->getAttrOfType<DenseI32ArrayAttr>(KccDialect::kSmemPaddingAttr)) {
    p.every = a[0];
    p.pad = a[1];
  }
  return p;
}

Value kcc::nvidia::padIndex(OpBuilder &b, Location loc, Value flat,
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
static Value relayoutThroughSmem(const TargetOps &ops, OpBuilder &b,
                                 Location loc, Operation *op, Value src,
                                 const TileLayout &sl, const TileLayout &dl,
                                 Type elem,
                                 function_ref<Value(Value)> mapFlat) {
  Type st = storageType(elem);
  unsigned bytes = storageBytes(elem);
  Value base = smemBase(b, loc, op);
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
static int64_t unpaddedSmemBytes(Operation *op) {
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    auto src = bc.getSrc().getType();
    if (src.getNumElements() == 1 ||
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
  if (isa<ExpandDimsOp, ReshapeOp>(op)) {
    auto src = cast<RankedTensorType>(op->getOperand(0).getType());
    if (src.getEncoding() ==
        cast<RankedTensorType>(op->getResult(0).getType()).getEncoding())
      return 0;
    return src.getNumElements() * storageBytes(src.getElementType());
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    auto src = red.getSrc().getType();
    if (src.getRank() == 1)
      return 32 * 8; // one partial per warp, at most 32 warps, 8 bytes each
    return src.getNumElements() * storageBytes(src.getElementType());
  }
  return 0;
}

int64_t kcc::nvidia::smemBytesFor(Operation *op) {
  int64_t bytes = unpaddedSmemBytes(op);
  SmemPadding padding = smemPaddingOf(op);
  if (bytes == 0 || padding.none())
    return bytes;
  auto src = cast<RankedTensorType>(op->getOperand(0).getType());
  unsigned elem = storageBytes(src.getElementType());
  return padding.elements(bytes / elem) * elem;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

static TileLayout layoutOf(Type t) {
  return TileLayout::get(cast<RankedTensorType>(t));
}

struct FuncLowering : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &tc = *getTypeConverter();
    FunctionType ft = op.getFunctionType();
    if (ft.getNumResults() != 0)
      return op.emitError("kcc: functions returning values are not lowered "
                          "in kcc 0.1 (kernels return nothing)");
    TypeConverter::SignatureConversion sig(ft.getNumInputs());
    SmallVector<Type> argTypes;
    for (auto [i, t] : llvm::enumerate(ft.getInputs())) {
      Type nt = tc.convertType(t);
      if (!nt)
        return op.emitError("kcc: cannot lower argument type ") << t;
      sig.addInputs(i, nt);
      argTypes.push_back(nt);
    }
    auto llvmFt = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(getContext()), argTypes);
    // Keep discardable attributes (kcc.* are harmless for translation);
    // drop the builtin function ones.
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute a : op->getAttrs()) {
      StringRef n = a.getName().strref();
      if (n == op.getSymNameAttrName() || n == op.getFunctionTypeAttrName() ||
          n == op.getArgAttrsAttrName() || n == op.getResAttrsAttrName() ||
          n == "sym_visibility" || n == KccDialect::kKernelAttr)
        continue; // kcc.kernel only verifies on func.func; markKernel replaces
                  // it
      attrs.push_back(a);
    }
    auto fn = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), op.getName(),
                                       llvmFt, LLVM::Linkage::External, false,
                                       LLVM::CConv::C, nullptr, attrs);
    if (op->hasAttr(KccDialect::kKernelAttr)) {
      const TargetOps &ops = targetOpsOf(*this);
      unsigned warps = blockWarps(op);
      if (warps == 0)
        warps = 4;
      ops.markKernel(fn, warps * ops.warpSize());
      // setmaxnreg moves registers within the CTA's allocation: one CTA per
      // SM (.minnctapersm 1) makes ptxas allocate the most maxntid allows
      // (168 for 384 threads), the pool kcc-pipeline-tma-loads split
      // between the roles. Without it ptxas allocates what the code uses
      // and setmaxnreg.inc may wait for registers that never come.
      if (op->hasAttr(KccDialect::kProducerWarpsAttr))
        fn->setAttr("nvvm.minctasm", rewriter.getI32IntegerAttr(1));
    }
    // Argument facts: kcc.align -> llvm.align on pointers.
    for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
      if (auto al = op.getArgAttrOfType<IntegerAttr>(i, KccDialect::kAlignAttr))
        fn.setArgAttr(i, "llvm.align", rewriter.getI64IntegerAttr(al.getInt()));
      // A CUtensorMap: 128 bytes by value, 64-byte aligned, read in place.
      if (isa<TensorMapType>(ft.getInput(i))) {
        fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          rewriter.getI8Type(), 128)));
        fn.setArgAttr(i, "llvm.align", rewriter.getI64IntegerAttr(64));
        fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      rewriter.getUnitAttr());
      }
    }
    rewriter.inlineRegionBefore(op.getBody(), fn.getBody(), fn.end());
    if (failed(rewriter.convertRegionTypes(&fn.getBody(), tc, &sig)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnLowering : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

template <typename OpT, bool Ctaid>
struct GridIdLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TargetOps &ops = targetOpsOf(*this);
    unsigned axis = op.getAxis();
    rewriter.replaceOp(op, Ctaid ? ops.blockId(rewriter, op.getLoc(), axis)
                                 : ops.numBlocks(rewriter, op.getLoc(), axis));
    return success();
  }
};

struct ArangeLowering : OpConversionPattern<ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileLayout l = layoutOf(op.getType());
    Value base = threadBase(rewriter, loc, l,
                            targetOpsOf(*this).threadId(rewriter, loc));
    SmallVector<int32_t> offs;
    for (unsigned r = 0; r < l.regs; ++r)
      offs.push_back(int32_t(l.regOffset(r) + op.getStart()));
    auto vt = VectorType::get({(int64_t)l.regs}, rewriter.getI32Type());
    Value cst = arith::ConstantOp::create(
        rewriter, loc, vt, DenseElementsAttr::get(vt, ArrayRef<int32_t>(offs)));
    Value res = arith::AddIOp::create(
        rewriter, loc, splatVector(rewriter, loc, base, l.regs), cst);
    rewriter.replaceOp(op, res);
    return success();
  }
};

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value s = adaptor.getSrc();
    if (isa<LLVM::LLVMPointerType>(s.getType()))
      s = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), s);
    rewriter.replaceOp(
        op, splatVector(rewriter, loc, s, layoutOf(op.getType()).regs));
    return success();
  }
};

/// expand_dims and reshape keep the row-major element order.
template <typename OpT>
struct SameOrderLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpT::Adaptor;
  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = op.getSrc().getType();
    if (src.getEncoding() == op.getType().getEncoding()) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    // Different encodings for the same element count: same flat order,
    // different distribution -> through shared memory.
    Value v = relayoutThroughSmem(targetOpsOf(*this), rewriter, op.getLoc(), op,
                                  adaptor.getSrc(), layoutOf(src),
                                  layoutOf(op.getType()), src.getElementType(),
                                  [](Value f) { return f; });
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// Transpose: a relayout whose destination element (i, j) comes from source
/// element (j, i).
struct TransLowering : OpConversionPattern<TransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcT = op.getSrc().getType();
    auto dstT = op.getType();
    ArrayRef<int64_t> sshape = srcT.getShape(), dshape = dstT.getShape();
    Value v = relayoutThroughSmem(
        targetOpsOf(*this), rewriter, loc, op, adaptor.getSrc(),
        layoutOf(srcT), layoutOf(dstT), srcT.getElementType(), [&](Value f) {
          SmallVector<Value> ij = delinearize(rewriter, loc, f, dshape);
          return linearize(rewriter, loc, {ij[1], ij[0]}, sshape);
        });
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// A row or column vector (bias) broadcast into a wgmma accumulator's
/// layout (the GEMM epilogue, kcc::epilogueChain; the source is [1, N] or
/// [M, 1]): owners write the source to shared memory, then each accumulator
/// register reads its element's row or column (registerMap gives them).
static Value broadcastToAccumulator(const TargetOps &ops, OpBuilder &b,
                                    BroadcastOp op, Value src) {
  Location loc = op.getLoc();
  auto srcT = op.getSrc().getType();
  auto dstT = op.getType();
  Type elem = srcT.getElementType();
  Type st = storageType(elem);
  unsigned bytes = storageBytes(elem);
  Value base = smemBase(b, loc, op);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmemPadding padding = smemPaddingOf(op);
  Value tid = ops.threadId(b, loc);
  ops.barrier(b, loc);
  SmallVector<Value> regs = unpack(b, loc, src);
  RegisterMap in = registerMap(b, loc, srcT, tid);
  auto store = [&](OpBuilder &ib) {
    for (auto [r, flat] : llvm::enumerate(in.flat)) {
      Value addr = LLVM::GEPOp::create(ib, loc, ptr3, st, base,
                                       padIndex(ib, loc, flat, padding));
      LLVM::StoreOp::create(ib, loc, toStorage(ib, loc, regs[r]), addr, bytes);
    }
  };
  if (in.owner)
    emitIf(b, loc, in.owner, store);
  else
    store(b);
  ops.barrier(b, loc);
  // A [1, N] source is read at each register's column, [M, 1] at its row:
  // one load per distinct column (row) of the thread, shared by the
  // registers in it.
  RegisterMap out = registerMap(b, loc, dstT, tid);
  bool byColumn = srcT.getShape()[0] == 1;
  llvm::DenseMap<Value, Value> loaded;
  SmallVector<Value> vals;
  for (size_t r = 0; r < out.flat.size(); ++r) {
    Value index = byColumn ? out.cols[r] : out.rows[r];
    Value &v = loaded[index];
    if (!v) {
      Value addr = LLVM::GEPOp::create(b, loc, ptr3, st, base,
                                       padIndex(b, loc, index, padding));
      v = fromStorage(b, loc, LLVM::LoadOp::create(b, loc, st, addr, bytes),
                      elem);
    }
    vals.push_back(v);
  }
  return buildVector(b, loc, vals);
}

struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcT = op.getSrc().getType();
    auto dstT = op.getType();
    TileLayout sl = layoutOf(srcT), dl = layoutOf(dstT);
    if (srcT.getNumElements() == dstT.getNumElements() &&
        srcT.getEncoding() == dstT.getEncoding()) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    if (srcT.getNumElements() == 1) {
      // Every thread holds the single element in register 0.
      Value e = extractElem(rewriter, loc, adaptor.getSrc(), 0);
      rewriter.replaceOp(op, splatVector(rewriter, loc, e, dl.regs));
      return success();
    }
    ArrayRef<int64_t> sshape = srcT.getShape(), dshape = dstT.getShape();
    if (isAccumulatorLayout(dstT.getEncoding())) {
      rewriter.replaceOp(op,
                         broadcastToAccumulator(targetOpsOf(*this), rewriter,
                                                op, adaptor.getSrc()));
      return success();
    }
    Value v = relayoutThroughSmem(
        targetOpsOf(*this), rewriter, loc, op, adaptor.getSrc(), sl, dl,
        srcT.getElementType(), [&](Value dflat) {
          SmallVector<Value> multi = delinearize(rewriter, loc, dflat, dshape);
          return linearize(rewriter, loc, multi, sshape);
        });
    rewriter.replaceOp(op, v);
    return success();
  }
};

static unsigned pointeeBytes(Type ptrLike) {
  auto p = cast<PtrType>(getElementTypeOrSelf(ptrLike));
  return storageBytes(p.getPointeeType());
}

struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = cast<PtrType>(getElementTypeOrSelf(op.getPtr().getType()))
                       .getPointeeType();
    if (!isa<RankedTensorType>(op.getType())) {
      Value r = LLVM::GEPOp::create(rewriter, loc, adaptor.getPtr().getType(),
                                    storageType(pointee), adaptor.getPtr(),
                                    ValueRange{adaptor.getOffset()});
      rewriter.replaceOp(op, r);
      return success();
    }
    Value off = adaptor.getOffset();
    auto ovt = cast<VectorType>(off.getType());
    auto i64v = VectorType::get(ovt.getShape(), rewriter.getI64Type());
    if (ovt.getElementTypeBitWidth() < 64)
      off = arith::ExtSIOp::create(rewriter, loc, i64v, off);
    unsigned bytes = pointeeBytes(op.getPtr().getType());
    if (bytes != 1) {
      Value c = arith::ConstantOp::create(
          rewriter, loc, i64v, DenseElementsAttr::get(i64v, APInt(64, bytes)));
      off = arith::MulIOp::create(rewriter, loc, off, c);
    }
    rewriter.replaceOp(
        op, arith::AddIOp::create(rewriter, loc, adaptor.getPtr(), off));
    return success();
  }
};

static unsigned accessWidth(Operation *op, const TileLayout &l,
                            unsigned bytes) {
  unsigned k = 1;
  if (auto a = op->getAttrOfType<IntegerAttr>(KccDialect::kAccessWidthAttr))
    k = a.getInt();
  // Chunks of K consecutive registers must be consecutive elements.
  while (k > 1 && (l.vec % k != 0 || l.regs % k != 0))
    k /= 2;
  (void)bytes;
  return k;
}

/// The conjunction of i1 values.
static Value allOf(OpBuilder &b, Location loc, ArrayRef<Value> bits) {
  Value all = bits.front();
  for (Value bit : bits.drop_front())
    all = arith::AndIOp::create(b, loc, all, bit);
  return all;
}

/// The address (i64) of register `i` of the access chunk that starts at
/// register `g`: the access width makes a chunk's elements consecutive, so it
/// is ptrs[g] plus the element offset. Deriving it from ptrs[g] leaves the
/// other registers' address arithmetic dead, which matters for ragged chunks
/// (their per-element fallback would otherwise keep every address live).
static Value chunkAddress(OpBuilder &b, Location loc, ArrayRef<Value> ptrs,
                          unsigned g, unsigned i, unsigned bytes) {
  if (i == g)
    return ptrs[g];
  return arith::AddIOp::create(
      b, loc, ptrs[g],
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr((i - g) * bytes)));
}

static Value toGlobalPtr(OpBuilder &b, Location loc, Value i64, unsigned as) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), as), i64);
}

struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getType());
    Type st = storageType(elem);
    unsigned bytes = storageBytes(elem);
    auto ptrT = cast<PtrType>(getElementTypeOrSelf(op.getPtr().getType()));
    unsigned as = ptrT.getAddressSpace();

    // Loads `n` elements at `addr` if `cond` (null: always), else `fallback`.
    auto emitLoad = [&](Value addr, unsigned n, Value cond,
                        ArrayRef<Value> fallback) -> SmallVector<Value> {
      Type lt = n == 1 ? st : (Type)VectorType::get({(int64_t)n}, st);
      auto doLoad = [&](OpBuilder &b) -> Value {
        return LLVM::LoadOp::create(b, loc, lt, addr, n * bytes);
      };
      Value v;
      if (!cond) {
        v = doLoad(rewriter);
      } else {
        auto ifOp = scf::IfOp::create(
            rewriter, loc, cond,
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(b, l, doLoad(b));
            },
            [&](OpBuilder &b, Location l) {
              SmallVector<Value> fb;
              for (Value f : fallback)
                fb.push_back(toStorage(b, l, f));
              Value y = n == 1 ? fb[0] : buildVector(b, l, fb);
              scf::YieldOp::create(b, l, y);
            });
        v = ifOp.getResult(0);
      }
      SmallVector<Value> out;
      if (n == 1)
        out.push_back(fromStorage(rewriter, loc, v, elem));
      else
        for (Value e : unpack(rewriter, loc, v))
          out.push_back(fromStorage(rewriter, loc, e, elem));
      return out;
    };
    auto zero = [&]() -> Value {
      if (isa<FloatType>(elem))
        return arith::ConstantOp::create(rewriter, loc, elem,
                                         rewriter.getFloatAttr(elem, 0.0));
      return intConst(rewriter, loc, elem, 0);
    };

    if (!isa<RankedTensorType>(op.getType())) {
      SmallVector<Value> fb{adaptor.getOther() ? adaptor.getOther() : zero()};
      auto r = emitLoad(adaptor.getPtr(), 1, adaptor.getMask(), fb);
      rewriter.replaceOp(op, r[0]);
      return success();
    }
    TileLayout l = layoutOf(op.getType());
    unsigned k = accessWidth(op, l, bytes);
    unsigned piece = std::max(1u, std::min(k, 16u / bytes));
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpack(rewriter, loc, adaptor.getOther());
    Value z = zero();
    SmallVector<Value> result;
    auto fallbackOf = [&](unsigned i) {
      return others.empty() ? z : others[i];
    };
    // Loads registers [g, g+k) in pieces of vector width, guarded by `cond`.
    auto loadChunk = [&](unsigned g, Value cond) {
      SmallVector<Value> vals;
      for (unsigned p = g; p < g + k; p += piece) {
        SmallVector<Value> fb;
        for (unsigned i = p; i < p + piece; ++i)
          fb.push_back(fallbackOf(i));
        Value addr = toGlobalPtr(
            rewriter, loc, chunkAddress(rewriter, loc, ptrs, g, p, bytes), as);
        auto piecesVals = emitLoad(addr, piece, cond, fb);
        vals.append(piecesVals.begin(), piecesVals.end());
      }
      return vals;
    };
    bool uniform =
        masks.empty() || k == 1 || op->hasAttr(KccDialect::kMaskUniformAttr);
    for (unsigned g = 0; g < l.regs; g += k) {
      if (uniform) {
        auto vals = loadChunk(g, masks.empty() ? Value() : masks[g]);
        result.append(vals.begin(), vals.end());
        continue;
      }
      // The mask may change inside the chunk (a ragged tail): one vector
      // access when all k lanes are on, else per-element masked accesses.
      Value all = allOf(rewriter, loc, ArrayRef<Value>(masks).slice(g, k));
      auto ifOp =
          scf::IfOp::create(rewriter, loc, SmallVector<Type>(k, elem), all,
                            /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(rewriter, loc, loadChunk(g, Value()));
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      SmallVector<Value> vals;
      for (unsigned i = g; i < g + k; ++i)
        vals.push_back(
            emitLoad(toGlobalPtr(rewriter, loc,
                                 chunkAddress(rewriter, loc, ptrs, g, i, bytes),
                                 as),
                     1, masks[i], {fallbackOf(i)})[0]);
      scf::YieldOp::create(rewriter, loc, vals);
      rewriter.setInsertionPointAfter(ifOp);
      result.append(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    rewriter.replaceOp(op, buildVector(rewriter, loc, result));
    return success();
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getValue().getType());
    unsigned bytes = storageBytes(elem);
    auto ptrT = cast<PtrType>(getElementTypeOrSelf(op.getPtr().getType()));
    unsigned as = ptrT.getAddressSpace();
    Value tid = targetOpsOf(*this).threadId(rewriter, loc);
    auto andCond = [&](Value a, Value b) -> Value {
      if (!a)
        return b;
      if (!b)
        return a;
      return arith::AndIOp::create(rewriter, loc, a, b);
    };

    if (!isa<RankedTensorType>(op.getValue().getType())) {
      // Uniform scalar: thread 0 stores.
      Value first =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid,
                                i32Const(rewriter, loc, 0));
      Value cond = andCond(first, adaptor.getMask());
      Value v = adaptor.getValue();
      Value p = adaptor.getPtr();
      emitIf(rewriter, loc, cond, [&](OpBuilder &b) {
        LLVM::StoreOp::create(b, loc, toStorage(b, loc, v), p, bytes);
      });
      rewriter.eraseOp(op);
      return success();
    }
    TileLayout l = layoutOf(op.getValue().getType());
    unsigned k = accessWidth(op, l, bytes);
    unsigned piece = std::max(1u, std::min(k, 16u / bytes));
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> vals = unpack(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    Value owner = ownerPred(rewriter, loc, l, tid);
    // Stores registers [p, p+n) of the chunk starting at g as one access.
    auto storePiece = [&](OpBuilder &b, unsigned g, unsigned p, unsigned n) {
      Value addr = toGlobalPtr(b, loc, chunkAddress(b, loc, ptrs, g, p, bytes),
                               as);
      SmallVector<Value> sv;
      for (unsigned i = p; i < p + n; ++i)
        sv.push_back(toStorage(b, loc, vals[i]));
      Value v = n == 1 ? sv[0] : buildVector(b, loc, sv);
      LLVM::StoreOp::create(b, loc, v, addr, n * bytes);
    };
    bool uniform =
        masks.empty() || k == 1 || op->hasAttr(KccDialect::kMaskUniformAttr);
    for (unsigned g = 0; g < l.regs; g += k) {
      if (uniform) {
        Value cond = andCond(owner, masks.empty() ? Value() : masks[g]);
        for (unsigned p = g; p < g + k; p += piece)
          emitIf(rewriter, loc, cond,
                 [&](OpBuilder &b) { storePiece(b, g, p, piece); });
        continue;
      }
      // Ragged chunk: vector stores when all k lanes are on, else per element.
      Value all = allOf(rewriter, loc, ArrayRef<Value>(masks).slice(g, k));
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(), all,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      for (unsigned p = g; p < g + k; p += piece)
        emitIf(rewriter, loc, owner,
               [&](OpBuilder &b) { storePiece(b, g, p, piece); });
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      for (unsigned i = g; i < g + k; ++i)
        emitIf(rewriter, loc, andCond(owner, masks[i]),
               [&](OpBuilder &b) { storePiece(b, g, i, 1); });
      rewriter.setInsertionPointAfter(ifOp);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// arith.constant on tiles: splat constants only.
struct ConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tt = dyn_cast<RankedTensorType>(op.getType());
    if (!tt)
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return op.emitError("kcc: non-splat constant tiles are not lowered in "
                          "kcc 0.1");
    auto vt = cast<VectorType>(getTypeConverter()->convertType(tt));
    auto attr = DenseElementsAttr::get(vt, dense.getSplatValue<Attribute>());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, vt, attr);
    return success();
  }
};

/// Any other arith/math op on tiles or pointers: the same op on the
/// per-thread registers (vector types), lowered later by arith/math-to-llvm.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
    if ((ns != "arith" && ns != "math") || op->getNumRegions() != 0 ||
        isa<arith::ConstantOp>(op))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState st(op->getLoc(), op->getName().getStringRef(), operands,
                      types, op->getAttrs());
    Operation *n = rewriter.create(st);
    rewriter.replaceOp(op, n->getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertKccToLLVMPass
    : kcc::nvidia::impl::ConvertKccToLLVMBase<ConvertKccToLLVMPass> {
  using ConvertKccToLLVMBase::ConvertKccToLLVMBase;
  void runOnOperation() override;
};

/// Where a kernel's shared memory lives and how much a block may use.
struct SharedMemoryPlan {
  /// NVIDIA: dynamic shared memory (sized at launch), the only way past the
  /// 48 KiB of static shared memory. AMD: a static LDS array.
  bool dynamic = true;
  int64_t limit = 0; // bytes per block
  std::string target; // for messages: "sm_90a", or "this target"
};

/// Rejects what this version does not lower, with a clear message, and
/// creates each kernel's shared-memory buffer.
static LogicalResult prepare(ModuleOp module, const TargetOps &ops,
                             const SharedMemoryPlan &plan) {
  bool ok = true;
  OpBuilder b(module.getContext());
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    int64_t smem = 0;
    fn.walk([&](Operation *op) {
      // The FMA lowering of dot stages a and b in shared memory: name the
      // dot that does not fit, not only the kernel's total.
      if (auto dot = dyn_cast<DotOp>(op)) {
        int64_t bytes = dotScratch(dot).bytes;
        if (bytes > plan.limit) {
          auto shape = [](RankedTensorType t) {
            std::string s;
            llvm::raw_string_ostream os(s);
            llvm::interleave(t.getShape(), os, "x");
            os << " " << t.getElementType();
            return s;
          };
          dot.emitError("kcc: dot needs ")
              << bytes << " bytes of shared memory for a ("
              << shape(dot.getA().getType()) << ") and b ("
              << shape(dot.getB().getType()) << "), which its "
              << (isAccumulatorLayout(dot.getC().getType().getEncoding())
                      ? "tensor-core"
                      : "CUDA-core")
              << " lowering stages there: more than "
                 "the "
              << plan.limit << " bytes one block may use on " << plan.target
              << "; use smaller tiles (e.g. a loop over K)";
          ok = false;
          return;
        }
      }
      if (isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op>(op) &&
          !ops.hasF64Transcendentals() &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF64()) {
        op->emitError("kcc: ")
            << op->getName().stripDialect()
            << " on f64 is not supported on AMD targets yet (it needs the "
               "ROCm device libraries, which kcc does not link); compute it "
               "in f32 with cast(x, f32)";
        ok = false;
        return;
      }
      if (isa<func::CallOp, func::CallIndirectOp>(op)) {
        op->emitError("kcc: calls are not lowered in kcc 0.1 (inline first)");
        ok = false;
        return;
      }
      auto check = [&](Type t) {
        auto tt = dyn_cast<RankedTensorType>(t);
        if (!tt)
          return;
        if (isAccumulatorLayout(tt.getEncoding())) {
          // Only these ops know the accumulator's register mapping.
          // Elementwise arith/math ops work register by register.
          bool elementwise =
              isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
                  op->getDialect());
          if (!elementwise &&
              !isa<WarpgroupMmaOp, WarpgroupMmaWaitOp, WarpMmaOp, DotOp,
                   TmemLoadOp, ConvertLayoutOp, SmemStoreOp, SplatOp,
                   BroadcastOp, scf::ForOp, scf::IfOp, scf::YieldOp>(op)) {
            op->emitError("kcc: internal error: ")
                << op->getName()
                << " on an MMA accumulator (only dot, warpgroup_mma, its "
                   "wait, warp_mma, convert_layout, smem_store, splat, "
                   "broadcast, "
                   "elementwise arith/math and control flow handle that "
                   "layout)";
            ok = false;
          } else if (ops.warpSize() !=
                     (isa<MfmaAccLayoutAttr>(tt.getEncoding()) ? 64u : 32u)) {
            op->emitError("kcc: internal error: ")
                << tt.getEncoding() << " on a target with " << ops.warpSize()
                << "-lane warps";
            ok = false;
          }
          return;
        }
        auto enc = dyn_cast_or_null<BlockedLayoutAttr>(tt.getEncoding());
        if (!enc) {
          op->emitError("kcc: tile type ")
              << t
              << " has no #kcc.blocked layout (run layout assignment "
                 "before kcc-convert-to-llvm)";
          ok = false;
        } else if (enc.getWarp() != ops.warpSize()) {
          op->emitError("kcc: layout warp = ")
              << enc.getWarp() << " does not match the target's "
              << ops.warpSize() << "-lane "
              << (ops.warpSize() == 64 ? "waves" : "warps")
              << " (assign layouts for this target)";
          ok = false;
        }
      };
      for (Type t : op->getResultTypes())
        check(t);
      for (Type t : op->getOperandTypes())
        check(t);
      smem = std::max(smem, smemBytesFor(op));
    });
    bool async = hasAsyncOps(fn);
    if (async && ops.warpSize() != 32) {
      fn.emitError("kcc: TMA copies and mbarriers are NVIDIA (sm_90+) "
                   "operations; this kernel was materialized for another "
                   "target");
      ok = false;
    }
    for (Type t : fn.getArgumentTypes())
      if (isa<TensorMapType>(t) && ops.warpSize() != 32) {
        fn.emitError("kcc: tensor map arguments exist on NVIDIA targets only");
        ok = false;
      }
    int64_t scratch = smem, alignment = 16;
    if (async) {
      smem = prepareAsyncBuffers(fn, smem, alignment);
      splitRoles(fn, ops);
    }
    if (smem > plan.limit) {
      auto diag = fn.emitError("kcc: kernel needs ")
                  << smem << " bytes of shared memory (" << scratch
                  << " for layout conversions and reductions";
      if (async)
        diag << ", " << smem - scratch << " for TMA stages and mbarriers";
      diag << "), more than the " << plan.limit
           << " bytes one block may use on " << plan.target;
      ok = false;
    }
    if (smem > 0) {
      b.setInsertionPoint(fn);
      if (plan.dynamic) {
        // `extern __shared__`: a zero-sized external array is PTX's
        // `.extern .shared` (dynamic shared memory, sized by the launch).
        // 1024-byte aligned, so swizzled stages at 1024-byte offsets are
        // aligned too, whatever the kernel holds.
        LLVM::GlobalOp::create(
            b, fn.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
            /*isConstant=*/false, LLVM::Linkage::External,
            smemName(fn.getName()), Attribute(), /*alignment=*/1024,
            /*addrSpace=*/3);
        fn->setAttr(KccDialect::kDynamicSmemBytesAttr,
                    b.getI64IntegerAttr(smem));
      } else {
        auto arr = LLVM::LLVMArrayType::get(b.getI8Type(), smem);
        LLVM::GlobalOp::create(b, fn.getLoc(), arr, /*isConstant=*/false,
                               LLVM::Linkage::Internal,
                               smemName(fn.getName()), Attribute(),
                               /*alignment=*/alignment, /*addrSpace=*/3);
      }
    }
  }
  return success(ok);
}

void ConvertKccToLLVMPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  std::unique_ptr<TargetOps> ops;
  if (vendor == "nvidia") {
    ops = createNVVMTargetOps();
  } else if (vendor == "amd") {
    ops = createROCDLTargetOps();
  } else {
    module.emitError("kcc-convert-to-llvm: unknown vendor '")
        << vendor << "'; valid vendors are nvidia and amd";
    return signalPassFailure();
  }
  SharedMemoryPlan plan;
  plan.dynamic = vendor == "nvidia";
  plan.limit = maxSharedBytes;
  if (plan.limit <= 0) {
    const TargetModel *model =
        TargetRegistry::builtin().lookup(plan.dynamic ? "sm_90a" : "gfx942");
    plan.limit = model ? model->sharedMemory.bytesPerBlock : 48 * 1024;
  }
  auto targetName = module->getAttrOfType<StringAttr>(KccDialect::kTargetAttr);
  plan.target = targetName ? targetName.str() : "this target";
  if (failed(prepare(module, *ops, plan)))
    return signalPassFailure();

  KccTypeConverter tc(ctx, *ops);
  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect>();
  ops->addLegalDialects(target);
  target.addLegalOp<ModuleOp, UnrealizedConversionCastOp>();
  target.addIllegalDialect<KccDialect, func::FuncDialect>();
  target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
      [&](Operation *op) { return tc.isLegal(op); });

  RewritePatternSet patterns(ctx);
  patterns.add<FuncLowering, ReturnLowering, GridIdLowering<ProgramIdOp, true>,
               GridIdLowering<NumProgramsOp, false>, ArangeLowering,
               SplatLowering, SameOrderLowering<ExpandDimsOp>,
               SameOrderLowering<ReshapeOp>, TransLowering, BroadcastLowering,
               AddPtrLowering, LoadLowering, StoreLowering, ConstantLowering>(
      tc, ctx);
  patterns.add<ElementwiseLowering>(tc, ctx);
  populateReducePatterns(tc, patterns);
  populateDotPatterns(tc, patterns);
  populateDotMmaSyncPatterns(tc, patterns);
  populateDotMfmaPatterns(tc, patterns);
  populateAsyncPatterns(tc, patterns);
  populateWarpgroupMmaPatterns(tc, patterns);
  populateTcgen05Patterns(tc, patterns);
  ops->addMathPatterns(tc, patterns, target);
  scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);

  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return signalPassFailure();
}

} // namespace
