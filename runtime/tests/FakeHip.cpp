// A stand-in for libamdhip64.so.5 (same SONAME and symbol versions as the
// real one), so programs linked against HIP run the launch path without an
// AMD GPU: tests put its directory first in their RUNPATH/LD_LIBRARY_PATH.
// It implements the few HIP calls kcc_runtime_hip makes, records module loads
// and launches, and has fake_hip_* controls (found with dlsym).
//
// Devices: device 0 is "gfx90a:sramecc+:xnack-" (or $FAKE_HIP_ARCH), device
// 1 "gfx942:sramecc+:xnack-". Code objects it loads are either
//   - text: "FAKEHSACO <target id> kernels=a,b" and a newline or NUL, or
//   - an AMDGPU ELF: the processor comes from e_flags, and a kernel exists
//     if its name appears NUL-terminated in the file;
// a code object for another processor than the current device's fails with
// hipErrorNoBinaryForGpu, anything else with hipErrorInvalidImage.
// $FAKE_HIP_TRACE=1 prints every load and launch on stderr;
// $FAKE_HIP_INIT_ERROR=N makes hipInit return N. Device memory is host
// memory (filled with a byte if fake_hip_set_malloc_fill says so); streams
// are never capturing unless fake_hip_set_capturing says so. A device is
// named "Fake AMD GPU <processor>". Time is a clock that each launch
// advances by its kernel's time (1 ms unless fake_hip_set_kernel_time says
// otherwise); an event records the clock, so the time between two events is
// that of the launches recorded between them, deterministically.
#include <hip/hip_runtime_api.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

struct ihipModule_t {
  std::string target; // processor or target id it was built for
  std::set<std::string> kernels;
  const char *elf = nullptr; // ELF code objects: names are looked up here
  size_t elfSize = 0;
};

struct ihipModuleSymbol_t {
  std::string name;
};

/// Device memory and stream calls (fake_hip_memory), as HipTests.cpp
/// declares it: hipMalloc and hipFree calls (failed ones too),
/// hipStreamSynchronize calls, the last allocation's size, the bytes
/// allocated and not freed.
struct FakeHipMemory {
  int allocs;
  int frees;
  int syncs;
  size_t lastBytes;
  size_t liveBytes;
  int memsets; // hipMemset calls (failed ones too)
};

/// Event calls (fake_hip_events), as HipTests.cpp declares it, failed ones
/// too; the events created and not destroyed.
struct FakeHipEvents {
  int creates;
  int destroys;
  int records;
  int syncs;
  int elapsed;
  int live;
};

struct ihipEvent_t {
  bool recorded = false;
  double clock = 0;
};

namespace {

struct State {
  std::mutex mutex;
  std::map<int, std::string> archs = {{0, "gfx90a:sramecc+:xnack-"},
                                      {1, "gfx942:sramecc+:xnack-"}};
  int deviceCount = 2;
  hipError_t initError = hipSuccess;
  hipError_t loadError = hipSuccess;
  hipError_t launchError = hipSuccess;
  int moduleLoads = 0;
  int launches = 0;
  bool trace = false;
  // The last load and launch.
  std::string loaded;
  const void *loadedImage = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared = 0;
  void *stream = nullptr;
  void **params = nullptr;
  std::string function;
  void (*hook)(void **params) = nullptr;
  // Device memory and streams: calls, injected error, what is allocated, and
  // "alloc N -> P; sync S; free P; " for each call since the last read.
  FakeHipMemory memory = {};
  hipError_t mallocError = hipSuccess;
  std::map<void *, size_t> live;
  std::map<hipStream_t, hipStreamCaptureStatus> capturing;
  std::string memoryLog;
  int mallocFill = -1; // the byte new allocations are filled with; -1: none
  hipError_t memsetError = hipSuccess;
  int propertyQueries = 0; // hipGetDeviceProperties calls
  // The clock (ms) launches advance, by kernel (default 1 ms).
  double clock = 0;
  std::map<std::string, double> kernelTimes;
  // Events, calls, injected errors by call name (the error, and how many
  // calls still succeed before it).
  std::set<ihipEvent_t *> events;
  FakeHipEvents eventCalls = {};
  std::map<std::string, std::pair<hipError_t, int>> eventErrors;
  // Everything handed out, kept reachable (no leaks under LeakSanitizer).
  std::vector<std::unique_ptr<ihipModule_t>> modules;
  std::vector<std::unique_ptr<ihipModuleSymbol_t>> functions;
};

State &state() {
  static State *s = [] {
    auto *created = new State;
    if (const char *arch = std::getenv("FAKE_HIP_ARCH"))
      created->archs[0] = arch;
    if (const char *error = std::getenv("FAKE_HIP_INIT_ERROR"))
      created->initError = static_cast<hipError_t>(std::atoi(error));
    const char *trace = std::getenv("FAKE_HIP_TRACE");
    created->trace = trace && *trace && std::strcmp(trace, "0") != 0;
    return created;
  }();
  return *s;
}

thread_local int current = 0;

std::string processorOf(const std::string &targetId) {
  return targetId.substr(0, targetId.find(':'));
}

/// EF_AMDGPU_MACH_* values of the processors the tests use.
const char *machName(unsigned mach) {
  switch (mach) {
  case 0x30:
    return "gfx908";
  case 0x3f:
    return "gfx90a";
  case 0x4c:
    return "gfx942";
  }
  return "unknown";
}

} // namespace

