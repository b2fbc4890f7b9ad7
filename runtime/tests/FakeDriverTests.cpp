// The launch path against FakeCuda.cpp, a stand-in libcuda.so.1 loaded through
// KCC_CUDA_DRIVER: context selection, module/function caching, block sizes,
// dynamic shared memory, the no-image and driver-error messages, concurrent
// first launches, split-K workspaces, and the tuner's calls (device names,
// zero-filled memory, timed launches).
#define DOCTEST_CONFIG_IMPLEMENT
#include "FakeCudaControl.h"

#include <doctest/doctest.h>

#include "kcc/runtime.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace kcc;
using namespace kcc::rt;

namespace {

struct Fake {
  void (*setCc)(int, int);
  void (*setLaunchError)(int);
  void (*setProcessorCountError)(int);
  void (*setCluster)(const char *, int, int);
  void *(*newContext)(int);
  int (*retains)();
  int (*moduleLoads)();
  int (*launches)();
  void (*lastLaunch)(FakeLaunch *);
  int (*ctxSetCurrent)(void *);
  int (*ctxGetCurrent)(void **);
  void (*setEncodeError)(int);
  void (*lastEncode)(FakeEncode *);
  void (*captureParams)(unsigned, int);
  void (*capturedParams)(void **, unsigned char *);
  void (*setFuncAttributeError)(int);
  void (*lastFuncAttribute)(FakeFuncAttribute *);
  void (*setAllocError)(int);
  void (*setCapturing)(void *, int);
  void (*memory)(FakeMemory *);
  void (*memoryLog)(char *, size_t);
  void (*setAllocFill)(int);
  void (*setMemsetError)(int);
  int (*deviceNameCalls)();
  void (*setKernelTime)(const char *, double);
  void (*setEventError)(const char *, int, int);
  void (*events)(FakeEvents *);
} fake;

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

FakeLaunch lastLaunch() {
  FakeLaunch launch{};
  fake.lastLaunch(&launch);
  return launch;
}

const char kImage[] =
    "FAKEFATBIN archs=86,90 kernels=vector_add_f32_1024,softmax_f32_1024";
const FatbinDesc kFatbin = {"vector_add.kc", kImage, sizeof kImage,
                            "sm_86, sm_90a"};
const ThreadsForArch kThreads[] = {{80, 128}, {90, 256}};
const KernelDesc kVectorAdd = {&kFatbin, "vector_add_f32_1024", kThreads, 2};
const KernelDesc kSoftmax = {&kFatbin, "softmax_f32_1024", kThreads, 2};

} // namespace

TEST_CASE("first launch retains the primary context and loads the module") {
  CHECK(fake.retains() == 0);
  const int64_t grid[3] = {7, 2, 3};
  float x = 1;
  void *args[] = {&x};
  auto *stream = reinterpret_cast<CUstream_st *>(0x1234);
  Status status = launch(kVectorAdd, grid, args, stream);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(fake.retains() == 1);
  CHECK(fake.moduleLoads() == 1);
  void *ctx = nullptr;
  fake.ctxGetCurrent(&ctx);
  CHECK(ctx != nullptr); // made current on this thread

  FakeLaunch launched = lastLaunch();
  CHECK(launched.grid[0] == 7);
  CHECK(launched.grid[1] == 2);
  CHECK(launched.grid[2] == 3);
  CHECK(launched.block[0] == 128); // device is sm_86: no entry, the first one
  CHECK(launched.block[1] == 1);
  CHECK(launched.block[2] == 1);
  CHECK(launched.shared == 0);
  CHECK(launched.stream == stream);
  CHECK(std::string(launched.function) == "vector_add_f32_1024");

  // Same module for a second kernel of the same fatbin; nothing reloads.
  for (int i = 0; i < 10; ++i) {
    CHECK(launch(kVectorAdd, grid, args, nullptr).ok());
    CHECK(launch(kSoftmax, grid, args, nullptr).ok());
  }
  CHECK(fake.moduleLoads() == 1);
  CHECK(fake.retains() == 1);
  CHECK(std::string(lastLaunch().function) == "softmax_f32_1024");

  // A zero grid does not reach the driver.
  int before = fake.launches();
  const int64_t empty[3] = {0, 1, 1};
  CHECK(launch(kVectorAdd, empty, args, nullptr).ok());
  CHECK(fake.launches() == before);
}

TEST_CASE("persistent kernels launch at most N CTAs per multiprocessor") {
  // kcc --persistent=2 on the fake device's 4 multiprocessors: one row of
  // at most 8 CTAs, which loop over the tiles of every z slice.
  const KernelDesc persistent = {&kFatbin, "vector_add_f32_1024", kThreads, 2,
                                 /*persistentPerSm=*/2};
  struct Case {
    int64_t grid[3];
    unsigned launched[3];
  } cases[] = {{{100, 1, 1}, {8, 1, 1}},
               {{5, 1, 1}, {5, 1, 1}},
               {{100, 1, 3}, {8, 1, 1}},
               {{2, 1, 3}, {6, 1, 1}},
               {{100, 1, 20}, {8, 1, 1}}};
  for (const Case &c : cases) {
    Status status = launch(persistent, c.grid, nullptr, nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message);
    FakeLaunch l = lastLaunch();
    CHECK(l.grid[0] == c.launched[0]);
    CHECK(l.grid[1] == c.launched[1]);
    CHECK(l.grid[2] == c.launched[2]);
  }
  // The same grid of a kernel that is not persistent is launched as it is.
  const int64_t grid[3] = {100, 1, 1};
  REQUIRE(launch(kVectorAdd, grid, nullptr, nullptr).ok());
  CHECK(lastLaunch().grid[0] == 100);
}

