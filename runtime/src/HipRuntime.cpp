//===- HipRuntime.cpp - launching through HIP's module API ----------------===//
//
// The HIP backend (kcc/runtime_hip.h): the calling thread's current device,
// the code object of the embedded offload bundle that fits the device's
// gcnArchName (OffloadBundle.h), modules and functions cached per device
// (Common.h), hipModuleLaunchKernel, split-K workspaces per (device,
// stream), and the tuner's device names, zero-filled memory and timed
// launches. Messages and status codes are those of
// the CUDA backend, with HIP's error names. Links libamdhip64 directly (HIP
// has no stable "driver" library to dlopen the way libcuda.so.1 is).
//
//===----------------------------------------------------------------------===//

#include "kcc/runtime_hip.h"

#include "Common.h"
#include "OffloadBundle.h"
#include "kcc/split_k.h"

#include <hip/hip_runtime_api.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

using namespace kcc;
using namespace kcc::rt;
using namespace kcc::rt::detail;

static_assert(std::is_same<hipStream_t, ihipStream_t *>::value,
              "kcc/runtime_hip.h declares streams as ihipStream_t *");

namespace {

// hipModuleLaunchKernel's own checks: x <= INT32_MAX, y and z <= 65536, and
// x * block x <= UINT32_MAX (checked once the block size is known).
constexpr GridLimits kHipLimits = {"HIP", {2147483647, 65536, 65536}};
constexpr uint64_t kMaxWorkItems = 4294967295u;

constexpr const char *kImageKind = "offload bundle";

/// "hipErrorIllegalAddress (an illegal memory access was encountered)", or
/// "HIP error 1234" for a code HIP does not know.
std::string describe(hipError_t error) {
  const char *name = hipGetErrorName(error);
  if (!name || !*name ||
      (error != hipErrorUnknown && std::strcmp(name, "hipErrorUnknown") == 0))
    return "HIP error " + std::to_string(static_cast<int>(error));
  std::string result = name;
  const char *text = hipGetErrorString(error);
  if (text && *text && std::strcmp(text, name) != 0)
    result += std::string(" (") + text + ")";
  return result;
}

Status driverError(const KernelDesc &kernel, const char *call,
                   hipError_t result) {
  Status status = driverFailure(kernel, call, describe(result));
  if (result == hipErrorInvalidContext || result == hipErrorContextIsDestroyed)
    status.message += "; the current HIP device is not usable (reset or "
                      "destroyed): select a valid device with hipSetDevice";
  else if (result == hipErrorLaunchOutOfResources)
    status.message += "; the kernel needs more registers or shared memory than "
                      "this GPU has for its block size: compile it for this "
                      "GPU's target";
  else if (result >= hipErrorIllegalAddress && result < 800)
    status.message += "; kernels run asynchronously, so an earlier launch may "
                      "have caused it, and the device is now unusable (run "
                      "with AMD_SERIALIZE_KERNEL=3 to find the faulting "
                      "kernel)";
  return status;
}

/// hipInit(0), once per process. Fails with KCC_ERROR_NO_DRIVER.
Status initialize(const KernelDesc &kernel) {
  static hipError_t result = hipSuccess;
  static std::once_flag once;
  std::call_once(once, [] { result = hipInit(0); });
  if (result == hipSuccess)
    return Status();
  std::string message =
      launchPrefix(kernel) + "hipInit failed: " + describe(result);
  // Debian's HIP 5.2 answers hipErrorInvalidDevice on machines without one.
  if (result == hipErrorNoDevice || result == hipErrorInvalidDevice)
    message += "; no AMD GPU is visible to this process (check rocminfo and "
               "HIP_VISIBLE_DEVICES)";
  else if (result == hipErrorInsufficientDriver)
    message += "; the amdgpu kernel driver is missing or too old for this HIP "
               "runtime";
  else
    message += "; check the ROCm installation (rocminfo)";
  return makeStatus(KCC_ERROR_NO_DRIVER, std::move(message));
}

/// The calling thread's current device.
Status currentDevice(const KernelDesc &kernel, int *device) {
  hipError_t result = hipGetDevice(device);
  if (result == hipErrorNoDevice)
    return makeStatus(KCC_ERROR_NO_DRIVER,
                      launchPrefix(kernel) +
                          "hipGetDevice failed: " + describe(result) +
                          "; no AMD GPU is visible to this process (check "
                          "rocminfo and HIP_VISIBLE_DEVICES)");
  if (result != hipSuccess)
    return driverError(kernel, "hipGetDevice", result);
  return Status();
}

/// HIP initialized and the calling thread's current device: what every
/// entry point starts from.
Status initializedDevice(const KernelDesc &kernel, int *device) {
  Status status = initialize(kernel);
  return status.ok() ? currentDevice(kernel, device) : status;
}

/// The device's compute units.
Status processorCount(const KernelDesc &kernel, int device, unsigned *count) {
  int n = 0;
  hipError_t result =
      hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, device);
  if (result != hipSuccess)
    return driverError(kernel, "hipDeviceGetAttribute(MultiprocessorCount)",
                       result);
  *count = static_cast<unsigned>(n);
  return Status();
}

