// Unit tests for the Hopper wgmma rules: descriptor encoding worked out by
// hand from the PTX ISA bit layout, each rule at its boundary, warpgroups,
// and the shape table against what CUDA 13.0 ptxas accepts for sm_90a.
#include "targets/WgmmaRules.h"

#include "tests/unit/RuleTestUtil.h"

#include <doctest/doctest.h>

#include <optional>
#include <vector>

using namespace kcc;

using kcc::test::ruleOf;
using kcc::test::valueOf;

namespace {

std::vector<std::string> rulesOf(const WgmmaDescriptorFields &fields) {
  std::vector<std::string> names;
  for (const TensorCoreViolation &v : validateWgmmaDescriptor(fields))
    names.push_back(v.rule);
  return names;
}

WgmmaDescriptorFields fields(uint32_t start, uint32_t lbo, uint32_t sbo,
                             WgmmaSwizzle swizzle, uint8_t baseOffset = 0) {
  WgmmaDescriptorFields f;
  f.startAddress = start;
  f.leadingByteOffset = lbo;
  f.strideByteOffset = sbo;
  f.swizzle = swizzle;
  f.baseOffset = baseOffset;
  return f;
}
} // namespace

TEST_CASE("wgmma descriptor: 128B-swizzled K-major f16 tile, by hand") {
  // A 64x64 f16 tile of A, K-major, 128 B swizzle, at shared address 0x2000.
  // Each row of the tile is 64 halves = 128 B; 8 rows form one 1024 B swizzle
  // atom, so the next 8 rows along M are SBO = 1024 B away. LBO is unused by
  // swizzled K-major layouts; the convention is 16 B (encoded 1).
  //   start: (0x2000 & 0x3FFFF) >> 4 = 0x200        -> bits  0-13 = 0x200
  //   LBO:   16 >> 4 = 1                            -> 1 << 16    = 0x10000
  //   SBO:   1024 >> 4 = 0x40                       -> 0x40 << 32
  //   base offset 0: 0x2000 is a multiple of 1024   -> bits 49-51 = 0
  //   swizzle 128B = 1                              -> 1 << 62
  //   0x4000000000000000 | 0x0000004000000000 | 0x10000 | 0x200
  //     = 0x4000004000010200
  CHECK(valueOf(encodeWgmmaDescriptor(fields(
            0x2000, 16, 1024, WgmmaSwizzle::B128))) == 0x4000004000010200ull);
}

TEST_CASE("wgmma descriptor: unswizzled and base-offset examples, by hand") {
  // No swizzle, K-major: 8x8 f16 core matrices of 128 B each; the next core
  // matrix along K is LBO = 128 B away, along M SBO = 256 B, start 0x400.
  //   start 0x400 >> 4 = 0x40; LBO 128 >> 4 = 8 -> 0x80000;
  //   SBO 256 >> 4 = 0x10 -> 0x10 << 32 = 0x1000000000; swizzle 0.
  //   = 0x0000001000080040
  CHECK(valueOf(encodeWgmmaDescriptor(fields(
            0x400, 128, 256, WgmmaSwizzle::None))) == 0x0000001000080040ull);

  // The 128B tile above, but its swizzle pattern starts 3 rows (384 B) past
  // a 1024 B boundary: 0x2180. Base offset = (0x2180 >> 7) & 7 = 0x43 & 7 = 3.
  //   start 0x2180 >> 4 = 0x218; 3 << 49 = 0x0006000000000000
  //   = 0x4000000000000000 | 0x0006000000000000 | 0x0000004000000000
  //     | 0x10000 | 0x218 = 0x4006004000010218
  CHECK(valueOf(encodeWgmmaDescriptor(
            fields(0x2180, 16, 1024, WgmmaSwizzle::B128, 3))) ==
        0x4006004000010218ull);
  CHECK(wgmmaBaseOffsetFor(WgmmaSwizzle::B128, 0x2180) == 3);
}

