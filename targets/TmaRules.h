//===- TmaRules.h - TMA tensor-map legality ------------------------*- C++
//-*-===//
//
// Whether cuTensorMapEncodeTiled accepts a set of parameters on a target, and
// if not, which rules refuse it. The rules are those of the comment above
// cuTensorMapEncodeTiled in cuda.h, corrected where the driver disagrees
// (tests/e2e/targets/tma/README.md lists each correction and the measurement
// behind it); the per-architecture numbers come from the target model's [tma]
// section. On sm_90a the predicate agrees with the driver on every committed
// case (tests/e2e/targets/tma/cases.jsonl.gz).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_TMARULES_H
#define KCC_TARGETS_TMARULES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kcc {

struct TargetModel;

/// cuTensorMapEncodeTiled's arguments, as plain integers. Enum fields hold the
/// CUtensorMap* enum values. Signed so that out-of-range input (negative
/// numbers) reaches the rules instead of wrapping.
struct TmaTensorMapParams {
  int64_t dtype = 0;      // CUtensorMapDataType
  int64_t rank = 0;       // authoritative: arrays are read up to rank
  int64_t addressMod = 0; // global address offset from a 256-byte aligned base
  int64_t interleave = 0; // CUtensorMapInterleave
  int64_t swizzle = 0;    // CUtensorMapSwizzle
  int64_t l2Promotion = 0;
  int64_t oobFill = 0;
  /// Entries past the end of an array read as 0, as a caller passing a short
  /// array would hand the driver whatever follows; 0 is refused where the
  /// rules refuse it. Values that do not fit 64 bits are clamped by callers.
  std::vector<int64_t> globalDim;
  std::vector<int64_t> globalStrides; // rank-1 entries, bytes
  std::vector<int64_t> boxDim;
  std::vector<int64_t> elementStrides;
};

/// One refused rule: a stable name (for tests, JSON and remarks) and a
/// sentence saying what is wrong.
struct TmaRuleFailure {
  llvm::StringRef rule;
  std::string message;
};

struct TmaVerdict {
  llvm::SmallVector<TmaRuleFailure, 2> failures;
  bool legal() const { return failures.empty(); }
};

/// Checks `params` against every rule for `target`. Every failing rule is
/// reported, not just the first.
TmaVerdict checkTmaTensorMap(const TargetModel &target,
                             const TmaTensorMapParams &params);

/// The names of all rules checkTmaTensorMap can report, for documentation and
/// tests.
llvm::ArrayRef<llvm::StringRef> tmaRuleNames();

/// Element size in bits of a CUtensorMapDataType value (0 if unknown).
unsigned tmaElementBits(int64_t dtype);

} // namespace kcc

#endif // KCC_TARGETS_TMARULES_H
