// Compiled only where the CUDA toolkit's cuda.h exists: CudaDriver.h declares
// its own constants (so the runtime builds without the toolkit); they must
// match the real ones.
#include "CudaDriver.h"

#include <cuda.h>

namespace k = kcc::rt::cuda;

#define KCC_SAME(name)                                                         \
  static_assert(static_cast<long>(k::name) == static_cast<long>(::name),       \
                #name " differs from cuda.h")
KCC_SAME(CUDA_SUCCESS);
KCC_SAME(CUDA_ERROR_INVALID_VALUE);
KCC_SAME(CUDA_ERROR_NOT_INITIALIZED);
KCC_SAME(CUDA_ERROR_DEINITIALIZED);
KCC_SAME(CUDA_ERROR_STUB_LIBRARY);
KCC_SAME(CUDA_ERROR_NO_DEVICE);
KCC_SAME(CUDA_ERROR_INVALID_DEVICE);
KCC_SAME(CUDA_ERROR_INVALID_IMAGE);
KCC_SAME(CUDA_ERROR_INVALID_CONTEXT);
KCC_SAME(CUDA_ERROR_NO_BINARY_FOR_GPU);
KCC_SAME(CUDA_ERROR_INVALID_PTX);
KCC_SAME(CUDA_ERROR_JIT_COMPILER_NOT_FOUND);
KCC_SAME(CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
KCC_SAME(CUDA_ERROR_JIT_COMPILATION_DISABLED);
KCC_SAME(CUDA_ERROR_NOT_FOUND);
KCC_SAME(CUDA_ERROR_ILLEGAL_ADDRESS);
KCC_SAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
KCC_SAME(CUDA_ERROR_CONTEXT_IS_DESTROYED);
KCC_SAME(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
KCC_SAME(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(sizeof(CUresult) == sizeof(k::CUresult), "CUresult size");
static_assert(sizeof(CUdevice) == sizeof(k::CUdevice), "CUdevice size");
static_assert(sizeof(CUdevice_attribute) == sizeof(k::CUdevice_attribute),
              "CUdevice_attribute size");

// The symbols the runtime resolves have no versioned export in this cuda.h.
#define KCC_UNVERSIONED(name)                                                  \
  static constexpr const char *kSpelled_##name = KCC_STR(name);
#define KCC_STR(x) KCC_STR2(x)
#define KCC_STR2(x) #x
KCC_UNVERSIONED(cuInit)
KCC_UNVERSIONED(cuGetErrorName)
KCC_UNVERSIONED(cuGetErrorString)
KCC_UNVERSIONED(cuCtxGetCurrent)
KCC_UNVERSIONED(cuCtxSetCurrent)
KCC_UNVERSIONED(cuCtxGetDevice)
KCC_UNVERSIONED(cuDeviceGet)
KCC_UNVERSIONED(cuDevicePrimaryCtxRetain)
KCC_UNVERSIONED(cuDeviceGetAttribute)
KCC_UNVERSIONED(cuModuleLoadData)
KCC_UNVERSIONED(cuModuleGetFunction)
KCC_UNVERSIONED(cuLaunchKernel)

namespace kcc_runtime_test {
// How cuda.h spells each entry point after its #defines (checked at run time
// by RuntimeTests.cpp: it must equal the plain name the runtime dlsyms).
extern const char *const kCudaHeaderSpellings[];
const char *const kCudaHeaderSpellings[] = {
    kSpelled_cuInit,          kSpelled_cuGetErrorName,
    kSpelled_cuGetErrorString, kSpelled_cuCtxGetCurrent,
    kSpelled_cuCtxSetCurrent, kSpelled_cuCtxGetDevice,
    kSpelled_cuDeviceGet,     kSpelled_cuDevicePrimaryCtxRetain,
    kSpelled_cuDeviceGetAttribute, kSpelled_cuModuleLoadData,
    kSpelled_cuModuleGetFunction, kSpelled_cuLaunchKernel,
    nullptr};
} // namespace kcc_runtime_test
