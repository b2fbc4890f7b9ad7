//===- TargetModel.cpp - TOML target descriptions
//---------------------------===//
#include "targets/TargetModel.h"
#include "ir/MessageText.h"
#include "targets/LaneExchange.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

// toml++ 3.3 (Debian 12's) states what its callers checked with
// TOML_ASSERT_ASSUME: an assert, or with NDEBUG __builtin_assume. Several do
// not hold for malformed documents that its own code goes on to report as
// errors (`[@]`, `a = [}]`, `t = 1979-05-27Tx`), so they abort with
// assertions on and are undefined behavior without. Make them no-ops; the
// checks that follow report the error (the fuzzer runs this under ASan).
#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_ASSERT(expr) static_assert(true)
#include <toml++/toml.h>
#pragma pop_macro("NDEBUG")

using namespace kcc;

namespace {
struct BuiltinModel {
  const char *file;
  const char *text;
};
#include "targets/BuiltinTargets.inc"

llvm::Error errorAt(llvm::StringRef bufferName, const toml::source_region &src,
                    const llvm::Twine &msg) {
  // The root table has no position; point at the top of the file.
  unsigned line = src.begin.line ? src.begin.line : 1;
  unsigned column = src.begin.line ? src.begin.column : 1;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv("{0}:{1}:{2}: error: {3}",
                                               bufferName, line, column,
                                               msg.str())
                                     .str());
}

/// Reads one TOML table against a fixed set of keys. Unknown keys are errors:
/// a typo must not silently fall back to a default.
class TableReader {
public:
  /// With `overlay`, the table changes an inherited model: nothing is
  /// required.
  TableReader(const toml::table &table, llvm::StringRef bufferName,
              std::string path, bool overlay)
      : table(table), bufferName(bufferName), path(std::move(path)),
        overlay(overlay) {}

  llvm::Error uint(const char *key, unsigned &out, bool required = false) {
    uint64_t v = out;
    if (llvm::Error e = uint64(key, v, required, UINT32_MAX))
      return e;
    out = static_cast<unsigned>(v);
    return llvm::Error::success();
  }
  llvm::Error uint64(const char *key, uint64_t &out, bool required = false,
                     uint64_t max = INT64_MAX) {
    const toml::node *node = get(key);
    if (!node)
      return missing(key, required);
    auto value = node->value_exact<int64_t>();
    if (!value || *value < 0 || static_cast<uint64_t>(*value) > max)
      return errorAt(bufferName, node->source(),
                     "'" + name(key) + "' must be an integer from 0 to " +
                         std::to_string(max));
    out = static_cast<uint64_t>(*value);
    return llvm::Error::success();
  }
  llvm::Error boolean(const char *key, bool &out) {
    const toml::node *node = get(key);
    if (!node)
      return llvm::Error::success();
    auto value = node->value_exact<bool>();
    if (!value)
      return errorAt(bufferName, node->source(),
                     "'" + name(key) + "' must be true or false");
    out = *value;
    return llvm::Error::success();
  }
  llvm::Error string(const char *key, std::string &out, bool required = false) {
    const toml::node *node = get(key);
    if (!node)
      return missing(key, required);
    auto value = node->value<std::string>();
    if (!value)
      return errorAt(bufferName, node->source(),
                     "'" + name(key) + "' must be a string");
    out = *value;
    return llvm::Error::success();
  }
  llvm::Error uintList(const char *key, std::vector<unsigned> &out) {
    const toml::node *node = get(key);
    if (!node)
      return llvm::Error::success();
    const toml::array *arr = node->as_array();
    std::vector<unsigned> result;
    if (arr)
      for (const toml::node &elem : *arr) {
        auto value = elem.value_exact<int64_t>();
        if (!value || *value < 0 || *value > INT32_MAX) {
          arr = nullptr;
          break;
        }
        result.push_back(static_cast<unsigned>(*value));
      }
    if (!arr)
      return errorAt(bufferName, node->source(),
                     "'" + name(key) +
                         "' must be an array of non-negative integers");
    out = std::move(result);
    return llvm::Error::success();
  }
  llvm::Error stringList(const char *key, std::vector<std::string> &out) {
    const toml::node *node = get(key);
    if (!node)
      return llvm::Error::success();
    const toml::array *arr = node->as_array();
    std::vector<std::string> result;
    if (arr)
      for (const toml::node &elem : *arr) {
        auto value = elem.value<std::string>();
        if (!value) {
          arr = nullptr;
          break;
        }
        result.push_back(*value);
      }
    if (!arr)
      return errorAt(bufferName, node->source(),
                     "'" + name(key) + "' must be an array of strings");
    out = std::move(result);
    return llvm::Error::success();
  }
  /// A sub-table, or null when absent; a non-table value is an error.
  llvm::Expected<const toml::table *> subTable(const char *key) {
    const toml::node *node = get(key);
    if (!node)
      return nullptr;
    if (const toml::table *t = node->as_table())
      return t;
    return errorAt(bufferName, node->source(),
                   "'" + name(key) + "' must be a table ([" + name(key) + "])");
  }
  const toml::node *node(const char *key) { return get(key); }
  std::string name(llvm::StringRef key) const {
    return path.empty() ? key.str() : path + "." + key.str();
  }

