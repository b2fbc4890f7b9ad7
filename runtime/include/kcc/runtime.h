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
// the calls that reach the driver (launch(), workspace(), ...), which it
// declares in kcc::rt::hip.
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

#include <functional>
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
/// Storage types for 8-bit floats (bit patterns): OCP E4M3 (`f8e4m3`, no
/// infinities, NaN 0x7f/0xff, largest finite 448) and E5M2 (`f8e5m2`, IEEE
/// style with infinities, largest finite 57344).
struct f8e4m3 {
  uint8_t bits;
};
struct f8e5m2 {
  uint8_t bits;
};
/// AMD MI300's (gfx942) 8-bit floats, the FNUZ variants: exponent bias 8
/// (`f8e4m3fnuz`, largest finite 240) and 16 (`f8e5m2fnuz`, 57344), no
/// infinities, no negative zero, the one NaN 0x80.
struct f8e4m3fnuz {
  uint8_t bits;
};
struct f8e5m2fnuz {
  uint8_t bits;
};

/// Element types a `dtype` constant parameter can take.
/// New types are appended: the values are stable (generated stubs and tools
/// store them).
enum class DType {
  i1,
  i8,
  i16,
  i32,
  i64,
  f16,
  bf16,
  f32,
  f64,
  f8e4m3,
  f8e5m2,
  f8e4m3fnuz,
  f8e5m2fnuz
};
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

/// The launch shape of a kernel on one target: threads per block and the
/// dynamic shared memory the kernel was compiled for.
struct ThreadsForArch {
  unsigned sm; // e.g. 90 for sm_90a; 0 for AMD targets
  unsigned threads;
  const char *target = nullptr; // AMD targets (HIP stubs): "gfx90a"
  /// Bytes of dynamic shared memory each block gets (CUDA; AMD kernels use
  /// static LDS and leave it 0). Above 48 KiB the runtime raises the
  /// function's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first.
  unsigned sharedBytes = 0;
  /// A persistent build's entry (KernelDesc::persistentBuild): on this
  /// target it runs slower code than the one-CTA-per-tile build (its dots
  /// off the staged tensor-core instruction: tcgen05 in a tile loop), so
  /// launch() keeps the one-CTA-per-tile build here.
  bool persistentSlower = false;
};

/// One compiled kernel (specialization).
struct KernelDesc {
  const FatbinDesc *fatbin;
  const char *symbol;            // entry name in the fatbin
  const ThreadsForArch *threads; // per target; the first entry is the default
  unsigned numThreads;
  /// A persistent kernel (kcc --persistent): the grid's x * y * z tiles are
  /// run by one row of min(tiles, multiprocessors * persistentPerSm) CTAs,
  /// each looping over its tiles; 0: the grid as computed.
  unsigned persistentPerSm = 0;
  /// kcc --persistent: the persistent build of this kernel (same arguments
  /// and grid; persistentPerSm > 0), which launch() runs instead when the
  /// grid has more than multiprocessors * persistentPerSm tiles (and at most
  /// INT32_MAX): with fewer, each CTA would run one tile and the tile loop
  /// only costs.
  const KernelDesc *persistentBuild = nullptr;
};

/// `ptr` must be a multiple of `align` bytes (the kernel was compiled with
/// align(align) or needs the element's natural alignment).
Status checkAlignment(const KernelDesc &kernel, const char *param,
                      const void *ptr, unsigned align);
/// `value` must be a multiple of `divisor` (a multiple_of() fact).
Status checkDivisibility(const KernelDesc &kernel, const char *param,
                         int64_t value, int64_t divisor);

/// The error a stub returns when the launch's sizes are outside those for
/// which the compiler proved that the kernel's stores cover `tensor` (its
/// coverage guard was false): KCC_ERROR_INVALID_ARGUMENT naming the tensor,
/// the `n` parameters the guard reads with their `values`, and `condition`,
/// the sizes that are covered.
Status uncoveredTensor(const KernelDesc &kernel, const char *tensor,
                       const char *condition, const char *const *names,
                       const int64_t *values, unsigned n);

/// The error a stub returns when the kernel's require(`condition`) clause,
/// written at `at` (file:line:col), is false for the launch's arguments:
/// KCC_ERROR_INVALID_ARGUMENT naming the kernel, the condition and the `n`
/// parameters it reads with their `values`.
Status unmetRequirement(const KernelDesc &kernel, const char *condition,
                        const char *at, const char *const *names,
                        const int64_t *values, unsigned n);