#define EXPORT extern "C" __attribute__((visibility("default")))

hipError_t hipInit(unsigned int) { return state().initError; }

const char *hipGetErrorName(hipError_t error) {
  switch (error) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case hipErrorNoDevice:
    return "hipErrorNoDevice";
  case hipErrorInvalidDevice:
    return "hipErrorInvalidDevice";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorInvalidContext:
    return "hipErrorInvalidContext";
  case hipErrorNoBinaryForGpu:
    return "hipErrorNoBinaryForGpu";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  case hipErrorInvalidHandle:
    return "hipErrorInvalidHandle";
  case hipErrorIllegalAddress:
    return "hipErrorIllegalAddress";
  case hipErrorLaunchOutOfResources:
    return "hipErrorLaunchOutOfResources";
  default:
    return "hipErrorUnknown"; // what HIP answers for codes it does not know
  }
}

const char *hipGetErrorString(hipError_t error) {
  switch (error) {
  case hipErrorIllegalAddress:
    return "an illegal memory access was encountered";
  case hipErrorNoBinaryForGpu:
    return "no kernel image is available for execution on the device";
  case hipErrorNoDevice:
    return "no ROCm-capable device is detected";
  case hipErrorOutOfMemory:
    return "out of memory";
  default:
    return hipGetErrorName(error); // as HIP does for most codes
  }
}

hipError_t hipGetDevice(int *device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.deviceCount == 0)
    return hipErrorNoDevice;
  *device = current;
  return hipSuccess;
}

hipError_t hipSetDevice(int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (device < 0 || device >= s.deviceCount || !s.archs.count(device))
    return hipErrorInvalidDevice;
  current = device;
  return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *count = s.deviceCount;
  return s.deviceCount ? hipSuccess : hipErrorNoDevice;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *props, int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.propertyQueries;
  auto it = s.archs.find(device);
  if (it == s.archs.end() || device >= s.deviceCount)
    return hipErrorInvalidDevice;
  std::memset(props, 0, sizeof *props);
  std::snprintf(props->name, sizeof props->name, "Fake AMD GPU %s",
                processorOf(it->second).c_str());
  std::snprintf(props->gcnArchName, sizeof props->gcnArchName, "%s",
                it->second.c_str());
  props->warpSize = 64;
  return hipSuccess;
}

// A small fake device: 4 compute units (persistent launches' cap).
hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attribute,
                                 int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (device >= s.deviceCount)
    return hipErrorInvalidDevice;
  if (attribute != hipDeviceAttributeMultiprocessorCount)
    return hipErrorInvalidValue;
  *value = 4;
  return hipSuccess;
}

