// Compiled only where the CUDA toolkit's cuda.h exists: CudaDriver.h declares
// its own constants (so the runtime builds without the toolkit); they must
// match the real ones.
#include "CudaDriver.h"
#include "kcc/runtime.h"

#include <cuda.h>

#include <type_traits>

namespace k = kcc::rt::cuda;

#define KCC_SAME(name)                                                         \
  static_assert(static_cast<long>(k::name) == static_cast<long>(::name),       \
                #name " differs from cuda.h")
KCC_SAME(CUDA_SUCCESS);
KCC_SAME(CUDA_ERROR_INVALID_VALUE);
KCC_SAME(CUDA_ERROR_OUT_OF_MEMORY);
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
KCC_SAME(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_UINT8);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_UINT16);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_UINT32);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_INT32);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_UINT64);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_INT64);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
KCC_SAME(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
KCC_SAME(CU_TENSOR_MAP_INTERLEAVE_NONE);
KCC_SAME(CU_TENSOR_MAP_SWIZZLE_NONE);
KCC_SAME(CU_TENSOR_MAP_SWIZZLE_32B);
KCC_SAME(CU_TENSOR_MAP_SWIZZLE_64B);
KCC_SAME(CU_TENSOR_MAP_SWIZZLE_128B);
KCC_SAME(CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
KCC_SAME(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
KCC_SAME(CU_STREAM_CAPTURE_STATUS_NONE);
KCC_SAME(CU_STREAM_CAPTURE_STATUS_ACTIVE);
KCC_SAME(CU_STREAM_CAPTURE_STATUS_INVALIDATED);
KCC_SAME(CU_EVENT_DEFAULT);
static_assert(sizeof(CUtensorMap) == sizeof(kcc::rt::TensorMap) &&
                  alignof(CUtensorMap) == alignof(kcc::rt::TensorMap),
              "kcc::rt::TensorMap is not laid out as CUtensorMap");
static_assert(sizeof(CUtensorMapDataType) == sizeof(k::CUtensorMapDataType) &&
                  sizeof(CUtensorMapSwizzle) == sizeof(k::CUtensorMapSwizzle),
              "CUtensorMap enum size");
static_assert(sizeof(cuuint64_t) == sizeof(uint64_t) &&
                  sizeof(cuuint32_t) == sizeof(uint32_t),
              "cuuint64_t/cuuint32_t size");
static_assert(sizeof(CUresult) == sizeof(k::CUresult), "CUresult size");
static_assert(sizeof(CUdevice) == sizeof(k::CUdevice), "CUdevice size");
static_assert(sizeof(CUdevice_attribute) == sizeof(k::CUdevice_attribute),
              "CUdevice_attribute size");
static_assert(sizeof(CUstreamCaptureStatus) == sizeof(k::CUstreamCaptureStatus),
              "CUstreamCaptureStatus size");
static_assert(std::is_same<CUdeviceptr, k::CUdeviceptr>::value,
              "CUdeviceptr is not unsigned long long");
static_assert(sizeof(CUfunction_attribute) ==
                  sizeof(k::CUfunction_attribute),
              "CUfunction_attribute size");

// How cuda.h spells the entry points the runtime resolves: their own names,
// but cuMemAlloc, cuMemFree, cuMemsetD8, cuEventDestroy and
// cuEventElapsedTime, #defined to their _v2 exports.
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
KCC_UNVERSIONED(cuFuncSetAttribute)
KCC_UNVERSIONED(cuLaunchKernel)
KCC_UNVERSIONED(cuTensorMapEncodeTiled)
KCC_UNVERSIONED(cuMemAlloc)
KCC_UNVERSIONED(cuMemFree)
KCC_UNVERSIONED(cuStreamSynchronize)
KCC_UNVERSIONED(cuStreamIsCapturing)
KCC_UNVERSIONED(cuDeviceGetName)
KCC_UNVERSIONED(cuMemsetD8)
KCC_UNVERSIONED(cuEventCreate)
KCC_UNVERSIONED(cuEventRecord)
KCC_UNVERSIONED(cuEventSynchronize)
KCC_UNVERSIONED(cuEventElapsedTime)
KCC_UNVERSIONED(cuEventDestroy)

namespace kcc_runtime_test {
// How cuda.h spells each entry point after its #defines (checked at run time
// by RuntimeTests.cpp: it must equal the name the runtime dlsyms).
extern const char *const kCudaHeaderSpellings[];
const char *const kCudaHeaderSpellings[] = {kSpelled_cuInit,
                                            kSpelled_cuGetErrorName,
                                            kSpelled_cuGetErrorString,
                                            kSpelled_cuCtxGetCurrent,
                                            kSpelled_cuCtxSetCurrent,
                                            kSpelled_cuCtxGetDevice,
                                            kSpelled_cuDeviceGet,
                                            kSpelled_cuDevicePrimaryCtxRetain,
                                            kSpelled_cuDeviceGetAttribute,
                                            kSpelled_cuModuleLoadData,
                                            kSpelled_cuModuleGetFunction,
                                            kSpelled_cuFuncSetAttribute,
                                            kSpelled_cuLaunchKernel,
                                            kSpelled_cuTensorMapEncodeTiled,
                                            kSpelled_cuMemAlloc,
                                            kSpelled_cuMemFree,
                                            kSpelled_cuStreamSynchronize,
                                            kSpelled_cuStreamIsCapturing,
                                            kSpelled_cuDeviceGetName,
                                            kSpelled_cuMemsetD8,
                                            kSpelled_cuEventCreate,
                                            kSpelled_cuEventRecord,
                                            kSpelled_cuEventSynchronize,
                                            kSpelled_cuEventElapsedTime,
                                            kSpelled_cuEventDestroy,
                                            nullptr};
} // namespace kcc_runtime_test

// Each table entry's type against the declaration cuda.h gives its name
// (after its #defines: cuMemAlloc is cuMemAlloc_v2's), once cuda.h's enums
// (CUresult, CUdevice_attribute, ...) are read as the ints the table
// declares them as, and CUtensorMap * as the table's void *.
template <typename T, bool = std::is_enum<T>::value> struct Plain {
  using type = T;
};
template <typename T> struct Plain<T, true> {
  static_assert(sizeof(T) == sizeof(int), "an enum that is not int-sized");
  using type = int;
};
template <typename T> struct Plain<const T, false> {
  using type = const typename Plain<T>::type;
};
template <typename T> struct Plain<T *, false> {
  using type = typename Plain<T>::type *;
};
template <> struct Plain<CUtensorMap, false> { using type = void; };
template <typename R, typename... A> struct Plain<R(A...), false> {
  using type = typename Plain<R>::type(typename Plain<A>::type...);
};

// clang-format off
#define KCC_ENTRY_POINTS(X)                                                    \
  X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuCtxGetCurrent)           \
  X(cuCtxSetCurrent) X(cuCtxGetDevice) X(cuDeviceGet)                          \
  X(cuDevicePrimaryCtxRetain) X(cuDeviceGetAttribute) X(cuModuleLoadData)      \
  X(cuModuleGetFunction) X(cuFuncSetAttribute) X(cuLaunchKernel)               \
  X(cuMemAlloc) X(cuMemFree) X(cuStreamSynchronize) X(cuTensorMapEncodeTiled)  \
  X(cuStreamIsCapturing) X(cuDeviceGetName) X(cuMemsetD8) X(cuEventCreate)     \
  X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)                 \
  X(cuEventDestroy)
// clang-format on
// cuda.h's type of each, under the name after its #defines.
#define KCC_THEIRS(name) using Theirs_##name = decltype(&::name);
KCC_ENTRY_POINTS(KCC_THEIRS)
// The table's members have the plain names.
#undef cuMemAlloc
#undef cuMemFree
#undef cuMemsetD8
#undef cuEventDestroy
#undef cuEventElapsedTime
#define KCC_SAME_SIGNATURE(name)                                               \
  static_assert(std::is_same<Plain<decltype(k::Driver::name)>::type,           \
                             Plain<Theirs_##name>::type>::value,               \
                #name "'s type in CudaDriver.h differs from cuda.h's");
KCC_ENTRY_POINTS(KCC_SAME_SIGNATURE)
