// The HIP backend (kcc/runtime_hip.h) against FakeHip.cpp, a stand-in
// libamdhip64.so.5 found first through this program's RUNPATH: offload bundle
// parsing, the choice of code object for a gcnArchName (with and without
// feature suffixes), module/function caching per device, block sizes, what
// reaches hipModuleLaunchKernel, the error messages, split-K workspaces and
// the tuner's calls (device names, zero-filled memory, timed launches).
// Nothing here needs (or could use) an AMD GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "OffloadBundle.h"
#include "kcc/runtime_hip.h"

#include <hip/hip_runtime_api.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace kcc;
using namespace kcc::rt;

// As in FakeHip.cpp, at namespace scope: the fake_hip_* controls are called
// through pointers of their exact type (-fsanitize=function checks it).
struct FakeHipLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void *stream;
  void **params;
  char function[128];
};
struct FakeHipMemory {
  int allocs;
  int frees;
  int syncs;
  size_t lastBytes;
  size_t liveBytes;
  int memsets;
};
struct FakeHipEvents {
  int creates;
  int destroys;
  int records;
  int syncs;
  int elapsed;
  int live;
};

namespace {

struct Fake {
  void (*setArch)(int, const char *);
  int (*setDeviceCount)(int);
  void (*setLoadError)(int);
  void (*setLaunchError)(int);
  int (*moduleLoads)();
  int (*launches)();
  const void *(*lastLoaded)(char *, size_t);
  void (*lastLaunch)(FakeHipLaunch *);
  void (*setMallocError)(int);
  void (*setCapturing)(void *, int);
  void (*memory)(FakeHipMemory *);
  void (*memoryLog)(char *, size_t);
  void (*setMallocFill)(int);
  void (*setMemsetError)(int);
  int (*propertyQueries)();
  void (*setKernelTime)(const char *, double);
  void (*setEventError)(const char *, int, int);
  void (*events)(FakeHipEvents *);
} fake;

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

FakeHipLaunch lastLaunch() {
  FakeHipLaunch launch{};
  fake.lastLaunch(&launch);
  return launch;
}

std::string lastLoaded(const void **image = nullptr) {
  char target[128];
  const void *where = fake.lastLoaded(target, sizeof target);
  if (image)
    *image = where;
  return target;
}

void putU64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((value >> (8 * i)) & 0xff);
}

/// An uncompressed offload bundle of `entries` (id, bytes), with `pad`
/// bytes between the header and the first entry.
std::string
makeBundle(const std::vector<std::pair<std::string, std::string>> &entries,
           size_t pad = 0) {
  size_t header = 24 + 8;
  for (const auto &entry : entries)
    header += 24 + entry.first.size();
  std::string out = "__CLANG_OFFLOAD_BUNDLE__";
  putU64(out, entries.size());
  size_t offset = header + pad;
  for (const auto &entry : entries) {
    putU64(out, offset);
    putU64(out, entry.second.size());
    putU64(out, entry.first.size());
    out += entry.first;
    offset += entry.second.size();
  }
  out += std::string(pad, '\0');
  for (const auto &entry : entries)
    out += entry.second;
  return out;
}

/// A code object FakeHip.cpp loads: "FAKEHSACO <target> kernels=..." + NUL.
std::string codeObject(const std::string &target, const std::string &kernels) {
  return "FAKEHSACO " + target + " kernels=" + kernels + std::string(1, '\0');
}

const char kHost[] = "host-x86_64-unknown-linux-gnu-";
std::string hipEntry(const std::string &target) {
  return "hipv4-amdgcn-amd-amdhsa--" + target;
}

/// Images live as long as the process: the runtime caches modules by their
/// address.
const FatbinDesc *image(const std::string &bytes, const char *source,
                        const char *archs) {
  static auto *kept = new std::vector<std::unique_ptr<std::string>>;
  static auto *descs = new std::vector<std::unique_ptr<FatbinDesc>>;
  kept->push_back(std::make_unique<std::string>(bytes));
  descs->push_back(std::make_unique<FatbinDesc>(
      FatbinDesc{source, kept->back()->data(), bytes.size(), archs}));
  return descs->back().get();
}

const ThreadsForArch kThreads[] = {{0, 256, "gfx90a"}, {0, 512, "gfx942"}};

const FatbinDesc *vectorAddBundle() {
  static const FatbinDesc *desc = image(
      makeBundle(
          {{kHost, ""},
           {hipEntry("gfx90a"),
            codeObject("gfx90a", "vector_add_f32_1024,softmax_f32_1024")},
           {hipEntry("gfx942"),
            codeObject("gfx942", "vector_add_f32_1024,softmax_f32_1024")}}),
      "vector_add.kc", "gfx90a, gfx942");
  return desc;
}

/// Runs `body` with `device` current on this thread, then restores device 0.
template <typename F> void onDevice(int device, F body) {
  REQUIRE(hipSetDevice(device) == hipSuccess);
  body();
  REQUIRE(hipSetDevice(0) == hipSuccess);
}

} // namespace

//===----------------------------------------------------------------------===//
// The offload bundle reader
//===----------------------------------------------------------------------===//

TEST_CASE("offload bundle: entries and damage") {
  std::string bytes = makeBundle({{kHost, ""},
                                  {hipEntry("gfx90a:xnack-"), "AAAA"},
                                  {hipEntry("gfx942"), "BBBBBB"}});
  std::vector<offload::Entry> entries;
  std::string error;
  REQUIRE(offload::parseBundle(bytes.data(), bytes.size(), entries, error));
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].id == kHost);
  CHECK(entries[0].size == 0);
  CHECK(entries[1].id == "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
  CHECK(std::string(reinterpret_cast<const char *>(entries[1].data),
                    entries[1].size) == "AAAA");
  CHECK(std::string(reinterpret_cast<const char *>(entries[2].data),
                    entries[2].size) == "BBBBBB");
  CHECK(offload::describeHipEntries(entries) == "gfx90a:xnack-, gfx942");

  // Every truncation of a valid bundle is refused (never read past the end).
  for (size_t size = 0; size < bytes.size(); ++size) {
    CAPTURE(size);
    CHECK_FALSE(offload::parseBundle(bytes.data(), size, entries, error));
  }
  CHECK_FALSE(offload::parseBundle(nullptr, 0, entries, error));

  std::string wrong = bytes;
  wrong[0] = 'X';
  CHECK_FALSE(offload::parseBundle(wrong.data(), wrong.size(), entries, error));
  CHECK(error == "it does not start with __CLANG_OFFLOAD_BUNDLE__");

  std::string compressed = "CCOB" + std::string(60, '\0');
  CHECK_FALSE(offload::parseBundle(compressed.data(), compressed.size(),
                                   entries, error));
  CHECK(contains(error, "compressed offload bundle (CCOB)"));

  // An entry count no header could hold.
  std::string count = bytes;
  count[24 + 7] = 0x10;
  CHECK_FALSE(offload::parseBundle(count.data(), count.size(), entries, error));
  CHECK(contains(error, "entry count"));

  // An entry past the end (its offset is the first field after the count).
  std::string outside = bytes;
  outside[32 + 24 + std::strlen(kHost) + 1] = 0x7f;
  CHECK_FALSE(
      offload::parseBundle(outside.data(), outside.size(), entries, error));
  CHECK(contains(error, "lies outside its"));
}

