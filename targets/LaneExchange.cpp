//===- LaneExchange.cpp - plan the butterflies of wave reductions ---------===//
#include "targets/LaneExchange.h"
#include "targets/TargetModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace kcc;

namespace {
const unsigned kQuadMasks[] = {1, 2, 3};
const unsigned kHalfMirrorMasks[] = {7};
const unsigned kMirrorMasks[] = {15};

const LaneExchangeKind kKinds[] = {
    {"shfl.bfly",
     Vendor::NVIDIA,
     31,
     {},
     "shfl.sync.bfly: any partner lane by xor within the warp"},
    {"dpp.quad_perm", Vendor::AMD, 0, kQuadMasks,
     "DPP quad_perm operand modifier: xor 1, 2 or 3 within 4 lanes"},
    {"dpp.row_half_mirror", Vendor::AMD, 0, kHalfMirrorMasks,
     "DPP row_half_mirror operand modifier: lane ^ 7 within 8 lanes"},
    {"dpp.row_mirror", Vendor::AMD, 0, kMirrorMasks,
     "DPP row_mirror operand modifier: lane ^ 15 within a row of 16 lanes"},
    {"ds_swizzle",
     Vendor::AMD,
     31,
     {},
     "ds_swizzle_b32 bit-mask mode: any xor within 32-lane halves, through "
     "the LDS crossbar"},
    {"ds_bpermute",
     Vendor::AMD,
     63,
     {},
     "ds_bpermute_b32: any partner lane of the wave, through the LDS "
     "crossbar, with a lane address"},
};
} // namespace

bool LaneExchangeKind::reaches(unsigned mask) const {
  if (masks.empty())
    return mask >= 1 && mask <= maxMask;
  return llvm::is_contained(masks, mask);
}

llvm::ArrayRef<LaneExchangeKind> kcc::laneExchangeKinds() { return kKinds; }

const LaneExchangeKind *kcc::findLaneExchange(llvm::StringRef name) {
  for (const LaneExchangeKind &k : kKinds)
    if (k.name == name)
      return &k;
  return nullptr;
}

std::vector<std::pair<std::string, unsigned>>
kcc::defaultLaneExchanges(Vendor v) {
  if (v == Vendor::NVIDIA)
    return {{"shfl.bfly", 1}};
  return {{"ds_swizzle", 1}, {"ds_bpermute", 2}};
}

/// The cheapest exchange of `model` that reduces `bit` once the bits in
/// `reduced` are reduced, or false.
static bool cheapestStep(const TargetModel &model, unsigned lanes, unsigned bit,
                         unsigned reduced, bool plainOnly, ButterflyStep &out) {
  bool found = false;
  for (const auto &[name, cycles] : model.laneExchanges) {
    const LaneExchangeKind *kind = findLaneExchange(name);
    if (!kind || (plainOnly && !kind->masks.empty()))
      continue;
    std::vector<unsigned> masks;
    if (kind->masks.empty())
      masks.push_back(1u << bit);
    else
      masks.assign(kind->masks.begin(), kind->masks.end());
    for (unsigned m : masks) {
      bool usable = m < lanes && (m >> bit & 1) &&
                    (m & ~(1u << bit) & ~reduced) == 0 && kind->reaches(m);
      if (usable && (!found || cycles < out.cycles)) {
        out = {bit, name, m, cycles};
        found = true;
      }
    }
  }
  return found;
}

llvm::Expected<ButterflyPlan> kcc::planButterfly(const TargetModel &model,
                                                 unsigned lanes) {
  if (lanes < 2 || !llvm::isPowerOf2_32(lanes))
    return llvm::createStringError("a butterfly needs a power-of-two number "
                                   "of lanes, got " +
                                   std::to_string(lanes));
  unsigned nbits = llvm::Log2_32(lanes);
  std::vector<unsigned> order(nbits);
  for (unsigned i = 0; i < nbits; ++i)
    order[i] = nbits - 1 - i; // highest bit first
  ButterflyPlan best;
  bool haveBest = false;
  unsigned tried = 0;
  do {
    ++tried;
    ButterflyPlan plan;
    unsigned reduced = 0;
    bool ok = true;
    for (unsigned bit : order) {
      ButterflyStep step;
      if (!cheapestStep(model, lanes, bit, reduced, /*plainOnly=*/false,
                        step)) {
        ok = false;
        break;
      }
      plan.cycles += step.cycles;
      plan.steps.push_back(std::move(step));
      reduced |= 1u << bit;
    }
    if (ok && (!haveBest || plan.cycles < best.cycles)) {
      best = std::move(plan);
      haveBest = true;
    }
  } while (std::prev_permutation(order.begin(), order.end()));
  if (!haveBest) {
    std::string names;
    for (const LaneExchangeKind &k : kKinds)
      if (k.vendor == model.vendor && k.masks.empty())
        names += (names.empty() ? "" : ", ") + k.name.str();
    return llvm::createStringError(
        "target model '" + model.name +
        "' lists no lane exchange that completes a butterfly over " +
        std::to_string(lanes) + " lanes; add one of " + names +
        " to its [lane_exchange] table");
  }
  best.ordersTried = tried;
  for (unsigned bit = 0; bit < nbits; ++bit) {
    ButterflyStep step;
    if (!cheapestStep(model, lanes, bit, 0, /*plainOnly=*/true, step)) {
      best.plainCycles = 0;
      break;
    }
    best.plainCycles += step.cycles;
  }
  return best;
}
