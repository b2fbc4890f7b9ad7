//===- Runtime.cpp - kcc host runtime: checks, module cache, launch -------===//
//
// Errors are values (kcc::Status): nothing here throws or aborts. Every message
// names the kernel, says what went wrong and what to do about it.
//
//===----------------------------------------------------------------------===//

#include "kcc/runtime.h"

#include "CudaDriver.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <utility>

using namespace kcc;
using namespace kcc::rt;
using namespace kcc::rt::cuda;

namespace {

thread_local std::string lastErrorMessage;

Status makeStatus(kcc_status_code code, std::string message) {
  Status status;
  status.code = code;
  status.message = std::move(message);
  return status;
}

const char *symbolOf(const KernelDesc &kernel) {
  return kernel.symbol && *kernel.symbol ? kernel.symbol : "<unnamed kernel>";
}

std::string launchPrefix(const KernelDesc &kernel) {
  return std::string("kcc: cannot launch ") + symbolOf(kernel) + ": ";
}

std::string hex(uintptr_t value) {
  char buffer[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(buffer, sizeof buffer, "0x%" PRIxPTR, value);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Grid validation
//===----------------------------------------------------------------------===//

constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};
constexpr char kAxisName[3] = {'x', 'y', 'z'};

/// Fills `*empty` when a dimension is zero (nothing to launch).
Status validateGrid(const KernelDesc &kernel, const int64_t grid[3],
                    bool *empty) {
  *empty = false;
  if (!grid)
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                      launchPrefix(kernel) + "the grid is a null pointer");
  for (int axis = 0; axis < 3; ++axis) {
    if (grid[axis] < 0)
      return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                        launchPrefix(kernel) + "grid dimension " +
                            kAxisName[axis] + " = " +
                            std::to_string(grid[axis]) +
                            " is negative; pass a grid of sizes >= 0");
    if (grid[axis] > kMaxGrid[axis])
      return makeStatus(
          KCC_ERROR_INVALID_ARGUMENT,
          launchPrefix(kernel) + "grid dimension " + kAxisName[axis] + " = " +
              std::to_string(grid[axis]) + " exceeds CUDA's limit of " +
              std::to_string(kMaxGrid[axis]) +
              "; split the work over several launches or more work per "
              "program");
  }
  for (int axis = 0; axis < 3; ++axis)
    if (grid[axis] == 0)
      *empty = true;
  return Status();
}

//===----------------------------------------------------------------------===//
// Driver errors
//===----------------------------------------------------------------------===//