TEST_CASE("a persistent cluster kernel launches whole clusters the device "
          "holds at once") {
  // kcc --clusters=2 --persistent=2 on the fake device's 4 multiprocessors:
  // at most 8 CTAs, fewer where the device holds fewer clusters at once (a
  // cluster waiting for another's whole tile loop would double the time),
  // and always whole clusters. A fresh context loads the function again and
  // reads its cluster shape.
  const KernelDesc persistent = {&kFatbin, "softmax_f32_1024", kThreads, 2,
                                 /*persistentPerSm=*/2};
  void *previous = nullptr;
  REQUIRE(fake.ctxGetCurrent(&previous) == 0);
  struct Case {
    int width, resident;
    unsigned launched;
  } cases[] = {{2, 3, 6}, {2, 10, 8}, {4, 1, 4}};
  for (const Case &c : cases) {
    fake.setCluster("softmax_f32_1024", c.width, c.resident);
    REQUIRE(fake.ctxSetCurrent(fake.newContext(0)) == 0);
    const int64_t grid[3] = {100, 1, 1};
    Status status = launch(persistent, grid, nullptr, nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(lastLaunch().grid[0] == c.launched);
  }
  fake.setCluster("softmax_f32_1024", 0, 0); // not a cluster kernel again
  REQUIRE(fake.ctxSetCurrent(previous) == 0);
}

TEST_CASE("a kernel with a persistent build launches it only for grids of "
          "more tiles than CTAs") {
  // kcc --persistent=2 compiles both builds; the fake device has 4
  // multiprocessors, so the persistent build runs 8 CTAs. (softmax stands in
  // for the persistent build's symbol.)
  static const KernelDesc build = {&kFatbin, "softmax_f32_1024", kThreads, 2,
                                   /*persistentPerSm=*/2};
  static const KernelDesc kernel = {
      &kFatbin, "vector_add_f32_1024", kThreads, 2, 0, &build};
  struct Case {
    int64_t grid[3];
    const char *function;
    unsigned launched[3];
  } cases[] = {{{8, 1, 1}, "vector_add_f32_1024", {8, 1, 1}},
               {{1, 1, 1}, "vector_add_f32_1024", {1, 1, 1}},
               {{9, 1, 1}, "softmax_f32_1024", {8, 1, 1}},
               {{1000, 1, 1}, "softmax_f32_1024", {8, 1, 1}},
               {{4, 1, 2}, "vector_add_f32_1024", {4, 1, 2}},
               {{3, 1, 3}, "softmax_f32_1024", {8, 1, 1}},
               // More tiles than the persistent build counts in i32.
               {{1 << 20, 1, 4096}, "vector_add_f32_1024", {1 << 20, 1, 4096}}};
  for (const Case &c : cases) {
    Status status = launch(kernel, c.grid, nullptr, nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message);
    FakeLaunch l = lastLaunch();
    CHECK(std::string(l.function) == c.function);
    CHECK(l.grid[0] == c.launched[0]);
    CHECK(l.grid[1] == c.launched[1]);
    CHECK(l.grid[2] == c.launched[2]);
  }
  // A stub whose persistent build is not persistent is refused before the
  // driver sees it.
  static const KernelDesc notPersistent = {&kFatbin, "softmax_f32_1024",
                                           kThreads, 2};
  static const KernelDesc broken = {
      &kFatbin, "vector_add_f32_1024", kThreads, 2, 0, &notPersistent};
  const int64_t grid[3] = {100, 1, 1};
  int before = fake.launches();
  Status status = launch(broken, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message.find("its persistent build's descriptor is not "
                            "persistent; regenerate the launch stub") !=
        std::string::npos);
  CHECK(fake.launches() == before);
}

TEST_CASE("a persistent build that is slower on the device is not launched") {
  // Its entry for the device's architecture says so (kcc: a persistent
  // build whose dots left the staged tensor-core path there): the launch
  // keeps the one-CTA-per-tile build, over the whole grid. Device 0 (sm_86)
  // takes the first entry; a device of sm_90 its own, which is not slower.
  static const ThreadsForArch buildThreads[] = {{80, 128, nullptr, 0, true},
                                                {90, 256}};
  static const KernelDesc build = {&kFatbin, "softmax_f32_1024", buildThreads,
                                   2, /*persistentPerSm=*/2};
  static const KernelDesc kernel = {
      &kFatbin, "vector_add_f32_1024", kThreads, 2, 0, &build};
  // Fresh contexts: functions are cached per context and symbol, and other
  // tests launched these symbols with other descriptors.
  const int64_t grid[3] = {100, 1, 1};
  void *saved = nullptr;
  fake.ctxGetCurrent(&saved);
  fake.ctxSetCurrent(fake.newContext(0));
  Status status = launch(kernel, grid, nullptr, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(std::string(lastLaunch().function) == "vector_add_f32_1024");
  CHECK(lastLaunch().grid[0] == 100);

  fake.setCc(1, 90);
  fake.ctxSetCurrent(fake.newContext(1));
  status = launch(kernel, grid, nullptr, nullptr);
  fake.ctxSetCurrent(saved);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(std::string(lastLaunch().function) == "softmax_f32_1024");
  CHECK(lastLaunch().grid[0] == 8);
}

TEST_CASE("another context loads its own module and picks its block size") {
  fake.setCc(1, 90);
  void *saved = nullptr;
  fake.ctxGetCurrent(&saved);
  void *other = fake.newContext(1);
  fake.ctxSetCurrent(other);
  int loads = fake.moduleLoads();
  const int64_t grid[3] = {1, 1, 1};
  Status status = launch(kVectorAdd, grid, nullptr, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(fake.moduleLoads() == loads + 1);
  CHECK(lastLaunch().block[0] == 256); // the sm_90 entry
  CHECK(fake.retains() == 1);          // a context was current: no retain
  fake.ctxSetCurrent(saved);
  CHECK(launch(kVectorAdd, grid, nullptr, nullptr).ok());
  CHECK(lastLaunch().block[0] == 128);
  CHECK(fake.moduleLoads() == loads + 1);
}

TEST_CASE("no image for the device") {
  fake.setCc(2, 80);
  void *saved = nullptr;
  fake.ctxGetCurrent(&saved);
  fake.ctxSetCurrent(fake.newContext(2));
  const int64_t grid[3] = {1, 1, 1};
  Status status = launch(kVectorAdd, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_NO_IMAGE);
  CHECK(status.message ==
        "kcc: cannot launch vector_add_f32_1024: the fatbin from vector_add.kc "
        "has no image for this GPU (sm_80); it holds sm_86, sm_90a; recompile "
        "with --target=sm_80 (cuModuleLoadData: CUDA_ERROR_NO_BINARY_FOR_GPU "
        "(no kernel image is available for execution on the device))");

  // PTX that this driver cannot JIT.
  static const char ptxImage[] = "FAKEFATBIN archs=90 ptx=100 kernels=k";
  static const FatbinDesc ptxFatbin = {"k.kc", ptxImage, sizeof ptxImage,
                                       "sm_90a (+PTX sm_100a)"};
  static const KernelDesc k = {&ptxFatbin, "k", kThreads, 2};
  fake.setCc(3, 100);
  fake.ctxSetCurrent(fake.newContext(3));
  status = launch(k, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_NO_IMAGE);
  MESSAGE(status.message);
  CHECK(contains(status.message, "the fatbin from k.kc has no image for this "
                                 "GPU (sm_100)"));
  CHECK(contains(status.message, "it holds sm_90a (+PTX sm_100a)"));
  CHECK(contains(status.message, "--target=sm_100a"));
  CHECK(contains(status.message, "newer NVIDIA driver"));
  CHECK(contains(status.message, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"));
  fake.ctxSetCurrent(saved);
}

TEST_CASE("driver failures name the call and the error") {
  const int64_t grid[3] = {1, 1, 1};
  static const KernelDesc missing = {&kFatbin, "no_such_kernel", kThreads, 2};
  Status status = launch(missing, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message, "kcc: cannot launch no_such_kernel: "
                                 "cuModuleGetFunction failed: "
                                 "CUDA_ERROR_NOT_FOUND"));
  CHECK(contains(status.message, "out of sync"));

  static const char junk[] = "garbage";
  static const FatbinDesc junkFatbin = {"junk.kc", junk, sizeof junk, "sm_90a"};
  static const KernelDesc junkKernel = {&junkFatbin, "j", kThreads, 2};
  status = launch(junkKernel, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message, "cuModuleLoadData failed: CUDA error 200"));
  CHECK(contains(status.message, "junk.kc is damaged"));

  fake.setLaunchError(700);
  status = launch(kVectorAdd, grid, nullptr, nullptr);
  fake.setLaunchError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message,
                 "kcc: cannot launch vector_add_f32_1024: cuLaunchKernel "
                 "failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access "
                 "was encountered)"));
  CHECK(launch(kVectorAdd, grid, nullptr, nullptr).ok());
}

TEST_CASE("a failed multiprocessor count query fails the launch, uncached") {
  // The first launch of a kernel in a context queries the device's
  // multiprocessors (persistent launches need them): its failure is the
  // launch's error, and the next launch queries again.
  void *saved = nullptr;
  fake.ctxGetCurrent(&saved);
  fake.ctxSetCurrent(fake.newContext(0));
  const int64_t grid[3] = {3, 1, 1};
  int before = fake.launches();
  fake.setProcessorCountError(3); // the fake names no error: "CUDA error 3"
  Status status = launch(kVectorAdd, grid, nullptr, nullptr);
  fake.setProcessorCountError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message,
                 "kcc: cannot launch vector_add_f32_1024: "
                 "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) failed: CUDA "
                 "error 3"));
  CHECK(fake.launches() == before);
  status = launch(kVectorAdd, grid, nullptr, nullptr);
  CHECK_MESSAGE(status.ok(), status.message);
  CHECK(fake.launches() == before + 1);
  fake.ctxSetCurrent(saved);
}

