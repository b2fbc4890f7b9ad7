//===- BackendCache.h - what the LLVM half of a compile made, by content -*- C++
//-*-===//
//
// kcc --cache-dir (or KCC_CACHE_DIR): the LLVM half of a target's compile
// (optimization, code generation, ptxas or ld.lld: most of kcc's time) is
// kept under a hash of everything it depends on, so a rebuild of unchanged
// kernels, another build directory or a CI run with a warm cache skips it.
// The key covers the target's LLVM module (bitcode), the target's name, CPU
// and features, -O, --fp-contract, kcc's version and executable, and for
// NVIDIA the ptxas that assembles the PTX (its path, size and time): a
// different kcc or ptxas misses. An entry that cannot be read or parsed is
// a miss; one that cannot be written is a warning, never an error.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_KCC_BACKENDCACHE_H
#define KCC_TOOLS_KCC_BACKENDCACHE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace kcc {
struct TargetModel;

struct BackendCacheEntry {
  std::string output;   // cubin or HSACO
  std::string ptx;      // NVIDIA: the PTX (the fatbin ships the newest's)
  std::string ptxasLog; // NVIDIA: ptxas -v (the manifest's resources)
};

class BackendCache {
public:
  explicit BackendCache(std::string dir) : dir(std::move(dir)) {}
  /// The key of `module` compiled for `target` with these options.
  static std::string key(const llvm::Module &module, const TargetModel &target,
                         unsigned optLevel, bool fpContract);
  /// The entry of `key`, if there is a readable one.
  bool load(llvm::StringRef key, BackendCacheEntry &entry) const;
  /// Stores `entry` under `key` (write then rename: readers see a whole
  /// entry or none); the reason on failure, else "".
  std::string store(llvm::StringRef key, const BackendCacheEntry &entry) const;

private:
  std::string path(llvm::StringRef key) const;
  std::string dir;
};

} // namespace kcc

#endif
