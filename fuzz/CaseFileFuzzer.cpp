//===- CaseFileFuzzer.cpp - libFuzzer target: kcc-difftest case files -----===//
//
// parseCaseFile (the TOML case files `kcc-difftest` and `kcc-sim` read:
// kernels, cases, scalars, buffers with size expressions and fills,
// tolerances). A malformed file must be refused with "path:line:col:
// error: ..."; a crash, a sanitizer report or an unlocated error is a bug.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzerUtil.h"
#include "tools/kcc-difftest/CaseFile.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  kcc::difftest::CaseFile file;
  std::string error;
  if (!kcc::difftest::parseCaseFile("fuzz.toml", text, file, error) &&
      !llvm::StringRef(error).starts_with("fuzz.toml:"))
    kcc::fuzz::bug("case file error without a location: " + error);
  return 0;
}
