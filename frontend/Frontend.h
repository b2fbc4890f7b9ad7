//===- Frontend.h - kcc kernel language to tile IR ----------------*- C++ -*-===//
//
// The frontend of kcc: parses a `.kc` file (see docs/language.md), checks
// and specializes its kernels and emits one `func.func` of the `kcc` tile IR
// per specialization.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_FRONTEND_FRONTEND_H
#define KCC_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <vector>

namespace kcc::frontend {

/// A compile-time constant from the command line: -D NAME=VALUE.
struct Define {
  std::string name;
  std::string value;
};

struct Options {
  std::vector<Define> defines;
  /// Errors printed at most (0: all), then "too many errors" (kcc
  /// --error-limit).
  unsigned errorLimit = 20;
};

/// Compiles the main buffer of `sourceMgr` to tile IR. Every error is printed
/// through sourceMgr.PrintMessage (clang style, with the source line and a
/// caret); returns null if there was any error. `numErrors` is the number of
/// errors printed. Loads the dialects it needs into `ctx`.
mlir::OwningOpRef<mlir::ModuleOp> buildTileIR(llvm::SourceMgr &sourceMgr,
                                              mlir::MLIRContext &ctx,
                                              const Options &options,
                                              unsigned &numErrors);

} // namespace kcc::frontend

#endif
