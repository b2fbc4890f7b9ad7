//===- Manifest.cpp - the JSON manifest of a compilation --------------------===//
#include "backends/host/Manifest.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace kcc::host;
namespace json = llvm::json;

static json::Object paramJson(const Specialization &s, const ParamInfo &p) {
  json::Object o{{"name", p.name},
                 {"kind", p.isTensorMap ? "tensormap"
                          : p.isPointer ? "pointer"
                                        : "scalar"},
                 {"type", scalarKindName(p.elem)}};
  if (p.tensorRank)
    o["tensor_rank"] = p.tensorRank;
  if (p.isTensorMap) {
    // Encoded by the launch stub (not a user argument): for tools that launch
    // kernels themselves.
    o["tensor"] = p.tensorBase < s.params.size() ? s.params[p.tensorBase].name
                                                 : std::string("?");
    json::Array box;
    for (int64_t b : p.box)
      box.push_back(b);
    o["box"] = std::move(box);
    o["swizzle"] = p.swizzle;
    // A lifted tile of pointers: the sizes and row strides, as parameter
    // names or integers (a tensor parameter's map uses the tensor's own).
    if (!p.mapSizes.empty()) {
      json::Array sizes, strides;
      for (const std::string &e : p.mapSizes)
        sizes.push_back(e);
      for (const std::string &e : p.mapStrides)
        strides.push_back(e);
      o["sizes"] = std::move(sizes);
      o["strides"] = std::move(strides);
    }
  }
  if (p.align)
    o["align"] = p.align;
  if (p.divisibility)
    o["multiple_of"] = p.divisibility;
  return o;
}

static json::Object buildJson(const TargetBuild &b) {
  json::Object o{{"target", b.target},
                 {"threads_per_block", b.threads},
                 {"dynamic_shared_bytes", b.dynamicSharedBytes},
                 {"registers", b.registers},
                 {"shared_bytes", b.sharedBytes},
                 {"stack_bytes", b.stackBytes},
                 {"spill_store_bytes", b.spillStoreBytes},
                 {"spill_load_bytes", b.spillLoadBytes}};
  // A persistent build the launch does not use on this target.
  if (!b.persistentNotLaunched.empty())
    o["not_launched"] = b.persistentNotLaunched;
  return o;
}

