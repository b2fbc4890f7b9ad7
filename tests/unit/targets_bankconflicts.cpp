// Unit tests for the shared-memory bank-conflict model
// (targets/BankConflicts.h): worked examples from NVIDIA's and AMD's documents
// and forum answers cited in the header.
#include "targets/BankConflicts.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <string>

using namespace kcc;

namespace {
using Addresses = std::vector<std::optional<uint64_t>>;

// Unwraps a result; a failure is reported and yields an impossible value so
// the checks after it fail too (the tests run without exceptions).
BankConflictResult get(llvm::Expected<BankConflictResult> result) {
  if (!result) {
    FAIL_CHECK(llvm::toString(result.takeError()));
    BankConflictResult bad;
    bad.wavefronts = bad.idealWavefronts = bad.degree = ~0u;
    return bad;
  }
  return *result;
}

// The message of an expected failure, or "" when the call succeeded.
std::string errorOf(llvm::Expected<BankConflictResult> result) {
  if (result)
    return "";
  return llvm::toString(result.takeError());
}

BankConflictResult affine(const BankGeometry &g, uint64_t base, int64_t stride,
                          unsigned lanes, unsigned width,
                          SharedAccessKind kind = SharedAccessKind::Load) {
  return get(analyzeAffineBankConflicts(g, base, stride, lanes, width, kind));
}

template <typename Fn> Addresses perLane(unsigned lanes, Fn addressOf) {
  Addresses out;
  for (unsigned lane = 0; lane < lanes; ++lane)
    out.push_back(addressOf(lane));
  return out;
}

// The same LDS with ds_read_b128 modelled as plain runs of 8 lanes: what a
// model that ignores AMD's lane groups would compute.
BankGeometry amdContiguousB128() {
  BankGeometry g = amdLdsGeometry();
  g.phases[16] = contiguousPhases(64, 8);
  return g;
}
} // namespace

TEST_CASE("bankconflicts: nvidia stride-1 f32 is one wavefront") {
  BankConflictResult r = affine(nvidiaSharedGeometry(), 0, 4, 32, 4);
  CHECK(r.wavefronts == 1);
  CHECK(r.idealWavefronts == 1);
  CHECK(r.degree == 1);
  CHECK(r.activeLanes == 32);
  CHECK(r.conflictFree());
  // A base offset only rotates the banks.
  CHECK(affine(nvidiaSharedGeometry(), 4 * 7, 4, 32, 4).wavefronts == 1);
}

TEST_CASE("bankconflicts: nvidia word strides conflict gcd(stride, 32)-way") {
  BankGeometry g = nvidiaSharedGeometry();
  BankConflictResult two = affine(g, 0, 2 * 4, 32, 4);
  CHECK(two.wavefronts == 2);
  CHECK(two.degree == 2);
  CHECK(two.excessWavefronts() == 1);
  BankConflictResult all = affine(g, 0, 32 * 4, 32, 4);
  CHECK(all.wavefronts == 32);
  CHECK(all.degree == 32);
  CHECK(all.worstBank == 0);
  // CUDA C++ Programming Guide: threads tid and tid+n share a bank whenever
  // s*n is a multiple of 32, so a stride of s words is gcd(s, 32)-way.
  for (unsigned s = 1; s <= 64; ++s) {
    CAPTURE(s);
    CHECK(affine(g, 0, s * 4, 32, 4).degree == std::gcd(s, 32u));
  }
}

TEST_CASE("bankconflicts: same-word accesses broadcast") {
  BankGeometry g = nvidiaSharedGeometry();
  CHECK(affine(g, 64, 0, 32, 4).wavefronts == 1);
  // Pairs of lanes reading one word.
  CHECK(
      get(analyzeBankConflicts(
              g, perLane(32, [](unsigned l) { return uint64_t(4 * (l / 2)); }),
              4))
          .wavefronts == 1);
  // Broadcast is per word, not per bank: two words of bank 0 still conflict.
  BankConflictResult twoWords = get(analyzeBankConflicts(
      g, perLane(32, [](unsigned l) { return uint64_t(l < 16 ? 0 : 128); }),
      4));
  CHECK(twoWords.wavefronts == 2);
  CHECK(twoWords.degree == 2);
  // Sub-word accesses to one word broadcast too: char / short stride 1.
  CHECK(affine(g, 0, 1, 32, 1).wavefronts == 1);
  CHECK(affine(g, 0, 2, 32, 2).wavefronts == 1);
  // ... but bytes 128 apart are different words of one bank.
  CHECK(affine(g, 0, 128, 32, 1).degree == 32);
  // Stores to one word: one thread writes, no conflict.
  CHECK(affine(g, 0, 0, 32, 4, SharedAccessKind::Store).wavefronts == 1);
}

