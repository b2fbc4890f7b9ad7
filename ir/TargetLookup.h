//===- TargetLookup.h - the target model a pass compiles for ----*- C++ -*-===//
//
// Passes find their target model by name in the TargetRegistry that the kcc
// dialect holds, not through their constructor, so that each is declared
// once in TableGen and built from its options alone. The registry is the
// built-in models unless a tool that loads --target-model files sets its
// own (KccDialect::setTargetRegistry, before running passes).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_IR_TARGETLOOKUP_H
#define KCC_IR_TARGETLOOKUP_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

namespace kcc {
struct TargetModel;
class TargetRegistry;

/// The registry of the kcc dialect of `ctx`; the built-in models when the
/// dialect is not loaded or no tool set one.
const TargetRegistry &getTargetRegistry(mlir::MLIRContext *ctx);

/// The target model a pass over `module` compiles for: the one `name` (the
/// pass's `target` option) names when not empty, else the one the module's
/// kcc.target names (the driver sets it before the layout pipeline), else
/// `fallback` when not empty (kcc-opt's default on tile IR, which has no
/// kcc.target). Otherwise, and for a name the registry does not know, emits
/// an error on `module` starting with `pass` and returns null.
const TargetModel *lookupTarget(mlir::ModuleOp module, llvm::StringRef name,
                                llvm::StringRef pass,
                                llvm::StringRef fallback = "");

} // namespace kcc

#endif // KCC_IR_TARGETLOOKUP_H
