//===- TmemRules.cpp - Blackwell TMEM and tcgen05 legality rules ----------===//
#include "targets/TmemRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace kcc;

//===----------------------------------------------------------------------===//
// Allocation.
//===----------------------------------------------------------------------===//

llvm::Error kcc::checkTmemAlloc(unsigned nCols) {
  if (nCols < kTmemMinAllocColumns)
    return makeRuleError(
        {"tmem-alloc-min",
         llvm::formatv("TMEM allocations are at least {0} columns, got {1}",
                       kTmemMinAllocColumns, nCols)});
  if (nCols > kTmemColumns)
    return makeRuleError(
        {"tmem-alloc-max",
         llvm::formatv("TMEM has {0} columns, an allocation of {1} cannot fit",
                       kTmemColumns, nCols)});
  if (!llvm::has_single_bit(nCols))
    return makeRuleError(
        {"tmem-alloc-power-of-two",
         llvm::formatv("TMEM allocation sizes are powers of two, got {0} "
                       "columns",
                       nCols)});
  return llvm::Error::success();
}

llvm::Error TmemAllocTracker::alloc(unsigned id, unsigned nCols) {
  if (exited)
    return makeRuleError(
        {"tmem-event-after-exit", "tcgen05.alloc after the kernel exited"});
  if (relinquished)
    return makeRuleError(
        {"tmem-alloc-after-relinquish",
         llvm::formatv("allocation {0} follows tcgen05.relinquish_alloc_permit"
                       ", after which the CTA may not allocate",
                       id)});
  if (llvm::Error err = checkTmemAlloc(nCols))
    return err;
  if (live.count(id))
    return makeRuleError(
        {"tmem-double-alloc",
         llvm::formatv("allocation {0} is allocated again before it was "
                       "freed",
                       id)});
  // The hardware blocks an alloc until columns are free; within one CTA that
  // would wait forever, so exceeding the capacity is an error here.
  if (inUse + nCols > kTmemColumns)
    return makeRuleError(
        {"tmem-capacity",
         llvm::formatv("allocation {0} of {1} columns would bring the live "
                       "columns to {2}, TMEM has {3}",
                       id, nCols, inUse + nCols, kTmemColumns)});
  live[id] = nCols;
  inUse += nCols;
  return llvm::Error::success();
}

llvm::Error TmemAllocTracker::dealloc(unsigned id, unsigned nCols) {
  if (exited)
    return makeRuleError(
        {"tmem-event-after-exit", "tcgen05.dealloc after the kernel exited"});
  auto it = live.find(id);
  if (it == live.end())
    return makeRuleError(
        {"tmem-dealloc-unallocated",
         llvm::formatv("deallocation of {0}, which is not allocated", id)});
  // kcc frees what it allocated in one piece, so the sizes must agree.
  if (it->second != nCols)
    return makeRuleError(
        {"tmem-dealloc-size-mismatch",
         llvm::formatv("allocation {0} has {1} columns but is deallocated "
                       "with {2}",
                       id, it->second, nCols)});
  inUse -= it->second;
  live.erase(it);
  return llvm::Error::success();
}

llvm::Error TmemAllocTracker::relinquishAllocPermit() {
  if (exited)
    return makeRuleError(
        {"tmem-event-after-exit",
         "tcgen05.relinquish_alloc_permit after the kernel exited"});
  relinquished = true;
  return llvm::Error::success();
}

llvm::Error TmemAllocTracker::exit() {
  if (exited)
    return makeRuleError(
        {"tmem-event-after-exit", "the kernel exits a second time"});
  exited = true;
  if (live.empty())
    return llvm::Error::success();
  const auto &first = *live.begin();
  return makeRuleError(
      {"tmem-leak",
       llvm::formatv("{0} TMEM columns are still allocated at exit (first: "
                     "allocation {1}, {2} columns); all TMEM must be "
                     "deallocated before the kernel exits",
                     inUse, first.first, first.second)});
}

