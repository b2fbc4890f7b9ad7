//===- CudaDriver.h - the CUDA driver API, opened at run time -----*- C++
//-*-===//
//
// The few driver types, constants and entry points the runtime uses, declared
// here so kcc_runtime builds without the CUDA toolkit. Values match cuda.h
// (CUDA 13.0); the entry points are resolved with dlsym from libcuda.so.1,
// under the name cuda.h gives them: cuMemAlloc, cuMemFree and cuMemsetD8
// are #defined to their _v2 exports (64-bit CUdeviceptr), cuEventDestroy and
// cuEventElapsedTime to theirs too, the others keep their names.
// cuLaunchKernel, cuMemsetD8, cuStreamSynchronize, cuStreamIsCapturing and
// cuEventRecord are the legacy-default-stream exports (not _ptds/_ptsz).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_CUDADRIVER_H
#define KCC_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace kcc {
namespace rt {
namespace cuda {

using CUresult = int;
using CUdevice = int;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUdeviceptr = unsigned long long; // CUdeviceptr_v2
using CUdevice_attribute = int;
using CUfunction_attribute = int;

// CUresult values (cuda.h, enum cudaError_enum).
enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
};

// CUdevice_attribute values (cuda.h, enum CUdevice_attribute_enum).
enum : CUdevice_attribute {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// CUfunction_attribute values (cuda.h, enum CUfunction_attribute_enum).
enum : CUfunction_attribute {
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
};

/// cuOccupancyMaxActiveClusters' launch description (cuda.h,
/// CUlaunchConfig_st); kcc passes no attributes (its cluster kernels carry
/// their cluster shape, .reqnctapercluster).
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream_st *hStream;
  void *attrs;
  unsigned numAttrs;
};

// cuEventCreate flags (cuda.h, enum CUevent_flags_enum): the default
// event records timing.
enum : unsigned { CU_EVENT_DEFAULT = 0 };

// CUstreamCaptureStatus values (cuda.h, enum CUstreamCaptureStatus_enum).
using CUstreamCaptureStatus = int;
enum : CUstreamCaptureStatus {
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
  CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
};

// CUtensorMap enums (cuda.h, CUtensorMap*_enum): what encodeTensorMap passes
// to cuTensorMapEncodeTiled.
using CUtensorMapDataType = int;
using CUtensorMapInterleave = int;
using CUtensorMapSwizzle = int;
using CUtensorMapL2promotion = int;
using CUtensorMapFloatOOBfill = int;
enum : CUtensorMapDataType {
  CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
  CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1,
  CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2,
  CU_TENSOR_MAP_DATA_TYPE_INT32 = 3,
  CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4,
  CU_TENSOR_MAP_DATA_TYPE_INT64 = 5,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8,
  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9,
};
enum : CUtensorMapInterleave { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum : CUtensorMapSwizzle {
  CU_TENSOR_MAP_SWIZZLE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_32B = 1,
  CU_TENSOR_MAP_SWIZZLE_64B = 2,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
};
enum : CUtensorMapL2promotion { CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2 };
enum : CUtensorMapFloatOOBfill { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };

/// cuTensorMapEncodeTiled's signature; the map is CUtensorMap (128 bytes,
/// 64-byte aligned); cuuint64_t and cuuint32_t are uint64_t and uint32_t.
using TensorMapEncodeTiledFn = CUresult (*)(
    void *tensorMap, CUtensorMapDataType dataType, unsigned rank,
    void *globalAddress, const uint64_t *globalDim,
    const uint64_t *globalStrides, const uint32_t *boxDim,
    const uint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill);

/// The driver entry points, resolved once per process.
struct Driver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuGetErrorName)(CUresult error, const char **str);
  CUresult (*cuGetErrorString)(CUresult error, const char **str);
  CUresult (*cuCtxGetCurrent)(CUcontext *ctx);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxGetDevice)(CUdevice *device);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attribute,
                                   CUdevice device);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuFuncSetAttribute)(CUfunction function,
                                 CUfunction_attribute attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gridX, unsigned gridY,
                             unsigned gridZ, unsigned blockX, unsigned blockY,
                             unsigned blockZ, unsigned sharedMemBytes,
                             CUstream stream, void **params, void **extra);
  /// Exported as cuMemAlloc_v2 and cuMemFree_v2 (what cuda.h's cuMemAlloc
  /// and cuMemFree are #defined to).
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  /// Exported as cuMemsetD8_v2.
  CUresult (*cuMemsetD8)(CUdeviceptr ptr, unsigned char value, size_t count);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  /// cuEventElapsedTime_v2 (what CUDA 12.8's and later cuda.h #define
  /// cuEventElapsedTime to), or the unversioned export on older drivers
  /// (same signature and result for completed events).
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end);
  /// Exported as cuEventDestroy_v2.
  CUresult (*cuEventDestroy)(CUevent event);
  /// Optional (CUDA 12.0 and newer drivers): null if the driver lacks it, in
  /// which case only kernels without TMA tensor maps can be launched.
  TensorMapEncodeTiledFn cuTensorMapEncodeTiled;
  /// Optional (CUDA 10.0 and newer drivers, which have CUDA graphs): null if
  /// the driver lacks it; then no stream can be capturing.
  CUresult (*cuStreamIsCapturing)(CUstream stream,
                                  CUstreamCaptureStatus *status);
  /// Optional (CUDA 12.0 and newer drivers, with thread-block clusters):
  /// null if the driver lacks them; then no kernel is a cluster kernel.
  CUresult (*cuFuncGetAttribute)(int *value, CUfunction_attribute attribute,
                                 CUfunction function);
  CUresult (*cuOccupancyMaxActiveClusters)(int *clusters, CUfunction function,
                                           const CUlaunchConfig *config);

  /// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)",
  /// or "CUDA error 1234" for a code the driver does not know.
  std::string describe(CUresult error) const;
};

/// The library the runtime opens: $KCC_CUDA_DRIVER if set and non-empty,
/// else "libcuda.so.1".
const char *driverLibraryName();

/// Opens the driver and calls cuInit(0), once per process (std::call_once).
/// Returns nullptr on failure, with `*whyNot` saying why (stable afterwards).
const Driver *loadDriver(const std::string **whyNot);

} // namespace cuda
} // namespace rt
} // namespace kcc

#endif // KCC_RUNTIME_CUDADRIVER_H
