//===- StubEmitter.h - host launch stubs for compiled kernels ---*- C++ -*-===//
//
// Emits <stem>.kcc.h / <stem>.kcc.cpp: plain C++17 (plus a C-callable part in
// the header) that embeds the fatbin and launches every specialization through
// kcc_runtime (runtime/include/kcc/runtime.h). The HIP flavour,
// <stem>.hip.kcc.h / <stem>.hip.kcc.cpp, embeds a clang offload bundle of AMD
// code objects and launches through kcc_runtime_hip (kcc/runtime_hip.h), with
// the same namespace, functions, checks and C entry points.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_HOST_STUBEMITTER_H
#define KCC_BACKENDS_HOST_STUBEMITTER_H

#include "backends/host/KernelInfo.h"

#include <string>

namespace kcc::host {

struct StubFiles {
  std::string header;     // the header's text
  std::string source;     // the source's text; #includes "<headerName>"
  std::string headerName; // "<stem>.kcc.h" (CUDA), "<stem>.hip.kcc.h" (HIP)
  std::string sourceName; // "<stem>.kcc.cpp", "<stem>.hip.kcc.cpp"
  // CUDA, where some launch function weighs tile candidates by size: the
  // tuner program (runtime/include/kcc/tune.h) that times them on a GPU and
  // writes a tuning database; empty otherwise.
  std::string tuner;
  std::string tunerName; // "<stem>.kcc.tune.cpp"
};

/// Generates the launch stubs of `module` with `fatbin` (the bytes of the
/// fatbinary) embedded. The output depends only on the arguments (and the kcc
/// version), never on the environment. Returns false and sets `error` for
/// modules that cannot be expressed in C++: a kernel, parameter or constant
/// named like a C/C++ keyword or a name the stubs reserve (`stream`, `spec`,
/// `grid`, `args`, `kcc`, names starting with `kcc_`, ...), duplicate symbols,
/// grid expressions that are not C expressions over integer parameters.
/// Only the builds of NVIDIA targets (not "gfx...") are used: each
/// specialization needs one.
bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error);

/// As above; when a kernel's name, a constant or a parameter is refused,
/// `kernel` and `name` say which (the kernel's base name and the refused
/// name), so the caller can point at the source.
bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error, std::string &kernel,
                   std::string &name);

/// The HIP launch stubs of `module` with `bundle` (the bytes of a clang
/// offload bundle, clang-offload-bundler --type=o, holding one code object per
/// AMD target: entries "hipv4-amdgcn-amd-amdhsa--gfx90a", ...) embedded.
/// Same names, parameters, dispatchers, checks and C entry points as
/// emitCudaStubs, with `ihipStream_t *` (hipStream_t) streams; launches go
/// through kcc::rt::hip::launch (kcc_runtime_hip). Only the builds of AMD
/// targets (TargetBuild::target "gfx...") are used: each specialization
/// needs one. The stubs record per build its target and threads per block;
/// what the bundle holds is described as the AMD targets built, in the order
/// of ModuleInfo::targets (ModuleInfo::fatbinContents is the CUDA fatbin's).
/// Refuses the same names as emitCudaStubs.
bool emitHipStubs(const ModuleInfo &module, const std::string &bundle,
                  StubFiles &out, std::string &error);
bool emitHipStubs(const ModuleInfo &module, const std::string &bundle,
                  StubFiles &out, std::string &error, std::string &kernel,
                  std::string &name);

/// The C++ namespace the stubs of a module with file stem `stem` live in:
/// `stem` made a C++ identifier ("my-kernels" -> "my_kernels", "2d" ->
/// "kcc_2d", "new" -> "new_").
std::string stubNamespace(const std::string &stem);

} // namespace kcc::host

#endif // KCC_BACKENDS_HOST_STUBEMITTER_H