TEST_CASE("concurrent first launches load each module once per context") {
  static const char image[] = "FAKEFATBIN archs=86 kernels=a,b,c,d";
  static const FatbinDesc fatbin = {"many.kc", image, sizeof image, "sm_86"};
  static const KernelDesc kernels[] = {{&fatbin, "a", kThreads, 2},
                                       {&fatbin, "b", kThreads, 2},
                                       {&fatbin, "c", kThreads, 2},
                                       {&fatbin, "d", kThreads, 2}};
  int loads = fake.moduleLoads();
  int launches = fake.launches();
  constexpr int kThreadCount = 16, kIterations = 200;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreadCount; ++t)
    threads.emplace_back([t, &failures] {
      // No context is current on a new thread: the primary one is used.
      for (int i = 0; i < kIterations; ++i) {
        const int64_t grid[3] = {1 + i, 1, 1};
        Status status = launch(kernels[(t + i) % 4], grid, nullptr, nullptr);
        if (!status.ok())
          ++failures;
        if (setLastError(status) != KCC_SUCCESS || *kcc_last_error_message())
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(failures.load() == 0);
  CHECK(fake.moduleLoads() == loads + 1);
  CHECK(fake.launches() == launches + kThreadCount * kIterations);
  CHECK(fake.retains() == 1);
}

//===----------------------------------------------------------------------===//
// TMA tensor maps (encodeTensorMap)
//===----------------------------------------------------------------------===//

namespace {

constexpr uint64_t kFakeMapMagic = 0x4b43434d41500001ull; // FakeCuda.cpp

/// Makes a new context on a device of compute capability `cc` current for
/// the scope (devices 5.. are used by no other test).
struct ScopedContext {
  void *saved = nullptr;
  ScopedContext(int device, int cc) {
    fake.ctxGetCurrent(&saved);
    fake.setCc(device, cc);
    fake.ctxSetCurrent(fake.newContext(device));
  }
  ~ScopedContext() { fake.ctxSetCurrent(saved); }
};

FakeEncode lastEncode() {
  FakeEncode e{};
  fake.lastEncode(&e);
  return e;
}

bool allZero(const TensorMap &map) {
  for (uint64_t w : map.words)
    if (w)
      return false;
  return true;
}

const KernelDesc kTma = {&kFatbin, "copy_tma", kThreads, 2};
// A 16-byte aligned address that is never dereferenced.
const void *const kBase = reinterpret_cast<const void *>(uintptr_t(0x7f0000));

} // namespace

TEST_CASE("tensor maps: 2-D f32 and f16 are encoded innermost first") {
  ScopedContext scope(5, 90);
  TensorMap map;
  const int64_t dims[] = {100, 300}, strides[] = {320};
  const int32_t box[] = {32, 128};
  int calls = lastEncode().calls;
  Status status = encodeTensorMap(kTma, "src", &map, DType::f32, kBase, 2, dims,
                                  strides, box, 0);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(status.message.empty());
  FakeEncode e = lastEncode();
  CHECK(e.calls == calls + 1);
  CHECK(e.map == &map);
  CHECK(reinterpret_cast<uintptr_t>(e.map) % 64 == 0);
  CHECK(e.dataType == 7); // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  CHECK(e.rank == 2);
  CHECK(e.address == kBase);
  CHECK(e.globalDim[0] == 300);
  CHECK(e.globalDim[1] == 100);
  CHECK(e.globalStrides[0] == 320 * 4);
  CHECK(e.boxDim[0] == 128);
  CHECK(e.boxDim[1] == 32);
  CHECK(e.elementStrides[0] == 1);
  CHECK(e.elementStrides[1] == 1);
  CHECK(e.interleave == 0);  // NONE
  CHECK(e.swizzle == 0);     // NONE
  CHECK(e.l2Promotion == 2); // L2_128B
  CHECK(e.oobFill == 0);     // NONE: zeros
  CHECK(map.words[0] == kFakeMapMagic);
  CHECK(map.words[2] == 300);
  const int64_t largest[] = {1, int64_t(1) << 32}; // TMA's limit itself
  status = encodeTensorMap(kTma, "src", &map, DType::f32, kBase, 2, largest,
                           strides, box, 0);
  CHECK_MESSAGE(status.ok(), status.message);
  CHECK(lastEncode().globalDim[0] == uint64_t(1) << 32);

  // f16 with a 128-byte swizzle: the inner box row is 64 * 2 = 128 bytes.
  const int64_t hDims[] = {64, 1000}, hStrides[] = {1024};
  const int32_t hBox[] = {64, 64};
  status = encodeTensorMap(kTma, "a", &map, DType::f16, kBase, 2, hDims,
                           hStrides, hBox, 128);
  REQUIRE_MESSAGE(status.ok(), status.message);
  e = lastEncode();
  CHECK(e.dataType == 6); // FLOAT16
  CHECK(e.rank == 2);
  CHECK(e.globalDim[0] == 1000);
  CHECK(e.globalDim[1] == 64);
  CHECK(e.globalStrides[0] == 2048);
  CHECK(e.boxDim[0] == 64);
  CHECK(e.boxDim[1] == 64);
  CHECK(e.swizzle == 3); // SWIZZLE_128B

  // Rank 3, bf16, 64-byte swizzle: both strides reversed and in bytes.
  const int64_t dims3[] = {4, 10, 24}, strides3[] = {320, 32};
  const int32_t box3[] = {2, 8, 32};
  status = encodeTensorMap(kTma, "t", &map, DType::bf16, kBase, 3, dims3,
                           strides3, box3, 64);
  REQUIRE_MESSAGE(status.ok(), status.message);
  e = lastEncode();
  CHECK(e.dataType == 9); // BFLOAT16
  CHECK(e.globalDim[0] == 24);
  CHECK(e.globalDim[1] == 10);
  CHECK(e.globalDim[2] == 4);
  CHECK(e.globalStrides[0] == 64);
  CHECK(e.globalStrides[1] == 640);
  CHECK(e.boxDim[0] == 32);
  CHECK(e.boxDim[2] == 2);
  CHECK(e.swizzle == 2); // SWIZZLE_64B

  // Every element type, rank 1 (no strides); sm_100 encodes too.
  ScopedContext blackwell(6, 100);
  struct {
    DType type;
    int expected;
    int32_t box;
  } types[] = {{DType::i1, 0, 16},
               {DType::i8, 0, 16},
               {DType::i16, 1, 8},
               {DType::i32, 3, 4},
               {DType::i64, 5, 2},
               {DType::f16, 6, 8},
               {DType::bf16, 9, 8},
               {DType::f32, 7, 4},
               {DType::f64, 8, 2},
               // 8-bit floats are copied as bytes (UINT8).
               {DType::f8e4m3, 0, 16},
               {DType::f8e5m2, 0, 16}};
  for (const auto &t : types) {
    const int64_t n[] = {1000};
    status = encodeTensorMap(kTma, "v", &map, t.type, kBase, 1, n, nullptr,
                             &t.box, 0);
    INFO(dtypeName(t.type));
    REQUIRE_MESSAGE(status.ok(), status.message);
    e = lastEncode();
    CHECK(e.dataType == t.expected);
    CHECK(e.rank == 1);
    CHECK(e.globalDim[0] == 1000);
    CHECK(e.boxDim[0] == uint32_t(t.box));
  }
}

TEST_CASE("tensor maps: before sm_90 the map is zeros and nothing is checked") {
  ScopedContext scope(7, 80);
  TensorMap map;
  std::memset(&map, 0xff, sizeof map);
  int calls = lastEncode().calls;
  const int64_t dims[] = {100, 300}, strides[] = {3}; // TMA would refuse both
  const int32_t box[] = {32, 3};
  Status status = encodeTensorMap(kTma, "src", &map, DType::f32,
                                  static_cast<const char *>(kBase) + 4, 2, dims,
                                  strides, box, 0);
  CHECK(status.ok());
  CHECK(status.message.empty());
  CHECK(allZero(map));
  CHECK(lastEncode().calls == calls);
}

TEST_CASE("tensor maps: parameters TMA refuses are rejected by rule") {
  ScopedContext scope(5, 90);
  TensorMap map;
  int calls = lastEncode().calls;
  const int64_t dims[] = {100, 300}, strides[] = {320};
  const int32_t box[] = {32, 128};
  auto encode = [&](const void *base, const int64_t *d, const int64_t *s,
                    const int32_t *b, unsigned swizzle, DType type = DType::f32,
                    unsigned rank = 2) {
    std::memset(&map, 0xff, sizeof map);
    Status status =
        encodeTensorMap(kTma, "src", &map, type, base, rank, d, s, b, swizzle);
    CHECK(allZero(map));
    return status;
  };
  const std::string prefix = "kcc: copy_tma: tensor 'src': ";

  Status status =
      encode(static_cast<const char *>(kBase) + 8, dims, strides, box, 0);
  CHECK(status.code == KCC_ERROR_MISALIGNED);
  CHECK(status.message == prefix + "base address 0x7f0008 is not 16-byte "
                                   "aligned, as TMA requires");

  const int64_t oddStride[] = {322};
  status = encode(kBase, dims, oddStride, box, 0);
  CHECK(status.code == KCC_ERROR_MISALIGNED);
  CHECK(status.message == prefix + "stride 0 = 322 elements (1288 bytes) is "
                                   "not a multiple of 16 bytes, as TMA "
                                   "requires");

  const int64_t huge[] = {100, (int64_t(1) << 32) + 1};
  status = encode(kBase, huge, strides, box, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == prefix + "size 1 = 4294967297 is more than 2^32, "
                                   "the sizes a tensor map can hold");

  const int64_t farStride[] = {int64_t(1) << 38}; // 2^40 bytes of f32
  status = encode(kBase, dims, farStride, box, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == prefix + "stride 0 = 274877906944 elements is "
                                   "outside 0..2^40 bytes, the strides a "
                                   "tensor map can hold");
  const int64_t negStride[] = {-320};
  status = encode(kBase, dims, negStride, box, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "stride 0 = -320 elements is outside"));

  const int32_t bigBox[] = {257, 128};
  status = encode(kBase, dims, strides, bigBox, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == prefix + "box dimension 0 = 257 is outside 1..256, "
                                   "TMA's limit on a box side");
  const int32_t zeroBox[] = {32, 0};
  status = encode(kBase, dims, strides, zeroBox, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "box dimension 1 = 0 is outside 1..256"));

  const int32_t oddInner[] = {32, 6}; // 24 bytes
  status = encode(kBase, dims, strides, oddInner, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == prefix + "the box's inner dimension is 24 bytes, "
                                   "not a multiple of 16 as TMA requires");

  status = encode(kBase, dims, strides, box, 128); // 512-byte rows
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == prefix + "the box's inner dimension is 512 bytes, "
                                   "more than the 128-byte swizzle span");
  status = encode(kBase, dims, strides, box, 48);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message ==
        prefix + "swizzle span 48 bytes is not 0, 32, 64 or 128");

  status = encode(kBase, dims, strides, box, 0, DType::f32, 6);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message ==
        prefix + "rank 6 is outside 1..5, the ranks TMA supports");
  status = encode(kBase, dims, nullptr, box, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "null pointer"));
  status = encodeTensorMap(kTma, "src", nullptr, DType::f32, kBase, 2, dims,
                           strides, box, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "tensor map to encode into is a null"));

  CHECK(lastEncode().calls == calls); // no refused one reached the driver
}