  /// Call after reading every key: rejects keys nobody asked for.
  llvm::Error finish() {
    for (const auto &[key, node] : table) {
      llvm::StringRef k(key.data(), key.length());
      if (!known.contains(k))
        return errorAt(
            bufferName, key.source(),
            "unknown key '" + elidedText(name(k)) + "' in target model" +
                (path.empty() ? std::string() : " (section [" + path + "])"));
    }
    return llvm::Error::success();
  }

private:
  const toml::node *get(const char *key) {
    known.insert(key);
    return table.get(key);
  }
  llvm::Error missing(const char *key, bool required) {
    if (!required || overlay)
      return llvm::Error::success();
    return errorAt(bufferName, table.source(),
                   "missing required key '" + name(key) + "'");
  }

  const toml::table &table;
  llvm::StringRef bufferName;
  std::string path;
  bool overlay;
  llvm::StringSet<> known;

public:
  bool isOverlay() const { return overlay; }
};

/// Reads an optional section with `fn(reader)`; unknown keys are checked.
template <typename Fn>
llvm::Error section(TableReader &parent, const char *key,
                    llvm::StringRef bufferName, Fn fn) {
  llvm::Expected<const toml::table *> table = parent.subTable(key);
  if (!table)
    return table.takeError();
  if (!*table)
    return llvm::Error::success();
  TableReader reader(**table, bufferName, parent.name(key), parent.isOverlay());
  if (llvm::Error e = fn(reader))
    return e;
  return reader.finish();
}

llvm::Error
readPhases(TableReader &reader, const char *key, llvm::StringRef bufferName,
           std::map<unsigned, std::vector<std::vector<unsigned>>> &phases) {
  llvm::Expected<const toml::table *> table = reader.subTable(key);
  if (!table)
    return table.takeError();
  if (!*table)
    return llvm::Error::success();
  for (const auto &[widthKey, node] : **table) {
    unsigned width = 0;
    llvm::StringRef w(widthKey.data(), widthKey.length());
    if (w.getAsInteger(10, width) ||
        !llvm::is_contained({1u, 2u, 4u, 8u, 16u}, width))
      return errorAt(bufferName, widthKey.source(),
                     reader.name(key) +
                         " keys are access widths in bytes "
                         "(\"1\", \"2\", \"4\", \"8\" or \"16\"), got \"" +
                         w.str() + "\"");
    std::vector<std::vector<unsigned>> groups;
    const toml::array *outer = node.as_array();
    bool ok = outer != nullptr;
    if (ok)
      for (const toml::node &g : *outer) {
        const toml::array *inner = g.as_array();
        if (!inner) {
          ok = false;
          break;
        }
        std::vector<unsigned> lanes;
        for (const toml::node &lane : *inner) {
          auto v = lane.value_exact<int64_t>();
          if (!v || *v < 0 || *v >= 64) {
            ok = false;
            break;
          }
          lanes.push_back(static_cast<unsigned>(*v));
        }
        groups.push_back(std::move(lanes));
      }
    if (!ok)
      return errorAt(bufferName, node.source(),
                     reader.name(key) + "." + w.str() +
                         " must be an array of lane groups, e.g. [[0, 1, 2, "
                         "3], [4, 5, 6, 7]], with lanes from 0 to 63");
    phases[width] = std::move(groups);
  }
  return llvm::Error::success();
}

