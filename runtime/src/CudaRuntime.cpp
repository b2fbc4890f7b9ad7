//===- CudaRuntime.cpp - launching through the CUDA driver API ------------===//
//
// The CUDA backend of kcc::rt::launch: the current (or device 0's primary)
// context, modules and functions cached per context (Common.h), the
// no-image and driver-error messages. The driver is opened with dlopen
// (CudaDriver.cpp).
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "CudaDriver.h"

#include <mutex>

using namespace kcc;
using namespace kcc::rt;
using namespace kcc::rt::cuda;
using namespace kcc::rt::detail;

namespace {

constexpr GridLimits kCudaLimits = {"CUDA", {2147483647, 65535, 65535}};

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

FunctionCache &cache() {
  static FunctionCache *instance = new FunctionCache; // leaked: usable at exit
  return *instance;
}

/// Loads (once per context) the module and the kernel's function, and picks
/// the block size for the context's compute capability.
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
    function->handle = handle;
    function->blockX = kernel.threads[0].threads;
    for (unsigned i = 0; i < kernel.numThreads; ++i)
      if (kernel.threads[i].sm == sm) {
        function->blockX = kernel.threads[i].threads;
        break;
      }
    return Status();
  };
  return cache().load(reinterpret_cast<uintptr_t>(ctx), kernel, loadModule,
                      getFunction, out);
}

} // namespace

Status kcc::rt::launch(const KernelDesc &kernel, const int64_t grid[3],
                       void **args, CUstream_st *stream) {
  bool empty = false;
  Status status = validateGrid(kernel, grid, kCudaLimits, &empty);
  if (!status.ok() || empty)
    return status;
  status = validateDescriptor(kernel);
  if (!status.ok())
    return status;

  const std::string *whyNot = nullptr;
  const Driver *driver = loadDriver(&whyNot);
  if (!driver)
    return makeStatus(KCC_ERROR_NO_DRIVER, launchPrefix(kernel) + *whyNot);

  CUcontext ctx = nullptr;
  status = currentContext(*driver, kernel, &ctx);
  if (!status.ok())
    return status;
  LoadedFunction function;
  if (!cache().find(reinterpret_cast<uintptr_t>(ctx), kernel, &function)) {
    status = loadFunction(*driver, kernel, ctx, &function);
    if (!status.ok())
      return status;
  }

  CUresult result = driver->cuLaunchKernel(
      static_cast<CUfunction>(function.handle), static_cast<unsigned>(grid[0]),
      static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
      function.blockX, 1, 1, /*sharedMemBytes=*/0, stream, args,
      /*extra=*/nullptr);
  if (result != CUDA_SUCCESS)
    return driverError(*driver, kernel, "cuLaunchKernel", result);
  return Status();
}
