//===- StubEmitter.cpp - host launch stubs for compiled kernels -----------===//
//
// Layout of the generated files (module stem `vector_add`):
//
//   vector_add.kcc.h    include guard, <kcc/runtime.h>; C++ part (namespace
//                       vector_add: one typed function per specialization, per
//                       kernel a spec struct and a dispatcher); C part
//                       (extern "C" kcc_<symbol> functions, valid C).
//   vector_add.kcc.cpp  namespace vector_add::kcc_impl: the fatbin bytes, its
//                       FatbinDesc, per specialization the table of threads
//                       and dynamic shared memory per target, the KernelDesc
//                       and a grid function; then the definitions.
//
// The HIP flavour (vector_add.hip.kcc.h/.cpp) is the same text with another
// runtime header and launch function, `ihipStream_t *` streams, the offload
// bundle embedded instead of the fatbin and threads tables of the AMD builds
// (Vendor, StubPlan.h): the same names, signatures, checks and C entry
// points.
//
// Every name the generated code introduces inside function bodies is either
// reserved for users (`stream`, `spec`, `grid`, `args`, `kcc_*`) or qualified
// (`::vector_add::f`, `kcc_impl::x`, `kcc::rt::f`), so user parameter names
// can be used unchanged as C++ names.
//
// The checks and the plan of what to emit are in StubPlan.cpp, the helpers
// for names, literals, comments, wrapping and types in StubText.cpp.
//
//===----------------------------------------------------------------------===//

#include "backends/host/StubEmitter.h"
#include "backends/host/StubPlan.h"
#include "backends/host/StubText.h"