TEST_CASE("bankconflicts: nvidia 64-bit accesses go by half-warps") {
  BankGeometry g = nvidiaSharedGeometry();
  BankConflictResult r = affine(g, 0, 8, 32, 8);
  CHECK(r.wavefronts == 2);
  CHECK(r.idealWavefronts == 2);
  CHECK(r.conflictFree());
  // One half-warp alone needs one wavefront.
  CHECK(affine(g, 0, 8, 16, 8).wavefronts == 1);
  // double at a 16-byte stride: lanes i and i+8 of each half share banks.
  BankConflictResult strided = affine(g, 0, 16, 32, 8);
  CHECK(strided.wavefronts == 4);
  CHECK(strided.idealWavefronts == 2);
  CHECK(strided.degree == 2);
  // Half-warps do not share wavefronts: a 2-way conflict on banks 0-1 in the
  // first half and one on banks 16-17 in the second cost 2 + 2, although no
  // bank holds more than two distinct words.
  Addresses a(32);
  a[0] = 0;
  a[1] = 128;
  a[16] = 64;
  a[17] = 192;
  BankConflictResult halves = get(analyzeBankConflicts(g, a, 8));
  CHECK(halves.wavefronts == 4);
  CHECK(halves.idealWavefronts == 2);
  CHECK(halves.degree == 2);
}

TEST_CASE("bankconflicts: nvidia 128-bit accesses go by quarter-warps") {
  BankGeometry g = nvidiaSharedGeometry();
  // float4 stride 1: 512 bytes, four wavefronts, no conflict.
  BankConflictResult r = affine(g, 0, 16, 32, 16);
  CHECK(r.wavefronts == 4);
  CHECK(r.idealWavefronts == 4);
  CHECK(r.conflictFree());
  // Forum 359822: every lane reads banks 0-3 at a different address: 32
  // wavefronts, 28 of them bank conflicts; 8-way within each quarter.
  BankConflictResult bad = affine(g, 0, 128, 32, 16);
  CHECK(bad.wavefronts == 32);
  CHECK(bad.excessWavefronts() == 28);
  CHECK(bad.degree == 8);
  // Forum 77228: offset (tid % 4) * 16 on LDS.128 takes 4 requests, not 2;
  // broadcasts do not merge quarter-warps.
  BankConflictResult repeated = get(analyzeBankConflicts(
      g, perLane(32, [](unsigned l) { return uint64_t(l % 4 * 16); }), 16));
  CHECK(repeated.wavefronts == 4);
  CHECK(repeated.conflictFree());
  CHECK(affine(g, 0, 0, 32, 16).wavefronts == 4);
}

TEST_CASE("bankconflicts: padded transpose tile") {
  BankGeometry g = nvidiaSharedGeometry();
  // Lane i reads column c of row i of float tile[32][W].
  auto column = [&](unsigned w, SharedAccessKind kind) {
    unsigned c = 5;
    return get(analyzeBankConflicts(
        g, perLane(32, [&](unsigned i) { return uint64_t(4 * (i * w + c)); }),
        4, kind));
  };
  CHECK(column(32, SharedAccessKind::Load).degree == 32);
  CHECK(column(33, SharedAccessKind::Load).wavefronts == 1);
  CHECK(column(33, SharedAccessKind::Store).wavefronts == 1);
  // Rows are conflict free either way.
  CHECK(affine(g, 4 * 32 * 3, 4, 32, 4).wavefronts == 1);
}