TEST_CASE("tensor maps: an empty tensor encodes nothing") {
  ScopedContext scope(5, 90);
  TensorMap map;
  std::memset(&map, 0xff, sizeof map);
  int calls = lastEncode().calls;
  const int64_t dims[] = {0, 300}, strides[] = {320};
  const int32_t box[] = {32, 128};
  // Misaligned too: nothing is copied from an empty tensor, so it is fine.
  Status empty = encodeTensorMap(kTma, "src", &map, DType::f32,
                                 static_cast<const char *>(kBase) + 4, 2, dims,
                                 strides, box, 0);
  CHECK(empty.ok());
  CHECK(empty.message == "kcc: copy_tma: tensor 'src' is empty (sizes [0, "
                         "300]): no tensor map encoded, as a tensor map "
                         "cannot describe an empty tensor");
  CHECK(allZero(map));
  CHECK(lastEncode().calls == calls);

  // A negative size is an empty tensor too (the tensor contract).
  const int64_t negative[] = {100, -1};
  Status alsoEmpty = encodeTensorMap(kTma, "src", &map, DType::f32, kBase, 2,
                                     negative, strides, box, 0);
  CHECK(alsoEmpty.ok());
  CHECK(contains(alsoEmpty.message, "tensor 'src' is empty (sizes [100, -1])"));
  CHECK(lastEncode().calls == calls);

  const int64_t emptyGrid[3] = {0, 1, 1};
  CHECK(emptyTensorLaunch(kTma, emptyGrid, empty).ok());
  const int64_t grid[3] = {3, 1, 1};
  Status status = emptyTensorLaunch(kTma, grid, empty);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message ==
        "kcc: cannot launch copy_tma: tensor 'src' is empty (sizes [0, 300]): "
        "no tensor map encoded, as a tensor map cannot describe an empty "
        "tensor, but the grid (3, 1, 1) is not: its TMA copies would have no "
        "tensor map; skip the launch for an empty tensor");
  const int64_t badGrid[3] = {-1, 1, 1};
  status = emptyTensorLaunch(kTma, badGrid, empty);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "is negative"));
}

TEST_CASE("tensor maps: a driver failure names the call and the parameters") {
  ScopedContext scope(5, 90);
  TensorMap map;
  const int64_t dims[] = {100, 300}, strides[] = {320};
  const int32_t box[] = {32, 128};
  fake.setEncodeError(1);
  Status status = encodeTensorMap(kTma, "src", &map, DType::f32, kBase, 2, dims,
                                  strides, box, 0);
  fake.setEncodeError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch copy_tma: cuTensorMapEncodeTiled failed: "
        "CUDA_ERROR_INVALID_VALUE (fake description) for tensor 'src' (data "
        "type FLOAT32, rank 2, address 0x7f0000, innermost first: sizes [300, "
        "100], byte strides [1280], box [128, 32], element strides [1, 1], "
        "interleave none, swizzle none, L2 promotion 128B, OOB fill none)");
  CHECK(allZero(map));
}

TEST_CASE("tensor maps: a launch passes the map by address at its position") {
  ScopedContext scope(5, 90);
  TensorMap map;
  const int64_t dims[] = {100, 300}, strides[] = {320};
  const int32_t box[] = {32, 128};
  REQUIRE(encodeTensorMap(kTma, "src", &map, DType::f32, kBase, 2, dims,
                          strides, box, 0)
              .ok());
  static const char image[] = "FAKEFATBIN archs=90 kernels=copy_tma";
  static const FatbinDesc fatbin = {"tma.kc", image, sizeof image, "sm_90a"};
  static const KernelDesc kernel = {&fatbin, "copy_tma", kThreads, 2};
  const void *src = kBase;
  int32_t n = 7;
  void *args[] = {&src, &n, &map};
  fake.captureParams(3, 2);
  const int64_t grid[3] = {1, 1, 1};
  Status status = launch(kernel, grid, args, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  void *params[16];
  unsigned char bytes[128];
  fake.capturedParams(params, bytes);
  fake.captureParams(0, -1);
  CHECK(params[0] == &src);
  CHECK(params[2] == &map);
  CHECK(std::memcmp(bytes, &map, sizeof map) == 0);
  CHECK(map.words[0] == kFakeMapMagic);
}

// Run on its own (CTest runtime-fake-driver-no-tma) against the fake driver
// built without cuTensorMapEncodeTiled.
TEST_CASE("tensor maps: a driver without cuTensorMapEncodeTiled" *
          doctest::skip()) {
  ScopedContext scope(5, 90);
  TensorMap map;
  const int64_t dims[] = {100, 300}, strides[] = {320};
  const int32_t box[] = {32, 128};
  Status status = encodeTensorMap(kTma, "src", &map, DType::f32, kBase, 2, dims,
                                  strides, box, 0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message,
                 "kcc: cannot launch copy_tma: the CUDA driver ("));
  CHECK(contains(status.message,
                 ") has no cuTensorMapEncodeTiled, which kernels using TMA "
                 "need: install an NVIDIA driver for CUDA 12.0 or newer"));
  CHECK(allZero(map));
  // Kernels without tensor maps still launch.
  const int64_t grid[3] = {1, 1, 1};
  fake.setCc(0, 86);
  ScopedContext ampere(8, 86);
  CHECK(launch(kVectorAdd, grid, nullptr, nullptr).ok());
  // And before sm_90 the map is not needed.
  CHECK(encodeTensorMap(kTma, "src", &map, DType::f32, kBase, 2, dims, strides,
                        box, 0)
            .ok());
}

//===----------------------------------------------------------------------===//
// Dynamic shared memory
//===----------------------------------------------------------------------===//

namespace {

FakeFuncAttribute lastFuncAttribute() {
  FakeFuncAttribute a{};
  fake.lastFuncAttribute(&a);
  return a;
}

const char kSmemImage[] = "FAKEFATBIN archs=80,86,90 kernels=big,small,none";
const FatbinDesc kSmemFatbin = {"smem.kc", kSmemImage, sizeof kSmemImage,
                                "sm_80, sm_86, sm_90a"};
// sm_86 asks for more than its 99 KiB opt-in maximum.
const ThreadsForArch kBigThreads[] = {{80, 128, nullptr, 160000},
                                      {86, 128, nullptr, 150000},
                                      {90, 256, nullptr, 200000}};
const ThreadsForArch kSmallThreads[] = {{80, 128, nullptr, 4096},
                                        {90, 256, nullptr, 49152}};
const KernelDesc kBig = {&kSmemFatbin, "big", kBigThreads, 3};
const KernelDesc kSmall = {&kSmemFatbin, "small", kSmallThreads, 2};
const KernelDesc kNone = {&kSmemFatbin, "none", kThreads, 2};

} // namespace

TEST_CASE("dynamic shared memory: above 48 KiB the function opts in once") {
  ScopedContext scope(10, 90);
  const int64_t grid[3] = {3, 1, 1};
  int calls = lastFuncAttribute().calls;
  Status status = launch(kBig, grid, nullptr, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  FakeFuncAttribute attribute = lastFuncAttribute();
  CHECK(attribute.calls == calls + 1);
  CHECK(attribute.attribute == 8); // MAX_DYNAMIC_SHARED_SIZE_BYTES
  CHECK(attribute.value == 200000);
  CHECK(std::string(attribute.function) == "big");
  FakeLaunch launched = lastLaunch();
  CHECK(launched.block[0] == 256);
  CHECK(launched.shared == 200000);
  CHECK(std::string(launched.function) == "big");

  // The attribute stays with the loaded function: no second call.
  CHECK(launch(kBig, grid, nullptr, nullptr).ok());
  CHECK(lastFuncAttribute().calls == calls + 1);
  CHECK(lastLaunch().shared == 200000);

  // 48 KiB and less need no opt-in; the launch still passes the bytes.
  CHECK(launch(kSmall, grid, nullptr, nullptr).ok());
  CHECK(lastFuncAttribute().calls == calls + 1);
  CHECK(lastLaunch().shared == 49152);
  CHECK(launch(kNone, grid, nullptr, nullptr).ok());
  CHECK(lastLaunch().shared == 0);
}

TEST_CASE("dynamic shared memory: each target's entry gives its own bytes") {
  ScopedContext scope(11, 80);
  const int64_t grid[3] = {1, 1, 1};
  int calls = lastFuncAttribute().calls;
  Status status = launch(kBig, grid, nullptr, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(lastFuncAttribute().calls == calls + 1);
  CHECK(lastFuncAttribute().value == 160000);
  CHECK(lastLaunch().block[0] == 128);
  CHECK(lastLaunch().shared == 160000);
  CHECK(launch(kSmall, grid, nullptr, nullptr).ok());
  CHECK(lastLaunch().shared == 4096);
}

TEST_CASE("dynamic shared memory: more than the GPU allows is a clear error") {
  ScopedContext scope(12, 86);
  const int64_t grid[3] = {1, 1, 1};
  int launches = fake.launches();
  Status status = launch(kBig, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch big: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_"
        "BYTES, 150000) failed: CUDA_ERROR_INVALID_VALUE (fake description); "
        "the kernel needs 150000 bytes of shared memory per block, more than "
        "this GPU (sm_86) allows: compile it for this GPU's target");
  CHECK(fake.launches() == launches);
  // Nothing is cached for a failure: the next launch tries again.
  int calls = lastFuncAttribute().calls;
  CHECK(!launch(kBig, grid, nullptr, nullptr).ok());
  CHECK(lastFuncAttribute().calls == calls + 1);
  // Other kernels of the module are unaffected.
  CHECK(launch(kSmall, grid, nullptr, nullptr).ok());
  launches = fake.launches();

  // Any other driver failure names the call and the error.
  ScopedContext hopper(13, 90);
  fake.setFuncAttributeError(201);
  status = launch(kBig, grid, nullptr, nullptr);
  fake.setFuncAttributeError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message,
                 "kcc: cannot launch big: cuFuncSetAttribute(MAX_DYNAMIC_"
                 "SHARED_SIZE_BYTES, 200000) failed: "
                 "CUDA_ERROR_INVALID_CONTEXT"));
  CHECK(contains(status.message, "the current CUDA context is not usable"));
  CHECK(fake.launches() == launches);
  CHECK(launch(kBig, grid, nullptr, nullptr).ok());
  CHECK(lastLaunch().shared == 200000);
}

