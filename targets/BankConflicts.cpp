//===- BankConflicts.cpp - shared-memory bank-conflict model --------------===//
#include "targets/BankConflicts.h"
#include "targets/TargetModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace kcc;

namespace {
llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
} // namespace

LanePhases kcc::contiguousPhases(unsigned lanes, unsigned perPhase) {
  perPhase = std::max(perPhase, 1u);
  LanePhases out;
  for (unsigned first = 0; first < lanes; first += perPhase) {
    std::vector<unsigned> group;
    for (unsigned lane = first; lane < std::min(lanes, first + perPhase);
         ++lane)
      group.push_back(lane);
    out.push_back(std::move(group));
  }
  return out;
}

LanePhases BankGeometry::phasesFor(unsigned accessBytes,
                                   SharedAccessKind kind) const {
  if (kind == SharedAccessKind::Store) {
    auto it = storePhases.find(accessBytes);
    if (it != storePhases.end())
      return it->second;
  }
  auto it = phases.find(accessBytes);
  if (it != phases.end())
    return it->second;
  // One cycle of all banks moves banks * bankBytes bytes; a lane needs at
  // least a whole bank slot even for a sub-word access.
  uint64_t slot = std::max({accessBytes, bankBytes, 1u});
  uint64_t perPhase = uint64_t(banks) * bankBytes / slot;
  perPhase = std::clamp<uint64_t>(perPhase, 1, std::max(lanes, 1u));
  return contiguousPhases(lanes, unsigned(perPhase));
}

BankGeometry kcc::bankGeometry(const TargetModel &target) {
  BankGeometry g;
  g.banks = target.sharedMemory.banks;
  g.bankBytes = target.sharedMemory.bankBytes;
  g.lanes = target.warpSize;
  g.phases = target.sharedMemory.phases;
  g.storePhases = target.sharedMemory.storePhases;
  return g;
}

// The groupings themselves are data in targets/<vendor>/*.toml, with their
// sources; NVIDIA's are the defaults (one wavefront moves 128 bytes: whole
// warps up to 4-byte accesses, half warps for 8, quarter warps for 16).
BankGeometry kcc::nvidiaSharedGeometry() {
  return bankGeometry(*TargetRegistry::builtin().lookup("sm_90a"));
}

BankGeometry kcc::amdLdsGeometry() {
  return bankGeometry(*TargetRegistry::builtin().lookup("gfx942"));
}