TEST_CASE("offload bundle: entry ids") {
  CHECK(offload::hipTargetId("hipv4-amdgcn-amd-amdhsa--gfx90a") == "gfx90a");
  CHECK(
      offload::hipTargetId("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") ==
      "gfx90a:sramecc+:xnack-");
  CHECK(offload::hipTargetId("hip-amdgcn-amd-amdhsa-gfx906") == "gfx906");
  CHECK(offload::hipTargetId(kHost).empty());
  CHECK(offload::hipTargetId("openmp-amdgcn-amd-amdhsa--gfx90a").empty());
  CHECK(offload::hipTargetId("hipv4-spirv64-amd-amdhsa--amdgcnspirv").empty());
  CHECK(offload::hipTargetId("hipv4").empty());
  CHECK(offload::processorOf("gfx90a:sramecc+:xnack-") == "gfx90a");
  CHECK(offload::processorOf("gfx942") == "gfx942");
}

TEST_CASE("offload bundle: which code object fits a gcnArchName") {
  // Processor only: fits any setting of the device's features.
  CHECK(offload::compatibility("gfx90a", "gfx90a:sramecc+:xnack-") == 0);
  CHECK(offload::compatibility("gfx90a", "gfx90a") == 0);
  // Fixed features must be the device's.
  CHECK(offload::compatibility("gfx90a:xnack-", "gfx90a:sramecc+:xnack-") == 1);
  CHECK(offload::compatibility("gfx90a:sramecc+:xnack-",
                               "gfx90a:sramecc+:xnack-") == 2);
  CHECK(offload::compatibility("gfx90a:xnack+", "gfx90a:sramecc+:xnack-") ==
        -1);
  CHECK(offload::compatibility("gfx90a:xnack-", "gfx90a") == -1);
  // Another processor never fits.
  CHECK(offload::compatibility("gfx942", "gfx90a:sramecc+:xnack-") == -1);
  CHECK(offload::compatibility("gfx90a", "gfx90a0") == -1);
  CHECK(offload::compatibility("gfx90a:bad", "gfx90a") == -1);
  CHECK(offload::compatibility("gfx90a", "") == -1);

  std::string bytes = makeBundle({{kHost, "host"},
                                  {hipEntry("gfx90a"), "any"},
                                  {hipEntry("gfx90a:xnack+"), "xnack+"},
                                  {hipEntry("gfx90a:xnack-"), "xnack-"},
                                  {hipEntry("gfx942"), "942"}});
  std::vector<offload::Entry> entries;
  std::string error;
  REQUIRE(offload::parseBundle(bytes.data(), bytes.size(), entries, error));
  auto chosen = [&](const char *device) -> std::string {
    int index = offload::selectCodeObject(entries, device);
    if (index < 0)
      return "none";
    const offload::Entry &entry = entries[static_cast<size_t>(index)];
    return std::string(reinterpret_cast<const char *>(entry.data), entry.size);
  };
  CHECK(chosen("gfx90a:sramecc+:xnack-") == "xnack-");
  CHECK(chosen("gfx90a:sramecc-:xnack+") == "xnack+");
  CHECK(chosen("gfx90a") == "any");
  CHECK(chosen("gfx942:sramecc+:xnack-") == "942");
  CHECK(chosen("gfx942") == "942");
  CHECK(chosen("gfx908:sramecc+:xnack-") == "none");
  CHECK(chosen("x86_64") == "none"); // the host entry is never chosen
}

