//===- OffloadBundle.h - reading clang offload bundles ----------*- C++ -*-===//
//
// A HIP fat binary is a clang offload bundle (clang-offload-bundler --type=o),
// uncompressed format, all integers little-endian 64-bit:
//
//   "__CLANG_OFFLOAD_BUNDLE__"  24-byte magic
//   count                       number of entries
//   count times:  offset, size, id length, id bytes (no NUL)
//   the entries' bytes at their offsets (from the start of the bundle)
//
// An id is "<kind>-<triple>-<target id>", e.g. "host-x86_64-unknown-linux-gnu-"
// or "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-". The runtime picks the code
// object for the device itself (no LLVM, no comgr): the processor must be
// the device's and every feature the code object fixes (xnack+, sramecc-)
// must be set the same way on the device. Compressed bundles ("CCOB") and
// generic targets (gfx9-generic, ...) are not read.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_OFFLOADBUNDLE_H
#define KCC_RUNTIME_OFFLOADBUNDLE_H

#include <cstddef>
#include <string>
#include <vector>

namespace kcc {
namespace rt {
namespace offload {

struct Entry {
  std::string id;            // "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
  const unsigned char *data; // inside the bundle
  size_t size;
};

/// Reads the entry table of the bundle at `image` (`size` bytes). Returns
/// false and sets `error` (what is wrong, for "is damaged (...)") if it is
/// not an uncompressed offload bundle or an entry lies outside it.
bool parseBundle(const void *image, size_t size, std::vector<Entry> &entries,
                 std::string &error);

/// The target id of a HIP code object entry ("gfx90a:xnack-" for
/// "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"), or "" for other entries (host,
/// OpenMP, other triples).
std::string hipTargetId(const std::string &entryId);

/// "gfx90a" for "gfx90a:sramecc+:xnack-".
std::string processorOf(const std::string &targetId);

/// How well a code object for `codeObject` (a target id) fits a device whose
/// gcnArchName is `device`: -1 if it cannot run there, else the number of
/// features it fixes (a more specific code object is preferred).
int compatibility(const std::string &codeObject, const std::string &device);

/// The index of the HIP entry that fits `device` best (the first one among
/// equally good ones), or -1.
int selectCodeObject(const std::vector<Entry> &entries,
                     const std::string &device);

/// The target ids of the HIP entries, in bundle order, joined by ", ".
std::string describeHipEntries(const std::vector<Entry> &entries);

} // namespace offload
} // namespace rt
} // namespace kcc

#endif // KCC_RUNTIME_OFFLOADBUNDLE_H