Status deviceProperties(const KernelDesc &kernel, int device,
                        hipDeviceProp_t *props) {
  std::memset(props, 0, sizeof *props);
  hipError_t result = hipGetDeviceProperties(props, device);
  if (result != hipSuccess)
    return driverError(kernel, "hipGetDeviceProperties", result);
  return Status();
}

/// The device's gcnArchName, e.g. "gfx90a:sramecc+:xnack-".
Status deviceArch(const KernelDesc &kernel, int device, std::string *arch) {
  hipDeviceProp_t props;
  Status status = deviceProperties(kernel, device, &props);
  if (status.ok())
    arch->assign(props.gcnArchName,
                 strnlen(props.gcnArchName, sizeof props.gcnArchName));
  return status;
}

/// Whether code built for kcc target `target` ("gfx90a"; null: none) is for
/// a device of processor `processor` (gcnArchName without features): how
/// the launch's threads entry, selectVariant and selectTarget match it.
bool builtFor(const char *target, const std::string &processor) {
  return target && offload::processorOf(target) == processor;
}

Status noImage(const KernelDesc &kernel, const std::string &arch,
               const std::vector<offload::Entry> &entries,
               const std::string &loadError) {
  std::string holds = offload::describeHipEntries(entries);
  std::string processor = offload::processorOf(arch);
  std::string message = launchPrefix(kernel) + "the " + kImageKind + " from " +
                        sourceOf(*kernel.fatbin) +
                        " has no image for this GPU (" +
                        (arch.empty() ? "unknown" : arch) + ")";
  if (!loadError.empty())
    message += " that HIP can load";
  message += "; it holds " + (holds.empty() ? "no AMD code objects" : holds) +
             "; recompile with --target=" +
             (processor.empty() ? "<this GPU's architecture>" : processor);
  bool sameProcessor = false;
  for (const offload::Entry &entry : entries) {
    std::string target = offload::hipTargetId(entry.id);
    if (!target.empty() && offload::processorOf(target) == processor)
      sameProcessor = true;
  }
  if (sameProcessor && loadError.empty())
    message += " (its " + processor +
               " code objects require xnack/sramecc settings this GPU does "
               "not have)";
  if (!loadError.empty())
    message += " (hipModuleLoadData: " + loadError + ")";
  return makeStatus(KCC_ERROR_NO_IMAGE, std::move(message));
}

/// A code object not 8-byte aligned in the bundle (the bundler packs entries
/// back to back unless given -bundle-align) is copied to aligned memory that
/// lives as long as the module: forever, like the cache.
const void *alignedCodeObject(const offload::Entry &entry) {
  if (reinterpret_cast<uintptr_t>(entry.data) % 8 == 0)
    return entry.data;
  static std::mutex mutex;
  static auto *copies = new std::vector<std::unique_ptr<uint64_t[]>>;
  std::unique_ptr<uint64_t[]> copy(new uint64_t[(entry.size + 7) / 8 + 1]);
  std::memcpy(copy.get(), entry.data, entry.size);
  std::lock_guard<std::mutex> lock(mutex);
  copies->push_back(std::move(copy));
  return copies->back().get();
}

FunctionCache &cache() {
  static FunctionCache *instance = new FunctionCache; // leaked: usable at exit
  return *instance;
}