#include "ir/CExpr.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace kcc::host {
using namespace detail;
namespace {

#ifdef KCC_VERSION
constexpr const char *kGenerator = "kcc " KCC_VERSION;
#else
constexpr const char *kGenerator = "kcc";
#endif

constexpr Vendor kCuda = {".kcc",
                          "_KCC_H",
                          "kcc/runtime.h",
                          "kcc_runtime",
                          "CUstream_st",
                          "kcc::rt::launch",
                          "fatbin",
                          false,
                          "kcc::rt::selectVariant",
                          "kcc::rt::multiprocessorCount",
                          "kcc::rt::workspace",
                          "kcc::rt::selectTarget",
                          "kcc::rt::deviceName"};
constexpr Vendor kHip = {".hip.kcc",
                         "_HIP_KCC_H",
                         "kcc/runtime_hip.h",
                         "kcc_runtime_hip",
                         "ihipStream_t",
                         "kcc::rt::hip::launch",
                         "offload bundle",
                         true,
                         "kcc::rt::hip::selectVariant",
                         "kcc::rt::hip::multiprocessorCount",
                         "kcc::rt::hip::workspace",
                         "kcc::rt::hip::selectTarget",
                         "kcc::rt::hip::deviceName"};

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

std::string docComment(const KernelInfo &k, const SpecPlan &sp, bool amd) {
  const Specialization &s = *sp.spec;
  std::string out = wrapComment(
      "///", "Kernel " + k.name +
                 (s.constants.empty() ? "" : " with " + constantsText(s)) +
                 ".");
  std::string facts;
  for (const ParamInfo &p : s.params) {
    if (p.isPointer && p.align)
      facts += (facts.empty() ? "" : ", ") + p.name + ": align(" +
               std::to_string(p.align) + ")";
    else if (!p.isPointer && p.divisibility)
      facts += (facts.empty() ? "" : ", ") + p.name + ": multiple_of(" +
               std::to_string(p.divisibility) + ")";
  }
  out += wrapComment(
      "///", "Facts: " + (facts.empty() ? std::string("none") : facts) + ".",
      2);
  out +=
      wrapComment("///",
                  "Grid: (" + gridExpr(s.grid[0]) + ", " + gridExpr(s.grid[1]) +
                      ", " + gridExpr(s.grid[2]) + ").",
                  2);
  if (const Specialization *p = sp.persistent.spec)
    out += wrapComment(
        "///",
        "Persistent (kcc --persistent=" + std::to_string(p->persistent) +
            "): when the grid has more than " + std::to_string(p->persistent) +
            " x multiprocessors tiles, the launch runs " + p->symbol +
            " instead: one row of at most " + std::to_string(p->persistent) +
            " CTA(s) per multiprocessor, each looping over the tiles of "
            "every batch.",
        2);
  if (const Specialization *f = sp.fallback)
    out += wrapComment(
        "///",
        "Tensors outside the tensor contract (a base not 16-byte aligned, a "
        "row stride that is negative or not a multiple of 16 bytes) are not "
        "refused: the launch runs " +
            f->symbol +
            " instead, a build without TMA whose accesses assume only the "
            "declared facts.",
        2);
  if (const Specialization *v = sp.version)
    out += wrapComment(
        "///",
        v->versionMasks
            ? "Compiled without the masks the launch decides (" +
                  v->versionGuard.at + "): where " + v->versionGuard.text +
                  " does not hold, the launch runs " + v->symbol +
                  ", which keeps them."
            : "Compiled once per branch of `if " + v->versionGuard.text +
                  "` (" + v->versionGuard.at +
                  "): the launch evaluates it and runs " + v->symbol +
                  " when it is false, so neither build pays for the other "
                  "branch's registers.",
        2);
  std::string builds;
  for (const TargetBuild *b : sp.builds)
    builds += (builds.empty() ? "" : ", ") + std::to_string(b->threads) + " (" +
              b->target + ")";
  out += wrapComment("///", "Threads per block: " + builds + ".", 2);
  std::string shared;
  bool anyShared = false;
  for (const TargetBuild *b : sp.builds) {
    shared += (shared.empty() ? "" : ", ") +
              std::to_string(b->dynamicSharedBytes) + " (" + b->target + ")";
    anyShared |= b->dynamicSharedBytes > 0;
  }
  if (anyShared && !amd)
    out += wrapComment("///",
                       "Dynamic shared memory (bytes): " + shared + ".", 2);
  std::string maps;
  for (const ParamInfo &p : s.params) {
    if (!p.isTensorMap)
      continue;
    std::string box;
    for (int64_t b : p.box)
      box += (box.empty() ? "" : ", ") + std::to_string(b);
    std::string tensor = s.params[p.tensorBase].name;
    if (!p.mapSizes.empty()) {
      std::string sizes, strides;
      for (const std::string &d : p.mapSizes)
        sizes += (sizes.empty() ? "" : ", ") + d;
      for (const std::string &d : p.mapStrides)
        strides += (strides.empty() ? "" : ", ") + d;
      tensor += " as a [" + sizes + "] tensor" +
                (strides.empty() ? "" : " with row stride " + strides);
    }
    maps += (maps.empty() ? "" : ", ") + tensor + " (box [" + box +
            "], swizzle " + std::to_string(p.swizzle) + ")";
  }
  if (!maps.empty() && !amd)
    out += wrapComment("///",
                       "TMA tensor maps, encoded at launch on sm_90 and "
                       "newer: " +
                           maps + ".",
                       2);
  return out;
}

/// The chosen candidate per target, for the comments of a group's launch
/// function: "BM = 128, BN = 64 (sm_90a); BM = 64, BN = 64 (sm_80)".
std::string groupChoices(const KernelPlan &kp, const GroupPlan &gp, bool amd) {
  std::string out;
  for (const auto &[target, symbol] : gp.group->chosen) {
    if (isAmdTarget(target) != amd)
      continue;
    for (size_t v : gp.variants) {
      const Specialization &s = *kp.specs[v].spec;
      if (s.symbol != symbol)
        continue;
      std::string values;
      for (const ConstantValue &c : s.constants)
        if (std::find(gp.group->open.begin(), gp.group->open.end(), c.name) !=
            gp.group->open.end())
          values += (values.empty() ? "" : ", ") + c.name + " = " + c.text;
      out += (out.empty() ? "" : "; ") + values + " (" + target + ")";
    }
  }
  return out;
}

std::string groupComment(const KernelPlan &kp, const GroupPlan &gp, bool amd) {
  const Specialization &first = *kp.specs[gp.variants.front()].spec;
  std::string bound;
  for (const ConstantValue &c : first.constants)
    if (std::find(gp.group->open.begin(), gp.group->open.end(), c.name) ==
        gp.group->open.end())
      bound += (bound.empty() ? "" : ", ") + c.name + " = " + c.text;
  std::string open;
  for (const std::string &o : gp.group->open)
    open += (open.empty() ? "" : ", ") + o;
  std::string out = wrapComment(
      "///", "Kernel " + kp.kernel->name +
                 (bound.empty() ? "" : " with " + bound) + "; " + open +
                 " chosen by the compiler per target (kcc --report says "
                 "why): " +
                 groupChoices(kp, gp, amd) + ".");
  out += wrapComment("///",
                     "Grid, threads and shared memory: those of the chosen "
                     "specialization (" +
                         std::to_string(gp.group->candidates.size()) +
                         " candidates compiled).",
                     2);
  return out;
}

std::vector<std::string> typedParams(const Specialization &s) {
  std::vector<std::string> out;
  for (const ParamInfo &p : s.params)
    if (!p.isTensorMap)
      out.push_back(cxxParam(p));
  return out;
}

/// Every public launch function of a kernel: its name and the
/// specialization whose parameters it takes.
std::vector<std::pair<std::string, const Specialization *>>
launchFunctions(const KernelPlan &kp) {
  std::vector<std::pair<std::string, const Specialization *>> out;
  for (const SpecPlan &sp : kp.specs)
    if (sp.launchable)
      out.push_back({sp.spec->symbol, sp.spec});
  for (const GroupPlan &gp : kp.groups)
    out.push_back({gp.group->name, kp.specs[gp.variants.front()].spec});
  return out;
}

std::vector<std::string> dispatcherParams(const KernelPlan &kp) {
  const Specialization &first = kp.kernel->specializations.front();
  std::vector<std::string> out = {"const " + kp.kernel->name + "_spec &spec"};
  for (size_t i = 0; i < first.params.size(); ++i) {
    if (first.params[i].isTensorMap)
      continue;
    out.push_back(kp.dispatcher.pointerIsVoid[i]
                      ? "void *" + first.params[i].name
                      : cxxParam(first.params[i]));
  }
  return out;
}

std::string emitHeader(const std::vector<KernelPlan> &plans,
                       const std::string &ns, const std::string &source,
                       const Vendor &vendor, const std::string &contents) {
  std::string guard = "KCC_";
  for (char c : ns)
    guard += (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
  guard += vendor.guardSuffix;
  std::string stream = vendor.stream;

  std::string h;
  h += "// Generated by " + std::string(kGenerator) + " from " +
       commentText(source) + "; do not edit.\n";
  h += "//\n";
  h += wrapComment("//", "Launch stubs for the kernels of " + source + " (" +
                             vendor.imageKind + ": " + contents + ").");
  h += wrapComment("//", "C++: namespace " + ns +
                             ", functions returning kcc::Status. C: "
                             "kcc_<function>, returning a kcc_status_code "
                             "(message: kcc_last_error_message()). Link with " +
                             vendor.library + ".");
  if (vendor.amd)
    h += wrapComment("//", "HIP: streams are ihipStream_t *, i.e. "
                           "hipStream_t. Use these stubs or the CUDA ones of "
                           "the same module in a program, not both (same "
                           "names).");
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  h += std::string("#include <") + vendor.runtimeHeader + ">\n\n";
  h += "#ifndef __cplusplus\n#include <stdbool.h>\n#endif\n\n";

  h += "#ifdef __cplusplus\n";
  h += "namespace " + ns + " {\n";
  for (const KernelPlan &kp : plans) {
    const KernelInfo &k = *kp.kernel;
    for (const SpecPlan &sp : kp.specs) {
      if (!sp.launchable)
        continue;
      const Specialization &s = *sp.spec;
      std::vector<std::string> params = typedParams(s);
      params.push_back(stream + " *stream = nullptr");
      h += "\n" + docComment(k, sp, vendor.amd);
      h += wrapCall("", "kcc::Status " + s.symbol + "(", params, ");");
    }
    for (const GroupPlan &gp : kp.groups) {
      std::vector<std::string> params =
          typedParams(*kp.specs[gp.variants.front()].spec);
      params.push_back(stream + " *stream = nullptr");
      h += "\n" + groupComment(kp, gp, vendor.amd);
      h += wrapCall("", "kcc::Status " + gp.group->name + "(", params, ");");
    }
    const Specialization &first = k.specializations.front();
    if (first.constants.empty())
      continue;
    if (!kp.dispatcher.possible) {
      h +=
          "\n" + wrapComment("//", "No " + k.name + "(spec, ...) dispatcher: " +
                                       kp.dispatcher.whyNot + ".");
      continue;
    }
    h += "\n/// Constant parameters of " + k.name +
         ", to select a "
         "specialization at run time.\n";
    h += "struct " + k.name + "_spec {\n";
    for (const ConstantValue &c : first.constants)
      h += std::string("  ") +
           (c.isDType           ? "kcc::DType"
            : isBoolConstant(c) ? "bool"
                                : "int64_t") +
           " " + c.name + ";\n";
    h += "};\n\n";
    h += "/// Launches the specialization of " + k.name +
         " whose constants equal `spec`\n";
    h += "/// (KCC_ERROR_INVALID_ARGUMENT if none). Compiled:";
    for (const Specialization &s : k.specializations)
      h += "\n///   " + s.symbol + ": " + constantsText(s);
    h += "\n";
    std::vector<std::string> params = dispatcherParams(kp);
    params.push_back(stream + " *stream = nullptr");
    h += wrapCall("", "kcc::Status " + k.name + "(", params, ");");
  }
  h += "\n} // namespace " + ns + "\n";
  h += "#endif // __cplusplus\n\n";

  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h +=
      "/// C entry points: the functions above with f16/bf16 as uint16_t bit\n";
  h += "/// patterns; they return the status code and keep the message for\n";
  h += "/// kcc_last_error_message().\n";
  for (const KernelPlan &kp : plans)
    for (const auto &[name, spec] : launchFunctions(kp)) {
      std::vector<std::string> params;
      for (const ParamInfo &p : spec->params)
        if (!p.isTensorMap)
          params.push_back(cParam(p));
      params.push_back("struct " + stream + " *stream");
      h += wrapCall("", "kcc_status_code kcc_" + name + "(", params, ");");
    }
  h += "\n#ifdef __cplusplus\n} // extern \"C\"\n#endif\n\n";
  h += "#endif // " + guard + "\n";
  return h;
}

/// The fatbin as concatenated string literals: compilers read those an order
/// of magnitude faster than `{0x.., ...}` lists (8 MiB: ~1 s instead of ~20 s).
/// Printable characters stay as they are, all others become 3-digit octal
/// escapes (never greedy, unlike \x). The terminating NUL is not counted.
void emitFatbin(std::string &out, const std::string &fatbin) {
  out.reserve(out.size() + fatbin.size() * 3 + 256);
  out += "alignas(16) static const unsigned char kFatbin[] =";
  if (fatbin.empty()) {
    out += " \"\";\n";
    return;
  }
  out += "\n    \"";
  size_t column = 5; // after `    "`
  for (char ch : fatbin) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?';
    size_t width = plain ? 1 : 4;
    if (column + width + 1 > kLineWidth) { // +1: the closing quote
      out += "\"\n    \"";
      column = 5;
    }
    if (plain) {
      out += ch;
    } else {
      out += '\\';
      out += char('0' + (c >> 6));
      out += char('0' + ((c >> 3) & 7));
      out += char('0' + (c & 7));
    }
    column += width;
  }
  out += "\";\n";
}

/// The split-K path of `sp`'s launch function: sizes the slices with
/// kcc::rt::splitKSlices and, for more than one, runs the split build over
/// a workspace (the tickets, then the partial tiles), returning its status.
/// Its own checks are the build's (the same parameters).
void emitSplitK(std::string &c, const SpecPlan &sp, const std::string &desc,
                const Vendor &vendor) {
  const Specialization &s = *sp.spec, &split = *sp.splitBuild;
  std::vector<std::string> gargs = sp.gridParams;
  c += "  {\n";
  c += "    int64_t kcc_processors = 0;\n";
  c += wrapCall("    ",
                std::string("kcc::Status kcc_split_status = ") +
                    vendor.multiprocessorCount + "(",
                {desc, "&kcc_processors"}, ");");
  c += "    if (!kcc_split_status)\n      return kcc_split_status;\n";
  if (sp.usesProcessors)
    c += std::string("    int64_t ") + kMultiprocessorsName +
         " = kcc_processors;\n";
  c += "    int64_t kcc_split_grid[3];\n";
  gargs.push_back("kcc_split_grid");
  c += wrapCall("    ", "kcc_impl::grid_" + s.symbol + "(", gargs, ");");
  // The sizes as the kernel computes them: 32-bit parameters.
  auto hostValue = [&](const std::string &expr) {
    return "static_cast<int64_t>(" + gridExpr(expr) + ")";
  };
  c += "    int64_t kcc_ctas = kcc_split_grid[0] * kcc_split_grid[1] * "
       "kcc_split_grid[2];\n";
  c += "    int64_t kcc_trips = " + hostValue(split.splitTrips) + ";\n";
  c += "    int64_t kcc_rows = " + hostValue(split.splitRows) + ";\n";
  c += "    int64_t kcc_cols = " + hostValue(split.splitCols) + ";\n";
  c += "    int64_t kcc_tiles = " + hostValue(split.splitTiles) + ";\n";
  c += wrapCall("    ", "int64_t kcc_slices = kcc::rt::splitKSlices(",
                {"kcc_ctas", "kcc_trips", "kcc_processors", split.splitStore},
                ");");
  // The workspace's sizes must fit the kernel's 32-bit parameters.
  // One ticket per output tile, in the workspace's first bytes.
  c += "    if (kcc_slices > 1 && kcc_cols > 0 && kcc_rows > 0 &&\n"
       "        kcc_tiles > 0 && kcc_tiles <= kcc::rt::kSplitKTickets &&\n"
       "        kcc_rows <= INT32_MAX / kcc_slices && kcc_cols <= INT32_MAX - "
       "3) {\n";
  c += "      int32_t kcc_ws_dim0 = static_cast<int32_t>(kcc_slices * "
       "kcc_rows);\n";
  c += "      int32_t kcc_ws_dim1 = static_cast<int32_t>(kcc_cols);\n";
  c += "      // Rows 16-byte aligned: the tensor contract.\n";
  c += "      int32_t kcc_ws_stride0 = (kcc_ws_dim1 + 3) / 4 * 4;\n";
  c += "      int32_t kcc_splits = static_cast<int32_t>(kcc_slices);\n";
  c += "      void *kcc_ws_memory = nullptr;\n";
  c += wrapCall("      ",
                std::string("kcc_split_status = ") + vendor.workspace + "(",
                {desc,
                 "kcc::rt::kSplitKTicketBytes + "
                 "static_cast<size_t>(kcc_ws_dim0) * "
                 "static_cast<size_t>(kcc_ws_stride0) * sizeof(float)",
                 "stream", "&kcc_ws_memory"},
                ");");
  c += "      if (!kcc_split_status)\n        return kcc_split_status;\n";
  c += "      int32_t *kcc_tickets = static_cast<int32_t *>(kcc_ws_memory);\n";
  c += "      float *kcc_ws = reinterpret_cast<float *>(\n"
       "          static_cast<char *>(kcc_ws_memory) + "
       "kcc::rt::kSplitKTicketBytes);\n";
  std::vector<std::string> args;
  for (const ParamInfo &q : split.params)
    if (!q.isTensorMap)
      args.push_back(q.name);
  args.push_back("stream");
  c +=
      wrapCall("      ", "kcc_split_status = kcc_variant_" + split.symbol + "(",
               args, ");");
  c += "      return kcc_split_status;\n";
  c += "    }\n  }\n";
}

/// The launch function a variant group's launch calls to run candidate
/// `sp`: its own public one, or the internal one of a candidate only.
std::string candidateLaunch(const SpecPlan &sp, const std::string &ns) {
  return sp.launchable ? "::" + ns + "::" + sp.spec->symbol
                       : "kcc_variant_" + sp.spec->symbol;
}

/// A number as C++ source (the cost model's constants).
std::string doubleLiteral(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string text = buf;
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";
  return text;
}

/// The body of a launch function whose targets kept several candidates:
/// the device's target, then per target the candidate the call's sizes
/// favour (kcc::rt::launchCycles, with the split-K slices each would run).
void emitSizeDispatch(std::string &c, const KernelPlan &kp, const GroupPlan &gp,
                      const std::string &ns,
                      const std::vector<std::string> &args,
                      const Vendor &vendor) {
  const std::string any =
      "kcc_impl::kernel_" +
      kp.specs[gp.targets.front().second.front()].spec->symbol;
  std::vector<std::string> targets;
  for (const auto &[d, indices] : gp.targets)
    targets.push_back(vendor.amd ? cString(d->target) : std::to_string(d->sm));
  c += wrapCall("  ",
                std::string("static const ") +
                    (vendor.amd ? "char *const" : "unsigned") +
                    " kcc_targets[] = {",
                targets, "};");
  c += "  unsigned kcc_target = 0;\n";
  c += wrapCall(
      "  ",
      std::string("kcc::Status kcc_status = ") + vendor.selectTarget + "(",
      {any, "kcc_targets", std::to_string(targets.size()), "&kcc_target"},
      ");");
  c += "  if (!kcc_status)\n    return kcc_status;\n";
  auto launch = [&](const std::string &indent, size_t index) {
    c +=
        wrapCall(indent, "return " + candidateLaunch(kp.specs[index], ns) + "(",
                 args, ");");
  };
  c += "  switch (kcc_target) {\n";
  for (size_t t = 0; t < gp.targets.size(); ++t) {
    const auto &[d, indices] = gp.targets[t];
    c += (t + 1 < gp.targets.size() ? "  case " + std::to_string(t) + ":"
                                    : std::string("  default:")) +
         " { // " + d->target + "\n";
    if (indices.size() == 1) {
      launch("    ", indices.front());
      c += "  }\n";
      continue;
    }
    c += "    int64_t kcc_processors = 0;\n";
    c += wrapCall(
        "    ", std::string("kcc_status = ") + vendor.multiprocessorCount + "(",
        {any, "&kcc_processors"}, ");");
    c += "    if (!kcc_status)\n      return kcc_status;\n";
    bool processors = false;
    for (size_t i : indices)
      processors = processors || kp.specs[i].usesProcessors;
    if (processors)
      c += std::string("    int64_t ") + kMultiprocessorsName +
           " = kcc_processors;\n";
    std::vector<std::string> rates, names;
    for (double r : d->rates)
      rates.push_back(doubleLiteral(r));
    for (size_t i : indices)
      names.push_back(cString(kp.specs[i].spec->symbol));
    c += wrapCall("    ", "static const char *const kcc_names[] = {", names,
                  "};");
    // KCC_VARIANT=<symbol> runs that candidate (for measuring the model).
    c += "    int kcc_pick = kcc::rt::forcedVariant(kcc_names, " +
         std::to_string(indices.size()) + ");\n";
    if (!d->tunedSizes.empty()) {
      // kcc --tuning-db: the measured choice near the call's sizes, on the
      // device it was measured on.
      size_t n = d->tunedParams.size();
      c += "    if (kcc_pick < 0) { // tuned: " + commentText(d->tunedFrom) +
           "\n";
      std::vector<std::string> rows;
      for (const std::vector<int64_t> &sizes : d->tunedSizes) {
        std::vector<std::string> values;
        for (int64_t v : sizes)
          values.push_back(int64Literal(v));
        rows.push_back(wrapCall("", "{", values, "}"));
      }
      c += wrapCall("      ",
                    "static const int64_t kcc_tuned[][" + std::to_string(n) +
                        "] = {",
                    rows, "};");
      std::vector<std::string> picks;
      for (int p : d->tunedPicks)
        picks.push_back(std::to_string(p));
      c += wrapCall("      ", "static const int kcc_tuned_picks[] = {", picks,
                    "};");
      c += "      std::string kcc_device;\n";
      c += wrapCall("      ", std::string("if (") + vendor.deviceName + "(",
                    {any, "&kcc_device"},
                    ").ok() &&\n          kcc_device == " +
                        cString(d->tunedDevice) + ") {");
      std::vector<std::string> sizes;
      for (const std::string &p : d->tunedParams)
        sizes.push_back("static_cast<int64_t>(" + p + ")");
      c += wrapCall("        ", "const int64_t kcc_sizes[] = {", sizes, "};");
      c += wrapCall("        ", "kcc_pick = kcc::rt::tunedVariant(",
                    {"kcc_sizes", std::to_string(n), "&kcc_tuned[0][0]",
                     "kcc_tuned_picks", std::to_string(d->tunedSizes.size())},
                    ");");
      c += "      }\n    }\n";
    }
    c += "    if (kcc_pick < 0) {\n";
    c += wrapCall("      ", "static const kcc::rt::MachineRates kcc_rates = {",
                  rates, "};");
    c += "      double kcc_best = 0;\n";
    for (size_t n = 0; n < indices.size(); ++n) {
      const SpecPlan &sp = kp.specs[indices[n]];
      const DispatchCandidate &w = d->candidates[n];
      auto value = [&](const std::string &expr) {
        return expr.empty() ? std::string("0")
                            : "static_cast<int64_t>(" + expr + ")";
      };
      c += "      { // " + sp.spec->symbol + "\n";
      if (!w.streamBytes.empty()) {
        // A memory-bound candidate: its traffic over the grid.
        c += "        int64_t kcc_grid[3];\n";
        std::vector<std::string> gargs = sp.gridParams;
        gargs.push_back("kcc_grid");
        c += wrapCall("        ", "kcc_impl::grid_" + sp.spec->symbol + "(",
                      gargs, ");");
        c += wrapCall("        ", "double kcc_cost = kcc::rt::streamCycles(",
                      {"kcc_rates", "kcc_grid[0] * kcc_grid[1] * kcc_grid[2]",
                       "static_cast<double>" + w.streamBytes},
                      ");");
        c += "        if (kcc_pick < 0 || kcc_cost < kcc_best) {\n";
        c += "          kcc_best = kcc_cost;\n          kcc_pick = " +
             std::to_string(n) + ";\n        }\n";
        c += "      }\n";
        continue;
      }
      c += wrapCall("        ", "static const kcc::rt::TileWork kcc_work = {",
                    {doubleLiteral(w.tileM), doubleLiteral(w.tileN),
                     doubleLiteral(w.flops), doubleLiteral(w.smemBytes),
                     doubleLiteral(w.rowBytes), doubleLiteral(w.colBytes),
                     doubleLiteral(w.storeBytes), doubleLiteral(w.stages),
                     doubleLiteral(w.flopsScale)},
                    "};");
      c += "        int64_t kcc_grid[3];\n";
      std::vector<std::string> gargs = sp.gridParams;
      gargs.push_back("kcc_grid");
      c += wrapCall("        ", "kcc_impl::grid_" + sp.spec->symbol + "(",
                    gargs, ");");
      c += "        int64_t kcc_ctas = kcc_grid[0] * kcc_grid[1] * "
           "kcc_grid[2];\n";
      c += "        int64_t kcc_trips = " + value(w.trips) + ";\n";
      // The slices its own launch would cut the loop into.
      std::string slices = "1";
      if (sp.splitBuild)
        slices = "kcc::rt::splitKSlices(kcc_ctas, kcc_trips, kcc_processors, " +
                 sp.splitBuild->splitStore + ")";
      c += "        int64_t kcc_slices = " + slices + ";\n";
      c += wrapCall("        ", "double kcc_cost = kcc::rt::launchCycles(",
                    {"kcc_work", "kcc_rates", "kcc_ctas", "kcc_trips",
                     value(w.rows), value(w.cols), "kcc_slices",
                     "kcc_processors"},
                    ");");
      c += "        if (kcc_pick < 0 || kcc_cost < kcc_best) {\n";
      c += "          kcc_best = kcc_cost;\n          kcc_pick = " +
           std::to_string(n) + ";\n        }\n";
      c += "      }\n";
    }
    c += "    }\n";
    c += "    switch (kcc_pick) {\n";
    for (size_t n = 0; n < indices.size(); ++n) {
      c += n + 1 < indices.size() ? "    case " + std::to_string(n) + ":\n"
                                  : std::string("    default:\n");
      launch("      ", indices[n]);
    }
    c += "    }\n  }\n";
  }
  c += "  }\n";
}

std::string emitSource(const ModuleInfo &m,
                       const std::vector<KernelPlan> &plans,
                       const std::string &fatbin, const std::string &ns,
                       const std::string &source, const Vendor &vendor,
                       const std::string &contents) {
  std::string stream = vendor.stream;
  std::string c;
  c += "// Generated by " + std::string(kGenerator) + " from " +
       commentText(source) + "; do not edit.\n";
  c += "#include \"" + m.stem + vendor.fileSuffix + ".h\"\n\n";
  bool splits = false;
  for (const KernelPlan &kp : plans)
    for (const SpecPlan &sp : kp.specs)
      splits = splits || sp.splitBuild;
  bool weighs = false;
  for (const KernelPlan &kp : plans)
    for (const GroupPlan &gp : kp.groups)
      weighs = weighs || !gp.targets.empty();
  if (splits || weighs)
    c += "#include <kcc/split_k.h>\n";
  if (weighs)
    c += "#include <kcc/dispatch.h>\n";
  if (splits || weighs)
    c += "\n";
  if (plans.empty())
    return c + "// " + commentText(source) + " has no kernels.\n";

  c += "namespace " + ns + " {\n";
  c += "namespace kcc_impl {\n\n";
  c += "// " + commentText(contents) + "\n";
  emitFatbin(c, fatbin);
  c += "\n";
  c += wrapCall(
      "", "static const kcc::rt::FatbinDesc kFatbinDesc = {",
      {cString(source), "kFatbin", "sizeof(kFatbin) - 1", cString(contents)},
      "};");
  for (const KernelPlan &kp : plans)
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      // One entry of the fatbin: its launch shape per target and its
      // descriptor, `fields` after the first four.
      auto emitDesc = [&](const Specialization &entry,
                          const std::vector<const TargetBuild *> &builds,
                          std::vector<std::string> fields) {
        c += "\n// " + entry.symbol + "\n";
        std::vector<std::string> threads;
        // AMD: {0, threads, target}; NVIDIA: {sm, threads} or, with dynamic
        // shared memory, {sm, threads, nullptr, bytes}; a persistent build
        // the launch does not use on the target adds `true`.
        for (const TargetBuild *b : builds) {
          std::string t =
              "{" + std::to_string(b->sm) + ", " + std::to_string(b->threads);
          if (vendor.amd)
            t += ", " + cString(b->target);
          else if (b->dynamicSharedBytes || !b->persistentNotLaunched.empty())
            t += ", nullptr, " + std::to_string(b->dynamicSharedBytes);
          if (!b->persistentNotLaunched.empty())
            t += ", true";
          threads.push_back(t + "}");
        }
        c += wrapCall("",
                      "static const kcc::rt::ThreadsForArch threads_" +
                          entry.symbol + "[] = {",
                      threads, "};");
        std::vector<std::string> desc = {"&kFatbinDesc", cString(entry.symbol),
                                         "threads_" + entry.symbol,
                                         std::to_string(builds.size())};
        desc.insert(desc.end(), fields.begin(), fields.end());
        c += wrapCall("",
                      "static const kcc::rt::KernelDesc kernel_" +
                          entry.symbol + " = {",
                      desc, "};");
      };
      // kcc --persistent: the launch runs the persistent build instead when
      // the grid has more tiles than it launches CTAs.
      std::vector<std::string> fields;
      if (sp.persistent.spec) {
        const Specialization &p = *sp.persistent.spec;
        emitDesc(p, sp.persistent.builds, {std::to_string(p.persistent)});
        fields = {"0", "&kernel_" + p.symbol};
      }
      emitDesc(s, sp.builds, fields);
      std::vector<std::string> gparams;
      for (const std::string &p : sp.gridParams)
        gparams.push_back("int64_t " + p);
      gparams.push_back("int64_t *kcc_grid");
      c += wrapCall("", "static void grid_" + s.symbol + "(", gparams, ") {");
      for (int d = 0; d < 3; ++d)
        c += "  kcc_grid[" + std::to_string(d) + "] = " + gridExpr(s.grid[d]) +
             ";\n";
      c += "}\n";
      // A C predicate over the integer params it reads: each require(...)
      // clause, then the sizes for which kcc proved the stores cover each
      // tensor.
      auto predicate = [&](const std::string &name,
                           const std::vector<std::string> &used,
                           const std::string &expr) {
        std::vector<std::string> params;
        for (const std::string &p : used)
          params.push_back("int64_t " + p);
        if (params.empty())
          params.push_back("void");
        c += wrapCall("", "static bool " + name + "(", params, ") {");
        c += "  return " + expr + ";\n}\n";
      };
      for (size_t r = 0; r < s.requirements.size(); ++r)
        predicate("requires_" + s.symbol + "_" + std::to_string(r),
                  sp.requireParams[r], s.requirements[r].expr);
      if (const Specialization *v = sp.version)
        predicate("then_" + s.symbol, sp.versionParams, v->versionGuard.expr);
      for (size_t g = 0; g < s.coverage.size(); ++g)
        predicate("covers_" + s.symbol + "_" + std::to_string(g),
                  sp.guardParams[g], s.coverage[g].expr);
    }
  c += "\n} // namespace kcc_impl\n";

