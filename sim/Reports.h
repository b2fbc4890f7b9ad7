//===- Reports.h - the simulator's reports as compiler diagnostics -*- C++ -*-===//
//
// printReports() prints a Result's reports like compiler diagnostics, at the
// .kc source line when the file is readable. (The simulator runs LLVM-dialect
// IR; pipeline::lowerForSimulator makes it as kcc lowers a kernel.)
//
//===----------------------------------------------------------------------===//
#ifndef KCC_SIM_REPORTS_H
#define KCC_SIM_REPORTS_H

#include "sim/Simulator.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace kcc::sim {

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

#endif // KCC_SIM_REPORTS_H