#ifdef KCC_TEST_REAL_BUNDLE
TEST_CASE("offload bundle: one made by clang-offload-bundler") {
  std::ifstream in(KCC_TEST_REAL_BUNDLE, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  std::vector<offload::Entry> entries;
  std::string error;
  REQUIRE_MESSAGE(
      offload::parseBundle(bytes.data(), bytes.size(), entries, error), error);
  CHECK(entries.size() == 3);
  CHECK(offload::describeHipEntries(entries) == "gfx90a:xnack-, gfx942");
  int index = offload::selectCodeObject(entries, "gfx90a:sramecc+:xnack-");
  REQUIRE(index >= 0);
  CHECK(std::string(reinterpret_cast<const char *>(entries[size_t(index)].data),
                    entries[size_t(index)].size) ==
        "FAKEHSACO gfx90a:xnack- kernels=real_kernel\n");

  // And through the launch path: the fake loads the gfx942 object on device 1.
  static const KernelDesc kernel = {image(bytes, "real.kc", "gfx90a, gfx942"),
                                    "real_kernel", kThreads, 2};
  const int64_t grid[3] = {2, 1, 1};
  onDevice(1, [&] {
    Status status = hip::launch(kernel, grid, nullptr, nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(lastLoaded() == "gfx942");
    CHECK(lastLaunch().block[0] == 512);
  });
}
#endif

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

TEST_CASE("first launch loads the device's code object and launches") {
  static const KernelDesc vectorAdd = {vectorAddBundle(), "vector_add_f32_1024",
                                       kThreads, 2};
  static const KernelDesc softmax = {vectorAddBundle(), "softmax_f32_1024",
                                     kThreads, 2};
  int loads = fake.moduleLoads();
  const int64_t grid[3] = {7, 2, 3};
  float a = 1;
  int32_t n = 1000;
  void *args[] = {&a, &n};
  auto *stream = reinterpret_cast<ihipStream_t *>(0x1234);
  Status status = hip::launch(vectorAdd, grid, args, stream);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(fake.moduleLoads() == loads + 1);
  CHECK(lastLoaded() == "gfx90a"); // device 0 is gfx90a:sramecc+:xnack-

  FakeHipLaunch launched = lastLaunch();
  CHECK(launched.grid[0] == 7);
  CHECK(launched.grid[1] == 2);
  CHECK(launched.grid[2] == 3);
  CHECK(launched.block[0] == 256); // the gfx90a entry
  CHECK(launched.block[1] == 1);
  CHECK(launched.block[2] == 1);
  CHECK(launched.shared == 0);
  CHECK(launched.stream == stream);
  CHECK(launched.params == args);
  CHECK(std::string(launched.function) == "vector_add_f32_1024");

  // Same module for the second kernel; nothing loads again.
  for (int i = 0; i < 10; ++i) {
    CHECK(hip::launch(vectorAdd, grid, args, nullptr).ok());
    CHECK(hip::launch(softmax, grid, args, nullptr).ok());
  }
  CHECK(fake.moduleLoads() == loads + 1);
  CHECK(std::string(lastLaunch().function) == "softmax_f32_1024");
  CHECK(lastLaunch().stream == nullptr);

  // A grid with a zero dimension does not reach HIP.
  int before = fake.launches();
  const int64_t empty[][3] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}};
  for (const auto &zero : empty)
    CHECK(hip::launch(vectorAdd, zero, args, nullptr).ok());
  CHECK(fake.launches() == before);

  // Another device loads its own code object and block size.
  onDevice(1, [&] {
    status = hip::launch(vectorAdd, grid, args, nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(fake.moduleLoads() == loads + 2);
    CHECK(lastLoaded() == "gfx942");
    CHECK(lastLaunch().block[0] == 512);
  });
  CHECK(hip::launch(vectorAdd, grid, args, nullptr).ok());
  CHECK(lastLaunch().block[0] == 256);
  CHECK(fake.moduleLoads() == loads + 2);
}

TEST_CASE("persistent kernels launch at most N workgroups per compute unit") {
  // kcc --persistent=3 on the fake device's 4 compute units: one row of at
  // most 12, which loop over the tiles of every z slice.
  static const KernelDesc persistent = {vectorAddBundle(),
                                        "vector_add_f32_1024", kThreads, 2,
                                        /*persistentPerSm=*/3};
  const int64_t big[3] = {1000, 1, 1}, small[3] = {9, 1, 1},
                batched[3] = {1000, 1, 5};
  REQUIRE(hip::launch(persistent, big, nullptr, nullptr).ok());
  CHECK(lastLaunch().grid[0] == 12);
  REQUIRE(hip::launch(persistent, small, nullptr, nullptr).ok());
  CHECK(lastLaunch().grid[0] == 9);
  REQUIRE(hip::launch(persistent, batched, nullptr, nullptr).ok());
  CHECK(lastLaunch().grid[0] == 12);
  CHECK(lastLaunch().grid[2] == 1);
}

TEST_CASE("a persistent build runs only for grids of more tiles than "
          "workgroups") {
  // kcc --persistent=3 on the fake device's 4 compute units: 12 workgroups.
  static const KernelDesc build = {vectorAddBundle(), "softmax_f32_1024",
                                   kThreads, 2, /*persistentPerSm=*/3};
  static const KernelDesc kernel = {
      vectorAddBundle(), "vector_add_f32_1024", kThreads, 2, 0, &build};
  const int64_t fits[3] = {12, 1, 1}, more[3] = {13, 1, 1},
                batched[3] = {5, 1, 3};
  REQUIRE(hip::launch(kernel, fits, nullptr, nullptr).ok());
  CHECK(std::string(lastLaunch().function) == "vector_add_f32_1024");
  CHECK(lastLaunch().grid[0] == 12);
  REQUIRE(hip::launch(kernel, more, nullptr, nullptr).ok());
  CHECK(std::string(lastLaunch().function) == "softmax_f32_1024");
  CHECK(lastLaunch().grid[0] == 12);
  REQUIRE(hip::launch(kernel, batched, nullptr, nullptr).ok());
  CHECK(std::string(lastLaunch().function) == "softmax_f32_1024");
  CHECK(lastLaunch().grid[0] == 12);
  CHECK(lastLaunch().grid[2] == 1);
}

TEST_CASE("a persistent build that is slower on the device is not launched") {
  static const ThreadsForArch buildThreads[] = {{0, 256, "gfx90a"},
                                                {0, 512, "gfx942", 0, true}};
  static const KernelDesc build = {vectorAddBundle(), "softmax_f32_1024",
                                   buildThreads, 2, /*persistentPerSm=*/3};
  static const KernelDesc kernel = {
      vectorAddBundle(), "vector_add_f32_1024", kThreads, 2, 0, &build};
  const int64_t grid[3] = {1000, 1, 1};
  onDevice(1, [&] { // gfx942: its entry is slower
    REQUIRE(hip::launch(kernel, grid, nullptr, nullptr).ok());
    CHECK(std::string(lastLaunch().function) == "vector_add_f32_1024");
    CHECK(lastLaunch().grid[0] == 1000);
  });
  REQUIRE(hip::launch(kernel, grid, nullptr, nullptr).ok());
  CHECK(std::string(lastLaunch().function) == "softmax_f32_1024");
  CHECK(lastLaunch().grid[0] == 12);
}

TEST_CASE("feature suffixes choose the code object") {
  static const ThreadsForArch threads[] = {{0, 64, "gfx90a"}};
  std::string bytes = makeBundle(
      {{kHost, ""},
       {hipEntry("gfx90a:xnack+"), codeObject("gfx90a:xnack+", "k")},
       {hipEntry("gfx90a:xnack-"), codeObject("gfx90a:xnack-", "k")}});
  static const KernelDesc kernel = {image(bytes, "k.kc", "gfx90a"), "k",
                                    threads, 1};
  const int64_t grid[3] = {1, 1, 1};
  fake.setArch(2, "gfx90a:sramecc-:xnack+");
  fake.setArch(3, "gfx90a:sramecc+:xnack-");
  fake.setArch(4, "gfx90a"); // no feature settings reported
  onDevice(2, [&] {
    Status status = hip::launch(kernel, grid, nullptr, nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(lastLoaded() == "gfx90a:xnack+");
    CHECK(lastLaunch().block[0] == 64); // matched by processor, not features
  });
  onDevice(3, [&] {
    Status status = hip::launch(kernel, grid, nullptr, nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(lastLoaded() == "gfx90a:xnack-");
  });
  onDevice(4, [&] {
    Status status = hip::launch(kernel, grid, nullptr, nullptr);
    CHECK(status.code == KCC_ERROR_NO_IMAGE);
    CHECK(status.message ==
          "kcc: cannot launch k: the offload bundle from k.kc has no image "
          "for this GPU (gfx90a); it holds gfx90a:xnack+, gfx90a:xnack-; "
          "recompile with --target=gfx90a (its gfx90a code objects require "
          "xnack/sramecc settings this GPU does not have)");
  });
}

TEST_CASE("no image for the device") {
  static const KernelDesc kernel = {vectorAddBundle(), "vector_add_f32_1024",
                                    kThreads, 2};
  fake.setArch(5, "gfx908:sramecc+:xnack-");
  const int64_t grid[3] = {1, 1, 1};
  int loads = fake.moduleLoads();
  onDevice(5, [&] {
    Status status = hip::launch(kernel, grid, nullptr, nullptr);
    CHECK(status.code == KCC_ERROR_NO_IMAGE);
    CHECK(status.message ==
          "kcc: cannot launch vector_add_f32_1024: the offload bundle from "
          "vector_add.kc has no image for this GPU (gfx908:sramecc+:xnack-); "
          "it holds gfx90a, gfx942; recompile with --target=gfx908");
  });
  CHECK(fake.moduleLoads() == loads);

  // A bundle without AMD code objects.
  static const KernelDesc hostOnly = {
      image(makeBundle({{kHost, "x"}}), "host.kc", ""), "h", kThreads, 2};
  Status status = hip::launch(hostOnly, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_NO_IMAGE);
  CHECK(contains(status.message, "it holds no AMD code objects"));

  // HIP itself refuses the chosen code object (here: its ELF says gfx942).
  static const KernelDesc lying = {
      image(makeBundle({{hipEntry("gfx90a"), codeObject("gfx942", "k")}}),
            "lie.kc", "gfx90a"),
      "k", kThreads, 2};
  status = hip::launch(lying, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_NO_IMAGE);
  CHECK(status.message ==
        "kcc: cannot launch k: the offload bundle from lie.kc has no image "
        "for this GPU (gfx90a:sramecc+:xnack-) that HIP can load; it holds "
        "gfx90a; recompile with --target=gfx90a (hipModuleLoadData: "
        "hipErrorNoBinaryForGpu (no kernel image is available for execution "
        "on the device))");
}

TEST_CASE("HIP errors name the call and the error") {
  const int64_t grid[3] = {1, 1, 1};
  static const KernelDesc missing = {vectorAddBundle(), "no_such_kernel",
                                     kThreads, 2};
  Status status = hip::launch(missing, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch no_such_kernel: hipModuleGetFunction failed: "
        "hipErrorNotFound; the offload bundle from vector_add.kc has no kernel "
        "named no_such_kernel: the launch stub and the offload bundle are out "
        "of sync, rebuild both");

  static const KernelDesc junk = {image("garbage", "junk.kc", "gfx90a"), "j",
                                  kThreads, 2};
  status = hip::launch(junk, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch j: the offload bundle from junk.kc is damaged (it "
        "does not start with __CLANG_OFFLOAD_BUNDLE__): rebuild it");

  static const KernelDesc badObject = {
      image(makeBundle({{hipEntry("gfx90a"), "not a code object"}}), "bad.kc",
            "gfx90a"),
      "b", kThreads, 2};
  status = hip::launch(badObject, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch b: hipModuleLoadData failed: hipErrorInvalidImage; "
        "the offload bundle from bad.kc is damaged: rebuild it");

  static const KernelDesc other = {
      image(makeBundle({{hipEntry("gfx90a"), codeObject("gfx90a", "o")}}),
            "o.kc", "gfx90a"),
      "o", kThreads, 2};
  fake.setLoadError(hipErrorInvalidContext);
  status = hip::launch(other, grid, nullptr, nullptr);
  fake.setLoadError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message, "hipModuleLoadData failed: "
                                 "hipErrorInvalidContext; the current HIP "
                                 "device is not usable"));
  CHECK(hip::launch(other, grid, nullptr, nullptr).ok()); // nothing cached

  static const KernelDesc vectorAdd = {vectorAddBundle(), "vector_add_f32_1024",
                                       kThreads, 2};
  fake.setLaunchError(hipErrorIllegalAddress);
  status = hip::launch(vectorAdd, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch vector_add_f32_1024: hipModuleLaunchKernel "
        "failed: hipErrorIllegalAddress (an illegal memory access was "
        "encountered); kernels run asynchronously, so an earlier launch may "
        "have caused it, and the device is now unusable (run with "
        "AMD_SERIALIZE_KERNEL=3 to find the faulting kernel)");
  fake.setLaunchError(hipErrorLaunchOutOfResources);
  status = hip::launch(vectorAdd, grid, nullptr, nullptr);
  CHECK(contains(status.message, "hipErrorLaunchOutOfResources; the kernel "
                                 "needs more registers"));
  fake.setLaunchError(1234); // a code HIP does not know
  status = hip::launch(vectorAdd, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(
      contains(status.message, "hipModuleLaunchKernel failed: HIP error 1234"));
  fake.setLaunchError(0);
  CHECK(hip::launch(vectorAdd, grid, nullptr, nullptr).ok());

  // No device at all: like a missing driver.
  int count = fake.setDeviceCount(0);
  status = hip::launch(vectorAdd, grid, nullptr, nullptr);
  fake.setDeviceCount(count);
  CHECK(status.code == KCC_ERROR_NO_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch vector_add_f32_1024: hipGetDevice failed: "
        "hipErrorNoDevice (no ROCm-capable device is detected); no AMD GPU is "
        "visible to this process (check rocminfo and HIP_VISIBLE_DEVICES)");
}

TEST_CASE("grid limits and descriptors") {
  static const KernelDesc kernel = {vectorAddBundle(), "vector_add_f32_1024",
                                    kThreads, 2};
  struct Case {
    int64_t grid[3];
    const char *needle;
  };
  const Case bad[] = {
      {{-1, 1, 1}, "grid dimension x = -1 is negative"},
      {{1, 1, -7}, "grid dimension z = -7 is negative"},
      {{int64_t(1) << 31, 1, 1},
       "grid dimension x = 2147483648 exceeds HIP's limit of 2147483647"},
      {{1, 65537, 1}, "grid dimension y = 65537 exceeds HIP's limit of 65536"},
      {{1, 1, 65537}, "grid dimension z = 65537 exceeds HIP's limit of 65536"},
      // 2^24 blocks of 256 threads: 2^32 threads in x.
      {{int64_t(1) << 24, 1, 1},
       "grid dimension x = 16777216 with 256 threads per block exceeds HIP's "
       "limit of 4294967295 threads per dimension"},
  };
  int launches = fake.launches();
  for (const Case &c : bad) {
    CAPTURE(c.needle);
    Status status = hip::launch(kernel, c.grid, nullptr, nullptr);
    CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
    CHECK(contains(status.message, "kcc: cannot launch vector_add_f32_1024: "));
    CHECK(contains(status.message, c.needle));
  }
  CHECK(fake.launches() == launches);
  const int64_t largest[3] = {(int64_t(1) << 24) - 1, 65536, 65536};
  CHECK(hip::launch(kernel, largest, nullptr, nullptr).ok());
  CHECK(lastLaunch().grid[0] == (1u << 24) - 1);
  CHECK(lastLaunch().grid[1] == 65536);

  CHECK(hip::launch(kernel, nullptr, nullptr, nullptr).code ==
        KCC_ERROR_INVALID_ARGUMENT);
  const int64_t grid[3] = {1, 1, 1};
  KernelDesc noThreads = {vectorAddBundle(), "k", kThreads, 0};
  CHECK(hip::launch(noThreads, grid, nullptr, nullptr).code ==
        KCC_ERROR_INVALID_ARGUMENT);
  KernelDesc noImage = {nullptr, "k", kThreads, 2};
  CHECK(hip::launch(noImage, grid, nullptr, nullptr).code ==
        KCC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("an unaligned code object is copied to aligned memory") {
  std::string object = codeObject("gfx90a", "u");
  std::string bytes = makeBundle({{hipEntry("gfx90a"), object}}, /*pad=*/3);
  const FatbinDesc *desc = image(bytes, "u.kc", "gfx90a");
  std::vector<offload::Entry> entries;
  std::string error;
  REQUIRE(offload::parseBundle(desc->image, desc->size, entries, error));
  REQUIRE(reinterpret_cast<uintptr_t>(entries[0].data) % 8 != 0);
  static const KernelDesc kernel = {desc, "u", kThreads, 2};
  const int64_t grid[3] = {1, 1, 1};
  Status status = hip::launch(kernel, grid, nullptr, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  const void *loaded = nullptr;
  lastLoaded(&loaded);
  CHECK(reinterpret_cast<uintptr_t>(loaded) % 8 == 0);
  CHECK(std::memcmp(loaded, object.data(), object.size()) == 0);

  // An aligned one is passed in place.
  std::string aligned = makeBundle({{hipEntry("gfx90a"), object}},
                                   /*pad=*/8 - (32 + 24 + 31) % 8);
  const FatbinDesc *inPlace = image(aligned, "a.kc", "gfx90a");
  REQUIRE(offload::parseBundle(inPlace->image, inPlace->size, entries, error));
  REQUIRE(reinterpret_cast<uintptr_t>(entries[0].data) % 8 == 0);
  static const KernelDesc kernel2 = {inPlace, "u", kThreads, 2};
  REQUIRE(hip::launch(kernel2, grid, nullptr, nullptr).ok());
  lastLoaded(&loaded);
  CHECK(loaded == entries[0].data);
}

TEST_CASE("concurrent first launches load each module once per device") {
  static const ThreadsForArch threads[] = {{0, 128, "gfx90a"}};
  std::string bytes =
      makeBundle({{hipEntry("gfx90a"), codeObject("gfx90a", "a,b,c,d")},
                  {hipEntry("gfx942"), codeObject("gfx942", "a,b,c,d")}});
  static const FatbinDesc *desc = image(bytes, "many.kc", "gfx90a, gfx942");
  static const KernelDesc kernels[] = {{desc, "a", threads, 1},
                                       {desc, "b", threads, 1},
                                       {desc, "c", threads, 1},
                                       {desc, "d", threads, 1}};
  int loads = fake.moduleLoads();
  int launches = fake.launches();
  constexpr int kThreadCount = 16, kIterations = 200;
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreadCount; ++t)
    workers.emplace_back([t, &failures] {
      // Half the threads on device 0 (gfx90a), half on device 1 (gfx942).
      if (hipSetDevice(t % 2) != hipSuccess)
        ++failures;
      for (int i = 0; i < kIterations; ++i) {
        const int64_t grid[3] = {1 + i, 1, 1};
        Status status =
            hip::launch(kernels[(t + i) % 4], grid, nullptr, nullptr);
        if (!status.ok())
          ++failures;
        if (setLastError(status) != KCC_SUCCESS || *kcc_last_error_message())
          ++failures;
      }
    });
  for (std::thread &worker : workers)
    worker.join();
  CHECK(failures.load() == 0);
  CHECK(fake.moduleLoads() == loads + 2);
  CHECK(fake.launches() == launches + kThreadCount * kIterations);
}

// Run on its own with FAKE_HIP_INIT_ERROR=100 (CTest runtime-hip-no-device):
// hipInit's result is kept for the process.
TEST_CASE("hipInit failure" * doctest::skip()) {
  REQUIRE(std::getenv("FAKE_HIP_INIT_ERROR"));
  static const KernelDesc kernel = {vectorAddBundle(), "vector_add_f32_1024",
                                    kThreads, 2};
  const int64_t grid[3] = {1, 1, 1};
  for (int i = 0; i < 2; ++i) {
    Status status = hip::launch(kernel, grid, nullptr, nullptr);
    CHECK(status.code == KCC_ERROR_NO_DRIVER);
    CHECK(status.message ==
          "kcc: cannot launch vector_add_f32_1024: hipInit failed: "
          "hipErrorNoDevice (no ROCm-capable device is detected); no AMD GPU "
          "is visible to this process (check rocminfo and "
          "HIP_VISIBLE_DEVICES)");
  }
  CHECK(fake.moduleLoads() == 0);
  void *ptr = &ptr;
  Status status = hip::workspace(kernel, 4096, nullptr, &ptr);
  CHECK(status.code == KCC_ERROR_NO_DRIVER);
  CHECK(contains(status.message, "hipInit failed: hipErrorNoDevice"));
  CHECK(ptr == nullptr);
}

int main(int argc, char **argv) {
  // The fake must be the libamdhip64.so.5 this process loaded.
  fake.setArch = reinterpret_cast<void (*)(int, const char *)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_arch"));
  fake.setDeviceCount = reinterpret_cast<int (*)(int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_device_count"));
  fake.setLoadError = reinterpret_cast<void (*)(int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_load_error"));
  fake.setLaunchError = reinterpret_cast<void (*)(int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_launch_error"));
  fake.moduleLoads =
      reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "fake_hip_module_loads"));
  fake.launches =
      reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "fake_hip_launches"));
  fake.lastLoaded = reinterpret_cast<const void *(*)(char *, size_t)>(
      dlsym(RTLD_DEFAULT, "fake_hip_last_loaded"));
  fake.lastLaunch = reinterpret_cast<void (*)(FakeHipLaunch *)>(
      dlsym(RTLD_DEFAULT, "fake_hip_last_launch"));
  fake.setMallocError = reinterpret_cast<void (*)(int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_malloc_error"));
  fake.setCapturing = reinterpret_cast<void (*)(void *, int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_capturing"));
  fake.memory = reinterpret_cast<void (*)(FakeHipMemory *)>(
      dlsym(RTLD_DEFAULT, "fake_hip_memory"));
  fake.memoryLog = reinterpret_cast<void (*)(char *, size_t)>(
      dlsym(RTLD_DEFAULT, "fake_hip_memory_log"));
  fake.setMallocFill = reinterpret_cast<void (*)(int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_malloc_fill"));
  fake.setMemsetError = reinterpret_cast<void (*)(int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_memset_error"));
  fake.propertyQueries = reinterpret_cast<int (*)()>(
      dlsym(RTLD_DEFAULT, "fake_hip_property_queries"));
  fake.setKernelTime = reinterpret_cast<void (*)(const char *, double)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_kernel_time"));
  fake.setEventError = reinterpret_cast<void (*)(const char *, int, int)>(
      dlsym(RTLD_DEFAULT, "fake_hip_set_event_error"));
  fake.events = reinterpret_cast<void (*)(FakeHipEvents *)>(
      dlsym(RTLD_DEFAULT, "fake_hip_events"));
  if (!fake.setMallocFill || !fake.setMemsetError || !fake.propertyQueries ||
      !fake.setKernelTime || !fake.setEventError || !fake.events ||
      !fake.setMallocError || !fake.setCapturing || !fake.memory ||
      !fake.memoryLog || !fake.setArch || !fake.setDeviceCount ||
      !fake.setLoadError || !fake.setLaunchError || !fake.moduleLoads ||
      !fake.launches || !fake.lastLoaded || !fake.lastLaunch) {
    std::fprintf(stderr,
                 "this test must load the fake libamdhip64.so.5 (from its "
                 "RUNPATH or LD_LIBRARY_PATH), not the real one\n");
    return 1;
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}

TEST_CASE("multiprocessorCount: the current device's compute units") {
  static const ThreadsForArch t942[] = {{0, 256, "gfx942"}};
  std::string bytes = makeBundle({{kHost, ""}});
  static const FatbinDesc *bundle = image(bytes, "k.kc", "gfx942");
  static const KernelDesc k = {bundle, "k", t942, 1};
  fake.setArch(6, "gfx942:sramecc+:xnack-");
  int64_t count = -1;
  onDevice(6, [&] {
    REQUIRE(hip::multiprocessorCount(k, &count).ok());
    CHECK(count == 4); // the fake device's
  });
}

TEST_CASE("selectVariant: the candidate built for the device's processor") {
  static const ThreadsForArch t942[] = {{0, 256, "gfx942"}};
  static const ThreadsForArch t90a[] = {{0, 128, "gfx90a"}};
  std::string bytes = makeBundle({{kHost, ""}});
  static const FatbinDesc *bundle = image(bytes, "k.kc", "gfx90a, gfx942");
  static const KernelDesc v942 = {bundle, "k_128", t942, 1};
  static const KernelDesc v90a = {bundle, "k_64", t90a, 1};
  const KernelDesc *const variants[] = {&v942, &v90a};
  fake.setArch(5, "gfx90a:sramecc+:xnack-");
  fake.setArch(6, "gfx942:sramecc+:xnack-");
  fake.setArch(7, "gfx1100");
  unsigned which = 7;
  onDevice(5, [&] {
    REQUIRE(hip::selectVariant(variants, 2, &which).ok());
    CHECK(which == 1);
  });
  onDevice(6, [&] {
    REQUIRE(hip::selectVariant(variants, 2, &which).ok());
    CHECK(which == 0);
  });
  onDevice(7, [&] { // no candidate for it: the first (its launch says why)
    REQUIRE(hip::selectVariant(variants, 2, &which).ok());
    CHECK(which == 0);
  });
}

TEST_CASE("selectTarget: the target naming the device's processor") {
  static const ThreadsForArch t942[] = {{0, 256, "gfx942"}};
  std::string bytes = makeBundle({{kHost, ""}});
  static const FatbinDesc *bundle = image(bytes, "k.kc", "gfx90a, gfx942");
  static const KernelDesc k = {bundle, "k", t942, 1};
  static const char *const targets[] = {"gfx942", "gfx90a"};
  fake.setArch(5, "gfx90a:sramecc+:xnack-");
  fake.setArch(6, "gfx942:sramecc+:xnack-");
  fake.setArch(7, "gfx1100");
  unsigned which = 7;
  onDevice(5, [&] { // the features do not matter
    REQUIRE(hip::selectTarget(k, targets, 2, &which).ok());
    CHECK(which == 1);
  });
  onDevice(6, [&] {
    REQUIRE(hip::selectTarget(k, targets, 2, &which).ok());
    CHECK(which == 0);
  });
  onDevice(7, [&] { // no target for it: the first
    which = 7;
    REQUIRE(hip::selectTarget(k, targets, 2, &which).ok());
    CHECK(which == 0);
  });
  // selectVariant's rule: the same device, the same choice.
  static const ThreadsForArch t90a[] = {{0, 128, "gfx90a"}};
  static const KernelDesc v942 = {bundle, "k_128", t942, 1};
  static const KernelDesc v90a = {bundle, "k_64", t90a, 1};
  const KernelDesc *const variants[] = {&v942, &v90a};
  for (int device : {5, 6, 7})
    onDevice(device, [&] {
      unsigned target = 7, variant = 7;
      REQUIRE(hip::selectTarget(k, targets, 2, &target).ok());
      REQUIRE(hip::selectVariant(variants, 2, &variant).ok());
      CHECK(target == variant);
    });
  // One target: no HIP query at all.
  which = 7;
  CHECK(hip::selectTarget(k, targets + 1, 1, &which).ok());
  CHECK(which == 0);
}

//===----------------------------------------------------------------------===//
// Split-K workspaces
//===----------------------------------------------------------------------===//

namespace {

FakeHipMemory memory() {
  FakeHipMemory m{};
  fake.memory(&m);
  return m;
}

/// The fake's memory calls since the last call of this.
std::string memoryLog() {
  char log[4096];
  fake.memoryLog(log, sizeof log);
  return log;
}

/// A pointer as the fake's log prints it.
std::string text(const void *p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%p", p);
  return buffer;
}

/// What the workspace logs after allocating `ptr`: its split-K tickets
/// zeroed, and the null stream waited for.
std::string ticketsZeroed(const void *ptr) {
  return "memset " + text(ptr) + " 0 4096; sync " + text(nullptr) + "; ";
}

ihipStream_t *fakeStream(uintptr_t value) {
  return reinterpret_cast<ihipStream_t *>(value);
}

const KernelDesc &splitK() {
  static const KernelDesc kernel = {vectorAddBundle(), "splitk_gemm_partial",
                                    kThreads, 2};
  return kernel;
}

constexpr size_t kMiB = size_t(1) << 20;

} // namespace

TEST_CASE("workspace: allocated once, reused, grown after the stream drains") {
  ihipStream_t *stream = fakeStream(0x6100);
  memoryLog();
  FakeHipMemory before = memory();
  void *ptr = nullptr;
  Status status = hip::workspace(splitK(), 3000000, stream, &ptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  REQUIRE(ptr != nullptr);
  CHECK(memory().allocs == before.allocs + 1);
  CHECK(memory().lastBytes == 3 * kMiB); // rounded up to 1 MiB
  CHECK(memoryLog() ==
        "alloc 3145728 -> " + text(ptr) + "; " + ticketsZeroed(ptr));

  void *again = nullptr;
  REQUIRE(hip::workspace(splitK(), 1000, stream, &again).ok());
  CHECK(again == ptr);
  REQUIRE(hip::workspace(splitK(), 3 * kMiB, stream, &again).ok());
  CHECK(again == ptr);
  CHECK(memory().allocs == before.allocs + 1);
  CHECK(memoryLog().empty());

  void *grown = nullptr;
  REQUIRE(hip::workspace(splitK(), 3 * kMiB + 1, stream, &grown).ok());
  CHECK(memoryLog() == "sync " + text(stream) + "; free " + text(ptr) +
                           "; alloc 4194304 -> " + text(grown) + "; " +
                           ticketsZeroed(grown));
  FakeHipMemory after = memory();
  CHECK(after.allocs == before.allocs + 2);
  CHECK(after.frees == before.frees + 1);
  CHECK(after.syncs == before.syncs + 3); // two memsets' waits, the stream
  CHECK(after.liveBytes == before.liveBytes + 4 * kMiB);
}

TEST_CASE("workspace: each stream and each device has its own buffer") {
  ihipStream_t *a = fakeStream(0x6200), *b = fakeStream(0x6210);
  void *pa = nullptr, *pb = nullptr, *pDefault = nullptr, *pOther = nullptr;
  REQUIRE(hip::workspace(splitK(), 4096, a, &pa).ok());
  REQUIRE(hip::workspace(splitK(), 4096, b, &pb).ok());
  REQUIRE(hip::workspace(splitK(), 4096, nullptr, &pDefault).ok());
  CHECK(pa != pb);
  CHECK(pDefault != pa);
  CHECK(pDefault != pb);
  onDevice(1,
           [&] { REQUIRE(hip::workspace(splitK(), 4096, a, &pOther).ok()); });
  CHECK(pOther != pa);
  CHECK(pOther != pb);
  void *again = nullptr;
  REQUIRE(hip::workspace(splitK(), 16, a, &again).ok());
  CHECK(again == pa);

  // No bytes: a null pointer and no HIP call.
  int allocs = memory().allocs;
  again = &again;
  CHECK(hip::workspace(splitK(), 0, a, &again).ok());
  CHECK(again == nullptr);
  CHECK(memory().allocs == allocs);
}

TEST_CASE("workspace: growing during stream capture is refused") {
  ihipStream_t *stream = fakeStream(0x6300);
  void *ptr = nullptr;
  REQUIRE(hip::workspace(splitK(), kMiB, stream, &ptr).ok());
  memoryLog();
  fake.setCapturing(stream, 1); // hipStreamCaptureStatusActive
  void *captured = nullptr;
  CHECK(hip::workspace(splitK(), 1000, stream, &captured).ok());
  CHECK(captured == ptr);
  void *refused = &refused;
  Status status = hip::workspace(splitK(), 2 * kMiB, stream, &refused);
  fake.setCapturing(stream, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message ==
        "kcc: cannot launch splitk_gemm_partial: its split-K workspace "
        "(2097152 bytes) must be allocated before the stream is captured "
        "into a graph, and this stream's has 1048576 bytes: run the launch "
        "once outside capture first, with sizes at least as large");
  CHECK(refused == nullptr);
  CHECK(memoryLog().empty());
  // Afterwards it grows; the captured buffer is kept for the graph.
  void *grown = nullptr;
  REQUIRE(hip::workspace(splitK(), 2 * kMiB, stream, &grown).ok());
  CHECK(memoryLog() == "sync " + text(stream) + "; alloc 2097152 -> " +
                           text(grown) + "; " + ticketsZeroed(grown));
}

TEST_CASE("workspace: a failed hipMalloc names the kernel and the bytes") {
  ihipStream_t *stream = fakeStream(0x6400);
  fake.setMallocError(hipErrorOutOfMemory);
  void *ptr = &ptr;
  Status status = hip::workspace(splitK(), 1500000, stream, &ptr);
  fake.setMallocError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch splitk_gemm_partial: hipMalloc(2097152) failed: "
        "hipErrorOutOfMemory (out of memory); the launch's split-K workspace "
        "needs 1500000 bytes of device memory (allocated in 1 MiB steps)");
  CHECK(ptr == nullptr);
  REQUIRE(hip::workspace(splitK(), 1500000, stream, &ptr).ok());
  CHECK(ptr != nullptr);
}

TEST_CASE("workspace: zeroing the split-K tickets fails") {
  ihipStream_t *stream = fakeStream(0x6450);
  FakeHipMemory before = memory();
  fake.setMemsetError(hipErrorInvalidValue);
  void *ptr = &ptr;
  Status status = hip::workspace(splitK(), 1000, stream, &ptr);
  fake.setMemsetError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch splitk_gemm_partial: hipMemset (zero-filling "
        "4096 bytes) failed: hipErrorInvalidValue; the launch's split-K "
        "workspace needs 1000 bytes of device memory (allocated in 1 MiB "
        "steps)");
  CHECK(ptr == nullptr);
  CHECK(memory().liveBytes == before.liveBytes); // freed again
  REQUIRE(hip::workspace(splitK(), 1000, stream, &ptr).ok());
  CHECK(ptr != nullptr);
}

//===----------------------------------------------------------------------===//
// The tuner's calls: device names, zero-filled memory, timed launches
// (devices 10..12 are used by no other test)
//===----------------------------------------------------------------------===//

namespace {

const KernelDesc &tuned() {
  static const KernelDesc kernel = {vectorAddBundle(), "tuned_gemm", kThreads,
                                    2};
  return kernel;
}
const KernelDesc &vectorAdd() {
  static const KernelDesc kernel = {vectorAddBundle(), "vector_add_f32_1024",
                                    kThreads, 2};
  return kernel;
}
const KernelDesc &softmax() {
  static const KernelDesc kernel = {vectorAddBundle(), "softmax_f32_1024",
                                    kThreads, 2};
  return kernel;
}

FakeHipEvents events() {
  FakeHipEvents e{};
  fake.events(&e);
  return e;
}

bool zeroed(const void *ptr, size_t bytes) {
  const unsigned char *p = static_cast<const unsigned char *>(ptr);
  for (size_t i = 0; i < bytes; ++i)
    if (p[i])
      return false;
  return true;
}

} // namespace

TEST_CASE("deviceName: the device's name, asked once per device ordinal") {
  fake.setArch(10, "gfx90a:sramecc+:xnack-");
  std::string name;
  int queries = fake.propertyQueries();
  onDevice(10, [&] {
    Status status = hip::deviceName(tuned(), &name);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(name == "Fake AMD GPU gfx90a");
    for (int i = 0; i < 10; ++i) {
      name.clear();
      REQUIRE(hip::deviceName(tuned(), &name).ok());
      CHECK(name == "Fake AMD GPU gfx90a");
    }
    CHECK(fake.propertyQueries() == queries + 1); // cached
  });
  // Another ordinal, set up after the first was cached: its own name.
  fake.setArch(11, "gfx942:sramecc+:xnack-");
  onDevice(11, [&] {
    REQUIRE(hip::deviceName(tuned(), &name).ok());
    CHECK(name == "Fake AMD GPU gfx942");
  });
  onDevice(10, [&] {
    REQUIRE(hip::deviceName(tuned(), &name).ok());
    CHECK(name == "Fake AMD GPU gfx90a");
  });
  CHECK(fake.propertyQueries() == queries + 2);
  // Kept per ordinal for the process: the fake changing device 11 does not
  // reach the cache.
  fake.setArch(11, "gfx1100");
  onDevice(11, [&] {
    REQUIRE(hip::deviceName(tuned(), &name).ok());
    CHECK(name == "Fake AMD GPU gfx942");
  });
  fake.setArch(11, "gfx942:sramecc+:xnack-");
  CHECK(fake.propertyQueries() == queries + 2);
}

TEST_CASE("deviceName: a failed query names the kernel and is not cached") {
  fake.setArch(12, "gfx942");
  onDevice(12, [&] {
    int previous = fake.setDeviceCount(12); // device 12 is gone
    std::string name = "stale";
    Status status = hip::deviceName(tuned(), &name);
    fake.setDeviceCount(previous);
    CHECK(status.code == KCC_ERROR_DRIVER);
    CHECK(status.message == "kcc: cannot launch tuned_gemm: "
                            "hipGetDeviceProperties failed: "
                            "hipErrorInvalidDevice");
    CHECK(name.empty());
    status = hip::deviceName(tuned(), &name);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(name == "Fake AMD GPU gfx942");
  });
  CHECK(hip::deviceName(tuned(), nullptr).code == KCC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("allocate: zero-filled device memory, freed by release") {
  fake.setMallocFill(0xa5); // what fresh device memory might hold
  memoryLog();
  FakeHipMemory before = memory();
  void *ptr = nullptr;
  Status status = hip::allocate(tuned(), 1000, &ptr);
  fake.setMallocFill(-1);
  REQUIRE_MESSAGE(status.ok(), status.message);
  REQUIRE(ptr != nullptr);
  CHECK(zeroed(ptr, 1000));
  FakeHipMemory after = memory();
  CHECK(after.allocs == before.allocs + 1);
  CHECK(after.lastBytes == 1000);
  CHECK(after.memsets == before.memsets + 1);
  // Filled, then the null stream (which the memset ran on) waited for.
  CHECK(memoryLog() == "alloc 1000 -> " + text(ptr) + "; memset " + text(ptr) +
                           " 0 1000; sync " + text(nullptr) + "; ");
  REQUIRE(hip::release(tuned(), ptr).ok());
  CHECK(memoryLog() == "free " + text(ptr) + "; ");
  CHECK(memory().liveBytes == before.liveBytes);
  CHECK(hip::release(tuned(), nullptr).ok());
  CHECK(memory().frees == before.frees + 1);

  ptr = &ptr;
  CHECK(hip::allocate(tuned(), 0, &ptr).ok());
  CHECK(ptr == nullptr);
  CHECK(memory().allocs == before.allocs + 1);

  fake.setMallocError(hipErrorOutOfMemory);
  ptr = &ptr;
  status = hip::allocate(tuned(), 4096, &ptr);
  fake.setMallocError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message == "kcc: cannot launch tuned_gemm: hipMalloc(4096) "
                          "failed: hipErrorOutOfMemory (out of memory)");
  CHECK(ptr == nullptr);
  fake.setMemsetError(hipErrorInvalidValue);
  status = hip::allocate(tuned(), 4096, &ptr);
  fake.setMemsetError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message == "kcc: cannot launch tuned_gemm: hipMemset "
                          "(zero-filling 4096 bytes) failed: "
                          "hipErrorInvalidValue");
  CHECK(ptr == nullptr);
  CHECK(memory().liveBytes == before.liveBytes); // freed again
  CHECK(hip::allocate(tuned(), 16, nullptr).code == KCC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("timeLaunches: the GPU time per launch between two events") {
  ihipStream_t *stream = fakeStream(0x7100);
  const int64_t grid[3] = {4, 1, 1};
  int calls = 0;
  auto launchVectorAdd = [&] {
    ++calls;
    return hip::launch(vectorAdd(), grid, nullptr, stream);
  };
  FakeHipEvents before = events();
  int launches = fake.launches();
  double us = -1;
  Status status =
      hip::timeLaunches(vectorAdd(), stream, 5, launchVectorAdd, &us);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(us == doctest::Approx(1000.0)); // the fake's 1 ms per launch
  CHECK(calls == 6); // one warm-up launch, before the first event
  CHECK(fake.launches() == launches + 6);
  FakeHipEvents after = events();
  CHECK(after.creates == before.creates + 2);
  CHECK(after.records == before.records + 2);
  CHECK(after.syncs == before.syncs + 1);
  CHECK(after.elapsed == before.elapsed + 1);
  CHECK(after.destroys == before.destroys + 2);
  CHECK(after.live == before.live);

  fake.setKernelTime("softmax_f32_1024", 2.5);
  status = hip::timeLaunches(
      softmax(), stream, 4,
      [&] { return hip::launch(softmax(), grid, nullptr, stream); }, &us);
  fake.setKernelTime("softmax_f32_1024", 1.0);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(us == doctest::Approx(2500.0));
}

TEST_CASE("timeLaunches: failed launches and event calls are returned") {
  ihipStream_t *stream = fakeStream(0x7200);
  const int64_t grid[3] = {1, 1, 1};
  FakeHipEvents before = events();
  int calls = 0;
  auto failing = [&] { // the third call fails
    if (++calls == 3)
      fake.setLaunchError(hipErrorIllegalAddress);
    Status status = hip::launch(vectorAdd(), grid, nullptr, stream);
    fake.setLaunchError(0);
    return status;
  };
  double us = -1;
  Status status = hip::timeLaunches(vectorAdd(), stream, 10, failing, &us);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message, "kcc: cannot launch vector_add_f32_1024: "
                                 "hipModuleLaunchKernel failed: "
                                 "hipErrorIllegalAddress"));
  CHECK(calls == 3);
  CHECK(us == 0);
  CHECK(events().live == before.live);
  CHECK(events().creates == before.creates + 2);

  calls = 0;
  status = hip::timeLaunches(vectorAdd(), stream, 0, failing, &us);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "repetitions must be at least 1"));
  CHECK(calls == 0);

  struct Case {
    const char *call;
    int after;
    int created;
  } cases[] = {{"hipEventCreate", 0, 0},      {"hipEventCreate", 1, 1},
               {"hipEventRecord", 0, 2},      {"hipEventRecord", 1, 2},
               {"hipEventSynchronize", 0, 2}, {"hipEventElapsedTime", 0, 2}};
  for (const Case &c : cases) {
    CAPTURE(c.call);
    CAPTURE(c.after);
    FakeHipEvents start = events();
    fake.setEventError(c.call, hipErrorIllegalAddress, c.after);
    status = hip::timeLaunches(
        vectorAdd(), stream, 3,
        [&] { return hip::launch(vectorAdd(), grid, nullptr, stream); }, &us);
    fake.setEventError(c.call, 0, 0);
    CHECK(status.code == KCC_ERROR_DRIVER);
    CHECK(contains(status.message,
                   std::string("kcc: cannot launch vector_add_f32_1024: ") +
                       c.call + " failed: hipErrorIllegalAddress"));
    CHECK(us == 0);
    FakeHipEvents end = events();
    CHECK(end.live == start.live);
    CHECK(end.destroys == start.destroys + c.created);
  }
}
