//===- Diagnostics.h - error reporting for the frontend -----------*- C++ -*-===//
#ifndef KCC_FRONTEND_DIAGNOSTICS_H
#define KCC_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kcc::frontend {

/// Prints clang-style diagnostics through the SourceMgr, once per distinct
/// (location, message) pair (a kernel body is checked once per
/// specialization), and counts the errors.
class Diagnostics {
public:
  explicit Diagnostics(llvm::SourceMgr &sm) : sm(sm) {}

  /// Reports an error; returns true if it was new (printed).
  bool error(llvm::SMLoc loc, const llvm::Twine &msg) {
    return print(loc, llvm::SourceMgr::DK_Error, msg);
  }
  void note(llvm::SMLoc loc, const llvm::Twine &msg) {
    print(loc, llvm::SourceMgr::DK_Note, msg, /*dedup=*/false);
  }
  unsigned numErrors() const { return errors; }
  /// At most `n` errors are printed (0: all); the next one prints that the
  /// compile stops and silences the rest, as clang's -ferror-limit.
  void setErrorLimit(unsigned n) { limit = n; }
  llvm::SourceMgr &sourceMgr() { return sm; }
  /// After an error that abandons the input, later ones would be noise.
  void silence() { silenced = true; }

private:
  bool print(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
             const llvm::Twine &msg, bool dedup = true) {
    if (silenced)
      return false;
    std::string text = msg.str();
    if (dedup) {
      std::string key = std::to_string(reinterpret_cast<uintptr_t>(loc.getPointer())) +
                        ":" + text;
      if (!seen.insert(key).second)
        return false;
    }
    if (kind == llvm::SourceMgr::DK_Error) {
      if (limit && errors == limit) {
        // At the error it stops at: where the flood is.
        std::string text = "too many errors (" + std::to_string(limit) +
                           "), stopping; kcc --error-limit=0 prints them all";
        // (An error without a place, a -D's, stops at the file's start.)
        llvm::SMLoc at = loc;
        if (!at.isValid() && sm.getNumBuffers() > 0)
          at = llvm::SMLoc::getFromPointer(
              sm.getMemoryBuffer(sm.getMainFileID())->getBufferStart());
        sm.PrintMessage(at, llvm::SourceMgr::DK_Error, text);
        silenced = true;
        return false;
      }
      ++errors;
    }
    if (loc.isValid()) {
      sm.PrintMessage(loc, kind, text);
    } else {
      // No source position (e.g. a bad -D): name the main file only.
      std::string file;
      if (sm.getNumBuffers() > 0)
        file = sm.getMemoryBuffer(sm.getMainFileID())->getBufferIdentifier().str();
      sm.PrintMessage(llvm::errs(), llvm::SMDiagnostic(file, kind, text));
    }
    return true;
  }
  llvm::SourceMgr &sm;
  llvm::StringSet<> seen;
  unsigned errors = 0, limit = 0;
  bool silenced = false;
};

} // namespace kcc::frontend

#endif