llvm::Expected<BankConflictResult>
kcc::analyzeBankConflicts(const BankGeometry &geometry,
                          llvm::ArrayRef<std::optional<uint64_t>> laneAddress,
                          unsigned accessBytes, SharedAccessKind kind) {
  if (geometry.banks == 0 || geometry.bankBytes == 0 || geometry.lanes == 0)
    return error(llvm::formatv("bank geometry needs nonzero banks, bank bytes "
                               "and lanes (got {0}, {1}, {2})",
                               geometry.banks, geometry.bankBytes,
                               geometry.lanes));
  if (accessBytes == 0 || accessBytes > 16 || !llvm::isPowerOf2_32(accessBytes))
    return error(llvm::formatv(
        "shared-memory access width must be 1, 2, 4, 8 or 16 bytes, got {0}",
        accessBytes));
  if (laneAddress.size() > geometry.lanes)
    return error(llvm::formatv("{0} lane addresses for a {1}-lane warp",
                               laneAddress.size(), geometry.lanes));
  for (auto [lane, addr] : llvm::enumerate(laneAddress)) {
    if (!addr)
      continue;
    // NVIDIA faults on misaligned shared accesses and AMD splits them; such
    // an access is not one instruction's worth of phases.
    if (*addr % accessBytes != 0)
      return error(llvm::formatv("lane {0}: address {1} is not aligned to the "
                                 "{2}-byte access width",
                                 lane, *addr, accessBytes));
    if (*addr > std::numeric_limits<uint64_t>::max() - (accessBytes - 1))
      return error(
          llvm::formatv("lane {0}: address {1} overflows", lane, *addr));
  }

  LanePhases phases = geometry.phasesFor(accessBytes, kind);
  // A malformed table would silently miscount, so check it fully.
  std::vector<bool> covered(geometry.lanes, false);
  for (auto [index, group] : llvm::enumerate(phases))
    for (unsigned lane : group) {
      if (lane >= geometry.lanes)
        return error(llvm::formatv("phase {0} of the {1}-byte access names "
                                   "lane {2}, but the warp has {3} lanes",
                                   index, accessBytes, lane, geometry.lanes));
      if (covered[lane])
        return error(llvm::formatv("lane {0} is in more than one phase of the "
                                   "{1}-byte access",
                                   lane, accessBytes));
      covered[lane] = true;
    }
  for (auto [lane, addr] : llvm::enumerate(laneAddress))
    if (addr && !covered[lane])
      return error(
          llvm::formatv("active lane {0} is in no phase of the {1}-byte access",
                        lane, accessBytes));

  BankConflictResult result;
  std::vector<unsigned> perBank(geometry.banks);
  std::vector<uint64_t> words;
  for (auto [index, group] : llvm::enumerate(phases)) {
    // The distinct bank words the phase touches; duplicates are broadcasts.
    words.clear();
    unsigned active = 0;
    for (unsigned lane : group) {
      if (lane >= laneAddress.size() || !laneAddress[lane])
        continue;
      ++active;
      uint64_t addr = *laneAddress[lane];
      uint64_t first = addr / geometry.bankBytes;
      uint64_t last = (addr + accessBytes - 1) / geometry.bankBytes;
      for (uint64_t word = first; word <= last; ++word)
        words.push_back(word);
    }
    if (active == 0)
      continue;
    llvm::sort(words);
    words.erase(std::unique(words.begin(), words.end()), words.end());

    std::fill(perBank.begin(), perBank.end(), 0);
    for (uint64_t word : words)
      ++perBank[word % geometry.banks];
    auto busiest = std::max_element(perBank.begin(), perBank.end());
    unsigned phaseWavefronts = *busiest;
    // The fewest cycles that can deliver these distinct words. For phases of
    // at most banks * bankBytes bytes (every built-in table) this is 1, what
    // Nsight Compute counts as ideal; computing it from the words keeps
    // larger custom phases honest when broadcasts shrink them.
    unsigned phaseIdeal = unsigned(ceilDiv(words.size(), geometry.banks));
    unsigned phaseDegree = unsigned(ceilDiv(phaseWavefronts, phaseIdeal));

    result.activeLanes += active;
    result.wavefronts += phaseWavefronts;
    result.idealWavefronts += phaseIdeal;
    if (phaseDegree > result.degree) {
      result.degree = phaseDegree;
      result.worstPhase = unsigned(index);
      result.worstBank = unsigned(busiest - perBank.begin());
    }
  }
  return result;
}

llvm::Expected<BankConflictResult>
kcc::analyzeAffineBankConflicts(const BankGeometry &geometry, uint64_t base,
                                int64_t strideBytes, unsigned activeLanes,
                                unsigned accessBytes, SharedAccessKind kind) {
  if (activeLanes > geometry.lanes)
    return error(llvm::formatv("{0} active lanes for a {1}-lane warp",
                               activeLanes, geometry.lanes));
  std::vector<std::optional<uint64_t>> addresses;
  for (unsigned lane = 0; lane < activeLanes; ++lane) {
    int64_t offset;
    if (llvm::MulOverflow(int64_t(lane), strideBytes, offset))
      return error(
          llvm::formatv("lane {0}: {0} * {1} overflows", lane, strideBytes));
    uint64_t addr = base + uint64_t(offset);
    // Unsigned wrap-around tells whether base + offset left [0, 2^64).
    if (offset < 0 ? addr > base : addr < base)
      return error(llvm::formatv("lane {0}: address {1} + {2} is out of range",
                                 lane, base, offset));
    addresses.push_back(addr);
  }
  return analyzeBankConflicts(geometry, addresses, accessBytes, kind);
}
