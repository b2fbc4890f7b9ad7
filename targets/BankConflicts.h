//===- BankConflicts.h - shared-memory bank-conflict model ------*- C++ -*-===//
//
// How many shared-memory cycles ("wavefronts" in Nsight Compute's words) one
// warp/wave-wide access costs on a banked shared memory: NVIDIA shared memory
// or AMD LDS. Layout and swizzle choices consult this instead of guessing.
//
// The model: memory is `banks` banks of `bankBytes`-byte words, word w living
// in bank w % banks. The hardware serves the lanes of one instruction in
// phases, groups of lanes that depend on the access width (and, on AMD, on
// whether it is a load or a store). Within a phase every bank delivers one
// word per cycle, so a phase costs max over banks of the number of DISTINCT
// words that the phase's lanes touch in that bank; lanes touching the same
// word share it (broadcast for loads, one winning store for stores). An access
// wider than a bank word touches ceil(width / bankBytes) consecutive words.
// The access costs the sum of its phases.
//
// Phase groupings:
//  * NVIDIA sm_80/sm_90/sm_100: 32 x 4-byte banks, warp of 32. 1/2/4-byte
//    accesses: the whole warp is one phase; 8-byte: half-warps; 16-byte:
//    quarter-warps (one phase moves at most 128 bytes). Sources: CUDA C++
//    Programming Guide, "Shared Memory" for compute capability 5.x and later,
//    https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#shared-memory-5-x
//    (32 banks, successive 32-bit words in successive banks, no conflict
//    between threads accessing the same 32-bit word); Nsight Compute Kernel
//    Profiling Guide, https://docs.nvidia.com/nsight-compute/ProfilingGuide/
//    (a wavefront is the unit processed in one cycle; bank conflicts are the
//    wavefronts above the ideal count); NVIDIA forum answers on LDS.128,
//    https://forums.developer.nvidia.com/t/unexpected-shared-memory-bank-conflict/77228
//    https://forums.developer.nvidia.com/t/clarification-bank-conflicts-metric-vs-wavefronts-for-shared-memory-lds-128/359822
//    (128 bytes per wavefront, LDS.128 needs at least 4).
//  * AMD CDNA2/CDNA3 (gfx90a, gfx942): 32 x 4-byte banks, wave of 64.
//    1/2/4-byte: half-waves (lanes 0-31, 32-63); 8-byte: 16-lane quarter
//    waves; ds_write_b128: eight runs of 8 lanes; ds_read_b128: eight
//    NON-contiguous groups {0-3,20-23}, {4-7,16-19}, {8-11,28-31},
//    {12-15,24-27} and the same +32. Sources: ROCm blog "Avoiding LDS Bank
//    Conflicts on AMD GPUs Using CK-Tile Framework",
//    https://rocm.blogs.amd.com/software-tools-optimization/lds-bank-conflict/README.html
//    and Composable Kernel "Understanding AMD GPU LDS and Bank Conflicts",
//    https://rocm.docs.amd.com/projects/composable_kernel/en/latest/conceptual/ck_tile/hardware/lds_bank_conflicts.html
//    (b128 groups); the b64 quarter waves and a re-measurement of the b128
//    read groups on MI300 in https://github.com/tingqli/pyhip
//    (tests/bank-conflict/README.md); half-wave checking of dword accesses
//    from AMD's OpenCL programming guide (GCN LDS, which CDNA keeps), quoted
//    in this thread:
//    https://community.amd.com/t5/opencl/gcn-lds-bank-optimization-4-byte-vs-8-byte-memory-access/td-p/321160
//    Read and write groups for b128 differ, so stores have their own table.
//
// Not modelled: NVIDIA's pairwise-uniform packing that lets some LDS.64/128
// broadcasts finish in fewer wavefronts (forum thread 77228 above), and
// differences between shared-memory atomics and plain accesses.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_BANKCONFLICTS_H
#define KCC_TARGETS_BANKCONFLICTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace kcc {

/// Loads and stores may use different lane groupings (AMD ds_read_b128 vs
/// ds_write_b128).
enum class SharedAccessKind { Load, Store };