//===----------------------------------------------------------------------===//
// Split-K workspaces
//===----------------------------------------------------------------------===//

namespace {

FakeMemory memory() {
  FakeMemory m{};
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
/// zeroed, and the default stream waited for.
std::string ticketsZeroed(const void *ptr) {
  return "memset " + text(ptr) + " 0 4096; sync " + text(nullptr) + "; ";
}

CUstream_st *fakeStream(uintptr_t value) {
  return reinterpret_cast<CUstream_st *>(value);
}

const KernelDesc kSplitK = {&kFatbin, "splitk_gemm_partial", kThreads, 2};
const KernelDesc kReduce = {&kFatbin, "splitk_gemm_reduce", kThreads, 2};
constexpr size_t kMiB = size_t(1) << 20;

} // namespace

TEST_CASE("workspace: the first call allocates, smaller ones reuse it") {
  ScopedContext scope(20, 90);
  CUstream_st *stream = fakeStream(0x5100);
  memoryLog();
  FakeMemory before = memory();
  void *ptr = nullptr;
  Status status = workspace(kSplitK, 3000000, stream, &ptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  REQUIRE(ptr != nullptr);
  FakeMemory after = memory();
  CHECK(after.allocs == before.allocs + 1);
  CHECK(after.lastBytes == 3 * kMiB); // rounded up to 1 MiB
  CHECK(after.liveBytes == before.liveBytes + 3 * kMiB);
  CHECK(memoryLog() ==
        "alloc 3145728 -> " + text(ptr) + "; " + ticketsZeroed(ptr));

  // As large or smaller, for this kernel or another on the stream: the same
  // buffer, no driver call.
  for (size_t bytes : {size_t(1), size_t(4096), 3 * kMiB, size_t(3000000)}) {
    void *again = nullptr;
    REQUIRE(workspace(kSplitK, bytes, stream, &again).ok());
    CHECK(again == ptr);
    REQUIRE(workspace(kReduce, bytes, stream, &again).ok());
    CHECK(again == ptr);
  }
  after = memory();
  CHECK(after.allocs == before.allocs + 1);
  CHECK(after.frees == before.frees);
  CHECK(after.syncs == before.syncs + 1); // the tickets' memset, once
  CHECK(memoryLog().empty());
}

TEST_CASE("workspace: a larger request grows it after the stream drains") {
  ScopedContext scope(20, 90);
  CUstream_st *stream = fakeStream(0x5200);
  void *old = nullptr;
  REQUIRE(workspace(kSplitK, 1000, stream, &old).ok());
  memoryLog();
  FakeMemory before = memory();
  void *grown = nullptr;
  Status status = workspace(kSplitK, kMiB + 1, stream, &grown);
  REQUIRE_MESSAGE(status.ok(), status.message);
  REQUIRE(grown != nullptr);
  // Queued kernels may still use the old buffer: the stream is synchronized
  // before it is freed.
  CHECK(memoryLog() == "sync " + text(stream) + "; free " + text(old) +
                           "; alloc 2097152 -> " + text(grown) + "; " +
                           ticketsZeroed(grown));
  FakeMemory after = memory();
  CHECK(after.allocs == before.allocs + 1);
  CHECK(after.frees == before.frees + 1);
  CHECK(after.syncs == before.syncs + 2); // the stream; the tickets' memset
  CHECK(after.liveBytes == before.liveBytes + kMiB);
  // Grown for good.
  void *again = nullptr;
  REQUIRE(workspace(kSplitK, 1000, stream, &again).ok());
  CHECK(again == grown);
  CHECK(memoryLog().empty());
}

TEST_CASE("workspace: each stream and each context has its own buffer") {
  ScopedContext scope(20, 90);
  CUstream_st *a = fakeStream(0x5300), *b = fakeStream(0x5310);
  void *pa = nullptr, *pb = nullptr, *pDefault = nullptr;
  REQUIRE(workspace(kSplitK, 4096, a, &pa).ok());
  REQUIRE(workspace(kSplitK, 4096, b, &pb).ok());
  REQUIRE(workspace(kSplitK, 4096, nullptr, &pDefault).ok());
  CHECK(pa != nullptr);
  CHECK(pa != pb);
  CHECK(pDefault != pa);
  CHECK(pDefault != pb);
  // Growing one stream's buffer waits for that stream only.
  memoryLog();
  void *grown = nullptr;
  REQUIRE(workspace(kSplitK, 2 * kMiB, a, &grown).ok());
  CHECK(memoryLog() == "sync " + text(a) + "; free " + text(pa) +
                           "; alloc 2097152 -> " + text(grown) + "; " +
                           ticketsZeroed(grown));
  void *again = nullptr;
  REQUIRE(workspace(kSplitK, 4096, b, &again).ok());
  CHECK(again == pb);
  // The same stream handle in another context: another buffer.
  ScopedContext other(21, 90);
  REQUIRE(workspace(kSplitK, 4096, b, &again).ok());
  CHECK(again != pb);
  CHECK(again != grown);
}

TEST_CASE("workspace: no bytes is a null pointer and no driver call") {
  void *ptr = &ptr;
  FakeMemory before = memory();
  Status status = workspace(kSplitK, 0, fakeStream(0x5400), &ptr);
  CHECK(status.ok());
  CHECK(status.message.empty());
  CHECK(ptr == nullptr);
  CHECK(memory().allocs == before.allocs);
  status = workspace(kSplitK, 16, fakeStream(0x5400), nullptr);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == "kcc: cannot launch splitk_gemm_partial: the "
                          "workspace pointer to set is a null pointer");
}

TEST_CASE("workspace: growing during stream capture is refused") {
  ScopedContext scope(20, 90);
  CUstream_st *stream = fakeStream(0x5500);
  void *ptr = nullptr;
  REQUIRE(workspace(kSplitK, kMiB, stream, &ptr).ok());
  memoryLog();
  FakeMemory before = memory();
  fake.setCapturing(stream, 1); // CU_STREAM_CAPTURE_STATUS_ACTIVE
  // Large enough: captured launches may use it.
  void *captured = nullptr;
  Status status = workspace(kSplitK, 1000, stream, &captured);
  CHECK_MESSAGE(status.ok(), status.message);
  CHECK(captured == ptr);
  // Too small: allocating cannot be captured.
  void *refused = &refused;
  status = workspace(kSplitK, 5 * kMiB, stream, &refused);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message ==
        "kcc: cannot launch splitk_gemm_partial: its split-K workspace "
        "(5242880 bytes) must be allocated before the stream is captured "
        "into a graph, and this stream's has 1048576 bytes: run the launch "
        "once outside capture first, with sizes at least as large");
  CHECK(refused == nullptr);
  fake.setCapturing(stream, 2); // INVALIDATED: still capturing
  CHECK(workspace(kSplitK, 5 * kMiB, stream, &refused).code ==
        KCC_ERROR_INVALID_ARGUMENT);
  // A stream captured before its first split-K launch has nothing yet.
  CUstream_st *fresh = fakeStream(0x5510);
  fake.setCapturing(fresh, 1);
  status = workspace(kReduce, 64, fresh, &refused);
  fake.setCapturing(fresh, 0);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message ==
        "kcc: cannot launch splitk_gemm_reduce: its split-K workspace (64 "
        "bytes) must be allocated before the stream is captured into a "
        "graph, and this stream's has 0 bytes: run the launch once outside "
        "capture first, with sizes at least as large");
  FakeMemory after = memory();
  CHECK(after.allocs == before.allocs);
  CHECK(after.syncs == before.syncs);
  CHECK(memoryLog().empty());

  // After the capture it grows, but the buffer the graph captured is kept:
  // the graph may run at any time.
  fake.setCapturing(stream, 0);
  void *grown = nullptr;
  REQUIRE(workspace(kSplitK, 5 * kMiB, stream, &grown).ok());
  CHECK(memoryLog() == "sync " + text(stream) + "; alloc 5242880 -> " +
                           text(grown) + "; " + ticketsZeroed(grown));
  CHECK(memory().frees == before.frees);
}

TEST_CASE("workspace: a failed allocation names the kernel and the bytes") {
  ScopedContext scope(20, 90);
  CUstream_st *stream = fakeStream(0x5600);
  fake.setAllocError(2); // CUDA_ERROR_OUT_OF_MEMORY
  void *ptr = &ptr;
  Status status = workspace(kSplitK, 1500000, stream, &ptr);
  fake.setAllocError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch splitk_gemm_partial: cuMemAlloc(2097152) failed: "
        "CUDA_ERROR_OUT_OF_MEMORY (out of memory); the launch's split-K "
        "workspace needs 1500000 bytes of device memory (allocated in 1 MiB "
        "steps)");
  CHECK(ptr == nullptr);
  // Nothing is kept for a failure: the next call allocates.
  status = workspace(kSplitK, 1500000, stream, &ptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(ptr != nullptr);
  CHECK(memory().lastBytes == 2 * kMiB);

  // Failing to grow: the old buffer is gone, the next call starts over.
  memoryLog();
  void *old = ptr;
  fake.setAllocError(2);
  status = workspace(kSplitK, 8 * kMiB, stream, &ptr);
  fake.setAllocError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message, "cuMemAlloc(8388608) failed"));
  CHECK(ptr == nullptr);
  CHECK(memoryLog() == "sync " + text(stream) + "; free " + text(old) + "; ");
  REQUIRE(workspace(kSplitK, 1000, stream, &ptr).ok());
  CHECK(memoryLog() ==
        "alloc 1048576 -> " + text(ptr) + "; " + ticketsZeroed(ptr));
}