std::string kcc::host::emitManifest(const ModuleInfo &module,
                                    const std::string &version,
                                    const std::vector<std::string> &files) {
  json::Array kernels;
  for (const KernelInfo &k : module.kernels) {
    json::Array specs;
    std::function<json::Object(const Specialization &)> specJson =
        [&](const Specialization &s) {
          json::Object constants;
          for (const ConstantValue &c : s.constants) {
            if (c.isDType)
              constants[c.name] = scalarKindName(c.dtype);
            else
              constants[c.name] = c.intValue;
          }
          json::Array params, builds, grid;
          for (const ParamInfo &p : s.params)
            params.push_back(paramJson(s, p));
          for (const TargetBuild &b : s.builds)
            builds.push_back(buildJson(b));
          for (const std::string &g : s.grid)
            grid.push_back(g);
          json::Object spec{{"symbol", s.symbol},
                            {"constants", std::move(constants)},
                            {"params", std::move(params)},
                            {"grid", std::move(grid)},
                            {"targets", std::move(builds)}};
          // A candidate of launch_functions only, built where a target chose
          // it.
          if (s.variantOnly)
            spec["variant_only"] = true;
          // kcc --persistent: the build the launch runs instead when the grid
          // has more than ctas_per_sm x multiprocessors tiles.
          if (const Specialization *p = k.persistentBuildOf(s)) {
            json::Array persistentBuilds, notBuilt;
            for (const TargetBuild &b : p->builds)
              persistentBuilds.push_back(buildJson(b));
            json::Object persistent{{"symbol", p->symbol},
                                    {"ctas_per_sm", int64_t(p->persistent)},
                                    {"targets", std::move(persistentBuilds)}};
            // Targets that could not compile it: there (and on every
            // target of the vendor) the launch runs one program per tile.
            for (const auto &[target, why] : p->notBuilt)
              notBuilt.push_back(
                  json::Object{{"target", target}, {"why", why}});
            if (!notBuilt.empty())
              persistent["not_built"] = std::move(notBuilt);
            spec["persistent"] = std::move(persistent);
          }
          // The build the launch runs for tensors outside the tensor contract;
          // `not_built` names the targets that could not compile it (there the
          // launch refuses such tensors, as without one).
          if (const Specialization *f = k.fallbackBuildOf(s)) {
            json::Array fallbackBuilds, notBuilt;
            for (const TargetBuild &b : f->builds)
              fallbackBuilds.push_back(buildJson(b));
            for (const auto &[target, why] : f->notBuilt)
              notBuilt.push_back(
                  json::Object{{"target", target}, {"why", why}});
            json::Object fallback{
                {"symbol", f->symbol},
                {"when",
                 "a tensor's base is not 16-byte aligned or a row stride "
                 "is negative or not a multiple of 16 bytes"},
                {"targets", std::move(fallbackBuilds)}};
            if (!notBuilt.empty())
              fallback["not_built"] = std::move(notBuilt);
            spec["fallback"] = std::move(fallback);
          }
          // kcc --split-k: the build the launch runs when the grid is too
          // small for the GPU (kcc::rt::splitKSlices), for tools that launch
          // kernels themselves: its extra arguments and grid z, its
          // workspace, the sizes' C expressions.
          if (const Specialization *build = k.splitKBuildOf(s)) {
            json::Array notBuilt;
            for (const auto &[target, why] : build->notBuilt)
              notBuilt.push_back(json::Object{
                  {"symbol", build->symbol}, {"target", target}, {"why", why}});
            json::Object split{
                {"build", build->symbol},
                {"arguments",
                 "the kernel's, then kcc_ws (f32, kcc_splits * rows x cols, "
                 "row stride cols rounded up to 4), kcc_ws_dim0, kcc_ws_dim1, "
                 "kcc_ws_stride0, kcc_splits, kcc_tickets (i32, one per "
                 "output tile, zero before the launch and left zero by it); "
                 "the build's grid z is kcc_splits"},
                {"trips", build->splitTrips},
                {"rows", build->splitRows},
                {"cols", build->splitCols},
                {"tiles", build->splitTiles},
                {"store", build->splitStore}};
            if (!notBuilt.empty())
              split["not_built"] = std::move(notBuilt);
            spec["split_k"] = std::move(split);
          }
          // Launch guards from the coverage proof: a launch where `guard` (C
          // over the parameter names) is false leaves `tensor` partly
          // unwritten.
          if (!s.requirements.empty()) {
            json::Array reqs;
            for (const Requirement &r : s.requirements)
              reqs.push_back(json::Object{
                  {"guard", r.expr}, {"when", r.text}, {"at", r.at}});
            spec["requires"] = std::move(reqs);
          }
          if (!s.coverage.empty()) {
            json::Array guards;
            for (const CoverageGuard &g : s.coverage)
              guards.push_back(json::Object{
                  {"tensor", g.tensor}, {"guard", g.expr}, {"when", g.text}});
            spec["coverage_guards"] = std::move(guards);
          }
          // The kernel's `if` the launch decides: the build of its else branch
          // (a spec of its own: its tensor maps, persistent and fallback
          // builds) runs where `guard` is false; this one where it is true.
          // The masked build of masks the launch decides is one too
          // ("masks": true): this build runs without them where `guard`
          // holds.
          if (const Specialization *v = k.versionBuildOf(s)) {
            json::Object branch{{"guard", v->versionGuard.expr},
                                {"when", v->versionGuard.text},
                                {"at", v->versionGuard.at},
                                {"build", specJson(*v)}};
            if (v->versionMasks)
              branch["masks"] = true;
            spec["else_branch"] = std::move(branch);
          }
          return spec;
        };
    for (const Specialization &s : k.specializations)
      specs.push_back(specJson(s));
    json::Array constantNames;
    if (!k.specializations.empty())
      for (const ConstantValue &c : k.specializations.front().constants)
        constantNames.push_back(c.name);
    json::Object kernel{{"name", k.name},
                        {"constants", std::move(constantNames)},
                        {"specializations", std::move(specs)}};
    // Tunable constants: one launch function per clause that left them to
    // the compiler, and its choice per target.
    if (!k.groups.empty()) {
      json::Array groups;
      for (const VariantGroup &g : k.groups) {
        json::Array open, candidates;
        json::Object chosen;
        for (const std::string &o : g.open)
          open.push_back(o);
        for (const std::string &c : g.candidates)
          candidates.push_back(c);
        for (const auto &[target, symbol] : g.chosen)
          chosen[target] = symbol;
        // The candidates each target's launch weighs by the call's sizes.
        json::Object bySize, tuned;
        for (const DispatchTarget &d : g.dispatch) {
          json::Array symbols;
          for (const DispatchCandidate &c : d.candidates)
            symbols.push_back(c.symbol);
          bySize[d.target] = std::move(symbols);
          if (!d.tunedSizes.empty())
            tuned[d.target] = json::Object{
                {"device", d.tunedDevice},
                {"database", d.tunedFrom},
                {"shapes", static_cast<int64_t>(d.tunedSizes.size())}};
        }
        groups.push_back(json::Object{{"name", g.name},
                                      {"chosen_constants", std::move(open)},
                                      {"candidates", std::move(candidates)},
                                      {"chosen", std::move(chosen)},
                                      {"dispatch", std::move(bySize)},
                                      {"tuned", std::move(tuned)}});
      }
      kernel["launch_functions"] = std::move(groups);
    }
    kernels.push_back(std::move(kernel));
  }
  json::Array targets, outputs;
  for (const std::string &t : module.targets)
    targets.push_back(t);
  for (const std::string &f : files)
    outputs.push_back(f);
  json::Value root = json::Object{{"kcc_version", version},
                                  {"source", module.sourcePath},
                                  {"targets", std::move(targets)},
                                  {"fatbin_contents", module.fatbinContents},
                                  {"outputs", std::move(outputs)},
                                  {"kernels", std::move(kernels)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", root) << "\n";
  return text;
}
