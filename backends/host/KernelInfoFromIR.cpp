//===- KernelInfoFromIR.cpp - host-side kernel info from the tile IR ------===//
#include "backends/host/KernelInfoFromIR.h"

#include "ir/Dialect.h"

#include <optional>

using namespace kcc;
using namespace kcc::host;

static std::optional<ScalarKind> scalarKindOf(mlir::Type type) {
  if (type.isInteger(1))
    return ScalarKind::I1;
  if (type.isInteger(8))
    return ScalarKind::I8;
  if (type.isInteger(16))
    return ScalarKind::I16;
  if (type.isInteger(32))
    return ScalarKind::I32;
  if (type.isInteger(64))
    return ScalarKind::I64;
  if (type.isF16())
    return ScalarKind::F16;
  if (type.isBF16())
    return ScalarKind::BF16;
  if (type.isF32())
    return ScalarKind::F32;
  if (type.isF64())
    return ScalarKind::F64;
  if (mlir::isa<mlir::Float8E4M3FNType>(type))
    return ScalarKind::F8E4M3;
  if (mlir::isa<mlir::Float8E5M2Type>(type))
    return ScalarKind::F8E5M2;
  if (mlir::isa<mlir::Float8E4M3FNUZType>(type))
    return ScalarKind::F8E4M3FNUZ;
  if (mlir::isa<mlir::Float8E5M2FNUZType>(type))
    return ScalarKind::F8E5M2FNUZ;
  return std::nullopt;
}

/// Whether `a` and `b` take the same arguments and grid (what a launch
/// passes either).
static bool sameLaunch(const Specialization &a, const Specialization &b) {
  if (a.grid != b.grid || a.params.size() != b.params.size() ||
      a.coverage.size() != b.coverage.size())
    return false;
  for (auto [x, y] : llvm::zip(a.params, b.params))
    if (x.name != y.name || x.elem != y.elem || x.isPointer != y.isPointer ||
        x.isTensorMap != y.isTensorMap || x.tensorBase != y.tensorBase ||
        x.box != y.box || x.swizzle != y.swizzle || x.align != y.align ||
        x.mapSizes != y.mapSizes || x.mapStrides != y.mapStrides ||
        x.divisibility != y.divisibility || x.tensorRank != y.tensorRank)
      return false;
  for (auto [x, y] : llvm::zip(a.coverage, b.coverage))
    if (x.expr != y.expr)
      return false;
  if (a.requirements.size() != b.requirements.size())
    return false;
  for (auto [x, y] : llvm::zip(a.requirements, b.requirements))
    if (x.expr != y.expr)
      return false;
  return true;
}

