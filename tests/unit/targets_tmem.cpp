// Unit tests for the Blackwell TMEM / tcgen05 rules: allocation sizes (as
// CUDA 13.0 ptxas checks them for sm_100a), the alloc/dealloc tracker, the
// warp-to-lane partition, the tcgen05 shared-memory descriptor worked out by
// hand from the PTX ISA bit layout, the tcgen05.mma shape table and
// instruction descriptors.
#include "targets/PtxInlineAsm.h"
#include "targets/TmemRules.h"

#include "tests/unit/RuleTestUtil.h"

#include <doctest/doctest.h>

#include <optional>
#include <vector>

using namespace kcc;

using kcc::test::ruleOf;
using kcc::test::valueOf;

namespace {

Tcgen05DescriptorFields fields(uint32_t start, uint32_t lbo, uint32_t sbo,
                               Tcgen05Swizzle swizzle, uint8_t baseOffset = 0) {
  Tcgen05DescriptorFields f;
  f.startAddress = start;
  f.leadingByteOffset = lbo;
  f.strideByteOffset = sbo;
  f.swizzle = swizzle;
  f.baseOffset = baseOffset;
  return f;
}

TmemEvent alloc(unsigned id, unsigned n) {
  return {TmemEvent::Kind::Alloc, id, n};
}
TmemEvent dealloc(unsigned id, unsigned n) {
  return {TmemEvent::Kind::Dealloc, id, n};
}
TmemEvent relinquish() { return {TmemEvent::Kind::RelinquishAllocPermit}; }
TmemEvent exitEvent() { return {TmemEvent::Kind::Exit}; }
} // namespace

TEST_CASE("tmem alloc sizes match ptxas") {
  // ptxas -arch=sm_100a on tcgen05.alloc.cta_group::1 with an immediate
  // nCols: "out of range [32..512]" for 0, 1, 16, 31, 513, 1024; "must be
  // power of 2" for 48, 96, 384; accepted 32, 64, 128, 256, 512.
  CHECK(ruleOf(checkTmemAlloc(0)) == "tmem-alloc-min");
  CHECK(ruleOf(checkTmemAlloc(16)) == "tmem-alloc-min");
  CHECK(ruleOf(checkTmemAlloc(31)) == "tmem-alloc-min");
  CHECK(ruleOf(checkTmemAlloc(32)).empty());
  CHECK(ruleOf(checkTmemAlloc(48)) == "tmem-alloc-power-of-two");
  CHECK(ruleOf(checkTmemAlloc(64)).empty());
  CHECK(ruleOf(checkTmemAlloc(96)) == "tmem-alloc-power-of-two");
  CHECK(ruleOf(checkTmemAlloc(128)).empty());
  CHECK(ruleOf(checkTmemAlloc(256)).empty());
  CHECK(ruleOf(checkTmemAlloc(384)) == "tmem-alloc-power-of-two");
  CHECK(ruleOf(checkTmemAlloc(512)).empty());
  CHECK(ruleOf(checkTmemAlloc(513)) == "tmem-alloc-max");
  CHECK(ruleOf(checkTmemAlloc(1024)) == "tmem-alloc-max");
}

TEST_CASE("tmem tracker: balanced sequences pass") {
  CHECK(ruleOf(checkTmemEvents({})).empty());
  CHECK(ruleOf(checkTmemEvents({alloc(1, 256), alloc(2, 256), dealloc(1, 256),
                                dealloc(2, 256), exitEvent()}))
            .empty());
  // Relinquishing stops allocation, not deallocation.
  CHECK(ruleOf(checkTmemEvents({alloc(1, 512), relinquish(), dealloc(1, 512)}))
            .empty());
  // Columns freed by a dealloc can be allocated again.
  CHECK(ruleOf(checkTmemEvents({alloc(1, 512), dealloc(1, 512), alloc(2, 512),
                                dealloc(2, 512)}))
            .empty());

  TmemAllocTracker tracker;
  CHECK(ruleOf(tracker.alloc(7, 128)).empty());
  CHECK(ruleOf(tracker.alloc(8, 32)).empty());
  CHECK(tracker.columnsInUse() == 160);
  CHECK(ruleOf(tracker.dealloc(7, 128)).empty());
  CHECK(tracker.columnsInUse() == 32);
  CHECK(ruleOf(tracker.dealloc(8, 32)).empty());
  CHECK(ruleOf(tracker.exit()).empty());
}