TEST_CASE("bankconflicts: amd dword accesses go by half-waves") {
  BankGeometry g = amdLdsGeometry();
  BankConflictResult r = affine(g, 0, 4, 64, 4);
  CHECK(r.wavefronts == 2);
  CHECK(r.idealWavefronts == 2);
  CHECK(r.conflictFree());
  BankConflictResult two = affine(g, 0, 8, 64, 4);
  CHECK(two.wavefronts == 4);
  CHECK(two.degree == 2);
  CHECK(affine(g, 0, 128, 64, 4).wavefronts == 64);
  // b64 stride 1: four quarter waves.
  CHECK(affine(g, 0, 8, 64, 8).wavefronts == 4);
  CHECK(affine(g, 0, 8, 64, 8).conflictFree());
}

TEST_CASE("bankconflicts: amd phase tables match the ROCm sources") {
  BankGeometry g = amdLdsGeometry();
  LanePhases read = g.phasesFor(16, SharedAccessKind::Load);
  REQUIRE(read.size() == 8);
  CHECK(read[0] == std::vector<unsigned>{0, 1, 2, 3, 20, 21, 22, 23});
  CHECK(read[1] == std::vector<unsigned>{4, 5, 6, 7, 16, 17, 18, 19});
  CHECK(read[2] == std::vector<unsigned>{8, 9, 10, 11, 28, 29, 30, 31});
  CHECK(read[3] == std::vector<unsigned>{12, 13, 14, 15, 24, 25, 26, 27});
  CHECK(read[7] == std::vector<unsigned>{44, 45, 46, 47, 56, 57, 58, 59});
  LanePhases write = g.phasesFor(16, SharedAccessKind::Store);
  REQUIRE(write.size() == 8);
  CHECK(write[2] == std::vector<unsigned>{16, 17, 18, 19, 20, 21, 22, 23});
  // Every table covers each of the 64 lanes exactly once.
  for (unsigned width : {1u, 2u, 4u, 8u, 16u})
    for (SharedAccessKind kind :
         {SharedAccessKind::Load, SharedAccessKind::Store}) {
      CAPTURE(width);
      std::vector<unsigned> seen(64, 0);
      for (const std::vector<unsigned> &group : g.phasesFor(width, kind))
        for (unsigned lane : group)
          ++seen.at(lane);
      CHECK(std::count(seen.begin(), seen.end(), 1u) == 64);
    }
  CHECK(g.phasesFor(4).size() == 2);
  CHECK(g.phasesFor(8).size() == 4);
}

TEST_CASE("bankconflicts: amd b128 stride 1 is conflict free both ways") {
  BankGeometry g = amdLdsGeometry();
  for (SharedAccessKind kind :
       {SharedAccessKind::Load, SharedAccessKind::Store}) {
    BankConflictResult r = affine(g, 0, 16, 64, 16, kind);
    CHECK(r.wavefronts == 8);
    CHECK(r.idealWavefronts == 8);
    CHECK(r.conflictFree());
  }
}

// ROCm blog, GEMM with kMPerBlock=64, kKPerBlock=32, KPack=8, fp16 A tile
// and mfma_f32_16x16x32_f16: ds_write_b128 stores lane l's 8 halves at row
// l/4, chunk l%4; ds_read_b128 gives lane l row l%16, K chunk l/16.
TEST_CASE("bankconflicts: ROCm blog naive A tile: write free, read 2-way") {
  BankGeometry g = amdLdsGeometry();
  // Naive LDS layout [64][4][8] halves: 64-byte rows.
  auto naive = [](unsigned row, unsigned chunk) {
    return uint64_t(row * 64 + chunk * 16);
  };
  BankConflictResult write = get(analyzeBankConflicts(
      g, perLane(64, [&](unsigned l) { return naive(l / 4, l % 4); }), 16,
      SharedAccessKind::Store));
  CHECK(write.conflictFree());
  Addresses readPattern =
      perLane(64, [&](unsigned l) { return naive(l % 16, l / 16); });
  BankConflictResult read = get(analyzeBankConflicts(g, readPattern, 16));
  CHECK(read.degree == 2); // the blog's "2-way bank conflict"
  CHECK(read.wavefronts == 16);
  // Contiguous 8-lane groups would mispredict it as 4-way.
  CHECK(
      get(analyzeBankConflicts(amdContiguousB128(), readPattern, 16)).degree ==
      4);
}

