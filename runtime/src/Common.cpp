//===- Common.cpp - checks, messages and caches shared by all backends ----===//
//
// Errors are values (kcc::Status): nothing here throws or aborts. Every message
// names the kernel, says what went wrong and what to do about it.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>

using namespace kcc;
using namespace kcc::rt;
using namespace kcc::rt::detail;

namespace {

thread_local std::string lastErrorMessage;

std::string hex(uintptr_t value) {
  char buffer[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(buffer, sizeof buffer, "0x%" PRIxPTR, value);
  return buffer;
}

constexpr char kAxisName[3] = {'x', 'y', 'z'};

} // namespace

//===----------------------------------------------------------------------===//
// Helpers for the backends
//===----------------------------------------------------------------------===//

Status detail::makeStatus(kcc_status_code code, std::string message) {
  Status status;
  status.code = code;
  status.message = std::move(message);
  return status;
}

const char *detail::symbolOf(const KernelDesc &kernel) {
  return kernel.symbol && *kernel.symbol ? kernel.symbol : "<unnamed kernel>";
}

std::string detail::launchPrefix(const KernelDesc &kernel) {
  return std::string("kcc: cannot launch ") + symbolOf(kernel) + ": ";
}

const char *detail::sourceOf(const FatbinDesc &image) {
  return image.source && *image.source ? image.source : "<unknown source>";
}

Status detail::validateGrid(const KernelDesc &kernel, const int64_t grid[3],
                            const GridLimits &limits, bool *empty) {
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
    if (grid[axis] > limits.max[axis])
      return makeStatus(
          KCC_ERROR_INVALID_ARGUMENT,
          launchPrefix(kernel) + "grid dimension " + kAxisName[axis] + " = " +
              std::to_string(grid[axis]) + " exceeds " + limits.api +
              "'s limit of " + std::to_string(limits.max[axis]) +
              "; split the work over several launches or more work per "
              "program");
  }
  for (int axis = 0; axis < 3; ++axis)
    if (grid[axis] == 0)
      *empty = true;
  return Status();
}

Status detail::validateDescriptor(const KernelDesc &kernel) {
  if (!kernel.fatbin || !kernel.fatbin->image || !kernel.threads ||
      kernel.numThreads == 0 || !kernel.symbol || !*kernel.symbol)
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                      launchPrefix(kernel) +
                          "its kernel descriptor is incomplete (no fatbin, "
                          "symbol or block size); regenerate the launch stub "
                          "with kcc");
  if (const KernelDesc *p = kernel.persistentBuild) {
    if (!p->persistentPerSm || p->persistentBuild)
      return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                        launchPrefix(kernel) +
                            "its persistent build's descriptor is not "
                            "persistent; regenerate the launch stub with kcc");
    return validateDescriptor(*p);
  }
  return Status();
}

Status detail::driverFailure(const KernelDesc &kernel, const char *call,
                             const std::string &described) {
  return makeStatus(KCC_ERROR_DRIVER,
                    launchPrefix(kernel) + call + " failed: " + described);
}

std::string detail::damagedHint(const KernelDesc &kernel, const char *kind) {
  return std::string("; the ") + kind + " from " + sourceOf(*kernel.fatbin) +
         " is damaged: rebuild it";
}

std::string detail::outOfSyncHint(const KernelDesc &kernel, const char *kind) {
  return std::string("; the ") + kind + " from " + sourceOf(*kernel.fatbin) +
         " has no kernel named " + symbolOf(kernel) +
         ": the launch stub and the " + kind + " are out of sync, rebuild both";
}

//===----------------------------------------------------------------------===//
// FunctionCache
//===----------------------------------------------------------------------===//

namespace {
const char *str(const std::string &s) { return s.c_str(); }
const char *str(const char *s) { return s; }
} // namespace

template <typename A, typename B>
bool FunctionCache::KeyLess::operator()(const A &a, const B &b) const {
  if (a.scope != b.scope)
    return a.scope < b.scope;
  if (a.image != b.image)
    return std::less<const void *>()(a.image, b.image);
  return std::strcmp(str(a.symbol), str(b.symbol)) < 0;
}

bool FunctionCache::find(uintptr_t scope, const KernelDesc &kernel,
                         LoadedFunction *out) {
  std::shared_lock<std::shared_mutex> read(functionMutex);
  auto it =
      functions.find(KeyView{scope, kernel.fatbin->image, symbolOf(kernel)});
  if (it == functions.end())
    return false;
  *out = it->second;
  return true;
}

