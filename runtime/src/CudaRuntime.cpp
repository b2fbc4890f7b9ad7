//===- CudaRuntime.cpp - launching through the CUDA driver API ------------===//
//
// The CUDA backend of kcc::rt::launch: the current (or device 0's primary)
// context, modules and functions cached per context (Common.h), the
// no-image and driver-error messages, split-K workspaces per (context,
// stream), and what the tuner uses: device names cached per device,
// zero-filled memory, launches timed with events. The driver is opened with
// dlopen (CudaDriver.cpp).
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "CudaDriver.h"
#include "kcc/split_k.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>

using namespace kcc;
using namespace kcc::rt;
using namespace kcc::rt::cuda;
using namespace kcc::rt::detail;

namespace {

constexpr GridLimits kCudaLimits = {"CUDA", {2147483647, 65535, 65535}};

/// Dynamic shared memory every function may use without opting in.
constexpr unsigned kDefaultDynamicSharedBytes = 48 * 1024;

Status driverError(const Driver &driver, const KernelDesc &kernel,
                   const char *call, CUresult result) {
  Status status = driverFailure(kernel, call, driver.describe(result));
  if (result == CUDA_ERROR_INVALID_CONTEXT ||
      result == CUDA_ERROR_CONTEXT_IS_DESTROYED)
    status.message += "; the current CUDA context is not usable (destroyed, or "
                      "belongs to a reset device): make a valid context "
                      "current";
  else if (result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    status.message += "; the kernel needs more registers or shared memory than "
                      "this GPU has for its block size: compile it for this "
                      "GPU's target";
  else if (result >= CUDA_ERROR_ILLEGAL_ADDRESS && result < 800)
    status.message += "; kernels run asynchronously, so an earlier launch may "
                      "have caused it, and the CUDA context is now unusable "
                      "(run with compute-sanitizer to find the faulting "
                      "kernel)";
  return status;
}

/// The current context, or device 0's primary context (retained once per
/// process and made current on this thread) if there is none.
Status currentContext(const Driver &driver, const KernelDesc &kernel,
                      CUcontext *ctx) {
  CUresult result = driver.cuCtxGetCurrent(ctx);
  if (result != CUDA_SUCCESS)
    return driverError(driver, kernel, "cuCtxGetCurrent", result);
  if (*ctx)
    return Status();

  static std::mutex primaryMutex;
  static CUcontext primary = nullptr;
  {
    std::lock_guard<std::mutex> lock(primaryMutex);
    if (!primary) {
      CUdevice device = 0;
      result = driver.cuDeviceGet(&device, 0);
      if (result != CUDA_SUCCESS)
        return driverError(driver, kernel, "cuDeviceGet(0)", result);
      result = driver.cuDevicePrimaryCtxRetain(&primary, device);
      if (result != CUDA_SUCCESS) {
        primary = nullptr;
        return driverError(driver, kernel, "cuDevicePrimaryCtxRetain", result);
      }
    }
    *ctx = primary;
  }
  result = driver.cuCtxSetCurrent(*ctx);
  if (result != CUDA_SUCCESS)
    return driverError(driver, kernel, "cuCtxSetCurrent", result);
  return Status();
}

/// The current context's compute capability as major*10+minor.
Status computeCapability(const Driver &driver, const KernelDesc &kernel,
                         unsigned *sm) {
  CUdevice device = 0;
  CUresult result = driver.cuCtxGetDevice(&device);
  if (result != CUDA_SUCCESS)
    return driverError(driver, kernel, "cuCtxGetDevice", result);
  int major = 0, minor = 0;
  result = driver.cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  if (result == CUDA_SUCCESS)
    result = driver.cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  if (result != CUDA_SUCCESS)
    return driverError(driver, kernel, "cuDeviceGetAttribute", result);
  *sm = static_cast<unsigned>(major * 10 + minor);
  return Status();
}

/// The current context's device's multiprocessor count.
Status processorCount(const Driver &driver, const KernelDesc &kernel,
                      unsigned *count) {
  CUdevice device = 0;
  int n = 0;
  CUresult result = driver.cuCtxGetDevice(&device);
  if (result == CUDA_SUCCESS)
    result = driver.cuDeviceGetAttribute(
        &n, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  if (result != CUDA_SUCCESS)
    return driverError(driver, kernel,
                       "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)", result);
  *count = static_cast<unsigned>(n);
  return Status();
}

/// A cluster kernel's CTAs per cluster, and how many of its CTAs the device
/// holds at once (a persistent launch's bound); nothing for other kernels
/// or drivers without clusters.
Status clusterShape(const Driver &driver, const KernelDesc &kernel,
                    unsigned threads, LoadedFunction *function) {
  if (!driver.cuFuncGetAttribute)
    return Status();
  auto f = static_cast<CUfunction>(function->handle);
  int width = 0;
  CUresult result = driver.cuFuncGetAttribute(
      &width, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f);
  if (result != CUDA_SUCCESS)
    return driverError(driver, kernel,
                       "cuFuncGetAttribute(REQUIRED_CLUSTER_WIDTH)", result);
  if (width <= 1)
    return Status();
  function->clusterCtas = unsigned(width);
  if (!driver.cuOccupancyMaxActiveClusters)
    return Status();
  CUlaunchConfig config{unsigned(width),       1,       1,       threads, 1, 1,
                        function->sharedBytes, nullptr, nullptr, 0};
  int clusters = 0;
  result = driver.cuOccupancyMaxActiveClusters(&clusters, f, &config);
  if (result != CUDA_SUCCESS)
    return driverError(driver, kernel, "cuOccupancyMaxActiveClusters", result);
  function->residentCtas = unsigned(clusters) * unsigned(width);
  return Status();
}

/// The driver and the current context (device 0's primary one if none is),
/// what every entry point starts from.
Status driverWithContext(const KernelDesc &kernel, const Driver **out,
                         CUcontext *ctx) {
  const std::string *whyNot = nullptr;
  const Driver *driver = loadDriver(&whyNot);
  if (!driver)
    return makeStatus(KCC_ERROR_NO_DRIVER, launchPrefix(kernel) + *whyNot);
  *out = driver;
  return currentContext(*driver, kernel, ctx);
}

/// kcc's --target for a compute capability: sm_90 and newer use the
/// arch-specific ("a") targets, as kcc's own target models do.
std::string targetFor(unsigned sm) {
  return "sm_" + std::to_string(sm) + (sm >= 90 ? "a" : "");
}

Status noImage(const Driver &driver, const KernelDesc &kernel, unsigned sm,
               bool haveSm, CUresult result) {
  const FatbinDesc &fatbin = *kernel.fatbin;
  bool ptx = result != CUDA_ERROR_NO_BINARY_FOR_GPU;
  std::string gpu = haveSm ? "sm_" + std::to_string(sm) : "unknown";
  std::string message = launchPrefix(kernel) + "the fatbin from " +
                        sourceOf(fatbin) + " has no image for this GPU (" +
                        gpu + ")";
  if (ptx)
    message += " that this driver can run: JIT-compiling its PTX failed";
  message += std::string("; it holds ") +
             (fatbin.archs && *fatbin.archs ? fatbin.archs : "unknown images") +
             "; recompile with --target=" +
             (haveSm ? targetFor(sm) : "<this GPU's architecture>");
  if (ptx)
    message += ", or install a newer NVIDIA driver";
  message += " (cuModuleLoadData: " + driver.describe(result) + ")";
  return makeStatus(KCC_ERROR_NO_IMAGE, std::move(message));
}

bool isNoImage(CUresult result) {
  return result == CUDA_ERROR_NO_BINARY_FOR_GPU ||
         result == CUDA_ERROR_INVALID_PTX ||
         result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         result == CUDA_ERROR_JIT_COMPILER_NOT_FOUND ||
         result == CUDA_ERROR_JIT_COMPILATION_DISABLED;
}

/// Lets `function` use `bytes` of dynamic shared memory, more than the 48 KiB
/// a launch may ask for without opting in (once per loaded function: the
/// attribute stays with it).
Status allowSharedBytes(const Driver &driver, const KernelDesc &kernel,
                        CUfunction function, unsigned bytes, unsigned sm) {
  CUresult result = driver.cuFuncSetAttribute(
      function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      static_cast<int>(bytes));
  if (result == CUDA_SUCCESS)
    return Status();
  std::string call = "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                     std::to_string(bytes) + ")";
  Status status = driverError(driver, kernel, call.c_str(), result);
  if (result == CUDA_ERROR_INVALID_VALUE)
    status.message += "; the kernel needs " + std::to_string(bytes) +
                      " bytes of shared memory per block, more than this GPU "
                      "(sm_" +
                      std::to_string(sm) +
                      ") allows: compile it for this GPU's target";
  return status;
}

FunctionCache &cache() {
  static FunctionCache *instance = new FunctionCache; // leaked: usable at exit
  return *instance;
}

/// Loads (once per context) the module and the kernel's function, picks the
/// block size and dynamic shared memory for the context's compute capability,
/// and opts the function in to that much shared memory when it is more than
/// 48 KiB.
Status loadFunction(const Driver &driver, const KernelDesc &kernel,
                    CUcontext ctx, LoadedFunction *out) {
  auto loadModule = [&](void **module) {
    CUmodule loaded = nullptr;
    CUresult result = driver.cuModuleLoadData(&loaded, kernel.fatbin->image);
    if (isNoImage(result)) {
      unsigned sm = 0;
      bool haveSm = computeCapability(driver, kernel, &sm).ok();
      return noImage(driver, kernel, sm, haveSm, result);
    }
    if (result != CUDA_SUCCESS) {
      Status status = driverError(driver, kernel, "cuModuleLoadData", result);
      if (result == CUDA_ERROR_INVALID_IMAGE)
        status.message += damagedHint(kernel, "fatbin");
      return status;
    }
    *module = loaded;
    return Status();
  };
  auto getFunction = [&](void *module, LoadedFunction *function) {
    CUfunction handle = nullptr;
    CUresult result = driver.cuModuleGetFunction(
        &handle, static_cast<CUmodule>(module), symbolOf(kernel));
    if (result != CUDA_SUCCESS) {
      Status status =
          driverError(driver, kernel, "cuModuleGetFunction", result);
      if (result == CUDA_ERROR_NOT_FOUND)
        status.message += outOfSyncHint(kernel, "fatbin");
      return status;
    }
    unsigned sm = 0;
    Status status = computeCapability(driver, kernel, &sm);
    if (!status.ok())
      return status;
    const ThreadsForArch *entry = &kernel.threads[0];
    for (unsigned i = 0; i < kernel.numThreads; ++i)
      if (kernel.threads[i].sm == sm) {
        entry = &kernel.threads[i];
        break;
      }
    if (entry->sharedBytes > kDefaultDynamicSharedBytes) {
      status = allowSharedBytes(driver, kernel, handle, entry->sharedBytes, sm);
      if (!status.ok())
        return status;
    }
    function->handle = handle;
    function->blockX = entry->threads;
    function->sharedBytes = entry->sharedBytes;
    function->persistentSlower = entry->persistentSlower;
    // For persistent kernels' launches; the cache keeps one entry per
    // symbol, so every function records it.
    Status counted = processorCount(driver, kernel, &function->processors);
    if (!counted.ok())
      return counted;
    return clusterShape(driver, kernel, entry->threads, function);
  };
  return cache().load(reinterpret_cast<uintptr_t>(ctx), kernel, loadModule,
                      getFunction, out);
}

/// The compute capability (major*10+minor) of the current context's device,
/// retaining device 0's primary context if none is current.
Status currentComputeCapability(const KernelDesc &kernel, unsigned *sm) {
  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  Status status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  return computeCapability(*driver, kernel, sm);
}

/// Which of the targets offered (candidate index, compute capability it was
/// built for) a device of compute capability `device` runs code from: the
/// exact one; else the newest of the same major version below the device
/// (the cubin the driver loads from the fatbin); else the newest (JIT from
/// its PTX). Among equal targets the first exact one and the last other one
/// win. selectVariant and selectTarget share it so that they always agree.
class TargetMatch {
public:
  explicit TargetMatch(unsigned device) : device(device) {}

  /// Offers candidate `index`, built for `built`; true once an exact match
  /// is found (nothing later can change the choice).
  bool offer(unsigned index, unsigned built) {
    if (built == device) {
      exact = static_cast<int>(index);
      return true;
    }
    if (built / 10 == device / 10 && built < device && built >= sameMajorSm) {
      sameMajor = static_cast<int>(index);
      sameMajorSm = built;
    }
    if (built >= newestSm) {
      newest = static_cast<int>(index);
      newestSm = built;
    }
    return false;
  }

  /// The chosen candidate; 0 if none was offered.
  unsigned index() const {
    for (int v : {exact, sameMajor, newest})
      if (v >= 0)
        return static_cast<unsigned>(v);
    return 0;
  }

private:
  unsigned device;
  int exact = -1, sameMajor = -1, newest = -1;
  unsigned sameMajorSm = 0, newestSm = 0;
};

} // namespace

Status kcc::rt::multiprocessorCount(const KernelDesc &kernel, int64_t *count) {
  *count = 0;
  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  Status status = driverWithContext(kernel, &driver, &ctx);
  unsigned n = 0;
  if (status.ok())
    status = processorCount(*driver, kernel, &n);
  *count = n;
  return status;
}

Status kcc::rt::selectVariant(const KernelDesc *const *variants, unsigned n,
                              unsigned *index) {
  *index = 0;
  if (n <= 1)
    return Status();
  unsigned sm = 0;
  Status status = currentComputeCapability(*variants[0], &sm);
  if (!status.ok())
    return status;
  TargetMatch match(sm);
  bool exact = false;
  for (unsigned v = 0; v < n && !exact; ++v)
    for (unsigned i = 0; i < variants[v]->numThreads && !exact; ++i)
      exact = match.offer(v, variants[v]->threads[i].sm);
  *index = match.index();
  return Status();
}

Status kcc::rt::selectTarget(const KernelDesc &kernel, const unsigned *sms,
                             unsigned n, unsigned *index) {
  *index = 0;
  if (n <= 1)
    return Status();
  unsigned sm = 0;
  Status status = currentComputeCapability(kernel, &sm);
  if (!status.ok())
    return status;
  TargetMatch match(sm);
  bool exact = false;
  for (unsigned i = 0; i < n && !exact; ++i)
    exact = match.offer(i, sms[i]);
  *index = match.index();
  return Status();
}

Status kcc::rt::launch(const KernelDesc &kernel, const int64_t grid[3],
                       void **args, CUstream_st *stream) {
  bool empty = false;
  Status status = validateGrid(kernel, grid, kCudaLimits, &empty);
  if (!status.ok() || empty)
    return status;
  status = validateDescriptor(kernel);
  if (!status.ok())
    return status;

  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  auto load = [&](const KernelDesc &desc, LoadedFunction *function) {
    if (cache().find(reinterpret_cast<uintptr_t>(ctx), desc, function))
      return Status();
    return loadFunction(*driver, desc, ctx, function);
  };
  LoadedFunction function;
  const KernelDesc *launchedDesc = nullptr;
  status = loadLaunchedBuild(kernel, grid, load, &launchedDesc, &function);
  if (!status.ok())
    return status;
  const KernelDesc &build = *launchedDesc;

  int64_t launched[3];
  persistentGrid(build, function, grid, launched);
  CUresult result = driver->cuLaunchKernel(
      static_cast<CUfunction>(function.handle),
      static_cast<unsigned>(launched[0]), static_cast<unsigned>(launched[1]),
      static_cast<unsigned>(launched[2]), function.blockX, 1, 1,
      function.sharedBytes, stream, args,
      /*extra=*/nullptr);
  if (result != CUDA_SUCCESS)
    return driverError(*driver, build, "cuLaunchKernel", result);
  return Status();
}

//===----------------------------------------------------------------------===//
// Split-K workspaces
//===----------------------------------------------------------------------===//

namespace {

/// `bytes` of device memory on the current context whose first `zeroed`
/// bytes are zero. cuMemsetD8 runs on the legacy default stream, which
/// streams created with CU_STREAM_NON_BLOCKING do not wait for: it is waited
/// for here. On failure nothing stays allocated.
Status allocateZeroed(const Driver &driver, const KernelDesc &kernel,
                      size_t bytes, size_t zeroed, void **ptr) {
  CUdeviceptr allocated = 0;
  CUresult result = driver.cuMemAlloc(&allocated, bytes);
  if (result != CUDA_SUCCESS) {
    std::string call = "cuMemAlloc(" + std::to_string(bytes) + ")";
    return driverError(driver, kernel, call.c_str(), result);
  }
  const char *call = "cuMemsetD8";
  result = driver.cuMemsetD8(allocated, 0, zeroed);
  if (result == CUDA_SUCCESS) {
    call = "cuStreamSynchronize";
    result = driver.cuStreamSynchronize(nullptr);
  }
  if (result != CUDA_SUCCESS) {
    driver.cuMemFree(allocated);
    std::string what = std::string(call) + " (zero-filling " +
                       std::to_string(zeroed) + " bytes)";
    return driverError(driver, kernel, what.c_str(), result);
  }
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(allocated));
  return Status();
}

WorkspaceCache &workspaces() {
  static WorkspaceCache *instance = new WorkspaceCache; // leaked: never freed
  return *instance;
}

/// The driver calls of WorkspaceCache on one stream of the current context.
class CudaWorkspaceCalls final : public WorkspaceCache::Calls {
public:
  CudaWorkspaceCalls(const Driver &driver, const KernelDesc &kernel,
                     CUstream stream)
      : driver(driver), kernel(kernel), stream(stream) {}

