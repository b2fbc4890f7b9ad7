//===- DotToFMA.cpp - kcc.dot -> shared memory + CUDA-core FMAs -----------===//
//
// The portable lowering of `c = a[M,K] x b[K,N] + c` for every target: the
// tensor-core paths rewrite the dots they take before kcc-convert-to-llvm, so
// this handles every dot that is left. Correctness, not speed:
//   1. barrier (earlier readers of the scratch buffer are done); the owners
//      of a and b store them row-major to the kernel's shared-memory scratch
//      (a's rows padded by one bank word, so that lanes reading different
//      rows of a at the same k hit different banks); barrier;
//   2. every thread computes each register (i, j) of c, flat index via the
//      blocked layout (row i = flat / N, col j = flat % N), as
//      acc + sum_k a[i,k] * b[k,j] in one scf.for over k that carries all of
//      the thread's accumulators; each step loads the distinct a[i,k] and
//      b[k,j] its registers need once.
// Numerics follow interp/Interpreter.cpp's dot(): floats accumulate in the
// accumulator's type, f16/bf16 accumulators in f32, in order k = 0..K-1 (one
// fma per step: exact for 16-bit inputs, whose products f32 holds exactly);
// f64 inputs with a narrower accumulator multiply in f64 and round the
// product, as the interpreter does; integers multiply and add modulo the
// accumulator's width (inputs sign-extended or truncated to it).
// Replicated layouts: only owners store a and b; every thread computes its
// registers (replicas compute the same values).
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"
#include "ir/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace {

/// Stores the registers of tile `v` (layout `l`, owners only) at
/// `base + row * rowStride + col` in elements of `elem`'s storage type.
void storeTile(const TargetOps &ops, OpBuilder &b, Location loc, Value v,
               RankedTensorType type, Value base, int64_t rowStride) {
  Type elem = type.getElementType();
  Type st = storageType(elem);
  unsigned bytes = storageBytes(elem);
  TileLayout l = TileLayout::get(type);
  int64_t cols = type.getDimSize(1);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value tid = ops.threadId(b, loc);
  SmallVector<Value> regs = unpack(b, loc, v);
  Value tBase = threadBase(b, loc, l, tid);
  emitIf(b, loc, ownerPred(b, loc, l, tid), [&](OpBuilder &ib) {
    for (unsigned r = 0; r < l.regs; ++r) {
      Value idx = flatIndex(ib, loc, l, tBase, r);
      if (rowStride != cols) {
        SmallVector<Value> ij = delinearize(ib, loc, idx, type.getShape());
        idx = arith::AddIOp::create(
            ib, loc,
            arith::MulIOp::create(ib, loc, ij[0], i32Const(ib, loc, rowStride)),
            ij[1]);
      }
      Value addr = LLVM::GEPOp::create(ib, loc, ptr3, st, base, idx);
      LLVM::StoreOp::create(ib, loc, toStorage(ib, loc, regs[r]), addr, bytes);
    }
  });
}

/// The type products are accumulated in (see the file comment).
Type workType(Type acc) {
  if (acc.isF16() || acc.isBF16())
    return Float32Type::get(acc.getContext());
  return acc;
}

/// Converts `v` to the integer or float type `t` (same kind).
Value convert(OpBuilder &b, Location loc, Value v, Type t) {
  Type from = v.getType();
  if (from == t)
    return v;
  unsigned fw = from.getIntOrFloatBitWidth(), tw = t.getIntOrFloatBitWidth();
  if (isa<FloatType>(t))
    return fw < tw ? arith::ExtFOp::create(b, loc, t, v).getResult()
                   : arith::TruncFOp::create(b, loc, t, v).getResult();
  // Signed, as the interpreter reads integers (i1 as 0 / -1).
  return fw < tw ? arith::ExtSIOp::create(b, loc, t, v).getResult()
                 : arith::TruncIOp::create(b, loc, t, v).getResult();
}

struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto aT = op.getA().getType(), bT = op.getB().getType();
    auto cT = op.getC().getType();
    Type aElem = aT.getElementType(), bElem = bT.getElementType();
    Type accElem = cT.getElementType();
    bool isFloat = isa<FloatType>(accElem);
    auto kindOk = [&](Type t) {
      return isFloat ? isa<FloatType>(t) : isa<IntegerType>(t);
    };
    if (!isa<FloatType, IntegerType>(accElem) || !kindOk(aElem) ||
        !kindOk(bElem))
      return op.emitError("kcc: dot needs float operands with a float "
                          "accumulator or integer operands with an integer "
                          "accumulator; got ")
             << aElem << " x " << bElem << " + " << accElem;
    for (Type t : {Type(aT), Type(bT), Type(cT)})
      if (!isa_and_nonnull<BlockedLayoutAttr>(
              cast<RankedTensorType>(t).getEncoding()))
        return rewriter.notifyMatchFailure(op, "not in the blocked layout");

    const TargetOps &ops = targetOpsOf(*this);
    int64_t n = cT.getDimSize(1);
    int64_t k = aT.getDimSize(1);
    DotScratch s = dotScratch(op);
    auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
    Type aSt = storageType(aElem), bSt = storageType(bElem);
    unsigned aBytes = storageBytes(aElem), bBytes = storageBytes(bElem);

    // 1. a and b to shared memory.
    Value aBase = scratchBase(ops, b, loc, op);
    Value bBase =
        LLVM::GEPOp::create(b, loc, ptr3, b.getI8Type(), aBase,
                            ArrayRef<LLVM::GEPArg>{int32_t(s.bOffset)});
    ops.barrier(b, loc);
    storeTile(ops, b, loc, adaptor.getA(), aT, aBase, s.aRowStride);
    storeTile(ops, b, loc, adaptor.getB(), bT, bBase, n);
    ops.barrier(b, loc);

    // 2. Row and column of every register of c. The thread's base index is
    // a multiple of g = min(vec, N), so splitting a register's compile-time
    // offset into hi (a multiple of g) and lo (< g) never carries into the
    // row: i = (base + hi) / N, j = (base + hi) % N + lo. Registers with the
    // same hi share a's element, those with the same (hi % N, lo) b's.
    TileLayout cl = TileLayout::get(cT);
    Value tid = ops.threadId(b, loc);
    Value base = threadBase(b, loc, cl, tid);
    int64_t g = std::min<int64_t>(cl.vec, n);
    unsigned logN = llvm::Log2_64(n);
    llvm::MapVector<int64_t, Value> rowOffsets;       // hi -> i * aRowStride
    llvm::MapVector<int64_t, Value> colBases;         // hi % N -> (base+hi) % N
    SmallVector<std::pair<int64_t, int64_t>> regKeys; // (hi, hi % N)
    SmallVector<int64_t> regLo;
    for (unsigned r = 0; r < cl.regs; ++r) {
      int64_t off = cl.regOffset(r);
      int64_t lo = off % g, hi = off - lo;
      regKeys.push_back({hi, hi % n});
      regLo.push_back(lo);
      if (!rowOffsets.count(hi)) {
        Value row;
        if (hi % n == 0) // base + hi splits at a row boundary
          row = arith::AddIOp::create(
              b, loc,
              arith::ShRUIOp::create(b, loc, base, i32Const(b, loc, logN)),
              i32Const(b, loc, hi / n));
        else
          row = arith::ShRUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, base, i32Const(b, loc, hi)),
              i32Const(b, loc, logN));
        rowOffsets[hi] =
            arith::MulIOp::create(b, loc, row, i32Const(b, loc, s.aRowStride));
      }
      if (!colBases.count(hi % n))
        colBases[hi % n] = arith::AndIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, base, i32Const(b, loc, hi % n)),
            i32Const(b, loc, n - 1));
    }

    // 3. The k loop, carrying the accumulators in the work type.
    Type work = workType(accElem);
    SmallVector<Value> init;
    for (Value c : unpack(b, loc, adaptor.getC()))
      init.push_back(convert(b, loc, c, work));
    // Products of floats wider than the work type are rounded to it before
    // the add (f64 x f64 + f32), like the interpreter.
    bool roundProduct = isFloat && std::max(aElem.getIntOrFloatBitWidth(),
                                            bElem.getIntOrFloatBitWidth()) >
                                       work.getIntOrFloatBitWidth();
    Type mulType = work;
    if (roundProduct)
      mulType = aElem.getIntOrFloatBitWidth() >= bElem.getIntOrFloatBitWidth()
                    ? aElem
                    : bElem;
    auto loop = scf::ForOp::create(
        b, loc, i32Const(b, loc, 0), i32Const(b, loc, k), i32Const(b, loc, 1),
        init, [&](OpBuilder &lb, Location l, Value kk, ValueRange accs) {
          auto load = [&](Value ptr, Type st, unsigned bytes, Type elem,
                          Value idx) {
            Value addr = LLVM::GEPOp::create(lb, l, ptr3, st, ptr, idx);
            Value v = LLVM::LoadOp::create(lb, l, st, addr, bytes);
            // An 8-bit float's byte goes back to its type for the target's
            // cast (Float8ToNVVM.cpp) to convert it.
            if (isFloat8(elem))
              v = UnrealizedConversionCastOp::create(lb, l, elem, v)
                      .getResult(0);
            return convert(lb, l, fromStorage(lb, l, v, elem), mulType);
          };
          DenseMap<int64_t, Value> as;
          for (auto [hi, rowOff] : rowOffsets)
            as[hi] = load(aBase, aSt, aBytes, aElem,
                          arith::AddIOp::create(lb, l, rowOff, kk));
          Value kRow = arith::MulIOp::create(lb, l, kk, i32Const(lb, l, n));
          DenseMap<std::pair<int64_t, int64_t>, Value> bs;
          SmallVector<Value> next;
          for (unsigned r = 0; r < cl.regs; ++r) {
            auto [hi, hiModN] = regKeys[r];
            Value &bv = bs[{hiModN, regLo[r]}];
            if (!bv) {
              Value j = colBases.lookup(hiModN);
              if (regLo[r])
                j = arith::AddIOp::create(lb, l, j, i32Const(lb, l, regLo[r]));
              bv = load(bBase, bSt, bBytes, bElem,
                        arith::AddIOp::create(lb, l, kRow, j));
            }
            Value x = as.lookup(hi), acc = accs[r];
            if (!isFloat) {
              Value p = arith::MulIOp::create(lb, l, x, bv);
              next.push_back(arith::AddIOp::create(lb, l, acc, p));
            } else if (roundProduct) {
              Value p = arith::MulFOp::create(lb, l, x, bv);
              next.push_back(
                  arith::AddFOp::create(lb, l, acc, convert(lb, l, p, work)));
            } else {
              next.push_back(LLVM::FMAOp::create(lb, l, x, bv, acc));
            }
          }
          scf::YieldOp::create(lb, l, next);
        });

    SmallVector<Value> out;
    for (Value v : loop.getResults())
      out.push_back(convert(b, loc, v, accElem));
    rewriter.replaceOp(op, buildVector(b, loc, out));
    return success();
  }
};

} // namespace

