//===- WgmmaRules.h - Hopper wgmma legality rules ---------------*- C++ -*-===//
//
// Legality rules for sm_90a warpgroup MMA (wgmma.mma_async): the 64-bit
// shared-memory matrix descriptor, warpgroup formation, descriptor uniformity
// and the instruction shapes per multiplicand type. Every check reports the
// rule that failed as a value (a stable kebab-case name plus a sentence), so
// passes can turn it into a diagnostic instead of asserting.
//
// Source: PTX ISA, "Asynchronous Warpgroup Level Matrix Shared Memory Layout:
// Matrix Descriptor" and "wgmma.mma_async" (docs.nvidia.com/cuda/
// parallel-thread-execution). The shape table was checked against CUDA 13.0
// ptxas (-arch=sm_90a), which accepts exactly the shapes listed here.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_WGMMARULES_H
#define KCC_TARGETS_WGMMARULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kcc {

//===----------------------------------------------------------------------===//
// Rule diagnostics shared by the tensor-core checkers (wgmma, tcgen05, TMEM).
//===----------------------------------------------------------------------===//

/// One failed legality rule.
struct TensorCoreViolation {
  std::string rule;    // stable kebab-case name, e.g. "wgmma-desc-start-range"
  std::string message; // one human sentence with the offending values
};

/// llvm::Error payload for a TensorCoreViolation, so Expected<> results still
/// say which rule failed.
class TensorCoreRuleError : public llvm::ErrorInfo<TensorCoreRuleError> {
public:
  static char ID;
  explicit TensorCoreRuleError(TensorCoreViolation violation)
      : violation(std::move(violation)) {}
  const TensorCoreViolation &get() const { return violation; }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  TensorCoreViolation violation;
};

llvm::Error makeRuleError(TensorCoreViolation violation);

/// Consumes `err`. Returns the failed rule's name, "" for success, and
/// "<non-rule-error>" for an error that is not a TensorCoreRuleError.
std::string consumeRuleName(llvm::Error err);

//===----------------------------------------------------------------------===//
// Shared-memory matrix descriptor.
//===----------------------------------------------------------------------===//

/// Bits 62-63 of the descriptor.
enum class WgmmaSwizzle : uint8_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };

/// Bytes after which the swizzle pattern repeats (8 rows of the swizzle
/// width): 1024 / 512 / 256; 0 for no swizzle.
unsigned swizzleRepeatBytes(WgmmaSwizzle swizzle);

/// The descriptor's fields in bytes, before the >>4 encoding.
struct WgmmaDescriptorFields {
  uint32_t startAddress = 0;      // shared-window byte address of the matrix
  uint32_t leadingByteOffset = 0; // LBO: between core matrices along K
  uint32_t strideByteOffset = 0;  // SBO: between core matrices along M/N
  uint8_t baseOffset = 0;         // 3 bits, see wgmmaBaseOffsetFor()
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;
  /// Where the swizzle pattern that holds the matrix starts. Unset means
  /// startAddress; set it when the start was advanced inside a pattern by
  /// whole 128 B rows.
  std::optional<uint32_t> patternStartAddress;
};

/// The base offset the PTX ISA prescribes for a swizzle pattern starting at
/// `patternStart`: 0 on a repeat boundary, else (patternStart >> 7) & 7.
uint8_t wgmmaBaseOffsetFor(WgmmaSwizzle swizzle, uint32_t patternStart);

/// Every rule `fields` breaks, in a fixed order; empty when encodable.
std::vector<TensorCoreViolation>
validateWgmmaDescriptor(const WgmmaDescriptorFields &fields);

/// The address/offset/base-offset rules that the wgmma and tcgen05
/// descriptors share. Rule names are `prefix` + "-start-alignment" etc.;
/// `repeatBytes` is 0 for no swizzle. Appends to `out`.
void checkSharedDescriptorFields(llvm::StringRef prefix, uint32_t startAddress,
                                 uint32_t leadingByteOffset,
                                 uint32_t strideByteOffset, uint8_t baseOffset,
                                 unsigned repeatBytes,
                                 std::optional<uint32_t> patternStartAddress,
                                 std::vector<TensorCoreViolation> &out);

/// Packs `fields` into the 64-bit descriptor, or fails with the first broken
/// rule.
llvm::Expected<uint64_t>
encodeWgmmaDescriptor(const WgmmaDescriptorFields &fields);

/// Unpacks a descriptor (offsets back in bytes; patternStartAddress unset).
/// Fails with "wgmma-desc-reserved-bits" if a bit outside the fields is set.
llvm::Expected<WgmmaDescriptorFields> decodeWgmmaDescriptor(uint64_t desc);

//===----------------------------------------------------------------------===//
// Warpgroups.
//===----------------------------------------------------------------------===//

constexpr unsigned kWarpsPerWarpgroup = 4;
constexpr unsigned kThreadsPerWarpgroup = 128;

/// A warpgroup is 4 consecutive warps whose first warp index is a multiple
/// of 4 ("warpgroup-size", "warpgroup-alignment").
llvm::Error checkWarpgroup(unsigned firstWarp, unsigned numWarps);

/// wgmma requires every thread of the warpgroup to pass the same descriptor.
/// Takes the 128 per-thread values in thread order; names the first thread
/// whose value differs from thread 0 ("wgmma-desc-uniformity").
llvm::Error
checkDescriptorUniform(llvm::ArrayRef<uint64_t> perThreadDescriptors);

//===----------------------------------------------------------------------===//
// Instruction shapes.
//===----------------------------------------------------------------------===//

/// Multiplicand (A/B) types of wgmma.mma_async.
enum class WgmmaType { F16, BF16, TF32, E4M3, E5M2, S8, U8, B1 };
/// Accumulator (D) types.
enum class WgmmaAccum { F16, F32, S32 };

llvm::StringRef wgmmaTypeName(WgmmaType type);

/// An arithmetic run of legal N values: lo, lo+step, ..., hi.
struct NRange {
  unsigned lo, hi, step;
};

/// Whether `n` is in one of `ranges`.
bool nRangesContain(llvm::ArrayRef<NRange> ranges, unsigned n);
/// "8..24 step 8 or 32..256 step 16".
std::string describeNRanges(llvm::ArrayRef<NRange> ranges);

/// One row of the shape table: m64nNkK for a multiplicand type.
struct WgmmaShapeRule {
  WgmmaType type;
  unsigned m;
  unsigned k;
  llvm::ArrayRef<NRange> n; // union of runs
  bool f16Accumulator;      // .f16 accumulator allowed besides .f32/.s32
};

/// The table, one row per multiplicand type.
llvm::ArrayRef<WgmmaShapeRule> wgmmaShapeTable();

/// Checks m/n/k for wgmma.mma_async with multiplicand type `type`
/// ("wgmma-shape-m", "wgmma-shape-k", "wgmma-shape-n").
llvm::Error checkWgmmaShape(WgmmaType type, unsigned m, unsigned n, unsigned k);

/// Boolean form of checkWgmmaShape; `reason` (if given) receives
/// "rule: sentence" when the shape is illegal.
bool isLegalWgmmaShape(WgmmaType type, unsigned m, unsigned n, unsigned k,
                       std::string *reason = nullptr);

/// Checks the accumulator type for `type` ("wgmma-accumulator-type").
llvm::Error checkWgmmaAccumulator(WgmmaType type, WgmmaAccum accum);

} // namespace kcc

#endif // KCC_TARGETS_WGMMARULES_H