TEST_CASE("bankconflicts: ROCm blog XOR A tile: write and read free") {
  BankGeometry g = amdLdsGeometry();
  // CK-Tile's XOR layout: two 64-byte rows share a 128-byte LDS row,
  // K0' = K0 ^ (M % 8) over the 8 16-byte slots of that row.
  auto xorLayout = [](unsigned row, unsigned chunk) {
    unsigned ldsRow = row / 2;
    unsigned slot = ((row % 2) * 4 + chunk) ^ (ldsRow % 8);
    return uint64_t(ldsRow * 128 + slot * 16);
  };
  CHECK(
      get(analyzeBankConflicts(
              g,
              perLane(64, [&](unsigned l) { return xorLayout(l / 4, l % 4); }),
              16, SharedAccessKind::Store))
          .conflictFree());
  BankConflictResult read = get(analyzeBankConflicts(
      g, perLane(64, [&](unsigned l) { return xorLayout(l % 16, l / 16); }),
      16));
  CHECK(read.wavefronts == 8);
  CHECK(read.conflictFree());
}

// Within a half-wave the ds_read_b128 groups pair 4-lane quad q with quad
// q ^ 5 (0-5, 1-4, 2-7, 3-6). Quads 0-3 on the low 16 banks and quads 4-7 on
// the high 16, quad q%4 in its own 128-byte row, is conflict free under those
// groups but 2-way for runs of 8 lanes (quads 2k, 2k+1), and therefore also
// 2-way as a ds_write_b128.
TEST_CASE("bankconflicts: amd ds_read_b128 groups differ from ds_write_b128") {
  Addresses pattern = perLane(64, [](unsigned l) {
    unsigned quad = l / 4, halfWave = l / 32;
    return uint64_t(halfWave * 512 + (quad % 4) * 128 + (quad / 4 % 2) * 64 +
                    (l % 4) * 16);
  });
  BankConflictResult read =
      get(analyzeBankConflicts(amdLdsGeometry(), pattern, 16));
  CHECK(read.wavefronts == 8);
  CHECK(read.conflictFree());
  BankConflictResult naive =
      get(analyzeBankConflicts(amdContiguousB128(), pattern, 16));
  CHECK(naive.degree == 2);
  CHECK(naive.wavefronts == 16);
  BankConflictResult write = get(analyzeBankConflicts(
      amdLdsGeometry(), pattern, 16, SharedAccessKind::Store));
  CHECK(write.degree == 2);
  CHECK(write.worstPhase == 0);
}

TEST_CASE("bankconflicts: inactive lanes and reporting") {
  BankGeometry g = nvidiaSharedGeometry();
  // Only lanes 0 and 1 of a stride-32-word pattern: 2-way.
  Addresses a(32);
  a[0] = 0;
  a[1] = 128;
  BankConflictResult r = get(analyzeBankConflicts(g, a, 4));
  CHECK(r.activeLanes == 2);
  CHECK(r.wavefronts == 2);
  CHECK(r.degree == 2);
  // Fewer addresses than lanes: the rest are inactive.
  CHECK(get(analyzeBankConflicts(g, Addresses{0, 4, 8}, 4)).activeLanes == 3);
  BankConflictResult none = get(analyzeBankConflicts(g, Addresses(32), 4));
  CHECK(none.wavefronts == 0);
  CHECK(none.idealWavefronts == 0);
  CHECK(none.conflictFree());
  // Quarter-warp 2 (lanes 16-23) all on banks 12-15 of different rows; the
  // other quarters stride 1.
  BankConflictResult q = get(analyzeBankConflicts(
      g,
      perLane(32,
              [](unsigned l) {
                return uint64_t(l / 8 == 2 ? 4096 + 128 * (l % 8) + 48
                                           : 16 * l);
              }),
      16));
  CHECK(q.degree == 8);
  CHECK(q.worstPhase == 2);
  CHECK(q.worstBank == 12);
  CHECK(q.wavefronts == 3 + 8);
}

