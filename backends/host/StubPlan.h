//===- StubPlan.h - checks and plan of the host launch stubs ----*- C++ -*-===//
//
// Internal to backends/host: what StubEmitter.cpp emits for a module, decided
// and checked by plan() in StubPlan.cpp before any text is written.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_HOST_STUBPLAN_H
#define KCC_BACKENDS_HOST_STUBPLAN_H

#include "backends/host/KernelInfo.h"

#include <string>
#include <vector>

namespace kcc::host::detail {

/// What differs between the CUDA and the HIP flavour of the stubs.
struct Vendor {
  const char *fileSuffix;    // <stem><fileSuffix>.h / .cpp
  const char *guardSuffix;   // KCC_<NS><guardSuffix>
  const char *runtimeHeader; // #include <...>
  const char *library;       // what to link, for the header comment
  const char *stream;        // the stream type (a struct declared by the
                             // runtime header)
  const char *launch;        // the runtime's launch function
  const char *imageKind;     // "fatbin", in comments
  bool amd;                  // uses the AMD (gfx*) builds, else the others
  const char *selectVariant; // the runtime's variant selection
  const char *multiprocessorCount; // the runtime's num_multiprocessors()
  const char *workspace;           // the runtime's split-K workspace
  const char *selectTarget;        // the runtime's target selection
  const char *deviceName;          // the runtime's device name
};

struct SpecPlan {
  const Specialization *spec;
  // A candidate of variant groups only (Specialization::variantOnly): its
  // launch function is internal, kcc_variant_<symbol>, called by theirs.
  bool launchable = true;
  std::vector<std::string> gridParams; // integer params the grid uses, in order
  // A grid or guard uses num_multiprocessors(): the launch function reads
  // the device's count into kMultiprocessorsName first (listed last in the
  // params above where used).
  bool usesProcessors = false;
  // Per coverage guard, the integer params it uses, in order.
  std::vector<std::vector<std::string>> guardParams;
  // The same per require(...) clause.
  std::vector<std::vector<std::string>> requireParams;
  std::vector<const TargetBuild *> builds; // the vendor's, in target order
  // kcc --persistent: the specialization's persistent build (spec null if
  // none) and its builds for the vendor.
  struct {
    const Specialization *spec = nullptr;
    std::vector<const TargetBuild *> builds;
  } persistent;
  // The specialization's fallback build, planned just before it (its own
  // SpecPlan, not launchable): the launch runs it when the given tensors
  // break the tensor contract. Null if none, or if some target of the
  // vendor could not build it.
  const Specialization *fallback = nullptr;
  // The build of the else branch of the specialization's versioned `if`,
  // planned before it (with its own fallback): the launch runs it when the
  // if's condition is false. Null if none.
  const Specialization *version = nullptr;
  // The integer params the version's guard uses, in order.
  std::vector<std::string> versionParams;
  // kcc --split-k: the split build (planned before it, not launchable),
  // which the launch runs instead when kcc::rt::splitKSlices says so; null
  // where a target of the vendor lacks it. The integer params its trips,
  // rows, cols and tiles read, in order.
  const Specialization *splitBuild = nullptr;
  std::vector<std::string> splitParams;
};

struct Dispatcher {
  bool possible = false;
  std::string whyNot;              // comment when !possible and has constants
  std::vector<bool> pointerIsVoid; // per param
};

/// A launch function over the candidates the vendor's targets chose.
struct GroupPlan {
  const VariantGroup *group;
  std::vector<size_t> variants; // indices into KernelPlan::specs, distinct
  // Per target of the vendor, in target order: the candidates its launch
  // weighs by size (indices into KernelPlan::specs, best ranked first).
  // Empty unless some target kept more than one.
  std::vector<std::pair<const DispatchTarget *, std::vector<size_t>>> targets;
};

struct KernelPlan {
  const KernelInfo *kernel;
  std::vector<SpecPlan> specs;
  std::vector<GroupPlan> groups;
  Dispatcher dispatcher;
};

/// Whether a target name is an AMD one (gfx*).
bool isAmdTarget(const std::string &target);

/// Checks `m` for the stubs of `vendor` and plans them; on failure sets
/// `error` and, for a refused name, `culpritKernel` and `culpritName`.
bool plan(const ModuleInfo &m, const Vendor &vendor,
          std::vector<KernelPlan> &plans, std::string &error,
          std::string &culpritKernel, std::string &culpritName);

} // namespace kcc::host::detail

#endif // KCC_BACKENDS_HOST_STUBPLAN_H
