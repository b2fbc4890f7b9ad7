//===- TuningDb.cpp - tuning databases of measured tile choices -----------===//

#include "tools/kcc/TuningDb.h"
#include "tools/kcc/Driver.h"
#include "tools/kcc/JsonNesting.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace kcc;
using namespace kcc::driver;
namespace json = llvm::json;

namespace {

llvm::Error failure(llvm::StringRef path, const llvm::Twine &what) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      path + ": not a kcc tuning database: " + what +
          " (the generated tuner, <stem>.tune.cpp, writes them)");
}

} // namespace

llvm::Expected<TuningDb> kcc::driver::readTuningDb(llvm::StringRef path) {
  // Bounded and read in chunks (a device file that never ends is refused):
  // the tuner writes a few hundred bytes per shape.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readBoundedInput(path, error, 64u << 20);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   error + " (--tuning-db)");
  // A database nests four deep (tools/kcc/JsonNesting.h says why).
  if (jsonNesting(buffer->getBuffer()) > 32)
    return failure(path, "nested more than 32 deep");
  json::Value value = nullptr;
  if (llvm::Expected<json::Value> parsed = json::parse(buffer->getBuffer()))
    value = std::move(*parsed);
  else
    return failure(path, llvm::toString(parsed.takeError()));
  TuningDb db;
  db.path = path.str();
  const json::Object *top = value.getAsObject();
  if (!top)
    return failure(path, "the top level is not an object");
  std::optional<int64_t> version = top->getInteger("kcc_tuning_db");
  if (!version)
    return failure(path, "no \"kcc_tuning_db\" version number");
  if (*version != kTuningDbVersion)
    return failure(path, llvm::formatv("version {0}; this kcc reads version "
                                       "{1}: tune again",
                                       *version, kTuningDbVersion)
                             .str());
  std::optional<llvm::StringRef> target = top->getString("target");
  std::optional<llvm::StringRef> device = top->getString("device");
  const json::Array *shapes = top->getArray("shapes");
  if (!target || !device || !shapes)
    return failure(path, "it needs \"target\", \"device\" and \"shapes\"");
  db.target = target->str();
  db.device = device->str();
  for (size_t i = 0; i < shapes->size(); ++i) {
    const json::Object *shape = (*shapes)[i].getAsObject();
    std::optional<llvm::StringRef> launch =
        shape ? shape->getString("launch") : std::nullopt;
    std::optional<llvm::StringRef> best =
        shape ? shape->getString("best") : std::nullopt;
    const json::Object *sizes = shape ? shape->getObject("sizes") : nullptr;
    if (!launch || !best || !sizes)
      return failure(path, llvm::formatv("shape {0} needs \"launch\", "
                                         "\"sizes\" and \"best\"",
                                         i)
                               .str());
    TunedShape t;
    t.launch = launch->str();
    t.best = best->str();
    t.index = i;
    for (const auto &[name, v] : *sizes) {
      std::optional<int64_t> n = v.getAsInteger();
      if (!n)
        return failure(path, llvm::formatv("shape {0}: size \"{1}\" is not "
                                           "an integer",
                                           i, name.str())
                                 .str());
      t.sizes.push_back({name.str(), *n});
    }
    std::sort(t.sizes.begin(), t.sizes.end());
    db.shapes.push_back(std::move(t));
  }
  return db;
}

std::vector<std::string> kcc::driver::applyTuningDb(const TuningDb &db,
                                                    host::ModuleInfo &info) {
  std::vector<std::string> warnings;
  auto warn = [&](const TunedShape *shape, const llvm::Twine &what) {
    warnings.push_back((shape ? llvm::formatv("{0}: shape {1} ({2}): ", db.path,
                                              shape->index, shape->launch)
                                    .str()
                              : db.path + ": ") +
                       what.str() + "; ignored (the cost model chooses there)");
  };
  if (std::find(info.targets.begin(), info.targets.end(), db.target) ==
      info.targets.end()) {
    warn(nullptr, "tuned for " + db.target +
                      ", which this compile does not "
                      "target");
    return warnings;
  }
  for (const TunedShape &shape : db.shapes) {
    host::VariantGroup *group = host::findVariantGroup(info, shape.launch);
    if (!group) {
      warn(&shape, "no launch function of that name");
      continue;
    }
    auto d = std::find_if(
        group->dispatch.begin(), group->dispatch.end(),
        [&](const host::DispatchTarget &t) { return t.target == db.target; });
    if (d == group->dispatch.end() || d->candidates.size() < 2) {
      warn(&shape, "the launch function keeps one candidate on " + db.target);
      continue;
    }
    auto pick = std::find_if(d->candidates.begin(), d->candidates.end(),
                             [&](const host::DispatchCandidate &c) {
                               return c.symbol == shape.best;
                             });
    if (pick == d->candidates.end()) {
      warn(&shape, "its best candidate '" + shape.best +
                       "' is not one the launch keeps on " + db.target);
      continue;
    }
    // The key: the launch's integer parameters, by name.
    std::vector<std::string> params;
    for (const host::KernelInfo &k : info.kernels)
      for (const host::Specialization &s : k.specializations)
        if (s.symbol == d->candidates.front().symbol)
          for (const host::ParamInfo &p : s.params)
            if (!p.isPointer && !p.isTensorMap && host::isIntegerKind(p.elem))
              params.push_back(p.name);
    std::vector<std::string> sorted = params, given;
    std::sort(sorted.begin(), sorted.end());
    for (const auto &[name, v] : shape.sizes)
      given.push_back(name);
    if (sorted != given) {
      warn(&shape, "its sizes are not the launch function's integer "
                   "parameters (" +
                       llvm::join(params, ", ") + ")");
      continue;
    }
    if (!d->tunedDevice.empty() && d->tunedDevice != db.device) {
      warn(nullptr, "a second device (" + db.device + ") for " + db.target +
                        "; the stubs take one per target (" + d->tunedDevice +
                        ")");
      return warnings;
    }
    d->tunedDevice = db.device;
    d->tunedFrom = db.path;
    d->tunedParams = params;
    std::vector<int64_t> values;
    for (const std::string &p : params)
      values.push_back(
          std::find_if(shape.sizes.begin(), shape.sizes.end(),
                       [&](const auto &kv) { return kv.first == p; })
              ->second);
    d->tunedSizes.push_back(std::move(values));
    d->tunedPicks.push_back(static_cast<int>(pick - d->candidates.begin()));
  }
  return warnings;
}