TEST_CASE("workspace: zeroing the split-K tickets fails") {
  ScopedContext scope(20, 90);
  CUstream_st *stream = fakeStream(0x5650);
  FakeMemory before = memory();
  fake.setMemsetError(700); // CUDA_ERROR_ILLEGAL_ADDRESS
  void *ptr = &ptr;
  Status status = workspace(kSplitK, 1000, stream, &ptr);
  fake.setMemsetError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message,
                 "kcc: cannot launch splitk_gemm_partial: cuMemsetD8 "
                 "(zero-filling 4096 bytes) failed: "
                 "CUDA_ERROR_ILLEGAL_ADDRESS"));
  CHECK(ptr == nullptr);
  CHECK(memory().liveBytes == before.liveBytes); // freed again
  // Nothing is kept for a failure: the next call allocates and zeroes.
  memoryLog();
  REQUIRE(workspace(kSplitK, 1000, stream, &ptr).ok());
  CHECK(memoryLog() ==
        "alloc 1048576 -> " + text(ptr) + "; " + ticketsZeroed(ptr));
}

TEST_CASE("workspace: concurrent callers on their own streams") {
  ScopedContext scope(20, 90);
  constexpr int kThreadCount = 8, kIterations = 100;
  std::atomic<int> failures{0};
  void *last[kThreadCount] = {};
  std::vector<std::thread> threads;
  void *ctx = nullptr;
  fake.ctxGetCurrent(&ctx);
  for (int t = 0; t < kThreadCount; ++t)
    threads.emplace_back([t, ctx, &failures, &last] {
      fake.ctxSetCurrent(ctx);
      CUstream_st *stream = fakeStream(0x5700 + 0x10 * t);
      for (int i = 0; i < kIterations; ++i) {
        // Grows four times (1..4 MiB), then reuses.
        size_t bytes = (size_t(i % 40) / 10 + 1) * kMiB;
        void *ptr = nullptr;
        if (!workspace(kSplitK, bytes, stream, &ptr).ok() || !ptr)
          ++failures;
        last[t] = ptr;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(failures.load() == 0);
  for (int t = 0; t < kThreadCount; ++t)
    for (int u = t + 1; u < kThreadCount; ++u)
      CHECK(last[t] != last[u]);
}

int main(int argc, char **argv) {
  // FAKE_CUDA_NO_TMA=1: the fake driver built without cuTensorMapEncodeTiled
  // (the driver is opened once per process, so that is a run of its own).
  const char *noTma = std::getenv("FAKE_CUDA_NO_TMA");
  const char *path =
      noTma && *noTma ? KCC_FAKE_CUDA_NO_TMA_PATH : KCC_FAKE_CUDA_PATH;
  setenv("KCC_CUDA_DRIVER", path, 1);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "cannot open %s: %s\n", path, dlerror());
    return 1;
  }
  fake.setCc = reinterpret_cast<void (*)(int, int)>(dlsym(lib, "fake_set_cc"));
  fake.setLaunchError =
      reinterpret_cast<void (*)(int)>(dlsym(lib, "fake_set_launch_error"));
  fake.setProcessorCountError = reinterpret_cast<void (*)(int)>(
      dlsym(lib, "fake_set_processor_count_error"));
  fake.setCluster = reinterpret_cast<void (*)(const char *, int, int)>(
      dlsym(lib, "fake_set_cluster"));
  fake.newContext =
      reinterpret_cast<void *(*)(int)>(dlsym(lib, "fake_new_context"));
  fake.retains = reinterpret_cast<int (*)()>(dlsym(lib, "fake_retains"));
  fake.moduleLoads =
      reinterpret_cast<int (*)()>(dlsym(lib, "fake_module_loads"));
  fake.launches = reinterpret_cast<int (*)()>(dlsym(lib, "fake_launches"));
  fake.lastLaunch =
      reinterpret_cast<void (*)(FakeLaunch *)>(dlsym(lib, "fake_last_launch"));
  fake.ctxSetCurrent =
      reinterpret_cast<int (*)(void *)>(dlsym(lib, "cuCtxSetCurrent"));
  fake.ctxGetCurrent =
      reinterpret_cast<int (*)(void **)>(dlsym(lib, "cuCtxGetCurrent"));
  fake.setEncodeError =
      reinterpret_cast<void (*)(int)>(dlsym(lib, "fake_set_encode_error"));
  fake.lastEncode =
      reinterpret_cast<void (*)(FakeEncode *)>(dlsym(lib, "fake_last_encode"));
  fake.captureParams = reinterpret_cast<void (*)(unsigned, int)>(
      dlsym(lib, "fake_capture_params"));
  fake.capturedParams = reinterpret_cast<void (*)(void **, unsigned char *)>(
      dlsym(lib, "fake_captured_params"));
  fake.setFuncAttributeError = reinterpret_cast<void (*)(int)>(
      dlsym(lib, "fake_set_func_attribute_error"));
  fake.lastFuncAttribute = reinterpret_cast<void (*)(FakeFuncAttribute *)>(
      dlsym(lib, "fake_last_func_attribute"));
  fake.setAllocError =
      reinterpret_cast<void (*)(int)>(dlsym(lib, "fake_set_alloc_error"));
  fake.setCapturing =
      reinterpret_cast<void (*)(void *, int)>(dlsym(lib, "fake_set_capturing"));
  fake.memory =
      reinterpret_cast<void (*)(FakeMemory *)>(dlsym(lib, "fake_memory"));
  fake.memoryLog =
      reinterpret_cast<void (*)(char *, size_t)>(dlsym(lib, "fake_memory_log"));
  fake.setAllocFill =
      reinterpret_cast<void (*)(int)>(dlsym(lib, "fake_set_alloc_fill"));
  fake.setMemsetError =
      reinterpret_cast<void (*)(int)>(dlsym(lib, "fake_set_memset_error"));
  fake.deviceNameCalls =
      reinterpret_cast<int (*)()>(dlsym(lib, "fake_device_name_calls"));
  fake.setKernelTime = reinterpret_cast<void (*)(const char *, double)>(
      dlsym(lib, "fake_set_kernel_time"));
  fake.setEventError = reinterpret_cast<void (*)(const char *, int, int)>(
      dlsym(lib, "fake_set_event_error"));
  fake.events =
      reinterpret_cast<void (*)(FakeEvents *)>(dlsym(lib, "fake_events"));
  if (!fake.setAllocFill || !fake.setMemsetError || !fake.deviceNameCalls ||
      !fake.setKernelTime || !fake.setEventError || !fake.events) {
    std::fprintf(stderr, "%s lacks a fake_* control\n", path);
    return 1;
  }
  if (!fake.setAllocError || !fake.setCapturing || !fake.memory ||
      !fake.memoryLog || !fake.setFuncAttributeError ||
      !fake.lastFuncAttribute || !fake.setEncodeError || !fake.lastEncode ||
      !fake.captureParams || !fake.capturedParams || !fake.setCc ||
      !fake.setLaunchError || !fake.setProcessorCountError ||
      !fake.setCluster || !fake.newContext || !fake.retains ||
      !fake.moduleLoads || !fake.launches || !fake.lastLaunch ||
      !fake.ctxSetCurrent || !fake.ctxGetCurrent) {
    std::fprintf(stderr, "%s lacks a fake_* control\n", path);
    return 1;
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}

//===----------------------------------------------------------------------===//
// Variant selection (launch functions over tunable constants)

TEST_CASE("multiprocessorCount: the current device's, or the driver's error") {
  static const ThreadsForArch t90[] = {{90, 128}};
  static const KernelDesc k = {&kFatbin, "k", t90, 1};
  ScopedContext hopper(8, 90);
  int64_t count = -1;
  REQUIRE(multiprocessorCount(k, &count).ok());
  CHECK(count == 4);                // the fake device's
  fake.setProcessorCountError(101); // CUDA_ERROR_INVALID_DEVICE
  Status failed = multiprocessorCount(k, &count);
  fake.setProcessorCountError(0);
  CHECK_FALSE(failed.ok());
  CHECK(failed.message.find("MULTIPROCESSOR_COUNT") != std::string::npos);
  CHECK(count == 0);
}

TEST_CASE("selectVariant: the candidate built for the device's architecture") {
  static const ThreadsForArch t80[] = {{80, 128}};
  static const ThreadsForArch t90[] = {{90, 384, nullptr, 98304}};
  static const ThreadsForArch t100[] = {{100, 384}};
  static const KernelDesc v80 = {&kFatbin, "k_64", t80, 1};
  static const KernelDesc v90 = {&kFatbin, "k_128", t90, 1};
  static const KernelDesc v100 = {&kFatbin, "k_256", t100, 1};
  const KernelDesc *const variants[] = {&v80, &v90, &v100};
  unsigned which = 7;
  {
    ScopedContext hopper(8, 90);
    REQUIRE(selectVariant(variants, 3, &which).ok());
    CHECK(which == 1);
  }
  {
    ScopedContext ampere(8, 86); // the sm_80 cubin runs on sm_86
    REQUIRE(selectVariant(variants, 3, &which).ok());
    CHECK(which == 0);
  }
  {
    ScopedContext blackwell(8, 100);
    REQUIRE(selectVariant(variants, 3, &which).ok());
    CHECK(which == 2);
  }
  {
    ScopedContext newer(8, 120); // no cubin: the newest target's PTX
    REQUIRE(selectVariant(variants, 3, &which).ok());
    CHECK(which == 2);
  }
  {
    ScopedContext turing(8, 75); // nothing fits: the newest, whose launch
                                 // then reports the missing image
    REQUIRE(selectVariant(variants, 3, &which).ok());
    CHECK(which == 2);
  }
  // One candidate: no driver query at all.
  which = 7;
  CHECK(selectVariant(variants, 1, &which).ok());
  CHECK(which == 0);
}

TEST_CASE("selectTarget: the target the device's code comes from") {
  static const ThreadsForArch t90[] = {{90, 128}};
  static const KernelDesc k = {&kFatbin, "k", t90, 1};
  static const unsigned sms[] = {80, 90, 100};
  unsigned which = 7;
  {
    ScopedContext hopper(8, 90); // exact
    REQUIRE(selectTarget(k, sms, 3, &which).ok());
    CHECK(which == 1);
    REQUIRE(selectTarget(k, sms, 2, &which).ok());
    CHECK(which == 1);
  }
  {
    ScopedContext ampere(8, 86); // the sm_80 cubin runs on sm_86
    REQUIRE(selectTarget(k, sms, 2, &which).ok());
    CHECK(which == 0);
    REQUIRE(selectTarget(k, sms, 3, &which).ok());
    CHECK(which == 0);
  }
  {
    ScopedContext blackwell(8, 103); // the sm_100 cubin, not the newest
    static const unsigned withNewer[] = {100, 120, 90};
    REQUIRE(selectTarget(k, withNewer, 3, &which).ok());
    CHECK(which == 0);
  }
  {
    ScopedContext newer(8, 120); // no cubin: the newest target's PTX
    REQUIRE(selectTarget(k, sms, 3, &which).ok());
    CHECK(which == 2);
    static const unsigned unordered[] = {100, 80, 90};
    REQUIRE(selectTarget(k, unordered, 3, &which).ok());
    CHECK(which == 0);
  }
  {
    ScopedContext turing(8, 75); // nothing fits: the newest
    REQUIRE(selectTarget(k, sms, 3, &which).ok());
    CHECK(which == 2);
  }
  // selectVariant's rule: the same device, the same choice.
  static const ThreadsForArch t80[] = {{80, 128}};
  static const ThreadsForArch t100[] = {{100, 384}};
  static const KernelDesc v80 = {&kFatbin, "k_64", t80, 1};
  static const KernelDesc v90 = {&kFatbin, "k_128", t90, 1};
  static const KernelDesc v100 = {&kFatbin, "k_256", t100, 1};
  const KernelDesc *const variants[] = {&v80, &v90, &v100};
  for (int cc : {75, 80, 86, 89, 90, 100, 103, 120}) {
    ScopedContext device(8, cc);
    unsigned target = 7, variant = 7;
    REQUIRE(selectTarget(k, sms, 3, &target).ok());
    REQUIRE(selectVariant(variants, 3, &variant).ok());
    CHECK(target == variant);
  }
  // One target (or none): no driver query at all.
  which = 7;
  CHECK(selectTarget(k, sms, 1, &which).ok());
  CHECK(which == 0);
  which = 7;
  CHECK(selectTarget(k, nullptr, 0, &which).ok());
  CHECK(which == 0);
}

TEST_CASE("selectTarget: a failed device query names the kernel") {
  static const ThreadsForArch t90[] = {{90, 128}};
  static const KernelDesc k = {&kFatbin, "gemm_by_target", t90, 1};
  static const unsigned sms[] = {80, 90};
  void *saved = nullptr;
  fake.ctxGetCurrent(&saved);
  // A context on a device the fake knows no compute capability of: its
  // cuDeviceGetAttribute fails.
  fake.ctxSetCurrent(fake.newContext(42));
  unsigned which = 7;
  Status failed = selectTarget(k, sms, 2, &which);
  unsigned one = 7;
  Status single = selectTarget(k, sms, 1, &one); // never asks the driver
  fake.ctxSetCurrent(saved);
  CHECK(failed.code == KCC_ERROR_DRIVER);
  CHECK(failed.message.find("gemm_by_target") != std::string::npos);
  CHECK(failed.message.find("cuDeviceGetAttribute") != std::string::npos);
  CHECK(which == 0);
  CHECK(single.ok());
  CHECK(one == 0);
}

//===----------------------------------------------------------------------===//
// The tuner's calls: device names, zero-filled memory, timed launches
// (devices 30..39 are used by no other test)
//===----------------------------------------------------------------------===//

namespace {

const KernelDesc kTuned = {&kFatbin, "tuned_gemm", kThreads, 2};

FakeEvents events() {
  FakeEvents e{};
  fake.events(&e);
  return e;
}

/// Whether the `bytes` bytes at `ptr` are all zero.
bool zeroed(const void *ptr, size_t bytes) {
  const unsigned char *p = static_cast<const unsigned char *>(ptr);
  for (size_t i = 0; i < bytes; ++i)
    if (p[i])
      return false;
  return true;
}

} // namespace

TEST_CASE("deviceName: the device's name, asked once per device ordinal") {
  std::string name;
  int calls = fake.deviceNameCalls();
  {
    ScopedContext hopper(30, 90);
    Status status = deviceName(kTuned, &name);
    REQUIRE_MESSAGE(status.ok(), status.message);
    CHECK(status.message.empty());
    CHECK(name == "Fake GPU 9.0");
    CHECK(fake.deviceNameCalls() == calls + 1);
    for (int i = 0; i < 10; ++i) {
      name.clear();
      REQUIRE(deviceName(kTuned, &name).ok());
      CHECK(name == "Fake GPU 9.0");
    }
    CHECK(fake.deviceNameCalls() == calls + 1); // cached
  }
  {
    // Another ordinal, with a compute capability set after the first was
    // cached: its own name.
    ScopedContext blackwell(31, 100);
    REQUIRE(deviceName(kTuned, &name).ok());
    CHECK(name == "Fake GPU 10.0");
    CHECK(fake.deviceNameCalls() == calls + 2);
  }
  {
    // Another context on the first device: the cached name, unchanged.
    ScopedContext hopper(30, 90);
    REQUIRE(deviceName(kTuned, &name).ok());
    CHECK(name == "Fake GPU 9.0");
    CHECK(fake.deviceNameCalls() == calls + 2);
  }
  // Names are kept per ordinal for the process (a device's name cannot
  // change): the fake changing device 31 does not reach the cache.
  {
    ScopedContext changed(31, 120);
    REQUIRE(deviceName(kTuned, &name).ok());
    CHECK(name == "Fake GPU 10.0");
  }
  CHECK(fake.deviceNameCalls() == calls + 2);
}

TEST_CASE("deviceName: a failed query names the kernel and is not cached") {
  void *saved = nullptr;
  fake.ctxGetCurrent(&saved);
  // A context on a device the fake knows nothing of: cuDeviceGetName fails.
  fake.ctxSetCurrent(fake.newContext(32));
  std::string name = "stale";
  Status status = deviceName(kTuned, &name);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message ==
        "kcc: cannot launch tuned_gemm: cuDeviceGetName failed: "
        "CUDA_ERROR_INVALID_DEVICE (fake description)");
  CHECK(name.empty());
  // Once the device answers, its name is returned (and then kept).
  fake.setCc(32, 89);
  status = deviceName(kTuned, &name);
  fake.ctxSetCurrent(saved);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(name == "Fake GPU 8.9");

  CHECK(deviceName(kTuned, nullptr).message ==
        "kcc: cannot launch tuned_gemm: the device name to set is a null "
        "pointer");
}

TEST_CASE("deviceName: the primary context without a current one, and "
          "from many threads") {
  std::atomic<int> failures{0};
  std::thread primary([&failures] {
    // A new thread has no current context: device 0's primary one is used
    // (and made current), as launch() does.
    std::string name;
    Status status = deviceName(kTuned, &name);
    void *ctx = nullptr;
    fake.ctxGetCurrent(&ctx);
    if (!status.ok() || name.rfind("Fake GPU ", 0) != 0 || !ctx)
      ++failures;
  });
  primary.join();
  CHECK(failures.load() == 0);

  fake.setCc(33, 80);
  void *ctx = fake.newContext(33);
  int calls = fake.deviceNameCalls();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([ctx, &failures] {
      fake.ctxSetCurrent(ctx);
      for (int i = 0; i < 200; ++i) {
        std::string name;
        if (!deviceName(kTuned, &name).ok() || name != "Fake GPU 8.0")
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(failures.load() == 0);
  // Racing first calls may each ask; later ones never do.
  CHECK(fake.deviceNameCalls() > calls);
  CHECK(fake.deviceNameCalls() <= calls + 8);
}

TEST_CASE("allocate: zero-filled device memory, freed by release") {
  ScopedContext scope(34, 90);
  fake.setAllocFill(0xa5); // what fresh device memory might hold
  memoryLog();
  FakeMemory before = memory();
  void *ptr = nullptr;
  Status status = allocate(kTuned, 1000, &ptr);
  fake.setAllocFill(-1);
  REQUIRE_MESSAGE(status.ok(), status.message);
  REQUIRE(ptr != nullptr);
  CHECK(zeroed(ptr, 1000));
  FakeMemory after = memory();
  CHECK(after.allocs == before.allocs + 1);
  CHECK(after.lastBytes == 1000); // exactly: no workspace rounding
  CHECK(after.memsets == before.memsets + 1);
  CHECK(after.liveBytes == before.liveBytes + 1000);
  // Filled, then the default stream (which the memset ran on) waited for.
  CHECK(memoryLog() == "alloc 1000 -> " + text(ptr) + "; memset " + text(ptr) +
                           " 0 1000; sync " + text(nullptr) + "; ");

  status = release(kTuned, ptr);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(memory().liveBytes == before.liveBytes);
  CHECK(memoryLog() == "free " + text(ptr) + "; ");
  // Nothing to release: no driver call.
  CHECK(release(kTuned, nullptr).ok());
  CHECK(memory().frees == before.frees + 1);

  // No bytes: a null pointer and no driver call.
  ptr = &ptr;
  CHECK(allocate(kTuned, 0, &ptr).ok());
  CHECK(ptr == nullptr);
  CHECK(memory().allocs == before.allocs + 1);
  CHECK(memoryLog().empty());
}

TEST_CASE("allocate: failures name the kernel and leave nothing allocated") {
  ScopedContext scope(34, 90);
  FakeMemory before = memory();
  fake.setAllocError(2); // CUDA_ERROR_OUT_OF_MEMORY
  void *ptr = &ptr;
  Status status = allocate(kTuned, 4096, &ptr);
  fake.setAllocError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message == "kcc: cannot launch tuned_gemm: cuMemAlloc(4096) "
                          "failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  CHECK(ptr == nullptr);

  fake.setMemsetError(700);
  ptr = &ptr;
  status = allocate(kTuned, 4096, &ptr);
  fake.setMemsetError(0);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message,
                 "kcc: cannot launch tuned_gemm: cuMemsetD8 (zero-filling "
                 "4096 bytes) failed: CUDA_ERROR_ILLEGAL_ADDRESS"));
  CHECK(ptr == nullptr);
  CHECK(memory().liveBytes == before.liveBytes); // freed again

  CHECK(allocate(kTuned, 16, nullptr).code == KCC_ERROR_INVALID_ARGUMENT);
  int unallocated = 0;
  status = release(kTuned, &unallocated);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(status.message == "kcc: cannot launch tuned_gemm: cuMemFree failed: "
                          "CUDA_ERROR_INVALID_VALUE (fake description)");
}

TEST_CASE("timeLaunches: the GPU time per launch between two events") {
  ScopedContext scope(35, 90);
  CUstream_st *stream = fakeStream(0x7100);
  const int64_t grid[3] = {4, 1, 1};
  int calls = 0;
  auto vectorAdd = [&] {
    ++calls;
    return launch(kVectorAdd, grid, nullptr, stream);
  };
  FakeEvents before = events();
  int launches = fake.launches();
  double us = -1;
  Status status = timeLaunches(kVectorAdd, stream, 5, vectorAdd, &us);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(us == doctest::Approx(1000.0)); // the fake's 1 ms per launch
  // One warm-up launch, before the first event: not timed.
  CHECK(calls == 6);
  CHECK(fake.launches() == launches + 6);
  CHECK(lastLaunch().stream == stream);
  FakeEvents after = events();
  CHECK(after.creates == before.creates + 2);
  CHECK(after.records == before.records + 2);
  CHECK(after.syncs == before.syncs + 1);
  CHECK(after.elapsedV2 == before.elapsedV2 + 1); // cuda.h's name for it
  CHECK(after.elapsedUnversioned == before.elapsedUnversioned);
  CHECK(after.destroys == before.destroys + 2);
  CHECK(after.live == before.live);

  // The fake's clock by kernel: a 2.5 ms kernel, and a launch function
  // that launches both.
  fake.setKernelTime("softmax_f32_1024", 2.5);
  status = timeLaunches(
      kSoftmax, stream, 4,
      [&] { return launch(kSoftmax, grid, nullptr, stream); }, &us);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(us == doctest::Approx(2500.0));
  status = timeLaunches(
      kSoftmax, stream, 3,
      [&] {
        Status first = launch(kVectorAdd, grid, nullptr, stream);
        return first.ok() ? launch(kSoftmax, grid, nullptr, stream) : first;
      },
      &us);
  fake.setKernelTime("softmax_f32_1024", 1.0);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(us == doctest::Approx(3500.0));
  // One repetition is enough.
  calls = 0;
  REQUIRE(timeLaunches(kVectorAdd, stream, 1, vectorAdd, &us).ok());
  CHECK(us == doctest::Approx(1000.0));
  CHECK(calls == 2);
  CHECK(events().live == before.live);
}

TEST_CASE("timeLaunches: the first failed launch is returned") {
  ScopedContext scope(35, 90);
  CUstream_st *stream = fakeStream(0x7200);
  const int64_t grid[3] = {1, 1, 1};
  FakeEvents before = events();
  // The third call (the warm-up, one timed launch, then this) fails.
  int calls = 0;
  auto failing = [&] {
    if (++calls == 3)
      fake.setLaunchError(700);
    Status status = launch(kVectorAdd, grid, nullptr, stream);
    fake.setLaunchError(0);
    return status;
  };
  double us = -1;
  Status status = timeLaunches(kVectorAdd, stream, 10, failing, &us);
  CHECK(status.code == KCC_ERROR_DRIVER);
  CHECK(contains(status.message,
                 "kcc: cannot launch vector_add_f32_1024: cuLaunchKernel "
                 "failed: CUDA_ERROR_ILLEGAL_ADDRESS"));
  CHECK(calls == 3); // no launch after the failed one
  CHECK(us == 0);
  FakeEvents after = events();
  CHECK(after.creates == before.creates + 2);
  CHECK(after.live == before.live); // destroyed all the same
  CHECK(after.elapsedV2 == before.elapsedV2);

  // Any Status is passed through as it is; a failed warm-up creates no
  // events.
  calls = 0;
  status = timeLaunches(
      kVectorAdd, stream, 10,
      [&] {
        ++calls;
        Status refused;
        refused.code = KCC_ERROR_NOT_DIVISIBLE;
        refused.message = "kcc: n must be a multiple of 16";
        return refused;
      },
      &us);
  CHECK(status.code == KCC_ERROR_NOT_DIVISIBLE);
  CHECK(status.message == "kcc: n must be a multiple of 16");
  CHECK(calls == 1);
  CHECK(events().creates == after.creates);

  // No repetitions: refused before anything runs.
  calls = 0;
  us = -1;
  status = timeLaunches(kVectorAdd, stream, 0, failing, &us);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == "kcc: cannot launch vector_add_f32_1024: timing 0 "
                          "launches: repetitions must be at least 1");
  CHECK(calls == 0);
  CHECK(us == 0);
}

TEST_CASE("timeLaunches: a failed event call names it; events are destroyed") {
  ScopedContext scope(35, 90);
  CUstream_st *stream = fakeStream(0x7300);
  const int64_t grid[3] = {1, 1, 1};
  struct Case {
    const char *call;
    int after; // calls that succeed first
    int created;
  } cases[] = {{"cuEventCreate", 0, 0},      {"cuEventCreate", 1, 1},
               {"cuEventRecord", 0, 2},      {"cuEventRecord", 1, 2},
               {"cuEventSynchronize", 0, 2}, {"cuEventElapsedTime", 0, 2}};
  for (const Case &c : cases) {
    CAPTURE(c.call);
    CAPTURE(c.after);
    FakeEvents before = events();
    fake.setEventError(c.call, 700, c.after); // CUDA_ERROR_ILLEGAL_ADDRESS
    double us = -1;
    Status status = timeLaunches(
        kVectorAdd, stream, 3,
        [&] { return launch(kVectorAdd, grid, nullptr, stream); }, &us);
    fake.setEventError(c.call, 0, 0);
    CHECK(status.code == KCC_ERROR_DRIVER);
    CHECK(contains(status.message, std::string("kcc: cannot launch "
                                               "vector_add_f32_1024: ") +
                                       c.call +
                                       " failed: CUDA_ERROR_ILLEGAL_ADDRESS"));
    CHECK(us == 0);
    FakeEvents after = events();
    CHECK(after.live == before.live);
    CHECK(after.destroys == before.destroys + c.created);
  }
}

// Run on its own (CTest runtime-fake-driver-no-tma) against the fake driver
// of CUDA 11, which has no cuEventElapsedTime_v2 (CUDA 12.8) either.
TEST_CASE("timeLaunches: a driver without cuEventElapsedTime_v2" *
          doctest::skip()) {
  ScopedContext scope(36, 86);
  const int64_t grid[3] = {1, 1, 1};
  FakeEvents before = events();
  double us = -1;
  Status status = timeLaunches(
      kVectorAdd, nullptr, 2,
      [&] { return launch(kVectorAdd, grid, nullptr, nullptr); }, &us);
  REQUIRE_MESSAGE(status.ok(), status.message);
  CHECK(us == doctest::Approx(1000.0));
  FakeEvents after = events();
  CHECK(after.elapsedUnversioned == before.elapsedUnversioned + 1);
  CHECK(after.elapsedV2 == before.elapsedV2);
  CHECK(after.live == before.live);
}
