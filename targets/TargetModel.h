//===- TargetModel.h - pluggable descriptions of GPU targets ------*- C++
//-*-===//
//
// A target model is the data the passes consult instead of hard-coding a chip:
// warp size, memory geometry, vector widths, TMA limits, MMA shapes, TMEM.
// Models are TOML files; the built-in ones (targets/<vendor>/*.toml) are
// embedded in the compiler, and `--target-model=FILE.toml` adds or overrides
// one (`inherits = "sm_90a"` starts from an existing model).
//
// The legality predicates that read these numbers live next to this file:
// TmaRules.h (tensor maps), WgmmaRules.h, TmemRules.h, BankConflicts.h.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_TARGETMODEL_H
#define KCC_TARGETS_TARGETMODEL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kcc {

enum class Vendor { NVIDIA, AMD };

/// Banked on-chip memory: NVIDIA shared memory, AMD LDS.
struct SharedMemoryModel {
  /// The most one CTA / workgroup may use: on NVIDIA the opt-in maximum of
  /// dynamic shared memory (cudaDevAttrMaxSharedMemoryPerBlockOptin), where
  /// kcc keeps a kernel's shared memory; kcc-allocate-shared-memory refuses
  /// more and kcc-pipeline-tma-loads sizes its stages by it.
  unsigned bytesPerBlock = 0;
  unsigned bytesPerSM = 0;    // per SM / CU
  unsigned banks = 32;
  unsigned bankBytes = 4;
  /// For an access width in bytes, the groups of lanes served together (one
  /// phase). A width without an entry uses consecutive groups of
  /// banks*bankBytes/width lanes.
  std::map<unsigned, std::vector<std::vector<unsigned>>> phases;
  /// Store-only overrides of `phases` (AMD ds_write_b128 groups lanes
  /// differently from ds_read_b128).
  std::map<unsigned, std::vector<std::vector<unsigned>>> storePhases;
};

/// The Tensor Memory Accelerator (cuTensorMapEncodeTiled) limits that differ
/// between targets; the rule structure itself is in TmaRules.cpp.
struct TmaModel {
  bool supported = false;
  unsigned maxRank = 5;
  unsigned maxBoxDim = 256;
  unsigned maxElementStride = 8;
  /// The driver refuses a box larger than this many bytes (after element
  /// strides); on sm_90 it equals the shared memory of one SM.
  uint64_t maxBoxBytes = 0;
  /// CUtensorMapSwizzle values the driver accepts for this architecture.
  std::vector<unsigned> swizzleModes;
  /// Whether the packed 16U4/16U6 data types exist on this architecture.
  bool packedTypes = false;
  /// Where the numbers were checked, e.g. "cuTensorMapEncodeTiled on H100,
  /// driver 580.159.04"; empty when only the documentation backs them.
  std::string verifiedBy;
};

/// One family of matrix-multiply shapes: m x n x k for an A/B element type,
/// n from nMin to nMax in steps of nStep.
struct MmaShape {
  std::string a;
  unsigned m = 0, nMin = 0, nMax = 0, nStep = 1, k = 0;
};

struct MmaModel {
  std::string instruction; // "mma.sync", "wgmma", "tcgen05.mma", "mfma"
  std::vector<MmaShape> shapes;
  /// A/B types of the warp-level mma.sync.m16n8k16 that an architecture
  /// whose main instruction is another keeps from sm_80 (kcc uses it for the
  /// dots that instruction does not take).
  std::vector<std::string> mmaSync;
};

/// Blackwell tensor memory.
struct TmemModel {
  unsigned columns = 0; // 0: no TMEM
  unsigned lanes = 0;
  unsigned minAllocColumns = 0;
};

/// Register reallocation between warpgroups (`setmaxnreg`, sm_90a+), which
/// makes a warp-specialized pipeline worth it: the producer warpgroup gives
/// registers back, the consumer warpgroups take them.
/// ([warp_specialization]; absent: kernels are not warp-specialized.)
struct WarpSpecializationModel {
  unsigned producerRegisters = 0; // 0: no warp specialization
  unsigned consumerRegisters = 0;
  unsigned registerFile = 0; // 32-bit registers per SM (one CTA may hold all)
  bool enabled() const { return producerRegisters != 0; }
};

/// Rates for the launch-time choice among tile shapes (runtime/include/kcc/
/// dispatch.h): per multiprocessor and clock unless said. A ranking model,
/// not a simulator: the values are the card's datasheet rates, the L2 rate,
/// latency and launch cost fitted to measured tile timings (sm_90a, on an
/// H200: docs/gemm.md, "Tile shapes chosen at launch").
/// ([throughput]; absent: the compiler keeps one candidate per group.)
struct ThroughputModel {
  unsigned tensorFlops = 0; // dense 16-bit tensor-core operations (2 per FMA)
  unsigned sharedBytes = 0; // shared-memory bytes the tensor cores read
  unsigned l2Bytes = 0;     // bytes one multiprocessor loads from L2
  unsigned dramBytes = 0;   // the whole device's memory bytes per clock
  unsigned latency = 0;     // clocks of a load from memory
  unsigned launch = 0;      // clocks of a launch and its prologue
  bool enabled() const { return tensorFlops != 0; }
};