TEST_CASE("tmem tracker: each failing rule") {
  // 4 x 128 fills the 512 columns exactly; one more column group does not fit.
  CHECK(ruleOf(checkTmemEvents({alloc(1, 128), alloc(2, 128), alloc(3, 128),
                                alloc(4, 128), dealloc(1, 128), dealloc(2, 128),
                                dealloc(3, 128), dealloc(4, 128)}))
            .empty());
  CHECK(ruleOf(checkTmemEvents({alloc(1, 128), alloc(2, 128), alloc(3, 128),
                                alloc(4, 128), alloc(5, 32)})) ==
        "tmem-capacity");
  CHECK(ruleOf(checkTmemEvents({alloc(1, 256), alloc(2, 512)})) ==
        "tmem-capacity");
  CHECK(ruleOf(checkTmemEvents({alloc(1, 48)})) == "tmem-alloc-power-of-two");
  CHECK(ruleOf(checkTmemEvents({dealloc(3, 32)})) ==
        "tmem-dealloc-unallocated");
  CHECK(
      ruleOf(checkTmemEvents({alloc(1, 64), dealloc(1, 64), dealloc(1, 64)})) ==
      "tmem-dealloc-unallocated");
  CHECK(ruleOf(checkTmemEvents({alloc(1, 64), dealloc(1, 32)})) ==
        "tmem-dealloc-size-mismatch");
  CHECK(ruleOf(checkTmemEvents({alloc(1, 64), alloc(1, 64)})) ==
        "tmem-double-alloc");
  CHECK(ruleOf(checkTmemEvents({relinquish(), alloc(1, 32)})) ==
        "tmem-alloc-after-relinquish");
  CHECK(ruleOf(checkTmemEvents({alloc(1, 32), exitEvent()})) == "tmem-leak");
  CHECK(ruleOf(checkTmemEvents({alloc(1, 32)})) == "tmem-leak");
  CHECK(ruleOf(checkTmemEvents({exitEvent(), alloc(1, 32)})) ==
        "tmem-event-after-exit");

  // Messages point at the event, or at the implicit exit.
  std::string text = llvm::toString(
      checkTmemEvents({alloc(1, 64), alloc(2, 64), dealloc(3, 64)}));
  CHECK(text.find("tmem-dealloc-unallocated: event 2:") == 0);
  text = llvm::toString(checkTmemEvents({alloc(1, 64)}));
  CHECK(text.find("tmem-leak: implicit exit:") == 0);
}

TEST_CASE("tmem lanes: warp w reaches lanes 32*(w%4) .. +31") {
  for (unsigned warp = 0; warp < 8; ++warp) {
    TmemLaneRange range = tmemLanesForWarp(warp);
    CHECK(range.first == 32 * (warp % 4));
    CHECK(range.count == 32);
  }
  CHECK(tmemLanesForWarp(4).first == 0);
  CHECK(tmemLanesForWarp(7).first == 96);

  // Every (warp, lane) pair of two warpgroups: allowed exactly when the lane
  // lies in the warp's quarter.
  for (unsigned warp = 0; warp < 8; ++warp)
    for (unsigned lane = 0; lane < 128; ++lane) {
      CAPTURE(warp);
      CAPTURE(lane);
      bool own = lane / 32 == warp % 4;
      CHECK(ruleOf(checkTmemAccess(warp, lane, 1)) ==
            (own ? "" : "tmem-lane-partition"));
    }

  CHECK(ruleOf(checkTmemAccess(5, 32, 32)).empty());
  CHECK(ruleOf(checkTmemAccess(5, 48, 16)).empty()); // .16x* shapes
  CHECK(ruleOf(checkTmemAccess(5, 56, 16)) == "tmem-lane-partition");
  CHECK(ruleOf(checkTmemAccess(5, 0, 32)) == "tmem-lane-partition");
  CHECK(ruleOf(checkTmemAccess(3, 96, 32)).empty());
  CHECK(ruleOf(checkTmemAccess(3, 120, 16)) == "tmem-lane-range");
  CHECK(ruleOf(checkTmemAccess(3, 128, 1)) == "tmem-lane-range");
  CHECK(ruleOf(checkTmemAccess(0, 0, 0)) == "tmem-lane-range");
}

