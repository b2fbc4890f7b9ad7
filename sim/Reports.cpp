//===- Reports.cpp - the simulator's reports as compiler diagnostics ------===//
#include "sim/Reports.h"


#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace {
/// The buffer of `file` in `sm`, loading it if it is readable.
unsigned bufferFor(llvm::SourceMgr &sm, StringRef file) {
  for (unsigned i = 1; i <= sm.getNumBuffers(); ++i)
    if (sm.getMemoryBuffer(i)->getBufferIdentifier() == file)
      return i;
  auto buf = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buf)
    return 0;
  return sm.AddNewSourceBuffer(std::move(*buf), llvm::SMLoc());
}
} // namespace

void kcc::sim::printReports(const std::vector<Report> &reports,
                            llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os) {
  for (const Report &r : reports) {
    auto kind = r.severity == Report::Error ? llvm::SourceMgr::DK_Error
                                            : llvm::SourceMgr::DK_Note;
    FileLineColLoc flc = r.loc->findInstanceOf<FileLineColLoc>();
    llvm::SMLoc at;
    if (flc)
      if (unsigned id = bufferFor(sourceMgr, flc.getFilename()))
        at = sourceMgr.FindLocForLineAndColumn(id, flc.getLine(),
                                               flc.getColumn());
    if (at.isValid()) {
      sourceMgr.PrintMessage(os, at, kind, r.message);
      continue;
    }
    if (flc)
      os << flc.getFilename() << ":" << flc.getLine() << ":"
         << flc.getColumn() << ": ";
    os << (kind == llvm::SourceMgr::DK_Error ? "error: " : "note: ")
       << r.message << "\n";
  }
}

void kcc::sim::printBankSummary(const std::vector<BankSummary> &banks,
                                llvm::raw_ostream &os, bool all) {
  for (const BankSummary &b : banks) {
    if (!all && b.wavefronts == b.idealWavefronts)
      continue;
    std::string where = "<unknown>";
    if (auto flc = b.op->getLoc()->findInstanceOf<FileLineColLoc>())
      where = llvm::formatv("{0}:{1}:{2}", flc.getFilename(), flc.getLine(),
                            flc.getColumn())
                  .str();
    os << llvm::formatv("{0}: shared {1} of {2} bytes: {3} warp executions, "
                        "{4} wavefronts (ideal {5}), worst {6}-way conflict\n",
                        where, b.store ? "store" : "load", b.accessBytes,
                        b.executions, b.wavefronts, b.idealWavefronts,
                        b.maxDegree);
  }
}
