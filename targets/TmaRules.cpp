//===- TmaRules.cpp - TMA tensor-map legality
//-------------------------------===//
//
// Each rule below cites cuda.h (CUDA 13.0, the comment above
// cuTensorMapEncodeTiled) or, where the driver disagrees with that text, the
// measurement (H100, driver 580.159.04; tests/e2e/targets/tma/README.md).
//
//===----------------------------------------------------------------------===//
#include "targets/TmaRules.h"
#include "targets/TargetModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace kcc;

namespace {
// CUtensorMapDataType values.
enum : int64_t {
  kFloat16 = 6,
  kFloat32 = 7,
  kFloat32Ftz = 10,
  kTFloat32 = 11,
  kTFloat32Ftz = 12,
  k16U4Align8B = 13,
  k16U4Align16B = 14,
  k16U6Align16B = 15,
  kNumDataTypes = 16,
};
enum : int64_t { kInterleaveNone = 0, kInterleave32B = 2, kNumInterleave = 3 };
enum : int64_t {
  kSwizzleNone = 0,
  kSwizzle32B = 1,
  kSwizzle64B = 2,
  kNumSwizzle = 7
};
constexpr int64_t kNumL2Promotion = 4;
constexpr int64_t kNumOobFill = 2;
constexpr int64_t kOobFillNan = 1;

const llvm::StringRef kRuleNames[] = {
    "tma-unsupported",     "dtype-enum",        "dtype-arch",
    "rank-range",          "rank-interleave",   "interleave-enum",
    "swizzle-enum",        "swizzle-arch",      "l2-promotion-enum",
    "oob-fill-enum",       "oob-fill-float",    "address-alignment",
    "global-dim-range",    "global-dim-packed", "global-stride-alignment",
    "global-stride-range", "box-dim-range",     "box-inner-bytes",
    "box-inner-packed",    "box-bytes",         "element-stride-range",
    "swizzle-span",        "packed-interleave", "packed-swizzle",
};

bool isPacked16B(int64_t dtype) {
  return dtype == k16U4Align16B || dtype == k16U6Align16B;
}

/// Bytes of `elems` elements of the innermost dimension. The 16-byte aligned
/// packed types store 16 values per 16 bytes.
uint64_t innerBytes(int64_t dtype, uint64_t elems) {
  if (isPacked16B(dtype))
    return (elems + 15) / 16 * 16;
  return (elems * tmaElementBits(dtype) + 7) / 8;
}

int64_t at(const std::vector<int64_t> &v, int64_t i) {
  return i < static_cast<int64_t>(v.size()) ? v[i] : 0;
}
} // namespace

unsigned kcc::tmaElementBits(int64_t dtype) {
  static const unsigned bits[kNumDataTypes] = {8,  16, 32, 32, 64, 64, 16, 32,
                                               64, 16, 32, 32, 32, 4,  4,  6};
  return dtype >= 0 && dtype < kNumDataTypes ? bits[dtype] : 0;
}

llvm::ArrayRef<llvm::StringRef> kcc::tmaRuleNames() { return kRuleNames; }