TEST_CASE("wgmma descriptor: decode inverts encode") {
  const WgmmaDescriptorFields cases[] = {
      fields(0x2000, 16, 1024, WgmmaSwizzle::B128),
      fields(0x2180, 16, 1024, WgmmaSwizzle::B128, 3),
      fields(0x400, 128, 256, WgmmaSwizzle::None),
      fields(0x3FFF0, 0x3FFF0, 0x3FFF0, WgmmaSwizzle::B32, 7 /*0x3FFF0>>7&7*/),
      fields(768, 32, 512, WgmmaSwizzle::B64, 6),
      fields(0, 0, 0, WgmmaSwizzle::None),
  };
  for (const WgmmaDescriptorFields &f : cases) {
    CAPTURE(f.startAddress);
    std::optional<uint64_t> desc = valueOf(encodeWgmmaDescriptor(f));
    if (!desc)
      continue;
    std::optional<WgmmaDescriptorFields> back =
        valueOf(decodeWgmmaDescriptor(*desc));
    if (!back)
      continue;
    CHECK(back->startAddress == f.startAddress);
    CHECK(back->leadingByteOffset == f.leadingByteOffset);
    CHECK(back->strideByteOffset == f.strideByteOffset);
    CHECK(back->baseOffset == f.baseOffset);
    CHECK(back->swizzle == f.swizzle);
    CHECK(valueOf(encodeWgmmaDescriptor(*back)) == desc);
  }
}

TEST_CASE("wgmma descriptor: 16-byte quantization and field range") {
  CHECK(rulesOf(fields(16, 16, 16, WgmmaSwizzle::None)).empty());
  CHECK(rulesOf(fields(15, 16, 16, WgmmaSwizzle::None)) ==
        std::vector<std::string>{"wgmma-desc-start-alignment"});
  CHECK(rulesOf(fields(16, 8, 16, WgmmaSwizzle::None)) ==
        std::vector<std::string>{"wgmma-desc-lbo-alignment"});
  CHECK(rulesOf(fields(16, 16, 24, WgmmaSwizzle::None)) ==
        std::vector<std::string>{"wgmma-desc-sbo-alignment"});

  // 2^18 - 16 is the largest value the 14-bit field holds after >> 4.
  const uint32_t top = (1u << 18) - 16;
  CHECK(rulesOf(fields(top, top, top, WgmmaSwizzle::None)).empty());
  CHECK(rulesOf(fields(1u << 18, 16, 16, WgmmaSwizzle::None)) ==
        std::vector<std::string>{"wgmma-desc-start-range"});
  CHECK(rulesOf(fields(16, 1u << 18, 16, WgmmaSwizzle::None)) ==
        std::vector<std::string>{"wgmma-desc-lbo-range"});
  CHECK(rulesOf(fields(16, 16, 1u << 18, WgmmaSwizzle::None)) ==
        std::vector<std::string>{"wgmma-desc-sbo-range"});

  // All broken rules are listed; encode reports the first.
  CHECK(rulesOf(fields(15, 1u << 18, 16, WgmmaSwizzle::None)) ==
        std::vector<std::string>{"wgmma-desc-start-alignment",
                                 "wgmma-desc-lbo-range"});
  CHECK(ruleOf(encodeWgmmaDescriptor(
            fields(15, 1u << 18, 16, WgmmaSwizzle::None))) ==
        "wgmma-desc-start-alignment");
}

TEST_CASE("wgmma descriptor: swizzle mode and base offset") {
  CHECK(ruleOf(encodeWgmmaDescriptor(
            fields(0, 16, 16, static_cast<WgmmaSwizzle>(4)))) ==
        "wgmma-desc-swizzle-mode");
  CHECK(ruleOf(encodeWgmmaDescriptor(
            fields(1024, 16, 1024, WgmmaSwizzle::B128, 8))) ==
        "wgmma-desc-base-offset-range");
  // The base offset means nothing without swizzling.
  CHECK(ruleOf(encodeWgmmaDescriptor(
            fields(1024, 16, 1024, WgmmaSwizzle::None, 1))) ==
        "wgmma-desc-base-offset-unswizzled");

  // 128B: the pattern repeats every 1024 B.
  CHECK(rulesOf(fields(1024, 16, 1024, WgmmaSwizzle::B128)).empty());
  CHECK(rulesOf(fields(1536, 16, 1024, WgmmaSwizzle::B128)) ==
        std::vector<std::string>{"wgmma-desc-base-offset"});
  CHECK(rulesOf(fields(1536, 16, 1024, WgmmaSwizzle::B128, 4)).empty());
  CHECK(rulesOf(fields(1024, 16, 1024, WgmmaSwizzle::B128, 4)) ==
        std::vector<std::string>{"wgmma-desc-base-offset"});
  // 64B repeats every 512 B, 32B every 256 B.
  CHECK(rulesOf(fields(512, 16, 512, WgmmaSwizzle::B64)).empty());
  CHECK(rulesOf(fields(768, 16, 512, WgmmaSwizzle::B64)) ==
        std::vector<std::string>{"wgmma-desc-base-offset"});
  CHECK(wgmmaBaseOffsetFor(WgmmaSwizzle::B64, 768) == 6);
  CHECK(rulesOf(fields(256, 16, 256, WgmmaSwizzle::B32)).empty());
  CHECK(wgmmaBaseOffsetFor(WgmmaSwizzle::B32, 384) == 3);
  CHECK(rulesOf(fields(384, 16, 256, WgmmaSwizzle::B32, 3)).empty());

  // Stepping K inside a 128 B row (+32 B = 16 halves) keeps the row phase.
  CHECK(rulesOf(fields(1024 + 32, 16, 1024, WgmmaSwizzle::B128)).empty());
  // A start two rows into a pattern that begins on the boundary.
  WgmmaDescriptorFields inside =
      fields(1024 + 256, 16, 1024, WgmmaSwizzle::B128);
  inside.patternStartAddress = 1024;
  CHECK(rulesOf(inside).empty());
  inside.patternStartAddress = 1024 + 64;
  CHECK(rulesOf(inside) ==
        std::vector<std::string>{"wgmma-desc-pattern-alignment"});
}

