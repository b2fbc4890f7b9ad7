//===- Report.h - `kcc --report`: what the compiler chose, and why --*- C++
//-*-===//
//
// Per kernel and target: each global memory operation's path (vector width,
// and every faster path not taken with the rule that refused it), the
// bank-conflict degree of each shared-memory access under the target's bank
// model, the exchanges of each wave reduction with their modelled cost, and
// registers / shared memory / spills from ptxas.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_KCC_REPORT_H
#define KCC_TOOLS_KCC_REPORT_H

#include "backends/host/KernelInfo.h"
#include "pipeline/SelectVariants.h"
#include "targets/TargetModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace kcc::driver {

class Report {
public:
  /// A remark from kcc-assign-layouts: the access-width explanation of the
  /// load/store at `loc`.
  struct Remark {
    mlir::Location loc;
    std::string text;
  };

  /// Records the layout decisions for one target (layout IR of every
  /// specialization in `module`).
  void addTarget(mlir::ModuleOp module, const TargetModel &target,
                 std::vector<Remark> remarks);
  /// Records the tiles of pointers kcc-synthesize-tile-accesses lifted to
  /// tensor accesses (tile IR after the tile passes), shown with the memory
  /// operations at the same location on every target (why one was not
  /// lifted stays on its kcc.load/kcc.store: kcc.lift_refused).
  void addLifts(mlir::ModuleOp tileIR);
  /// Records which candidate of each tunable group `target` keeps, and why
  /// (pipeline/SelectVariants.h).
  void addVariantChoices(const TargetModel &target, double seconds,
                         std::vector<pipeline::VariantChoice> choices);
  /// Adds ptxas's numbers once the targets are compiled.
  void addResources(const host::ModuleInfo &info);

  void printText(llvm::raw_ostream &os) const;
  llvm::json::Value toJSON() const;

  std::string file;

private:
  struct NotTaken {
    std::string path, rule, reason;
  };
  struct MemoryOp {
    std::string loc, kind, elem, path, explanation;
    int64_t elements = 0;
    unsigned accessElems = 1, accessBytes = 0;
    std::vector<NotTaken> notTaken;
  };
  struct SharedAccess {
    std::string loc, op, what;
    bool store = false;
    unsigned bytes = 0, instructions = 0, wavefronts = 0, ideal = 0, degree = 1;
  };
  /// A 1-D reduction's butterfly across the lanes of a warp/wave.
  struct Butterfly {
    std::string loc, op, steps;
    unsigned lanes = 0, cycles = 0, plainCycles = 0;
    size_t choices = 0; // exchange kinds the target model lists
  };
  struct TargetEntry {
    std::string target, bankModel;
    std::vector<Butterfly> butterflies;
    unsigned threads = 0;
    // Warp specialization: how the threads are split, or why a TMA
    // pipeline feeding wgmma was not split (empty: no such pipeline).
    std::string roles;
    // How the grid is launched, for persistent kernels (kcc --persistent).
    std::string launch;
    // kcc-prove-tile-coverage's verdict per stored tensor, as sentences.
    std::vector<std::string> coverage;
    // Where each dot runs (tensor cores, or CUDA/SIMD cores and why).
    std::vector<std::string> dots;
    // Code that costs more than the same computation written otherwise
    // (a tile divided element by element by a broadcast value).
    std::vector<std::string> hints;
    bool haveResources = false;
    unsigned registers = 0, sharedBytes = 0, spillBytes = 0, stackBytes = 0;
    std::vector<MemoryOp> memoryOps;
    std::vector<SharedAccess> shared;
  };
  // symbol -> entries in target order
  std::map<std::string, std::vector<TargetEntry>> kernels;
  // symbol -> location -> "lifted: <what>" (descriptor synthesis)
  std::map<std::string, std::map<std::string, std::string>> lifts;
  const std::string *liftOf(const std::string &symbol,
                            const MemoryOp &m) const;
  std::vector<std::string> order;
  // (target, choice) in the order the targets were compiled
  std::vector<std::pair<std::string, pipeline::VariantChoice>> variants;
  // target -> the wall time of its tunable search, in seconds
  std::map<std::string, double> searchSeconds;
};

} // namespace kcc::driver

#endif // KCC_TOOLS_KCC_REPORT_H