  for (const KernelPlan &kp : plans) {
    const KernelInfo &k = *kp.kernel;
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      std::string desc = "kcc_impl::kernel_" + s.symbol;
      std::vector<std::string> params = typedParams(s);
      params.push_back(stream + " *stream");
      c += "\n";
      c += wrapCall("",
                    sp.launchable
                        ? "kcc::Status " + s.symbol + "("
                        : "static kcc::Status kcc_variant_" + s.symbol + "(",
                    params, ") {");
      // The kernel's `if` the launch decides: its else branch is a build of
      // its own, run with the same arguments (its checks are its own).
      if (const Specialization *v = sp.version) {
        c += wrapComment(
            "  //",
            v->versionMasks
                ? "where " + v->versionGuard.text + " (" + v->versionGuard.at +
                      "), this build runs without those masks, " + v->symbol +
                      " with them elsewhere."
                : "if " + v->versionGuard.text + " (" + v->versionGuard.at +
                      "): this build runs the then branch, " + v->symbol +
                      " the else branch.");
        std::vector<std::string> args;
        for (const ParamInfo &q : v->params)
          if (!q.isTensorMap)
            args.push_back(q.name);
        args.push_back("stream");
        c += wrapCall("  ", "if (!kcc_impl::then_" + s.symbol + "(",
                      sp.versionParams, "))");
        c += wrapCall("    ", "return kcc_variant_" + v->symbol + "(", args,
                      ");");
      }
      // The tensor contract this build assumes (what its facts claim beyond
      // the fallback build's): tensors that break it run the fallback
      // build, with the same arguments, instead of being refused.
      if (const Specialization *f = sp.fallback) {
        std::vector<std::string> terms;
        for (size_t i = 0; i < s.params.size() && i < f->params.size(); ++i) {
          const ParamInfo &p = s.params[i], &q = f->params[i];
          if (p.isTensorMap)
            continue;
          if (p.isPointer && effectiveAlign(p) > effectiveAlign(q))
            terms.push_back("reinterpret_cast<uintptr_t>(" + p.name + ") % " +
                            std::to_string(effectiveAlign(p)) + " == 0");
          else if (!p.isPointer && p.divisibility > q.divisibility)
            terms.push_back(p.name + " >= 0 && " + p.name + " % " +
                            int64Literal(p.divisibility) + " == 0");
        }
        std::vector<std::string> args;
        for (const ParamInfo &q : f->params)
          args.push_back(q.name);
        args.push_back("stream");
        if (!terms.empty()) {
          c += "  // The tensor contract (16-byte aligned bases, row strides\n"
               "  // non-negative multiples of 16 bytes) or the fallback "
               "build.\n";
          std::string cond;
          for (const std::string &t : terms)
            cond += (cond.empty() ? "" : " &&\n        ") + t;
          c += "  if (!(" + cond + "))\n";
          c += wrapCall("    ", "return kcc_variant_" + f->symbol + "(", args,
                        ");");
        }
      }
      // kcc --split-k: a grid too small for the GPU runs the K loop in
      // slices through a workspace of f32 tiles; the last slice of each
      // tile sums them in slice order and runs the epilogue.
      if (sp.splitBuild)
        emitSplitK(c, sp, desc, vendor);
      bool declared = false;
      auto check = [&](const std::string &call,
                       const std::vector<std::string> &args) {
        c += wrapCall(
            "  ",
            (declared ? "kcc_status = " : "kcc::Status kcc_status = ") + call +
                "(",
            args, ");");
        c += "  if (!kcc_status)\n    return kcc_status;\n";
        declared = true;
      };
      for (const ParamInfo &p : s.params) {
        if (p.isPointer)
          check("kcc::rt::checkAlignment", {desc, cString(p.name), p.name,
                                            std::to_string(effectiveAlign(p))});
        else if (isIntegerKind(p.elem) && p.divisibility > 0)
          check("kcc::rt::checkDivisibility",
                {desc, cString(p.name), p.name, int64Literal(p.divisibility)});
      }
      // num_multiprocessors() in the grid or a guard: the device's count.
      if (sp.usesProcessors) {
        c += std::string("  int64_t ") + kMultiprocessorsName + " = 0;\n";
        check(vendor.multiprocessorCount,
              {desc, std::string("&") + kMultiprocessorsName});
      }
      // A false require(...) or coverage guard: the message names the
      // integer parameters it reads, with their values.
      auto namesAndValues = [&](const std::vector<std::string> &used) {
        std::vector<std::string> quoted;
        for (const std::string &p : used)
          quoted.push_back(cString(p));
        if (used.empty()) {
          c += "    const char *const *kcc_names = nullptr;\n";
          c += "    const int64_t *kcc_values = nullptr;\n";
        } else {
          c += wrapCall("    ", "const char *const kcc_names[] = {", quoted,
                        "};");
          c += wrapCall("    ", "const int64_t kcc_values[] = {", used, "};");
        }
      };
      // A launch guard: `predicate`'s call and, when it is false, the
      // runtime's message (`failure` and its leading arguments).
      auto refuseUnless = [&](const std::string &predicate,
                              const std::vector<std::string> &used,
                              const std::string &failure,
                              std::vector<std::string> args) {
        c += wrapCall("  ", "if (!kcc_impl::" + predicate + "(", used, ")) {");
        namesAndValues(used);
        args.insert(args.end(),
                    {"kcc_names", "kcc_values", std::to_string(used.size())});
        c += wrapCall("    ", "return kcc::rt::" + failure + "(", args, ");");
        c += "  }\n";
      };
      for (size_t r = 0; r < s.requirements.size(); ++r)
        refuseUnless("requires_" + s.symbol + "_" + std::to_string(r),
                     sp.requireParams[r], "unmetRequirement",
                     {desc, cString(s.requirements[r].text),
                      cString(s.requirements[r].at)});
      for (size_t g = 0; g < s.coverage.size(); ++g)
        refuseUnless(
            "covers_" + s.symbol + "_" + std::to_string(g), sp.guardParams[g],
            "uncoveredTensor",
            {desc, cString(s.coverage[g].tensor), cString(s.coverage[g].text)});
      c += "  int64_t grid[3];\n";
      std::vector<std::string> gargs = sp.gridParams;
      gargs.push_back("grid");
      c += wrapCall("  ", "kcc_impl::grid_" + s.symbol + "(", gargs, ");");
      // TMA tensor maps: encoded here (after the grid, so an empty tensor
      // can be told apart from an empty launch), passed by address.
      std::vector<std::string> mapVars(s.params.size());
      for (size_t i = 0, n = 0; i < s.params.size(); ++i) {
        const ParamInfo &p = s.params[i];
        if (!p.isTensorMap || vendor.amd)
          continue;
        const ParamInfo &base = s.params[p.tensorBase];
        unsigned rank = p.mapSizes.empty() ? base.tensorRank : p.box.size();
        mapVars[i] = "kcc_map" + std::to_string(n++);
        c += "  kcc::rt::TensorMap " + mapVars[i] + "; // " +
             commentText(p.name) + "\n";
        c += "  {\n";
        std::vector<std::string> dims = p.mapSizes, strides = p.mapStrides,
                                 box;
        for (unsigned d = 0; p.mapSizes.empty() && d < rank; ++d)
          dims.push_back(s.params[p.tensorBase + 1 + d].name);
        for (unsigned d = 0; p.mapSizes.empty() && d + 1 < rank; ++d)
          strides.push_back(s.params[p.tensorBase + 1 + rank + d].name);
        for (int64_t b : p.box)
          box.push_back(std::to_string(b));
        c += wrapCall("    ", "const int64_t kcc_dims[] = {", dims, "};");
        if (strides.empty())
          c += "    const int64_t *kcc_strides = nullptr;\n";
        else
          c += wrapCall("    ", "const int64_t kcc_strides[] = {", strides,
                        "};");
        c += wrapCall("    ", "const int32_t kcc_box[] = {", box, "};");
        c += wrapCall(
            "    ",
            (declared ? "kcc_status = " : "kcc::Status kcc_status = ") +
                std::string("kcc::rt::encodeTensorMap("),
            {desc, cString(base.name), "&" + mapVars[i], dtypeEnum(p.elem),
             base.name, std::to_string(rank), "kcc_dims", "kcc_strides",
             "kcc_box", std::to_string(p.swizzle)},
            ");");
        c += "  }\n";
        c += "  if (!kcc_status)\n    return kcc_status;\n";
        c += "  if (!kcc_status.message.empty()) // an empty tensor\n";
        c += wrapCall("    ", "return kcc::rt::emptyTensorLaunch(",
                      {desc, "grid", "kcc_status"}, ");");
        declared = true;
      }
      std::vector<std::string> addrs;
      for (size_t i = 0; i < s.params.size(); ++i)
        if (!s.params[i].isTensorMap)
          addrs.push_back("&" + s.params[i].name);
        else if (!vendor.amd)
          addrs.push_back("&" + mapVars[i]);
      if (addrs.empty())
        c += "  void **args = nullptr;\n";
      else
        c += wrapCall("  ", "void *args[] = {", addrs, "};");
      c += wrapCall("  ", std::string("return ") + vendor.launch + "(",
                    {desc, "grid", "args", "stream"}, ");");
      c += "}\n";
    }