namespace {
void logMemory(State &s, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void logMemory(State &s, const char *format, ...) {
  char line[128];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  s.memoryLog += line;
  s.memoryLog += "; ";
}
} // namespace

// Device memory is host memory here: enough for programs (the difftest's
// HIP leg) that copy buffers around a launch the fake does not execute.
hipError_t hipMalloc(void **ptr, size_t size) {
  if (!ptr)
    return hipErrorInvalidValue;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.allocs;
  s.memory.lastBytes = size;
  if (s.mallocError != hipSuccess)
    return s.mallocError;
  *ptr = std::malloc(size ? size : 1);
  if (!*ptr)
    return hipErrorOutOfMemory;
  if (s.mallocFill >= 0)
    std::memset(*ptr, s.mallocFill, size);
  s.live[*ptr] = size;
  s.memory.liveBytes += size;
  logMemory(s, "alloc %zu -> %p", size, *ptr);
  return hipSuccess;
}

hipError_t hipFree(void *ptr) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.frees;
  auto it = s.live.find(ptr);
  if (it != s.live.end()) {
    s.memory.liveBytes -= it->second;
    s.live.erase(it);
  }
  if (ptr)
    logMemory(s, "free %p", ptr);
  std::free(ptr);
  return hipSuccess;
}

hipError_t hipMemset(void *ptr, int value, size_t size) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.memsets;
  if (s.memsetError != hipSuccess)
    return s.memsetError;
  // Within one allocation, as HIP requires.
  auto it = s.live.upper_bound(ptr);
  if (it == s.live.begin())
    return hipErrorInvalidValue;
  --it;
  size_t offset =
      size_t(static_cast<char *>(ptr) - static_cast<char *>(it->first));
  if (offset > it->second || size > it->second - offset)
    return hipErrorInvalidValue;
  std::memset(ptr, value, size);
  logMemory(s, "memset %p %d %zu", ptr, value, size);
  return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.syncs;
  auto it = s.capturing.find(stream);
  if (it != s.capturing.end() && it->second != hipStreamCaptureStatusNone)
    return hipErrorStreamCaptureUnsupported;
  logMemory(s, "sync %p", static_cast<void *>(stream));
  return hipSuccess;
}

hipError_t hipStreamIsCapturing(hipStream_t stream,
                                hipStreamCaptureStatus *status) {
  if (!status)
    return hipErrorInvalidValue;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.capturing.find(stream);
  *status = it == s.capturing.end() ? hipStreamCaptureStatusNone : it->second;
  return hipSuccess;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t size,
                     hipMemcpyKind) {
  if (size && (!dst || !src))
    return hipErrorInvalidValue;
  std::memmove(dst, src, size);
  return hipSuccess;
}

