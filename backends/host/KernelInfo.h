//===- KernelInfo.h - what the host side needs to know of a kernel -*- C++ -*-===//
//
// The compiled kernels of one .kc file, as the stub emitter and the manifest
// see them: parameters with their facts, specializations, grids, and per
// target the launch shape and the resources ptxas reported.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_HOST_KERNELINFO_H
#define KCC_BACKENDS_HOST_KERNELINFO_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kcc::host {

/// Element types, as in the language (and kcc::DType in the runtime).
enum class ScalarKind {
  I1,
  I8,
  I16,
  I32,
  I64,
  F16,
  BF16,
  F32,
  F64,
  F8E4M3,
  F8E5M2,
  F8E4M3FNUZ,
  F8E5M2FNUZ
};

/// f16, bf16 and the 8-bit floats: C has no such types, so the C API passes
/// their bits (uint16_t / uint8_t) and the C++ API kcc::f16 etc.
bool isWrappedFloat(ScalarKind kind);

/// i8, i16, i32, i64.
bool isIntegerKind(ScalarKind kind);

/// "f32", "bf16", ...
const char *scalarKindName(ScalarKind kind);
/// Size in bytes in memory (i1 is stored as one byte).
unsigned scalarKindBytes(ScalarKind kind);

struct ParamInfo {
  std::string name;          // source name; stubs use it as the C++ name
  bool isPointer = false;
  ScalarKind elem = ScalarKind::I32; // pointee for pointers, else the type;
                                     // the element type for tensor maps
  unsigned align = 0;        // align(N) fact in bytes, 0 if none
  int64_t divisibility = 0;  // multiple_of(N) fact, 0 if none
  // The base pointer of a tensor parameter (kcc.tensor_rank): its rank. The
  // next `tensorRank` params are its sizes, then `tensorRank - 1` strides.
  unsigned tensorRank = 0;
  // A TMA tensor map (!kcc.tensormap, after the user parameters): not part of
  // the stubs' signatures; the stub encodes it at launch from the tensor
  // whose base pointer is param `tensorBase` (kcc.tensor_map_of).
  bool isTensorMap = false;
  unsigned tensorBase = 0;
  // A map of a tile of pointers the compiler lifted to a tensor
  // (kcc.tensor_map_shape): the tensor's sizes (outermost first) and row
  // strides as C++ expressions over the parameters (names or integer
  // literals); empty for a tensor parameter's map, which has its own.
  std::vector<std::string> mapSizes, mapStrides;
  std::vector<int64_t> box; // box shape, outermost first
  unsigned swizzle = 0;     // swizzle span in bytes: 0, 32, 64 or 128
};

struct ConstantValue {
  std::string name;          // "T", "BLOCK"
  bool isDType = false;
  ScalarKind dtype = ScalarKind::F32; // if isDType
  int64_t intValue = 0;      // otherwise (bool: 0/1)
  std::string text;          // as written in names and messages: "f32", "1024"
};

/// One target's build of a specialization.
struct TargetBuild {
  std::string target;        // "sm_90a"
  unsigned sm = 0;           // 90
  unsigned threads = 0;      // threads per block (kcc.num_warps * warp size)
  // Dynamic shared memory the launch provides (kcc.dynamic_smem_bytes; NVIDIA
  // only, AMD kernels use static LDS).
  unsigned dynamicSharedBytes = 0;
  // From `ptxas -v`:
  unsigned registers = 0;
  unsigned sharedBytes = 0;  // static shared memory
  unsigned stackBytes = 0;
  unsigned spillStoreBytes = 0;
  unsigned spillLoadBytes = 0;
  // Why the launch keeps the one-CTA-per-tile build instead of this
  // persistent build on this target (kcc::persistentBuildNotLaunched), or
  // empty.
  std::string persistentNotLaunched;
};

/// A tensor the kernel's stores cover only for some sizes (kcc.coverage):
/// the stubs refuse a launch where `expr` is false.
struct CoverageGuard {
  std::string tensor; // parameter name
  std::string expr;   // C over the integer parameter names
  std::string text;   // the same condition for people (floor(a / b))
};

/// A require(...) clause: the stubs refuse a launch where `expr` is false.
struct Requirement {
  std::string expr; // C over the integer parameter names
  std::string text; // as written
  std::string at;   // file:line:col
};