/// Loads (once per device) the code object that fits the device, and the
/// kernel's function, and picks the block size for the device's processor.
Status loadFunction(const KernelDesc &kernel, int device, LoadedFunction *out) {
  std::string arch;
  Status status = deviceArch(kernel, device, &arch);
  if (!status.ok())
    return status;
  auto loadModule = [&](void **module) {
    std::vector<offload::Entry> entries;
    std::string why;
    if (!offload::parseBundle(kernel.fatbin->image, kernel.fatbin->size,
                              entries, why))
      return makeStatus(KCC_ERROR_DRIVER,
                        launchPrefix(kernel) + "the " + kImageKind + " from " +
                            sourceOf(*kernel.fatbin) + " is damaged (" + why +
                            "): rebuild it");
    int chosen = offload::selectCodeObject(entries, arch);
    if (chosen < 0)
      return noImage(kernel, arch, entries, "");
    hipModule_t loaded = nullptr;
    hipError_t result = hipModuleLoadData(
        &loaded, alignedCodeObject(entries[static_cast<size_t>(chosen)]));
    if (result == hipErrorNoBinaryForGpu)
      return noImage(kernel, arch, entries, describe(result));
    if (result != hipSuccess) {
      Status failure = driverError(kernel, "hipModuleLoadData", result);
      if (result == hipErrorInvalidImage || result == hipErrorInvalidKernelFile)
        failure.message += damagedHint(kernel, kImageKind);
      return failure;
    }
    *module = loaded;
    return Status();
  };
  auto getFunction = [&](void *module, LoadedFunction *function) {
    hipFunction_t handle = nullptr;
    hipError_t result = hipModuleGetFunction(
        &handle, static_cast<hipModule_t>(module), symbolOf(kernel));
    if (result != hipSuccess) {
      Status failure = driverError(kernel, "hipModuleGetFunction", result);
      if (result == hipErrorNotFound)
        failure.message += outOfSyncHint(kernel, kImageKind);
      return failure;
    }
    function->handle = handle;
    const ThreadsForArch *entry = &kernel.threads[0];
    std::string processor = offload::processorOf(arch);
    for (unsigned i = 0; i < kernel.numThreads; ++i)
      if (builtFor(kernel.threads[i].target, processor)) {
        entry = &kernel.threads[i];
        break;
      }
    function->blockX = entry->threads;
    function->persistentSlower = entry->persistentSlower;
    // For persistent kernels' launches; the cache keeps one entry per
    // symbol, so every function records it.
    return processorCount(kernel, device, &function->processors);
  };
  return cache().load(static_cast<uintptr_t>(device), kernel, loadModule,
                      getFunction, out);
}

/// The processor (gcnArchName without features) of the calling thread's
/// current device.
Status currentProcessor(const KernelDesc &kernel, std::string *processor) {
  int device = 0;
  Status status = initializedDevice(kernel, &device);
  if (!status.ok())
    return status;
  std::string arch;
  status = deviceArch(kernel, device, &arch);
  if (status.ok())
    *processor = offload::processorOf(arch);
  return status;
}

} // namespace

Status kcc::rt::hip::multiprocessorCount(const KernelDesc &kernel,
                                         int64_t *count) {
  *count = 0;
  int device = 0;
  unsigned n = 0;
  Status status = initializedDevice(kernel, &device);
  if (status.ok())
    status = processorCount(kernel, device, &n);
  *count = n;
  return status;
}

Status kcc::rt::hip::selectVariant(const KernelDesc *const *variants,
                                   unsigned n, unsigned *index) {
  *index = 0;
  if (n <= 1)
    return Status();
  std::string processor;
  Status status = currentProcessor(*variants[0], &processor);
  if (!status.ok())
    return status;
  for (unsigned v = 0; v < n; ++v)
    for (unsigned i = 0; i < variants[v]->numThreads; ++i)
      if (builtFor(variants[v]->threads[i].target, processor)) {
        *index = v;
        return Status();
      }
  return Status();
}

Status kcc::rt::hip::selectTarget(const KernelDesc &kernel,
                                  const char *const *targets, unsigned n,
                                  unsigned *index) {
  *index = 0;
  if (n <= 1)
    return Status();
  std::string processor;
  Status status = currentProcessor(kernel, &processor);
  if (!status.ok())
    return status;
  for (unsigned i = 0; i < n; ++i)
    if (builtFor(targets[i], processor)) {
      *index = i;
      return Status();
    }
  return Status();
}

