//===- FrontendFuzzer.cpp - libFuzzer target: .kc -> tile IR -------------===//
//
// Lexer, parser, semantic checks, specialization and tile IR generation
// (frontend::buildTileIR, what `kcc --emit=tile-ir` runs), and the verifier
// on the result. See FuzzerUtil.h for what counts as a bug and README.md for
// how to run it.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzerUtil.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>

using namespace kcc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz::ContextPool contexts;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  fuzz::InputOptions inputOptions = fuzz::parseInputOptions(text);
  if (!inputOptions.valid)
    return -1; // kcc's command line refuses these options; not interesting

  mlir::MLIRContext &ctx = contexts.get();
  // The frontend reports through the SourceMgr; MLIR diagnostics (verifier
  // failures, which the frontend turns into internal errors) are swallowed.
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.kc"), llvm::SMLoc());
  fuzz::silenceSourceMgr(sourceMgr);

  frontend::Options options;
  options.defines = inputOptions.defines;
  unsigned numErrors = 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      frontend::buildTileIR(sourceMgr, ctx, options, numErrors);
  if (module && numErrors)
    fuzz::bug("buildTileIR returned a module after reporting errors");
  if (!module && !numErrors)
    fuzz::bug("buildTileIR failed without reporting an error");
  return 0;
}