  Status capturing(bool *capturing) override {
    *capturing = false;
    if (!driver.cuStreamIsCapturing) // no CUDA graphs in this driver
      return Status();
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult result = driver.cuStreamIsCapturing(stream, &capture);
    if (result != CUDA_SUCCESS)
      return driverError(driver, kernel, "cuStreamIsCapturing", result);
    // An invalidated capture is still one: allocating would not be recorded.
    *capturing = capture != CU_STREAM_CAPTURE_STATUS_NONE;
    return Status();
  }
  Status synchronize() override {
    CUresult result = driver.cuStreamSynchronize(stream);
    if (result != CUDA_SUCCESS)
      return driverError(driver, kernel, "cuStreamSynchronize", result);
    return Status();
  }
  Status allocate(size_t bytes, void **ptr) override {
    // The split-K tickets start at zero (kernels leave them so).
    return allocateZeroed(driver, kernel, bytes,
                          std::min(bytes, kcc::rt::kSplitKTicketBytes), ptr);
  }
  Status release(void *ptr) override {
    CUresult result = driver.cuMemFree(
        static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr)));
    if (result != CUDA_SUCCESS)
      return driverError(driver, kernel, "cuMemFree", result);
    return Status();
  }

private:
  const Driver &driver;
  const KernelDesc &kernel;
  CUstream stream;
};

} // namespace