/// What the host side needs of each kernel, read off the tile IR's
/// attributes (the frontend's contract: see ir/KccDialect.td).
bool host::collectKernelInfo(mlir::ModuleOp tileIR, ModuleInfo &info) {
  for (auto func : tileIR.getOps<mlir::func::FuncOp>()) {
    if (!func->hasAttr(KccDialect::kKernelAttr))
      continue;
    Specialization spec;
    spec.symbol = func.getSymName().str();
    auto names =
        func->getAttrOfType<mlir::ArrayAttr>(KccDialect::kArgNamesAttr);
    auto grid = func->getAttrOfType<mlir::ArrayAttr>(KccDialect::kGridAttr);
    auto values = func->getAttrOfType<mlir::DictionaryAttr>(
        KccDialect::kSpecializationAttr);
    auto order =
        func->getAttrOfType<mlir::ArrayAttr>(KccDialect::kConstantNamesAttr);
    auto baseName =
        func->getAttrOfType<mlir::StringAttr>(KccDialect::kBaseNameAttr);
    if (!names || !grid || !values || !order || !baseName ||
        names.size() != func.getNumArguments()) {
      func.emitError("internal error: kernel lacks the frontend's attributes");
      return false;
    }
    for (auto [i, g] : llvm::enumerate(grid))
      spec.grid[i] = mlir::cast<mlir::StringAttr>(g).str();
    if (auto p =
            func->getAttrOfType<mlir::IntegerAttr>(KccDialect::kPersistentAttr))
      spec.persistent = unsigned(p.getInt());
    if (auto cov =
            func->getAttrOfType<mlir::ArrayAttr>(KccDialect::kCoverageAttr))
      for (auto entry : cov.getAsRange<mlir::DictionaryAttr>())
        if (auto guard = entry.getAs<mlir::StringAttr>("guard"))
          spec.coverage.push_back(
              {entry.getAs<mlir::StringAttr>("tensor").str(), guard.str(),
               entry.getAs<mlir::StringAttr>("when").str()});
    if (auto reqs =
            func->getAttrOfType<mlir::ArrayAttr>(KccDialect::kRequiresAttr))
      for (auto entry : reqs.getAsRange<mlir::DictionaryAttr>())
        spec.requirements.push_back(
            {entry.getAs<mlir::StringAttr>("guard").str(),
             entry.getAs<mlir::StringAttr>("when").str(),
             entry.getAs<mlir::StringAttr>("at").str()});
    for (mlir::Attribute nameAttr : order) {
      ConstantValue c;
      c.name = mlir::cast<mlir::StringAttr>(nameAttr).str();
      mlir::Attribute v = values.get(c.name);
      if (auto t = mlir::dyn_cast_or_null<mlir::TypeAttr>(v)) {
        c.isDType = true;
        c.dtype = *scalarKindOf(t.getValue());
        c.text = scalarKindName(c.dtype);
      } else if (auto b = mlir::dyn_cast_or_null<mlir::BoolAttr>(v)) {
        c.intValue = b.getValue();
        c.text = b.getValue() ? "true" : "false";
      } else if (auto n = mlir::dyn_cast_or_null<mlir::IntegerAttr>(v)) {
        c.intValue = n.getInt();
        c.text = std::to_string(c.intValue);
      }
      spec.constants.push_back(std::move(c));
    }
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      ParamInfo p;
      p.name = mlir::cast<mlir::StringAttr>(names[i]).str();
      mlir::Type type = func.getArgument(i).getType();
      if (auto ptr = mlir::dyn_cast<PtrType>(type)) {
        p.isPointer = true;
        type = ptr.getPointeeType();
        if (auto r = func.getArgAttrOfType<mlir::IntegerAttr>(
                i, KccDialect::kTensorRankAttr))
          p.tensorRank = r.getInt();
      } else if (auto map = mlir::dyn_cast<TensorMapType>(type)) {
        auto of = func.getArgAttrOfType<mlir::IntegerAttr>(
            i, KccDialect::kTensorMapOfAttr);
        if (!of) {
          func.emitError("internal error: tensor map argument '")
              << p.name << "' lacks " << KccDialect::kTensorMapOfAttr;
          return false;
        }
        p.isTensorMap = true;
        p.tensorBase = of.getInt();
        if (auto shape = func.getArgAttrOfType<mlir::ArrayAttr>(
                i, KccDialect::kTensorMapShapeAttr)) {
          size_t rank = map.getBox().size();
          for (auto [d, a] : llvm::enumerate(shape)) {
            auto n = mlir::cast<mlir::IntegerAttr>(a);
            std::string expr =
                n.getType().isIndex()
                    ? mlir::cast<mlir::StringAttr>(names[n.getInt()]).str()
                    : std::to_string(n.getInt());
            (d < rank ? p.mapSizes : p.mapStrides).push_back(expr);
          }
        }
        p.box.assign(map.getBox().begin(), map.getBox().end());
        p.swizzle = map.getSwizzle();
        type = map.getElementType();
      }
      std::optional<ScalarKind> kind = scalarKindOf(type);
      if (!kind) {
        func.emitError("internal error: unsupported parameter type ") << type;
        return false;
      }
      p.elem = *kind;
      if (auto a = func.getArgAttrOfType<mlir::IntegerAttr>(
              i, KccDialect::kAlignAttr))
        p.align = a.getInt();
      if (auto d = func.getArgAttrOfType<mlir::IntegerAttr>(
              i, KccDialect::kDivisibilityAttr))
        p.divisibility = d.getInt();
      spec.params.push_back(std::move(p));
    }
    auto it = llvm::find_if(info.kernels, [&](const KernelInfo &k) {
      return k.name == baseName.getValue();
    });
    if (it == info.kernels.end()) {
      KernelInfo k;
      k.name = baseName.str();
      info.kernels.push_back(std::move(k));
      it = std::prev(info.kernels.end());
    }
    spec.variantOnly = func->hasAttr(KccDialect::kVariantOnlyAttr);
    if (auto groups = func->getAttrOfType<mlir::DictionaryAttr>(
            KccDialect::kVariantOfAttr);
        groups && !func->hasAttr(KccDialect::kPersistentOfAttr) &&
        !func->hasAttr(KccDialect::kFallbackOfAttr))
      for (mlir::NamedAttribute g : groups) {
        auto group = llvm::find_if(it->groups, [&](const VariantGroup &v) {
          return v.name == g.getName().getValue();
        });
        if (group == it->groups.end()) {
          VariantGroup v;
          v.name = g.getName().getValue().str();
          for (auto open : mlir::cast<mlir::ArrayAttr>(g.getValue())
                               .getAsValueRange<mlir::StringAttr>())
            v.open.push_back(open.str());
          it->groups.push_back(std::move(v));
          group = std::prev(it->groups.end());
        }
        group->candidates.push_back(spec.symbol);
      }
    if (auto of = func->getAttrOfType<mlir::FlatSymbolRefAttr>(
            KccDialect::kPersistentOfAttr)) {
      spec.persistentOf = of.getValue().str();
      it->persistentBuilds.push_back(std::move(spec));
    } else if (auto fb = func->getAttrOfType<mlir::FlatSymbolRefAttr>(
                   KccDialect::kFallbackOfAttr)) {
      spec.fallbackOf = fb.getValue().str();
      it->fallbackBuilds.push_back(std::move(spec));
    } else if (auto sk = func->getAttrOfType<mlir::FlatSymbolRefAttr>(
                   KccDialect::kSplitKOfAttr)) {
      auto split =
          func->getAttrOfType<mlir::DictionaryAttr>(KccDialect::kSplitKAttr);
      auto text = [&](llvm::StringRef key) {
        auto v = split ? split.getAs<mlir::StringAttr>(key) : nullptr;
        return v ? v.str() : std::string();
      };
      spec.splitKOf = sk.getValue().str();
      spec.splitTrips = text("trips");
      spec.splitRows = text("rows");
      spec.splitCols = text("cols");
      spec.splitTiles = text("tiles");
      spec.splitStore = text("store");
      if (!split || spec.splitTrips.empty() || spec.splitRows.empty() ||
          spec.splitCols.empty() || spec.splitTiles.empty() ||
          spec.splitStore.empty()) {
        func.emitError("internal error: split-K build lacks ")
            << KccDialect::kSplitKAttr;
        return false;
      }
      it->splitKBuilds.push_back(std::move(spec));
    } else if (auto vo = func->getAttrOfType<mlir::FlatSymbolRefAttr>(
                   KccDialect::kVersionOfAttr)) {
      auto guard = func->getAttrOfType<mlir::DictionaryAttr>(
          KccDialect::kVersionGuardAttr);
      if (!guard) {
        func.emitError("internal error: else-branch build lacks ")
            << KccDialect::kVersionGuardAttr;
        return false;
      }
      spec.versionOf = vo.getValue().str();
      spec.versionGuard = {guard.getAs<mlir::StringAttr>("guard").str(),
                           guard.getAs<mlir::StringAttr>("when").str(),
                           guard.getAs<mlir::StringAttr>("at").str()};
      spec.versionMasks = bool(guard.get("masks"));
      it->versionBuilds.push_back(std::move(spec));
    } else {
      it->specializations.push_back(std::move(spec));
    }
  }
  // The launch of a specialization may run its persistent build instead,
  // with the same arguments (tensor maps included) and grid.
  for (KernelInfo &k : info.kernels)
    for (const Specialization &p : k.persistentBuilds) {
      const Specialization *plain = k.launchedBuild(p.persistentOf);
      if (!plain || !sameLaunch(*plain, p)) {
        tileIR.emitError("internal error: persistent build @")
            << p.symbol << " does not launch like @" << p.persistentOf;
        return false;
      }
    }
  // An else-branch build stands in for a specialization of its kernel, with
  // the same user parameters (its tensor maps are its own) and grid.
  for (KernelInfo &k : info.kernels)
    for (const Specialization &v : k.versionBuilds) {
      // The build it stands in for: a specialization, or another version
      // build (a chain: kcc-version-full-launches' ragged build takes the
      // launches of the kernel's then branch whose masks are not all on).
      const Specialization *plain = k.launchedBuild(v.versionOf);
      auto userParams = [](const Specialization &s) {
        std::vector<std::pair<std::string, bool>> out;
        for (const ParamInfo &p : s.params)
          if (!p.isTensorMap)
            out.push_back({p.name, p.isPointer});
        return out;
      };
      if (!plain || plain->grid != v.grid ||
          userParams(*plain) != userParams(v)) {
        tileIR.emitError("internal error: else-branch build @")
            << v.symbol << " does not launch like @" << v.versionOf;
        return false;
      }
    }
  // A fallback build stands in for a specialization of its kernel.
  for (KernelInfo &k : info.kernels)
    for (const Specialization &f : k.fallbackBuilds)
      if (!k.launchedBuild(f.fallbackOf)) {
        tileIR.emitError("internal error: fallback build @")
            << f.symbol << " stands in for @" << f.fallbackOf
            << ", which is not a specialization of its kernel";
        return false;
      }
  return true;
}