TEST_CASE("tcgen05 descriptor: 128B-swizzled K-major f16 tile, by hand") {
  // The tile of the wgmma example (shared 0x2000, LBO 16, SBO 1024, 128 B
  // swizzle) in the tcgen05 layout:
  //   start 0x2000 >> 4 = 0x200; LBO 16 >> 4 = 1 -> 0x10000;
  //   SBO 1024 >> 4 = 0x40 -> 0x40 << 32 = 0x0000004000000000;
  //   fixed 0b001 at bits 46-48 -> 1 << 46 = 0x0000400000000000;
  //   base offset 0, LBO mode 0 (relative);
  //   swizzle 128B = 2 at bits 61-63 -> 2 << 61 = 0x4000000000000000.
  //   = 0x4000404000010200
  CHECK(valueOf(encodeTcgen05Descriptor(fields(
            0x2000, 16, 1024, Tcgen05Swizzle::B128))) == 0x4000404000010200ull);

  // 128B with 32B atoms is encoding 1: bit 61 alone.
  //   0x0000404000010200 | 1 << 61 (0x2000000000000000) = 0x2000404000010200
  CHECK(valueOf(encodeTcgen05Descriptor(
            fields(0x2000, 16, 1024, Tcgen05Swizzle::B128Base32B))) ==
        0x2000404000010200ull);
}

TEST_CASE("tcgen05 descriptor = wgmma descriptor + bit 46 for shared modes") {
  // Encodings 0/2/4/6 at bits 61-63 put the wgmma values 0/1/2/3 at bits
  // 62-63, so for the shared swizzle modes the two descriptors differ only
  // in the fixed version bit 46.
  struct Pair {
    WgmmaSwizzle wgmma;
    Tcgen05Swizzle tcgen05;
    uint32_t start;
  };
  const Pair pairs[] = {{WgmmaSwizzle::None, Tcgen05Swizzle::None, 0x400},
                        {WgmmaSwizzle::B128, Tcgen05Swizzle::B128, 0x2000},
                        {WgmmaSwizzle::B64, Tcgen05Swizzle::B64, 0x1200},
                        {WgmmaSwizzle::B32, Tcgen05Swizzle::B32, 0x1100}};
  for (const Pair &p : pairs) {
    WgmmaDescriptorFields w;
    w.startAddress = p.start;
    w.leadingByteOffset = 16;
    w.strideByteOffset = 1024;
    w.swizzle = p.wgmma;
    std::optional<uint64_t> wd = valueOf(encodeWgmmaDescriptor(w));
    std::optional<uint64_t> td =
        valueOf(encodeTcgen05Descriptor(fields(p.start, 16, 1024, p.tcgen05)));
    if (wd && td)
      CHECK((*wd ^ *td) == (uint64_t(1) << 46));
  }
}

TEST_CASE("tcgen05 descriptor: decode inverts encode") {
  const Tcgen05Swizzle modes[] = {
      Tcgen05Swizzle::None, Tcgen05Swizzle::B128Base32B, Tcgen05Swizzle::B128,
      Tcgen05Swizzle::B64, Tcgen05Swizzle::B32};
  for (Tcgen05Swizzle mode : modes) {
    // 0x3F80 is 128 B aligned but on no repeat boundary: base offset 7.
    Tcgen05DescriptorFields f = fields(0x3F80, 0x80, 0x3FFF0, mode);
    f.baseOffset = mode == Tcgen05Swizzle::None ? 0 : 7;
    CAPTURE(static_cast<unsigned>(mode));
    std::optional<uint64_t> desc = valueOf(encodeTcgen05Descriptor(f));
    if (!desc)
      continue;
    std::optional<Tcgen05DescriptorFields> back =
        valueOf(decodeTcgen05Descriptor(*desc));
    if (!back)
      continue;
    CHECK(back->startAddress == f.startAddress);
    CHECK(back->leadingByteOffset == f.leadingByteOffset);
    CHECK(back->strideByteOffset == f.strideByteOffset);
    CHECK(back->baseOffset == f.baseOffset);
    CHECK(back->lboMode == f.lboMode);
    CHECK(back->swizzle == f.swizzle);
  }
  // The absolute LBO mode (sm_103a) sets bit 52 and survives the round trip.
  Tcgen05DescriptorFields abs =
      fields(0x2000, 0x3000, 1024, Tcgen05Swizzle::B128);
  abs.lboMode = Tcgen05LboMode::Absolute;
  std::optional<uint64_t> desc =
      valueOf(encodeTcgen05Descriptor(abs, /*absoluteLboSupported=*/true));
  if (!desc)
    return;
  CHECK((*desc >> 52 & 1) == 1);
  std::optional<Tcgen05DescriptorFields> back =
      valueOf(decodeTcgen05Descriptor(*desc));
  if (back)
    CHECK(back->lboMode == Tcgen05LboMode::Absolute);
}

