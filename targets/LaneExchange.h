//===- LaneExchange.h - cross-lane exchanges of wave reductions -*- C++ -*-===//
//
// A reduction across the lanes of a warp (NVIDIA, 32 lanes) or wave (AMD, 64
// lanes) is a butterfly: one step per lane-index bit, each combining a lane's
// value with that of a partner lane. The target model lists the exchange
// instructions it has and what each costs ([lane_exchange] in the TOML); this
// file knows which partner each instruction reaches and plans the cheapest
// butterfly.
//
// An exchange reaches partner `lane ^ m` for the masks m it can express. A
// step over bit b may use an exchange with mask m when m has bit b and every
// other bit of m is one the butterfly already reduced: all lanes that differ
// only in reduced bits hold the same value (each step combines x with y and y
// with x, and the combining ops are commutative), so flipping those bits
// changes nothing. That is why AMD's DPP row_half_mirror (m = 7) can stand in
// for xor 4 once bits 0 and 1 are reduced, and row_mirror (m = 15) for xor 8
// once bits 0 to 2 are: the planner tries every order of the bits.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_LANEEXCHANGE_H
#define KCC_TARGETS_LANEEXCHANGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kcc {

struct TargetModel;
enum class Vendor;

/// One exchange instruction kcc can emit, by its target-model name.
struct LaneExchangeKind {
  llvm::StringRef name;           // e.g. "dpp.row_mirror"
  Vendor vendor;                  // the only vendor that has it
  unsigned maxMask;               // masks 1..maxMask, when `masks` is empty
  llvm::ArrayRef<unsigned> masks; // otherwise exactly these
  llvm::StringRef what;           // one line for --report and errors
  bool reaches(unsigned mask) const;
};

/// Every exchange kcc knows; a target model may list any of its vendor's.
llvm::ArrayRef<LaneExchangeKind> laneExchangeKinds();
const LaneExchangeKind *findLaneExchange(llvm::StringRef name);

/// The exchanges a model has when its TOML lists none: what every target of
/// the vendor has (shfl.sync; ds_swizzle and ds_bpermute).
std::vector<std::pair<std::string, unsigned>> defaultLaneExchanges(Vendor v);

struct ButterflyStep {
  unsigned bit;    // the lane-index bit this step reduces
  std::string op;  // the exchange's target-model name
  unsigned mask;   // partner = lane ^ mask
  unsigned cycles; // the model's cost of the exchange
};

struct ButterflyPlan {
  std::vector<ButterflyStep> steps;
  unsigned cycles = 0; // sum over the steps
  /// The cost of the same butterfly with only exchanges that reach any
  /// partner by xor (no bit order to exploit): what the plan saves.
  unsigned plainCycles = 0;
  unsigned ordersTried = 0;
};

/// The cheapest butterfly over all log2(lanes) lane bits with `model`'s
/// exchanges (ties: the order tried first, from the highest bit down). An
/// error when some bit cannot be reduced by any exchange the model lists.
llvm::Expected<ButterflyPlan> planButterfly(const TargetModel &model,
                                            unsigned lanes);

} // namespace kcc

#endif // KCC_TARGETS_LANEEXCHANGE_H