/// Where the stub emitter's complaint about `name` in kernel `kernel` points:
/// the parameter's declaration, else the kernel, else the file.
mlir::Location host::stubErrorLoc(mlir::ModuleOp tileIR, llvm::StringRef kernel,
                                  llvm::StringRef name) {
  for (auto func : tileIR.getOps<mlir::func::FuncOp>()) {
    auto base =
        func->getAttrOfType<mlir::StringAttr>(KccDialect::kBaseNameAttr);
    if (!base || base.getValue() != kernel)
      continue;
    if (auto names =
            func->getAttrOfType<mlir::ArrayAttr>(KccDialect::kArgNamesAttr))
      for (auto [i, n] : llvm::enumerate(names))
        if (mlir::cast<mlir::StringAttr>(n).getValue() == name)
          return func.getArgument(i).getLoc();
    return func.getLoc();
  }
  return tileIR.getLoc();
}

std::vector<Specialization *> host::allSpecializations(ModuleInfo &info) {
  std::vector<Specialization *> all;
  for (KernelInfo &k : info.kernels) {
    for (Specialization &s : k.specializations)
      all.push_back(&s);
    for (Specialization &s : k.persistentBuilds)
      all.push_back(&s);
    for (Specialization &s : k.fallbackBuilds)
      all.push_back(&s);
    for (Specialization &s : k.versionBuilds)
      all.push_back(&s);
    for (Specialization &s : k.splitKBuilds)
      all.push_back(&s);
  }
  return all;
}

Specialization *host::findSpecialization(ModuleInfo &info,
                                         llvm::StringRef symbol) {
  for (Specialization *s : allSpecializations(info))
    if (s->symbol == symbol)
      return s;
  return nullptr;
}
