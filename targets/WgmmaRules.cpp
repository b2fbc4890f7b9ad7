//===- WgmmaRules.cpp - Hopper wgmma legality rules -----------------------===//
#include "targets/WgmmaRules.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace kcc;

char TensorCoreRuleError::ID = 0;

void TensorCoreRuleError::log(llvm::raw_ostream &os) const {
  os << violation.rule << ": " << violation.message;
}

llvm::Error kcc::makeRuleError(TensorCoreViolation violation) {
  return llvm::make_error<TensorCoreRuleError>(std::move(violation));
}

std::string kcc::consumeRuleName(llvm::Error err) {
  std::string name;
  llvm::handleAllErrors(
      std::move(err),
      [&](const TensorCoreRuleError &e) { name = e.get().rule; },
      [&](const llvm::ErrorInfoBase &) { name = "<non-rule-error>"; });
  return name;
}

namespace {
// Descriptor bit layout (PTX ISA, wgmma "Matrix Descriptor Format").
constexpr unsigned kStartShift = 0;
constexpr unsigned kLboShift = 16;
constexpr unsigned kSboShift = 32;
constexpr unsigned kBaseOffsetShift = 49;
constexpr unsigned kSwizzleShift = 62;
constexpr uint64_t kField14 = 0x3FFF;
constexpr uint64_t kField3 = 0x7;

// Addresses and offsets are stored as matrix-descriptor-encode(x) =
// (x & 0x3FFFF) >> 4: 16-byte units in a 14-bit field, so the largest
// encodable byte value is 2^18 - 16 and anything at or above 2^18 would wrap.
constexpr uint32_t kEncodeLimit = 1u << 18;
constexpr uint32_t kEncodeQuantum = 16;

uint64_t encode14(uint32_t bytes) { return (bytes & 0x3FFFF) >> 4; }
} // namespace

unsigned kcc::swizzleRepeatBytes(WgmmaSwizzle swizzle) {
  switch (swizzle) {
  case WgmmaSwizzle::None:
    return 0;
  case WgmmaSwizzle::B128:
    return 1024;
  case WgmmaSwizzle::B64:
    return 512;
  case WgmmaSwizzle::B32:
    return 256;
  }
  return 0;
}

uint8_t kcc::wgmmaBaseOffsetFor(WgmmaSwizzle swizzle, uint32_t patternStart) {
  unsigned repeat = swizzleRepeatBytes(swizzle);
  if (repeat == 0 || patternStart % repeat == 0)
    return 0;
  return (patternStart >> 7) & 0x7;
}

void kcc::checkSharedDescriptorFields(
    llvm::StringRef prefix, uint32_t startAddress, uint32_t leadingByteOffset,
    uint32_t strideByteOffset, uint8_t baseOffset, unsigned repeatBytes,
    std::optional<uint32_t> patternStartAddress,
    std::vector<TensorCoreViolation> &out) {
  auto add = [&](llvm::StringRef suffix, std::string message) {
    out.push_back({(prefix + suffix).str(), std::move(message)});
  };
  struct Quantity {
    const char *suffix;
    const char *what;
    uint32_t bytes;
  };
  const Quantity quantities[] = {
      {"-start", "matrix start address", startAddress},
      {"-lbo", "leading dimension byte offset", leadingByteOffset},
      {"-sbo", "stride dimension byte offset", strideByteOffset},
  };
  for (const Quantity &q : quantities) {
    if (q.bytes % kEncodeQuantum != 0)
      add(std::string(q.suffix) + "-alignment",
          llvm::formatv("{0} {1} is not a multiple of 16 bytes; the "
                        "descriptor drops its low 4 bits",
                        q.what, q.bytes));
    if (q.bytes >= kEncodeLimit)
      add(std::string(q.suffix) + "-range",
          llvm::formatv("{0} {1} does not fit the 14-bit field (largest "
                        "encodable value is {2})",
                        q.what, q.bytes, kEncodeLimit - kEncodeQuantum));
  }

  if (baseOffset > kField3) {
    add("-base-offset-range",
        llvm::formatv("base offset {0} does not fit the 3-bit field",
                      unsigned(baseOffset)));
    return;
  }
  if (repeatBytes == 0) {
    // The PTX ISA defines the base offset only for swizzled layouts.
    if (baseOffset != 0)
      add("-base-offset-unswizzled",
          llvm::formatv("base offset {0} is set but the layout is not "
                        "swizzled",
                        unsigned(baseOffset)));
    return;
  }

  // Swizzling permutes the 16 B chunks of a row by the row's index inside the
  // pattern, which repeats every 8 rows: 1024/512/256 B for 128/64/32 B
  // swizzle. The index comes from address bits 7-9, so a pattern that does
  // not start on a repeat boundary is out of phase, and the PTX ISA has the
  // descriptor carry the phase: base offset = (pattern start >> 7) & 7, and 0
  // exactly when the pattern starts on the boundary. A pattern start that is
  // not a multiple of 128 B has a phase those 3 bits cannot express.
  // Advancing the start inside one 128 B row (the K step of a K-major tile)
  // keeps bits 7-9, so the start address stands in for the pattern start
  // unless the caller names the pattern start explicitly.
  uint32_t patternStart = patternStartAddress.value_or(startAddress);
  if (patternStartAddress && patternStart % 128 != 0) {
    add("-pattern-alignment",
        llvm::formatv("swizzle pattern start {0} is not a multiple of 128 "
                      "bytes, so no base offset can describe it",
                      patternStart));
    return;
  }
  unsigned expected = (patternStart % repeatBytes == 0)
                          ? 0
                          : (patternStart >> 7) & unsigned(kField3);
  if (baseOffset != expected)
    add("-base-offset",
        llvm::formatv("base offset is {0} but the {1} B swizzle pattern "
                      "starting at {2} needs {3} ((start >> 7) & 7 off a "
                      "{1} B boundary, 0 on it)",
                      unsigned(baseOffset), repeatBytes, patternStart,
                      expected));
}