/// toml++ 3.3 also reaches __builtin_unreachable when it asks whether some
/// non-ASCII code points are whitespace (marzer/tomlplusplus#190, fixed
/// upstream by #305): in malformed values and keys, and after a backslash
/// in multi-line strings. Target models are therefore ASCII except in
/// comments, which toml++ skips without such tests; this scan refuses other
/// non-ASCII first, with a located error. It follows strings only to tell a
/// comment's '#' from one inside a string, and errs towards "not a comment":
/// a quote opens a string only where a key or value can start (toml++ reads
/// `197;-2='x` as one malformed value), and a string never allows non-ASCII.
llvm::Error scanTomlText(llvm::StringRef text, llvm::StringRef bufferName) {
  enum class State {
    Normal,
    Comment,
    Basic,
    Literal,
    MultiBasic,
    MultiLiteral
  };
  State state = State::Normal;
  unsigned line = 1;
  size_t lineStart = 0;
  // The last non-blank character outside strings ('\n' at a line start),
  // and whether the line has had its '=' (a '.' joins keys only before it).
  char previous = '\n';
  bool seenEquals = false;
  auto fail = [&](size_t pos, const char *msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::formatv("{0}:{1}:{2}: error: {3}",
                                                 bufferName, line,
                                                 pos - lineStart + 1, msg)
                                       .str());
  };
  size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0; // a UTF-8 BOM
  for (; i < text.size(); ++i) {
    unsigned char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
      previous = '\n';
      seenEquals = false;
      if (state == State::Comment || state == State::Basic ||
          state == State::Literal)
        state = State::Normal; // toml++ reports an unterminated string
      continue;
    }
    auto closeString = [&](llvm::StringRef quote) {
      if (!text.substr(i).starts_with(quote))
        return;
      i += quote.size() - 1;
      // A multi-line string may end in one or two more quotes.
      for (int extra = 0; quote.size() == 3 && extra < 2 &&
                          i + 1 < text.size() && text[i + 1] == quote[0];
           ++extra)
        ++i;
      state = State::Normal;
      previous = quote[0];
    };
    if (c >= 0x80 && state != State::Comment)
      return fail(i, "non-ASCII character outside a comment; the TOML files "
                     "kcc reads (target models, difftest cases) are ASCII "
                     "except in comments (in a string, write \\uXXXX)");
    switch (state) {
    case State::Normal:
      if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
        return fail(i, "control character outside a string; remove it");
      if (c == '#') {
        state = State::Comment;
      } else if ((c == '"' || c == '\'') &&
                 (llvm::is_contained(llvm::StringRef("=[{,\n"), previous) ||
                  (previous == '.' && !seenEquals))) {
        bool multi = text.substr(i).starts_with(c == '"' ? "\"\"\"" : "\'\'\'");
        state = c == '"' ? (multi ? State::MultiBasic : State::Basic)
                         : (multi ? State::MultiLiteral : State::Literal);
        if (multi)
          i += 2;
      } else if (c != ' ' && c != '\t') {
        previous = c;
        seenEquals |= c == '=';
      }
      break;
    case State::Comment:
      break;
    case State::Basic:
    case State::MultiBasic:
      // Skip an escaped character (\"), unless the loop must see it.
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n' &&
          static_cast<unsigned char>(text[i + 1]) < 0x80)
        ++i;
      else
        closeString(state == State::Basic ? "\"" : "\"\"\"");
      break;
    case State::Literal:
      closeString("\'");
      break;
    case State::MultiLiteral:
      closeString("\'\'\'");
      break;
    }
  }
  return llvm::Error::success();
}