Status FunctionCache::load(uintptr_t scope, const KernelDesc &kernel,
                           const ModuleLoader &loadModule,
                           const FunctionGetter &getFunction,
                           LoadedFunction *out) {
  std::lock_guard<std::mutex> lock(moduleMutex);
  // Another thread may have finished while this one waited for the lock.
  if (find(scope, kernel, out))
    return Status();

  void *module = nullptr;
  auto key = std::make_pair(scope, kernel.fatbin->image);
  auto found = modules.find(key);
  if (found != modules.end()) {
    module = found->second;
  } else {
    Status status = loadModule(&module);
    if (!status.ok())
      return status;
    modules.emplace(key, module);
  }

  LoadedFunction function;
  Status status = getFunction(module, &function);
  if (!status.ok())
    return status;
  {
    std::unique_lock<std::shared_mutex> write(functionMutex);
    functions.emplace(Key{scope, kernel.fatbin->image, symbolOf(kernel)},
                      function);
  }
  *out = function;
  return Status();
}

//===----------------------------------------------------------------------===//
// WorkspaceCache
//===----------------------------------------------------------------------===//

Status WorkspaceCache::get(const KernelDesc &kernel, uintptr_t scope,
                           const void *stream, size_t bytes, Calls &calls,
                           void **ptr) {
  *ptr = nullptr;
  // One lock for all streams: only a buffer that grows holds it for long
  // (while its stream drains), and buffers grow a few times per stream.
  std::lock_guard<std::mutex> lock(mutex);
  Buffer &buffer = buffers[std::make_pair(scope, stream)];
  bool capturing = false;
  Status status = calls.capturing(&capturing);
  if (!status.ok())
    return status;
  if (buffer.size >= bytes) {
    buffer.captured = buffer.captured || capturing;
    *ptr = buffer.ptr;
    return Status();
  }
  // Allocating (and waiting for the stream before freeing) cannot be
  // captured into a graph.
  if (capturing)
    return makeStatus(
        KCC_ERROR_INVALID_ARGUMENT,
        launchPrefix(kernel) + "its split-K workspace (" +
            std::to_string(bytes) +
            " bytes) must be allocated before the stream is captured into a "
            "graph, and this stream's has " +
            std::to_string(buffer.size) +
            " bytes: run the launch once outside capture first, with sizes "
            "at least as large");

  size_t size = bytes;
  if (bytes <= SIZE_MAX - (kGranularity - 1))
    size = (bytes + kGranularity - 1) / kGranularity * kGranularity;
  if (buffer.ptr) {
    // Kernels queued on the stream may still read or write the old buffer
    // (the last split-K launch returned before it ran). Waiting for them
    // before freeing is what keeps them safe; deferring the free instead
    // would need an event per buffer and a later call to poll it, for a
    // wait that happens only the few times a stream's buffer grows (never
    // during capture: refused above).
    status = calls.synchronize();
    if (!status.ok())
      return status;
    // A buffer handed out during a capture is kept: the graph refers to it
    // and runs whenever it is launched, unordered with this stream.
    if (!buffer.captured)
      status = calls.release(buffer.ptr);
    buffer = Buffer();
    if (!status.ok())
      return status;
  }
  status = calls.allocate(size, &buffer.ptr);
  if (!status.ok()) {
    buffer = Buffer();
    status.message += "; the launch's split-K workspace needs " +
                      std::to_string(bytes) +
                      " bytes of device memory (allocated in 1 MiB steps)";
    return status;
  }
  buffer.size = size;
  *ptr = buffer.ptr;
  return Status();
}

//===----------------------------------------------------------------------===//
// Public API (kcc/runtime.h) that does not depend on a vendor
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
  case DType::f8e4m3:
    return "f8e4m3";
  case DType::f8e5m2:
    return "f8e5m2";
  case DType::f8e4m3fnuz:
    return "f8e4m3fnuz";
  case DType::f8e5m2fnuz:
    return "f8e5m2fnuz";
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

/// "a = 1, b = 2" for a stub's failed launch guard.
static std::string namedValues(const char *const *names, const int64_t *values,
                               unsigned n) {
  std::string out;
  for (unsigned i = 0; i < n; ++i)
    out += std::string(i ? ", " : "") + names[i] + " = " +
           std::to_string(values[i]);
  return out;
}

Status kcc::rt::uncoveredTensor(const KernelDesc &kernel, const char *tensor,
                                const char *condition, const char *const *names,
                                const int64_t *values, unsigned n) {
  std::string sizes = namedValues(names, values, n);
  return makeStatus(
      KCC_ERROR_INVALID_ARGUMENT,
      std::string("kcc: ") + symbolOf(kernel) +
          ": the kernel's stores would leave part of tensor '" +
          (tensor ? tensor : "?") + "' unwritten with these sizes (" + sizes +
          "); kcc proved they cover it when " + (condition ? condition : "?") +
          ". Check that the tensors' shapes match");
}

