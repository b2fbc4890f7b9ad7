//===- CommandLine.h - kcc's command line -----------------------*- C++ -*-===//
#ifndef KCC_TOOLS_KCC_COMMANDLINE_H
#define KCC_TOOLS_KCC_COMMANDLINE_H

#include "llvm/Support/CommandLine.h"

namespace kcc {

/// Parses kcc's command line (its options are registered with LLVM's by
/// linking CommandLine.cpp) and does what it asks: compiles the inputs or
/// answers `kcc legality`. Returns the process exit status. A second call in
/// one process needs llvm::cl::ResetAllOptionOccurrences() first.
int runCommandLine(int argc, const char *const *argv);

/// The category of kcc's own options (the others are libLLVM's, hidden).
const llvm::cl::OptionCategory &commandLineCategory();

} // namespace kcc

#endif // KCC_TOOLS_KCC_COMMANDLINE_H