hipError_t hipDeviceSynchronize() { return hipSuccess; }

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  State &s = state();
  if (!module || !image)
    return hipErrorInvalidValue;
  // Widen the window in which racing threads could load twice.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.loadError != hipSuccess)
    return s.loadError;
  std::string device = processorOf(s.archs[current]);
  auto result = std::make_unique<ihipModule_t>();
  const char *bytes = static_cast<const char *>(image);
  if (std::strncmp(bytes, "FAKEHSACO ", 10) == 0) {
    // One line, ended by a newline or a NUL.
    size_t end = 10;
    while (bytes[end] && bytes[end] != '\n')
      ++end;
    std::istringstream in(std::string(bytes + 10, end - 10));
    std::string field;
    in >> result->target;
    while (in >> field) {
      if (field.rfind("kernels=", 0) != 0)
        continue;
      std::stringstream list(field.substr(8));
      std::string item;
      while (std::getline(list, item, ','))
        result->kernels.insert(item);
    }
  } else if (std::memcmp(bytes,
                         "\x7f"
                         "ELF\x02",
                         5) == 0) {
    uint64_t shoff;
    uint32_t flags;
    uint16_t shentsize, shnum;
    std::memcpy(&flags, bytes + 48, 4);
    std::memcpy(&shoff, bytes + 40, 8);
    std::memcpy(&shentsize, bytes + 58, 2);
    std::memcpy(&shnum, bytes + 60, 2);
    result->target = machName(flags & 0xff);
    result->elf = bytes;
    result->elfSize = shoff + uint64_t(shentsize) * shnum;
    if (result->elfSize > (64u << 20))
      return hipErrorInvalidImage;
  } else {
    return hipErrorInvalidImage;
  }
  if (s.trace)
    std::fprintf(stderr,
                 "fake-hip: hipModuleLoadData: %s code object (%s) "
                 "on device %d (%s)\n",
                 result->target.c_str(), result->elf ? "ELF" : "text", current,
                 s.archs[current].c_str());
  if (processorOf(result->target) != device)
    return hipErrorNoBinaryForGpu;
  ++s.moduleLoads;
  s.loaded = result->target;
  s.loadedImage = image;
  s.modules.push_back(std::move(result));
  *module = s.modules.back().get();
  return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *name) {
  if (!function || !module || !name || !*name)
    return hipErrorInvalidValue;
  bool found = module->kernels.count(name) != 0;
  if (module->elf) {
    std::string needle = std::string(1, '\0') + name + '\0';
    found = std::string(module->elf, module->elfSize).find(needle) !=
            std::string::npos;
  }
  if (!found)
    return hipErrorNotFound;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.functions.push_back(std::make_unique<ihipModuleSymbol_t>());
  s.functions.back()->name = name;
  *function = s.functions.back().get();
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx,
                                 unsigned int gy, unsigned int gz,
                                 unsigned int bx, unsigned int by,
                                 unsigned int bz, unsigned int shared,
                                 hipStream_t stream, void **params,
                                 void **extra) {
  State &s = state();
  void (*hook)(void **) = nullptr;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!f || extra)
      return hipErrorInvalidValue;
    if (s.launchError != hipSuccess)
      return s.launchError;
    ++s.launches;
    auto time = s.kernelTimes.find(f->name);
    s.clock += time == s.kernelTimes.end() ? 1.0 : time->second;
    s.grid[0] = gx, s.grid[1] = gy, s.grid[2] = gz;
    s.block[0] = bx, s.block[1] = by, s.block[2] = bz;
    s.shared = shared;
    s.stream = stream;
    s.params = params;
    s.function = f->name;
    hook = s.hook;
    if (s.trace)
      std::fprintf(stderr,
                   "fake-hip: hipModuleLaunchKernel: %s grid (%u, %u, %u) "
                   "block (%u, %u, %u) on device %d\n",
                   f->name.c_str(), gx, gy, gz, bx, by, bz, current);
  }
  if (hook)
    hook(params);
  return hipSuccess;
}

// --- Events ------------------------------------------------------------------

namespace {
/// The injected error of event call `call`, if it is due
/// (fake_hip_set_event_error).
hipError_t injected(State &s, const char *call) {
  auto it = s.eventErrors.find(call);
  if (it == s.eventErrors.end() || it->second.first == hipSuccess)
    return hipSuccess;
  if (it->second.second > 0) {
    --it->second.second;
    return hipSuccess;
  }
  return it->second.first;
}
} // namespace

hipError_t hipEventCreate(hipEvent_t *event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.creates;
  if (hipError_t error = injected(s, "hipEventCreate"))
    return error;
  if (!event)
    return hipErrorInvalidValue;
  *event = new ihipEvent_t;
  s.events.insert(*event);
  ++s.eventCalls.live;
  return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.records;
  if (hipError_t error = injected(s, "hipEventRecord"))
    return error;
  if (!s.events.count(event))
    return hipErrorInvalidHandle;
  event->recorded = true;
  event->clock = s.clock;
  return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.syncs;
  if (hipError_t error = injected(s, "hipEventSynchronize"))
    return error;
  return s.events.count(event) ? hipSuccess : hipErrorInvalidHandle;
}

hipError_t hipEventElapsedTime(float *milliseconds, hipEvent_t start,
                               hipEvent_t end) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.elapsed;
  if (hipError_t error = injected(s, "hipEventElapsedTime"))
    return error;
  if (!milliseconds)
    return hipErrorInvalidValue;
  if (!s.events.count(start) || !s.events.count(end) || !start->recorded ||
      !end->recorded)
    return hipErrorInvalidHandle;
  *milliseconds = static_cast<float>(end->clock - start->clock);
  return hipSuccess;
}

