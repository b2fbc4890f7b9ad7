//===- Legality.h - `kcc legality`: query the target models -------*- C++
//-*-===//
#ifndef KCC_TOOLS_KCC_LEGALITY_H
#define KCC_TOOLS_KCC_LEGALITY_H

#include "targets/TargetModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace kcc::driver {

/// `kcc legality tma`: reads JSON Lines cases (cuTensorMapEncodeTiled
/// parameters) from `input` and writes one JSON line per case: {"id": ...,
/// "legal": bool, "failed_rules": [...], "reasons": [...]}. A line that cannot
/// be read gets {"line": N, "error": "..."} (and a diagnostic on `errs`), so
/// output lines stay aligned with input lines. Returns the exit code: 0, or 1
/// if any line could not be read.
int runTmaLegality(const TargetModel &target, llvm::StringRef input,
                   llvm::StringRef inputName, llvm::raw_ostream &out,
                   llvm::raw_ostream &errs);

} // namespace kcc::driver

#endif // KCC_TOOLS_KCC_LEGALITY_H