/// Launches `kernel` on the current CUDA context (retaining device 0's primary
/// context if none is current). The module is loaded once per context, on
/// first use. A grid with a zero dimension launches nothing and succeeds.
/// `args` are pointers to the kernel's parameters in order, as for
/// cuLaunchKernel.
Status launch(const KernelDesc &kernel, const int64_t grid[3], void **args,
              CUstream_st *stream);

/// For a launch function the compiler chose among candidates for (a
/// specialize clause leaving tunable constants unbound): sets `*index` to
/// the candidate in `variants` (n >= 1) built for the current context's
/// device, the one whose threads table lists the device's compute
/// capability; else the newest one of the same major version below it (the
/// cubin the driver loads from the fatbin); else the one built for the
/// newest target (whose PTX the fatbin carries). Errors: no driver, no
/// context, a failed device query.
Status selectVariant(const KernelDesc *const *variants, unsigned n,
                     unsigned *index);

/// selectVariant's choice for a launch function that keeps something per
/// compiled target rather than one kernel per target (e.g. dispatch.h's
/// MachineRates of each): sets `*index` to the entry of `sms` (the n
/// targets' compute capabilities x10: 80, 90, 100) whose code the current
/// context's device runs, by selectVariant's rule, so that the two always
/// agree. n <= 1 sets 0 without reaching the driver. Errors are
/// selectVariant's, named for `kernel`.
Status selectTarget(const KernelDesc &kernel, const unsigned *sms, unsigned n,
                    unsigned *index);

/// The multiprocessor count of the current context's device (retaining
/// device 0's primary context if none is current), for launch functions
/// whose grid uses num_multiprocessors(). Errors: no driver, no context, a
/// failed device query (named for `kernel`).
Status multiprocessorCount(const KernelDesc &kernel, int64_t *count);

/// Scratch device memory of at least `bytes` bytes for the launches of
/// `kernel` on `stream`: a split-K launch's tickets (its first
/// kSplitKTicketBytes, zeroed when the buffer is allocated; each launch
/// leaves them zero) and the f32 partial sums its slices write and each
/// tile's last slice reads back (kcc/split_k.h).
/// On the current CUDA context (retaining device 0's primary context if none
/// is current). `bytes` == 0 sets `*ptr` to nullptr and succeeds.
///
/// - One buffer per (context, stream), shared by every kernel launched
///   there: launches on one stream run in order, so each may reuse it;
///   different streams get different buffers and never race. (Split-K
///   launches on one stream from several threads at once must be serialized
///   by the caller, as their kernels would interleave.)
/// - It only grows: a larger request frees the old buffer (after
///   cuStreamSynchronize, so work already queued on the stream finishes with
///   it) and allocates the request rounded up to 1 MiB. So call this before
///   each launch; a pointer from an earlier call is only good for work
///   queued before this one. Buffers are kept until the process exits.
/// - During stream capture (CUDA graphs) a buffer that is large enough is
///   returned (and kept for good: the graph refers to it); one that would
///   have to grow is KCC_ERROR_INVALID_ARGUMENT naming the kernel and the
///   bytes: run the launch once outside capture first.
/// - Errors: no driver, no context, a failed allocation (KCC_ERROR_DRIVER
///   naming the kernel and the bytes), a null `ptr`.
Status workspace(const KernelDesc &kernel, size_t bytes, CUstream_st *stream,
                 void **ptr);

/// The name of the current context's device (retaining device 0's primary
/// context if none is current), as cuDeviceGetName gives it: "NVIDIA H200".
/// What tuning databases are keyed by, and what launch stubs compare with
/// the entry they were tuned for. Cached per device ordinal (thread-safe):
/// a stub may ask at every launch. Errors: no driver, no context, a failed
/// device query (named for `kernel`); `*name` is then empty.
Status deviceName(const KernelDesc &kernel, std::string *name);

/// `bytes` of device memory on the current context (retaining device 0's
/// primary context if none is current), for the tuner's arguments: zero-
/// filled (cuMemsetD8, then the default stream is waited for, so that
/// kernels on any stream read zeros) so that timings never depend on
/// garbage (NaNs, denormals, out-of-range indices). `bytes` == 0 sets
/// `*ptr` to nullptr and succeeds. Free it with release(). Errors: no
/// driver, no context, a failed allocation or fill (KCC_ERROR_DRIVER naming
/// `kernel` and the bytes; nothing is left allocated), a null `ptr`.
Status allocate(const KernelDesc &kernel, size_t bytes, void **ptr);

