//===- CaseFile.h - kcc-difftest case files -----------------------*- C++
//-*-===//
//
// A case file (TOML) lists, per kernel, the specializations to test and the
// cases to run them on: scalar arguments, and one buffer per pointer
// parameter with its size, element type, initial contents and whether it is
// an output. docs/difftest.md describes the format; every key is checked
// (an unknown key is an error, not a silent default).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_DIFFTEST_CASEFILE_H
#define KCC_TOOLS_DIFFTEST_CASEFILE_H

#include "interp/DType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kcc::difftest {

/// A position in the case file (1-based).
struct Loc {
  unsigned line = 1, column = 1;
};

/// How a buffer is filled before the run (`values = [...]` is a List).
struct InitSpec {
  enum Kind { Constant, Uniform, Iota, List } kind = Constant;
  double value = 0;           // Constant
  double min = 0, max = 1;    // Uniform: [min, max) floats, [min, max] ints
  double start = 0, step = 1; // Iota: start + i * step
  uint64_t seed = 0;          // Uniform
  std::vector<double> values; // List: the elements, in order
};

/// A size: an integer or a C expression over the case's scalars.
struct SizeSpec {
  std::string expr;
  Loc loc;
};

struct BufferSpec {
  std::string name;
  std::optional<interp::DType> dtype; // default: the parameter's pointee
  std::vector<SizeSpec> shape;        // `size = N` is a one-element shape
  InitSpec init;
  bool output = false;
  Loc loc, dtypeLoc;
};

struct ScalarSpec {
  std::string name;
  enum Kind { Int, Float, Bool } kind = Int;
  int64_t intValue = 0;
  double floatValue = 0;
  Loc loc;
};

struct CaseSpec {
  std::string name;
  std::vector<ScalarSpec> scalars;
  std::vector<BufferSpec> buffers;
  int64_t reduction = 1; // longest reduction feeding an output (tolerance)
  std::optional<double> rtol, atol;
  Loc loc;
};

struct KernelSpec {
  std::string name;                         // kcc.base_name
  std::vector<std::string> specializations; // function names; empty: all
  std::vector<Loc> specializationLocs;
  std::vector<CaseSpec> cases;
  Loc loc;
};

struct CaseFile {
  std::string path;
  std::vector<KernelSpec> kernels;

  /// "path:line:col: error: msg", the format of every case file error.
  std::string error(Loc loc, const llvm::Twine &msg) const;
};

/// Parses `text` (the contents of `path`). On failure returns false with a
/// located message in `error`.
bool parseCaseFile(llvm::StringRef path, llvm::StringRef text, CaseFile &file,
                   std::string &error);

} // namespace kcc::difftest

#endif