Status driverError(const Driver &driver, const KernelDesc &kernel,
                   const char *call, CUresult result) {
  std::string message =
      launchPrefix(kernel) + call + " failed: " + driver.describe(result);
  if (result == CUDA_ERROR_INVALID_CONTEXT ||
      result == CUDA_ERROR_CONTEXT_IS_DESTROYED)
    message += "; the current CUDA context is not usable (destroyed, or "
               "belongs to a reset device): make a valid context current";
  else if (result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    message += "; the kernel needs more registers or shared memory than this "
               "GPU has for its block size: compile it for this GPU's target";
  else if (result >= CUDA_ERROR_ILLEGAL_ADDRESS && result < 800)
    message += "; kernels run asynchronously, so an earlier launch may have "
               "caused it, and the CUDA context is now unusable (run with "
               "compute-sanitizer to find the faulting kernel)";
  return makeStatus(KCC_ERROR_DRIVER, std::move(message));
}

//===----------------------------------------------------------------------===//
// Contexts, devices, modules and functions
//===----------------------------------------------------------------------===//

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
                        (fatbin.source ? fatbin.source : "<unknown source>") +
                        " has no image for this GPU (" + gpu + ")";
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

/// A loaded kernel: its handle and block size on the context's device.
struct Function {
  CUfunction function = nullptr;
  unsigned blockX = 0;
};

/// (context, fatbin image, symbol). Lookups use a view (no allocation).
struct FunctionKey {
  CUcontext ctx;
  const void *image;
  std::string symbol;
};
struct FunctionKeyView {
  CUcontext ctx;
  const void *image;
  const char *symbol;
};
struct FunctionKeyLess {
  using is_transparent = void;
  template <typename A, typename B> bool operator()(const A &a, const B &b) const {
    if (a.ctx != b.ctx)
      return std::less<CUcontext>()(a.ctx, b.ctx);
    if (a.image != b.image)
      return std::less<const void *>()(a.image, b.image);
    return std::strcmp(str(a.symbol), str(b.symbol)) < 0;
  }
  static const char *str(const std::string &s) { return s.c_str(); }
  static const char *str(const char *s) { return s; }
};

struct Caches {
  // Modules per (context, fatbin image); held while loading, so each module
  // loads once per context even when threads race on the first launch.
  std::mutex moduleMutex;
  std::map<std::pair<CUcontext, const void *>, CUmodule> modules;
  // Functions per (context, fatbin image, symbol): read on every launch.
  std::shared_mutex functionMutex;
  std::map<FunctionKey, Function, FunctionKeyLess> functions;
};

Caches &caches() {
  static Caches *instance = new Caches; // leaked: usable during exit
  return *instance;
}

Status loadFunction(const Driver &driver, const KernelDesc &kernel,
                    CUcontext ctx, Function *out) {
  Caches &c = caches();
  std::lock_guard<std::mutex> lock(c.moduleMutex);
  const char *symbol = symbolOf(kernel);
  FunctionKeyView view{ctx, kernel.fatbin->image, symbol};
  {
    // Another thread may have finished while this one waited for the lock.
    std::shared_lock<std::shared_mutex> read(c.functionMutex);
    auto it = c.functions.find(view);
    if (it != c.functions.end()) {
      *out = it->second;
      return Status();
    }
  }

  unsigned sm = 0;
  Status smStatus = computeCapability(driver, kernel, &sm);

  CUmodule module = nullptr;
  auto key = std::make_pair(ctx, kernel.fatbin->image);
  auto found = c.modules.find(key);
  if (found != c.modules.end()) {
    module = found->second;
  } else {
    CUresult result = driver.cuModuleLoadData(&module, kernel.fatbin->image);
    if (isNoImage(result))
      return noImage(driver, kernel, sm, smStatus.ok(), result);
    if (result != CUDA_SUCCESS) {
      Status status = driverError(driver, kernel, "cuModuleLoadData", result);
      if (result == CUDA_ERROR_INVALID_IMAGE)
        status.message += std::string("; the fatbin from ") +
                          (kernel.fatbin->source ? kernel.fatbin->source
                                                 : "<unknown source>") +
                          " is damaged: rebuild it";
      return status;
    }
    c.modules.emplace(key, module);
  }

  Function function;
  CUresult result = driver.cuModuleGetFunction(&function.function, module,
                                               symbol);
  if (result != CUDA_SUCCESS) {
    Status status = driverError(driver, kernel, "cuModuleGetFunction", result);
    if (result == CUDA_ERROR_NOT_FOUND)
      status.message += std::string("; the fatbin from ") +
                        (kernel.fatbin->source ? kernel.fatbin->source
                                               : "<unknown source>") +
                        " has no kernel named " + symbol +
                        ": the launch stub and the fatbin are out of sync, "
                        "rebuild both";
    return status;
  }
  if (!smStatus.ok())
    return smStatus;

  function.blockX = kernel.threads[0].threads;
  for (unsigned i = 0; i < kernel.numThreads; ++i)
    if (kernel.threads[i].sm == sm) {
      function.blockX = kernel.threads[i].threads;
      break;
    }

  {
    std::unique_lock<std::shared_mutex> write(c.functionMutex);
    c.functions.emplace(FunctionKey{ctx, kernel.fatbin->image, symbol},
                        function);
  }
  *out = function;
  return Status();
}

Status lookupFunction(const Driver &driver, const KernelDesc &kernel,
                      CUcontext ctx, Function *out) {
  Caches &c = caches();
  {
    std::shared_lock<std::shared_mutex> read(c.functionMutex);
    auto it = c.functions.find(
        FunctionKeyView{ctx, kernel.fatbin->image, symbolOf(kernel)});
    if (it != c.functions.end()) {
      *out = it->second;
      return Status();
    }
  }
  return loadFunction(driver, kernel, ctx, out);
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

extern "C" const char *kcc_last_error_message(void) {
  return lastErrorMessage.c_str();
}

const char *kcc::dtypeName(DType type) {
  switch (type) {
  case DType::i1:
    return "i1";
  case DType::i8:
    return "i8";
  case DType::i16:
    return "i16";
  case DType::i32:
    return "i32";
  case DType::i64:
    return "i64";
  case DType::f16:
    return "f16";
  case DType::bf16:
    return "bf16";
  case DType::f32:
    return "f32";
  case DType::f64:
    return "f64";
  }
  return "<invalid dtype>";
}

kcc_status_code kcc::rt::setLastError(const Status &status) {
  if (status.ok())
    lastErrorMessage.clear();
  else
    lastErrorMessage = status.message;
  return status.code;
}

Status kcc::rt::checkAlignment(const KernelDesc &kernel, const char *param,
                               const void *ptr, unsigned align) {
  if (align <= 1)
    return Status();
  uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  if (address % align == 0)
    return Status();
  return makeStatus(KCC_ERROR_MISALIGNED,
                    std::string("kcc: ") + symbolOf(kernel) + ": pointer '" +
                        (param ? param : "?") + "' (" + hex(address) +
                        ") is not " + std::to_string(align) +
                        "-byte aligned; the kernel was compiled with align(" +
                        std::to_string(align) + ")");
}

Status kcc::rt::checkDivisibility(const KernelDesc &kernel, const char *param,
                                  int64_t value, int64_t divisor) {
  if (divisor <= 1 || value % divisor == 0)
    return Status();
  return makeStatus(KCC_ERROR_NOT_DIVISIBLE,
                    std::string("kcc: ") + symbolOf(kernel) + ": '" +
                        (param ? param : "?") + "' = " + std::to_string(value) +
                        " is not a multiple of " + std::to_string(divisor) +
                        "; the kernel was compiled with multiple_of(" +
                        std::to_string(divisor) + ")");
}

Status kcc::rt::launch(const KernelDesc &kernel, const int64_t grid[3],
                       void **args, CUstream_st *stream) {
  bool empty = false;
  Status status = validateGrid(kernel, grid, &empty);
  if (!status.ok() || empty)
    return status;
  if (!kernel.fatbin || !kernel.fatbin->image || !kernel.threads ||
      kernel.numThreads == 0 || !kernel.symbol || !*kernel.symbol)
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                      launchPrefix(kernel) +
                          "its kernel descriptor is incomplete (no fatbin, "
                          "symbol or block size); regenerate the launch stub "
                          "with kcc");

  const std::string *whyNot = nullptr;
  const Driver *driver = loadDriver(&whyNot);
  if (!driver)
    return makeStatus(KCC_ERROR_NO_DRIVER, launchPrefix(kernel) + *whyNot);

  CUcontext ctx = nullptr;
  status = currentContext(*driver, kernel, &ctx);
  if (!status.ok())
    return status;
  Function function;
  status = lookupFunction(*driver, kernel, ctx, &function);
  if (!status.ok())
    return status;

  CUresult result = driver->cuLaunchKernel(
      function.function, static_cast<unsigned>(grid[0]),
      static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
      function.blockX, 1, 1, /*sharedMemBytes=*/0, stream, args,
      /*extra=*/nullptr);
  if (result != CUDA_SUCCESS)
    return driverError(*driver, kernel, "cuLaunchKernel", result);
  return Status();
}
