//===- CodeGen.h - LLVM IR to AMDGPU code objects and HIP fat binaries -*- C++
//-*-===//
//
// The last stage for AMD targets: optimize the kernel's LLVM IR, emit an
// AMDGPU object with LLVM's backend in-process (code object v5, what HIP
// runtimes since ROCm 5.x load), link it into a shared-object code object
// (HSACO) with ld.lld, and bundle the code objects of all gfx targets into one
// clang offload bundle (what hipModuleLoadData accepts).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_AMD_CODEGEN_H
#define KCC_BACKENDS_AMD_CODEGEN_H

#include "targets/TargetModel.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kcc::amd {

/// Registers LLVM's AMDGPU backend (once per process): code generation, and
/// the target-model checks of what the backend knows (targets/TargetModel.cpp).
void registerBackend();

/// An amdgcn-amd-amdhsa target machine for `target` (its processor).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetModel &target, unsigned optLevel,
                    bool fpContract = true);

/// Sets triple, data layout and code object version 5, and runs the LLVM
/// optimization pipeline at `optLevel`. Fails with a clear message if the
/// module calls a function no AMDGPU code object can provide (f64
/// transcendentals would need the ROCm device libraries).
llvm::Error optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                           unsigned optLevel);

/// AMDGPU assembly text (with the backend's resource comments).
llvm::Expected<std::string> emitAssembly(llvm::Module &module,
                                         llvm::TargetMachine &tm);

/// A relocatable AMDGPU object, linked into an HSACO with ld.lld.
llvm::Expected<std::string> emitHsaco(llvm::Module &module,
                                      llvm::TargetMachine &tm);

/// Per-kernel resources from an HSACO's AMDGPU metadata note.
struct KernelResources {
  unsigned vgprs = 0;
  unsigned agprs = 0;
  unsigned sgprs = 0;
  unsigned ldsBytes = 0;     // group segment (static LDS)
  unsigned scratchBytes = 0; // private segment per work-item
  unsigned vgprSpills = 0;
  unsigned sgprSpills = 0;
  unsigned wavefrontSize = 0;
  unsigned maxFlatWorkgroupSize = 0;
};

/// Reads `.amdhsa.kernels` from the code object; keys are kernel names.
llvm::Expected<std::map<std::string, KernelResources>>
readKernelResources(llvm::StringRef hsaco);

struct BundleImage {
  const TargetModel *target;
  std::string hsaco;
};

/// The offload-bundler target id of a code object for `target`, e.g.
/// "hipv4-amdgcn-amd-amdhsa--gfx942".
std::string bundleTargetId(const TargetModel &target);

/// Bundles the code objects (and an empty host entry) with
/// clang-offload-bundler into a HIP fat binary.
llvm::Expected<std::string> bundle(const std::vector<BundleImage> &images);

} // namespace kcc::amd

#endif // KCC_BACKENDS_AMD_CODEGEN_H
