//===- SharedAccesses.cpp - the shared-memory accesses of the lowering ----===//
#include "backends/gpu/SharedAccesses.h"
#include "backends/gpu/LoweringUtils.h"
#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <set>

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace {
/// Flat element index of register r of thread t (flatIndex(threadBase(t), r)),
/// or nullopt when t owns no chunk (replicated layouts).
std::optional<int64_t> flatOf(const TileLayout &l, unsigned t, unsigned r,
                              bool ownersOnly) {
  if (l.replicated() && ownersOnly && int64_t(t) >= l.nchunks)
    return std::nullopt;
  int64_t base = l.replicated() ? int64_t(t & (l.nchunks - 1)) : int64_t(t);
  return base * l.vec + l.regOffset(r);
}

SmallVector<int64_t> indexToMulti(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> multi(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    multi[d] = flat % shape[d];
    flat /= shape[d];
  }
  return multi;
}

/// Row-major index in `shape`; size-1 (broadcast) dimensions contribute 0.
int64_t multiToIndex(ArrayRef<int64_t> multi, ArrayRef<int64_t> shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + (shape[d] == 1 ? 0 : multi[d]);
  return flat;
}

/// One access per register: `addr(t, r)` in elements of `bytes` bytes.
template <typename AddrFn>
void perRegister(std::vector<SharedAccess> &out, Operation *op,
                 const std::string &what, bool isStore, unsigned bytes,
                 const TileLayout &l, unsigned regs, AddrFn addr) {
  unsigned warps = std::max(1u, l.threads / l.warp);
  for (unsigned r = 0; r < regs; ++r) {
    SharedAccess a;
    a.op = op;
    a.what = what;
    a.reg = r;
    a.isStore = isStore;
    a.bytes = bytes;
    a.warps.assign(warps, {});
    for (unsigned w = 0; w < warps; ++w)
      for (unsigned lane = 0; lane < l.warp; ++lane) {
        std::optional<int64_t> e = addr(w * l.warp + lane, r);
        a.warps[w].push_back(e ? std::optional<uint64_t>(*e * bytes)
                               : std::nullopt);
      }
    out.push_back(std::move(a));
  }
}

/// A relayout: owners store in the source layout, everyone loads in the
/// destination layout at mapFlat(destination flat index).
template <typename MapFn>
void relayout(std::vector<SharedAccess> &out, Operation *op,
              RankedTensorType src, RankedTensorType dst,
              const SmemPadding &padding, MapFn mapFlat) {
  TileLayout sl = TileLayout::get(src), dl = TileLayout::get(dst);
  unsigned bytes = storageBytes(src.getElementType());
  perRegister(out, op, "relayout store", true, bytes, sl, sl.regs,
              [&](unsigned t, unsigned r) -> std::optional<int64_t> {
                std::optional<int64_t> f = flatOf(sl, t, r, true);
                if (!f)
                  return std::nullopt;
                return padding.index(*f);
              });
  perRegister(out, op, "relayout load", false, bytes, dl, dl.regs,
              [&](unsigned t, unsigned r) -> std::optional<int64_t> {
                return padding.index(mapFlat(*flatOf(dl, t, r, false)));
              });
}
/// A row/column vector broadcast into an accumulator (ConvertKccToLLVM.cpp,
/// broadcastToAccumulator): owners store the source, each accumulator
/// register loads its element.
void describeBroadcastToAccumulator(std::vector<SharedAccess> &out,
                                    BroadcastOp bc,
                                    const SmemPadding &padding) {
  auto srcT = bc.getSrc().getType();
  auto dstT = bc.getType();
  Attribute acc = dstT.getEncoding();
  TileLayout sl = TileLayout::get(srcT);
  unsigned bytes = storageBytes(srcT.getElementType());
  perRegister(out, bc, "broadcast store", true, bytes, sl, sl.regs,
              [&](unsigned t, unsigned r) -> std::optional<int64_t> {
                std::optional<int64_t> f = flatOf(sl, t, r, true);
                if (!f)
                  return std::nullopt;
                return padding.index(*f);
              });
  ArrayRef<int64_t> sshape = srcT.getShape(), dshape = dstT.getShape();
  TileLayout dl = TileLayout::get(dstT);
  // One load per distinct column (a [1, N] source) or row ([M, 1]) of a
  // thread, as the lowering emits them; of an epilogue chunk's copy, those
  // of the chunk's columns (the others are dead code).
  int64_t n = dshape[1];
  bool byColumn = sshape[0] == 1;
  int64_t lo = 0, hi = n;
  if (auto cols =
          bc->getAttrOfType<DenseI64ArrayAttr>(KccDialect::kEpilogueChunkAttr))
    lo = cols[0], hi = cols[1];
  int64_t originCol = accumulatorOrigin(acc, 0).col;
  SmallVector<AccumulatorPos> loads;
  std::set<int64_t> seen;
  for (unsigned r = 0, e = accumulatorRegs(dstT); r < e; ++r) {
    AccumulatorPos off = accumulatorOffset(acc, n, r);
    if (originCol + off.col < lo || originCol + off.col >= hi)
      continue;
    if (seen.insert(byColumn ? off.col : off.row).second)
      loads.push_back(off);
  }
  perRegister(out, bc, "broadcast load", false, bytes, dl, loads.size(),
              [&](unsigned t, unsigned j) -> std::optional<int64_t> {
                AccumulatorPos o = accumulatorOrigin(acc, t);
                return padding.index(byColumn ? o.col + loads[j].col
                                              : o.row + loads[j].row);
              });
}

/// dot's mma.sync lowering (DotToMmaSync.cpp): owners store a and b one
/// layout chunk at a time into rows padded by 16 bytes; each K step loads
/// fragments with ldmatrix.x4, modelled as one 16-byte access per lane (the
/// lane's row address; ldmatrix serves a matrix of 8 such rows per
/// wavefront, like a quarter warp's 16-byte accesses). Every K step and
/// column block shifts all lanes by the same amount, so the first has the
/// conflicts of every one.
/// The MFMA lowering (DotToMfma.cpp) stores the same way; lane l loads its
/// A fragment with one 8-byte load (row 16 w + l % 16, column 4 (l / 16))
/// and its B fragment with 2-byte loads down a column (row 4 (l / 16) + i,
/// column l % 16; every i and column block shifts all lanes alike).
void describeMmaDot(std::vector<SharedAccess> &out, DotOp dot) {
  auto aT = dot.getA().getType(), bT = dot.getB().getType();
  Attribute acc = dot.getC().getType().getEncoding();
  DotScratch s = dotScratch(dot);
  unsigned bytes = storageBytes(aT.getElementType());
  auto stores = [&](const char *what, RankedTensorType t, int64_t base,
                    int64_t stride) {
    TileLayout l = TileLayout::get(t);
    int64_t cols = t.getDimSize(1);
    unsigned vec = std::min<int64_t>(l.vec, cols);
    perRegister(out, dot, what, true, bytes * vec, l, l.regs / vec,
                [&](unsigned th, unsigned i) -> std::optional<int64_t> {
                  std::optional<int64_t> f = flatOf(l, th, i * vec, true);
                  if (!f)
                    return std::nullopt;
                  return (base + *f / cols * stride + *f % cols) / vec;
                });
    for (SharedAccess &a :
         llvm::make_range(out.end() - l.regs / vec, out.end()))
      a.reg *= vec;
  };
  int64_t bBase = s.bOffset / bytes;
  stores("operand a store", aT, 0, s.aRowStride);
  stores("operand b store", bT, bBase, s.bRowStride);
  TileLayout wl = TileLayout::get(dot.getC().getType());
  if (auto mfma = dyn_cast<MfmaAccLayoutAttr>(acc)) {
    perRegister(out, dot, "A fragment load", false, 8, wl, 1,
                [&](unsigned t, unsigned) -> std::optional<int64_t> {
                  unsigned lane = t % 64;
                  return ((16 * (t / 64) + lane % 16) * s.aRowStride +
                          4 * (lane / 16)) /
                         4;
                });
    perRegister(out, dot, "B fragment load", false, bytes, wl, 1,
                [&](unsigned t, unsigned) -> std::optional<int64_t> {
                  unsigned lane = t % 64;
                  return bBase + 4 * (lane / 16) * s.bRowStride + lane % 16;
                });
    return;
  }
  // `lanes` 16: an .x2 load (N = 8), whose lanes 16-31 give no address.
  auto ldmatrix = [&](const char *what, unsigned lanes, auto addr) {
    perRegister(out, dot, what, false, 16, wl, 1,
                [&](unsigned t, unsigned) -> std::optional<int64_t> {
                  unsigned lane = t % 32;
                  if (lane >= lanes)
                    return std::nullopt;
                  return (addr(t) + 8 * (lane / 16)) / 8;
                });
  };
  ldmatrix("ldmatrix a", 32, [&](unsigned t) -> int64_t {
    int64_t row = 64 * (t / 128) + 16 * (t / 32 % 4) + t % 16;
    return row * s.aRowStride;
  });
  ldmatrix("ldmatrix.trans b", bT.getDimSize(1) == 8 ? 16 : 32,
           [&](unsigned t) -> int64_t {
             return bBase + int64_t(t % 16) * s.bRowStride;
           });
}

/// kcc.warp_mma (DotToMmaSync.cpp): ldmatrix rows straight from the
/// row-padded stages, per lane as emitMmaSync addresses them (first 16-row
/// slab, k0 = 0, n0 = 0: later ones add whole rows or 16-byte columns).
void describeWarpMma(std::vector<SharedAccess> &out, WarpMmaOp mma) {
  auto accT = cast<RankedTensorType>(mma.getAcc().getType());
  TileLayout wl = TileLayout::get(accT);
  SmemType aT = mma.getA().getType(), bT = mma.getB().getType();
  auto rowCol = [](unsigned lane, bool first) -> std::pair<int64_t, int64_t> {
    if (first) // lanes 0-15: rows 0-15 of column 0; 16-31: of column 8
      return {lane % 16, 8 * (lane / 16)};
    return {lane % 8 + 8 * (lane / 16), 8 * (lane / 8 % 2)};
  };
  auto ldmatrix = [&](const char *what, SmemType t, bool isA, bool kMajor) {
    // B of N = 8: an .x2 load, lanes 16-31 give no address.
    unsigned lanes = !isA && t.getShape()[kMajor ? 0 : 1] == 8 ? 16 : 32;
    perRegister(out, mma, what, false, 16, wl, 1,
                [&](unsigned th, unsigned) -> std::optional<int64_t> {
                  if (th % 32 >= lanes)
                    return std::nullopt;
                  auto [r, c] = rowCol(th % 32, isA == kMajor);
                  // A's slab offset 64 g + 16 w runs along its M axis.
                  int64_t slab = 64 * (th / 128) + 16 * (th / 32 % 4);
                  if (isA)
                    (kMajor ? r : c) += slab;
                  return (r * t.getRowBytes() + c * 2) / 16;
                });
  };
  ldmatrix(mma.getAKMajor() ? "ldmatrix a (stage)" : "ldmatrix.trans a (stage)",
           aT, true, mma.getAKMajor());
  ldmatrix(mma.getBKMajor() ? "ldmatrix b (stage)" : "ldmatrix.trans b (stage)",
           bT, false, mma.getBKMajor());
}

/// kcc.cp_async (AsyncToNVVM.cpp): thread t writes the stage's 16-byte
/// chunks t, t + T, ... (row-major, padded rows).
void describeCpAsync(std::vector<SharedAccess> &out, CpAsyncOp cp) {
  SmemType t = cp.getDst().getType();
  unsigned warps = blockWarps(cp->getParentOfType<func::FuncOp>());
  TileLayout l;
  l.threads = (warps ? warps : 4) * 32;
  int64_t perRow = t.getShape()[1] * storageBytes(t.getElementType()) / 16;
  int64_t chunks = t.getShape()[0] * perRow;
  unsigned regs = unsigned((chunks + l.threads - 1) / l.threads);
  perRegister(out, cp, "cp.async chunk", true, 16, l, regs,
              [&](unsigned th, unsigned i) -> std::optional<int64_t> {
                int64_t q = int64_t(i) * l.threads + th;
                if (q >= chunks)
                  return std::nullopt;
                return (q / perRow * t.getRowBytes() + q % perRow * 16) / 16;
              });
}

/// kcc.cp_async_gather (AsyncToNVVM.cpp): each thread writes its 16-byte
/// chunks of the pointer tile's blocked layout to the same elements of the
/// stage (padded rows); a replicated tile's first owners only.
void describeCpAsyncGather(std::vector<SharedAccess> &out, CpAsyncGatherOp cp) {
  SmemType t = cp.getDst().getType();
  TileLayout l = TileLayout::get(cp.getPtrs().getType());
  unsigned bytes = storageBytes(t.getElementType());
  unsigned chunk = 16 / bytes;
  int64_t cols = t.getShape()[1];
  perRegister(out, cp, "cp.async gathered chunk", true, 16, l, l.regs / chunk,
              [&](unsigned th, unsigned i) -> std::optional<int64_t> {
                if (l.replicated() && th >= l.nchunks)
                  return std::nullopt;
                int64_t flat = int64_t(th) * l.vec + l.regOffset(i * chunk);
                return (flat / cols * t.getRowBytes() + flat % cols * bytes) /
                       16;
              });
}

/// dot's FMA lowering (DotToFMA.cpp): owners store a (padded rows) and b;
/// then each k step loads a[i,k] once per distinct row and b[k,j] once per
/// distinct column of the thread's registers of c. Every k shifts all lanes
/// by the same amount, so k = 0 has the conflicts of every step.
void describeDot(std::vector<SharedAccess> &out, DotOp dot) {
  auto aT = dot.getA().getType(), bT = dot.getB().getType();
  auto cT = dot.getC().getType();
  DotScratch s = dotScratch(dot);
  unsigned aBytes = storageBytes(aT.getElementType());
  unsigned bBytes = storageBytes(bT.getElementType());
  int64_t k = aT.getDimSize(1), n = cT.getDimSize(1);
  int64_t bBase = s.bOffset / bBytes;
  TileLayout al = TileLayout::get(aT), bl = TileLayout::get(bT);
  perRegister(out, dot, "operand a store", true, aBytes, al, al.regs,
              [&](unsigned t, unsigned r) -> std::optional<int64_t> {
                std::optional<int64_t> f = flatOf(al, t, r, true);
                if (!f)
                  return std::nullopt;
                return *f / k * s.aRowStride + *f % k;
              });
  perRegister(out, dot, "operand b store", true, bBytes, bl, bl.regs,
              [&](unsigned t, unsigned r) -> std::optional<int64_t> {
                std::optional<int64_t> f = flatOf(bl, t, r, true);
                if (!f)
                  return std::nullopt;
                return bBase + *f;
              });
  // The registers whose loads the lowering emits: the first of each row key
  // (hi) and of each column key (hi % N, lo), hi + lo being the register's
  // offset and lo < min(vec, N).
  TileLayout cl = TileLayout::get(cT);
  int64_t g = std::min<int64_t>(cl.vec, n);
  std::set<int64_t> rowKeys;
  std::set<std::pair<int64_t, int64_t>> colKeys;
  std::vector<unsigned> rowRegs, colRegs;
  for (unsigned r = 0; r < cl.regs; ++r) {
    int64_t off = cl.regOffset(r), lo = off % g, hi = off - lo;
    if (rowKeys.insert(hi).second)
      rowRegs.push_back(r);
    if (colKeys.insert({hi % n, lo}).second)
      colRegs.push_back(r);
  }
  auto loads = [&](const char *what, unsigned bytes,
                   const std::vector<unsigned> &regs, auto addr) {
    size_t first = out.size();
    perRegister(out, dot, what, false, bytes, cl, regs.size(),
                [&](unsigned t, unsigned i) -> std::optional<int64_t> {
                  return addr(*flatOf(cl, t, regs[i], false));
                });
    for (size_t i = first; i < out.size(); ++i)
      out[i].reg = regs[i - first];
  };
  loads("a[i,k] load", aBytes, rowRegs,
        [&](int64_t f) { return f / n * s.aRowStride; });
  loads("b[k,j] load", bBytes, colRegs,
        [&](int64_t f) { return bBase + f % n; });
}
} // namespace

