// kcc runtime tests that need no GPU: fact checks, grid validation, the
// no-driver path, last-error plumbing and thread safety of the error paths.
// If this machine has a CUDA driver, KCC_CUDA_DRIVER is pointed at a missing
// file first, so the no-driver path is exercised everywhere.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "kcc/dispatch.h"
#include "kcc/runtime.h"
#include "kcc/split_k.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace kcc;
using namespace kcc::rt;

namespace {

bool realDriverPresent = false;

const FatbinDesc kFatbin = {"vector_add.kc", "not a fatbin", 13,
                            "sm_80, sm_90a, sm_100a (+PTX sm_100a)"};
const ThreadsForArch kThreads[] = {{80, 128}, {90, 256}, {100, 256}};
const KernelDesc kVectorAdd = {&kFatbin, "vector_add_f32_1024", kThreads, 3};
const KernelDesc kSoftmax = {&kFatbin, "softmax_f32_1024", kThreads, 3};

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

} // namespace

TEST_CASE("splitKSlices: small grids with long K loops split, full ones not") {
  using kcc::rt::splitKSlices;
  // 64 output tiles, 224 iterations (4096 x 14336 at 64 x 64) on 132
  // multiprocessors: two slices fill 128 of them.
  CHECK(splitKSlices(64, 224, 132, 1.0) == 2);
  // 16 tiles: more slices (at most kMaxSplitKSlices), still one wave.
  int64_t s16 = splitKSlices(16, 224, 132, 1.0);
  CHECK(s16 > 2);
  CHECK(s16 <= kcc::rt::kMaxSplitKSlices);
  CHECK(16 * s16 <= 132);
  // A grid that fills the GPU, or a short loop, is never split.
  CHECK(splitKSlices(132, 224, 132, 1.0) == 1);
  CHECK(splitKSlices(1000, 4096, 132, 1.0) == 1);
  CHECK(splitKSlices(1, 3, 132, 1.0) == 1);
  // Every slice keeps two iterations; at most kMaxSplitKSlices.
  CHECK(splitKSlices(1, 8, 132, 0.0) <= 4);
  CHECK(splitKSlices(1, 100000, 132, 0.0) == kcc::rt::kMaxSplitKSlices);
  // Degenerate sizes: no split.
  CHECK(splitKSlices(0, 224, 132, 1.0) == 1);
  CHECK(splitKSlices(64, 224, 0, 1.0) == 1);
  // Expensive partial tiles (a wide f32 tile over a short k step) split less.
  CHECK(splitKSlices(16, 224, 132, 16.0) <= s16);
}

//===----------------------------------------------------------------------===//
// launchCycles (dispatch.h): properties any version of the model keeps; no
// cycle counts, so its body can be tuned without touching these.

namespace {

/// H200-like rates.
MachineRates h200Rates() {
  MachineRates r;
  r.flops = 4096;
  r.smem = 128;
  r.l2 = 96;
  r.dram = 2400;
  r.latency = 1400;
  r.launch = 4000;
  return r;
}
constexpr int64_t kH200Processors = 132;

/// A bf16 GEMM tile of bm x bn with a k step of 64, as the compiler
/// describes it: each 64-row warpgroup reads its rows and all the columns
/// from shared memory; a `stages`-deep pipeline (stages(3) plus the product
/// in flight: 4).
TileWork bf16Tile(double bm, double bn, double stages = 4) {
  TileWork w;
  w.tileM = bm;
  w.tileN = bn;
  w.flops = 2 * bm * bn * 64;
  w.smemBytes = (bm + (bm / 64) * bn) * 64 * 2;
  w.rowBytes = bm * 64 * 2;
  w.colBytes = bn * 64 * 2;
  w.storeBytes = bm * bn * 2;
  w.stages = stages;
  return w;
}

/// The clocks of an unsplit rows x cols x k GEMM launch of bm x bn tiles.
double gemmCycles(double bm, double bn, int64_t rows, int64_t cols, int64_t k) {
  auto tiles = [](int64_t extent, double tile) {
    int64_t t = static_cast<int64_t>(tile);
    return (extent + t - 1) / t;
  };
  int64_t ctas = tiles(rows, bm) * tiles(cols, bn);
  return launchCycles(bf16Tile(bm, bn), h200Rates(), ctas, k / 64, rows, cols,
                      1, kH200Processors);
}

} // namespace

