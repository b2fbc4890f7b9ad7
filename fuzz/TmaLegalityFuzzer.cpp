//===- TmaLegalityFuzzer.cpp - libFuzzer target: `kcc legality tma` -------===//
//
// runTmaLegality (what `kcc legality tma` reads from standard input: JSON
// Lines of cuTensorMapEncodeTiled parameters) on sm_90a's model. A line it
// cannot read must get a located error ("<stdin>:LINE: error: ...") and an
// {"line": N, "error": ...} output line, every other line a verdict; a
// crash, a sanitizer report or an unlocated error is a bug.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzerUtil.h"
#include "targets/TargetModel.h"
#include "tools/kcc/Legality.h"

#include "llvm/ADT/StringExtras.h"

#include <cstddef>
#include <cstdint>

using namespace kcc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const TargetModel &model = *TargetRegistry::builtin().lookup("sm_90a");
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  std::string out, errs;
  llvm::raw_string_ostream os(out), es(errs);
  (void)driver::runTmaLegality(model, input, "<stdin>", os, es);
  // One output line per non-blank input line; each error is located.
  size_t cases = 0;
  for (llvm::StringRef line : llvm::split(input, '\n'))
    cases += !line.trim().empty();
  if (size_t(llvm::count(out, '\n')) != cases)
    fuzz::bug("kcc legality tma wrote " + llvm::Twine(llvm::count(out, '\n')) +
              " verdict lines for " + llvm::Twine(cases) + " cases");
  for (llvm::StringRef line : llvm::split(errs, '\n'))
    if (!line.empty() && !line.starts_with("<stdin>:"))
      fuzz::bug("kcc legality tma error without a line: " + line);
  return 0;
}
