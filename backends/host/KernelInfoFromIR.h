//===- KernelInfoFromIR.h - host-side kernel info from the tile IR -*- C++
//-*-===//
//
// Reads what the stubs and the manifest need (parameters, facts, constants,
// grid) off the attributes the frontend puts on each kernel of the tile IR
// (see ir/KccDialect.td), and maps stub-emitter complaints back to source.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_HOST_KERNELINFOFROMIR_H
#define KCC_BACKENDS_HOST_KERNELINFOFROMIR_H

#include "backends/host/KernelInfo.h"

#include "mlir/IR/BuiltinOps.h"

namespace kcc::host {

/// Appends every kernel of `tileIR` to `info.kernels`, grouping
/// specializations by base name. Reports an internal error and returns false
/// if a kernel lacks the frontend's attributes.
bool collectKernelInfo(mlir::ModuleOp tileIR, ModuleInfo &info);

/// The specialization compiled as `symbol` (a persistent build included), or
/// null.
Specialization *findSpecialization(ModuleInfo &info, llvm::StringRef symbol);

/// Every compiled entry of `info`: specializations and persistent builds.
std::vector<Specialization *> allSpecializations(ModuleInfo &info);

/// Where a stub-emitter complaint about `name` in kernel `kernel` points: the
/// parameter's declaration, else the kernel, else the module.
mlir::Location stubErrorLoc(mlir::ModuleOp tileIR, llvm::StringRef kernel,
                            llvm::StringRef name);

} // namespace kcc::host

#endif // KCC_BACKENDS_HOST_KERNELINFOFROMIR_H