std::vector<TensorCoreViolation>
kcc::validateWgmmaDescriptor(const WgmmaDescriptorFields &fields) {
  std::vector<TensorCoreViolation> out;
  unsigned swizzle = static_cast<unsigned>(fields.swizzle);
  if (swizzle > 3) {
    out.push_back({"wgmma-desc-swizzle-mode",
                   llvm::formatv("swizzle mode {0} is not one of 0 (none), 1 "
                                 "(128B), 2 (64B), 3 (32B)",
                                 swizzle)});
    // Without a valid mode the base-offset rules have nothing to refer to.
    checkSharedDescriptorFields(
        "wgmma-desc", fields.startAddress, fields.leadingByteOffset,
        fields.strideByteOffset, 0, 0, std::nullopt, out);
    return out;
  }
  checkSharedDescriptorFields(
      "wgmma-desc", fields.startAddress, fields.leadingByteOffset,
      fields.strideByteOffset, fields.baseOffset,
      swizzleRepeatBytes(fields.swizzle), fields.patternStartAddress, out);
  return out;
}

llvm::Expected<uint64_t>
kcc::encodeWgmmaDescriptor(const WgmmaDescriptorFields &fields) {
  std::vector<TensorCoreViolation> violations = validateWgmmaDescriptor(fields);
  if (!violations.empty())
    return makeRuleError(std::move(violations.front()));
  return (encode14(fields.startAddress) << kStartShift) |
         (encode14(fields.leadingByteOffset) << kLboShift) |
         (encode14(fields.strideByteOffset) << kSboShift) |
         (uint64_t(fields.baseOffset) << kBaseOffsetShift) |
         (uint64_t(fields.swizzle) << kSwizzleShift);
}

llvm::Expected<WgmmaDescriptorFields>
kcc::decodeWgmmaDescriptor(uint64_t desc) {
  const uint64_t used = (kField14 << kStartShift) | (kField14 << kLboShift) |
                        (kField14 << kSboShift) |
                        (kField3 << kBaseOffsetShift) |
                        (uint64_t(0x3) << kSwizzleShift);
  if (uint64_t stray = desc & ~used)
    return makeRuleError(
        {"wgmma-desc-reserved-bits",
         llvm::formatv("descriptor {0:x16} sets reserved bits {1:x16}", desc,
                       stray)});
  WgmmaDescriptorFields fields;
  fields.startAddress = uint32_t((desc >> kStartShift) & kField14) << 4;
  fields.leadingByteOffset = uint32_t((desc >> kLboShift) & kField14) << 4;
  fields.strideByteOffset = uint32_t((desc >> kSboShift) & kField14) << 4;
  fields.baseOffset = uint8_t((desc >> kBaseOffsetShift) & kField3);
  fields.swizzle = static_cast<WgmmaSwizzle>((desc >> kSwizzleShift) & 0x3);
  return fields;
}

//===----------------------------------------------------------------------===//
// Warpgroups.
//===----------------------------------------------------------------------===//

llvm::Error kcc::checkWarpgroup(unsigned firstWarp, unsigned numWarps) {
  if (numWarps != kWarpsPerWarpgroup)
    return makeRuleError(
        {"warpgroup-size", llvm::formatv("a warpgroup is {0} warps, got {1}",
                                         kWarpsPerWarpgroup, numWarps)});
  if (firstWarp % kWarpsPerWarpgroup != 0)
    return makeRuleError(
        {"warpgroup-alignment",
         llvm::formatv("a warpgroup starts at a warp index that is a multiple "
                       "of {0}, got warps {1}..{2}",
                       kWarpsPerWarpgroup, firstWarp,
                       firstWarp + numWarps - 1)});
  return llvm::Error::success();
}