/// [lane_exchange]: instruction name = cycles. A table in a model that
/// inherits replaces the base's list.
llvm::Error readLaneExchanges(TableReader &top, llvm::StringRef bufferName,
                              TargetModel &model) {
  llvm::Expected<const toml::table *> table = top.subTable("lane_exchange");
  if (!table)
    return table.takeError();
  if (!*table)
    return llvm::Error::success();
  model.laneExchanges.clear();
  for (const auto &[key, node] : **table) {
    llvm::StringRef name(key.data(), key.length());
    if (node.is_table())
      return errorAt(bufferName, key.source(),
                     "'lane_exchange." + name.str() +
                         "' is a table: quote exchange names that contain "
                         "dots, e.g. \"dpp.quad_perm\" = 6");
    const LaneExchangeKind *kind = findLaneExchange(name);
    if (!kind || kind->vendor != model.vendor) {
      std::string valid;
      for (const LaneExchangeKind &k : laneExchangeKinds())
        if (k.vendor == model.vendor)
          valid += (valid.empty() ? "" : ", ") + k.name.str();
      return errorAt(bufferName, key.source(),
                     "unknown lane exchange '" + name.str() +
                         "' for this vendor; kcc can emit " + valid);
    }
    auto cycles = node.value_exact<int64_t>();
    if (!cycles || *cycles < 1 || *cycles > 100000)
      return errorAt(bufferName, node.source(),
                     "'lane_exchange." + name.str() +
                         "' must be its cost in cycles, an integer from 1 to "
                         "100000");
    model.laneExchanges.emplace_back(name.str(), unsigned(*cycles));
  }
  return llvm::Error::success();
}

/// Reads `table` into `model`. With `overlay`, `model` already holds the
/// inherited model and the table only changes what it names.

/// What LLVM's backend for the model's vendor does not know, with the key
/// that says it: the processor (`sm` + `arch_suffix`, or `processor`) and,
/// on NVIDIA, the PTX ISA feature. Such a model would compile with "not a
/// recognized processor" warnings and wrong or no code. Nothing when the
/// backend is not registered in this process (kcc registers both before it
/// reads --target-model files).
static std::optional<std::pair<const char *, std::string>>
llvmRefuses(const kcc::TargetModel &model) {
  llvm::Triple triple(model.vendor == kcc::Vendor::NVIDIA
                          ? "nvptx64-nvidia-cuda"
                          : "amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return std::nullopt;
  std::string cpu = model.llvmCpu();
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!sti)
    return std::nullopt;
  if (!sti->isCPUStringValid(cpu)) {
    std::vector<std::string> known;
    for (const llvm::SubtargetSubTypeKV &kv :
         sti->getAllProcessorDescriptions())
      if (llvm::StringRef(kv.Key).starts_with(
              model.vendor == kcc::Vendor::NVIDIA ? "sm_" : "gfx9"))
        known.push_back(kv.Key);
    bool nv = model.vendor == kcc::Vendor::NVIDIA;
    return std::pair{nv ? "sm" : "processor",
                     (nv ? "sm and arch_suffix name " : "processor ") + cpu +
                         ", which LLVM's " + (nv ? "NVPTX" : "AMDGPU") +
                         " backend does not know; it knows " +
                         llvm::join(known, ", ")};
  }
  std::string features = model.llvmFeatures(); // split keeps references
  for (llvm::StringRef feature : llvm::split(features, ',')) {
    if (feature.empty())
      continue;
    llvm::StringRef name = feature.drop_front(); // "+ptx80" -> "ptx80"
    if (llvm::none_of(sti->getAllProcessorFeatures(),
                      [&](const llvm::SubtargetFeatureKV &kv) {
                        return name == kv.Key;
                      })) {
      std::vector<std::string> isas;
      for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
        if (llvm::StringRef(kv.Key).starts_with("ptx"))
          isas.push_back(llvm::StringRef(kv.Key).drop_front(3).str());
      return std::pair{"ptx_isa",
                       "ptx_isa = " + std::to_string(model.ptxIsa) +
                           " is no PTX ISA version LLVM's NVPTX backend "
                           "knows; it knows " +
                           llvm::join(isas, ", ")};
    }
  }
  return std::nullopt;
}

