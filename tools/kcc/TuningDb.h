//===- TuningDb.h - tuning databases of measured tile choices --*- C++ -*-===//
//
// The generated tuner (<stem>.tune.cpp, docs/gemm.md "Tuned dispatch")
// times each candidate a launch function keeps, at the sizes it is given,
// on one GPU, and writes a tuning database: JSON, versioned, keyed by
// target and device name. `kcc --tuning-db=FILE` compiles its entries into
// the launch stubs as a table of measured choices that the launch consults
// before the cost model, on that device only.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_KCC_TUNINGDB_H
#define KCC_TOOLS_KCC_TUNINGDB_H

#include "backends/host/KernelInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kcc::driver {

/// The format version the tuner writes and kcc reads.
constexpr int64_t kTuningDbVersion = 1;

struct TunedShape {
  std::string launch;                                 // launch function
  std::vector<std::pair<std::string, int64_t>> sizes; // integer params
  std::string best; // the candidate measured fastest
  size_t index = 0; // in the file's entries, for messages
};

struct TuningDb {
  std::string path;
  std::string target; // "sm_90a"
  std::string device; // "NVIDIA H200"
  std::vector<TunedShape> shapes;
};

/// Reads and checks the format of `path`; an error names the file and what
/// is wrong.
llvm::Expected<TuningDb> readTuningDb(llvm::StringRef path);

/// Puts `db`'s shapes into the launch functions of `info` that weigh
/// candidates on its target; returns a warning per shape (or for the whole
/// file) it cannot use: another target, an unknown launch function, a
/// candidate no longer kept, sizes that are not the launch's integer
/// parameters. Never an error: such shapes fall back to the cost model.
std::vector<std::string> applyTuningDb(const TuningDb &db,
                                       host::ModuleInfo &info);

} // namespace kcc::driver

#endif // KCC_TOOLS_KCC_TUNINGDB_H