llvm::Error
kcc::checkDescriptorUniform(llvm::ArrayRef<uint64_t> perThreadDescriptors) {
  if (perThreadDescriptors.size() != kThreadsPerWarpgroup)
    return makeRuleError(
        {"warpgroup-thread-count",
         llvm::formatv("expected one descriptor per thread of the warpgroup "
                       "({0}), got {1}",
                       kThreadsPerWarpgroup, perThreadDescriptors.size())});
  uint64_t first = perThreadDescriptors.front();
  for (size_t t = 1; t < perThreadDescriptors.size(); ++t)
    if (perThreadDescriptors[t] != first)
      return makeRuleError(
          {"wgmma-desc-uniformity",
           llvm::formatv("thread {0} passes descriptor {1:x16} but thread 0 "
                         "passes {2:x16}; wgmma needs the same value in all "
                         "threads of the warpgroup",
                         t, perThreadDescriptors[t], first)});
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Shapes (PTX ISA wgmma.mma_async "Matrix Shape"; confirmed with ptxas).
//===----------------------------------------------------------------------===//

namespace {
// N multiple of 8 in [8, 256].
constexpr NRange kDenseN[] = {{8, 256, 8}};
// Integer and single-bit types: 8, 16, 24, then multiples of 16 to 256.
constexpr NRange kIntegerN[] = {{8, 24, 8}, {32, 256, 16}};

const WgmmaShapeRule kShapeTable[] = {
    {WgmmaType::F16, 64, 16, kDenseN, true},
    {WgmmaType::BF16, 64, 16, kDenseN, false},
    {WgmmaType::TF32, 64, 8, kDenseN, false},
    {WgmmaType::E4M3, 64, 32, kDenseN, true},
    {WgmmaType::E5M2, 64, 32, kDenseN, true},
    {WgmmaType::S8, 64, 32, kIntegerN, false},
    {WgmmaType::U8, 64, 32, kIntegerN, false},
    {WgmmaType::B1, 64, 256, kIntegerN, false},
};

const WgmmaShapeRule &ruleFor(WgmmaType type) {
  for (const WgmmaShapeRule &rule : kShapeTable)
    if (rule.type == type)
      return rule;
  llvm_unreachable("every WgmmaType has a row in the shape table");
}
} // namespace

bool kcc::nRangesContain(llvm::ArrayRef<NRange> ranges, unsigned n) {
  for (const NRange &r : ranges)
    if (n >= r.lo && n <= r.hi && (n - r.lo) % r.step == 0)
      return true;
  return false;
}

std::string kcc::describeNRanges(llvm::ArrayRef<NRange> ranges) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const NRange &r = ranges[i];
    if (i)
      os << " or ";
    if (r.lo == r.hi)
      os << r.lo;
    else
      os << r.lo << ".." << r.hi << " step " << r.step;
  }
  return text;
}

llvm::StringRef kcc::wgmmaTypeName(WgmmaType type) {
  switch (type) {
  case WgmmaType::F16:
    return "f16";
  case WgmmaType::BF16:
    return "bf16";
  case WgmmaType::TF32:
    return "tf32";
  case WgmmaType::E4M3:
    return "e4m3";
  case WgmmaType::E5M2:
    return "e5m2";
  case WgmmaType::S8:
    return "s8";
  case WgmmaType::U8:
    return "u8";
  case WgmmaType::B1:
    return "b1";
  }
  return "?";
}

llvm::ArrayRef<WgmmaShapeRule> kcc::wgmmaShapeTable() { return kShapeTable; }

llvm::Error kcc::checkWgmmaShape(WgmmaType type, unsigned m, unsigned n,
                                 unsigned k) {
  const WgmmaShapeRule &rule = ruleFor(type);
  llvm::StringRef name = wgmmaTypeName(type);
  if (m != rule.m)
    return makeRuleError(
        {"wgmma-shape-m",
         llvm::formatv("wgmma has M = {0} only, got M = {1}", rule.m, m)});
  if (k != rule.k)
    return makeRuleError(
        {"wgmma-shape-k",
         llvm::formatv("wgmma with .{0} multiplicands has K = {1}, got K = {2}",
                       name, rule.k, k)});
  if (!nRangesContain(rule.n, n))
    return makeRuleError(
        {"wgmma-shape-n",
         llvm::formatv("wgmma with .{0} multiplicands needs N in {1}, got "
                       "N = {2}",
                       name, describeNRanges(rule.n), n)});
  return llvm::Error::success();
}

bool kcc::isLegalWgmmaShape(WgmmaType type, unsigned m, unsigned n, unsigned k,
                            std::string *reason) {
  llvm::Error err = checkWgmmaShape(type, m, n, k);
  if (!err)
    return true;
  std::string text = llvm::toString(std::move(err));
  if (reason)
    *reason = std::move(text);
  return false;
}

llvm::Error kcc::checkWgmmaAccumulator(WgmmaType type, WgmmaAccum accum) {
  const WgmmaShapeRule &rule = ruleFor(type);
  bool integer =
      type == WgmmaType::S8 || type == WgmmaType::U8 || type == WgmmaType::B1;
  bool ok = integer ? accum == WgmmaAccum::S32
                    : accum == WgmmaAccum::F32 ||
                          (accum == WgmmaAccum::F16 && rule.f16Accumulator);
  if (ok)
    return llvm::Error::success();
  static const char *const accumNames[] = {"f16", "f32", "s32"};
  return makeRuleError(
      {"wgmma-accumulator-type",
       llvm::formatv("wgmma with .{0} multiplicands cannot accumulate in .{1}",
                     wgmmaTypeName(type),
                     accumNames[static_cast<unsigned>(accum)])});
}