namespace {
/// The dispatching launch's choice among the bf16 tiles of
/// bench/gemm/gemm_auto.kc (BM 64/128 x BN 64/128/256) for a rows x cols x
/// k product: each tile with splitKSlices's slices (128 x 256 included),
/// the least launchCycles wins, as the generated stub weighs them. With
/// `deep`, each tile also as its stages(6) build, as deep as its shared
/// memory allows (the depths kcc compiled on sm_90a; 128 x 256 has none):
/// the pick is then "BMxBN@depth".
std::pair<std::string, int64_t> dispatchPick(int64_t rows, int64_t cols,
                                             int64_t k, bool deep = false) {
  std::pair<std::string, int64_t> pick;
  double best = -1;
  for (double bm : {128.0, 64.0})
    for (double bn : {256.0, 128.0, 64.0}) {
      double deepest = bm == 128 && bn == 256   ? 4
                       : bm == 128 && bn == 128 ? 6
                       : bm == 64 && bn == 256  ? 5
                                                : 7;
      for (double stages : {4.0, deepest}) {
        if (stages != 4 && !deep)
          continue;
        int64_t ctas = ((rows + int64_t(bm) - 1) / int64_t(bm)) *
                       ((cols + int64_t(bn) - 1) / int64_t(bn));
        int64_t trips = (k + 63) / 64;
        double store = bm * bn * 4 / ((bm + bn) * 64 * 2);
        int64_t slices =
            kcc::rt::splitKSlices(ctas, trips, kH200Processors, store);
        double cost = launchCycles(bf16Tile(bm, bn, stages), h200Rates(), ctas,
                                   trips, rows, cols, slices, kH200Processors);
        if (best < 0 || cost < best) {
          best = cost;
          pick = {std::to_string(int(bm)) + "x" + std::to_string(int(bn)) +
                      (deep ? "@" + std::to_string(int(stages)) : ""),
                  slices};
        }
      }
    }
  return pick;
}
} // namespace

TEST_CASE("dispatch: a memory-bound launch weighs its candidates' traffic") {
  kcc::rt::MachineRates r;
  r.dram = 2400;
  r.launch = 4000;
  // The same grid: the fewer bytes, the fewer clocks, linearly.
  double small = kcc::rt::streamCycles(r, 1000, 8192);
  double large = kcc::rt::streamCycles(r, 1000, 32768);
  CHECK(small < large);
  CHECK(large - r.launch == doctest::Approx(4 * (small - r.launch)));
  // Nothing to move costs the launch alone.
  CHECK(kcc::rt::streamCycles(r, 0, 8192) == r.launch);
  CHECK(kcc::rt::streamCycles(r, 10, 0) == r.launch);
}

TEST_CASE("dispatch: the H200's measured decode products pick their fastest "
          "split") {
  // docs/gemm.md "Split-K", measured 2026-12-05 (kcc / cuBLAS): splitting
  // a 64-iteration loop lost where enough unsplit tiles fill the GPU
  // (128 x 4096 x 4096: 1.07 unsplit on 64 x 64, 0.74 as 128 x 128 in 4
  // slices), two slices beat four at 64 x 8192 x 8192 (0.85 against 0.51),
  // and a long K loop over one row of tiles splits (1 x 4096 x 14336: 0.77
  // in 4 slices, 0.44 unsplit).
  CHECK(dispatchPick(128, 4096, 4096) ==
        std::pair<std::string, int64_t>{"64x64", 1});
  CHECK(dispatchPick(256, 4096, 4096) ==
        std::pair<std::string, int64_t>{"128x64", 1});
  CHECK(dispatchPick(64, 8192, 8192) ==
        std::pair<std::string, int64_t>{"64x128", 2});
  CHECK(dispatchPick(1, 4096, 14336) ==
        std::pair<std::string, int64_t>{"64x128", 4});
  CHECK(dispatchPick(64, 4096, 14336) ==
        std::pair<std::string, int64_t>{"64x128", 4});
  CHECK(dispatchPick(256, 4096, 14336) ==
        std::pair<std::string, int64_t>{"128x128", 2});
}