    // Variant groups: the candidate built for the device's architecture.
    for (const GroupPlan &gp : kp.groups) {
      const Specialization &first = *kp.specs[gp.variants.front()].spec;
      std::vector<std::string> params = typedParams(first);
      params.push_back(stream + " *stream");
      std::vector<std::string> args, descs;
      for (const ParamInfo &p : first.params)
        if (!p.isTensorMap)
          args.push_back(p.name);
      args.push_back("stream");
      for (size_t v : gp.variants)
        descs.push_back("&kcc_impl::kernel_" + kp.specs[v].spec->symbol);
      c += "\n";
      c += wrapCall("", "kcc::Status " + gp.group->name + "(", params, ") {");
      if (!gp.targets.empty()) {
        emitSizeDispatch(c, kp, gp, ns, args, vendor);
        c += "}\n";
        continue;
      }
      c += wrapCall(
          "  ", "static const kcc::rt::KernelDesc *const kcc_variants[] = {",
          descs, "};");
      c += "  unsigned kcc_which = 0;\n";
      c += wrapCall(
          "  ",
          std::string("kcc::Status kcc_status = ") + vendor.selectVariant + "(",
          {"kcc_variants", std::to_string(descs.size()), "&kcc_which"}, ");");
      c += "  if (!kcc_status)\n    return kcc_status;\n";
      c += "  switch (kcc_which) {\n";
      for (size_t i = 0; i < gp.variants.size(); ++i) {
        const SpecPlan &sp = kp.specs[gp.variants[i]];
        c += i + 1 < gp.variants.size() ? "  case " + std::to_string(i) + ":\n"
                                        : std::string("  default:\n");
        c += wrapCall("    ", "return " + candidateLaunch(sp, ns) + "(", args,
                      ");");
      }
      c += "  }\n}\n";
    }