Status kcc::rt::workspace(const KernelDesc &kernel, size_t bytes,
                          CUstream_st *stream, void **ptr) {
  if (!ptr)
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                      launchPrefix(kernel) +
                          "the workspace pointer to set is a null pointer");
  *ptr = nullptr;
  if (bytes == 0)
    return Status();
  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  Status status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  CudaWorkspaceCalls calls(*driver, kernel, stream);
  return workspaces().get(kernel, reinterpret_cast<uintptr_t>(ctx), stream,
                          bytes, calls, ptr);
}

//===----------------------------------------------------------------------===//
// Tuning: device names, zeroed memory, timed launches
//===----------------------------------------------------------------------===//

namespace {

DeviceNameCache &deviceNames() {
  static DeviceNameCache *instance = new DeviceNameCache; // leaked
  return *instance;
}

/// The two events of timeLaunches on one stream of the current context.
class CudaLaunchTimer final : public LaunchTimer {
public:
  CudaLaunchTimer(const Driver &driver, const KernelDesc &kernel,
                  CUstream stream)
      : driver(driver), kernel(kernel), stream(stream) {}
  ~CudaLaunchTimer() {
    // Failures here have nothing left to spoil: the result is known.
    for (CUevent event : {begin, end})
      if (event)
        driver.cuEventDestroy(event);
  }