TEST_CASE("tcgen05 descriptor: invalid swizzle encodings 3, 5, 7") {
  const uint64_t valid = 0x0000404000010200ull; // no swizzle, version 1
  for (unsigned encoding = 0; encoding < 8; ++encoding) {
    CAPTURE(encoding);
    bool invalid = encoding == 3 || encoding == 5 || encoding == 7;
    uint64_t desc = valid | (uint64_t(encoding) << 61);
    CHECK(ruleOf(decodeTcgen05Descriptor(desc)) ==
          (invalid ? "tcgen05-desc-swizzle-mode" : ""));
    // 0x2000 is on every repeat boundary, so base offset 0 fits every mode.
    CHECK(ruleOf(encodeTcgen05Descriptor(fields(
              0x2000, 16, 1024, static_cast<Tcgen05Swizzle>(encoding)))) ==
          (invalid ? "tcgen05-desc-swizzle-mode" : ""));
  }
}

TEST_CASE("tcgen05 descriptor: field rules") {
  const uint32_t top = (1u << 18) - 16;
  CHECK(ruleOf(encodeTcgen05Descriptor(
                   fields(top, top, top, Tcgen05Swizzle::None)))
            .empty());
  CHECK(ruleOf(encodeTcgen05Descriptor(
            fields(1u << 18, 16, 16, Tcgen05Swizzle::None))) ==
        "tcgen05-desc-start-range");
  CHECK(ruleOf(encodeTcgen05Descriptor(
            fields(15, 16, 16, Tcgen05Swizzle::None))) ==
        "tcgen05-desc-start-alignment");
  CHECK(ruleOf(encodeTcgen05Descriptor(fields(
            16, 16, 8, Tcgen05Swizzle::None))) == "tcgen05-desc-sbo-alignment");
  // 64B swizzle repeats every 512 B: 768 needs base offset (768 >> 7) & 7.
  CHECK(ruleOf(encodeTcgen05Descriptor(fields(
            768, 16, 512, Tcgen05Swizzle::B64))) == "tcgen05-desc-base-offset");
  CHECK(ruleOf(encodeTcgen05Descriptor(
                   fields(768, 16, 512, Tcgen05Swizzle::B64, 6)))
            .empty());
  CHECK(ruleOf(encodeTcgen05Descriptor(
            fields(1024, 16, 1024, Tcgen05Swizzle::None, 2))) ==
        "tcgen05-desc-base-offset-unswizzled");

  Tcgen05DescriptorFields abs =
      fields(0x2000, 0x3000, 1024, Tcgen05Swizzle::B128);
  abs.lboMode = Tcgen05LboMode::Absolute;
  CHECK(ruleOf(encodeTcgen05Descriptor(abs)) == "tcgen05-desc-lbo-mode");
  CHECK(ruleOf(encodeTcgen05Descriptor(abs, true)).empty());
}

TEST_CASE("tcgen05 descriptor: decode checks the fixed and reserved bits") {
  // A wgmma descriptor has 0 where tcgen05 needs 0b001.
  CHECK(ruleOf(decodeTcgen05Descriptor(0x4000004000010200ull)) ==
        "tcgen05-desc-version");
  CHECK(ruleOf(decodeTcgen05Descriptor(0x4000404000010200ull |
                                       (uint64_t(1) << 47))) ==
        "tcgen05-desc-version");
  const unsigned reservedBits[] = {14, 15, 30, 31, 53, 60};
  for (unsigned bit : reservedBits) {
    CAPTURE(bit);
    CHECK(ruleOf(decodeTcgen05Descriptor(0x4000404000010200ull |
                                         (uint64_t(1) << bit))) ==
          "tcgen05-desc-reserved-bits");
  }
}