std::vector<SharedAccess>
kcc::gpu::describeSharedAccesses(Operation *op,
                                    std::optional<SmemPadding> override) {
  std::vector<SharedAccess> out;
  // Ops on pipeline stages rather than on the scratch.
  if (auto mma = dyn_cast<WarpMmaOp>(op)) {
    describeWarpMma(out, mma);
    return out;
  }
  if (auto cp = dyn_cast<CpAsyncOp>(op)) {
    describeCpAsync(out, cp);
    return out;
  }
  if (auto cp = dyn_cast<CpAsyncGatherOp>(op)) {
    describeCpAsyncGather(out, cp);
    return out;
  }
  if (smemBytesFor(op) == 0)
    return out;
  SmemPadding padding = override ? *override : smemPaddingOf(op);
  if (auto bc = dyn_cast<BroadcastOp>(op);
      bc && isAccumulatorLayout(bc.getType().getEncoding())) {
    describeBroadcastToAccumulator(out, bc, padding);
  } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
    ArrayRef<int64_t> sshape = bc.getSrc().getType().getShape();
    ArrayRef<int64_t> dshape = bc.getType().getShape();
    relayout(out, op, bc.getSrc().getType(), bc.getType(), padding,
             [&](int64_t f) {
      return multiToIndex(indexToMulti(f, dshape), sshape);
    });
  } else if (isa<ExpandDimsOp, ReshapeOp>(op)) {
    auto src = cast<RankedTensorType>(op->getOperand(0).getType());
    auto dst = cast<RankedTensorType>(op->getResult(0).getType());
    if (src.getEncoding() != dst.getEncoding())
      relayout(out, op, src, dst, padding, [](int64_t f) { return f; });
  } else if (auto tr = dyn_cast<TransOp>(op)) {
    ArrayRef<int64_t> sshape = tr.getSrc().getType().getShape();
    ArrayRef<int64_t> dshape = tr.getType().getShape();
    relayout(out, op, tr.getSrc().getType(), tr.getType(), padding,
             [&](int64_t f) {
      SmallVector<int64_t> ij = indexToMulti(f, dshape);
      return multiToIndex({ij[1], ij[0]}, sshape);
    });
  } else if (auto dot = dyn_cast<DotOp>(op);
             dot && isAccumulatorLayout(dot.getC().getType().getEncoding())) {
    describeMmaDot(out, dot);
  } else if (auto dot = dyn_cast<DotOp>(op)) {
    describeDot(out, dot);
  } else if (auto red = dyn_cast<ReduceOp>(op);
             red &&
             isa<WgmmaAccLayoutAttr>(red.getSrc().getType().getEncoding())) {
    // A column reduction (ReduceToLLVM.cpp): lanes 0-3 of each warp store
    // one partial per column they hold at [warp][column], then every
    // thread loads its result chunks' columns (warp 0's slot; the others
    // alike).
    auto srcT = red.getSrc().getType();
    Attribute acc = srcT.getEncoding();
    int64_t n = srcT.getShape()[1];
    unsigned accBytes = reductionAccBytes(srcT.getElementType());
    TileLayout sl = TileLayout::get(srcT);
    SmallVector<int64_t> cols; // the thread's columns past its first
    for (unsigned r = 0, e = accumulatorRegs(srcT); r < e; ++r)
      if (!llvm::is_contained(cols, accumulatorOffset(acc, n, r).col))
        cols.push_back(accumulatorOffset(acc, n, r).col);
    perRegister(
        out, op, "column reduction partial store", true, accBytes, sl,
        cols.size(), [&](unsigned t, unsigned g) -> std::optional<int64_t> {
          if (t % 32 >= 4)
            return std::nullopt;
          return int64_t(t / 32) * n + accumulatorOrigin(acc, t).col + cols[g];
        });
    TileLayout dl = TileLayout::get(cast<RankedTensorType>(red.getType()));
    unsigned piece = axisReductionLoadElems(dl, accBytes);
    perRegister(out, op, "column reduction partial load", false,
                accBytes * piece, dl, dl.regs / piece,
                [&](unsigned t, unsigned i) -> std::optional<int64_t> {
                  return *flatOf(dl, t, i * piece, false) / piece;
                });
  } else if (auto red = dyn_cast<ReduceOp>(op)) {
    auto srcT = red.getSrc().getType();
    TileLayout sl = TileLayout::get(srcT);
    Type elem = srcT.getElementType();
    if (srcT.getRank() == 1) {
      if (sl.threads <= sl.warp)
        return out; // one warp: shuffles only
      // Lane 0 of every warp stores its warp's partial at [warp]; then every
      // thread reads all of them (f16/bf16 combine in f32, small ints in i32).
      unsigned accBytes = std::max(4u, elem.getIntOrFloatBitWidth() / 8);
      perRegister(out, op, "cross-warp partial store", true, accBytes, sl, 1,
                  [&](unsigned t, unsigned) -> std::optional<int64_t> {
                    if (t % sl.warp != 0)
                      return std::nullopt;
                    return int64_t(t / sl.warp);
                  });
      perRegister(out, op, "cross-warp partial load", false, accBytes, sl, 1,
                  [&](unsigned, unsigned) -> std::optional<int64_t> {
                    return 0; // then 1, 2, ...: every lane the same word
                  });
    } else {
      auto dstT = cast<RankedTensorType>(red.getType());
      TileLayout dl = TileLayout::get(dstT);
      AxisReductionPlan plan =
          AxisReductionPlan::get(sl, srcT.getShape(), red.getAxis());
      unsigned accBytes = reductionAccBytes(elem);
      // One partial per register group from the owners whose lane bits
      // along the axis are 0, at [slot][output index].
      SmallVector<unsigned> reps;
      for (ArrayRef<unsigned> group : plan.regGroups)
        reps.push_back(group.front());
      perRegister(
          out, op, "axis reduction partial store", true, accBytes, sl,
          reps.size(), [&](unsigned t, unsigned i) -> std::optional<int64_t> {
            std::optional<int64_t> f = flatOf(sl, t, reps[i], true);
            if (!f || (t & plan.laneMask))
              return std::nullopt;
            return int64_t(plan.slotOf(t)) * plan.outElems + plan.outIndex(*f);
          });
      for (auto [a, r] : llvm::zip(
               llvm::make_range(out.end() - reps.size(), out.end()), reps))
        a.reg = r;
      // Slot 0's loads have the conflicts of every slot (same offsets).
      unsigned piece = axisReductionLoadElems(dl, accBytes);
      perRegister(out, op, "axis reduction partial load", false,
                  accBytes * piece, dl, dl.regs / piece,
                  [&](unsigned t, unsigned i) -> std::optional<int64_t> {
                    return *flatOf(dl, t, i * piece, false) / piece;
                  });
      for (SharedAccess &a :
           llvm::make_range(out.end() - dl.regs / piece, out.end()))
        a.reg *= piece;
    }
  }
  return out;
}
