//===- TileOpsToLLVM.cpp - tile IR ops -> LLVM dialect, for every vendor --===//
//
// The vendor-neutral patterns of kcc-convert-to-llvm: kernels and their
// arguments, program ids, arange/splat/broadcast/trans/reshape, pointer
// arithmetic, masked vector loads and stores, constants and elementwise
// arith/math on the per-thread registers of a layout. What differs between
// vendors goes through TargetOps (LoweringUtils.h).
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
      if (auto n = op->getAttrOfType<IntegerAttr>(KccDialect::kClusterAttr);
          n && !ops.markCluster(fn, unsigned(n.getInt())))
        return op.emitError("kcc: internal error: clusters on a target "
                            "without them");
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
        targetOpsOf(*this).markTensorMapArg(fn, i);
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
    // A row vector of a wgmma accumulator (kcc-rematerialize-broadcasts
    // computes row scales there): each register holds its row.
    if (isAccumulatorLayout(op.getType().getEncoding())) {
      RegisterMap map = registerMap(rewriter, loc, op.getType(),
                                    targetOpsOf(*this).threadId(rewriter, loc));
      SmallVector<Value> rows;
      for (Value r : map.rows)
        rows.push_back(
            op.getStart()
                ? arith::AddIOp::create(rewriter, loc, r,
                                        i32Const(rewriter, loc, op.getStart()))
                      .getResult()
                : r);
      rewriter.replaceOp(op, buildVector(rewriter, loc, rows));
      return success();
    }
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
  Value base = scratchBase(ops, b, loc, op);
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

  /// An expanded arange broadcast to 2-D (what kcc-rematerialize-broadcasts
  /// leaves of index math): each element is its own coordinate along the
  /// arange's axis plus the start, so nothing moves between threads. Null
  /// for any other broadcast.
  Value broadcastArange(ConversionPatternRewriter &b, Location loc,
                        BroadcastOp op, const TileLayout &dl) const {
    if (!isArangeBroadcast(op))
      return Value();
    auto a = op.getSrc()
                 .getDefiningOp<ExpandDimsOp>()
                 .getSrc()
                 .getDefiningOp<ArangeOp>();
    ArrayRef<int64_t> sshape = op.getSrc().getType().getShape();
    int64_t cols = op.getType().getShape()[1];
    // In a wgmma accumulator: each register's row or column from the
    // layout's register map.
    if (isAccumulatorLayout(op.getType().getEncoding())) {
      RegisterMap map = registerMap(b, loc, op.getType(),
                                    targetOpsOf(*this).threadId(b, loc));
      SmallVector<Value> coords;
      for (unsigned r = 0; r < map.flat.size(); ++r) {
        Value c = sshape[0] == 1 ? map.cols[r] : map.rows[r];
        if (a.getStart() != 0)
          c = arith::AddIOp::create(b, loc, c, i32Const(b, loc, a.getStart()));
        coords.push_back(c);
      }
      return buildVector(b, loc, coords);
    }
    SmallVector<int32_t> offs;
    for (unsigned r = 0; r < dl.regs; ++r)
      offs.push_back(int32_t(dl.regOffset(r)));
    auto vt = VectorType::get({(int64_t)dl.regs}, b.getI32Type());
    auto splat = [&](int64_t c) {
      return arith::ConstantOp::create(
          b, loc, vt, DenseElementsAttr::get(vt, b.getI32IntegerAttr(c)));
    };
    Value base = threadBase(b, loc, dl, targetOpsOf(*this).threadId(b, loc));
    Value flat = arith::AddIOp::create(
        b, loc, splatVector(b, loc, base, dl.regs),
        arith::ConstantOp::create(
            b, loc, vt, DenseElementsAttr::get(vt, ArrayRef<int32_t>(offs))));
    // The row-major flat index f of an R x C tile (C a power of two) is in
    // column f & (C - 1), row f >> log2(C).
    Value coord =
        sshape[0] == 1
            ? arith::AndIOp::create(b, loc, flat, splat(cols - 1)).getResult()
            : arith::ShRUIOp::create(b, loc, flat, splat(llvm::Log2_64(cols)))
                  .getResult();
    if (a.getStart() != 0)
      coord = arith::AddIOp::create(b, loc, coord, splat(a.getStart()));
    return coord;
  }

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
    // A row vector of a wgmma accumulator over its columns: register i of
    // each 64-row block lies in the block's row 8 * ((i / 2) % 2), which
    // the thread holds (isWgmmaRowSlice).
    if (isRowBroadcast(op)) {
      SmallVector<Value> rows = unpack(rewriter, loc, adaptor.getSrc());
      int64_t perBlock = dshape[1] / 2;
      SmallVector<Value> out;
      for (unsigned r = 0; r < dl.regs; ++r)
        out.push_back(rows[2 * (r / perBlock) + (r % perBlock / 2) % 2]);
      rewriter.replaceOp(op, buildVector(rewriter, loc, out));
      return success();
    }
    if (Value v = broadcastArange(rewriter, loc, op, dl)) {
      rewriter.replaceOp(op, v);
      return success();
    }
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