/// A group of lanes the hardware serves together, and a table of them per
/// access width in bytes.
using LanePhases = std::vector<std::vector<unsigned>>;
using PhaseTable = std::map<unsigned, LanePhases>;

/// Geometry of a banked shared memory (NVIDIA shared memory, AMD LDS).
struct BankGeometry {
  unsigned banks = 32;    // number of banks
  unsigned bankBytes = 4; // bytes per bank word
  unsigned lanes = 32;    // warp / wave size
  /// For an access width in bytes (1, 2, 4, 8, 16), the groups of lanes that
  /// the hardware serves together (one phase each). Lanes must be < `lanes`
  /// and appear at most once per width; a lane in no group may not be active.
  PhaseTable phases;
  /// Store-only overrides of `phases`, for widths whose stores group lanes
  /// differently from loads.
  PhaseTable storePhases;

  /// The phases used for `accessBytes`-wide accesses of `kind`: storePhases
  /// (stores only), else phases, else consecutive runs of
  /// banks * bankBytes / max(accessBytes, bankBytes) lanes clamped to
  /// [1, lanes] -- as many lanes as one cycle of all banks can serve, where a
  /// sub-word access still occupies a whole bank slot.
  LanePhases phasesFor(unsigned accessBytes,
                       SharedAccessKind kind = SharedAccessKind::Load) const;
};

struct TargetModel;

/// The geometry a target model describes (its [shared_memory] section).
BankGeometry bankGeometry(const TargetModel &target);
/// NVIDIA shared memory, sm_80 / sm_90 / sm_100 (the built-in sm_90a model).
BankGeometry nvidiaSharedGeometry();
/// AMD LDS of CDNA2 / CDNA3, gfx90a / gfx942 (the built-in gfx942 model).
BankGeometry amdLdsGeometry();

/// `lanes` lanes cut into consecutive runs of `perPhase` (the last may be
/// shorter).
LanePhases contiguousPhases(unsigned lanes, unsigned perPhase);

struct BankConflictResult {
  /// Shared-memory cycles the access needs (sum over phases).
  unsigned wavefronts = 0;
  /// The minimum: per phase, the cycles needed to move its distinct words
  /// through `banks` banks, ceil(words / banks). That is 1 per phase with an
  /// active lane in every built-in table (a phase moves at most one cycle's
  /// bytes), i.e. Nsight Compute's ideal for this many lanes and this width.
  unsigned idealWavefronts = 0;
  /// Worst n-way conflict: max over phases of ceil(phase wavefronts / phase
  /// ideal). 1 means conflict free.
  unsigned degree = 1;
  unsigned activeLanes = 0;
  /// Where the worst conflict is: phase index in phasesFor() order and the
  /// bank with the most distinct words in it. Meaningless when degree == 1.
  unsigned worstPhase = 0;
  unsigned worstBank = 0;

  /// Nsight Compute's "bank conflicts": wavefronts above the ideal.
  unsigned excessWavefronts() const { return wavefronts - idealWavefronts; }
  bool conflictFree() const { return wavefronts == idealWavefronts; }
};

/// laneAddress[i] is the byte address lane i accesses, or std::nullopt when
/// the lane is inactive; lanes past the end are inactive. Errors (not asserts)
/// for bad input: accessBytes not a power of two in [1, 16], an address not
/// aligned to accessBytes, more addresses than lanes, a malformed geometry or
/// phase table, an active lane in no phase.
llvm::Expected<BankConflictResult>
analyzeBankConflicts(const BankGeometry &geometry,
                     llvm::ArrayRef<std::optional<uint64_t>> laneAddress,
                     unsigned accessBytes,
                     SharedAccessKind kind = SharedAccessKind::Load);

/// Affine patterns: address(lane) = base + lane * strideBytes for lanes
/// [0, activeLanes), the rest inactive. Errors also for activeLanes > lanes
/// and negative addresses.
llvm::Expected<BankConflictResult>
analyzeAffineBankConflicts(const BankGeometry &geometry, uint64_t base,
                           int64_t strideBytes, unsigned activeLanes,
                           unsigned accessBytes,
                           SharedAccessKind kind = SharedAccessKind::Load);

} // namespace kcc

#endif // KCC_TARGETS_BANKCONFLICTS_H