Status kcc::rt::hip::launch(const KernelDesc &kernel, const int64_t grid[3],
                            void **args, ihipStream_t *stream) {
  bool empty = false;
  Status status = validateGrid(kernel, grid, kHipLimits, &empty);
  if (!status.ok() || empty)
    return status;
  status = validateDescriptor(kernel);
  if (!status.ok())
    return status;
  int device = 0;
  status = initializedDevice(kernel, &device);
  if (!status.ok())
    return status;
  auto load = [&](const KernelDesc &desc, LoadedFunction *function) {
    if (cache().find(static_cast<uintptr_t>(device), desc, function))
      return Status();
    return loadFunction(desc, device, function);
  };
  LoadedFunction function;
  const KernelDesc *launchedDesc = nullptr;
  status = loadLaunchedBuild(kernel, grid, load, &launchedDesc, &function);
  if (!status.ok())
    return status;
  const KernelDesc &build = *launchedDesc;
  if (static_cast<uint64_t>(grid[0]) * function.blockX > kMaxWorkItems)
    return makeStatus(
        KCC_ERROR_INVALID_ARGUMENT,
        launchPrefix(kernel) + "grid dimension x = " + std::to_string(grid[0]) +
            " with " + std::to_string(function.blockX) +
            " threads per block exceeds HIP's limit of " +
            std::to_string(kMaxWorkItems) +
            " threads per dimension; split the work over several launches or "
            "more work per program");

  int64_t launched[3];
  persistentGrid(build, function, grid, launched);
  hipError_t result = hipModuleLaunchKernel(
      static_cast<hipFunction_t>(function.handle),
      static_cast<unsigned>(launched[0]), static_cast<unsigned>(launched[1]),
      static_cast<unsigned>(launched[2]), function.blockX, 1, 1,
      /*sharedMemBytes=*/0, stream, args, /*extra=*/nullptr);
  if (result != hipSuccess)
    return driverError(build, "hipModuleLaunchKernel", result);
  return Status();
}

//===----------------------------------------------------------------------===//
// Split-K workspaces
//===----------------------------------------------------------------------===//

namespace {

/// `bytes` of device memory on the current device whose first `zeroed`
/// bytes are zero. hipMemset runs on the null stream, which streams created
/// with hipStreamNonBlocking do not wait for: it is waited for here. On
/// failure nothing stays allocated.
Status allocateZeroed(const KernelDesc &kernel, size_t bytes, size_t zeroed,
                      void **ptr) {
  void *allocated = nullptr;
  hipError_t result = hipMalloc(&allocated, bytes);
  if (result != hipSuccess) {
    std::string call = "hipMalloc(" + std::to_string(bytes) + ")";
    return driverError(kernel, call.c_str(), result);
  }
  const char *call = "hipMemset";
  result = hipMemset(allocated, 0, zeroed);
  if (result == hipSuccess) {
    call = "hipStreamSynchronize";
    result = hipStreamSynchronize(nullptr);
  }
  if (result != hipSuccess) {
    (void)hipFree(allocated);
    std::string what = std::string(call) + " (zero-filling " +
                       std::to_string(zeroed) + " bytes)";
    return driverError(kernel, what.c_str(), result);
  }
  *ptr = allocated;
  return Status();
}

WorkspaceCache &workspaces() {
  static WorkspaceCache *instance = new WorkspaceCache; // leaked: never freed
  return *instance;
}

/// The HIP calls of WorkspaceCache on one stream of the current device.
class HipWorkspaceCalls final : public WorkspaceCache::Calls {
public:
  HipWorkspaceCalls(const KernelDesc &kernel, hipStream_t stream)
      : kernel(kernel), stream(stream) {}

  Status capturing(bool *capturing) override {
    hipStreamCaptureStatus capture = hipStreamCaptureStatusNone;
    hipError_t result = hipStreamIsCapturing(stream, &capture);
    *capturing = false;
    if (result != hipSuccess)
      return driverError(kernel, "hipStreamIsCapturing", result);
    // An invalidated capture is still one: allocating would not be recorded.
    *capturing = capture != hipStreamCaptureStatusNone;
    return Status();
  }
  Status synchronize() override {
    hipError_t result = hipStreamSynchronize(stream);
    if (result != hipSuccess)
      return driverError(kernel, "hipStreamSynchronize", result);
    return Status();
  }
  Status allocate(size_t bytes, void **ptr) override {
    // The split-K tickets start at zero (kernels leave them so).
    return allocateZeroed(kernel, bytes,
                          std::min(bytes, kcc::rt::kSplitKTicketBytes), ptr);
  }
  Status release(void *ptr) override {
    hipError_t result = hipFree(ptr);
    if (result != hipSuccess)
      return driverError(kernel, "hipFree", result);
    return Status();
  }

private:
  const KernelDesc &kernel;
  hipStream_t stream;
};

} // namespace

