//===- KernelInfo.cpp - element type names and sizes ----------------------===//

#include "backends/host/KernelInfo.h"

namespace kcc::host {

const char *scalarKindName(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
    return "i1";
  case ScalarKind::I8:
    return "i8";
  case ScalarKind::I16:
    return "i16";
  case ScalarKind::I32:
    return "i32";
  case ScalarKind::I64:
    return "i64";
  case ScalarKind::F16:
    return "f16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::F32:
    return "f32";
  case ScalarKind::F64:
    return "f64";
  case ScalarKind::F8E4M3:
    return "f8e4m3";
  case ScalarKind::F8E5M2:
    return "f8e5m2";
  case ScalarKind::F8E4M3FNUZ:
    return "f8e4m3fnuz";
  case ScalarKind::F8E5M2FNUZ:
    return "f8e5m2fnuz";
  }
  return "?";
}

bool isWrappedFloat(ScalarKind kind) {
  return kind == ScalarKind::F16 || kind == ScalarKind::BF16 ||
         kind == ScalarKind::F8E4M3 || kind == ScalarKind::F8E5M2 ||
         kind == ScalarKind::F8E4M3FNUZ || kind == ScalarKind::F8E5M2FNUZ;
}

bool isIntegerKind(ScalarKind kind) {
  return kind == ScalarKind::I8 || kind == ScalarKind::I16 ||
         kind == ScalarKind::I32 || kind == ScalarKind::I64;
}

unsigned scalarKindBytes(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
  case ScalarKind::I8:
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
  case ScalarKind::F8E4M3FNUZ:
  case ScalarKind::F8E5M2FNUZ:
    return 1;
  case ScalarKind::I16:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return 2;
  case ScalarKind::I32:
  case ScalarKind::F32:
    return 4;
  case ScalarKind::I64:
  case ScalarKind::F64:
    return 8;
  }
  return 0;
}

/// The build in `builds` whose `of` member names `spec`, or null.
static const Specialization *buildOf(const std::vector<Specialization> &builds,
                                     std::string Specialization::*of,
                                     const Specialization &spec) {
  for (const Specialization &b : builds)
    if (b.*of == spec.symbol)
      return &b;
  return nullptr;
}

const Specialization *
KernelInfo::persistentBuildOf(const Specialization &spec) const {
  return buildOf(persistentBuilds, &Specialization::persistentOf, spec);
}

const Specialization *
KernelInfo::fallbackBuildOf(const Specialization &spec) const {
  return buildOf(fallbackBuilds, &Specialization::fallbackOf, spec);
}

const Specialization *
KernelInfo::versionBuildOf(const Specialization &spec) const {
  return buildOf(versionBuilds, &Specialization::versionOf, spec);
}

const Specialization *
KernelInfo::splitKBuildOf(const Specialization &spec) const {
  for (const Specialization &b : splitKBuilds)
    if (b.splitKOf == spec.symbol)
      return &b;
  return nullptr;
}

const Specialization *
KernelInfo::launchedBuild(const std::string &symbol) const {
  for (const auto *list : {&specializations, &versionBuilds})
    for (const Specialization &s : *list)
      if (s.symbol == symbol)
        return &s;
  return nullptr;
}

VariantGroup *findVariantGroup(ModuleInfo &info, const std::string &name) {
  for (KernelInfo &k : info.kernels)
    for (VariantGroup &g : k.groups)
      if (g.name == name)
        return &g;
  return nullptr;
}

} // namespace kcc::host