TEST_CASE("dispatch: with two pipeline depths, decode takes the deep "
          "builds and prefill keeps the wide tile") {
  // docs/gemm.md "Pipeline depth chosen at launch": the generated tuner's
  // times of the eleven candidates on the H200 (2026-12-05), each pick
  // below the fastest candidate or within 3 % of it.
  using Pick = std::pair<std::string, int64_t>;
  CHECK(dispatchPick(16, 4096, 4096, true) == Pick{"64x64@7", 1});
  CHECK(dispatchPick(64, 4096, 4096, true) == Pick{"64x64@7", 1});
  CHECK(dispatchPick(1, 4096, 14336, true).first == "64x128@7");
  CHECK(dispatchPick(16, 8192, 8192, true).first == "64x128@7");
  CHECK(dispatchPick(4096, 4096, 4096, true) == Pick{"128x256@4", 1});
  CHECK(dispatchPick(8192, 8192, 8192, true) == Pick{"128x256@4", 1});
}

TEST_CASE("launchCycles: nothing to run costs nothing") {
  TileWork w = bf16Tile(128, 128);
  MachineRates r = h200Rates();
  for (int64_t none : {int64_t(0), int64_t(-1), int64_t(-132)}) {
    CAPTURE(none);
    CHECK(launchCycles(w, r, none, 64, 4096, 4096, 1, kH200Processors) == 0);
    CHECK(launchCycles(w, r, none, 64, 4096, 4096, 4, kH200Processors) == 0);
    CHECK(launchCycles(w, r, 1024, 64, 4096, 4096, 1, none) == 0);
    CHECK(launchCycles(w, r, 1024, 64, 4096, 4096, 4, none) == 0);
  }
  // A real launch costs something.
  CHECK(launchCycles(w, r, 1024, 64, 4096, 4096, 1, kH200Processors) > 0);
}

TEST_CASE("launchCycles: more trips never cost less") {
  MachineRates r = h200Rates();
  for (double bm : {64.0, 128.0})
    for (double bn : {64.0, 128.0, 256.0})
      for (int64_t ctas :
           {int64_t(1), int64_t(64), int64_t(132), int64_t(133), int64_t(4096)})
        for (int64_t slices : {int64_t(1), int64_t(2), int64_t(4)}) {
          CAPTURE(bm);
          CAPTURE(bn);
          CAPTURE(ctas);
          CAPTURE(slices);
          TileWork w = bf16Tile(bm, bn);
          double previous =
              launchCycles(w, r, ctas, 0, 4096, 4096, slices, kH200Processors);
          for (int64_t trips = 1; trips <= 300; ++trips) {
            double cycles = launchCycles(w, r, ctas, trips, 4096, 4096, slices,
                                         kH200Processors);
            CHECK(cycles >= previous);
            previous = cycles;
          }
        }
}

TEST_CASE("launchCycles: small tiles for decode, large ones for big GEMMs") {
  // Decode (16 x 4096 x 4096): a 128 x 256 tile is mostly padding (16 of
  // its 128 rows) and runs half as many CTAs on 132 multiprocessors.
  CHECK(gemmCycles(64, 128, 16, 4096, 4096) <
        gemmCycles(128, 256, 16, 4096, 4096));
  // 8192^3: 64 x 64 tiles load about 2.7 times the operand bytes per flop.
  CHECK(gemmCycles(128, 256, 8192, 8192, 8192) <
        gemmCycles(64, 64, 8192, 8192, 8192));
}

