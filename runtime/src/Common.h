//===- Common.h - what the CUDA and HIP launch paths share ------*- C++ -*-===//
//
// Internal to the runtime: status and message helpers, grid and descriptor
// validation, the per-(device scope, image, symbol) function cache and the
// per-(device scope, stream) workspace cache. The vendor backends
// (CudaRuntime.cpp, HipRuntime.cpp) add the driver calls.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_COMMON_H
#define KCC_RUNTIME_COMMON_H

#include "kcc/runtime.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>

namespace kcc {
namespace rt {
namespace detail {

Status makeStatus(kcc_status_code code, std::string message);

/// The kernel's symbol, or "<unnamed kernel>".
const char *symbolOf(const KernelDesc &kernel);
/// "kcc: cannot launch <symbol>: "
std::string launchPrefix(const KernelDesc &kernel);
/// The image's source file, or "<unknown source>".
const char *sourceOf(const FatbinDesc &image);

/// Grid limits of one vendor API, per axis, and its name for messages.
struct GridLimits {
  const char *api; // "CUDA", "HIP"
  int64_t max[3];
};

/// Fails with KCC_ERROR_INVALID_ARGUMENT for a null grid, a negative
/// dimension or one over `limits`; sets `*empty` when a dimension is zero
/// (nothing to launch).
Status validateGrid(const KernelDesc &kernel, const int64_t grid[3],
                    const GridLimits &limits, bool *empty);

/// Fails with KCC_ERROR_INVALID_ARGUMENT when the descriptor lacks its image,
/// symbol or block sizes.
Status validateDescriptor(const KernelDesc &kernel);

/// KCC_ERROR_DRIVER: "kcc: cannot launch k: <call> failed: <described>".
Status driverFailure(const KernelDesc &kernel, const char *call,
                     const std::string &described);

/// "; the <kind> from <source> is damaged: rebuild it"
std::string damagedHint(const KernelDesc &kernel, const char *kind);
/// "; the <kind> from <source> has no kernel named <symbol>: the launch stub
/// and the <kind> are out of sync, rebuild both"
std::string outOfSyncHint(const KernelDesc &kernel, const char *kind);

/// A loaded kernel: the vendor's function handle, and the block size and
/// dynamic shared memory (CUDA) chosen for the device it was loaded on.
struct LoadedFunction {
  void *handle = nullptr;
  unsigned blockX = 0;
  unsigned sharedBytes = 0;
  /// Multiprocessors of the device (for persistent launches).
  unsigned processors = 0;
  /// ThreadsForArch::persistentSlower of the entry this device took.
  bool persistentSlower = false;
  /// A cluster kernel (kcc --clusters: .reqnctapercluster): CTAs per
  /// cluster along x, and how many of its CTAs the device runs at once
  /// (whole clusters; 0: not known, the multiprocessors bound it).
  unsigned clusterCtas = 1;
  unsigned residentCtas = 0;
};

/// Loads `kernel` (or finds it loaded) with `load`, then the build a launch
/// over `grid` runs (launchedBuild below; not a persistent build that is
/// slower on this device): `*build` is that build and `*function` its
/// function.
Status loadLaunchedBuild(
    const KernelDesc &kernel, const int64_t grid[3],
    const std::function<Status(const KernelDesc &, LoadedFunction *)> &load,
    const KernelDesc **build, LoadedFunction *function);

/// What a launch of `kernel` (loaded as `function`) over `grid` runs: its
/// persistent build when it has one and the grid has more tiles (x * y * z,
/// at most INT32_MAX: the build counts them in i32) than that build
/// launches CTAs, else `kernel` itself.
const KernelDesc &launchedBuild(const KernelDesc &kernel,
                                const LoadedFunction &function,
                                const int64_t grid[3]);

/// The launch of a persistent kernel (KernelDesc::persistentPerSm): one row
/// of min(tiles, processors * persistentPerSm) CTAs, tiles = x * y * z; each
/// CTA loops over the tiles of every batch. A cluster kernel's row is whole
/// clusters, no more than the device holds at once (a cluster that waited
/// for another's whole tile loop would double the time). Other kernels
/// launch `grid` as it is.
void persistentGrid(const KernelDesc &kernel, const LoadedFunction &function,
                    const int64_t grid[3], int64_t out[3]);
/// The CTAs of that row when the grid has more tiles.
int64_t persistentCtas(const KernelDesc &kernel,
                       const LoadedFunction &function);

/// Modules per (scope, image) and functions per (scope, image, symbol), where
/// a scope is what a module is loaded into: a CUDA context, a HIP device.
/// Never evicted. Each backend has its own instance.
class FunctionCache {
public:
  /// The warm path: a shared lock and a lookup without allocation.
  bool find(uintptr_t scope, const KernelDesc &kernel, LoadedFunction *out);

