//===- StubEmitter.h - host launch stubs for compiled kernels ------*- C++ -*-===//
//
// Emits <stem>.kcc.h / <stem>.kcc.cpp: plain C++17 (plus a C-callable part in
// the header) that embeds the fatbin and launches every specialization through
// kcc_runtime (runtime/include/kcc/runtime.h).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_HOST_STUBEMITTER_H
#define KCC_BACKENDS_HOST_STUBEMITTER_H

#include "backends/host/KernelInfo.h"

#include <string>

namespace kcc::host {

struct StubFiles {
  std::string header; // written as <stem>.kcc.h
  std::string source; // written as <stem>.kcc.cpp; #includes "<stem>.kcc.h"
};

/// Generates the launch stubs of `module` with `fatbin` (the bytes of the
/// fatbinary) embedded. The output depends only on the arguments (and the kcc
/// version), never on the environment. Returns false and sets `error` for
/// modules that cannot be expressed in C++: a kernel, parameter or constant
/// named like a C/C++ keyword or a name the stubs reserve (`stream`, `spec`,
/// `grid`, `args`, `kcc`, names starting with `kcc_`, ...), duplicate symbols,
/// grid expressions that are not C expressions over integer parameters.
bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error);

/// As above; when a kernel's name, a constant or a parameter is refused,
/// `kernel` and `name` say which (the kernel's base name and the refused
/// name), so the caller can point at the source.
bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error, std::string &kernel,
                   std::string &name);

/// The C++ namespace the stubs of a module with file stem `stem` live in:
/// `stem` made a C++ identifier ("my-kernels" -> "my_kernels", "2d" ->
/// "kcc_2d", "new" -> "new_").
std::string stubNamespace(const std::string &stem);

} // namespace kcc::host

#endif // KCC_BACKENDS_HOST_STUBEMITTER_H