llvm::Error readModel(const toml::table &table, llvm::StringRef bufferName,
                      bool overlay, TargetModel &model) {
  TableReader top(table, bufferName, "", overlay);
  if (llvm::Error e = top.string("name", model.name, true))
    return e;
  std::string vendor = model.vendor == Vendor::AMD ? "amd" : "nvidia";
  if (llvm::Error e = top.string("vendor", vendor, true))
    return e;
  if (vendor == "nvidia")
    model.vendor = Vendor::NVIDIA;
  else if (vendor == "amd")
    model.vendor = Vendor::AMD;
  else
    return errorAt(bufferName, top.node("vendor")->source(),
                   "vendor must be \"nvidia\" or \"amd\", got \"" + vendor +
                       "\"");
  top.node("inherits"); // checked and applied by the caller
  if (llvm::Error e = top.string("description", model.description))
    return e;
  if (llvm::Error e = top.string("arch_suffix", model.archSuffix))
    return e;
  if (llvm::Error e = top.string("processor", model.processor))
    return e;
  if (llvm::Error e = top.uint("sm", model.sm))
    return e;
  if (llvm::Error e = top.uint("ptx_isa", model.ptxIsa))
    return e;
  if (llvm::Error e = top.uint("warp_size", model.warpSize, true))
    return e;
  if (llvm::Error e =
          top.uint("max_threads_per_block", model.maxThreadsPerBlock, true))
    return e;
  if (llvm::Error e =
          top.uint("registers_per_thread", model.registersPerThread, true))
    return e;
  if (llvm::Error e = top.uint("max_vector_bytes", model.maxVectorBytes, true))
    return e;
  if (llvm::Error e = top.stringList("async_copy", model.asyncCopy))
    return e;
  if (llvm::Error e = top.stringList("float8", model.float8))
    return e;

  const toml::node *smemNode = top.node("shared_memory");
  if (!smemNode && !overlay)
    return errorAt(bufferName, table.source(),
                   "missing required section [shared_memory]");
  if (llvm::Error e = section(
          top, "shared_memory", bufferName, [&](TableReader &r) -> llvm::Error {
            SharedMemoryModel &s = model.sharedMemory;
            if (auto e = r.uint("bytes_per_block", s.bytesPerBlock, true))
              return e;
            if (auto e = r.uint("bytes_per_sm", s.bytesPerSM, true))
              return e;
            if (auto e = r.uint("banks", s.banks, true))
              return e;
            if (auto e = r.uint("bank_bytes", s.bankBytes, true))
              return e;
            if (auto e = readPhases(r, "phases", bufferName, s.phases))
              return e;
            return readPhases(r, "store_phases", bufferName, s.storePhases);
          }))
    return e;
  if (llvm::Error e = section(top, "tma", bufferName, [&](TableReader &r) {
        TmaModel &t = model.tma;
        t.supported = true;
        if (auto e = r.boolean("supported", t.supported))
          return e;
        if (auto e = r.uint("max_rank", t.maxRank))
          return e;
        if (auto e = r.uint("max_box_dim", t.maxBoxDim))
          return e;
        if (auto e = r.uint("max_element_stride", t.maxElementStride))
          return e;
        if (auto e = r.uint64("max_box_bytes", t.maxBoxBytes, true))
          return e;
        if (auto e = r.uintList("swizzle_modes", t.swizzleModes))
          return e;
        if (auto e = r.boolean("packed_types", t.packedTypes))
          return e;
        return r.string("verified_by", t.verifiedBy);
      }))
    return e;
  if (llvm::Error e =
          section(top, "mma", bufferName, [&](TableReader &r) -> llvm::Error {
            if (auto e = r.string("instruction", model.mma.instruction, true))
              return e;
            if (auto e = r.stringList("mma_sync", model.mma.mmaSync))
              return e;
            const toml::node *shapes = r.node("shapes");
            if (!shapes)
              return llvm::Error::success();
            model.mma.shapes.clear(); // a variant's list replaces the base's
            const toml::array *arr = shapes->as_array();
            if (!arr)
              return errorAt(bufferName, shapes->source(),
                             "'mma.shapes' must be an array of tables "
                             "{ a = \"f16\", m = 64, n_min = 8, n_max = 256, "
                             "n_step = 8, k = 16 }");
            for (const toml::node &elem : *arr) {
              const toml::table *t = elem.as_table();
              if (!t)
                return errorAt(bufferName, elem.source(),
                               "each entry of 'mma.shapes' must be a table");
              TableReader sr(*t, bufferName, "mma.shapes", /*overlay=*/false);
              MmaShape shape;
              if (auto e = sr.string("a", shape.a, true))
                return e;
              if (auto e = sr.uint("m", shape.m, true))
                return e;
              if (auto e = sr.uint("k", shape.k, true))
                return e;
              unsigned n = 0;
              if (auto e = sr.uint("n", n))
                return e;
              shape.nMin = shape.nMax = n;
              if (auto e = sr.uint("n_min", shape.nMin))
                return e;
              if (auto e = sr.uint("n_max", shape.nMax))
                return e;
              if (auto e = sr.uint("n_step", shape.nStep))
                return e;
              if (auto e = sr.finish())
                return e;
              if (shape.nMin == 0 || shape.nMax < shape.nMin ||
                  shape.nStep == 0)
                return errorAt(bufferName, elem.source(),
                               "an mma shape needs n (or n_min <= n_max with "
                               "n_step > 0)");
              model.mma.shapes.push_back(shape);
            }
            return llvm::Error::success();
          }))
    return e;
  if (llvm::Error e = readLaneExchanges(top, bufferName, model))
    return e;
  if (llvm::Error e = section(top, "tmem", bufferName, [&](TableReader &r) {
        if (auto e = r.uint("columns", model.tmem.columns, true))
          return e;
        if (auto e = r.uint("lanes", model.tmem.lanes, true))
          return e;
        return r.uint("min_alloc_columns", model.tmem.minAllocColumns, true);
      }))
    return e;
  if (llvm::Error e =
          section(top, "warp_specialization", bufferName, [&](TableReader &r) {
            WarpSpecializationModel &ws = model.warpSpecialization;
            if (auto e =
                    r.uint("producer_registers", ws.producerRegisters, true))
              return e;
            if (auto e =
                    r.uint("consumer_registers", ws.consumerRegisters, true))
              return e;
            return r.uint("register_file", ws.registerFile, true);
          }))
    return e;
  if (llvm::Error e = section(
          top, "throughput", bufferName, [&](TableReader &r) -> llvm::Error {
            ThroughputModel &t = model.throughput;
            for (auto [key, field] :
                 {std::pair{"tensor_flops_per_clock", &t.tensorFlops},
                  {"shared_bytes_per_clock", &t.sharedBytes},
                  {"l2_bytes_per_clock", &t.l2Bytes},
                  {"dram_bytes_per_clock", &t.dramBytes},
                  {"latency_clocks", &t.latency},
                  {"launch_clocks", &t.launch}})
              if (auto e = r.uint(key, *field, true))
                return e;
            return llvm::Error::success();
          }))
    return e;
  if (llvm::Error e = top.finish())
    return e;

  if (model.laneExchanges.empty())
    model.laneExchanges = defaultLaneExchanges(model.vendor);
  if (model.vendor == Vendor::NVIDIA && (model.sm == 0 || model.ptxIsa == 0))
    return errorAt(bufferName, table.source(),
                   "an NVIDIA target needs 'sm' and 'ptx_isa'");
  if (model.vendor == Vendor::AMD && model.processor.empty())
    return errorAt(bufferName, table.source(),
                   "an AMD target needs 'processor' (e.g. \"gfx942\")");
  auto where = [&](const char *key) {
    const toml::node *node = table.at_path(key).node();
    return node ? node->source() : table.source();
  };
  if (model.warpSize != 32 && model.warpSize != 64)
    return errorAt(bufferName, where("warp_size"),
                   "warp_size must be 32 or 64");
  // The vendor fixes it: NVIDIA warps have 32 lanes; kcc's AMD lowering
  // compiles gfx9's 64-lane waves.
  if (unsigned want = model.vendor == Vendor::NVIDIA ? 32 : 64;
      model.warpSize != want)
    return errorAt(bufferName, where("warp_size"),
                   llvm::Twine("warp_size must be ") + llvm::Twine(want) +
                       (model.vendor == Vendor::NVIDIA
                            ? " on NVIDIA (every warp has 32 lanes)"
                            : " on AMD (kcc compiles gfx9's 64-lane waves)"));
  if (auto refused = llvmRefuses(model)) {
    // The processor's name joins two keys: point at the one this file set.
    const char *key = refused->first;
    if (llvm::StringRef(key) == "sm" && !table.at_path("sm").node())
      key = "arch_suffix";
    return errorAt(bufferName, where(key), refused->second);
  }
  if (!llvm::is_contained({4u, 8u, 16u}, model.maxVectorBytes))
    return errorAt(bufferName, where("max_vector_bytes"),
                   "max_vector_bytes must be 4, 8 or 16");
  // Numbers the compiler divides by or sizes tiles with: an unusable value
  // is refused here, at its key, rather than in every kernel compiled.
  if (model.maxThreadsPerBlock < model.warpSize ||
      model.maxThreadsPerBlock % model.warpSize != 0)
    return errorAt(bufferName, where("max_threads_per_block"),
                   "max_threads_per_block must be a positive multiple of "
                   "warp_size (" +
                       llvm::Twine(model.warpSize) + ")");
  if (model.registersPerThread < 2)
    return errorAt(bufferName, where("registers_per_thread"),
                   "registers_per_thread must be at least 2 (one tile may "
                   "use half of them)");
  // setmaxnreg takes a multiple of 8 in [24, 256] (PTX ISA 8.0).
  for (auto [key, regs] :
       {std::pair{"warp_specialization.producer_registers",
                  model.warpSpecialization.producerRegisters},
        {"warp_specialization.consumer_registers",
         model.warpSpecialization.consumerRegisters}})
    if (model.warpSpecialization.enabled() &&
        (regs < 24 || regs > 256 || regs % 8 != 0))
      return errorAt(bufferName, where(key),
                     llvm::Twine(key) + " must be a multiple of 8 from 24 to "
                                        "256 (setmaxnreg's operand)");
  if (model.warpSpecialization.enabled() &&
      model.warpSpecialization.producerRegisters >
          model.warpSpecialization.consumerRegisters)
    return errorAt(bufferName, where("warp_specialization.producer_registers"),
                   "warp_specialization.producer_registers must not exceed "
                   "consumer_registers: the producer gives registers to the "
                   "consumers");
  // The launch's cost model divides by the rates.
  for (const char *key :
       {"throughput.tensor_flops_per_clock",
        "throughput.shared_bytes_per_clock", "throughput.l2_bytes_per_clock",
        "throughput.dram_bytes_per_clock"}) {
    const toml::node *node = table.at_path(key).node();
    auto value = node ? node->value_exact<int64_t>() : std::nullopt;
    if (value && *value == 0)
      return errorAt(bufferName, node->source(),
                     llvm::Twine(key) + " must be at least 1");
  }
  if (model.sharedMemory.banks == 0)
    return errorAt(bufferName, where("shared_memory.banks"),
                   "shared_memory.banks must be at least 1");
  if (!llvm::is_contained({1u, 2u, 4u, 8u, 16u}, model.sharedMemory.bankBytes))
    return errorAt(bufferName, where("shared_memory.bank_bytes"),
                   "shared_memory.bank_bytes must be 1, 2, 4, 8 or 16");
  return llvm::Error::success();
}
} // namespace

