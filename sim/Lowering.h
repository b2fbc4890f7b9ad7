//===- Lowering.h - kcc's lowering for the simulator, and reports -*- C++
//-*-===//
//
// The simulator runs what kcc emits: lowerForTarget() applies the same two
// pipelines as the driver's compileForTarget (tools/kcc/Driver.cpp): the
// target's layout pipeline, then the lowering to the LLVM dialect with NVVM
// or ROCDL ops. printReports() prints a Result's reports like compiler
// diagnostics, at the .kc source line when the file is readable.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_SIM_LOWERING_H
#define KCC_SIM_LOWERING_H

#include "sim/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace kcc::sim {

/// A copy of `tileIR` with the tensor-map arguments kcc gives its kernels for
/// `target` (kcc-add-tensor-maps; none on targets without TMA); null on
/// failure.
mlir::OwningOpRef<mlir::ModuleOp> withTensorMaps(mlir::ModuleOp tileIR,
                                                 const TargetModel &target);

/// A copy of `tileIR` (with its tensor maps: withTensorMaps) lowered for
/// `target` (diagnostics go to the context's handler); null on failure.
/// `numWarps` 0: the compiler's choice.
mlir::OwningOpRef<mlir::ModuleOp> lowerForTarget(mlir::ModuleOp tileIR,
                                                 const TargetModel &target,
                                                 unsigned numWarps = 0);

/// Prints `reports` as "file:line:col: error: ..." with the source line and
/// a caret where `sourceMgr` has (or can open) the file.
void printReports(const std::vector<Report> &reports,
                  llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os);

/// One line per shared access op with conflicts (or every op with `all`):
/// location, load/store, width, executions, wavefronts vs ideal, worst
/// n-way degree.
void printBankSummary(const std::vector<BankSummary> &banks,
                      llvm::raw_ostream &os, bool all = false);

} // namespace kcc::sim

#endif // KCC_SIM_LOWERING_H