TEST_CASE("wgmma descriptor: decode rejects reserved bits") {
  CHECK(ruleOf(decodeWgmmaDescriptor(uint64_t(1) << 14)) ==
        "wgmma-desc-reserved-bits");
  CHECK(ruleOf(decodeWgmmaDescriptor(uint64_t(1) << 48)) ==
        "wgmma-desc-reserved-bits");
  CHECK(ruleOf(decodeWgmmaDescriptor(uint64_t(1) << 61)) ==
        "wgmma-desc-reserved-bits");
  // A tcgen05 descriptor carries 0b001 at bits 46-48, reserved for wgmma.
  CHECK(ruleOf(decodeWgmmaDescriptor(0x4000404000010200ull)) ==
        "wgmma-desc-reserved-bits");
  CHECK(ruleOf(decodeWgmmaDescriptor(0x4000004000010200ull)).empty());
}

TEST_CASE("wgmma warpgroups") {
  CHECK(ruleOf(checkWarpgroup(0, 4)).empty());
  CHECK(ruleOf(checkWarpgroup(4, 4)).empty());
  CHECK(ruleOf(checkWarpgroup(12, 4)).empty());
  CHECK(ruleOf(checkWarpgroup(2, 4)) == "warpgroup-alignment");
  CHECK(ruleOf(checkWarpgroup(5, 4)) == "warpgroup-alignment");
  CHECK(ruleOf(checkWarpgroup(0, 3)) == "warpgroup-size");
  CHECK(ruleOf(checkWarpgroup(8, 8)) == "warpgroup-size");
}

TEST_CASE("wgmma descriptor uniformity names the first differing thread") {
  std::vector<uint64_t> descs(128, 0x4000004000010200ull);
  CHECK(ruleOf(checkDescriptorUniform(descs)).empty());

  descs[77] = 0x4000004000010210ull;
  descs[90] = 0;
  std::string text = llvm::toString(checkDescriptorUniform(descs));
  CHECK(text.find("wgmma-desc-uniformity") == 0);
  CHECK(text.find("thread 77 ") != std::string::npos);

  // Thread 1 is the first candidate after the reference thread 0.
  std::vector<uint64_t> second(128, 0);
  second[1] = 1;
  text = llvm::toString(checkDescriptorUniform(second));
  CHECK(text.find("thread 1 ") != std::string::npos);

  descs.assign(127, 0);
  CHECK(ruleOf(checkDescriptorUniform(descs)) == "warpgroup-thread-count");
}

TEST_CASE("wgmma shapes at the table edges") {
  CHECK(isLegalWgmmaShape(WgmmaType::F16, 64, 8, 16));
  CHECK(isLegalWgmmaShape(WgmmaType::F16, 64, 256, 16));
  std::string reason;
  CHECK_FALSE(isLegalWgmmaShape(WgmmaType::F16, 64, 260, 16, &reason));
  CHECK(reason.find("wgmma-shape-n:") == 0);
  CHECK_FALSE(isLegalWgmmaShape(WgmmaType::F16, 64, 12, 16, &reason));
  CHECK(reason.find("wgmma-shape-n:") == 0);
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::F16, 64, 264, 16)) ==
        "wgmma-shape-n");
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::F16, 64, 0, 16)) == "wgmma-shape-n");
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::F16, 128, 64, 16)) ==
        "wgmma-shape-m");
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::F16, 64, 64, 32)) == "wgmma-shape-k");
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::BF16, 64, 64, 16)).empty());
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::TF32, 64, 64, 8)).empty());
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::TF32, 64, 64, 16)) ==
        "wgmma-shape-k");
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::E4M3, 64, 64, 32)).empty());
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::E5M2, 64, 64, 16)) ==
        "wgmma-shape-k");
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::S8, 64, 24, 32)).empty());
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::S8, 64, 40, 32)) == "wgmma-shape-n");
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::U8, 64, 48, 32)).empty());
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::B1, 64, 256, 256)).empty());
  CHECK(ruleOf(checkWgmmaShape(WgmmaType::B1, 64, 256, 128)) ==
        "wgmma-shape-k");
}

