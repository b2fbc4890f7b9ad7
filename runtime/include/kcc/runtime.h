//===- kcc/runtime.h - host runtime behind kcc's launch stubs ---*- C++ -*-===//
//
// What generated stubs (<stem>.kcc.h/.cpp) call. Depends on nothing but the C++
// standard library: the CUDA driver (libcuda.so.1) is opened at run time, so a
// program linked with kcc_runtime starts on machines without a GPU and gets an
// error value (KCC_ERROR_NO_DRIVER) instead of a loader failure.
//
// Streams are `CUstream_st *`, which is both CUDA's `CUstream` and the runtime
// API's `cudaStream_t`; nullptr is the default stream. The HIP backend
// (kcc/runtime_hip.h, library kcc_runtime_hip) shares everything here but
// launch().
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_H
#define KCC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

struct CUstream_st;

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kcc_status_code {
  KCC_SUCCESS = 0,
  KCC_ERROR_NO_DRIVER = 1,        // libcuda.so.1 missing, cuInit/hipInit failed
  KCC_ERROR_NO_IMAGE = 2,         // the fatbin has no image for this device
  KCC_ERROR_MISALIGNED = 3,       // a pointer breaks an align() fact
  KCC_ERROR_NOT_DIVISIBLE = 4,    // an integer breaks a multiple_of() fact
  KCC_ERROR_INVALID_ARGUMENT = 5, // no such specialization, grid too large...
  KCC_ERROR_DRIVER = 6            // a CUDA/HIP call failed (name in message)
} kcc_status_code;

/// The message of the last failed kcc call on this thread ("" after success).
const char *kcc_last_error_message(void);

#ifdef __cplusplus
} // extern "C"

#include <string>

namespace kcc {

/// The result of a kcc runtime call: a code and a message that names the
/// kernel and says what went wrong.
struct Status {
  kcc_status_code code = KCC_SUCCESS;
  std::string message;
  bool ok() const { return code == KCC_SUCCESS; }
  explicit operator bool() const { return ok(); }
};

/// Storage types for 16-bit floats in launch signatures (bit patterns; no
/// dependency on cuda_fp16.h).
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

/// Element types a `dtype` constant parameter can take.
enum class DType { i1, i8, i16, i32, i64, f16, bf16, f32, f64 };
const char *dtypeName(DType type);

namespace rt {

/// One embedded fatbin (one per compiled .kc file); for HIP (runtime_hip.h)
/// a clang offload bundle of AMD code objects.
struct FatbinDesc {
  const char *source; // "vector_add.kc"
  const void *image;  // fatbin bytes, 8-byte aligned
  size_t size;
  // What is inside, e.g. "sm_80, sm_90a, sm_100a (+PTX sm_100a)".
  const char *archs;
};

/// Threads per block of a kernel on one target.
struct ThreadsForArch {
  unsigned sm; // e.g. 90 for sm_90a; 0 for AMD targets
  unsigned threads;
  const char *target = nullptr; // AMD targets (HIP stubs): "gfx90a"
};

/// One compiled kernel (specialization).
struct KernelDesc {
  const FatbinDesc *fatbin;
  const char *symbol;            // entry name in the fatbin
  const ThreadsForArch *threads; // per target; the first entry is the default
  unsigned numThreads;
};

/// `ptr` must be a multiple of `align` bytes (the kernel was compiled with
/// align(align) or needs the element's natural alignment).
Status checkAlignment(const KernelDesc &kernel, const char *param,
                      const void *ptr, unsigned align);
/// `value` must be a multiple of `divisor` (a multiple_of() fact).
Status checkDivisibility(const KernelDesc &kernel, const char *param,
                         int64_t value, int64_t divisor);

/// Launches `kernel` on the current CUDA context (retaining device 0's primary
/// context if none is current). The module is loaded once per context, on
/// first use. A grid with a zero dimension launches nothing and succeeds.
/// `args` are pointers to the kernel's parameters in order, as for
/// cuLaunchKernel.
Status launch(const KernelDesc &kernel, const int64_t grid[3], void **args,
              CUstream_st *stream);

/// Records `status` as this thread's last error (for the C entry points) and
/// returns its code.
kcc_status_code setLastError(const Status &status);

} // namespace rt
} // namespace kcc

#endif // __cplusplus
#endif // KCC_RUNTIME_H
