//===- TargetModel.h - pluggable descriptions of GPU targets ------*- C++ -*-===//
//
// A target model is the data the passes consult instead of hard-coding a chip:
// warp size, memory geometry, vector widths. Models are TOML files; the
// built-in ones (targets/<vendor>/*.toml) are embedded in the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_TARGETMODEL_H
#define KCC_TARGETS_TARGETMODEL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kcc {

enum class Vendor { NVIDIA, AMD };

struct TargetModel {
  std::string name;        // e.g. "sm_90a"
  Vendor vendor = Vendor::NVIDIA;
  std::string description;
  unsigned sm = 0;         // NVIDIA compute capability x10
  std::string archSuffix;  // "a" for arch-specific feature sets
  unsigned ptxIsa = 0;     // PTX ISA version x10
  unsigned warpSize = 32;
  unsigned maxThreadsPerBlock = 1024;
  unsigned registersPerThread = 255;
  unsigned sharedMemoryPerBlock = 0;
  unsigned sharedMemoryBanks = 32;
  unsigned sharedMemoryBankBytes = 4;
  unsigned maxVectorBytes = 16;

  /// The LLVM CPU name, e.g. "sm_90a".
  std::string llvmCpu() const { return "sm_" + std::to_string(sm) + archSuffix; }
  /// The LLVM feature string, e.g. "+ptx80".
  std::string llvmFeatures() const { return "+ptx" + std::to_string(ptxIsa); }
  /// The fatbinary `sm=` value, e.g. "90a".
  std::string fatbinArch() const { return std::to_string(sm) + archSuffix; }
};

/// Parses a TOML target description. `bufferName` is used in error messages,
/// which carry file:line:col and name the offending key.
llvm::Expected<TargetModel> parseTargetModel(llvm::StringRef toml,
                                             llvm::StringRef bufferName);

/// The models compiled into kcc, looked up by name.
class TargetRegistry {
public:
  static const TargetRegistry &builtin();
  const TargetModel *lookup(llvm::StringRef name) const;
  std::vector<std::string> names() const;

private:
  std::vector<TargetModel> models;
};

} // namespace kcc

#endif // KCC_TARGETS_TARGETMODEL_H
