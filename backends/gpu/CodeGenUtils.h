//===- CodeGenUtils.h - what every LLVM backend stage shares -------*- C++
//-*-===//
//
// The pieces of code generation that do not depend on the vendor: creating a
// TargetMachine, running LLVM's optimization pipeline, emitting assembly or an
// object, and running an external tool (ptxas, fatbinary, ld.lld,
// clang-offload-bundler) on temporary files.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_COMMON_CODEGENUTILS_H
#define KCC_BACKENDS_COMMON_CODEGENUTILS_H

#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace kcc::codegen {

llvm::Error makeError(const llvm::Twine &msg);

/// A TargetMachine for `triple` (its LLVM backend already initialized).
/// `fpContract`: a floating multiply and the add of its result may become
/// one fused multiply-add (one rounding), as nvcc's --fmad=true and
/// clang's -ffp-contract=fast (both defaults for GPU code) allow.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef triple, llvm::StringRef cpu,
                    llvm::StringRef features, unsigned optLevel,
                    bool fpContract);

/// Sets the module's triple and data layout and runs LLVM's default
/// pipeline at `optLevel` (0..3).
void optimize(llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel);

/// Runs the backend: assembly text or an object file.
llvm::Expected<std::string> emit(llvm::Module &module, llvm::TargetMachine &tm,
                                 llvm::CodeGenFileType kind);

/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  llvm::FileRemover remover;
  static llvm::Expected<std::unique_ptr<TempFile>>
  create(llvm::StringRef prefix, llvm::StringRef suffix);
};

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef data);
llvm::Expected<std::string> readFile(llvm::StringRef path);

/// Runs a tool; on failure the error carries its output. `log` gets its
/// stdout and stderr.
llvm::Error runTool(llvm::StringRef tool, llvm::ArrayRef<llvm::StringRef> args,
                    std::string &log);

} // namespace kcc::codegen

#endif // KCC_BACKENDS_COMMON_CODEGENUTILS_H