TEST_CASE("wgmma shapes agree with ptxas for every N") {
  // The N values CUDA 13.0 ptxas accepted for wgmma.mma_async.m64nNkK on
  // sm_90a when probed with N = 4, 8, ..., 264 (K = 16 for f16/bf16, 8 for
  // tf32, 32 for e4m3/e5m2/s8/u8, 256 for b1); it rejected every other N,
  // M = 32 and 128, and the other K values tried (f16 8/32, tf32 4/16,
  // e4m3 16/64, s8 16, b1 128).
  const std::vector<unsigned> dense = {8,   16,  24,  32,  40,  48,  56,  64,
                                       72,  80,  88,  96,  104, 112, 120, 128,
                                       136, 144, 152, 160, 168, 176, 184, 192,
                                       200, 208, 216, 224, 232, 240, 248, 256};
  const std::vector<unsigned> integer = {8,   16,  24,  32,  48,  64,
                                         80,  96,  112, 128, 144, 160,
                                         176, 192, 208, 224, 240, 256};
  struct Row {
    WgmmaType type;
    unsigned k;
    const std::vector<unsigned> *n;
  };
  const Row rows[] = {
      {WgmmaType::F16, 16, &dense},  {WgmmaType::BF16, 16, &dense},
      {WgmmaType::TF32, 8, &dense},  {WgmmaType::E4M3, 32, &dense},
      {WgmmaType::E5M2, 32, &dense}, {WgmmaType::S8, 32, &integer},
      {WgmmaType::U8, 32, &integer}, {WgmmaType::B1, 256, &integer},
  };
  for (const Row &row : rows) {
    CAPTURE(wgmmaTypeName(row.type).str());
    std::vector<unsigned> accepted;
    for (unsigned n = 0; n <= 300; ++n)
      if (isLegalWgmmaShape(row.type, 64, n, row.k))
        accepted.push_back(n);
    CHECK(accepted == *row.n);
    for (unsigned k : {4u, 8u, 16u, 32u, 64u, 128u, 256u})
      if (k != row.k)
        CHECK_FALSE(isLegalWgmmaShape(row.type, 64, 64, k));
    for (unsigned m : {32u, 128u})
      CHECK_FALSE(isLegalWgmmaShape(row.type, m, 64, row.k));
  }
  CHECK(wgmmaShapeTable().size() == 8);
}

TEST_CASE("wgmma accumulator types") {
  // ptxas: .f16 accumulators for f16 and fp8 inputs, never for bf16/tf32.
  CHECK(ruleOf(checkWgmmaAccumulator(WgmmaType::F16, WgmmaAccum::F16)).empty());
  CHECK(ruleOf(checkWgmmaAccumulator(WgmmaType::F16, WgmmaAccum::F32)).empty());
  CHECK(
      ruleOf(checkWgmmaAccumulator(WgmmaType::E4M3, WgmmaAccum::F16)).empty());
  CHECK(ruleOf(checkWgmmaAccumulator(WgmmaType::BF16, WgmmaAccum::F16)) ==
        "wgmma-accumulator-type");
  CHECK(ruleOf(checkWgmmaAccumulator(WgmmaType::TF32, WgmmaAccum::F16)) ==
        "wgmma-accumulator-type");
  CHECK(ruleOf(checkWgmmaAccumulator(WgmmaType::S8, WgmmaAccum::S32)).empty());
  CHECK(ruleOf(checkWgmmaAccumulator(WgmmaType::S8, WgmmaAccum::F32)) ==
        "wgmma-accumulator-type");
  CHECK(ruleOf(checkWgmmaAccumulator(WgmmaType::F16, WgmmaAccum::S32)) ==
        "wgmma-accumulator-type");
}
