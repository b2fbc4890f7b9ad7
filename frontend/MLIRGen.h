//===- MLIRGen.h - checked kernels to kcc tile IR -----------------*- C++ -*-===//
#ifndef KCC_FRONTEND_MLIRGEN_H
#define KCC_FRONTEND_MLIRGEN_H

#include "frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"

namespace kcc::frontend {

/// Emits one func.func per specialization of each kernel into `module`,
/// type checking every expression (typing depends on the specialization:
/// constants fix tile sizes and dtypes). Errors go to `diags`; each distinct
/// error is printed once even if several specializations hit it.
void emitKernels(const std::vector<CheckedKernel> &kernels,
                 mlir::ModuleOp module, Diagnostics &diags);

} // namespace kcc::frontend

#endif