    if (!kp.dispatcher.possible)
      continue;
    const Specialization &first = k.specializations.front();
    std::vector<std::string> params = dispatcherParams(kp);
    params.push_back(stream + " *stream");
    c += "\n";
    c += wrapCall("", "kcc::Status " + k.name + "(", params, ") {");
    std::string compiled;
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      if (!s.fallbackOf.empty() || !s.versionOf.empty() || !s.splitKOf.empty())
        continue; // run by its specialization's launch function
      if (s.variantOnly)
        continue; // a candidate: run by its group's launch function
      std::string cond;
      for (size_t i = 0; i < s.constants.size(); ++i) {
        const ConstantValue &cv = s.constants[i];
        std::string term;
        if (cv.isDType)
          term = "spec." + cv.name + " == " + dtypeEnum(cv.dtype);
        else if (isBoolConstant(cv))
          term = (cv.intValue ? "spec." : "!spec.") + cv.name;
        else
          term = "spec." + cv.name + " == " + int64Literal(cv.intValue);
        cond += (i ? " && " : "") + term;
      }
      std::vector<std::string> args;
      for (size_t i = 0; i < s.params.size(); ++i) {
        const ParamInfo &p = s.params[i];
        if (p.isTensorMap)
          continue;
        if (kp.dispatcher.pointerIsVoid[i])
          args.push_back("static_cast<" + std::string(cxxType(p.elem)) +
                         " *>(" + p.name + ")");
        else
          args.push_back(p.name);
      }
      args.push_back("stream");
      c += wrapCall("  ", "if (", {cond}, ")");
      c += wrapCall("    ", "return ::" + ns + "::" + s.symbol + "(", args,
                    ");");
      compiled += (compiled.empty() ? "(" : ", (") + constantsText(s) + ")";
    }
    // The message: "<kernel> has no specialization T = f64, BLOCK = 1;
    // compiled: ..."
    std::vector<std::string> pieces;
    for (size_t i = 0; i < first.constants.size(); ++i) {
      const ConstantValue &cv = first.constants[i];
      pieces.push_back(cString((i ? ", " : "") + cv.name + " = "));
      if (cv.isDType)
        pieces.push_back("kcc::dtypeName(spec." + cv.name + ")");
      else if (isBoolConstant(cv))
        pieces.push_back("(spec." + cv.name + " ? \"true\" : \"false\")");
      else
        pieces.push_back("std::to_string(spec." + cv.name + ")");
    }
    pieces.push_back(cString("; compiled: " + compiled));
    c += "  std::string kcc_message = " +
         cString(k.name + " has no specialization ") + ";\n";
    for (size_t i = 0; i < pieces.size(); ++i)
      c += "  kcc_message += " + pieces[i] + ";\n";
    c += "  return kcc::Status{KCC_ERROR_INVALID_ARGUMENT, kcc_message};\n";
    c += "}\n";
  }
  c += "\n} // namespace " + ns + "\n";

  for (const KernelPlan &kp : plans)
    for (const auto &[name, spec] : launchFunctions(kp)) {
      const Specialization &s = *spec;
      std::vector<std::string> params, args;
      for (const ParamInfo &p : s.params) {
        if (p.isTensorMap)
          continue;
        params.push_back(cParam(p));
        bool half = isWrappedFloat(p.elem);
        if (half && p.isPointer)
          args.push_back("reinterpret_cast<" + std::string(cxxType(p.elem)) +
                         " *>(" + p.name + ")");
        else if (half)
          args.push_back(std::string(cxxType(p.elem)) + "{" + p.name + "}");
        else
          args.push_back(p.name);
      }
      params.push_back(stream + " *stream");
      args.push_back("stream");
      c += "\n";
      c += wrapCall("", "extern \"C\" kcc_status_code kcc_" + name + "(",
                    params, ") {");
      c += wrapCall("  ",
                    "return kcc::rt::setLastError(::" + ns + "::" + name + "(",
                    args, "));");
      c += "}\n";
    }
  return c;
}

} // namespace

