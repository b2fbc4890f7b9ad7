//===- SimLegs.h - kcc-difftest's SIMT simulator legs -------------*- C++
//-*-===//
//
// A sim leg runs each case on kcc's lowering of the kernel for one target
// (sim-sm_90a: NVIDIA, warps of 32; sim-gfx942: AMD, waves of 64) in the
// SIMT simulator (sim/, docs/simulator.md) and compares its outputs with
// the interpreter's, with the same tolerances as the GPU leg. A case the
// simulator reports on (deadlock, race, out-of-bounds, ...) FAILs with the
// report printed at the .kc source line.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_DIFFTEST_SIMLEGS_H
#define KCC_TOOLS_DIFFTEST_SIMLEGS_H

#include "tools/kcc-difftest/RunList.h"

#include "interp/Interpreter.h"
#include "pipeline/Pipeline.h"
#include "sim/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/SourceMgr.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kcc::difftest {

/// Every CPU leg, in table order (the default of --legs).
std::vector<std::string> cpuLegNames();

struct SimLeg {
  std::string name; // "sim-<target>"
  const TargetModel *target = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Why the module could not be produced (the compiler's first error):
  /// every case of this leg is SKIPped with it.
  std::string unavailable;
  /// Per kernel symbol, the tensor maps it takes after its user arguments
  /// (targets with TMA), as the stubs would encode them.
  struct MapArg {
    unsigned base = 0;        // the tensor's base-pointer argument
    std::vector<int64_t> box; // outermost first
    unsigned elementBytes = 4;
    unsigned swizzle = 0; // bytes: 0, 32, 64 or 128
    /// A lifted tile of pointers (kcc.tensor_map_shape): its sizes then row
    /// strides, each an argument number (isArg) or a constant; empty for a
    /// tensor parameter's map.
    std::vector<std::pair<bool, int64_t>> shape;
  };
  std::map<std::string, std::vector<MapArg>> maps;
  /// Bank conflicts summed over the leg's cases, per op.
  std::map<mlir::Operation *, sim::BankSummary> banks;
  /// `func` decoded for the simulator: once per kernel, however many cases
  /// launch it (side by side, too). Null with `error` set where the
  /// simulator cannot run it.
  std::shared_ptr<const sim::Program> decode(mlir::LLVM::LLVMFuncOp func,
                                             sim::Report &error) const;

private:
  struct Decoded {
    std::shared_ptr<const sim::Program> program;
    std::optional<sim::Report> error;
  };
  mutable std::unique_ptr<std::mutex> decodeMutex =
      std::make_unique<std::mutex>();
  mutable std::map<mlir::Operation *, Decoded> decoded;
};

/// Lowers `tileIR` for the leg's target with `layout`'s choices (the kcc
/// flags difftest forwards), or parses `overridePath` (an LLVM-dialect
/// module, e.g. a deliberately broken lowering) instead; its kernels take
/// the tensor maps kcc gives `tileIR`'s on the target. False on an input
/// error (message in `error`); a module kcc cannot compile only makes the
/// leg unavailable.
bool prepareSimLeg(SimLeg &leg, mlir::ModuleOp tileIR,
                   const std::string &overridePath,
                   const pipeline::LayoutOptions &layout, std::string &error);

struct SimCell {
  std::string cell;   // PASS, FAIL, SKIP(reason)
  std::string detail; // for FAIL
  double ms = 0;
  /// The simulator's reports of a failed launch, for sim::printReports
  /// (legs run side by side; the caller prints them in leg order).
  std::vector<sim::Report> reports;
  /// The launches' bank conflicts (addBanks sums them into the leg's).
  std::vector<sim::BankSummary> banks;
};

struct SimLimits {
  uint64_t maxThreads = 1ull << 22; // CTAs x threads per case
  uint64_t seed = 1;
  uint64_t maxInstructions = 0; // per launch, all threads (0: no limit)
  bool bankConflicts = false;   // account them (--bank-conflicts prints them)
  unsigned hostThreads = 0;     // sim::Options::hostThreads
};

/// kcc-difftest --split-k=S: a case run as the stubs run a kernel's split-K
/// pair (kcc-add-split-k-builds): `partial` over grid z = `splits` into an
/// f32 workspace of splits * rows x cols (row stride cols rounded up to 4,
/// filled with NaN: a read of a tile no slice wrote shows), then `reduce`.
struct SplitLaunch {
  std::string build;
  int64_t splits = 0, rows = 0, cols = 0, tiles = 0;
};

/// Runs `symbol` (or, with `split`, its split-K build) on `inputs` (the
/// buffers before the run) and compares the outputs with `reference` (the
/// interpreter's buffers after it; null when the interpreter failed).
/// Changes nothing shared: cases of one leg may run side by side.
SimCell runSimCase(const SimLeg &leg, llvm::StringRef symbol,
                   const std::vector<interp::Buffer> &inputs,
                   const std::vector<interp::KernelArg> &args,
                   const std::vector<RunArg> &runArgs,
                   const std::vector<RunOutput> &outputs,
                   const std::vector<interp::Buffer> *reference,
                   const interp::Grid &grid, const SimLimits &limits,
                   const SplitLaunch *split = nullptr);

/// Adds a case's bank conflicts to its leg's sums.
void addBanks(SimLeg &leg, const SimCell &cell);

/// The ops of each leg with bank conflicts, summed over its cases.
void printLegBankConflicts(const std::vector<SimLeg> &legs,
                           llvm::raw_ostream &os);

} // namespace kcc::difftest

#endif