Status kcc::rt::unmetRequirement(const KernelDesc &kernel,
                                 const char *condition, const char *at,
                                 const char *const *names,
                                 const int64_t *values, unsigned n) {
  std::string args = namedValues(names, values, n);
  return makeStatus(
      KCC_ERROR_INVALID_ARGUMENT,
      std::string("kcc: ") + symbolOf(kernel) + ": launch refused: require(" +
          (condition ? condition : "?") + ") (" + (at ? at : "?") +
          ") is false" + (args.empty() ? "" : " for " + args));
}

Status detail::loadLaunchedBuild(
    const KernelDesc &kernel, const int64_t grid[3],
    const std::function<Status(const KernelDesc &, LoadedFunction *)> &load,
    const KernelDesc **build, LoadedFunction *function) {
  Status status = load(kernel, function);
  if (!status.ok())
    return status;
  *build = &launchedBuild(kernel, *function, grid);
  if (*build == &kernel)
    return status;
  status = load(**build, function);
  if (!status.ok() || !function->persistentSlower)
    return status;
  *build = &kernel;
  return load(kernel, function);
}

int64_t detail::persistentCtas(const KernelDesc &kernel,
                               const LoadedFunction &function) {
  int64_t ctas = int64_t(function.processors) * kernel.persistentPerSm;
  int64_t cluster = function.clusterCtas ? function.clusterCtas : 1;
  if (function.residentCtas && function.residentCtas < ctas)
    ctas = function.residentCtas;
  ctas -= ctas % cluster;
  return ctas < cluster ? cluster : ctas;
}

const KernelDesc &detail::launchedBuild(const KernelDesc &kernel,
                                        const LoadedFunction &function,
                                        const int64_t grid[3]) {
  const KernelDesc *p = kernel.persistentBuild;
  if (!p || !function.processors)
    return kernel;
  // The persistent build numbers its tiles in i32.
  int64_t ctas = persistentCtas(*p, function);
  int64_t tiles = grid[0] * grid[1] * grid[2];
  return tiles > ctas && tiles <= INT32_MAX ? *p : kernel;
}

void detail::persistentGrid(const KernelDesc &kernel,
                            const LoadedFunction &function,
                            const int64_t grid[3], int64_t out[3]) {
  for (int d = 0; d < 3; ++d)
    out[d] = grid[d];
  if (!kernel.persistentPerSm || !function.processors)
    return;
  int64_t ctas = persistentCtas(kernel, function);
  int64_t tiles = grid[0] * grid[1] * grid[2];
  out[0] = tiles < ctas ? tiles : ctas;
  out[1] = out[2] = 1;
}

//===----------------------------------------------------------------------===//
// DeviceNameCache
//===----------------------------------------------------------------------===//

Status DeviceNameCache::get(int device, const Query &query, std::string *name) {
  {
    std::shared_lock<std::shared_mutex> read(mutex);
    auto it = names.find(device);
    if (it != names.end()) {
      *name = it->second;
      return Status();
    }
  }
  // Asked outside the lock: racing threads may both ask, and get the same.
  std::string queried;
  Status status = query(&queried);
  if (!status.ok()) {
    name->clear();
    return status;
  }
  std::unique_lock<std::shared_mutex> write(mutex);
  *name = names.emplace(device, std::move(queried)).first->second;
  return Status();
}

//===----------------------------------------------------------------------===//
// Timing launches
//===----------------------------------------------------------------------===//

Status detail::checkTiming(const KernelDesc &kernel, unsigned repetitions,
                           const std::function<Status()> &launch,
                           double *microseconds) {
  if (!microseconds)
    return nullOutput(kernel, "time per launch");
  *microseconds = 0;
  if (repetitions == 0)
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                      launchPrefix(kernel) +
                          "timing 0 launches: repetitions must be at least 1");
  if (!launch)
    return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                      launchPrefix(kernel) + "no launch to time (an empty "
                                             "std::function)");
  return Status();
}

Status detail::timeWith(unsigned repetitions,
                        const std::function<Status()> &launch,
                        LaunchTimer &timer, double *microseconds) {
  Status status = launch();
  if (!status.ok())
    return status;
  status = timer.start();
  for (unsigned i = 0; i < repetitions && status.ok(); ++i)
    status = launch();
  if (status.ok())
    status = timer.stop();
  float milliseconds = 0;
  if (status.ok())
    status = timer.elapsed(&milliseconds);
  if (status.ok())
    *microseconds = double(milliseconds) * 1000.0 / repetitions;
  return status;
}

Status detail::nullOutput(const KernelDesc &kernel, const char *what) {
  return makeStatus(KCC_ERROR_INVALID_ARGUMENT,
                    launchPrefix(kernel) + "the " + what +
                        " to set is a null pointer");
}