TEST_CASE("dtypeName") {
  CHECK(std::string(dtypeName(DType::i1)) == "i1");
  CHECK(std::string(dtypeName(DType::i8)) == "i8");
  CHECK(std::string(dtypeName(DType::i16)) == "i16");
  CHECK(std::string(dtypeName(DType::i32)) == "i32");
  CHECK(std::string(dtypeName(DType::i64)) == "i64");
  CHECK(std::string(dtypeName(DType::f16)) == "f16");
  CHECK(std::string(dtypeName(DType::bf16)) == "bf16");
  CHECK(std::string(dtypeName(DType::f32)) == "f32");
  CHECK(std::string(dtypeName(DType::f64)) == "f64");
  CHECK(std::string(dtypeName(DType::f8e4m3)) == "f8e4m3");
  CHECK(std::string(dtypeName(DType::f8e5m2)) == "f8e5m2");
  // Appended: the values existing stubs were generated with stay the same.
  CHECK(int(DType::f64) == 8);
  CHECK(int(DType::f8e4m3) == 9);
  CHECK(int(DType::f8e5m2) == 10);
  CHECK(int(DType::f8e4m3fnuz) == 11);
  CHECK(int(DType::f8e5m2fnuz) == 12);
  CHECK(std::string(dtypeName(DType::f8e4m3fnuz)) == "f8e4m3fnuz");
  CHECK(std::string(dtypeName(DType::f8e5m2fnuz)) == "f8e5m2fnuz");
  CHECK(sizeof(kcc::f8e4m3fnuz) == 1);
  CHECK(sizeof(kcc::f8e4m3) == 1);
  CHECK(sizeof(kcc::f8e5m2) == 1);
}

TEST_CASE("checkAlignment") {
  alignas(64) static char buffer[128];
  CHECK(checkAlignment(kVectorAdd, "a", buffer, 16).ok());
  CHECK(checkAlignment(kVectorAdd, "a", buffer + 16, 16).ok());
  CHECK(checkAlignment(kVectorAdd, "a", buffer + 4, 4).ok());
  CHECK(checkAlignment(kVectorAdd, "a", nullptr, 16).ok());
  CHECK(checkAlignment(kVectorAdd, "a", buffer + 1, 1).ok());
  CHECK(checkAlignment(kVectorAdd, "a", buffer + 1, 0).ok());

  Status status = checkAlignment(kVectorAdd, "a", buffer + 1, 16);
  CHECK_FALSE(status.ok());
  CHECK_FALSE(static_cast<bool>(status));
  CHECK(status.code == KCC_ERROR_MISALIGNED);
  char expected[256];
  std::snprintf(expected, sizeof expected,
                "kcc: vector_add_f32_1024: pointer 'a' (0x%llx) is not "
                "16-byte aligned; the kernel was compiled with align(16)",
                static_cast<unsigned long long>(
                    reinterpret_cast<uintptr_t>(buffer + 1)));
  CHECK(status.message == expected);

  status = checkAlignment(kVectorAdd, "out", buffer + 8, 16);
  CHECK(status.code == KCC_ERROR_MISALIGNED);
  CHECK(contains(status.message, "pointer 'out'"));

  // Explicit address formatting.
  status = checkAlignment(kVectorAdd, "b", reinterpret_cast<void *>(0x7f0001),
                          16);
  CHECK(status.message == "kcc: vector_add_f32_1024: pointer 'b' (0x7f0001) "
                          "is not 16-byte aligned; the kernel was compiled "
                          "with align(16)");
}

