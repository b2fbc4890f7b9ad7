//===- SourceLocation.h - a .kc location as text ------------------*- C++
//-*-===//
//
// The "file:line:col" text that diagnostics, launch guards (an `if`'s or a
// require's `at`) and --report print for an op's location.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_IR_SOURCELOCATION_H
#define KCC_IR_SOURCELOCATION_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

#include <string>

namespace kcc {

/// "file:line:col" of the first file location inside `loc` (through fused,
/// name and call-site locations), or "" if it has none. `baseName` drops
/// the file's directories, as the launch stubs' messages print it.
inline std::string sourceLocationText(mlir::Location loc,
                                      bool baseName = false) {
  auto flc = loc->findInstanceOf<mlir::FileLineColLoc>();
  if (!flc)
    return "";
  llvm::StringRef file = flc.getFilename().getValue();
  if (baseName)
    file = llvm::sys::path::filename(file);
  return (file + ":" + llvm::Twine(flc.getLine()) + ":" +
          llvm::Twine(flc.getColumn()))
      .str();
}

} // namespace kcc

#endif // KCC_IR_SOURCELOCATION_H