namespace {
// Re-issues a rule error with `prefix` in front of its message.
llvm::Error prefixed(llvm::Error err, const std::string &prefix) {
  TensorCoreViolation violation;
  llvm::handleAllErrors(std::move(err), [&](const TensorCoreRuleError &r) {
    violation = r.get();
  });
  violation.message = prefix + violation.message;
  return makeRuleError(std::move(violation));
}
} // namespace

llvm::Error kcc::checkTmemEvents(llvm::ArrayRef<TmemEvent> events) {
  TmemAllocTracker tracker;
  bool sawExit = false;
  for (size_t i = 0; i < events.size(); ++i) {
    const TmemEvent &event = events[i];
    llvm::Error err = llvm::Error::success();
    switch (event.kind) {
    case TmemEvent::Kind::Alloc:
      err = tracker.alloc(event.id, event.nCols);
      break;
    case TmemEvent::Kind::Dealloc:
      err = tracker.dealloc(event.id, event.nCols);
      break;
    case TmemEvent::Kind::RelinquishAllocPermit:
      err = tracker.relinquishAllocPermit();
      break;
    case TmemEvent::Kind::Exit:
      sawExit = true;
      err = tracker.exit();
      break;
    }
    // The index lets the diagnostic point at the instruction.
    if (err)
      return prefixed(std::move(err), llvm::formatv("event {0}: ", i).str());
  }
  if (!sawExit)
    if (llvm::Error err = tracker.exit())
      return prefixed(std::move(err), "implicit exit: ");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Lanes.
//===----------------------------------------------------------------------===//

TmemLaneRange kcc::tmemLanesForWarp(unsigned warpId) {
  // The PTX ISA splits TMEM into four 32-lane chunks, one per warp of a
  // warpgroup; warpgroups are aligned, so the warp's rank is warpId % 4.
  return {kTmemLanesPerWarp * (warpId % kWarpsPerWarpgroup), kTmemLanesPerWarp};
}

llvm::Error kcc::checkTmemAccess(unsigned warpId, unsigned laneBase,
                                 unsigned laneCount) {
  if (laneCount == 0 || laneBase >= kTmemLanes ||
      laneCount > kTmemLanes - laneBase)
    return makeRuleError(
        {"tmem-lane-range",
         llvm::formatv("lanes [{0}, {0}+{1}) are not a non-empty range "
                       "inside TMEM's {2} lanes",
                       laneBase, laneCount, kTmemLanes)});
  TmemLaneRange own = tmemLanesForWarp(warpId);
  if (laneBase < own.first || laneBase + laneCount > own.first + own.count)
    return makeRuleError(
        {"tmem-lane-partition",
         llvm::formatv("warp {0} (warp {1} of its warpgroup) may access "
                       "lanes {2}..{3} only, not {4}..{5}",
                       warpId, warpId % kWarpsPerWarpgroup, own.first,
                       own.first + own.count - 1, laneBase,
                       laneBase + laneCount - 1)});
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Shared-memory descriptor (PTX ISA tcgen05 "Shared Memory Descriptor").
//===----------------------------------------------------------------------===//

namespace {
constexpr unsigned kStartShift = 0;
constexpr unsigned kLboShift = 16;
constexpr unsigned kSboShift = 32;
constexpr unsigned kVersionShift = 46; // bits 46-48 hold the constant 0b001
constexpr unsigned kBaseOffsetShift = 49;
constexpr unsigned kLboModeShift = 52;
constexpr unsigned kSwizzleShift = 61;
constexpr uint64_t kField14 = 0x3FFF;
constexpr uint64_t kField3 = 0x7;
constexpr uint64_t kVersion = 0x1;

uint64_t encode14(uint32_t bytes) { return (bytes & 0x3FFFF) >> 4; }

bool isValidSwizzle(unsigned encoding) {
  return encoding == 0 || encoding == 1 || encoding == 2 || encoding == 4 ||
         encoding == 6;
}

TensorCoreViolation badSwizzle(unsigned encoding) {
  return {"tcgen05-desc-swizzle-mode",
          llvm::formatv("swizzle encoding {0} is invalid; the valid ones are "
                        "0 (none), 1 (128B, 32B atoms), 2 (128B), 4 (64B), "
                        "6 (32B)",
                        encoding)};
}
} // namespace

unsigned kcc::tcgen05SwizzleRepeatBytes(Tcgen05Swizzle swizzle) {
  switch (swizzle) {
  case Tcgen05Swizzle::None:
    return 0;
  // Both 128 B modes repeat after 8 rows of 128 B; the 32 B atom changes
  // the XOR granularity, not the repeat.
  case Tcgen05Swizzle::B128Base32B:
  case Tcgen05Swizzle::B128:
    return 1024;
  case Tcgen05Swizzle::B64:
    return 512;
  case Tcgen05Swizzle::B32:
    return 256;
  }
  return 0;
}

std::vector<TensorCoreViolation>
kcc::validateTcgen05Descriptor(const Tcgen05DescriptorFields &fields,
                               bool absoluteLboSupported) {
  std::vector<TensorCoreViolation> out;
  unsigned swizzle = static_cast<unsigned>(fields.swizzle);
  bool swizzleOk = isValidSwizzle(swizzle);
  if (!swizzleOk)
    out.push_back(badSwizzle(swizzle));
  unsigned lboMode = static_cast<unsigned>(fields.lboMode);
  if (lboMode > 1)
    out.push_back(
        {"tcgen05-desc-lbo-mode",
         llvm::formatv("LBO mode {0} does not fit the 1-bit field", lboMode)});
  else if (fields.lboMode == Tcgen05LboMode::Absolute && !absoluteLboSupported)
    out.push_back({"tcgen05-desc-lbo-mode",
                   "the absolute LBO address mode exists on sm_103a only"});
  // An invalid swizzle has no repeat, so skip the base-offset rules then.
  checkSharedDescriptorFields(
      "tcgen05-desc", fields.startAddress, fields.leadingByteOffset,
      fields.strideByteOffset, swizzleOk ? fields.baseOffset : 0,
      swizzleOk ? tcgen05SwizzleRepeatBytes(fields.swizzle) : 0,
      fields.patternStartAddress, out);
  return out;
}

llvm::Expected<uint64_t>
kcc::encodeTcgen05Descriptor(const Tcgen05DescriptorFields &fields,
                             bool absoluteLboSupported) {
  std::vector<TensorCoreViolation> violations =
      validateTcgen05Descriptor(fields, absoluteLboSupported);
  if (!violations.empty())
    return makeRuleError(std::move(violations.front()));
  return (encode14(fields.startAddress) << kStartShift) |
         (encode14(fields.leadingByteOffset) << kLboShift) |
         (encode14(fields.strideByteOffset) << kSboShift) |
         (kVersion << kVersionShift) |
         (uint64_t(fields.baseOffset) << kBaseOffsetShift) |
         (uint64_t(fields.lboMode) << kLboModeShift) |
         (uint64_t(fields.swizzle) << kSwizzleShift);
}

llvm::Expected<Tcgen05DescriptorFields>
kcc::decodeTcgen05Descriptor(uint64_t desc) {
  unsigned swizzle = unsigned((desc >> kSwizzleShift) & kField3);
  if (!isValidSwizzle(swizzle))
    return makeRuleError(badSwizzle(swizzle));
  uint64_t version = (desc >> kVersionShift) & kField3;
  if (version != kVersion)
    return makeRuleError(
        {"tcgen05-desc-version",
         llvm::formatv("bits 46-48 are {0}, the format requires 0b001 (a "
                       "wgmma descriptor has 0 there)",
                       version)});
  const uint64_t used = (kField14 << kStartShift) | (kField14 << kLboShift) |
                        (kField14 << kSboShift) | (kField3 << kVersionShift) |
                        (kField3 << kBaseOffsetShift) |
                        (uint64_t(1) << kLboModeShift) |
                        (kField3 << kSwizzleShift);
  if (uint64_t stray = desc & ~used)
    return makeRuleError(
        {"tcgen05-desc-reserved-bits",
         llvm::formatv("descriptor {0:x16} sets reserved bits {1:x16}", desc,
                       stray)});
  Tcgen05DescriptorFields fields;
  fields.startAddress = uint32_t((desc >> kStartShift) & kField14) << 4;
  fields.leadingByteOffset = uint32_t((desc >> kLboShift) & kField14) << 4;
  fields.strideByteOffset = uint32_t((desc >> kSboShift) & kField14) << 4;
  fields.baseOffset = uint8_t((desc >> kBaseOffsetShift) & kField3);
  fields.lboMode = static_cast<Tcgen05LboMode>((desc >> kLboModeShift) & 1);
  fields.swizzle = static_cast<Tcgen05Swizzle>(swizzle);
  return fields;
}

//===----------------------------------------------------------------------===//
// tcgen05.mma shapes. PTX ISA tcgen05 "Matrix Shape" (cta_group::1, dense)
// and, where that table is silent, CUTLASS's SM100 MMA atoms.
//===----------------------------------------------------------------------===//

namespace {
constexpr unsigned kM64or128[] = {64, 128};
constexpr unsigned kM128[] = {128};
constexpr NRange kN8[] = {{8, 256, 8}};
// kind::i8: N = 8 or a multiple of 16 up to 256 (CUTLASS SM100_MMA_S8_SS).
constexpr NRange kNI8[] = {{8, 8, 8}, {16, 256, 16}};

const Tcgen05ShapeRule kShapeTable[] = {
    {Tcgen05Kind::F16, kM64or128, 16, kN8},
    {Tcgen05Kind::TF32, kM64or128, 8, kN8},
    {Tcgen05Kind::F8F6F4, kM64or128, 32, kN8},
    {Tcgen05Kind::I8, kM64or128, 32, kNI8},
    // The block-scaled kinds run with M = 128 only for one CTA.
    {Tcgen05Kind::MXF8F6F4, kM128, 32, kN8},
    {Tcgen05Kind::MXF4, kM128, 64, kN8},
    {Tcgen05Kind::MXF4NVF4, kM128, 64, kN8},
};

std::string join(llvm::ArrayRef<unsigned> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (size_t i = 0; i < values.size(); ++i)
    os << (i ? " or " : "") << values[i];
  return text;
}
} // namespace

llvm::StringRef kcc::tcgen05KindName(Tcgen05Kind kind) {
  switch (kind) {
  case Tcgen05Kind::F16:
    return "f16";
  case Tcgen05Kind::TF32:
    return "tf32";
  case Tcgen05Kind::F8F6F4:
    return "f8f6f4";
  case Tcgen05Kind::I8:
    return "i8";
  case Tcgen05Kind::MXF8F6F4:
    return "mxf8f6f4";
  case Tcgen05Kind::MXF4:
    return "mxf4";
  case Tcgen05Kind::MXF4NVF4:
    return "mxf4nvf4";
  }
  return "?";
}

llvm::ArrayRef<Tcgen05ShapeRule> kcc::tcgen05ShapeTable() {
  return kShapeTable;
}

llvm::Error kcc::checkTcgen05MmaShape(Tcgen05Kind kind, unsigned m, unsigned n,
                                      unsigned k, Tcgen05ASource aSource) {
  const Tcgen05ShapeRule *rule = llvm::find_if(
      kShapeTable, [&](const Tcgen05ShapeRule &r) { return r.kind == kind; });
  if (rule == std::end(kShapeTable))
    llvm_unreachable("every Tcgen05Kind has a row in the shape table");
  llvm::StringRef name = tcgen05KindName(kind);
  if (!llvm::is_contained(rule->m, m))
    return makeRuleError(
        {"tcgen05-shape-m",
         llvm::formatv("tcgen05.mma.cta_group::1.kind::{0} needs M = {1}, got "
                       "M = {2}",
                       name, join(rule->m), m)});
  if (k != rule->k)
    return makeRuleError(
        {"tcgen05-shape-k",
         llvm::formatv("tcgen05.mma.cta_group::1.kind::{0} has K = {1}, got "
                       "K = {2}",
                       name, rule->k, k)});
  if (!nRangesContain(rule->n, n))
    return makeRuleError(
        {"tcgen05-shape-n",
         llvm::formatv("tcgen05.mma.cta_group::1.kind::{0} needs N in {1}, "
                       "got N = {2}",
                       name, describeNRanges(rule->n), n)});
  // With A read from TMEM and M = 128, CUTLASS's SM100 "TS" atoms for these
  // kinds require N to be a multiple of 16.
  bool tmemARule = kind == Tcgen05Kind::F16 || kind == Tcgen05Kind::TF32 ||
                   kind == Tcgen05Kind::F8F6F4;
  if (aSource == Tcgen05ASource::TensorMemory && tmemARule && m == 128 &&
      n % 16 != 0)
    return makeRuleError(
        {"tcgen05-shape-n-tmem-a",
         llvm::formatv("tcgen05.mma.cta_group::1.kind::{0} with A in TMEM and "
                       "M = 128 needs N a multiple of 16, got N = {1}",
                       name, n)});
  return llvm::Error::success();
}

bool kcc::isLegalTcgen05MmaShape(Tcgen05Kind kind, unsigned m, unsigned n,
                                 unsigned k, std::string *reason,
                                 Tcgen05ASource aSource) {
  llvm::Error err = checkTcgen05MmaShape(kind, m, n, k, aSource);
  if (!err)
    return true;
  std::string text = llvm::toString(std::move(err));
  if (reason)
    *reason = std::move(text);
  return false;
}

llvm::Expected<uint32_t>
kcc::encodeTcgen05F16InstrDescriptor(bool bf16, bool aMnMajor, bool bMnMajor,
                                     unsigned m, unsigned n) {
  if (llvm::Error e = checkTcgen05MmaShape(Tcgen05Kind::F16, m, n, 16))
    return std::move(e);
  uint32_t format = bf16 ? 1 : 0;
  return (1u << 4) | (format << 7) | (format << 10) |
         (uint32_t(aMnMajor) << 15) | (uint32_t(bMnMajor) << 16) |
         ((n >> 3) << 17) | ((m >> 4) << 24);
}

llvm::Expected<uint32_t> kcc::encodeTcgen05I8InstrDescriptor(bool aMnMajor,
                                                             bool bMnMajor,
                                                             unsigned m,
                                                             unsigned n) {
  if (llvm::Error e = checkTcgen05MmaShape(Tcgen05Kind::I8, m, n, 32))
    return std::move(e);
  return (2u << 4) | (1u << 7) | (1u << 10) | (uint32_t(aMnMajor) << 15) |
         (uint32_t(bMnMajor) << 16) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

llvm::Expected<uint32_t>
kcc::encodeTcgen05F8F6F4InstrDescriptor(Tcgen05F8F6F4Format a,
                                        Tcgen05F8F6F4Format b, bool aMnMajor,
                                        bool bMnMajor, unsigned m, unsigned n) {
  for (auto [format, name] : {std::pair(a, "A"), std::pair(b, "B")})
    if (format != Tcgen05F8F6F4Format::E4M3 &&
        format != Tcgen05F8F6F4Format::E5M2)
      return makeRuleError(
          {"tcgen05-f8f6f4-format",
           llvm::formatv("{0}'s kind::f8f6f4 format {1} is not an 8-bit float "
                         "(e4m3 = 0, e5m2 = 1): kcc does not stage the 6- and "
                         "4-bit formats",
                         name, unsigned(format))});
  if (llvm::Error e = checkTcgen05MmaShape(Tcgen05Kind::F8F6F4, m, n, 32))
    return std::move(e);
  return (1u << 4) | (uint32_t(a) << 7) | (uint32_t(b) << 10) |
         (uint32_t(aMnMajor) << 15) | (uint32_t(bMnMajor) << 16) |
         ((n >> 3) << 17) | ((m >> 4) << 24);
}
