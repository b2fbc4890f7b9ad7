//===- Manifest.h - the JSON manifest of a compilation ------------*- C++ -*-===//
#ifndef KCC_BACKENDS_HOST_MANIFEST_H
#define KCC_BACKENDS_HOST_MANIFEST_H

#include "backends/host/KernelInfo.h"

#include <string>

namespace kcc::host {

/// `<stem>.manifest.json`: kernels, parameters and facts, specializations,
/// targets, and per target the launch shape and what ptxas reported
/// (registers, shared memory, stack, spills). `files` names the outputs.
std::string emitManifest(const ModuleInfo &module, const std::string &version,
                         const std::vector<std::string> &files);

} // namespace kcc::host

#endif // KCC_BACKENDS_HOST_MANIFEST_H
