//===- TargetModel.cpp - TOML target descriptions ---------------------------===//
#include "targets/TargetModel.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <toml++/toml.h>

using namespace kcc;

namespace {
struct BuiltinModel {
  const char *file;
  const char *text;
};
#include "targets/BuiltinTargets.inc"

llvm::Error errorAt(llvm::StringRef bufferName, const toml::source_region &src,
                    const llvm::Twine &msg) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0}:{1}:{2}: error: {3}", bufferName, src.begin.line,
                    src.begin.column, msg.str())
          .str());
}
} // namespace

llvm::Expected<TargetModel> kcc::parseTargetModel(llvm::StringRef text,
                                                  llvm::StringRef bufferName) {
  toml::parse_result parsed =
      toml::parse(std::string_view(text.data(), text.size()),
                  std::string_view(bufferName.data(), bufferName.size()));
  if (!parsed) {
    const toml::parse_error &err = parsed.error();
    return errorAt(bufferName, err.source(), std::string(err.description()));
  }
  const toml::table &table = parsed.table();
  TargetModel model;

  struct UIntKey {
    const char *key;
    unsigned *field;
    bool required;
  };
  UIntKey uintKeys[] = {
      {"sm", &model.sm, false},
      {"ptx_isa", &model.ptxIsa, false},
      {"warp_size", &model.warpSize, true},
      {"max_threads_per_block", &model.maxThreadsPerBlock, true},
      {"registers_per_thread", &model.registersPerThread, true},
      {"shared_memory_per_block", &model.sharedMemoryPerBlock, true},
      {"shared_memory_banks", &model.sharedMemoryBanks, true},
      {"shared_memory_bank_bytes", &model.sharedMemoryBankBytes, true},
      {"max_vector_bytes", &model.maxVectorBytes, true},
  };
  llvm::StringSet<> known = {"name", "vendor", "description", "arch_suffix"};
  for (const UIntKey &k : uintKeys)
    known.insert(k.key);

  // Unknown keys are errors: a typo must not silently fall back to a default.
  for (const auto &[key, node] : table)
    if (!known.contains(llvm::StringRef(key.data(), key.length())))
      return errorAt(bufferName, key.source(),
                     "unknown key '" + std::string(key.str()) +
                         "' in target model");

  auto getString = [&](const char *key, std::string &out,
                       bool required) -> llvm::Error {
    const toml::node *node = table.get(key);
    if (!node) {
      if (required)
        return errorAt(bufferName, table.source(),
                       llvm::Twine("missing required key '") + key + "'");
      return llvm::Error::success();
    }
    auto value = node->value<std::string>();
    if (!value)
      return errorAt(bufferName, node->source(),
                     llvm::Twine("key '") + key + "' must be a string");
    out = *value;
    return llvm::Error::success();
  };
  if (llvm::Error e = getString("name", model.name, true))
    return std::move(e);
  std::string vendor;
  if (llvm::Error e = getString("vendor", vendor, true))
    return std::move(e);
  if (vendor == "nvidia")
    model.vendor = Vendor::NVIDIA;
  else if (vendor == "amd")
    model.vendor = Vendor::AMD;
  else
    return errorAt(bufferName, table.get("vendor")->source(),
                   "vendor must be \"nvidia\" or \"amd\", got \"" + vendor +
                       "\"");
  if (llvm::Error e = getString("description", model.description, false))
    return std::move(e);
  if (llvm::Error e = getString("arch_suffix", model.archSuffix, false))
    return std::move(e);

  for (const UIntKey &k : uintKeys) {
    const toml::node *node = table.get(k.key);
    if (!node) {
      if (k.required)
        return errorAt(bufferName, table.source(),
                       llvm::Twine("missing required key '") + k.key + "'");
      continue;
    }
    auto value = node->value<int64_t>();
    if (!value || *value < 0 || *value > (int64_t{1} << 31))
      return errorAt(bufferName, node->source(),
                     llvm::Twine("key '") + k.key +
                         "' must be a non-negative integer");
    *k.field = static_cast<unsigned>(*value);
  }
  if (model.vendor == Vendor::NVIDIA && (model.sm == 0 || model.ptxIsa == 0))
    return errorAt(bufferName, table.source(),
                   "an NVIDIA target needs 'sm' and 'ptx_isa'");
  if (model.warpSize != 32 && model.warpSize != 64)
    return errorAt(bufferName, table.get("warp_size")->source(),
                   "warp_size must be 32 or 64");
  return model;
}

const TargetRegistry &TargetRegistry::builtin() {
  static const TargetRegistry registry = [] {
    TargetRegistry r;
    for (const BuiltinModel &m : kBuiltinModels) {
      llvm::Expected<TargetModel> model = parseTargetModel(m.text, m.file);
      // The built-in files are tested; a failure here is a build defect.
      if (!model)
        llvm::report_fatal_error(llvm::toString(model.takeError()).c_str());
      r.models.push_back(std::move(*model));
    }
    return r;
  }();
  return registry;
}

const TargetModel *TargetRegistry::lookup(llvm::StringRef name) const {
  for (const TargetModel &m : models)
    if (m.name == name)
      return &m;
  return nullptr;
}

std::vector<std::string> TargetRegistry::names() const {
  std::vector<std::string> result;
  for (const TargetModel &m : models)
    result.push_back(m.name);
  return result;
}