  Status start() override {
    for (CUevent *event : {&begin, &end}) {
      CUresult result = driver.cuEventCreate(event, CU_EVENT_DEFAULT);
      if (result != CUDA_SUCCESS) {
        *event = nullptr;
        return driverError(driver, kernel, "cuEventCreate", result);
      }
    }
    return record(begin);
  }
  Status stop() override {
    Status status = record(end);
    if (!status.ok())
      return status;
    CUresult result = driver.cuEventSynchronize(end);
    if (result != CUDA_SUCCESS)
      return driverError(driver, kernel, "cuEventSynchronize", result);
    return Status();
  }
  Status elapsed(float *milliseconds) override {
    CUresult result = driver.cuEventElapsedTime(milliseconds, begin, end);
    if (result != CUDA_SUCCESS)
      return driverError(driver, kernel, "cuEventElapsedTime", result);
    return Status();
  }

private:
  Status record(CUevent event) {
    CUresult result = driver.cuEventRecord(event, stream);
    if (result != CUDA_SUCCESS)
      return driverError(driver, kernel, "cuEventRecord", result);
    return Status();
  }

  const Driver &driver;
  const KernelDesc &kernel;
  CUstream stream;
  CUevent begin = nullptr, end = nullptr;
};

} // namespace

Status kcc::rt::deviceName(const KernelDesc &kernel, std::string *name) {
  if (!name)
    return nullOutput(kernel, "device name");
  name->clear();
  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  Status status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  CUdevice device = 0;
  CUresult result = driver->cuCtxGetDevice(&device);
  if (result != CUDA_SUCCESS)
    return driverError(*driver, kernel, "cuCtxGetDevice", result);
  return deviceNames().get(
      device,
      [&](std::string *queried) {
        char buffer[256] = {};
        CUresult named =
            driver->cuDeviceGetName(buffer, sizeof buffer - 1, device);
        if (named != CUDA_SUCCESS)
          return driverError(*driver, kernel, "cuDeviceGetName", named);
        queried->assign(buffer, strnlen(buffer, sizeof buffer));
        return Status();
      },
      name);
}