TEST_CASE("tcgen05.mma shapes, cta_group::1") {
  CHECK(isLegalTcgen05MmaShape(Tcgen05Kind::F16, 64, 8, 16));
  CHECK(isLegalTcgen05MmaShape(Tcgen05Kind::F16, 128, 8, 16));
  CHECK(isLegalTcgen05MmaShape(Tcgen05Kind::F16, 128, 256, 16));
  std::string reason;
  CHECK_FALSE(isLegalTcgen05MmaShape(Tcgen05Kind::F16, 128, 260, 16, &reason));
  CHECK(reason.find("tcgen05-shape-n:") == 0);
  CHECK_FALSE(isLegalTcgen05MmaShape(Tcgen05Kind::F16, 64, 12, 16, &reason));
  CHECK(reason.find("tcgen05-shape-n:") == 0);
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::F16, 96, 64, 16)) ==
        "tcgen05-shape-m");
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::F16, 256, 64, 16)) ==
        "tcgen05-shape-m");
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::F16, 128, 64, 32)) ==
        "tcgen05-shape-k");
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::TF32, 128, 64, 8)).empty());
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::F8F6F4, 64, 8, 32)).empty());

  // i8: N = 8 or a multiple of 16.
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::I8, 128, 8, 32)).empty());
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::I8, 128, 16, 32)).empty());
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::I8, 128, 24, 32)) ==
        "tcgen05-shape-n");
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::I8, 64, 256, 32)).empty());

  // Block-scaled kinds: M = 128 only.
  CHECK(
      ruleOf(checkTcgen05MmaShape(Tcgen05Kind::MXF8F6F4, 128, 8, 32)).empty());
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::MXF8F6F4, 64, 8, 32)) ==
        "tcgen05-shape-m");
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::MXF4, 128, 256, 64)).empty());
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::MXF4NVF4, 128, 64, 32)) ==
        "tcgen05-shape-k");

  // A in TMEM with M = 128 needs N a multiple of 16.
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::F16, 128, 8, 16,
                                    Tcgen05ASource::TensorMemory)) ==
        "tcgen05-shape-n-tmem-a");
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::F16, 128, 16, 16,
                                    Tcgen05ASource::TensorMemory))
            .empty());
  CHECK(ruleOf(checkTcgen05MmaShape(Tcgen05Kind::F16, 64, 8, 16,
                                    Tcgen05ASource::TensorMemory))
            .empty());

  // Counting the legal N of each row pins the whole table.
  struct Count {
    Tcgen05Kind kind;
    unsigned m, k, legalN;
  };
  const Count counts[] = {
      {Tcgen05Kind::F16, 64, 16, 32},   {Tcgen05Kind::F16, 128, 16, 32},
      {Tcgen05Kind::TF32, 128, 8, 32},  {Tcgen05Kind::F8F6F4, 128, 32, 32},
      {Tcgen05Kind::I8, 128, 32, 17},   {Tcgen05Kind::MXF8F6F4, 128, 32, 32},
      {Tcgen05Kind::MXF4, 128, 64, 32}, {Tcgen05Kind::MXF4NVF4, 128, 64, 32},
  };
  for (const Count &c : counts) {
    CAPTURE(tcgen05KindName(c.kind).str());
    unsigned legal = 0;
    for (unsigned n = 0; n <= 300; ++n)
      legal += isLegalTcgen05MmaShape(c.kind, c.m, n, c.k);
    CHECK(legal == c.legalN);
  }
}

TEST_CASE("tcgen05 instruction descriptor, kind::f16 with f32 D, by hand") {
  // f16 x f16, both K-major, 128 x 256: D format 1 at bit 4, N >> 3 = 32 at
  // bits 17-22, M >> 4 = 8 at bits 24-28.
  CHECK(
      valueOf(encodeTcgen05F16InstrDescriptor(false, false, false, 128, 256)) ==
      ((1u << 4) | (32u << 17) | (8u << 24)));
  // bf16 (format 1 for A at bit 7 and B at bit 10), B MN-major (bit 16),
  // 128 x 64.
  CHECK(valueOf(encodeTcgen05F16InstrDescriptor(true, false, true, 128, 64)) ==
        0x08110490u);
  // A MN-major is bit 15.
  CHECK(valueOf(encodeTcgen05F16InstrDescriptor(false, true, false, 64, 8)) ==
        ((1u << 4) | (1u << 15) | (1u << 17) | (4u << 24)));
  CHECK(ruleOf(encodeTcgen05F16InstrDescriptor(false, false, false, 96, 64)) ==
        "tcgen05-shape-m");
  CHECK(ruleOf(encodeTcgen05F16InstrDescriptor(false, false, false, 128,
                                               260)) == "tcgen05-shape-n");
}

