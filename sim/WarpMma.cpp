//===- WarpMma.cpp - ldmatrix and mma.sync across a warp ------------------===//
//
// Each is executed by the whole warp (wave) together, so they run as
// collectives (Collectives.cpp) that need every lane: 32 for ldmatrix and
// mma.sync (`.sync.aligned`), 64 for MFMA.
//  - ldmatrix.x{1,2,4}.m8n8.b16: lane 8 j + i gives the address of row i of
//    matrix j (16 bytes in shared memory). Without .trans lane l receives
//    row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1 of each matrix; with
//    .trans it receives column l / 4, rows 2 (l % 4) and 2 (l % 4) + 1. The
//    row reads are shared-memory reads of the lane that gave the address
//    (race and bounds checks).
//  - v_mfma_f32_16x16x16{f16,bf16_1k} (AMD, wave64): fragments per AMD's
//    matrix instruction calculator, l = lane: A[l % 16][4 (l / 16) + e],
//    B[4 (l / 16) + e][l % 16], C/D[4 (l / 16) + e][l % 16], e = 0..3.
//  - mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (wrapping): the same
//    bytes per register as m16n8k16, four 8-bit elements each;
//  - mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: fragments per the
//    PTX ISA ("Matrix Fragments for mma.m16n8k16"), g = l / 4, t = l % 4:
//    a0..a3 = A[g][2t..], A[g+8][2t..], A[g][2t+8..], A[g+8][2t+8..];
//    b0, b1 = B[2t..][g], B[2t+8..][g]; c0..c3 = C[g][2t, 2t+1],
//    C[g+8][2t, 2t+1]. D = A B + C, each product exact in f32 and summed in
//    k order (the tensor cores' rounding of the sum may differ in the last
//    bits; difftests compare with a tolerance).
//
//===----------------------------------------------------------------------===//
#include "sim/Float.h"
#include "sim/Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

