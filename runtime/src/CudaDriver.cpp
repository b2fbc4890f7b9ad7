//===- CudaDriver.cpp - opening libcuda.so.1 with dlopen ------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace kcc {
namespace rt {
namespace cuda {

std::string Driver::describe(CUresult error) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (!cuGetErrorName || cuGetErrorName(error, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(error);
  std::string result = name;
  if (cuGetErrorString && cuGetErrorString(error, &text) == CUDA_SUCCESS &&
      text && *text)
    result += std::string(" (") + text + ")";
  return result;
}

const char *driverLibraryName() {
  const char *name = std::getenv("KCC_CUDA_DRIVER");
  return name && *name ? name : "libcuda.so.1";
}

namespace {

struct Loaded {
  Driver driver{};
  bool ok = false;
  std::string whyNot;
};

template <typename Fn>
bool resolve(void *library, const char *name, Fn &slot, std::string &whyNot) {
  dlerror();
  void *address = dlsym(library, name);
  if (!address) {
    whyNot = std::string("the CUDA driver (") + driverLibraryName() +
             ") has no " + name +
             "; it is too old for kcc: install a newer NVIDIA driver";
    return false;
  }
  slot = reinterpret_cast<Fn>(address);
  return true;
}

void load(Loaded &out) {
  const char *library = driverLibraryName();
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace, so this
  // cannot clash with a program that links libcuda itself. Never closed.
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    out.whyNot = std::string("the CUDA driver (") + library +
                 ") was not found: " + (error ? error : "dlopen failed") +
                 "; install the NVIDIA driver, or set KCC_CUDA_DRIVER to the "
                 "path of libcuda.so.1";
    return;
  }
  Driver &d = out.driver;
  std::string &why = out.whyNot;
  if (!resolve(handle, "cuInit", d.cuInit, why) ||
      !resolve(handle, "cuGetErrorName", d.cuGetErrorName, why) ||
      !resolve(handle, "cuGetErrorString", d.cuGetErrorString, why) ||
      !resolve(handle, "cuCtxGetCurrent", d.cuCtxGetCurrent, why) ||
      !resolve(handle, "cuCtxSetCurrent", d.cuCtxSetCurrent, why) ||
      !resolve(handle, "cuCtxGetDevice", d.cuCtxGetDevice, why) ||
      !resolve(handle, "cuDeviceGet", d.cuDeviceGet, why) ||
      !resolve(handle, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain,
               why) ||
      !resolve(handle, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, why) ||
      !resolve(handle, "cuModuleLoadData", d.cuModuleLoadData, why) ||
      !resolve(handle, "cuModuleGetFunction", d.cuModuleGetFunction, why) ||
      !resolve(handle, "cuFuncSetAttribute", d.cuFuncSetAttribute, why) ||
      !resolve(handle, "cuLaunchKernel", d.cuLaunchKernel, why) ||
      !resolve(handle, "cuMemAlloc_v2", d.cuMemAlloc, why) ||
      !resolve(handle, "cuMemFree_v2", d.cuMemFree, why) ||
      !resolve(handle, "cuStreamSynchronize", d.cuStreamSynchronize, why) ||
      !resolve(handle, "cuDeviceGetName", d.cuDeviceGetName, why) ||
      !resolve(handle, "cuMemsetD8_v2", d.cuMemsetD8, why) ||
      !resolve(handle, "cuEventCreate", d.cuEventCreate, why) ||
      !resolve(handle, "cuEventRecord", d.cuEventRecord, why) ||
      !resolve(handle, "cuEventSynchronize", d.cuEventSynchronize, why) ||
      !resolve(handle, "cuEventDestroy_v2", d.cuEventDestroy, why))
    return;
  // cuEventElapsedTime_v2 came with CUDA 12.8; older drivers have only the
  // unversioned export, which times completed events the same way.
  d.cuEventElapsedTime = reinterpret_cast<decltype(d.cuEventElapsedTime)>(
      dlsym(handle, "cuEventElapsedTime_v2"));
  if (!d.cuEventElapsedTime &&
      !resolve(handle, "cuEventElapsedTime", d.cuEventElapsedTime, why))
    return;
  // Optional: older drivers (before CUDA 12) still launch kernels without
  // tensor maps; encodeTensorMap reports its absence.
  d.cuTensorMapEncodeTiled = reinterpret_cast<TensorMapEncodeTiledFn>(
      dlsym(handle, "cuTensorMapEncodeTiled"));
  // Optional: drivers before CUDA 10 have no stream capture at all.
  d.cuStreamIsCapturing = reinterpret_cast<decltype(d.cuStreamIsCapturing)>(
      dlsym(handle, "cuStreamIsCapturing"));
  // Optional: clusters came with CUDA 12.
  d.cuFuncGetAttribute = reinterpret_cast<decltype(d.cuFuncGetAttribute)>(
      dlsym(handle, "cuFuncGetAttribute"));
  d.cuOccupancyMaxActiveClusters =
      reinterpret_cast<decltype(d.cuOccupancyMaxActiveClusters)>(
          dlsym(handle, "cuOccupancyMaxActiveClusters"));
  CUresult result = d.cuInit(0);
  if (result != CUDA_SUCCESS) {
    out.whyNot = "cuInit failed: " + d.describe(result);
    if (result == CUDA_ERROR_NO_DEVICE)
      out.whyNot += "; no GPU is visible to this process (check nvidia-smi "
                    "and CUDA_VISIBLE_DEVICES)";
    else if (result == CUDA_ERROR_STUB_LIBRARY)
      out.whyNot += std::string("; ") + library +
                    " is the toolkit's stub, not the driver: remove the stubs "
                    "directory from LD_LIBRARY_PATH";
    else
      out.whyNot += "; check the NVIDIA driver installation (nvidia-smi)";
    return;
  }
  out.ok = true;
}

} // namespace

const Driver *loadDriver(const std::string **whyNot) {
  // Leaked on purpose: launches from static destructors still find it.
  static Loaded *loaded = new Loaded;
  static std::once_flag once;
  std::call_once(once, [] { load(*loaded); });
  if (!loaded->ok) {
    *whyNot = &loaded->whyNot;
    return nullptr;
  }
  return &loaded->driver;
}

} // namespace cuda
} // namespace rt
} // namespace kcc
