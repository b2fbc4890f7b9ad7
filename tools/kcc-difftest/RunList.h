//===- RunList.h - the case directory shared by the legs ----------*- C++
//-*-===//
//
// `kcc-difftest --emit-cases DIR` writes, per .kc file, DIR/<stem>/runlist.txt
// and one directory per case holding its inputs as .npy files and the
// interpreter's outputs; the GPU leg (gpu-leg/KccGpuLeg.cpp) reads the run
// list, launches each case and writes its outputs next to them;
// `kcc-difftest --compare DIR` compares. The run list is line-based text
// (one `key values...` per line) so the GPU leg parses it with nothing but
// the C++ standard library:
//
//   kcc-difftest-runlist 1
//   fatbin vector_add.fatbin
//   case vector_add/vector_add_f32_1024/ragged   (also the case directory)
//   symbol vector_add_f32_1024
//   threads 90 128                  (sm and threads per block, per target)
//   amd-threads gfx942 256          (AMD target and threads per block)
//   grid 1 1 1
//   buffer a f32 input.a.npy        (inputs; bf16 files end in .bf16.npy)
//   arg ptr a | arg i32 1000 | arg f32 0x3f800000   (floats as bit patterns)
//   output c 1e-05 1e-06            (an output buffer, rtol, atol)
//   interp PASS | interp FAIL <message>
//   end
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_DIFFTEST_RUNLIST_H
#define KCC_TOOLS_DIFFTEST_RUNLIST_H

#include "interp/DType.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kcc::difftest {

struct RunBuffer {
  std::string name;
  interp::DType dtype = interp::DType::f32;
  std::string file; // relative to the case directory
};

struct RunArg {
  bool isPointer = false;
  std::string buffer;                       // pointers
  interp::DType dtype = interp::DType::i32; // scalars
  uint64_t bits = 0; // scalars: the value's bits in its type (ints: two's
                     // complement truncated to the width)
};

struct RunOutput {
  std::string buffer;
  double rtol = 0, atol = 0;
};

struct RunCase {
  std::string id; // kernel/specialization/case
  std::string symbol;
  std::vector<std::pair<unsigned, unsigned>> threads; // (sm, threads)
  std::vector<std::pair<std::string, unsigned>> amdThreads; // (gfx, threads)
  int64_t grid[3] = {1, 1, 1};
  std::vector<RunBuffer> buffers;
  std::vector<RunArg> args;
  std::vector<RunOutput> outputs;
  bool interpPassed = false;
  std::string interpMessage; // why the interpreter failed
};

struct RunList {
  std::string fatbin; // relative to the run list's directory; may be empty
  std::vector<RunCase> cases;
};

std::string writeRunList(const RunList &list);
/// Parses a run list; errors say "line N: ...".
bool parseRunList(std::string_view text, RunList &list, std::string &error);

/// The file names legs use inside a case directory.
std::string inputFileName(const std::string &buffer, interp::DType type);
std::string outputFileName(const std::string &leg, const std::string &buffer,
                           interp::DType type);

} // namespace kcc::difftest

#endif