llvm::Error kcc::checkTomlText(llvm::StringRef text,
                               llvm::StringRef bufferName) {
  return scanTomlText(text, bufferName);
}

struct TargetRegistry::Entry {
  std::shared_ptr<const TargetModel> model;
};

namespace kcc {
/// Lets the parser look up base models (for `inherits`).
struct RegistryAccess {
  static const TargetRegistry::Entry *find(const TargetRegistry *r,
                                           llvm::StringRef name) {
    return r ? r->find(name) : nullptr;
  }
  static llvm::Expected<TargetModel> parse(llvm::StringRef text,
                                           llvm::StringRef bufferName,
                                           const TargetRegistry *bases);
};
} // namespace kcc

bool TargetModel::hasAsyncCopy(llvm::StringRef mechanism) const {
  return llvm::is_contained(asyncCopy, mechanism.str());
}

llvm::Expected<TargetModel> RegistryAccess::parse(llvm::StringRef text,
                                                  llvm::StringRef bufferName,
                                                  const TargetRegistry *bases) {
  if (llvm::Error e = kcc::checkTomlText(text, bufferName))
    return std::move(e);
  toml::parse_result parsed =
      toml::parse(std::string_view(text.data(), text.size()),
                  std::string_view(bufferName.data(), bufferName.size()));
  if (!parsed) {
    const toml::parse_error &err = parsed.error();
    return errorAt(bufferName, err.source(), std::string(err.description()));
  }
  const toml::table &table = parsed.table();
  TargetModel model;
  bool overlay = false;
  if (const toml::node *node = table.get("inherits")) {
    auto value = node->value<std::string>();
    if (!value)
      return errorAt(bufferName, node->source(),
                     "'inherits' must be the name of a target model");
    const TargetRegistry::Entry *base = find(bases, *value);
    if (!base) {
      std::string valid =
          bases ? llvm::join(bases->names(), ", ") : std::string("(none)");
      return errorAt(bufferName, node->source(),
                     "'inherits' names unknown target model '" + *value +
                         "'; known models: " + valid);
    }
    model = *base->model;
    // The base's description and provenance do not describe the variant.
    model.description.clear();
    model.tma.verifiedBy.clear();
    model.inherits = *value;
    overlay = true;
  }
  if (llvm::Error e = readModel(table, bufferName, overlay, model))
    return std::move(e);
  if (bases && bases->toolCheck)
    if (auto refused = bases->toolCheck(model)) {
      // At the key when this file sets it, else at what it inherits.
      const toml::node *node = table.at_path(refused->first).node();
      if (!node)
        node = table.get("inherits");
      return errorAt(bufferName, node ? node->source() : table.source(),
                     refused->second);
    }
  return model;
}

