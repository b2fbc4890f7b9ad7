//===- kcc.cpp - the kcc executable ---------------------------------------===//
#include "tools/kcc/CommandLine.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return kcc::runCommandLine(argc, argv);
}