hipError_t hipEventDestroy(hipEvent_t event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.destroys;
  if (!s.events.erase(event))
    return hipErrorInvalidHandle;
  --s.eventCalls.live;
  delete event;
  return hipSuccess;
}

// --- Controls for the tests -------------------------------------------------

struct FakeHipLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void *stream;
  void **params;
  char function[128];
};

EXPORT void fake_hip_set_arch(int device, const char *arch) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().archs[device] = arch;
  if (device >= state().deviceCount)
    state().deviceCount = device + 1;
}
/// Returns the previous count.
EXPORT int fake_hip_set_device_count(int count) {
  std::lock_guard<std::mutex> lock(state().mutex);
  int previous = state().deviceCount;
  state().deviceCount = count;
  return previous;
}
EXPORT void fake_hip_set_load_error(int error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().loadError = static_cast<hipError_t>(error);
}
EXPORT void fake_hip_set_launch_error(int error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().launchError = static_cast<hipError_t>(error);
}
EXPORT void fake_hip_set_launch_hook(void (*hook)(void **params)) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().hook = hook;
}
EXPORT int fake_hip_module_loads() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().moduleLoads;
}
EXPORT int fake_hip_launches() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().launches;
}
/// The target of the last code object loaded ("gfx90a:xnack-"), and where
/// its bytes were.
EXPORT const void *fake_hip_last_loaded(char *target, size_t size) {
  std::lock_guard<std::mutex> lock(state().mutex);
  std::snprintf(target, size, "%s", state().loaded.c_str());
  return state().loadedImage;
}
EXPORT void fake_hip_last_launch(FakeHipLaunch *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::memcpy(out->grid, s.grid, sizeof s.grid);
  std::memcpy(out->block, s.block, sizeof s.block);
  out->shared = s.shared;
  out->stream = s.stream;
  out->params = s.params;
  std::snprintf(out->function, sizeof out->function, "%s", s.function.c_str());
}

// Device memory and streams: hipMalloc fails with `error` (0: succeeds);
// `stream` reports capture status `status` (0: none, 1: active).
EXPORT void fake_hip_set_malloc_error(int error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().mallocError = static_cast<hipError_t>(error);
}
EXPORT void fake_hip_set_capturing(void *stream, int status) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().capturing[static_cast<hipStream_t>(stream)] =
      static_cast<hipStreamCaptureStatus>(status);
}
EXPORT void fake_hip_memory(FakeHipMemory *out) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *out = state().memory;
}
/// The memory calls since the last read ("alloc 1048576 -> 0x...; sync
/// 0x...; free 0x...; "), truncated to `size`; then forgets them.
EXPORT void fake_hip_memory_log(char *out, size_t size) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::snprintf(out, size, "%s", s.memoryLog.c_str());
  s.memoryLog.clear();
}

/// New allocations are filled with `byte` (-1: left as malloc returns them),
/// so that a test can tell zero-filled memory from fresh memory.
EXPORT void fake_hip_set_malloc_fill(int byte) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().mallocFill = byte;
}
/// hipMemset fails with `error` (0: succeeds).
EXPORT void fake_hip_set_memset_error(int error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().memsetError = static_cast<hipError_t>(error);
}
EXPORT int fake_hip_property_queries() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().propertyQueries;
}
/// Each launch of kernel `function` advances the clock by `milliseconds`
/// (default 1).
EXPORT void fake_hip_set_kernel_time(const char *function,
                                     double milliseconds) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().kernelTimes[function] = milliseconds;
}
/// Event call `call` ("hipEventCreate", "hipEventRecord",
/// "hipEventSynchronize", "hipEventElapsedTime") succeeds `after` more
/// times, then fails with `error` until this is called again (error 0:
/// never fails).
EXPORT void fake_hip_set_event_error(const char *call, int error, int after) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().eventErrors[call] =
      std::make_pair(static_cast<hipError_t>(error), after);
}
EXPORT void fake_hip_events(FakeHipEvents *out) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *out = state().eventCalls;
}