/// Whether all of a chunk's mask bits are on: its two ends when the mask is
/// on for a prefix or suffix of every chunk (kcc.mask_monotone, set by
/// kcc-assign-layouts), else every bit.
static Value chunkAllOn(OpBuilder &b, Location loc, Operation *access,
                        ArrayRef<Value> chunk) {
  if (access->hasAttr(KccDialect::kMaskMonotoneAttr))
    return arith::AndIOp::create(b, loc, chunk.front(), chunk.back());
  return allOf(b, loc, chunk);
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
      if (isFloat8(elem)) // +0 is the zero byte in both formats
        return intConst(rewriter, loc, rewriter.getI8Type(), 0);
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
    // Runs of one address (a broadcast along the innermost dimension): one
    // load per run, issued if any of its elements is on.
    unsigned run = 1;
    if (auto u = op->getAttrOfType<IntegerAttr>(KccDialect::kAccessUniformAttr);
        u && k == 1) {
      run = u.getInt();
      while (run > 1 && (l.vec % run != 0 || l.regs % run != 0))
        run /= 2;
    }
    if (run > 1) {
      for (unsigned g = 0; g < l.regs; g += run) {
        Value any;
        for (unsigned i = g; !masks.empty() && i < g + run; ++i)
          any = any ? arith::OrIOp::create(rewriter, loc, any, masks[i])
                    : masks[i];
        Value v = emitLoad(toGlobalPtr(rewriter, loc, ptrs[g], as), 1, any,
                           {fallbackOf(g)})[0];
        for (unsigned i = g; i < g + run; ++i)
          result.push_back(masks.empty() ? v
                                         : arith::SelectOp::create(
                                               rewriter, loc, masks[i], v,
                                               fallbackOf(i)));
      }
      rewriter.replaceOp(op, buildVector(rewriter, loc, result));
      return success();
    }
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
      Value all =
          chunkAllOn(rewriter, loc, op, ArrayRef<Value>(masks).slice(g, k));
      auto ifOp = scf::IfOp::create(
          rewriter, loc, SmallVector<Type>(k, registerType(elem)), all,
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

/// Whether the kernel around `op` loads a scalar from memory (the ops not
/// converted yet are still kcc.load; converted ones stay in the IR until
/// the conversion ends).
static bool loadsScalars(Operation *op) {
  Operation *func = op->getParentOfType<FunctionOpInterface>();
  if (!func)
    return true;
  return func
      ->walk([](LoadOp load) {
        return isa<RankedTensorType>(load.getType()) ? WalkResult::advance()
                                                     : WalkResult::interrupt();
      })
      .wasInterrupted();
}

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  /// loadsScalars per kernel, computed at its first scalar store: its
  /// kcc.load ops stay in the IR until the conversion ends, so the answer
  /// does not change while the kernel's stores are converted.
  mutable llvm::DenseMap<Operation *, bool> scalarLoads;
  bool kernelLoadsScalars(Operation *op) const {
    Operation *func = op->getParentOfType<FunctionOpInterface>();
    auto [it, inserted] = scalarLoads.try_emplace(func, false);
    if (inserted)
      it->second = loadsScalars(op);
    return it->second;
  }

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getValue().getType());
    unsigned bytes = storageBytes(elem);
    auto ptrT = cast<PtrType>(getElementTypeOrSelf(op.getPtr().getType()));
    unsigned as = ptrT.getAddressSpace();
    Value tid = targetOpsOf(*this).threadId(rewriter, loc);

    if (!isa<RankedTensorType>(op.getValue().getType())) {
      // Uniform scalar: thread 0 stores. Every thread loads a scalar, so
      // where the kernel loads one, the others may not have read yet what
      // thread 0 now overwrites (`let t = load(p); store(p, t + 1)`): a
      // barrier first keeps the loaded value uniform (the simulators'
      // global race check found this in a ticket lock's critical section).
      if (kernelLoadsScalars(op))
        targetOpsOf(*this).barrier(rewriter, loc);
      Value first =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid,
                                i32Const(rewriter, loc, 0));
      Value cond = andConditions(rewriter, loc, first, adaptor.getMask());
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
        Value cond = andConditions(rewriter, loc, owner,
                                   masks.empty() ? Value() : masks[g]);
        for (unsigned p = g; p < g + k; p += piece)
          emitIf(rewriter, loc, cond,
                 [&](OpBuilder &b) { storePiece(b, g, p, piece); });
        continue;
      }
      // Ragged chunk: vector stores when all k lanes are on, else per element.
      Value all =
          chunkAllOn(rewriter, loc, op, ArrayRef<Value>(masks).slice(g, k));
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(), all,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      for (unsigned p = g; p < g + k; p += piece)
        emitIf(rewriter, loc, owner,
               [&](OpBuilder &b) { storePiece(b, g, p, piece); });
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      for (unsigned i = g; i < g + k; ++i)
        emitIf(rewriter, loc, andConditions(rewriter, loc, owner, masks[i]),
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

/// kcc.convert_layout between register layouts (an MMA accumulator and
/// #kcc.blocked, either way): every owner stores its registers at their
/// row-major positions in the scratch, every thread loads its own back.
struct ConvertLayoutLowering : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    Type elem = srcType.getElementType();
    Type st = storageType(elem);
    unsigned bytes = storageBytes(elem);
    const TargetOps &ops = targetOpsOf(*this);
    Value base = scratchBase(ops, b, loc, op);
    auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
    Value tid = ops.threadId(b, loc);
    ops.barrier(b, loc); // earlier users of the scratch are done
    SmallVector<Value> regs = unpack(b, loc, a.getSrc());
    RegisterMap src = registerMap(b, loc, srcType, tid);
    emitIf(b, loc, src.owner, [&](OpBuilder &ib) {
      for (auto [r, flat] : llvm::enumerate(src.flat)) {
        Value addr = LLVM::GEPOp::create(ib, loc, ptr3, st, base, flat);
        LLVM::StoreOp::create(ib, loc, toStorage(ib, loc, regs[r]), addr,
                              bytes);
      }
    });
    ops.barrier(b, loc);
    RegisterMap dst = registerMap(b, loc, dstType, tid);
    SmallVector<Value> out;
    for (Value flat : dst.flat) {
      Value addr = LLVM::GEPOp::create(b, loc, ptr3, st, base, flat);
      out.push_back(fromStorage(
          b, loc, LLVM::LoadOp::create(b, loc, st, addr, bytes), elem));
    }
    rewriter.replaceOp(op, buildVector(b, loc, out));
    return success();
  }
};

} // namespace

void kcc::gpu::populateTileOpPatterns(KccTypeConverter &tc,
                                      RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<FuncLowering, ReturnLowering, GridIdLowering<ProgramIdOp, true>,
               GridIdLowering<NumProgramsOp, false>, ArangeLowering,
               SplatLowering, SameOrderLowering<ExpandDimsOp>,
               SameOrderLowering<ReshapeOp>, TransLowering, BroadcastLowering,
               AddPtrLowering, LoadLowering, StoreLowering, ConstantLowering>(
      tc, ctx);
  patterns.add<ElementwiseLowering, ConvertLayoutLowering>(tc, ctx);
}
