// Unit tests for the MMA accumulator layouts of the NVIDIA/AMD lowering
// (backends/gpu/Accumulators.cpp): every element of the tile is
// held by exactly one (thread, register), and the registers of one MMA
// instruction are where the instruction's D fragment puts them, from the
// PTX ISA (wgmma / mma.sync m16n8k16: row groupID (+8), column
// 2 threadID_in_group + i % 2) and AMD's matrix instruction calculator
// (v_mfma_f32_16x16x16: D[i][j] in lane j + 16 (i / 4), item i % 4), and
// the rows of the tcgen05.ld.32x32b lane quarters (#kcc.tmem_acc).
#include "backends/gpu/LoweringUtils.h"

#include <doctest/doctest.h>

#include <set>

using namespace kcc;
using namespace kcc::gpu;

namespace {

/// Checks that the layout of `type` covers its tile exactly once.
void checkBijective(mlir::RankedTensorType type) {
  mlir::Attribute layout = type.getEncoding();
  int64_t m = type.getDimSize(0), n = type.getDimSize(1);
  unsigned threads = accumulatorThreads(layout), regs = accumulatorRegs(type);
  CHECK(int64_t(threads) * regs == m * n);
  std::set<std::pair<int64_t, int64_t>> seen;
  int64_t outside = 0, twice = 0;
  for (unsigned t = 0; t < threads; ++t)
    for (unsigned r = 0; r < regs; ++r) {
      AccumulatorPos o = accumulatorOrigin(layout, t);
      AccumulatorPos d = accumulatorOffset(layout, n, r);
      int64_t row = o.row + d.row, col = o.col + d.col;
      if (row < 0 || row >= m || col < 0 || col >= n)
        ++outside;
      else if (!seen.insert({row, col}).second)
        ++twice;
    }
  CHECK(outside == 0);
  CHECK(twice == 0);
  CHECK(int64_t(seen.size()) == m * n);
}

} // namespace

TEST_CASE("accumulator layouts cover their tile exactly once") {
  mlir::MLIRContext ctx;
  ctx.loadDialect<KccDialect>();
  auto f32 = mlir::Float32Type::get(&ctx);
  for (unsigned wgs : {1u, 2u})
    for (int64_t m : {64, 128, 256})
      for (int64_t n : {16, 64, 256}) {
        if (m < 64 * wgs)
          continue;
        CAPTURE(wgs);
        CAPTURE(m);
        CAPTURE(n);
        checkBijective(mlir::RankedTensorType::get(
            {m, n}, f32, WgmmaAccLayoutAttr::get(&ctx, wgs)));
      }
  for (unsigned waves : {1u, 2u, 4u, 8u})
    for (int64_t m : {16, 32, 128})
      for (int64_t n : {16, 64}) {
        if (m < 16 * waves)
          continue;
        CAPTURE(waves);
        CAPTURE(m);
        CAPTURE(n);
        checkBijective(mlir::RankedTensorType::get(
            {m, n}, f32, MfmaAccLayoutAttr::get(&ctx, waves)));
      }
  for (unsigned wgs : {1u, 2u})
    for (int64_t n : {32, 64, 128, 256}) {
      if (n % (32 * wgs))
        continue;
      CAPTURE(wgs);
      CAPTURE(n);
      checkBijective(mlir::RankedTensorType::get(
          {128, n}, f32, TmemAccLayoutAttr::get(&ctx, wgs)));
    }
}

TEST_CASE("tcgen05.ld 32x32b registers in #kcc.tmem_acc") {
  // Tcgen05ToNVVM.cpp: warp w reads TMEM lanes 32 (w % 4) + lane (the row),
  // chunk c of warpgroup g covers columns 32 (g + W c) .. + 31, one
  // register each, in order.
  mlir::MLIRContext ctx;
  ctx.loadDialect<KccDialect>();
  auto layout = TmemAccLayoutAttr::get(&ctx, 2);
  int64_t n = 256;
  for (unsigned t : {0u, 31u, 32u, 100u, 127u, 128u, 200u, 255u}) {
    unsigned g = t / 128, warp = t / 32, lane = t % 32;
    for (unsigned c = 0; c < n / 64; ++c)
      for (unsigned i = 0; i < 32; ++i) {
        AccumulatorPos o = accumulatorOrigin(layout, t);
        AccumulatorPos d = accumulatorOffset(layout, n, 32 * c + i);
        CHECK(o.row + d.row == 32 * (warp % 4) + lane);
        CHECK(o.col + d.col == 32 * (g + 2 * c) + i);
      }
  }
}

TEST_CASE("mma.sync m16n8k16 D fragments in #kcc.wgmma_acc") {
  // The lowering (DotToMmaSync.cpp) gives register 4 j + c of a 64-row
  // block to c[c] of the mma for 8-column block j: c0, c1 in row groupID,
  // columns 2 threadID_in_group + {0, 1}; c2, c3 eight rows down.
  mlir::MLIRContext ctx;
  ctx.loadDialect<KccDialect>();
  auto layout = WgmmaAccLayoutAttr::get(&ctx, 2);
  int64_t n = 64;
  for (unsigned t : {0u, 5u, 31u, 37u, 200u, 255u}) {
    unsigned wg = t / 128, warp = t / 32 % 4, lane = t % 32;
    unsigned group = lane / 4, inGroup = lane % 4;
    for (unsigned j = 0; j < n / 8; ++j)
      for (unsigned c = 0; c < 4; ++c) {
        AccumulatorPos o = accumulatorOrigin(layout, t);
        AccumulatorPos d = accumulatorOffset(layout, n, 4 * j + c);
        CHECK(o.row + d.row == 64 * wg + 16 * warp + group + 8 * (c / 2));
        CHECK(o.col + d.col == 8 * j + 2 * inGroup + c % 2);
      }
  }
}

TEST_CASE("v_mfma_f32_16x16x16 D fragments in #kcc.mfma_acc") {
  // DotToMfma.cpp gives register 4 j + i of a slab to D[i] of the MFMA for
  // 16-column block j: D[4 (l / 16) + i][l % 16] of lane l.
  mlir::MLIRContext ctx;
  ctx.loadDialect<KccDialect>();
  auto layout = MfmaAccLayoutAttr::get(&ctx, 4);
  int64_t n = 32;
  for (unsigned t : {0u, 15u, 16u, 63u, 64u, 130u, 255u}) {
    unsigned wave = t / 64, lane = t % 64;
    for (unsigned j = 0; j < n / 16; ++j)
      for (unsigned i = 0; i < 4; ++i) {
        AccumulatorPos o = accumulatorOrigin(layout, t);
        AccumulatorPos d = accumulatorOffset(layout, n, 4 * j + i);
        CHECK(o.row + d.row == 16 * wave + 4 * (lane / 16) + i);
        CHECK(o.col + d.col == 16 * j + lane % 16);
      }
  }
  // The second slab of wave 1 (slab 5 of a 128-row tile over 4 waves).
  AccumulatorPos o = accumulatorOrigin(layout, 64);
  AccumulatorPos d = accumulatorOffset(layout, n, n / 4);
  CHECK(o.row + d.row == 16 * 5);
}