TEST_CASE("tcgen05 instruction descriptor, kind::f8f6f4 with f32 D, by hand") {
  // The field layout of the PTX ISA's instruction-descriptor table (the
  // kind::f8f6f4 column): D format at bits 4-5 (f32 = 1), A's format at
  // 7-9 and B's at 10-12 (e4m3 = 0, e5m2 = 1), the majors at 15 and 16,
  // N >> 3 at 17-22, M >> 4 at 24-28.
  using F = Tcgen05F8F6F4Format;
  // e4m3 x e4m3, both K-major, 128 x 128: 0x10 | 16 << 17 | 8 << 24.
  CHECK(valueOf(encodeTcgen05F8F6F4InstrDescriptor(
            F::E4M3, F::E4M3, false, false, 128, 128)) == 0x08200010u);
  // e5m2 A x e4m3 B (fp8_gemm_mix), 128 x 256: bit 7 only.
  CHECK(valueOf(encodeTcgen05F8F6F4InstrDescriptor(
            F::E5M2, F::E4M3, false, false, 128, 256)) == 0x08400090u);
  // e4m3 A x e5m2 B: bit 10 only.
  CHECK(valueOf(encodeTcgen05F8F6F4InstrDescriptor(
            F::E4M3, F::E5M2, false, false, 128, 64)) == 0x08100410u);
  // e5m2 x e5m2, both MN-major, 64 x 8.
  CHECK(valueOf(encodeTcgen05F8F6F4InstrDescriptor(F::E5M2, F::E5M2, true, true,
                                                   64, 8)) ==
        ((1u << 4) | (1u << 7) | (1u << 10) | (1u << 15) | (1u << 16) |
         (1u << 17) | (4u << 24)));
  // e4m3 x e4m3 has the bits of kind::f16's f16 x f16: only the
  // instruction's .kind tells them apart (the simulator decodes it from
  // the text).
  CHECK(valueOf(encodeTcgen05F8F6F4InstrDescriptor(F::E4M3, F::E4M3, false,
                                                   false, 128, 64)) ==
        valueOf(encodeTcgen05F16InstrDescriptor(false, false, false, 128, 64)));
  // N is any multiple of 8 (kind::i8 refuses 24).
  CHECK(ruleOf(encodeTcgen05F8F6F4InstrDescriptor(F::E4M3, F::E4M3, false,
                                                  false, 128, 24))
            .empty());
  CHECK(ruleOf(encodeTcgen05F8F6F4InstrDescriptor(
            F::E4M3, F::E4M3, false, false, 96, 64)) == "tcgen05-shape-m");
  CHECK(ruleOf(encodeTcgen05F8F6F4InstrDescriptor(
            F::E4M3, F::E4M3, false, false, 128, 260)) == "tcgen05-shape-n");
  // The 6- and 4-bit formats are refused, before the shape.
  for (F f : {F::E2M3, F::E3M2, F::E2M1}) {
    CAPTURE(unsigned(f));
    CHECK(ruleOf(encodeTcgen05F8F6F4InstrDescriptor(
              f, F::E4M3, false, false, 96, 64)) == "tcgen05-f8f6f4-format");
    CHECK(ruleOf(encodeTcgen05F8F6F4InstrDescriptor(
              F::E5M2, f, false, false, 128, 64)) == "tcgen05-f8f6f4-format");
  }
}

TEST_CASE("tcgen05.mma kind::f8f6f4 inline assembly") {
  using namespace kcc::ptx;
  std::string text = format(kTcgen05MmaF8F6F4, AsmFields());
  CHECK(text.find("tcgen05.mma.cta_group::1.kind::f8f6f4 [$0], $1, $2, $3, "
                  "p;") != std::string::npos);
  CHECK(match(kTcgen05MmaF8F6F4, text));
  // The simulator's decoder tells the kinds apart by their text alone.
  CHECK_FALSE(match(kTcgen05Mma, text));
  CHECK_FALSE(match(kTcgen05MmaI8, text));
  CHECK_FALSE(match(kTcgen05MmaF8F6F4, format(kTcgen05Mma, AsmFields())));
  CHECK_FALSE(match(kTcgen05MmaF8F6F4, format(kTcgen05MmaI8, AsmFields())));
}