std::string stubNamespace(const std::string &stem) {
  std::string out;
  for (char c : stem) {
    char d = isIdentChar(c) ? c : '_';
    if (d == '_' && !out.empty() && out.back() == '_')
      continue; // no "__" (reserved)
    out += d;
  }
  if (out.empty() || !isIdentStart(out[0]) || out[0] == '_')
    out = "kcc_" + (out.size() && out[0] == '_' ? out.substr(1) : out);
  else if (!nameProblem(out).empty())
    out += "_";
  return out;
}

/// What the embedded image holds, for comments and FatbinDesc::archs: the
/// module's fatbin contents (CUDA), or the AMD targets built, in the order of
/// the module's targets (HIP: "gfx90a, gfx942").
static std::string imageContents(const ModuleInfo &m,
                                 const std::vector<KernelPlan> &plans,
                                 const Vendor &vendor) {
  if (!vendor.amd)
    return m.fatbinContents;
  std::vector<std::string> built;
  for (const KernelPlan &kp : plans)
    for (const SpecPlan &sp : kp.specs)
      for (const TargetBuild *b : sp.builds)
        if (std::find(built.begin(), built.end(), b->target) == built.end())
          built.push_back(b->target);
  std::vector<std::string> ordered;
  for (const std::string &t : m.targets)
    if (std::find(built.begin(), built.end(), t) != built.end() &&
        std::find(ordered.begin(), ordered.end(), t) == ordered.end())
      ordered.push_back(t);
  for (const std::string &t : built)
    if (std::find(ordered.begin(), ordered.end(), t) == ordered.end())
      ordered.push_back(t);
  std::string out;
  for (const std::string &t : ordered)
    out += (out.empty() ? "" : ", ") + t;
  return out;
}