Status kcc::rt::hip::workspace(const KernelDesc &kernel, size_t bytes,
                               ihipStream_t *stream, void **ptr) {
  if (!ptr)
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                      launchPrefix(kernel) +
                          "the workspace pointer to set is a null pointer");
  *ptr = nullptr;
  if (bytes == 0)
    return Status();
  int device = 0;
  Status status = initializedDevice(kernel, &device);
  if (!status.ok())
    return status;
  HipWorkspaceCalls calls(kernel, stream);
  return workspaces().get(kernel, static_cast<uintptr_t>(device), stream, bytes,
                          calls, ptr);
}

//===----------------------------------------------------------------------===//
// Tuning: device names, zeroed memory, timed launches
//===----------------------------------------------------------------------===//

namespace {

DeviceNameCache &deviceNames() {
  static DeviceNameCache *instance = new DeviceNameCache; // leaked
  return *instance;
}

/// The two events of timeLaunches on one stream of the current device.
class HipLaunchTimer final : public LaunchTimer {
public:
  HipLaunchTimer(const KernelDesc &kernel, hipStream_t stream)
      : kernel(kernel), stream(stream) {}
  ~HipLaunchTimer() {
    // Failures here have nothing left to spoil: the result is known.
    for (hipEvent_t event : {begin, end})
      if (event)
        (void)hipEventDestroy(event);
  }

  Status start() override {
    for (hipEvent_t *event : {&begin, &end}) {
      hipError_t result = hipEventCreate(event);
      if (result != hipSuccess) {
        *event = nullptr;
        return driverError(kernel, "hipEventCreate", result);
      }
    }
    return record(begin);
  }
  Status stop() override {
    Status status = record(end);
    if (!status.ok())
      return status;
    hipError_t result = hipEventSynchronize(end);
    if (result != hipSuccess)
      return driverError(kernel, "hipEventSynchronize", result);
    return Status();
  }
  Status elapsed(float *milliseconds) override {
    hipError_t result = hipEventElapsedTime(milliseconds, begin, end);
    if (result != hipSuccess)
      return driverError(kernel, "hipEventElapsedTime", result);
    return Status();
  }

private:
  Status record(hipEvent_t event) {
    hipError_t result = hipEventRecord(event, stream);
    if (result != hipSuccess)
      return driverError(kernel, "hipEventRecord", result);
    return Status();
  }

  const KernelDesc &kernel;
  hipStream_t stream;
  hipEvent_t begin = nullptr, end = nullptr;
};

} // namespace

Status kcc::rt::hip::deviceName(const KernelDesc &kernel, std::string *name) {
  if (!name)
    return nullOutput(kernel, "device name");
  name->clear();
  int device = 0;
  Status status = initializedDevice(kernel, &device);
  if (!status.ok())
    return status;
  return deviceNames().get(
      device,
      [&](std::string *queried) {
        hipDeviceProp_t props;
        Status named = deviceProperties(kernel, device, &props);
        if (named.ok())
          queried->assign(props.name, strnlen(props.name, sizeof props.name));
        return named;
      },
      name);
}

Status kcc::rt::hip::allocate(const KernelDesc &kernel, size_t bytes,
                              void **ptr) {
  if (!ptr)
    return nullOutput(kernel, "device memory pointer");
  *ptr = nullptr;
  if (bytes == 0)
    return Status();
  int device = 0;
  Status status = initializedDevice(kernel, &device);
  if (!status.ok())
    return status;
  return allocateZeroed(kernel, bytes, bytes, ptr);
}

Status kcc::rt::hip::release(const KernelDesc &kernel, void *ptr) {
  if (!ptr)
    return Status();
  int device = 0;
  Status status = initializedDevice(kernel, &device);
  if (!status.ok())
    return status;
  hipError_t result = hipFree(ptr);
  if (result != hipSuccess)
    return driverError(kernel, "hipFree", result);
  return Status();
}

Status kcc::rt::hip::timeLaunches(const KernelDesc &kernel,
                                  ihipStream_t *stream, unsigned repetitions,
                                  const std::function<Status()> &launch,
                                  double *microseconds) {
  Status status = checkTiming(kernel, repetitions, launch, microseconds);
  if (!status.ok())
    return status;
  int device = 0;
  status = initializedDevice(kernel, &device);
  if (!status.ok())
    return status;
  HipLaunchTimer timer(kernel, stream);
  return timeWith(repetitions, launch, timer, microseconds);
}