struct Specialization {
  std::string symbol;                   // entry name, e.g. vector_add_f32_1024
  std::vector<ConstantValue> constants; // in declaration order
  std::vector<ParamInfo> params;        // in declaration order
  std::array<std::string, 3> grid;      // C expressions over param names
  unsigned persistent = 0; // CTAs per multiprocessor of a persistent launch
  // A persistent build (kcc --persistent): the symbol of the
  // one-program-per-tile build it stands in for when the grid has more than
  // `persistent` x processors tiles. Same parameters, grid and guards.
  std::string persistentOf;
  // A fallback build (kcc-add-fallback-builds): the symbol of the build it
  // stands in for when the launch's tensors break the tensor contract. Same
  // user parameters, grid and guards; no tensor maps.
  std::string fallbackOf;
  // A build of a versioned branch (kcc-version-launch-branches): the symbol
  // of the build of the then branch, whose launch runs this one instead
  // when `versionGuard` (C over the integer parameter names) is false. Same
  // user parameters, grid and guards; its own tensor maps, persistent and
  // fallback builds.
  // The masked build of kcc-version-full-launches is one too: versionOf
  // runs without the masks where the guard holds (`versionMasks`).
  std::string versionOf;
  Requirement versionGuard; // the if's condition: C, as written, where
  bool versionMasks = false;
  // A split-K build (kcc-add-split-k-builds): the symbol of the build whose
  // launch runs it when the grid is too small for the GPU.
  // Its parameters are that build's, then the workspace tensor (kcc_ws,
  // kcc_ws_dim0, kcc_ws_dim1, kcc_ws_stride0), kcc_splits and kcc_tickets.
  std::string splitKOf;
  // The split build's: the K loop's iterations, the output's rows rounded
  // up to a whole tile, its columns and its tiles (one ticket each); C over
  // the parameter names.
  std::string splitTrips, splitRows, splitCols, splitTiles;
  // What moving one f32 partial tile costs, in K iterations (a number).
  std::string splitStore;
  // (target, why) for each target that could not compile this build (a
  // fallback build is dropped there rather than failing the compile).
  std::vector<std::pair<std::string, std::string>> notBuilt;
  std::vector<Requirement> requirements; // checked first, in order
  std::vector<CoverageGuard> coverage;  // launch guards, if any
  std::vector<TargetBuild> builds;      // one per target that compiled it
  // Only a candidate of variant groups (kcc.variant_only): no launch
  // function of its own; built only for the targets that chose it.
  bool variantOnly = false;
};

/// A candidate a launch function weighs by the call's sizes (mirrors
/// kcc::rt::TileWork, runtime/include/kcc/dispatch.h).
struct DispatchCandidate {
  std::string symbol;
  std::string trips, rows, cols; // C over the parameter names (rows/cols
                                 // may be empty: unknown)
  double tileM = 0, tileN = 0, flops = 0, smemBytes = 0, rowBytes = 0,
         colBytes = 0, storeBytes = 0, stages = 1, flopsScale = 1;
  // A memory-bound candidate (no products): its bytes per program, C over
  // the parameters (kcc::rt::streamCycles); empty for a product loop.
  std::string streamBytes;
};

/// A target's candidates for a launch function, best ranked first, and the
/// target model's rates (kcc::rt::MachineRates: flops, smem, l2, dram,
/// latency, launch).
struct DispatchTarget {
  std::string target;
  unsigned sm = 0; // NVIDIA compute capability x10; 0 on AMD
  std::array<double, 6> rates{};
  std::vector<DispatchCandidate> candidates;
  // kcc --tuning-db: shapes measured on `tunedDevice`, each the values of
  // `tunedParams` (the launch's integer parameters) and the index of the
  // candidate measured fastest.
  std::string tunedDevice, tunedFrom;
  std::vector<std::string> tunedParams;
  std::vector<std::vector<int64_t>> tunedSizes;
  std::vector<int> tunedPicks;
};

/// A specialize clause that left tunable constants to the compiler: one
/// launch function, `name`, running on each target the candidate chosen
/// there (pipeline/SelectVariants.h), or the one of the candidates kept
/// there that the call's sizes favour.
struct VariantGroup {
  std::string name;                    // attention_f16_128_0
  std::vector<std::string> open;       // the constants chosen: BM, BN
  std::vector<std::string> candidates; // Specialization::symbol of each
  // (target, chosen symbol), one per target, in target order.
  std::vector<std::pair<std::string, std::string>> chosen;
  // Per target, in target order, the candidates the launch weighs (just
  // the chosen one where the compiler kept one).
  std::vector<DispatchTarget> dispatch;
};

struct KernelInfo {
  std::string name;                     // base name, e.g. vector_add
  std::vector<Specialization> specializations;
  // kcc --persistent: the persistent builds of some specializations (each
  // with persistentOf set); not launch functions of their own.
  std::vector<Specialization> persistentBuilds;
  // The fallback builds of some specializations (each with fallbackOf set);
  // not launch functions of their own.
  std::vector<Specialization> fallbackBuilds;
  // The builds of else branches some specializations' launches run (each
  // with versionOf set); not launch functions of their own.
  std::vector<Specialization> versionBuilds;
  // The split-K builds of some specializations (a partial and a reduce
  // build each, with splitKOf set); not launch functions of their own.
  std::vector<Specialization> splitKBuilds;
  std::vector<VariantGroup> groups;

  /// The persistent build of `spec`, or null.
  const Specialization *persistentBuildOf(const Specialization &spec) const;
  /// The fallback build of `spec`, or null.
  const Specialization *fallbackBuildOf(const Specialization &spec) const;
  /// The build of the else branch `spec`'s launch may run, or null.
  const Specialization *versionBuildOf(const Specialization &spec) const;
  /// The split-K build of `spec`, or null.
  const Specialization *splitKBuildOf(const Specialization &spec) const;
  /// The specialization or else-branch build named `symbol`, or null.
  const Specialization *launchedBuild(const std::string &symbol) const;
};

struct ModuleInfo {
  std::string stem;                     // file stem, e.g. vector_add
  std::string sourcePath;               // as given on the command line
  std::vector<std::string> targets;     // "sm_80", ...
  std::string fatbinContents;           // "sm_80, sm_90a, sm_100a (+PTX sm_100a)"
  std::vector<KernelInfo> kernels;
};

/// The variant group named `name` in any kernel of `info`, or null.
VariantGroup *findVariantGroup(ModuleInfo &info, const std::string &name);

} // namespace kcc::host

#endif // KCC_BACKENDS_HOST_KERNELINFO_H