const TargetRegistry::Entry *TargetRegistry::find(llvm::StringRef name) const {
  for (const auto &e : entries)
    if (e->model->name == name)
      return e.get();
  return nullptr;
}

llvm::Expected<TargetModel> kcc::parseTargetModel(llvm::StringRef text,
                                                  llvm::StringRef bufferName,
                                                  const TargetRegistry *bases) {
  return RegistryAccess::parse(text, bufferName, bases);
}

llvm::Error TargetRegistry::addFromText(llvm::StringRef text,
                                        llvm::StringRef bufferName) {
  llvm::Expected<TargetModel> parsed =
      RegistryAccess::parse(text, bufferName, this);
  if (!parsed)
    return parsed.takeError();
  add(std::move(*parsed));
  return llvm::Error::success();
}

void TargetRegistry::add(TargetModel model) {
  auto entry = std::make_shared<Entry>();
  entry->model = std::make_shared<const TargetModel>(std::move(model));
  for (auto &e : entries)
    if (e->model->name == entry->model->name) {
      e = std::move(entry);
      return;
    }
  entries.push_back(std::move(entry));
}

llvm::Error TargetRegistry::addFromFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read target model '" + path +
                                       "': " + buffer.getError().message());
  return addFromText((*buffer)->getBuffer(), path);
}

const TargetRegistry &TargetRegistry::builtin() {
  static const TargetRegistry registry = [] {
    TargetRegistry r;
    for (const BuiltinModel &m : kBuiltinModels)
      // The built-in files are tested; a failure here is a build defect.
      if (llvm::Error e = r.addFromText(m.text, m.file))
        llvm::report_fatal_error(llvm::toString(std::move(e)).c_str());
    return r;
  }();
  return registry;
}

const TargetModel *TargetRegistry::lookup(llvm::StringRef name) const {
  const Entry *e = find(name);
  return e ? e->model.get() : nullptr;
}

std::vector<std::string> TargetRegistry::names() const {
  std::vector<std::string> result;
  for (const auto &e : entries)
    result.push_back(e->model->name);
  return result;
}
