//===- Simulator.h - SIMT simulator of kcc's lowered kernels ------*- C++
//-*-===//
//
// Executes a kernel after kcc's lowering to the MLIR LLVM dialect (plus NVVM
// or ROCDL ops), thread by thread, the way the target's hardware would run
// it, and checks what the tile-level interpreter cannot see because it is
// below the tile level: cross-lane steps, barriers, shared memory, mbarriers
// and asynchronous copies. docs/simulator.md describes the model; in short:
//
//  - CTAs (work-groups) run one after another, the CTAs of a thread-block
//    cluster (nvvm.cluster_dim) together; inside a CTA, threads are
//    grouped into warps of the target's width (32, or 64 on gfx90a/gfx942);
//  - threads run in a seeded random order, each for a random quantum of
//    instructions or until it blocks at a barrier, a cross-lane op (shfl,
//    ds_bpermute, ds_swizzle, DPP, readlane), or an mbarrier wait;
//  - a cross-lane op executes for the lanes that reached it once every live
//    lane of the warp is blocked (lockstep for the lanes that matter);
//    NVIDIA's membermask must name exactly the lanes that arrived;
//  - pending asynchronous copies (TMA) complete at random scheduling points,
//    or when nothing else can run;
//  - reported, with the op's location: deadlocks (every live thread blocked;
//    the barrier, or the mbarrier's phase, pending arrivals and tx bytes),
//    threads exiting while others wait at a barrier, shared-memory data races
//    (two threads touch the same byte, one writes, no barrier or mbarrier
//    wait orders them), reads of shared memory nobody wrote, out-of-bounds
//    global, shared and constant accesses, division by zero, unknown ops;
//  - shared-memory bank conflicts of every shared access op, counted per
//    warp-wide execution with the target's bank model (targets/
//    BankConflicts.h), summed per op.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_SIM_SIMULATOR_H
#define KCC_SIM_SIMULATOR_H

#include "targets/BankConflicts.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Location.h"

#include "llvm/Support/ThreadPool.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kcc::sim {

/// A buffer of global memory the harness owns.
struct GlobalBuffer {
  std::string name;
  std::vector<uint8_t> bytes;
  unsigned elementBytes = 1; // for messages (element offsets)
};

/// The logical fields of a CUtensorMap (tiled mode): what the harness
/// encoded for a tensor-map argument. Dimension 0 is the innermost.
struct TensorMap {
  unsigned buffer = 0;     // the GlobalBuffer the map points into
  uint64_t baseOffset = 0; // byte offset of element (0, ..) in it
  unsigned rank = 1;
  unsigned elementBytes = 4;
  std::array<uint64_t, 5> dims = {1, 1, 1, 1, 1};
  std::array<uint64_t, 5> strideBytes = {0, 0, 0, 0, 0}; // dims 1..rank-1
  std::array<uint32_t, 5> box = {1, 1, 1, 1, 1};
  unsigned swizzleBytes = 0; // 0 (none), 32, 64 or 128
};

/// A kernel argument: raw bits of a scalar (as wide as its type), a pointer
/// into a buffer, or a tensor map (passed as a generic pointer).
struct KernelArg {
  enum Kind { Scalar, Pointer, TensorMapPtr } kind = Scalar;
  uint64_t bits = 0;
  unsigned index = 0;      // buffer or tensor map
  uint64_t byteOffset = 0; // Pointer: into the buffer
};

struct Options {
  std::string target = "sm_90a";
  unsigned warpSize = 32;
  BankGeometry banks;
  uint64_t sharedLimit = 0; // bytes per CTA the target allows (0: no check)
  /// Threads per CTA; 0: from the kernel (nvvm.maxntid,
  /// rocdl.reqd_work_group_size or kcc.num_warps x warpSize).
  std::array<uint32_t, 3> blockDim = {0, 0, 0};
  uint64_t seed = 1;
  unsigned maxQuantum = 64; // instructions a warp's lanes run before a switch
  bool checkRaces = true;
  bool checkUninitializedShared = true;
  bool bankConflicts = true;
  unsigned maxReports = 8;      // race / warning reports before giving up
  uint64_t maxInstructions = 0; // 0: unlimited
  /// Host threads that run CTAs (or clusters) side by side (0:
  /// $KCC_SIM_THREADS, else one per core). The result
  /// is the same for every count: CTAs are independent (kernels with atomics
  /// outside shared memory run them in order), and reports, statistics and
  /// the instruction budget are taken in CTA order as if they ran in turn.
  unsigned hostThreads = 0;
};

/// The host threads a request for `requested` means: itself, else
/// $KCC_SIM_THREADS, else one per core (at least 1).
unsigned hostThreadCount(unsigned requested);

/// The process's pool of host threads for simulations, made at the first
/// call with hostThreadCount(threads) workers. Its threads live on, so their
/// register files (thread-local, grown on demand) are reused from launch to
/// launch; a task may wait for a group of tasks it started (they run on the
/// waiting thread too).
llvm::ThreadPoolInterface &hostPool(unsigned threads);

/// Options for a target model: its warp size, bank model and shared size.
Options optionsFor(const TargetModel &target);

struct Report {
  enum Severity { Error, Note } severity = Error;
  std::string message;
  mlir::Location loc;
};

/// Bank conflicts of one shared-memory access op over the whole run.
struct BankSummary {
  mlir::Operation *op = nullptr;
  bool store = false;
  unsigned accessBytes = 0;
  uint64_t executions = 0; // warp-wide executions
  uint64_t wavefronts = 0, idealWavefronts = 0;
  unsigned maxDegree = 1; // worst n-way conflict seen
};

struct Stats {
  uint64_t ctas = 0, threads = 0, instructions = 0, asyncCopies = 0;
  uint64_t barriers = 0, collectives = 0;
};

struct Result {
  /// Errors with their notes, in order. Empty: the run passed.
  std::vector<Report> reports;
  std::vector<BankSummary> banks;
  Stats stats;
  bool ok() const {
    for (const Report &r : reports)
      if (r.severity == Report::Error)
        return false;
    return true;
  }
};

/// Runs `func` over `grid` CTAs. `buffers` are global memory (written in
/// place); `maps` the tensor maps that TensorMapPtr arguments refer to.
Result simulate(mlir::LLVM::LLVMFuncOp func, const std::vector<KernelArg> &args,
                std::vector<GlobalBuffer> &buffers,
                const std::vector<TensorMap> &maps,
                std::array<uint32_t, 3> grid, const Options &options);

struct Program;
/// simulate's first step, for callers that launch one kernel many times:
/// `func` decoded (null, with the error in `error`, where the simulator does
/// not implement one of its ops).
std::shared_ptr<const Program> decodeKernel(mlir::LLVM::LLVMFuncOp func,
                                            Report &error);
/// simulate with `func` decoded already (decodeKernel).
Result simulate(mlir::LLVM::LLVMFuncOp func, const Program &prog,
                const std::vector<KernelArg> &args,
                std::vector<GlobalBuffer> &buffers,
                const std::vector<TensorMap> &maps,
                std::array<uint32_t, 3> grid, const Options &options);

} // namespace kcc::sim

#endif // KCC_SIM_SIMULATOR_H