/// <stem>.kcc.tune.cpp: the launch functions that weigh candidates, as
/// kcc::tune::main takes them (runtime/include/kcc/tune.h), or "" if none.
std::string emitTuner(const std::vector<KernelPlan> &plans,
                      const std::string &ns, const std::string &source,
                      const std::string &sourceName) {
  std::string body, table;
  unsigned count = 0;
  for (const KernelPlan &kp : plans)
    for (const GroupPlan &gp : kp.groups) {
      if (gp.targets.empty())
        continue;
      const Specialization &first = *kp.specs[gp.variants.front()].spec;
      std::string n = "launch_" + gp.group->name;
      body += "\nnamespace " + n + " {\n";
      std::vector<std::string> params, args;
      size_t pointers = 0, integers = 0, floats = 0;
      for (size_t i = 0; i < first.params.size(); ++i) {
        const ParamInfo &p = first.params[i];
        if (p.isTensorMap)
          continue;
        std::string kind = p.isPointer             ? "Pointer"
                           : isIntegerKind(p.elem) ? "Integer"
                                                   : "Float";
        params.push_back("{" + cString(p.name) + ", kcc::tune::Param::" + kind +
                         ", " + std::to_string(scalarKindBytes(p.elem)) + ", " +
                         std::to_string(p.tensorRank) + "}");
        std::string type =
            std::string(cxxType(p.elem)) + (p.isPointer ? " *" : "");
        if (p.isPointer)
          args.push_back("static_cast<" + type + ">(p[" +
                         std::to_string(pointers++) + "])");
        else if (isIntegerKind(p.elem))
          args.push_back("static_cast<" + type + ">(i[" +
                         std::to_string(integers++) + "])");
        else if (p.elem == ScalarKind::F32 || p.elem == ScalarKind::F64)
          args.push_back("static_cast<" + type + ">(f[" +
                         std::to_string(floats++) + "])");
        else // a 16-bit or 8-bit float scalar: not one a tuning shape sets
          args.push_back(type + "{}");
      }
      args.push_back("stream");
      body += wrapCall("", "const kcc::tune::Param params[] = {", params, "};");
      std::vector<std::string> sms, names, lists, sizes;
      for (size_t t = 0; t < gp.targets.size(); ++t) {
        const auto &[d, indices] = gp.targets[t];
        sms.push_back(std::to_string(d->sm));
        names.push_back(cString(d->target));
        std::vector<std::string> cands;
        for (size_t i : indices)
          cands.push_back(cString(kp.specs[i].spec->symbol));
        body += wrapCall(
            "", "const char *const candidates" + std::to_string(t) + "[] = {",
            cands, "};");
        lists.push_back("candidates" + std::to_string(t));
        sizes.push_back(std::to_string(indices.size()));
      }
      body += wrapCall("", "const unsigned sms[] = {", sms, "};");
      body += wrapCall("", "const char *const targets[] = {", names, "};");
      body += wrapCall("", "const char *const *const candidates[] = {", lists,
                       "};");
      body += wrapCall("", "const unsigned numCandidates[] = {", sizes, "};");
      body += "kcc::Status call(void *const *p, const int64_t *i, "
              "const double *f,\n                 CUstream_st *stream) {\n";
      body += "  (void)p, (void)i, (void)f;\n";
      body += wrapCall("  ", "return ::" + ns + "::" + gp.group->name + "(",
                       args, ");");
      body += "}\n} // namespace " + n + "\n";
      table += wrapCall(
          "    ", "{",
          {cString(gp.group->name), n + "::params",
           std::to_string(params.size()),
           "&::" + ns + "::kcc_impl::kernel_" +
               kp.specs[gp.targets.front().second.front()].spec->symbol,
           n + "::sms", n + "::targets", std::to_string(sms.size()),
           n + "::candidates", n + "::numCandidates", n + "::call"},
          "},");
      ++count;
    }
  if (!count)
    return "";
  std::string c;
  c += "// Generated by " + std::string(kGenerator) + " from " +
       commentText(source) + "; do not edit.\n";
  c += "//\n// The tuner of its launch functions that weigh tile candidates "
       "by size\n// (docs/gemm.md, \"Tuned dispatch\"): built with the CUDA "
       "runtime alone, it times\n// each candidate on this machine's GPU and "
       "writes a tuning database for\n// kcc --tuning-db. It includes the "
       "stubs' source: build it instead of them.\n"
       "//   c++ -std=c++17 -O2 -I<kcc>/include " +
       commentText(sourceName.substr(0, sourceName.size() - 4)) +
       ".tune.cpp -lkcc_runtime -ldl -lpthread\n"
       "//   ./a.out -o tuning.json LAUNCH:c=16x4096,a=16x4096,... ...\n";
  c += "#include \"" + sourceName + "\"\n\n#include <kcc/tune.h>\n\n";
  c += "namespace {\n" + body + "\nconst kcc::tune::Launch launches[] = {\n" +
       table + "};\n} // namespace\n\n";
  c +=
      "int main(int argc, char **argv) {\n  return kcc::tune::main(argc, argv, "
      "launches, " +
      std::to_string(count) + ");\n}\n";
  return c;
}

