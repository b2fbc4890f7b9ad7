//===- Accumulators.cpp - the register maps of MMA accumulator layouts ----===//
//
// Which element of an MMA accumulator tile (#kcc.wgmma_acc on NVIDIA,
// #kcc.mfma_acc on AMD) each register of each thread holds: shared by the
// tensor-core lowerings of both vendors, the relayouts of the vendor-neutral
// patterns and the shared-access description of --report.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

bool kcc::gpu::isAccumulatorLayout(Attribute layout) {
  return isa_and_nonnull<WgmmaAccLayoutAttr, MfmaAccLayoutAttr,
                         TmemAccLayoutAttr>(layout);
}

unsigned kcc::gpu::accumulatorThreads(Attribute layout) {
  if (auto mfma = dyn_cast<MfmaAccLayoutAttr>(layout))
    return 64 * mfma.getWaves();
  if (auto tmem = dyn_cast<TmemAccLayoutAttr>(layout))
    return 128 * tmem.getWarpgroups();
  return 128 * cast<WgmmaAccLayoutAttr>(layout).getWarpgroups();
}

unsigned kcc::gpu::accumulatorRegs(RankedTensorType type) {
  if (auto mfma = dyn_cast<MfmaAccLayoutAttr>(type.getEncoding()))
    return mfma.getElemsPerThread(type.getShape());
  if (auto tmem = dyn_cast<TmemAccLayoutAttr>(type.getEncoding()))
    return tmem.getElemsPerThread(type.getShape());
  return cast<WgmmaAccLayoutAttr>(type.getEncoding())
      .getElemsPerThread(type.getShape());
}

AccumulatorPos kcc::gpu::accumulatorOrigin(Attribute layout, unsigned t) {
  if (isa<MfmaAccLayoutAttr>(layout)) {
    unsigned wave = t / 64, lane = t % 64;
    return {16 * wave + 4 * (lane / 16), lane % 16};
  }
  if (isa<TmemAccLayoutAttr>(layout)) // row 32 (w mod 4) + l, chunk g
    return {32 * (t / 32 % 4) + t % 32, 32 * (t / 128)};
  unsigned wg = t / 128, warp = t / 32 % 4, lane = t % 32;
  return {64 * wg + 16 * warp + lane / 4, 2 * (lane % 4)};
}

AccumulatorPos kcc::gpu::accumulatorOffset(Attribute layout, int64_t n,
                                              unsigned r) {
  if (auto mfma = dyn_cast<MfmaAccLayoutAttr>(layout)) {
    // Per 16-row slab of the wave (`rep`), n/4 registers: 4 rows of one
    // column per 16-column block.
    int64_t perRep = n / 4, rep = r / perRep, i = r % perRep;
    return {16 * rep * mfma.getWaves() + i % 4, 16 * (i / 4)};
  }
  if (auto tmem = dyn_cast<TmemAccLayoutAttr>(layout))
    return {0, 32 * tmem.getWarpgroups() * (r / 32) + r % 32};
  // Per 64-row block of the warpgroup (`rep`), n/2 registers: pairs of
  // neighbours in a row, the second pair of each 4 eight rows down, every
  // 4 registers the next 8 columns. A row vector (n = 1, isWgmmaRowSlice):
  // the block's two rows, 8 apart.
  unsigned warpgroups = cast<WgmmaAccLayoutAttr>(layout).getWarpgroups();
  if (n == 1)
    return {64 * int64_t(r / 2) * warpgroups + 8 * int64_t(r % 2), 0};
  int64_t perRep = n / 2, rep = r / perRep, i = r % perRep;
  return {64 * rep * warpgroups + 8 * ((i / 2) % 2), 8 * (i / 4) + i % 2};
}

RegisterMap kcc::gpu::registerMap(OpBuilder &b, Location loc,
                                     RankedTensorType type, Value tid) {
  RegisterMap map;
  Attribute layout = type.getEncoding();
  if (isAccumulatorLayout(layout)) {
    bool rowVector =
        isa<WgmmaAccLayoutAttr>(layout) && isWgmmaRowSlice(type.getShape());
    int64_t n = rowVector ? 1 : type.getShape()[1];
    auto k = [&](int64_t v) { return i32Const(b, loc, v); };
    // The thread's origin (accumulatorOrigin) in IR.
    Value row0, col0;
    if (isa<MfmaAccLayoutAttr>(layout)) {
      Value wave = arith::DivUIOp::create(b, loc, tid, k(64));
      Value lane = arith::RemUIOp::create(b, loc, tid, k(64));
      row0 = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, wave, k(16)),
          arith::MulIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, lane, k(16)), k(4)));
      col0 = arith::RemUIOp::create(b, loc, lane, k(16));
    } else if (isa<TmemAccLayoutAttr>(layout)) {
      Value warp = arith::RemUIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, tid, k(32)), k(4));
      row0 = arith::AddIOp::create(b, loc,
                                   arith::MulIOp::create(b, loc, warp, k(32)),
                                   arith::RemUIOp::create(b, loc, tid, k(32)));
      col0 = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, tid, k(128)), k(32));
    } else {
      Value wg = arith::DivUIOp::create(b, loc, tid, k(128));
      Value warp = arith::RemUIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, tid, k(32)), k(4));
      Value lane = arith::RemUIOp::create(b, loc, tid, k(32));
      row0 = arith::AddIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, wg, k(64)),
                                arith::MulIOp::create(b, loc, warp, k(16))),
          arith::DivUIOp::create(b, loc, lane, k(4)));
      col0 = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, lane, k(4)), k(2));
      // A row vector: one column, held by all 4 lanes of a quad; the first
      // owns it.
      if (rowVector) {
        col0 = k(0);
        map.owner = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(b, loc, lane, k(4)), k(0));
      }
    }
    Value base = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row0, k(n)), col0);
    // Registers share rows and columns: one Value per distinct offset.
    std::map<int64_t, Value> rows, cols;
    auto at = [&](std::map<int64_t, Value> &cache, Value origin, int64_t off) {
      Value &v = cache[off];
      if (!v)
        v = off ? (Value)arith::AddIOp::create(b, loc, origin, k(off)) : origin;
      return v;
    };
    for (unsigned r = 0, e = accumulatorRegs(type); r < e; ++r) {
      AccumulatorPos off = accumulatorOffset(layout, n, r);
      map.flat.push_back(
          arith::AddIOp::create(b, loc, base, k(off.row * n + off.col)));
      map.rows.push_back(at(rows, row0, off.row));
      map.cols.push_back(at(cols, col0, off.col));
    }
    return map;
  }
  TileLayout l = TileLayout::get(type);
  Value base = threadBase(b, loc, l, tid);
  for (unsigned r = 0; r < l.regs; ++r)
    map.flat.push_back(flatIndex(b, loc, l, base, r));
  map.owner = ownerPred(b, loc, l, tid);
  return map;
}