TEST_CASE("checkDivisibility") {
  CHECK(checkDivisibility(kSoftmax, "stride", 1024, 8).ok());
  CHECK(checkDivisibility(kSoftmax, "stride", 0, 8).ok());
  CHECK(checkDivisibility(kSoftmax, "stride", -16, 8).ok());
  CHECK(checkDivisibility(kSoftmax, "stride", 7, 1).ok());
  CHECK(checkDivisibility(kSoftmax, "stride", INT64_MIN, 2).ok());

  Status status = checkDivisibility(kSoftmax, "stride", 1001, 8);
  CHECK(status.code == KCC_ERROR_NOT_DIVISIBLE);
  CHECK(status.message == "kcc: softmax_f32_1024: 'stride' = 1001 is not a "
                          "multiple of 8; the kernel was compiled with "
                          "multiple_of(8)");
  status = checkDivisibility(kSoftmax, "n", -12, 8);
  CHECK(status.code == KCC_ERROR_NOT_DIVISIBLE);
  CHECK(contains(status.message, "'n' = -12 is not a multiple of 8"));
}

TEST_CASE("grid validation") {
  struct Case {
    int64_t grid[3];
    const char *needle;
  };
  const Case bad[] = {
      {{-1, 1, 1}, "grid dimension x = -1 is negative"},
      {{1, -5, 1}, "grid dimension y = -5 is negative"},
      {{1, 1, -7}, "grid dimension z = -7 is negative"},
      {{-1, 0, 1}, "grid dimension x = -1 is negative"}, // negative beats zero
      {{int64_t(1) << 31, 1, 1},
       "grid dimension x = 2147483648 exceeds CUDA's limit of 2147483647"},
      {{1, 65536, 1}, "grid dimension y = 65536 exceeds CUDA's limit of 65535"},
      {{1, 1, 65536}, "grid dimension z = 65536 exceeds CUDA's limit of 65535"},
      {{0, 1, 70000}, "grid dimension z = 70000"},
  };
  for (const Case &c : bad) {
    CAPTURE(c.needle);
    Status status = launch(kVectorAdd, c.grid, nullptr, nullptr);
    CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
    CHECK(contains(status.message, "kcc: cannot launch vector_add_f32_1024: "));
    CHECK(contains(status.message, c.needle));
  }

  // A zero dimension launches nothing and succeeds, without the driver.
  const int64_t empty[][3] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 0}};
  for (const auto &grid : empty)
    CHECK(launch(kVectorAdd, grid, nullptr, nullptr).ok());

  CHECK(launch(kVectorAdd, nullptr, nullptr, nullptr).code ==
        KCC_ERROR_INVALID_ARGUMENT);

  // The largest legal grid passes validation (and then needs the driver).
  const int64_t largest[3] = {2147483647, 65535, 65535};
  CHECK(launch(kVectorAdd, largest, nullptr, nullptr).code ==
        KCC_ERROR_NO_DRIVER);
}

TEST_CASE("incomplete kernel descriptors are invalid arguments") {
  const int64_t grid[3] = {1, 1, 1};
  KernelDesc noThreads = {&kFatbin, "k", kThreads, 0};
  Status status = launch(noThreads, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "kcc: cannot launch k: "));
  KernelDesc noFatbin = {nullptr, "k2", kThreads, 3};
  CHECK(launch(noFatbin, grid, nullptr, nullptr).code ==
        KCC_ERROR_INVALID_ARGUMENT);
  KernelDesc noSymbol = {&kFatbin, nullptr, kThreads, 3};
  status = launch(noSymbol, grid, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "<unnamed kernel>"));
}

TEST_CASE("launch without a CUDA driver") {
  const int64_t grid[3] = {4, 1, 1};
  float a = 0;
  void *args[] = {&a};
  Status status = launch(kVectorAdd, grid, args, nullptr);
  CHECK(status.code == KCC_ERROR_NO_DRIVER);
  MESSAGE(status.message);
  CHECK(contains(status.message, "kcc: cannot launch vector_add_f32_1024: "
                                 "the CUDA driver ("));
  CHECK(contains(status.message, "libcuda.so.1) was not found: "));
  CHECK(contains(status.message, "install the NVIDIA driver"));
  // Stable across calls (loaded once) and per kernel.
  Status again = launch(kSoftmax, grid, args, nullptr);
  CHECK(again.code == KCC_ERROR_NO_DRIVER);
  CHECK(contains(again.message, "kcc: cannot launch softmax_f32_1024: "));
}