bool Machine::warpMatrixOp(unsigned first, unsigned last, uint64_t present,
                           const Inst &in) {
  bool mfma = in.opc == Opc::Mfma;
  const char *what = in.opc == Opc::LdMatrix ? "ldmatrix.sync.aligned"
                     : mfma                  ? "v_mfma_f32_16x16x16"
                                             : "mma.sync.aligned";
  unsigned width = mfma ? 64 : 32;
  uint64_t all = mfma ? ~0ull : 0xffffffffull;
  if (opts.warpSize != width) {
    setFault(in.op, llvm::formatv("{0} needs {1}-lane warps; this target's "
                                  "have {2}",
                                  what, width, opts.warpSize)
                        .str());
    return false;
  }
  if (last - first != width || present != all) {
    for (unsigned l = 0; l < width; ++l)
      if (first + l >= last || !(present >> l & 1)) {
        setFault(in.op,
                 llvm::formatv("{0} needs all {1} lanes of warp {2}; lane {3} "
                               "{4}",
                               what, width, first / width, l,
                               first + l >= last ? "does not exist"
                                                 : "is not at this op")
                     .str());
        return false;
      }
  }
  auto reg = [&](unsigned l, uint32_t slot) -> uint64_t & {
    return threads[first + l].regs[slot];
  };

  if (mfma && in.sub >= 4) {
    // The fp8 / bf8 forms (gfx942: the FNUZ formats): bytes as the i8
    // 16x16x32 form lays them out (A[i][k]: lane i + 16 (k / 8), byte k % 8),
    // C/D f32 as below. Each product of two 8-bit floats is exact in f32;
    // every element sums in k order from C.
    F8 fa = in.sub & 1 ? F8::E5M2FNUZ : F8::E4M3FNUZ;
    F8 fb = in.sub & 2 ? F8::E5M2FNUZ : F8::E4M3FNUZ;
    float a[16][32], b[32][16], c[16][16];
    for (unsigned l = 0; l < 64; ++l) {
      unsigned x = l % 16;
      for (unsigned i = 0; i < 8; ++i) {
        unsigned q = 8 * (l / 16) + i;
        a[x][q] = float(float8ToDouble(uint8_t(reg(l, in.a) >> (8 * i)), fa));
        b[q][x] = float(float8ToDouble(uint8_t(reg(l, in.b) >> (8 * i)), fb));
      }
      for (unsigned i = 0; i < 4; ++i)
        c[4 * (l / 16) + i][x] = asF32(reg(l, in.c + i));
    }
    for (unsigned k = 0; k < 32; ++k)
      for (unsigned row = 0; row < 16; ++row)
        for (unsigned col = 0; col < 16; ++col)
          c[row][col] += a[row][k] * b[k][col];
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned i = 0; i < 4; ++i)
        reg(l, in.res + i) = bitsOf(c[4 * (l / 16) + i][l % 16]);
    return true;
  }
  if (mfma && in.sub >= 2) {
    // The i8 forms: A[i][k]: lane i + 16 (k / e), byte k % e of its
    // register (e = 4: 16x16x16i8, e = 8: 16x16x32_i8); B[k][j] likewise
    // with j; C/D as below, i32 sums wrapping.
    unsigned e = in.sub == 2 ? 4 : 8, kk = 4 * e;
    int32_t a[16][32], b[32][16];
    uint32_t c[16][16];
    for (unsigned l = 0; l < 64; ++l) {
      unsigned x = l % 16;
      for (unsigned i = 0; i < e; ++i) {
        unsigned q = e * (l / 16) + i;
        a[x][q] = int8_t(reg(l, in.a) >> (8 * i));
        b[q][x] = int8_t(reg(l, in.b) >> (8 * i));
      }
      for (unsigned i = 0; i < 4; ++i)
        c[4 * (l / 16) + i][x] = uint32_t(reg(l, in.c + i));
    }
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned i = 0; i < 4; ++i) {
        unsigned row = 4 * (l / 16) + i, col = l % 16;
        uint32_t d = c[row][col];
        for (unsigned k = 0; k < kk; ++k)
          d += uint32_t(a[row][k] * b[k][col]);
        reg(l, in.res + i) = d;
      }
    return true;
  }
  if (mfma) {
    // A[i][k]: lane i + 16 (k / 4), item k % 4; B[k][j]: lane j + 16 (k / 4),
    // item k % 4; C/D[i][j]: lane j + 16 (i / 4), item i % 4.
    auto value = [&](uint64_t h) {
      return in.sub ? bf16ToFloat(uint16_t(h)) : halfToFloat(uint16_t(h));
    };
    float a[16][16], b[16][16], c[16][16];
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned e = 0; e < 4; ++e) {
        unsigned q = 4 * (l / 16) + e, x = l % 16;
        a[x][q] = value(reg(l, in.a + e));
        b[q][x] = value(reg(l, in.b + e));
        c[q][x] = asF32(reg(l, in.c + e));
      }
    // Every element still sums in k order from C; k outside the columns
    // makes the 256 sums independent chains.
    for (unsigned k = 0; k < 16; ++k)
      for (unsigned row = 0; row < 16; ++row)
        for (unsigned col = 0; col < 16; ++col)
          c[row][col] += a[row][k] * b[k][col];
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned e = 0; e < 4; ++e)
        reg(l, in.res + e) = bitsOf(c[4 * (l / 16) + e][l % 16]);
    return true;
  }

  if (in.opc == Opc::LdMatrix) {
    // The 8 rows (16 bytes each) of every matrix, read by the lanes that
    // gave their addresses.
    unsigned num = in.lanes; // at most 4 (the decoder's x1, x2, x4)
    std::array<std::array<uint16_t, 8>, 32> rows;
    for (unsigned r = 0; r < 8 * num; ++r) {
      Thread &t = threads[first + r];
      uint64_t addr = reg(r, in.a), offset = ~0ull;
      if (addr % 16) {
        setFault(in.op, llvm::formatv("ldmatrix row address {0:x} of {1} is "
                                      "not 16-byte aligned",
                                      addr, threadName(t))
                            .str());
        return false;
      }
      uint8_t *p = resolve(t, in.op, 3, addr, 16, false, &offset);
      if (!p || !threadSharedAccess(t, in.op, offset, 16, false))
        return false;
      std::memcpy(rows[r].data(), p, 16);
    }
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned j = 0; j < num; ++j) {
        const auto *m = &rows[8 * j];
        uint32_t lo, hi;
        if (in.sub) { // .trans
          lo = m[2 * (l % 4)][l / 4];
          hi = m[2 * (l % 4) + 1][l / 4];
        } else {
          lo = m[l / 4][2 * (l % 4)];
          hi = m[l / 4][2 * (l % 4) + 1];
        }
        reg(l, in.res + j) = lo | hi << 16;
      }
    return true;
  }

  // mma.sync: gather the fragments into A (16x16), B (16x8) and C (16x8).
  const uint32_t *aux = prog.aux.data() + in.aux;
  bool bf16 = aux[0];
  auto packed = [&](unsigned l, unsigned i) -> uint32_t {
    uint32_t slot = aux[1 + 2 * i], lanes = aux[2 + 2 * i];
    if (lanes == 2)
      return uint32_t(reg(l, slot) & 0xffff) |
             uint32_t(reg(l, slot + 1) & 0xffff) << 16;
    return uint32_t(reg(l, slot));
  };
  // D register i of lane (g, t) is D[g + 8 (i / 2)][2 t + i % 2], both
  // forms.
  auto forEachD = [&](auto &&body) {
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned i = 0; i < 4; ++i)
        body(l, i, l / 4 + 8 * (i / 2), 2 * (l % 4) + i % 2);
  };
  if (aux[0] == 2) {
    // m16n8k32 s8 (PTX ISA, "Matrix Fragments for mma.m16n8k32"): A
    // register i of lane (g, t) holds A[g + 8 (i % 2)][4 t + 16 (i / 2) +
    // byte], B register i B[4 t + 16 i + byte][g]; s32 sums, wrapping.
    int32_t a8[16][32], b8[32][8];
    uint32_t c32[16][8];
    for (unsigned l = 0; l < 32; ++l) {
      unsigned g = l / 4, t = l % 4;
      for (unsigned i = 0; i < 4; ++i)
        for (unsigned e = 0; e < 4; ++e)
          a8[g + 8 * (i % 2)][4 * t + 16 * (i / 2) + e] =
              int8_t(packed(l, i) >> (8 * e));
      for (unsigned i = 0; i < 2; ++i)
        for (unsigned e = 0; e < 4; ++e)
          b8[4 * t + 16 * i + e][g] = int8_t(packed(l, 4 + i) >> (8 * e));
      for (unsigned i = 0; i < 4; ++i)
        c32[g + 8 * (i / 2)][2 * t + i % 2] = uint32_t(reg(l, aux[13 + i]));
    }
    forEachD([&](unsigned l, unsigned i, unsigned row, unsigned col) {
      uint32_t d = c32[row][col];
      for (unsigned k = 0; k < 32; ++k)
        d += uint32_t(a8[row][k] * b8[k][col]);
      reg(l, in.res + i) = d;
    });
    return true;
  }
  auto value = [&](uint16_t h) {
    return bf16 ? bf16ToFloat(h) : halfToFloat(h);
  };
  float a[16][16], b[16][8], c[16][8];
  for (unsigned l = 0; l < 32; ++l) {
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; ++i) {
      uint32_t x = packed(l, i);
      unsigned row = g + 8 * (i % 2), col = 2 * t + 8 * (i / 2);
      a[row][col] = value(x & 0xffff);
      a[row][col + 1] = value(x >> 16);
    }
    for (unsigned i = 0; i < 2; ++i) {
      uint32_t x = packed(l, 4 + i);
      unsigned k = 2 * t + 8 * i;
      b[k][g] = value(x & 0xffff);
      b[k + 1][g] = value(x >> 16);
    }
    for (unsigned i = 0; i < 4; ++i)
      c[g + 8 * (i / 2)][2 * t + i % 2] = asF32(reg(l, aux[13 + i]));
  }
  // Each element sums in k order from C, the sums side by side.
  for (unsigned k = 0; k < 16; ++k)
    for (unsigned row = 0; row < 16; ++row)
      for (unsigned col = 0; col < 8; ++col)
        c[row][col] += a[row][k] * b[k][col];
  forEachD([&](unsigned l, unsigned i, unsigned row, unsigned col) {
    reg(l, in.res + i) = bitsOf(c[row][col]);
  });
  return true;
}