TEST_CASE("bankconflicts: default phases without a table") {
  BankGeometry g; // 32 x 4-byte banks, 32 lanes, no tables
  CHECK(g.phasesFor(4).size() == 1);
  CHECK(g.phasesFor(8).size() == 2);
  CHECK(g.phasesFor(16).size() == 4);
  CHECK(affine(g, 0, 16, 32, 16).wavefronts == 4);
  BankGeometry wave64;
  wave64.lanes = 64;
  // A sub-word lane still takes a bank slot: 32 lanes per phase, not 128.
  CHECK(wave64.phasesFor(1).size() == 2);
  CHECK(wave64.phasesFor(16).size() == 8);
  CHECK(wave64.phasesFor(16)[1].front() == 8);
}

TEST_CASE("bankconflicts: a custom phase larger than one bank cycle") {
  // One phase of all 32 lanes for 16-byte accesses moves 512 bytes, so its
  // ideal is 4 cycles; every word of a wide access occupies its bank.
  BankGeometry g;
  g.phases[16] = contiguousPhases(32, 32);
  BankConflictResult r = affine(g, 0, 16, 32, 16);
  CHECK(r.wavefronts == 4);
  CHECK(r.idealWavefronts == 4);
  CHECK(r.conflictFree());
  BankConflictResult column = affine(g, 0, 128, 32, 16);
  CHECK(column.wavefronts == 32);
  CHECK(column.idealWavefronts == 4);
  CHECK(column.degree == 8);
  // A broadcast shrinks the ideal with the distinct words.
  BankConflictResult same = affine(g, 0, 0, 32, 16);
  CHECK(same.wavefronts == 1);
  CHECK(same.conflictFree());
}

TEST_CASE("bankconflicts: bad input is an error") {
  BankGeometry g = nvidiaSharedGeometry();
  CHECK(errorOf(analyzeBankConflicts(g, Addresses{0, 6}, 4))
            .find("not aligned") != std::string::npos);
  CHECK(errorOf(analyzeBankConflicts(g, Addresses{0, 8}, 16))
            .find("not aligned") != std::string::npos);
  for (unsigned width : {0u, 3u, 12u, 32u})
    CHECK(errorOf(analyzeBankConflicts(g, Addresses{0}, width))
              .find("access width") != std::string::npos);
  CHECK(errorOf(analyzeBankConflicts(g, Addresses(33), 4))
            .find("33 lane addresses") != std::string::npos);
  CHECK(errorOf(analyzeAffineBankConflicts(g, 0, 4, 33, 4))
            .find("active lanes") != std::string::npos);
  CHECK(errorOf(analyzeAffineBankConflicts(g, 8, -4, 4, 4))
            .find("out of range") != std::string::npos);
  CHECK(errorOf(analyzeAffineBankConflicts(g, 0, INT64_MAX, 3, 4))
            .find("overflows") != std::string::npos);

  BankGeometry bad = g;
  bad.banks = 0;
  CHECK(errorOf(analyzeBankConflicts(bad, Addresses{0}, 4)).find("nonzero") !=
        std::string::npos);
  bad = g;
  bad.phases[4] = {{0, 1}, {1, 2}};
  CHECK(errorOf(analyzeBankConflicts(bad, Addresses{0}, 4))
            .find("more than one phase") != std::string::npos);
  bad.phases[4] = {{0, 40}};
  CHECK(errorOf(analyzeBankConflicts(bad, Addresses{0}, 4)).find("lane 40") !=
        std::string::npos);
  bad.phases[4] = {{0, 1}};
  CHECK(errorOf(analyzeBankConflicts(bad, Addresses{0, 4, 8}, 4))
            .find("active lane 2 is in no phase") != std::string::npos);
  // An uncovered lane is fine while it is inactive.
  CHECK(errorOf(analyzeBankConflicts(bad, Addresses{0, 4, std::nullopt}, 4))
            .empty());
}