Status kcc::rt::allocate(const KernelDesc &kernel, size_t bytes, void **ptr) {
  if (!ptr)
    return nullOutput(kernel, "device memory pointer");
  *ptr = nullptr;
  if (bytes == 0)
    return Status();
  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  Status status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  return allocateZeroed(*driver, kernel, bytes, bytes, ptr);
}

Status kcc::rt::release(const KernelDesc &kernel, void *ptr) {
  if (!ptr)
    return Status();
  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  Status status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  CUresult result = driver->cuMemFree(
      static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr)));
  if (result != CUDA_SUCCESS)
    return driverError(*driver, kernel, "cuMemFree", result);
  return Status();
}

Status kcc::rt::timeLaunches(const KernelDesc &kernel, CUstream_st *stream,
                             unsigned repetitions,
                             const std::function<Status()> &launch,
                             double *microseconds) {
  Status status = checkTiming(kernel, repetitions, launch, microseconds);
  if (!status.ok())
    return status;
  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  CudaLaunchTimer timer(*driver, kernel, stream);
  return timeWith(repetitions, launch, timer, microseconds);
}

//===----------------------------------------------------------------------===//
// TMA tensor maps
//===----------------------------------------------------------------------===//

namespace {

/// The TMA data type of `elem` and its size. TMA only copies bytes, so the
/// signed 8- and 16-bit types use the unsigned enums of their width (cuda.h
/// has no INT8/INT16), and i1 (stored as one byte) uses UINT8.
void tmaDataType(DType elem, CUtensorMapDataType *type, unsigned *bytes) {
  switch (elem) {
  case DType::i1:
  case DType::i8:
  // TMA has no 8-bit float type: it copies bytes, so f8 maps are UINT8 (as
  // CUTLASS encodes them).
  case DType::f8e4m3:
  case DType::f8e5m2:
  case DType::f8e4m3fnuz:
  case DType::f8e5m2fnuz:
    *type = CU_TENSOR_MAP_DATA_TYPE_UINT8, *bytes = 1;
    return;
  case DType::i16:
    *type = CU_TENSOR_MAP_DATA_TYPE_UINT16, *bytes = 2;
    return;
  case DType::i32:
    *type = CU_TENSOR_MAP_DATA_TYPE_INT32, *bytes = 4;
    return;
  case DType::i64:
    *type = CU_TENSOR_MAP_DATA_TYPE_INT64, *bytes = 8;
    return;
  case DType::f16:
    *type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16, *bytes = 2;
    return;
  case DType::bf16:
    *type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, *bytes = 2;
    return;
  case DType::f32:
    *type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32, *bytes = 4;
    return;
  case DType::f64:
    *type = CU_TENSOR_MAP_DATA_TYPE_FLOAT64, *bytes = 8;
    return;
  }
  *type = -1, *bytes = 0;
}

const char *tmaDataTypeName(CUtensorMapDataType type) {
  switch (type) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8:
    return "UINT8";
  case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    return "UINT16";
  case CU_TENSOR_MAP_DATA_TYPE_INT32:
    return "INT32";
  case CU_TENSOR_MAP_DATA_TYPE_INT64:
    return "INT64";
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    return "FLOAT16";
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    return "BFLOAT16";
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    return "FLOAT32";
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
    return "FLOAT64";
  }
  return "?";
}