  /// The cold path, under the module mutex (so each module loads once per
  /// scope even when threads race on the first launch): looks again, then
  /// calls `loadModule` unless the (scope, image) module is cached, then
  /// `getFunction`, and caches its result. A failure is returned and nothing
  /// is cached for it.
  using ModuleLoader = std::function<Status(void **module)>;
  using FunctionGetter =
      std::function<Status(void *module, LoadedFunction *function)>;
  Status load(uintptr_t scope, const KernelDesc &kernel,
              const ModuleLoader &loadModule, const FunctionGetter &getFunction,
              LoadedFunction *out);

private:
  struct Key {
    uintptr_t scope;
    const void *image;
    std::string symbol;
  };
  struct KeyView {
    uintptr_t scope;
    const void *image;
    const char *symbol;
  };
  struct KeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A &a, const B &b) const;
  };

  std::mutex moduleMutex;
  std::map<std::pair<uintptr_t, const void *>, void *> modules;
  std::shared_mutex functionMutex;
  std::map<Key, LoadedFunction, KeyLess> functions;
};

/// The scratch buffers of workspace(): one per (scope, stream), where a scope
/// is a CUDA context or a HIP device, shared by every kernel launched there.
/// Grow-only, in kGranularity steps; never evicted, and never freed at exit
/// (the driver may be gone by then). Each backend has its own instance.
class WorkspaceCache {
public:
  /// Buffers grow to the request rounded up to a multiple of this (1 MiB).
  static constexpr size_t kGranularity = size_t(1) << 20;

  /// The backend's driver calls on one stream, each failure a Status naming
  /// the kernel.
  class Calls {
  public:
    /// Whether the stream is being captured into a graph (false where the
    /// driver cannot tell: it has no stream capture).
    virtual Status capturing(bool *capturing) = 0;
    /// Waits for the work queued on the stream.
    virtual Status synchronize() = 0;
    virtual Status allocate(size_t bytes, void **ptr) = 0;
    virtual Status release(void *ptr) = 0;

  protected:
    ~Calls() = default;
  };

  /// Sets `*ptr` to the (scope, stream) buffer once it has at least `bytes`
  /// (> 0) bytes: it grows when it has fewer, unless the stream is being
  /// captured (KCC_ERROR_INVALID_ARGUMENT). A failure leaves `*ptr` null.
  Status get(const KernelDesc &kernel, uintptr_t scope, const void *stream,
             size_t bytes, Calls &calls, void **ptr);

private:
  struct Buffer {
    void *ptr = nullptr;
    size_t size = 0;
    /// Handed out during a stream capture: a graph may use it at any time.
    bool captured = false;
  };
  std::mutex mutex;
  std::map<std::pair<uintptr_t, const void *>, Buffer> buffers;
};

/// Device names by device ordinal, for deviceName(): a device's name does
/// not change while the process runs, and launch stubs may ask for it at
/// every launch. Never evicted. Each backend has its own instance.
class DeviceNameCache {
public:
  using Query = std::function<Status(std::string *name)>;
  /// Sets `*name` to the name of `device`: the cached one (a shared lock and
  /// a lookup), else `query`'s, which is cached. A failure is returned,
  /// leaves `*name` empty and caches nothing (the next call asks again).
  Status get(int device, const Query &query, std::string *name);

private:
  std::shared_mutex mutex;
  std::map<int, std::string> names;
};

/// What timeLaunches() needs of a backend: two events on the stream being
/// timed, destroyed with the object, whatever happened before.
class LaunchTimer {
public:
  /// Creates the events and records the first one on the stream.
  virtual Status start() = 0;
  /// Records the second one and waits for it.
  virtual Status stop() = 0;
  /// The milliseconds between the two.
  virtual Status elapsed(float *milliseconds) = 0;

protected:
  ~LaunchTimer() = default;
};

/// timeLaunches()' arguments: KCC_ERROR_INVALID_ARGUMENT for a null
/// `microseconds`, zero `repetitions` or an empty `launch`. Sets
/// `*microseconds` to 0 (where it can).
Status checkTiming(const KernelDesc &kernel, unsigned repetitions,
                   const std::function<Status()> &launch, double *microseconds);

/// timeLaunches() once its arguments are checked and the device is ready:
/// one warm-up `launch` (loads modules, first-touch costs), then `timer`
/// started, `repetitions` launches, `timer` stopped; `*microseconds` is the
/// elapsed time per launch. The first failure (a launch's or the timer's)
/// is returned.
Status timeWith(unsigned repetitions, const std::function<Status()> &launch,
                LaunchTimer &timer, double *microseconds);

/// KCC_ERROR_INVALID_ARGUMENT: the `what` to set is a null pointer (an
/// out-parameter of deviceName(), allocate(), timeLaunches()).
Status nullOutput(const KernelDesc &kernel, const char *what);

} // namespace detail
} // namespace rt
} // namespace kcc

#endif // KCC_RUNTIME_COMMON_H
