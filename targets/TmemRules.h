//===- TmemRules.h - Blackwell TMEM and tcgen05 legality rules --*- C++ -*-===//
//
// Legality rules for sm_100a tensor memory (TMEM) and the tcgen05 family:
// tcgen05.alloc/dealloc/relinquish_alloc_permit bookkeeping for one CTA, the
// per-warp lane partition of tcgen05.ld/st, the tcgen05 shared-memory matrix
// descriptor (a different layout from wgmma's) and the tcgen05.mma shapes
// for cta_group::1. Failures are values naming the rule (see WgmmaRules.h).
//
// Source: PTX ISA, "Tensor Memory", "tcgen05.alloc", "Shared Memory
// Descriptor" and "Matrix Shape" of the tcgen05 chapter
// (docs.nvidia.com/cuda/parallel-thread-execution). CUDA 13.0 ptxas
// (-arch=sm_100a) confirms the allocation size rules; it does not check
// descriptors or instruction descriptors, which are run-time values.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_TMEMRULES_H
#define KCC_TARGETS_TMEMRULES_H

#include "targets/WgmmaRules.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kcc {

//===----------------------------------------------------------------------===//
// Geometry and allocation.
//===----------------------------------------------------------------------===//

/// TMEM of one CTA: 128 lanes (rows) x 512 columns of 32-bit cells.
constexpr unsigned kTmemLanes = 128;
constexpr unsigned kTmemColumns = 512;
/// tcgen05.alloc takes a power of two in [32, 512] columns.
constexpr unsigned kTmemMinAllocColumns = 32;
/// Each warp of a warpgroup reaches one 32-lane quarter.
constexpr unsigned kTmemLanesPerWarp = 32;

/// Checks the nCols operand of tcgen05.alloc/dealloc ("tmem-alloc-min",
/// "tmem-alloc-max", "tmem-alloc-power-of-two").
llvm::Error checkTmemAlloc(unsigned nCols);

/// Replays the allocation events of one CTA (cta_group::1). Allocations are
/// named by caller-chosen ids, e.g. the value that holds the TMEM address.
class TmemAllocTracker {
public:
  /// tcgen05.alloc of `nCols` columns. Rules: the checkTmemAlloc rules,
  /// "tmem-alloc-after-relinquish", "tmem-capacity", "tmem-double-alloc",
  /// "tmem-event-after-exit".
  llvm::Error alloc(unsigned id, unsigned nCols);
  /// tcgen05.dealloc. Rules: "tmem-dealloc-unallocated",
  /// "tmem-dealloc-size-mismatch", "tmem-event-after-exit".
  llvm::Error dealloc(unsigned id, unsigned nCols);
  /// tcgen05.relinquish_alloc_permit: later allocs are illegal.
  llvm::Error relinquishAllocPermit();
  /// Kernel exit: everything allocated must be freed ("tmem-leak").
  llvm::Error exit();

  unsigned columnsInUse() const { return inUse; }

private:
  std::map<unsigned, unsigned> live; // id -> columns; ordered for messages
  unsigned inUse = 0;
  bool relinquished = false;
  bool exited = false;
};

struct TmemEvent {
  enum class Kind { Alloc, Dealloc, RelinquishAllocPermit, Exit };
  Kind kind;
  unsigned id = 0;    // Alloc/Dealloc only
  unsigned nCols = 0; // Alloc/Dealloc only
};

/// Replays `events` through a TmemAllocTracker, appending an Exit if the
/// sequence has none, and returns the first failure; its message starts with
/// the index of the offending event.
llvm::Error checkTmemEvents(llvm::ArrayRef<TmemEvent> events);

//===----------------------------------------------------------------------===//
// Lane partition of tcgen05.ld / tcgen05.st.
//===----------------------------------------------------------------------===//

/// Lanes [first, first + count).
struct TmemLaneRange {
  unsigned first;
  unsigned count;
};

/// Warp w of its warpgroup (w = warpId % 4) reaches lanes 32*w .. 32*w+31.
TmemLaneRange tmemLanesForWarp(unsigned warpId);

/// Checks that warp `warpId` (index in the CTA) touches only its own lanes
/// ("tmem-lane-range", "tmem-lane-partition").
llvm::Error checkTmemAccess(unsigned warpId, unsigned laneBase,
                            unsigned laneCount);

//===----------------------------------------------------------------------===//
// tcgen05 shared-memory matrix descriptor.
//===----------------------------------------------------------------------===//

/// Bits 61-63. 3, 5 and 7 are invalid encodings. The even values keep the
/// wgmma bit patterns of bits 62-63 (128B = 0b10 << 61 = 0b01 << 62, etc.);
/// bit 61 selects the 128 B swizzle with 32 B atoms.
enum class Tcgen05Swizzle : uint8_t {
  None = 0,
  B128Base32B = 1,
  B128 = 2,
  B64 = 4,
  B32 = 6,
};

/// 1024 for both 128 B modes, 512, 256; 0 for none and invalid encodings.
unsigned tcgen05SwizzleRepeatBytes(Tcgen05Swizzle swizzle);

/// Bit 52: whether the LBO field holds an offset or an absolute address.
enum class Tcgen05LboMode : uint8_t { Relative = 0, Absolute = 1 };