std::string hexAddress(const void *p) {
  char buffer[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(buffer, sizeof buffer, "0x%" PRIxPTR,
                reinterpret_cast<uintptr_t>(p));
  return buffer;
}

template <typename T> std::string listText(const T *values, unsigned n) {
  std::string out = "[";
  for (unsigned i = 0; i < n; ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

constexpr int64_t kMaxTmaDim = int64_t(1) << 32;    // globalDim <= 2^32
constexpr int64_t kMaxTmaStride = int64_t(1) << 40; // globalStrides < 2^40
constexpr unsigned kMaxTmaRank = 5;
constexpr int32_t kMaxTmaBox = 256;

} // namespace

Status kcc::rt::encodeTensorMap(const KernelDesc &kernel,
                                const char *tensorName, TensorMap *out,
                                DType elem, const void *base, unsigned rank,
                                const int64_t *dims, const int64_t *strides,
                                const int32_t *box, unsigned swizzleBytes) {
  const char *name = tensorName && *tensorName ? tensorName : "?";
  std::string prefix =
      std::string("kcc: ") + symbolOf(kernel) + ": tensor '" + name + "'";
  auto invalid = [&](const std::string &what) {
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT, prefix + ": " + what);
  };
  if (!out)
    return invalid("the tensor map to encode into is a null pointer");
  std::memset(out, 0, sizeof *out);

  const Driver *driver = nullptr;
  CUcontext ctx = nullptr;
  Status status = driverWithContext(kernel, &driver, &ctx);
  if (!status.ok())
    return status;
  unsigned sm = 0;
  status = computeCapability(*driver, kernel, &sm);
  if (!status.ok())
    return status;
  // Before Hopper the kernel's image does not declare tensor map parameters
  // (no TMA): the zeroed map is passed and ignored.
  if (sm < 90)
    return Status();

  // The rules of cuTensorMapEncodeTiled (cuda.h), so that a bad tensor is
  // reported in kcc's terms rather than as CUDA_ERROR_INVALID_VALUE.
  if (rank < 1 || rank > kMaxTmaRank)
    return invalid("rank " + std::to_string(rank) +
                   " is outside 1..5, the ranks TMA supports");
  if (!dims || !box || (rank > 1 && !strides))
    return invalid("its sizes, strides or box are a null pointer; regenerate "
                   "the launch stub with kcc");
  CUtensorMapDataType dataType = 0;
  unsigned elemBytes = 0;
  tmaDataType(elem, &dataType, &elemBytes);
  if (!elemBytes)
    return invalid("invalid element type");
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  switch (swizzleBytes) {
  case 0:
    break;
  case 32:
    swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
    break;
  case 64:
    swizzle = CU_TENSOR_MAP_SWIZZLE_64B;
    break;
  case 128:
    swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    break;
  default:
    return invalid("swizzle span " + std::to_string(swizzleBytes) +
                   " bytes is not 0, 32, 64 or 128");
  }
  // The box is the kernel's tile: a wrong one is a compiler bug, but the
  // driver's verdict would not say which rule it broke.
  for (unsigned i = 0; i < rank; ++i)
    if (box[i] < 1 || box[i] > kMaxTmaBox)
      return invalid("box dimension " + std::to_string(i) + " = " +
                     std::to_string(box[i]) +
                     " is outside 1..256, TMA's limit on a box side");
  int64_t innerBytes = int64_t(box[rank - 1]) * elemBytes;
  if (innerBytes % 16 != 0)
    return invalid("the box's inner dimension is " +
                   std::to_string(innerBytes) +
                   " bytes, not a multiple of 16 as TMA requires");
  if (swizzleBytes && innerBytes > swizzleBytes)
    return invalid("the box's inner dimension is " +
                   std::to_string(innerBytes) + " bytes, more than the " +
                   std::to_string(swizzleBytes) + "-byte swizzle span");
  // A negative size is an empty tensor (docs/language.md), as on GPUs
  // without TMA.
  bool empty = false;
  for (unsigned i = 0; i < rank; ++i) {
    if (dims[i] > kMaxTmaDim)
      return invalid("size " + std::to_string(i) + " = " +
                     std::to_string(dims[i]) +
                     " is more than 2^32, the sizes a tensor map can hold");
    empty = empty || dims[i] <= 0;
  }
  if (empty)
    return makeStatus(KCC_SUCCESS,
                      prefix + " is empty (sizes " + listText(dims, rank) +
                          "): no tensor map encoded, as a tensor map cannot "
                          "describe an empty tensor");
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0)
    return makeStatus(KCC_ERROR_MISALIGNED,
                      prefix + ": base address " + hexAddress(base) +
                          " is not 16-byte aligned, as TMA requires");
  for (unsigned i = 0; i + 1 < rank; ++i) {
    if (strides[i] < 0 || strides[i] >= kMaxTmaStride / elemBytes)
      return invalid("stride " + std::to_string(i) + " = " +
                     std::to_string(strides[i]) +
                     " elements is outside 0..2^40 bytes, the strides a "
                     "tensor map can hold");
    if (strides[i] * elemBytes % 16 != 0)
      return makeStatus(KCC_ERROR_MISALIGNED,
                        prefix + ": stride " + std::to_string(i) + " = " +
                            std::to_string(strides[i]) + " elements (" +
                            std::to_string(strides[i] * elemBytes) +
                            " bytes) is not a multiple of 16 bytes, as TMA "
                            "requires");
  }

  if (!driver->cuTensorMapEncodeTiled)
    return makeStatus(KCC_ERROR_DRIVER,
                      launchPrefix(kernel) + "the CUDA driver (" +
                          driverLibraryName() +
                          ") has no cuTensorMapEncodeTiled, which kernels "
                          "using TMA need: install an NVIDIA driver for CUDA "
                          "12.0 or newer");

  // TMA lists dimensions innermost first; kcc outermost first.
  uint64_t globalDim[kMaxTmaRank], globalStrides[kMaxTmaRank];
  uint32_t boxDim[kMaxTmaRank], elementStrides[kMaxTmaRank];
  for (unsigned i = 0; i < rank; ++i) {
    globalDim[i] = static_cast<uint64_t>(dims[rank - 1 - i]);
    boxDim[i] = static_cast<uint32_t>(box[rank - 1 - i]);
    elementStrides[i] = 1;
  }
  for (unsigned i = 0; i + 1 < rank; ++i)
    globalStrides[i] = static_cast<uint64_t>(strides[rank - 2 - i]) * elemBytes;
  // L2 promotion 128B: tile rows are whole 16-byte multiples, usually 128
  // bytes or more, so filling L2 in 128-byte lines fetches nothing unused in
  // the common case while halving the requests of 64B. Out-of-bounds
  // elements (ragged edge tiles) read as zeros (FILL_NONE), as masked loads do.
  CUresult result = driver->cuTensorMapEncodeTiled(
      out->words, dataType, rank, const_cast<void *>(base), globalDim,
      globalStrides, boxDim, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    std::memset(out, 0, sizeof *out);
    return driverFailure(
        kernel, "cuTensorMapEncodeTiled",
        driver->describe(result) + " for tensor '" + name + "' (data type " +
            tmaDataTypeName(dataType) + ", rank " + std::to_string(rank) +
            ", address " + hexAddress(base) + ", innermost first: sizes " +
            listText(globalDim, rank) + ", byte strides " +
            listText(globalStrides, rank - 1) + ", box " +
            listText(boxDim, rank) + ", element strides " +
            listText(elementStrides, rank) + ", interleave none, swizzle " +
            (swizzleBytes ? std::to_string(swizzleBytes) + "B" : "none") +
            ", L2 promotion 128B, OOB fill none)");
  }
  return Status();
}

Status kcc::rt::emptyTensorLaunch(const KernelDesc &kernel,
                                  const int64_t grid[3], const Status &empty) {
  bool emptyGrid = false;
  Status status = validateGrid(kernel, grid, kCudaLimits, &emptyGrid);
  if (!status.ok() || emptyGrid)
    return status;
  // empty.message is "kcc: <symbol>: tensor ..."; keep what follows.
  std::string what = empty.message;
  std::string own = std::string("kcc: ") + symbolOf(kernel) + ": ";
  if (what.compare(0, own.size(), own) == 0)
    what.erase(0, own.size());
  return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                    launchPrefix(kernel) + what + ", but the grid (" +
                        std::to_string(grid[0]) + ", " +
                        std::to_string(grid[1]) + ", " +
                        std::to_string(grid[2]) +
                        ") is not: its TMA copies would have no tensor map; "
                        "skip the launch for an empty tensor");
}