static bool emitStubs(const Vendor &vendor, const ModuleInfo &module,
                      const std::string &image, StubFiles &out,
                      std::string &error, std::string &kernel,
                      std::string &name) {
  out = StubFiles();
  error.clear();
  kernel.clear();
  name.clear();
  for (char ch : module.stem) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '/') {
      error = "the file stem '" + commentText(module.stem) +
              "' cannot be used in #include \"...\"; rename the file";
      return false;
    }
  }
  if (module.stem.empty()) {
    error = "the module has no file stem";
    return false;
  }
  std::vector<KernelPlan> plans;
  if (!plan(module, vendor, plans, error, kernel, name))
    return false;
  std::string ns = stubNamespace(module.stem);
  std::string source = stripDir(module.sourcePath);
  if (source.empty())
    source = module.stem + ".kc";
  std::string contents = imageContents(module, plans, vendor);
  out.headerName = module.stem + vendor.fileSuffix + ".h";
  out.sourceName = module.stem + vendor.fileSuffix + ".cpp";
  out.header = emitHeader(plans, ns, source, vendor, contents);
  out.source = emitSource(module, plans, image, ns, source, vendor, contents);
  if (!vendor.amd) {
    out.tuner = emitTuner(plans, ns, source, out.sourceName);
    if (!out.tuner.empty())
      out.tunerName = module.stem + vendor.fileSuffix + ".tune.cpp";
  }
  return true;
}

bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error) {
  std::string kernel, name;
  return emitStubs(kCuda, module, fatbin, out, error, kernel, name);
}

bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error, std::string &kernel,
                   std::string &name) {
  return emitStubs(kCuda, module, fatbin, out, error, kernel, name);
}

bool emitHipStubs(const ModuleInfo &module, const std::string &bundle,
                  StubFiles &out, std::string &error) {
  std::string kernel, name;
  return emitStubs(kHip, module, bundle, out, error, kernel, name);
}

bool emitHipStubs(const ModuleInfo &module, const std::string &bundle,
                  StubFiles &out, std::string &error, std::string &kernel,
                  std::string &name) {
  return emitStubs(kHip, module, bundle, out, error, kernel, name);
}

} // namespace kcc::host