TEST_CASE("workspace without a CUDA driver") {
  void *ptr = &ptr;
  Status status = workspace(kVectorAdd, 4096, nullptr, &ptr);
  CHECK(status.code == KCC_ERROR_NO_DRIVER);
  CHECK(contains(status.message, "kcc: cannot launch vector_add_f32_1024: "
                                 "the CUDA driver ("));
  CHECK(ptr == nullptr);
  // No bytes: no driver needed.
  ptr = &ptr;
  CHECK(workspace(kVectorAdd, 0, nullptr, &ptr).ok());
  CHECK(ptr == nullptr);
  status = workspace(kVectorAdd, 4096, nullptr, nullptr);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(status.message, "workspace pointer to set is a null"));
}

TEST_CASE("tuning calls without a CUDA driver") {
  std::string name = "stale";
  Status status = deviceName(kVectorAdd, &name);
  CHECK(status.code == KCC_ERROR_NO_DRIVER);
  CHECK(contains(status.message, "kcc: cannot launch vector_add_f32_1024: "
                                 "the CUDA driver ("));
  CHECK(name.empty());
  void *ptr = &ptr;
  CHECK(allocate(kVectorAdd, 4096, &ptr).code == KCC_ERROR_NO_DRIVER);
  CHECK(ptr == nullptr);
  CHECK(release(kVectorAdd, &ptr).code == KCC_ERROR_NO_DRIVER);
  // No bytes, no pointer: no driver needed.
  ptr = &ptr;
  CHECK(allocate(kVectorAdd, 0, &ptr).ok());
  CHECK(ptr == nullptr);
  CHECK(release(kVectorAdd, nullptr).ok());
  int launches = 0;
  double us = -1;
  status = timeLaunches(
      kVectorAdd, nullptr, 10,
      [&] {
        ++launches;
        return Status();
      },
      &us);
  CHECK(status.code == KCC_ERROR_NO_DRIVER);
  CHECK(launches == 0);
  CHECK(us == 0);
  // Argument errors come first.
  status = timeLaunches(
      kVectorAdd, nullptr, 0, [] { return Status(); }, &us);
  CHECK(status.code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(status.message == "kcc: cannot launch vector_add_f32_1024: timing 0 "
                          "launches: repetitions must be at least 1");
  CHECK(timeLaunches(kVectorAdd, nullptr, 1, nullptr, &us).code ==
        KCC_ERROR_INVALID_ARGUMENT);
  CHECK(timeLaunches(
            kVectorAdd, nullptr, 1, [] { return Status(); }, nullptr)
            .code == KCC_ERROR_INVALID_ARGUMENT);
  CHECK(allocate(kVectorAdd, 16, nullptr).message ==
        "kcc: cannot launch vector_add_f32_1024: the device memory pointer "
        "to set is a null pointer");
  CHECK(deviceName(kVectorAdd, nullptr).code == KCC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("last error") {
  Status failure = checkDivisibility(kSoftmax, "stride", 1001, 8);
  CHECK(setLastError(failure) == KCC_ERROR_NOT_DIVISIBLE);
  CHECK(std::string(kcc_last_error_message()) == failure.message);

  // Per thread: another thread sees its own (empty) message.
  std::string seen = "unset";
  std::thread([&] { seen = kcc_last_error_message(); }).join();
  CHECK(seen.empty());
  CHECK(std::string(kcc_last_error_message()) == failure.message);

  CHECK(setLastError(Status()) == KCC_SUCCESS);
  CHECK(std::string(kcc_last_error_message()).empty());
}

TEST_CASE("error paths from many threads") {
  constexpr int kThreadsCount = 16, kIterations = 500;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreadsCount; ++t)
    threads.emplace_back([t, &failures] {
      const KernelDesc &kernel = t % 2 ? kVectorAdd : kSoftmax;
      std::string name = kernel.symbol;
      for (int i = 0; i < kIterations; ++i) {
        const int64_t grid[3] = {1 + i, 1, 1};
        Status status = launch(kernel, grid, nullptr, nullptr);
        if (status.code != KCC_ERROR_NO_DRIVER ||
            !contains(status.message, "cannot launch " + name + ": "))
          ++failures;
        setLastError(status);
        if (std::string(kcc_last_error_message()) != status.message)
          ++failures;
        const int64_t bad[3] = {1, 70000 + t, 1};
        status = launch(kernel, bad, nullptr, nullptr);
        if (status.code != KCC_ERROR_INVALID_ARGUMENT ||
            !contains(status.message, std::to_string(70000 + t)))
          ++failures;
        status = checkDivisibility(kernel, "n", 8 * i + t % 8, 8);
        if ((t % 8 == 0) != status.ok())
          ++failures;
        setLastError(status);
        if (std::string(kcc_last_error_message()) != status.message)
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(failures.load() == 0);
}

#ifdef KCC_HAVE_CUDA_HEADER
namespace kcc_runtime_test {
extern const char *const kCudaHeaderSpellings[];
}
TEST_CASE("entry points are resolved under cuda.h's names for them") {
  // CudaDriver.cpp's dlsym names: cuMemAlloc, cuMemFree, cuMemsetD8,
  // cuEventDestroy and cuEventElapsedTime are versioned (the last falls
  // back to the unversioned export on drivers before CUDA 12.8).
  const char *const expected[] = {"cuInit",
                                  "cuGetErrorName",
                                  "cuGetErrorString",
                                  "cuCtxGetCurrent",
                                  "cuCtxSetCurrent",
                                  "cuCtxGetDevice",
                                  "cuDeviceGet",
                                  "cuDevicePrimaryCtxRetain",
                                  "cuDeviceGetAttribute",
                                  "cuModuleLoadData",
                                  "cuModuleGetFunction",
                                  "cuFuncSetAttribute",
                                  "cuLaunchKernel",
                                  "cuTensorMapEncodeTiled",
                                  "cuMemAlloc_v2",
                                  "cuMemFree_v2",
                                  "cuStreamSynchronize",
                                  "cuStreamIsCapturing",
                                  "cuDeviceGetName",
                                  "cuMemsetD8_v2",
                                  "cuEventCreate",
                                  "cuEventRecord",
                                  "cuEventSynchronize",
                                  "cuEventElapsedTime_v2",
                                  "cuEventDestroy_v2"};
  size_t n = sizeof expected / sizeof *expected;
  for (size_t i = 0; i < n; ++i)
    CHECK(std::string(kcc_runtime_test::kCudaHeaderSpellings[i]) ==
          expected[i]);
  CHECK(kcc_runtime_test::kCudaHeaderSpellings[n] == nullptr);
}
#endif

int main(int argc, char **argv) {
  const char *override = std::getenv("KCC_CUDA_DRIVER");
  if (!override || !*override) {
    if (void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
      realDriverPresent = true;
      dlclose(handle);
      setenv("KCC_CUDA_DRIVER", "/nonexistent/kcc-test/libcuda.so.1", 1);
    }
  } else {
    setenv("KCC_CUDA_DRIVER", "/nonexistent/kcc-test/libcuda.so.1", 1);
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  int result = context.run();
  if (realDriverPresent)
    std::printf("note: a CUDA driver is installed; the no-driver tests used "
                "KCC_CUDA_DRIVER=/nonexistent/kcc-test/libcuda.so.1\n");
  return result;
}