TmaVerdict kcc::checkTmaTensorMap(const TargetModel &target,
                                  const TmaTensorMapParams &p) {
  TmaVerdict verdict;
  auto fail = [&](llvm::StringRef rule, std::string message) {
    assert(llvm::is_contained(kRuleNames, rule) && "undocumented rule");
    verdict.failures.push_back({rule, std::move(message)});
  };
  const TmaModel &tma = target.tma;
  if (!tma.supported) {
    fail("tma-unsupported",
         target.name + " has no Tensor Memory Accelerator (TMA needs sm_90+)");
    return verdict;
  }

  // Enumerations. Out-of-range values make the other rules meaningless.
  bool dtypeKnown = p.dtype >= 0 && p.dtype < kNumDataTypes;
  if (!dtypeKnown)
    fail("dtype-enum", llvm::formatv("data type {0} is not a "
                                     "CUtensorMapDataType (0-15)",
                                     p.dtype));
  else if (p.dtype >= k16U4Align8B && !tma.packedTypes)
    // Measured: sm_90 refuses the packed 16U4/16U6 types outright.
    fail("dtype-arch",
         llvm::formatv("packed data type {0} (16U4/16U6) is not available on "
                       "{1}",
                       p.dtype, target.name));
  if (p.interleave < 0 || p.interleave >= kNumInterleave)
    fail("interleave-enum",
         llvm::formatv("interleave {0} is not a CUtensorMapInterleave (0-2)",
                       p.interleave));
  if (p.swizzle < 0 || p.swizzle >= kNumSwizzle)
    fail("swizzle-enum", llvm::formatv("swizzle {0} is not a "
                                       "CUtensorMapSwizzle (0-6)",
                                       p.swizzle));
  else if (!llvm::is_contained(tma.swizzleModes,
                               static_cast<unsigned>(p.swizzle)))
    // Measured: sm_90 refuses the 128B_ATOM_* modes (4-6).
    fail("swizzle-arch", llvm::formatv("swizzle mode {0} is not available on "
                                       "{1}",
                                       p.swizzle, target.name));
  if (p.l2Promotion < 0 || p.l2Promotion >= kNumL2Promotion)
    fail("l2-promotion-enum",
         llvm::formatv("L2 promotion {0} is not a CUtensorMapL2promotion "
                       "(0-3)",
                       p.l2Promotion));
  if (p.oobFill < 0 || p.oobFill >= kNumOobFill)
    fail("oob-fill-enum",
         llvm::formatv("OOB fill {0} is not a CUtensorMapFloatOOBfill (0-1)",
                       p.oobFill));
  else if (p.oobFill == kOobFillNan && dtypeKnown &&
           !(p.dtype >= kFloat16 && p.dtype <= kTFloat32Ftz))
    fail("oob-fill-float", "NaN OOB fill needs a floating-point data type");

  // Rank. Without a valid rank the arrays cannot be read.
  if (p.rank < 1 || p.rank > static_cast<int64_t>(tma.maxRank)) {
    fail("rank-range",
         llvm::formatv("rank {0} is outside 1..{1}", p.rank, tma.maxRank));
    return verdict;
  }
  bool interleaved = p.interleave != kInterleaveNone;
  if (interleaved && p.rank < 3)
    fail("rank-interleave",
         llvm::formatv("an interleaved layout needs rank >= 3, got {0}",
                       p.rank));

  // Global address and strides: 16-byte granules, 32 for INTERLEAVE_32B and
  // the 16-byte aligned packed types.
  bool wide = p.interleave == kInterleave32B || isPacked16B(p.dtype);
  int64_t align = wide ? 32 : 16;
  if (p.addressMod < 0 || p.addressMod % align != 0)
    fail("address-alignment",
         llvm::formatv("global address offset {0} is not a multiple of {1} "
                       "bytes",
                       p.addressMod, align));

  for (int64_t i = 0; i < p.rank; ++i) {
    int64_t d = at(p.globalDim, i);
    if (d < 1 || static_cast<uint64_t>(d) > (uint64_t{1} << 32)) {
      fail("global-dim-range",
           llvm::formatv("globalDim[{0}] = {1} is outside 1..2^32", i, d));
      break;
    }
  }
  if (dtypeKnown) {
    int64_t d0 = at(p.globalDim, 0);
    if (isPacked16B(p.dtype) && d0 % 128 != 0)
      fail("global-dim-packed",
           llvm::formatv("globalDim[0] = {0} must be a multiple of 128 for "
                         "the 16-byte aligned packed types",
                         d0));
    else if (p.dtype == k16U4Align8B && d0 % 2 != 0)
      fail("global-dim-packed",
           llvm::formatv("globalDim[0] = {0} must be even for 16U4_ALIGN8B",
                         d0));
  }

  for (int64_t i = 0; i + 1 < p.rank; ++i) {
    int64_t s = at(p.globalStrides, i);
    if (s < 0 || s % align != 0) {
      fail("global-stride-alignment",
           llvm::formatv("globalStrides[{0}] = {1} is not a multiple of {2} "
                         "bytes",
                         i, s, align));
      break;
    }
  }
  for (int64_t i = 0; i + 1 < p.rank; ++i) {
    int64_t s = at(p.globalStrides, i);
    if (s >= (int64_t{1} << 40)) {
      fail("global-stride-range",
           llvm::formatv("globalStrides[{0}] = {1} is not below 2^40", i, s));
      break;
    }
  }
  // The driver does not check that strides cover the dimensions below them
  // (measured: overlapping and decreasing strides are accepted).

  bool boxOk = true;
  for (int64_t i = 0; i < p.rank; ++i) {
    int64_t b = at(p.boxDim, i);
    if (b < 1 || b > static_cast<int64_t>(tma.maxBoxDim)) {
      fail("box-dim-range", llvm::formatv("boxDim[{0}] = {1} is outside "
                                          "1..{2}",
                                          i, b, tma.maxBoxDim));
      boxOk = false;
      break;
    }
  }
  bool stridesOk = true;
  for (int64_t i = 0; i < p.rank; ++i) {
    int64_t e = at(p.elementStrides, i);
    if (e < 1 || e > static_cast<int64_t>(tma.maxElementStride)) {
      fail("element-stride-range",
           llvm::formatv("elementStrides[{0}] = {1} is outside 1..{2} (the "
                         "driver checks dimension 0 too)",
                         i, e, tma.maxElementStride));
      stridesOk = false;
      break;
    }
  }
  if (dtypeKnown && boxOk) {
    int64_t box0 = at(p.boxDim, 0);
    uint64_t rowBytes = innerBytes(p.dtype, static_cast<uint64_t>(box0));
    // cuda.h states this for INTERLEAVE_NONE only; measured: the driver
    // requires it for the interleaved layouts too.
    if ((box0 * tmaElementBits(p.dtype)) % 128 != 0)
      fail("box-inner-bytes",
           llvm::formatv("boxDim[0] = {0} elements is {1} bits, not a "
                         "multiple of 16 bytes",
                         box0, box0 * tmaElementBits(p.dtype)));
    if (isPacked16B(p.dtype) && box0 != 128)
      fail("box-inner-packed",
           llvm::formatv("boxDim[0] must be 128 for the 16-byte aligned "
                         "packed types, got {0}",
                         box0));
    if (!interleaved && p.swizzle > kSwizzleNone && p.swizzle < kNumSwizzle) {
      uint64_t span = p.swizzle == kSwizzle32B   ? 32
                      : p.swizzle == kSwizzle64B ? 64
                                                 : 128;
      if (rowBytes > span)
        fail("swizzle-span",
             llvm::formatv("the box's inner dimension is {0} bytes, more "
                           "than the {1}-byte swizzle span",
                           rowBytes, span));
    }
    if (stridesOk) {
      // Measured: the driver refuses a box whose bytes exceed the shared
      // memory of an SM, and it counts boxDim[i] / elementStrides[i] with
      // integer division (dimension 0 included; a stride larger than the box
      // makes the count zero and the box passes).
      uint64_t bits = tmaElementBits(p.dtype);
      uint64_t elems = 1;
      for (int64_t i = 0; i < p.rank; ++i)
        elems *=
            static_cast<uint64_t>(at(p.boxDim, i) / at(p.elementStrides, i));
      uint64_t bytes = (elems * bits + 7) / 8;
      if (bytes > tma.maxBoxBytes)
        fail("box-bytes",
             llvm::formatv("the box holds {0} bytes (boxDim / elementStrides "
                           "per dimension), more than {1}",
                           bytes, tma.maxBoxBytes));
    }
  }

  // Packed-type restrictions (cuda.h; not measurable on sm_90, which refuses
  // the packed types altogether).
  if (p.dtype == k16U6Align16B && interleaved)
    fail("packed-interleave", "16U6_ALIGN16B requires INTERLEAVE_NONE");
  if (isPacked16B(p.dtype) && p.swizzle >= 0 && p.swizzle < kNumSwizzle) {
    // 16U6 also allows 128B_ATOM_64B (stores only; a tensor map does not
    // know its direction, so the predicate accepts it).
    static const int64_t u6[] = {0, 3, 4, 6};
    static const int64_t u4[] = {0, 3, 4};
    bool ok = p.dtype == k16U6Align16B ? llvm::is_contained(u6, p.swizzle)
                                       : llvm::is_contained(u4, p.swizzle);
    if (!ok)
      fail("packed-swizzle",
           llvm::formatv("swizzle {0} is not allowed with packed type {1} "
                         "(NONE, 128B, 128B_ATOM_32B; 128B_ATOM_64B for "
                         "16U6 stores)",
                         p.swizzle, p.dtype));
  }
  return verdict;
}