struct Tcgen05DescriptorFields {
  uint32_t startAddress = 0;
  uint32_t leadingByteOffset = 0; // an address in Absolute mode
  uint32_t strideByteOffset = 0;
  uint8_t baseOffset = 0;
  Tcgen05LboMode lboMode = Tcgen05LboMode::Relative;
  Tcgen05Swizzle swizzle = Tcgen05Swizzle::None;
  /// As in WgmmaDescriptorFields.
  std::optional<uint32_t> patternStartAddress;
};

/// Every rule broken, in a fixed order. The absolute LBO mode exists only on
/// sm_103a, so it is a violation ("tcgen05-desc-lbo-mode") unless
/// `absoluteLboSupported`.
std::vector<TensorCoreViolation>
validateTcgen05Descriptor(const Tcgen05DescriptorFields &fields,
                          bool absoluteLboSupported = false);

/// Packs `fields` (with the fixed 0b001 at bits 46-48), or fails with the
/// first broken rule.
llvm::Expected<uint64_t>
encodeTcgen05Descriptor(const Tcgen05DescriptorFields &fields,
                        bool absoluteLboSupported = false);

/// Unpacks a descriptor. Rules: "tcgen05-desc-swizzle-mode",
/// "tcgen05-desc-version" (bits 46-48 not 0b001),
/// "tcgen05-desc-reserved-bits".
llvm::Expected<Tcgen05DescriptorFields> decodeTcgen05Descriptor(uint64_t desc);

//===----------------------------------------------------------------------===//
// tcgen05.mma shapes, cta_group::1, dense.
//===----------------------------------------------------------------------===//

enum class Tcgen05Kind { F16, TF32, F8F6F4, I8, MXF8F6F4, MXF4, MXF4NVF4 };

llvm::StringRef tcgen05KindName(Tcgen05Kind kind);

/// Where operand A comes from; B is always a shared-memory descriptor.
enum class Tcgen05ASource { SharedMemory, TensorMemory };

struct Tcgen05ShapeRule {
  Tcgen05Kind kind;
  llvm::ArrayRef<unsigned> m;
  unsigned k;
  llvm::ArrayRef<NRange> n;
};

/// One row per kind, for A and B in shared memory.
llvm::ArrayRef<Tcgen05ShapeRule> tcgen05ShapeTable();

/// Rules: "tcgen05-shape-m", "tcgen05-shape-k", "tcgen05-shape-n" and, with
/// A in TMEM, "tcgen05-shape-n-tmem-a" (M = 128 needs N a multiple of 16).
llvm::Error
checkTcgen05MmaShape(Tcgen05Kind kind, unsigned m, unsigned n, unsigned k,
                     Tcgen05ASource aSource = Tcgen05ASource::SharedMemory);

/// The 32-bit instruction descriptor of a dense tcgen05.mma.kind::f16 with
/// an f32 accumulator (PTX ISA, "Instruction descriptor"): bits 4-5 the D
/// format (1: f32), 7-9 and 10-12 the A and B formats (0: f16, 1: bf16),
/// 15 and 16 whether A and B are MN-major (0: K-major), 17-22 N >> 3, 24-28
/// M >> 4; sparsity, saturation, negation and the shift stay 0. Fails with
/// the checkTcgen05MmaShape rules.
llvm::Expected<uint32_t>
encodeTcgen05F16InstrDescriptor(bool bf16, bool aMnMajor, bool bMnMajor,
                                unsigned m, unsigned n);

/// The instruction descriptor of a dense tcgen05.mma kind::i8 with signed
/// 8-bit A and B and an s32 accumulator: bits 4-5 the D format (2: s32),
/// 7-9 and 10-12 the A and B formats (1: signed 8-bit), the majors, N and M
/// as for kind::f16; saturation and the rest stay 0. Fails with the
/// checkTcgen05MmaShape rules.
llvm::Expected<uint32_t> encodeTcgen05I8InstrDescriptor(bool aMnMajor,
                                                        bool bMnMajor,
                                                        unsigned m, unsigned n);

/// The operand formats of kind::f8f6f4 (instruction descriptor bits 7-9 for
/// A, 10-12 for B): the 8-bit floats and the 6- and 4-bit ones that
/// tcgen05 reads from padded bytes.
enum class Tcgen05F8F6F4Format : uint8_t {
  E4M3 = 0,
  E5M2 = 1,
  E2M3 = 3,
  E3M2 = 4,
  E2M1 = 5,
};

/// The instruction descriptor of a dense tcgen05.mma kind::f8f6f4 with an
/// f32 accumulator: bits 4-5 the D format (1: f32), 7-9 and 10-12 the A and
/// B formats (each its own: e4m3 x e5m2 is allowed), the majors, N and M as
/// for kind::f16; negation, the shift and the rest stay 0. Rules:
/// "tcgen05-f8f6f4-format" for a 6- or 4-bit format (kcc stages whole
/// bytes of 8-bit floats only), then the checkTcgen05MmaShape rules.
llvm::Expected<uint32_t>
encodeTcgen05F8F6F4InstrDescriptor(Tcgen05F8F6F4Format a, Tcgen05F8F6F4Format b,
                                   bool aMnMajor, bool bMnMajor, unsigned m,
                                   unsigned n);

bool isLegalTcgen05MmaShape(
    Tcgen05Kind kind, unsigned m, unsigned n, unsigned k,
    std::string *reason = nullptr,
    Tcgen05ASource aSource = Tcgen05ASource::SharedMemory);

} // namespace kcc

#endif // KCC_TARGETS_TMEMRULES_H
