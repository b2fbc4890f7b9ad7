//===- CodeGen.h - LLVM IR to PTX, cubin and fatbin ---------------*- C++ -*-===//
//
// The last stage for NVIDIA targets: optimize the kernel's LLVM IR (linking
// libdevice when it calls __nv_* functions), emit PTX with LLVM's NVPTX
// backend in-process, then run ptxas and fatbinary from the CUDA toolkit.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_NVIDIA_CODEGEN_H
#define KCC_BACKENDS_NVIDIA_CODEGEN_H

#include "targets/TargetModel.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
}

namespace kcc::nvidia {

/// Where the CUDA toolkit is: $CUDA_PATH, else the configured default.
std::string getCudaPath();

/// Path of a CUDA tool (ptxas, fatbinary) or an error that says where kcc
/// looked and how to point it elsewhere.
llvm::Expected<std::string> findCudaTool(llvm::StringRef name);

/// Registers LLVM's NVPTX backend (once per process): code generation, and
/// the target-model checks of what the backend knows (targets/TargetModel.cpp).
void registerBackend();

/// Whether the installed ptxas assembles a kernel for `model` (its PTX ISA
/// version, architecture and suffix): the key at fault ("ptx_isa" or "sm")
/// and ptxas's words if it does not; nothing if it does, or if there is no
/// ptxas to ask (compiling then says so). For TargetRegistry::setToolCheck.
std::optional<std::pair<std::string, std::string>>
ptxasRefuses(const TargetModel &model);

/// An NVPTX target machine for `target` at `optLevel` (0..3).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetModel &target, unsigned optLevel,
                    bool fpContract = true);

/// Sets triple/data layout, links libdevice if needed and runs the LLVM
/// optimization pipeline at `optLevel`.
llvm::Error optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                           unsigned optLevel);

/// Emits PTX text for an optimized module.
llvm::Expected<std::string> emitPTX(llvm::Module &module,
                                    llvm::TargetMachine &tm);

struct Cubin {
  std::string data;     // ELF bytes
  std::string ptxasLog; // ptxas -v output (registers, shared memory, spills)
};

/// Resources of one entry function, as `ptxas -v` reports them.
struct PtxasResources {
  unsigned registers = 0;
  unsigned sharedBytes = 0;
  unsigned stackBytes = 0;
  unsigned spillStoreBytes = 0;
  unsigned spillLoadBytes = 0;
};

/// Reads the `ptxas -v` report of entry `symbol`; false if it is not there.
bool parsePtxasResources(llvm::StringRef log, llvm::StringRef symbol,
                         PtxasResources &out);

/// Assembles PTX to a cubin with ptxas for `target`, optimizing its
/// functions on up to `jobs` threads (ptxas -split-compile; 0: one per
/// CPU). The code and the -v report do not depend on `jobs` (only the
/// command line ptxas records in the cubin's .note.nv.tkinfo does).
llvm::Expected<Cubin> runPtxas(llvm::StringRef ptx, const TargetModel &target,
                               unsigned optLevel, unsigned jobs = 1);

struct FatbinImage {
  const TargetModel *target;
  bool isPTX;            // PTX (JIT-able) rather than a cubin
  std::string data;
};

/// Packs images into one fatbin with the toolkit's fatbinary.
llvm::Expected<std::string> runFatbinary(const std::vector<FatbinImage> &images);

} // namespace kcc::nvidia

#endif // KCC_BACKENDS_NVIDIA_CODEGEN_H
