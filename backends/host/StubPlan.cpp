//===- StubPlan.cpp - checks and plan of the host launch stubs ------------===//
//
// plan() (StubPlan.h): refuses the modules the stubs cannot express (names
// that are C or C++ keywords or reserved by the stubs, duplicate symbols,
// invalid dtypes, grid expressions and coverage guards that are not C
// expressions over integer parameters, tensor maps the stub cannot encode),
// picks each specialization's builds for the vendor, and decides per kernel
// whether a dispatcher can select a specialization by its constants.
//
//===----------------------------------------------------------------------===//
#include "backends/host/StubPlan.h"

#include "backends/host/StubText.h"
#include "ir/CExpr.h"

#include <algorithm>
#include <functional>
#include <map>

namespace kcc::host::detail {

bool isAmdTarget(const std::string &target) {
  return target.rfind("gfx", 0) == 0;
}

static Dispatcher planDispatcher(const KernelInfo &k) {
  Dispatcher d;
  if (k.specializations.front().constants.empty())
    return d; // nothing to select by: call the typed function
  // The specializations a spec names in full; a tunable group's candidates
  // (variant-only) are the compiler's to choose, through the group's own
  // launch function.
  const Specialization *named = nullptr;
  for (const Specialization &s : k.specializations)
    if (!s.variantOnly) {
      named = &s;
      break;
    }
  if (!named) {
    d.whyNot = "the compiler chooses some of its constants (tunable), per "
               "target; call the launch functions";
    return d;
  }
  const Specialization &first = *named;
  for (const Specialization &s : k.specializations) {
    if (s.variantOnly)
      continue;
    if (s.constants.size() != first.constants.size()) {
      d.whyNot = "its specializations have different constant parameters";
      return d;
    }
    for (size_t i = 0; i < s.constants.size(); ++i) {
      const ConstantValue &a = s.constants[i], &b = first.constants[i];
      if (a.name != b.name || a.isDType != b.isDType ||
          isBoolConstant(a) != isBoolConstant(b)) {
        d.whyNot = "its specializations have different constant parameters";
        return d;
      }
    }
    if (s.params.size() != first.params.size()) {
      d.whyNot = "its specializations have different parameters";
      return d;
    }
    for (size_t i = 0; i < s.params.size(); ++i) {
      const ParamInfo &a = s.params[i], &b = first.params[i];
      if (a.name != b.name || a.isPointer != b.isPointer ||
          a.isTensorMap != b.isTensorMap) {
        d.whyNot = "its specializations have different parameters";
        return d;
      }
      // Tensor maps are not arguments of the dispatcher: each typed function
      // encodes its own.
      if (!a.isPointer && !a.isTensorMap && a.elem != b.elem) {
        d.whyNot = std::string("parameter '") + a.name + "' has type " +
                   scalarKindName(b.elem) + " in " + first.symbol + " but " +
                   scalarKindName(a.elem) + " in " + s.symbol +
                   " (scalars of a dtype constant's type cannot be passed "
                   "untyped); call the typed functions";
        return d;
      }
    }
  }
  for (size_t i = 0; i < first.params.size(); ++i) {
    bool isVoid = false;
    if (first.params[i].isPointer) {
      // void * if the pointee varies, or may be a dtype constant (it equals
      // one in every specialization): keeps the signature stable when
      // specializations are added.
      for (const Specialization &s : k.specializations)
        if (!s.variantOnly && s.params[i].elem != first.params[i].elem)
          isVoid = true;
      for (size_t c = 0; c < first.constants.size() && !isVoid; ++c) {
        if (!first.constants[c].isDType)
          continue;
        bool all = true;
        for (const Specialization &s : k.specializations)
          all = all &&
                (s.variantOnly || s.constants[c].dtype == s.params[i].elem);
        isVoid = all;
      }
    }
    d.pointerIsVoid.push_back(isVoid);
  }
  d.possible = true;
  return d;
}

/// Checks that tensor map `p` of `s` describes a tensor parameter of `s` the
/// stub can encode it from, and that `vendor` has tensor maps at all.
static bool checkTensorMap(const Specialization &s, const ParamInfo &p,
                           const Vendor &vendor, std::string &error) {
  std::string what = "internal error: tensor map parameter '" +
                     commentText(p.name) + "' of " + s.symbol;
  // Maps follow every user parameter: HIP stubs leave them out (AMD images
  // are compiled without them) and CUDA images without TMA ignore them.
  auto own = std::find_if(s.params.begin(), s.params.end(),
                          [&](const ParamInfo &q) { return &q == &p; });
  if (std::any_of(own, s.params.end(),
                  [](const ParamInfo &q) { return !q.isTensorMap; })) {
    error = what + " is followed by a user parameter; tensor maps must come "
                   "after every user parameter";
    return false;
  }
  if (p.tensorBase >= s.params.size()) {
    error = what + " maps parameter #" + std::to_string(p.tensorBase) +
            ", which does not exist";
    return false;
  }
  const ParamInfo &base = s.params[p.tensorBase];
  bool lifted = !p.mapSizes.empty();
  if (base.isPointer && p.elem != base.elem) {
    error = what + " has element type " + scalarKindName(p.elem) + " but " +
            (lifted ? "pointer '" : "tensor '") + commentText(base.name) +
            "' has " + scalarKindName(base.elem);
    return false;
  }
  // A lifted tile of pointers: a pointer and the map's own sizes/strides.
  if (lifted) {
    if (!base.isPointer || base.isTensorMap ||
        p.mapSizes.size() != p.box.size() ||
        p.mapStrides.size() + 1 != p.box.size()) {
      error = what + " maps '" + commentText(base.name) +
              "' with sizes and strides that do not match its box";
      return false;
    }
    return true;
  }
  unsigned rank = base.tensorRank;
  if (!base.isPointer || base.isTensorMap || rank == 0 ||
      p.tensorBase + 2 * rank > s.params.size()) {
    error = what + " maps '" + commentText(base.name) +
            "', which is not the base pointer of a tensor parameter";
    return false;
  }
  for (unsigned i = 1; i < 2 * rank; ++i) {
    const ParamInfo &q = s.params[p.tensorBase + i];
    if (q.isPointer || q.isTensorMap || !isIntegerKind(q.elem)) {
      error = what + ": size or stride '" + commentText(q.name) +
              "' of tensor '" + commentText(base.name) +
              "' is not an integer parameter";
      return false;
    }
  }
  if (p.box.size() != rank) {
    error = what + " has a box of rank " + std::to_string(p.box.size()) +
            " but tensor '" + commentText(base.name) + "' has rank " +
            std::to_string(rank);
    return false;
  }
  for (int64_t b : p.box)
    if (b < 1 || b > 256) {
      error = what + " has box side " + std::to_string(b) +
              ", outside TMA's 1..256";
      return false;
    }
  if (p.swizzle != 0 && p.swizzle != 32 && p.swizzle != 64 &&
      p.swizzle != 128) {
    error = what + " has swizzle " + std::to_string(p.swizzle) +
            ", not 0, 32, 64 or 128 bytes";
    return false;
  }
  return true;
}

bool plan(const ModuleInfo &m, const Vendor &vendor,
          std::vector<KernelPlan> &plans, std::string &error,
          std::string &culpritKernel, std::string &culpritName) {
  // Every name introduced into the module's namespace, and who made it.
  std::map<std::string, std::string> symbols;
  auto claim = [&](const std::string &name, const std::string &what) {
    auto [it, inserted] = symbols.emplace(name, what);
    if (!inserted) {
      error = "duplicate symbol '" + name + "' (" + it->second + " and " +
              what + ")";
      return false;
    }
    return true;
  };
  auto checkName = [&](const std::string &name, const std::string &what,
                       const std::string &kernel) {
    std::string problem = nameProblem(name);
    if (problem.empty())
      return true;
    culpritKernel = kernel.empty() ? name : kernel;
    culpritName = name;
    error = what + " '" + commentText(name) + "'" +
            (kernel.empty() ? "" : " of kernel '" + commentText(kernel) + "'") +
            " " + problem +
            "; rename it (the launch stubs use it as a C++ name)";
    return false;
  };

  // The builds of `s` for this vendor's targets, in target order.
  auto vendorBuilds = [&](const Specialization &s) {
    std::vector<const TargetBuild *> builds;
    for (const TargetBuild &b : s.builds)
      if (isAmdTarget(b.target) == vendor.amd)
        builds.push_back(&b);
    return builds;
  };
  for (const KernelInfo &k : m.kernels) {
    if (!checkName(k.name, "kernel", ""))
      return false;
    if (k.specializations.empty()) {
      error = "kernel '" + k.name + "' has no specializations";
      return false;
    }
    KernelPlan kp;
    kp.kernel = &k;
    // Plans `s` into kp.specs (a fallback build: its internal launch
    // function, which the launch of the build it stands in for calls).
    enum class Planned { Done, Skipped, Failed };
    auto planSpec = [&](const Specialization &s) -> Planned {
      // A fallback build's name (<symbol>__fallback) is kcc's, never a
      // user's: no C++ name of the user's namespace.
      bool internal =
          !s.fallbackOf.empty() || !s.versionOf.empty() || !s.splitKOf.empty();
      if (!internal && !checkName(s.symbol, "kernel function", k.name))
        return Planned::Failed;
      if (s.symbol == "last_error_message" || s.symbol == "status_code") {
        error = "kernel function '" + s.symbol + "' would be named kcc_" +
                s.symbol + " in C, which the runtime defines; rename it";
        return Planned::Failed;
      }
      std::vector<const TargetBuild *> builds = vendorBuilds(s);
      // A candidate none of the vendor's targets chose is not in its image.
      if (s.variantOnly && builds.empty())
        return Planned::Skipped;
      if (!s.variantOnly && !internal &&
          !claim(s.symbol, "kernel function of " + k.name))
        return Planned::Failed;
      if (builds.empty()) {
        error = "kernel function '" + s.symbol + "' has no " +
                (s.builds.empty() ? ""
                 : vendor.amd     ? "AMD (gfx) "
                                  : "NVIDIA ") +
                "target builds";
        return Planned::Failed;
      }
      std::set<std::string> names;
      for (const ConstantValue &c : s.constants) {
        if (!checkName(c.name, "constant parameter", k.name))
          return Planned::Failed;
        if (c.isDType && !validKind(c.dtype)) {
          error = "constant '" + c.name + "' of " + s.symbol +
                  " has an invalid dtype";
          return Planned::Failed;
        }
        if (!names.insert(c.name).second) {
          error = "kernel '" + k.name + "' has two constants named '" + c.name +
                  "'";
          return Planned::Failed;
        }
      }
      names.clear();
      for (const ParamInfo &p : s.params) {
        if (p.isTensorMap) {
          if (!checkTensorMap(s, p, vendor, error)) {
            culpritKernel = k.name;
            culpritName = p.name;
            return Planned::Failed;
          }
          if (!names.insert(p.name).second) {
            error = "kernel '" + k.name + "' has two parameters named '" +
                    p.name + "'";
            return Planned::Failed;
          }
          continue; // not a C++ name: the stubs encode it, users never see it
        }
        // A split-K build's own parameters (kcc_ws, kcc_splits) are kcc's.
        bool kccs = !s.splitKOf.empty() && p.name.rfind("kcc_", 0) == 0;
        if (!kccs && !checkName(p.name, "parameter", k.name))
          return Planned::Failed;
        if (!validKind(p.elem)) {
          error = "parameter '" + p.name + "' of " + s.symbol +
                  " has an invalid type";
          return Planned::Failed;
        }
        if (!names.insert(p.name).second) {
          error = "kernel '" + k.name + "' has two parameters named '" +
                  p.name + "'";
          return Planned::Failed;
        }
      }
      SpecPlan sp;
      sp.spec = &s;
      sp.launchable = !s.variantOnly && !internal;
      sp.builds = std::move(builds);
      // A target that could not compile the persistent build dropped it
      // (Specialization::notBuilt): then every target of the vendor runs
      // one program per tile, as without --persistent.
      if (const Specialization *p = k.persistentBuildOf(s)) {
        std::vector<const TargetBuild *> pb = vendorBuilds(*p);
        if (pb.size() == sp.builds.size()) {
          sp.persistent.spec = p;
          sp.persistent.builds = std::move(pb);
        }
      }
      std::set<std::string> used;
      for (const std::string &e : s.grid)
        if (!scanGrid(e, s, used, error))
          return Planned::Failed;
      for (const ParamInfo &p : s.params)
        if (used.count(p.name))
          sp.gridParams.push_back(p.name);
      if (used.count(kMultiprocessorsName)) {
        sp.gridParams.push_back(kMultiprocessorsName);
        sp.usesProcessors = true;
      }
      // The integer params a launch guard reads, in declaration order.
      auto guardUses = [&](const std::string &expr,
                           std::vector<std::vector<std::string>> &out) {
        std::set<std::string> uses;
        if (!scanGrid(expr, s, uses, error))
          return false;
        out.emplace_back();
        for (const ParamInfo &p : s.params)
          if (uses.count(p.name))
            out.back().push_back(p.name);
        if (uses.count(kMultiprocessorsName)) {
          out.back().push_back(kMultiprocessorsName);
          sp.usesProcessors = true;
        }
        return true;
      };
      for (const CoverageGuard &g : s.coverage)
        if (!guardUses(g.expr, sp.guardParams))
          return Planned::Failed;
      for (const Requirement &r : s.requirements)
        if (!guardUses(r.expr, sp.requireParams))
          return Planned::Failed;
      if (const Specialization *v = k.versionBuildOf(s)) {
        std::vector<std::vector<std::string>> uses;
        if (!guardUses(v->versionGuard.expr, uses))
          return Planned::Failed;
        sp.version = v;
        sp.versionParams = std::move(uses.front());
      }
      kp.specs.push_back(std::move(sp));
      return Planned::Done;
    };
    // Plans `s` after its fallback build: the launch that may run it is
    // emitted after it. It is used only where every target of the vendor
    // built it.
    // Whether `build` was built for every target of the vendor that built
    // `s` (a target that could not compile it dropped it).
    auto builtWith = [&](const Specialization *build, const Specialization &s) {
      if (!build)
        return false;
      std::vector<const TargetBuild *> bb = vendorBuilds(*build),
                                       sb = vendorBuilds(s);
      return !sb.empty() && bb.size() == sb.size() &&
             std::equal(bb.begin(), bb.end(), sb.begin(),
                        [](const TargetBuild *a, const TargetBuild *b) {
                          return a->target == b->target;
                        });
    };
    auto planWithFallback = [&](const Specialization &s) {
      const Specialization *f = k.fallbackBuildOf(s);
      bool useFallback = builtWith(f, s);
      if (useFallback && planSpec(*f) == Planned::Failed)
        return false;
      const Specialization *split = k.splitKBuildOf(s);
      bool useSplit = builtWith(split, s);
      if (useSplit && planSpec(*split) == Planned::Failed)
        return false;
      Planned planned = planSpec(s);
      if (planned == Planned::Failed)
        return false;
      if (planned == Planned::Done && useFallback)
        kp.specs.back().fallback = f;
      if (planned == Planned::Done && useSplit) {
        SpecPlan &sp = kp.specs.back();
        std::set<std::string> used;
        for (const std::string *e : {&split->splitTrips, &split->splitRows,
                                     &split->splitCols, &split->splitTiles})
          if (!scanGrid(*e, s, used, error))
            return false;
        for (const ParamInfo &p : s.params)
          if (used.count(p.name))
            sp.splitParams.push_back(p.name);
        sp.splitBuild = split;
      }
      return true;
    };
    // The else-branch build first, for the same reason (down a chain of
    // version builds, the last first).
    std::function<bool(const Specialization &, unsigned)> planChain =
        [&](const Specialization &s, unsigned depth) {
          // A candidate none of the vendor's targets chose: nor its builds.
          if (s.variantOnly && vendorBuilds(s).empty())
            return true;
          const Specialization *v = k.versionBuildOf(s);
          if (v && depth < 8 && !planChain(*v, depth + 1))
            return false;
          return planWithFallback(s);
        };
    for (const Specialization &s : k.specializations)
      if (!planChain(s, 0))
        return false;
    for (const VariantGroup &g : k.groups) {
      if (!checkName(g.name, "launch function", k.name) ||
          !claim(g.name, "launch function of " + k.name))
        return false;
      GroupPlan gp;
      gp.group = &g;
      auto add = [&](const std::string &target, const std::string &symbol,
                     size_t &index) {
        auto it = std::find_if(
            kp.specs.begin(), kp.specs.end(),
            [&](const SpecPlan &sp) { return sp.spec->symbol == symbol; });
        if (it == kp.specs.end()) {
          error = "launch function '" + g.name + "' chose '" + symbol +
                  "' on " + target + ", which was not compiled there";
          return false;
        }
        index = it - kp.specs.begin();
        if (std::find(gp.variants.begin(), gp.variants.end(), index) ==
            gp.variants.end())
          gp.variants.push_back(index);
        return true;
      };
      for (const auto &choice : g.chosen) {
        size_t index;
        if (isAmdTarget(choice.first) == vendor.amd &&
            !add(choice.first, choice.second, index))
          return false;
      }
      bool weighs = false;
      for (const DispatchTarget &d : g.dispatch) {
        if (isAmdTarget(d.target) != vendor.amd)
          continue;
        std::vector<size_t> indices;
        for (const DispatchCandidate &c : d.candidates) {
          size_t index;
          if (!add(d.target, c.symbol, index))
            return false;
          indices.push_back(index);
        }
        weighs = weighs || indices.size() > 1;
        gp.targets.push_back({&d, std::move(indices)});
      }
      if (!weighs)
        gp.targets.clear();
      if (gp.variants.empty())
        continue; // no target of this vendor
      // One signature serves every candidate, whichever a target chose.
      auto specOf = [&](const std::string &symbol) {
        return &*std::find_if(
            k.specializations.begin(), k.specializations.end(),
            [&](const Specialization &s) { return s.symbol == symbol; });
      };
      const Specialization &first = *specOf(g.candidates.front());
      for (const std::string &candidate : g.candidates) {
        const Specialization &s = *specOf(candidate);
        bool same = s.params.size() == first.params.size();
        for (size_t i = 0; same && i < s.params.size(); ++i) {
          const ParamInfo &a = s.params[i], &b = first.params[i];
          same = a.isTensorMap == b.isTensorMap &&
                 (a.isTensorMap ||
                  (a.name == b.name && a.isPointer == b.isPointer &&
                   a.elem == b.elem && a.align == b.align &&
                   a.divisibility == b.divisibility &&
                   a.tensorRank == b.tensorRank));
        }
        if (!same) {
          error = "launch function '" + g.name + "' runs " + first.symbol +
                  " or " + s.symbol +
                  ", whose parameters differ (a tunable constant changes "
                  "a parameter's type or facts); bind it in the "
                  "specialize clause";
          culpritKernel = k.name;
          return false;
        }
      }
      kp.groups.push_back(std::move(gp));
    }
    kp.dispatcher = planDispatcher(k);
    plans.push_back(std::move(kp));
  }
  // Dispatchers overload their typed function when a kernel has a single
  // specialization (same name); otherwise they and the spec structs must be
  // new names.
  for (const KernelPlan &kp : plans) {
    if (!kp.dispatcher.possible)
      continue;
    const std::string &name = kp.kernel->name;
    bool overloadsOwn = kp.kernel->specializations.size() == 1 &&
                        kp.kernel->specializations[0].symbol == name;
    if (!overloadsOwn && !claim(name, "dispatcher of " + name))
      return false;
    if (!claim(name + "_spec", "spec struct of " + name))
      return false;
  }
  return true;
}

} // namespace kcc::host::detail