/// Frees memory from allocate() (cuMemFree); nullptr is a no-op. Errors: no
/// driver, no context, the driver's refusal (named for `kernel`).
Status release(const KernelDesc &kernel, void *ptr);

/// Times `launch` (which enqueues one launch, e.g. a stub's, on `stream`)
/// on the current context (retaining device 0's primary context if none is
/// current): calls it once as a warm-up (module loads and first-touch costs
/// stay out of the timing), then between two events recorded on `stream`
/// `repetitions` times, waits for the second event and sets
/// `*microseconds` to the GPU time between them divided by `repetitions`.
/// Events time the GPU, not the host's calls; work queued on `stream`
/// before the call runs before the first event and is not counted.
/// - The first failed `launch` stops it: its Status is returned.
/// - `repetitions` == 0, an empty `launch` or a null `microseconds` is
///   KCC_ERROR_INVALID_ARGUMENT; a failed event call KCC_ERROR_DRIVER
///   naming `kernel` and the call. `*microseconds` is 0 after a failure.
/// - The events are destroyed on every path.
Status timeLaunches(const KernelDesc &kernel, CUstream_st *stream,
                    unsigned repetitions, const std::function<Status()> &launch,
                    double *microseconds);

/// A CUDA tensor map (CUtensorMap): the TMA descriptor a kernel built for
/// sm_90a/sm_100a receives by value (a `__grid_constant__` parameter) for each
/// tensor it copies with TMA. Opaque; 128 bytes. The driver requires 64-byte
/// alignment; CUDA 13's cuda.h declares CUtensorMap alignas(128), and so does
/// this, so either can stand for the other.
struct alignas(128) TensorMap {
  uint64_t words[16];
};
static_assert(sizeof(TensorMap) == 128, "CUtensorMap is 128 bytes");

/// Encodes the tensor map of tensor parameter `tensorName` of `kernel` into
/// `*out`, for the device of the current CUDA context (device 0's primary
/// context, retained as launch() does, if none is current).
///
/// `elem` is the element type, `base` the tensor's address, `dims` its `rank`
/// sizes and `strides` its `rank - 1` row strides in elements (both outermost
/// first, as in kcc's tensor parameters; the innermost stride is 1), `box` the
/// `rank` box sizes the kernel copies (outermost first), `swizzleBytes` the
/// shared-memory swizzle span (0, 32, 64 or 128).
///
/// - On a GPU of compute capability < 9.0 `*out` is zeroed and the call
///   succeeds: the kernel's image for it does not use TMA.
/// - Otherwise the parameters are checked against cuTensorMapEncodeTiled's
///   rules: KCC_ERROR_MISALIGNED for a base that is not 16-byte aligned or a
///   stride that is not a multiple of 16 bytes; KCC_ERROR_INVALID_ARGUMENT for
///   a rank outside 1..5, a size over 2^32, a stride that is negative
///   or reaches 2^40 bytes, a box dimension outside 1..256, an inner
///   box row that is not a multiple of 16 bytes or is wider than the swizzle
///   span, a swizzle other than 0/32/64/128, a null pointer.
/// - A tensor with a size <= 0 (empty, as in kcc's tensor contract) cannot
///   be described by a tensor map: `*out` is
///   zeroed and the call succeeds with a non-empty message saying so
///   (`ok() && !message.empty()`); pass it to emptyTensorLaunch.
/// - Then cuTensorMapEncodeTiled is called; a driver without it, or its
///   failure, is KCC_ERROR_DRIVER with the driver's error and the parameters.
///   No driver at all is KCC_ERROR_NO_DRIVER.
Status encodeTensorMap(const KernelDesc &kernel, const char *tensorName,
                       TensorMap *out, DType elem, const void *base,
                       unsigned rank, const int64_t *dims,
                       const int64_t *strides, const int32_t *box,
                       unsigned swizzleBytes);

/// What a stub returns when encodeTensorMap reported an empty tensor
/// (`empty`): success without launching if the grid has a zero dimension (as
/// launch() would), the grid's own error if it is invalid, otherwise
/// KCC_ERROR_INVALID_ARGUMENT (the kernel would copy through a tensor map that
/// does not exist).
Status emptyTensorLaunch(const KernelDesc &kernel, const int64_t grid[3],
                         const Status &empty);

/// Records `status` as this thread's last error (for the C entry points) and
/// returns its code.
kcc_status_code setLastError(const Status &status);

} // namespace rt
} // namespace kcc

#endif // __cplusplus
#endif // KCC_RUNTIME_H