DotScratch kcc::gpu::dotScratch(DotOp op) {
  auto aT = op.getA().getType(), bT = op.getB().getType();
  int64_t m = aT.getDimSize(0), k = aT.getDimSize(1), n = bT.getDimSize(1);
  unsigned aBytes = storageBytes(aT.getElementType());
  unsigned bBytes = storageBytes(bT.getElementType());
  DotScratch s;
  if (isAccumulatorLayout(op.getC().getType().getEncoding())) {
    // mma.sync (DotToMmaSync.cpp): ldmatrix reads eight 16-byte rows per
    // matrix; a 16-byte pad per row puts them in eight different groups of
    // four banks, and keeps every row 16-byte aligned for the vector
    // stores (MFMA, DotToMfma.cpp, the same).
    s.aRowStride = k + 16 / aBytes;
    s.bRowStride = n + 16 / bBytes;
  } else {
    // One 4-byte bank word of padding per row (an 8-byte element for f64):
    // with K a multiple of the banks' sweep, unpadded rows would all start
    // in the same bank, and the lanes of a warp read several rows at one k.
    s.aRowStride = k + std::max<int64_t>(1, 4 / aBytes);
    s.bRowStride = n;
  }
  s.bOffset = llvm::alignTo(m * s.aRowStride * aBytes, 16);
  s.bytes = s.bOffset + k * s.bRowStride * bBytes;
  return s;
}

void kcc::gpu::populateDotPatterns(KccTypeConverter &tc,
                                      RewritePatternSet &patterns) {
  patterns.add<DotLowering>(tc, patterns.getContext());
}
