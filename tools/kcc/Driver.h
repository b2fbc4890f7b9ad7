//===- Driver.h - the kcc compilation driver ----------------------*- C++
//-*-===//
#ifndef KCC_TOOLS_KCC_DRIVER_H
#define KCC_TOOLS_KCC_DRIVER_H

#include "targets/TargetModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace kcc::driver {

/// Asm: PTX (NVIDIA) or AMDGPU assembly; Object: cubin or HSACO; Fatbin:
/// everything (fatbin and/or HIP offload bundle, stubs, manifest).
enum class EmitKind { TileIR, LayoutIR, LLVM, Asm, Object, Fatbin };
enum class ReportKind { None, Text, JSON };

struct Options {
  std::vector<std::string> inputs;
  std::string outputDir = "."; // "-" = stdout for textual outputs
  std::vector<const TargetModel *> targets;
  // Where `targets` come from (with the --target-model files); the passes
  // look them up there by name. Null: the built-in models.
  const TargetRegistry *registry = nullptr;
  unsigned optLevel = 3;
  unsigned jobs = 0; // threads for ptxas (-j; 0: one per CPU)
  EmitKind emit = EmitKind::Fatbin;
  std::vector<std::pair<std::string, std::string>> defines;
  // --kernel: compile only the kernels one of these matches (empty: all).
  std::vector<std::pair<std::string, llvm::GlobPattern>> kernels;
  unsigned errorLimit = 20; // frontend errors printed at most (0: all)
  bool timePasses = false;
  unsigned numWarps = 0;                 // 0: the compiler chooses per kernel
  bool warpSpecialize = true;            // producer warpgroups where legal
  bool pingPong = false;                 // ping-pong consumer groups
  bool prefetchTileLoads = true;         // the producer loads a tile ahead
  bool fpContract = true;                // fused multiply-adds (--fmad)
  bool chunkEpilogues = true;            // column-chunked GEMM epilogues
  unsigned pipelineStages = 3;           // K-loop shared stages
  bool overlapProducts = true;           // kcc-defer-register-a-mma
  bool latePromotion = false;            // kcc-defer-block-promotion
  bool versionMasks = true;              // kcc-version-full-masks
  std::string warpgroupTurns = "auto";   // its warpgroups take turns
  unsigned persistent = 0; // CTAs per multiprocessor of group(N) kernels
  unsigned clusters = 0;   // CTAs per cluster of group(N) kernels (0: none)
  bool fallbackBuilds = true; // kernels over tensors: a contract-free build
  bool splitK = true; // GEMM-shaped kernels: split-K builds for small grids
  bool versionBranches = true; // a build per branch of a launch-decided if
  // Tunable groups: candidates kept per target for the launch to choose
  // among by size (1: the compiler's choice alone).
  unsigned dispatchVariants = 12;
  // --unproven-coverage: a tensor whose coverage isl cannot prove is an
  // error (true) or a warning.
  bool unprovenCoverageIsError = true;
  ReportKind report = ReportKind::None;  // --report: printed to stdout
  std::string depfile;                   // --depfile: Makefile rule to write
  std::string cacheDir; // --cache-dir / KCC_CACHE_DIR: the backend cache
  std::vector<std::string> dependencies; // files read besides the inputs
  // --tuning-db: measured tile choices compiled into the launch stubs.
  std::vector<std::string> tuningDbs;
};

/// Compiles every input; prints diagnostics to stderr. Returns the process
/// exit code (0 on success, 1 on any error).
int compile(const Options &options);

/// The most bytes kcc reads from a source file: far more than any kernel
/// file. `kcc legality` reads up to kMaxQueryBytes of JSON lines (the
/// ISA-derived TMA sweep is 21 MiB).
inline constexpr size_t kMaxInputBytes = size_t(16) << 20;
inline constexpr size_t kMaxQueryBytes = size_t(256) << 20;

/// Reads `path` ("-": stdin) into a buffer named by it; null with `error`
/// set when it cannot be read or is larger than `limit` (read in chunks, so
/// a file that never ends is refused, not read forever).
std::unique_ptr<llvm::MemoryBuffer>
readBoundedInput(llvm::StringRef path, std::string &error,
                 size_t limit = kMaxInputBytes);

} // namespace kcc::driver

#endif // KCC_TOOLS_KCC_DRIVER_H
