// The launch path against FakeCuda.cpp, a stand-in libcuda.so.1 loaded through
// KCC_CUDA_DRIVER: context selection, module/function caching, block sizes,
// the no-image and driver-error messages, and concurrent first launches.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "kcc/runtime.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace kcc;
using namespace kcc::rt;

namespace {

struct FakeLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void *stream;
  char function[128];
};

struct Fake {
  void (*setCc)(int, int);
  void (*setLaunchError)(int);
  void *(*newContext)(int);
  int (*retains)();
  int (*moduleLoads)();
  int (*launches)();
  void (*lastLaunch)(FakeLaunch *);
  int (*ctxSetCurrent)(void *);
  int (*ctxGetCurrent)(void **);
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

int main(int argc, char **argv) {
  setenv("KCC_CUDA_DRIVER", KCC_FAKE_CUDA_PATH, 1);
  void *lib = dlopen(KCC_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "cannot open %s: %s\n", KCC_FAKE_CUDA_PATH, dlerror());
    return 1;
  }
  fake.setCc = reinterpret_cast<void (*)(int, int)>(dlsym(lib, "fake_set_cc"));
  fake.setLaunchError =
      reinterpret_cast<void (*)(int)>(dlsym(lib, "fake_set_launch_error"));
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
  if (!fake.setCc || !fake.setLaunchError || !fake.newContext ||
      !fake.retains || !fake.moduleLoads || !fake.launches ||
      !fake.lastLaunch || !fake.ctxSetCurrent || !fake.ctxGetCurrent) {
    std::fprintf(stderr, "%s lacks a fake_* control\n", KCC_FAKE_CUDA_PATH);
    return 1;
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