struct TargetModel {
  std::string name; // e.g. "sm_90a"
  Vendor vendor = Vendor::NVIDIA;
  std::string description;
  std::string inherits;   // the model this one started from, if any
  unsigned sm = 0;        // NVIDIA compute capability x10
  std::string archSuffix; // "a" for arch-specific feature sets
  unsigned ptxIsa = 0;    // PTX ISA version x10
  std::string processor;  // AMD: "gfx942"
  unsigned warpSize = 32;
  unsigned maxThreadsPerBlock = 1024;
  unsigned registersPerThread = 255;
  unsigned maxVectorBytes = 16;
  SharedMemoryModel sharedMemory;
  TmaModel tma;
  MmaModel mma;
  TmemModel tmem;
  WarpSpecializationModel warpSpecialization;
  ThroughputModel throughput;
  /// Asynchronous global->shared mechanisms, e.g. "cp.async", "tma".
  std::vector<std::string> asyncCopy;
  /// The 8-bit float formats registers convert to and from ("e4m3",
  /// "e5m2": OCP E4M3FN / E5M2, kcc's f8e4m3 / f8e5m2; "e4m3fnuz",
  /// "e5m2fnuz": MI300's variants, which kcc has no type for).
  std::vector<std::string> float8;
  /// Cross-lane exchanges for the butterflies of wave reductions, with their
  /// cost in cycles ([lane_exchange]; targets/LaneExchange.h), sorted by
  /// name as TOML tables are. Never empty after loading: the vendor's
  /// defaults fill it.
  std::vector<std::pair<std::string, unsigned>> laneExchanges;

  /// The LLVM CPU name, e.g. "sm_90a" or "gfx942".
  std::string llvmCpu() const {
    if (vendor == Vendor::AMD)
      return processor;
    return "sm_" + std::to_string(sm) + archSuffix;
  }
  /// The LLVM feature string, e.g. "+ptx80" (none for AMD: gfx9 is wave64
  /// only and xnack/sramecc stay "any", so one code object fits both modes).
  std::string llvmFeatures() const {
    if (vendor == Vendor::AMD)
      return "";
    return "+ptx" + std::to_string(ptxIsa);
  }
  /// The fatbinary `sm=` value, e.g. "90a".
  std::string fatbinArch() const { return std::to_string(sm) + archSuffix; }
  bool hasAsyncCopy(llvm::StringRef mechanism) const;
};

class TargetRegistry;

/// Refuses TOML text that Debian's toml++ 3.3 cannot parse safely
/// (non-ASCII outside comments reaches __builtin_unreachable in it,
/// marzer/tomlplusplus#190), with "file:line:col: error: ...". Every TOML
/// reader calls it first: target models, kcc-difftest's case files.
llvm::Error checkTomlText(llvm::StringRef text, llvm::StringRef bufferName);

/// Parses a TOML target description. `bufferName` is used in error messages,
/// which carry file:line:col and name the offending key. `inherits = "x"`
/// looks x up in `bases`.
llvm::Expected<TargetModel> parseTargetModel(llvm::StringRef toml,
                                             llvm::StringRef bufferName,
                                             const TargetRegistry *bases);

/// Target models by name: the built-in ones plus any loaded from files.
class TargetRegistry {
public:
  static const TargetRegistry &builtin();
  const TargetModel *lookup(llvm::StringRef name) const;
  std::vector<std::string> names() const;
  /// Reads a TOML model from `path` and adds it, replacing a model of the
  /// same name. Pointers from earlier lookups of other models stay valid.
  llvm::Error addFromFile(llvm::StringRef path);
  /// Adds a model parsed from TOML text (what addFromFile does after reading).
  llvm::Error addFromText(llvm::StringRef text, llvm::StringRef bufferName);
  /// Adds `model`, replacing a model of the same name.
  void add(TargetModel model);

  /// What a backend's own tools say of a model this registry reads from
  /// text: the key at fault and why they refuse it, or nothing. kcc asks
  /// ptxas (nvidia::ptxasRefuses) about --target-model files; the built-in
  /// models are tested instead, so builtin() has none.
  using ToolCheck =
      std::function<std::optional<std::pair<std::string, std::string>>(
          const TargetModel &)>;
  void setToolCheck(ToolCheck check) { toolCheck = std::move(check); }

private:
  struct Entry;
  std::vector<std::shared_ptr<const Entry>> entries;
  ToolCheck toolCheck;
  const Entry *find(llvm::StringRef name) const;
  friend struct RegistryAccess;
};

} // namespace kcc

#endif // KCC_TARGETS_TARGETMODEL_H
