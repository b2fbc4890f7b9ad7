//===- OffloadBundle.cpp - reading clang offload bundles ------------------===//

#include "OffloadBundle.h"

#include <cstdint>
#include <cstring>
#include <map>

namespace kcc {
namespace rt {
namespace offload {

namespace {

constexpr char kMagic[] = "__CLANG_OFFLOAD_BUNDLE__";
constexpr size_t kMagicSize = sizeof kMagic - 1;
constexpr char kCompressedMagic[] = "CCOB";

/// Reads a little-endian 64-bit integer at `at` if it is inside the bundle.
bool readU64(const unsigned char *base, size_t size, size_t at,
             uint64_t *value) {
  if (at > size || size - at < 8)
    return false;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | base[at + i];
  *value = v;
  return true;
}

bool startsWith(const std::string &text, const char *prefix) {
  return text.compare(0, std::strlen(prefix), prefix) == 0;
}

/// "gfx90a:sramecc+:xnack-" -> processor "gfx90a", {sramecc: '+', xnack:
/// '-'}. False if a feature is not `name+` or `name-`.
bool splitTargetId(const std::string &targetId, std::string &processor,
                   std::map<std::string, char> &features) {
  size_t colon = targetId.find(':');
  processor = targetId.substr(0, colon);
  while (colon != std::string::npos) {
    size_t next = targetId.find(':', colon + 1);
    std::string feature = targetId.substr(colon + 1, next == std::string::npos
                                                         ? std::string::npos
                                                         : next - colon - 1);
    if (feature.size() < 2 || (feature.back() != '+' && feature.back() != '-'))
      return false;
    features[feature.substr(0, feature.size() - 1)] = feature.back();
    colon = next;
  }
  return !processor.empty();
}

} // namespace

bool parseBundle(const void *image, size_t size, std::vector<Entry> &entries,
                 std::string &error) {
  entries.clear();
  const auto *base = static_cast<const unsigned char *>(image);
  if (!base) {
    error = "no bytes";
    return false;
  }
  if (size >= 4 && std::memcmp(base, kCompressedMagic, 4) == 0) {
    error = "it is a compressed offload bundle (CCOB), which kcc's runtime "
            "does not read; bundle without --compress";
    return false;
  }
  if (size < kMagicSize || std::memcmp(base, kMagic, kMagicSize) != 0) {
    error = "it does not start with __CLANG_OFFLOAD_BUNDLE__";
    return false;
  }
  uint64_t count = 0;
  if (!readU64(base, size, kMagicSize, &count)) {
    error = "it ends inside its header";
    return false;
  }
  // Each entry takes at least 24 bytes of header.
  if (count > (size - kMagicSize - 8) / 24) {
    error = "its entry count (" + std::to_string(count) +
            ") does not fit in its " + std::to_string(size) + " bytes";
    return false;
  }
  size_t at = kMagicSize + 8;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t offset = 0, bytes = 0, idSize = 0;
    if (!readU64(base, size, at, &offset) ||
        !readU64(base, size, at + 8, &bytes) ||
        !readU64(base, size, at + 16, &idSize) || idSize > size - at - 24) {
      error = "entry " + std::to_string(i) + "'s header ends outside it";
      return false;
    }
    at += 24;
    std::string id(reinterpret_cast<const char *>(base + at),
                   static_cast<size_t>(idSize));
    at += static_cast<size_t>(idSize);
    if (offset > size || bytes > size - offset) {
      error = "entry " + id + " (bytes " + std::to_string(offset) + " to " +
              std::to_string(offset + bytes) + ") lies outside its " +
              std::to_string(size) + " bytes";
      return false;
    }
    entries.push_back(
        Entry{std::move(id), base + offset, static_cast<size_t>(bytes)});
  }
  return true;
}

std::string hipTargetId(const std::string &entryId) {
  size_t dash = entryId.find('-');
  if (dash == std::string::npos)
    return "";
  std::string kind = entryId.substr(0, dash);
  if (kind != "hip" && kind != "hipv4" && kind != "hipv5" && kind != "hipv6")
    return "";
  std::string rest = entryId.substr(dash + 1);
  if (!startsWith(rest, "amdgcn-amd-amdhsa-"))
    return "";
  rest = rest.substr(std::strlen("amdgcn-amd-amdhsa-"));
  if (!rest.empty() && rest[0] == '-') // empty environment: "amdhsa--gfx90a"
    rest = rest.substr(1);
  return startsWith(rest, "gfx") ? rest : "";
}

std::string processorOf(const std::string &targetId) {
  return targetId.substr(0, targetId.find(':'));
}

int compatibility(const std::string &codeObject, const std::string &device) {
  std::string objectProcessor, deviceProcessor;
  std::map<std::string, char> objectFeatures, deviceFeatures;
  if (!splitTargetId(codeObject, objectProcessor, objectFeatures) ||
      !splitTargetId(device, deviceProcessor, deviceFeatures) ||
      objectProcessor != deviceProcessor)
    return -1;
  // A feature the code object fixes must be set the same way on the device
  // (as HIP's own loader decides); one it leaves open ("any") always fits.
  for (const auto &feature : objectFeatures) {
    auto it = deviceFeatures.find(feature.first);
    if (it == deviceFeatures.end() || it->second != feature.second)
      return -1;
  }
  return static_cast<int>(objectFeatures.size());
}

int selectCodeObject(const std::vector<Entry> &entries,
                     const std::string &device) {
  int best = -1, bestScore = -1;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string target = hipTargetId(entries[i].id);
    if (target.empty())
      continue;
    int score = compatibility(target, device);
    if (score > bestScore) {
      best = static_cast<int>(i);
      bestScore = score;
    }
  }
  return best;
}

std::string describeHipEntries(const std::vector<Entry> &entries) {
  std::string out;
  for (const Entry &entry : entries) {
    std::string target = hipTargetId(entry.id);
    if (!target.empty())
      out += (out.empty() ? "" : ", ") + target;
  }
  return out;
}

} // namespace offload
} // namespace rt
} // namespace kcc
