//===- kcc/runtime_hip.h - HIP backend of kcc's host runtime ----*- C++ -*-===//
//
// What generated HIP stubs (<stem>.hip.kcc.h/.cpp) call, in addition to
// kcc/runtime.h (Status, the fact checks, the last-error message and the
// descriptors are shared with the CUDA backend). Library: kcc_runtime_hip,
// which links libamdhip64 (HIP's runtime, ROCm or Debian's libamdhip64-dev);
// no HIP header is needed to include this one.
//
// Streams are `ihipStream_t *`, which is HIP's `hipStream_t`; nullptr is the
// default stream.
//
// For HIP, a KernelDesc's image is a clang offload bundle holding one code
// object per AMD target; its ThreadsForArch entries carry the kcc target
// ("gfx90a") in `target` (their `sm` is 0).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_HIP_H
#define KCC_RUNTIME_HIP_H

#include <kcc/runtime.h>

struct ihipStream_t;

#ifdef __cplusplus
namespace kcc {
namespace rt {
namespace hip {

/// Launches `kernel` on the calling thread's current HIP device
/// (hipGetDevice). The first launch on a device picks the code object of the
/// bundle that fits the device's gcnArchName and loads it
/// (hipModuleLoadData), once per device; the block is (threads, 1, 1) with
/// the `threads` entry whose target is the device's processor, else the
/// first. A grid with a zero dimension launches nothing and succeeds. `args`
/// are pointers to the kernel's parameters in order, as for
/// hipModuleLaunchKernel. Errors are those of kcc::rt::launch, with HIP's
/// error names.
Status launch(const KernelDesc &kernel, const int64_t grid[3], void **args,
              ihipStream_t *stream);

/// kcc::rt::multiprocessorCount for HIP: the current device's compute
/// units (hipDeviceAttributeMultiprocessorCount).
Status multiprocessorCount(const KernelDesc &kernel, int64_t *count);

/// kcc::rt::selectVariant for HIP: the candidate whose threads table lists
/// the current device's processor (gcnArchName without features), else the
/// first.
Status selectVariant(const KernelDesc *const *variants, unsigned n,
                     unsigned *index);

/// kcc::rt::selectTarget for HIP: sets `*index` to the entry of `targets`
/// (the n compiled targets' names: "gfx90a") that is the current device's
/// processor, matched as selectVariant matches it so that the two agree;
/// else 0. n <= 1 sets 0 without reaching HIP.
Status selectTarget(const KernelDesc &kernel, const char *const *targets,
                    unsigned n, unsigned *index);

/// kcc::rt::workspace for HIP: scratch device memory of at least `bytes`
/// bytes for the split-K launches of `kernel` on `stream`, one grow-only
/// buffer per (current device, stream) from hipMalloc, kept until the
/// process exits. Growing waits for the stream (hipStreamSynchronize) before
/// hipFree of the old buffer; during stream capture (hipStreamIsCapturing)
/// it is refused with KCC_ERROR_INVALID_ARGUMENT. `bytes` == 0 sets `*ptr`
/// to nullptr and succeeds.
Status workspace(const KernelDesc &kernel, size_t bytes, ihipStream_t *stream,
                 void **ptr);

/// kcc::rt::deviceName for HIP: the name of the calling thread's current
/// device (hipGetDevice), hipGetDeviceProperties' `name` ("AMD Instinct
/// MI300X"). Cached per device ordinal (thread-safe): a stub may ask at
/// every launch.
Status deviceName(const KernelDesc &kernel, std::string *name);

/// kcc::rt::allocate for HIP: `bytes` of zero-filled device memory on the
/// current device (hipMalloc, hipMemset, then the null stream is waited
/// for, so that kernels on any stream read zeros). `bytes` == 0 sets
/// `*ptr` to nullptr and succeeds. Free it with release().
Status allocate(const KernelDesc &kernel, size_t bytes, void **ptr);

/// kcc::rt::release for HIP: hipFree of memory from allocate(); nullptr is
/// a no-op.
Status release(const KernelDesc &kernel, void *ptr);

/// kcc::rt::timeLaunches for HIP: one warm-up `launch`, then `repetitions`
/// between two hipEvents recorded on `stream`; `*microseconds` is the time
/// between them per launch. The first failed launch's Status is returned;
/// `repetitions` == 0 is KCC_ERROR_INVALID_ARGUMENT; the events are
/// destroyed on every path.
Status timeLaunches(const KernelDesc &kernel, ihipStream_t *stream,
                    unsigned repetitions, const std::function<Status()> &launch,
                    double *microseconds);

} // namespace hip
} // namespace rt
} // namespace kcc
#endif // __cplusplus

#endif // KCC_RUNTIME_HIP_H
