// A stand-in for libcuda.so.1 (loaded through KCC_CUDA_DRIVER) so the launch
// path runs on machines without a GPU. A "fatbin" here is a C string:
//   "FAKEFATBIN archs=80,90 kernels=vector_add,softmax"
// A module loads when the context's device compute capability is in `archs`.
// As the real driver, a launch with more than 48 KiB of dynamic shared memory
// fails unless cuFuncSetAttribute raised the function's limit, which may not
// pass the device's opt-in maximum.
// Device memory (cuMemAlloc_v2) is host memory that nothing reads (filled
// with a byte if fake_set_alloc_fill says so); streams are any pointer,
// never capturing unless fake_set_capturing says so.
// Devices are named "Fake GPU <major>.<minor>" after their compute
// capability. Time is a clock that each launch advances by its kernel's
// time (1 ms unless fake_set_kernel_time says otherwise); an event records
// the clock, so the time between two events is that of the launches
// recorded between them, deterministically.
// The fake_* functions let the tests steer it and read what it saw.
#include "FakeCudaControl.h"

#include <atomic>
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

namespace {

using CUresult = int;

struct Context {
  int device;
};

struct Module {
  std::set<std::string> kernels;
};

struct Function {
  std::string name;
  int maxDynamicShared = 48 * 1024; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
};

/// cudaDevAttrMaxSharedMemoryPerBlockOptin by compute capability.
int optInSharedBytes(int cc) {
  if (cc >= 90)
    return 232448;
  if (cc == 80 || cc == 87)
    return 166912;
  return 101376; // sm_86, sm_89
}

struct State {
  std::mutex mutex;
  std::map<int, int> cc = {{0, 86}};
  Context primary{0};
  int retains = 0;
  int moduleLoads = 0;
  int launches = 0;
  CUresult launchError = 0;
  // fake_set_cluster: per function name, its cluster width
  // (REQUIRED_CLUSTER_WIDTH) and the clusters the device holds at once.
  std::map<std::string, std::pair<int, int>> clusters;
  CUresult processorCountError =
      0; // cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)
  CUresult initError = 0;
  // The last launch.
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared = 0;
  void *stream = nullptr;
  std::string function;
  // What the last launch was given: the first `captureParams` kernelParams
  // pointers, and the 128 bytes behind kernelParams[captureMap] (if >= 0).
  unsigned captureParams = 0;
  int captureMap = -1;
  void *params[16] = {};
  unsigned char mapBytes[128] = {};
  // cuTensorMapEncodeTiled: calls, injected error, the last call's arguments.
  int encodes = 0;
  CUresult encodeError = 0;
  int dataType = -1;
  unsigned rank = 0;
  void *address = nullptr;
  uint64_t globalDim[5] = {}, globalStrides[5] = {};
  uint32_t boxDim[5] = {}, elementStrides[5] = {};
  int interleave = -1, swizzle = -1, l2Promotion = -1, oobFill = -1;
  void *map = nullptr;
  // cuFuncSetAttribute: calls, injected error, the last call's arguments.
  int attributeCalls = 0;
  CUresult attributeError = 0;
  int attribute = -1, attributeValue = 0;
  std::string attributeFunction;
  // Device memory and streams: calls, injected error, what is allocated, and
  // "alloc N -> P; sync S; free P; " for each call since the last read.
  FakeMemory memory = {};
  CUresult allocError = 0;
  std::map<uintptr_t, size_t> live;
  std::map<void *, int> capturing; // CUstreamCaptureStatus by stream
  std::string memoryLog;
  int allocFill = -1; // the byte new allocations are filled with; -1: none
  CUresult memsetError = 0;
  // cuDeviceGetName calls.
  int nameCalls = 0;
  // The clock (ms) launches advance, by kernel (default 1 ms).
  double clock = 0;
  std::map<std::string, double> kernelTimes;
  // Events: what they recorded, calls, injected errors by call name (the
  // error, and how many calls still succeed before it).
  struct Event {
    bool recorded = false;
    double clock = 0;
  };
  std::set<Event *> events;
  FakeEvents eventCalls = {};
  std::map<std::string, std::pair<CUresult, int>> eventErrors;
  // Everything handed out, kept reachable (no leaks under LeakSanitizer).
  std::vector<std::unique_ptr<Context>> contexts;
  std::vector<std::unique_ptr<Function>> functions;
};

State &state() {
  static State *s = new State;
  return *s;
}

thread_local Context *current = nullptr;

} // namespace

#define EXPORT extern "C" __attribute__((visibility("default")))

EXPORT CUresult cuInit(unsigned) { return state().initError; }

EXPORT CUresult cuGetErrorName(CUresult error, const char **str) {
  switch (error) {
  case 0: *str = "CUDA_SUCCESS"; return 0;
  case 1: *str = "CUDA_ERROR_INVALID_VALUE"; return 0;
  case 2:
    *str = "CUDA_ERROR_OUT_OF_MEMORY";
    return 0;
  case 100: *str = "CUDA_ERROR_NO_DEVICE"; return 0;
  case 101:
    *str = "CUDA_ERROR_INVALID_DEVICE";
    return 0;
  case 201: *str = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
  case 209: *str = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return 0;
  case 222: *str = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"; return 0;
  case 400:
    *str = "CUDA_ERROR_INVALID_HANDLE";
    return 0;
  case 500: *str = "CUDA_ERROR_NOT_FOUND"; return 0;
  case 700: *str = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
  case 701: *str = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return 0;
  }
  *str = nullptr;
  return 1;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **str) {
  switch (error) {
  case 2:
    *str = "out of memory";
    return 0;
  case 700: *str = "an illegal memory access was encountered"; return 0;
  case 209: *str = "no kernel image is available for execution on the device"; return 0;
  }
  const char *name = nullptr;
  if (cuGetErrorName(error, &name) != 0)
    return 1;
  *str = "fake description";
  return 0;
}

EXPORT CUresult cuCtxGetCurrent(Context **ctx) {
  *ctx = current;
  return 0;
}

EXPORT CUresult cuCtxSetCurrent(Context *ctx) {
  current = ctx;
  return 0;
}

EXPORT CUresult cuCtxGetDevice(int *device) {
  if (!current)
    return 201;
  *device = current->device;
  return 0;
}

EXPORT CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(Context **ctx, int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (device != 0)
    return 101;
  ++s.retains;
  *ctx = &s.primary;
  return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.cc.find(device);
  if (it == s.cc.end())
    return 101;
  if (attribute == 16 && s.processorCountError)
    return s.processorCountError;
  if (attribute == 16) // MULTIPROCESSOR_COUNT: a small fake device
    *value = 4;
  else if (attribute == 75)
    *value = it->second / 10;
  else if (attribute == 76)
    *value = it->second % 10;
  else
    return 1;
  return 0;
}

EXPORT CUresult cuDeviceGetName(char *name, int length, int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.nameCalls;
  auto it = s.cc.find(device);
  if (it == s.cc.end())
    return 101; // CUDA_ERROR_INVALID_DEVICE
  if (!name || length <= 0)
    return 1;
  std::snprintf(name, size_t(length), "Fake GPU %d.%d", it->second / 10,
                it->second % 10);
  return 0;
}

EXPORT CUresult cuModuleLoadData(Module **module, const void *image) {
  if (!current)
    return 201;
  std::string text(static_cast<const char *>(image));
  if (text.rfind("FAKEFATBIN ", 0) != 0)
    return 200; // CUDA_ERROR_INVALID_IMAGE
  // Widen the window in which racing threads could load twice.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  int cc = s.cc[current->device];
  std::istringstream in(text.substr(11));
  std::string field;
  bool ptxOnly = false, found = false;
  auto *result = new Module;
  while (in >> field) {
    std::string value = field.substr(field.find('=') + 1);
    std::stringstream list(value);
    std::string item;
    while (std::getline(list, item, ',')) {
      if (field.rfind("archs=", 0) == 0 && std::stoi(item) == cc)
        found = true;
      if (field.rfind("ptx=", 0) == 0)
        ptxOnly = true;
      if (field.rfind("kernels=", 0) == 0)
        result->kernels.insert(item);
    }
  }
  if (!found) {
    delete result;
    return ptxOnly ? 222 : 209;
  }
  ++s.moduleLoads;
  *module = result;
  return 0;
}

EXPORT CUresult cuModuleGetFunction(Function **function, Module *module,
                                    const char *name) {
  if (!module->kernels.count(name))
    return 500;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.functions.emplace_back(new Function{name});
  *function = s.functions.back().get();
  return 0;
}

EXPORT CUresult cuFuncGetAttribute(int *value, int attribute, Function *f) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (attribute != 11) // only REQUIRED_CLUSTER_WIDTH is modelled
    return 1;
  auto it = s.clusters.find(f->name);
  *value = it == s.clusters.end() ? 0 : it->second.first;
  return 0;
}

EXPORT CUresult cuOccupancyMaxActiveClusters(int *clusters, Function *f,
                                             const void *) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.clusters.find(f->name);
  if (it == s.clusters.end())
    return 1; // not a cluster kernel: the runtime does not ask
  *clusters = it->second.second;
  return 0;
}

EXPORT CUresult cuFuncSetAttribute(Function *f, int attribute, int value) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.attributeCalls;
  s.attribute = attribute;
  s.attributeValue = value;
  s.attributeFunction = f->name;
  if (s.attributeError)
    return s.attributeError;
  if (attribute != 8) // only MAX_DYNAMIC_SHARED_SIZE_BYTES is modelled
    return 1;
  if (!current || value < 0 || value > optInSharedBytes(s.cc[current->device]))
    return 1; // CUDA_ERROR_INVALID_VALUE
  f->maxDynamicShared = value;
  return 0;
}

EXPORT CUresult cuLaunchKernel(Function *f, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, void *stream,
                               void **params, void **) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.launchError)
    return s.launchError;
  if (shared > unsigned(f->maxDynamicShared))
    return 1; // CUDA_ERROR_INVALID_VALUE, as the real driver
  for (unsigned i = 0; i < s.captureParams; ++i)
    s.params[i] = params[i];
  if (s.captureMap >= 0)
    std::memcpy(s.mapBytes, params[s.captureMap], sizeof s.mapBytes);
  ++s.launches;
  auto time = s.kernelTimes.find(f->name);
  s.clock += time == s.kernelTimes.end() ? 1.0 : time->second;
  s.grid[0] = gx, s.grid[1] = gy, s.grid[2] = gz;
  s.block[0] = bx, s.block[1] = by, s.block[2] = bz;
  s.shared = shared;
  s.stream = stream;
  s.function = f->name;
  return 0;
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

EXPORT CUresult cuMemAlloc_v2(uintptr_t *ptr, size_t bytes) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.allocs;
  s.memory.lastBytes = bytes;
  if (!current)
    return 201;
  if (s.allocError)
    return s.allocError;
  if (!ptr || !bytes)
    return 1;
  void *memory = std::malloc(bytes);
  if (!memory)
    return 2;
  if (s.allocFill >= 0)
    std::memset(memory, s.allocFill, bytes);
  *ptr = reinterpret_cast<uintptr_t>(memory);
  s.live[*ptr] = bytes;
  s.memory.liveBytes += bytes;
  logMemory(s, "alloc %zu -> %p", bytes, memory);
  return 0;
}

EXPORT CUresult cuMemFree_v2(uintptr_t ptr) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.frees;
  auto it = s.live.find(ptr);
  if (it == s.live.end())
    return 1; // CUDA_ERROR_INVALID_VALUE: not from cuMemAlloc, or freed
  s.memory.liveBytes -= it->second;
  s.live.erase(it);
  logMemory(s, "free %p", reinterpret_cast<void *>(ptr));
  std::free(reinterpret_cast<void *>(ptr));
  return 0;
}

EXPORT CUresult cuMemsetD8_v2(uintptr_t ptr, unsigned char value,
                              size_t count) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.memsets;
  if (!current)
    return 201;
  if (s.memsetError)
    return s.memsetError;
  // Within one allocation, as the real driver requires.
  auto it = s.live.upper_bound(ptr);
  if (it == s.live.begin())
    return 1;
  --it;
  if (ptr - it->first > it->second || count > it->second - (ptr - it->first))
    return 1; // CUDA_ERROR_INVALID_VALUE
  std::memset(reinterpret_cast<void *>(ptr), value, count);
  logMemory(s, "memset %p %u %zu", reinterpret_cast<void *>(ptr),
            unsigned(value), count);
  return 0;
}

EXPORT CUresult cuStreamSynchronize(void *stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.memory.syncs;
  if (s.capturing.count(stream) && s.capturing[stream])
    return 900; // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
  logMemory(s, "sync %p", stream);
  return 0;
}

EXPORT CUresult cuStreamIsCapturing(void *stream, int *status) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.capturing.find(stream);
  *status = it == s.capturing.end() ? 0 : it->second;
  return 0;
}

// --- Events ------------------------------------------------------------------

namespace {

using Event = State::Event;

/// The injected error of event call `call`, if it is due
/// (fake_set_event_error).
CUresult injected(State &s, const char *call) {
  auto it = s.eventErrors.find(call);
  if (it == s.eventErrors.end() || !it->second.first)
    return 0;
  if (it->second.second > 0) {
    --it->second.second;
    return 0;
  }
  return it->second.first;
}

CUresult elapsedTime(float *milliseconds, Event *start, Event *end) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (CUresult error = injected(s, "cuEventElapsedTime"))
    return error;
  if (!milliseconds)
    return 1;
  if (!s.events.count(start) || !s.events.count(end) || !start->recorded ||
      !end->recorded)
    return 400; // CUDA_ERROR_INVALID_HANDLE
  *milliseconds = static_cast<float>(end->clock - start->clock);
  return 0;
}

} // namespace

EXPORT CUresult cuEventCreate(Event **event, unsigned flags) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.creates;
  if (CUresult error = injected(s, "cuEventCreate"))
    return error;
  if (!current)
    return 201;
  if (!event || flags != 0) // only CU_EVENT_DEFAULT is modelled
    return 1;
  *event = new Event;
  s.events.insert(*event);
  ++s.eventCalls.live;
  return 0;
}

EXPORT CUresult cuEventRecord(Event *event, void *) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.records;
  if (CUresult error = injected(s, "cuEventRecord"))
    return error;
  if (!s.events.count(event))
    return 400;
  event->recorded = true;
  event->clock = s.clock;
  return 0;
}

EXPORT CUresult cuEventSynchronize(Event *event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.syncs;
  if (CUresult error = injected(s, "cuEventSynchronize"))
    return error;
  return s.events.count(event) ? 0 : 400;
}

// Drivers before CUDA 12.8 (as the one without cuTensorMapEncodeTiled
// stands for) have only the unversioned export.
EXPORT CUresult cuEventElapsedTime(float *milliseconds, Event *start,
                                   Event *end) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    ++state().eventCalls.elapsedUnversioned;
  }
  return elapsedTime(milliseconds, start, end);
}
#ifndef KCC_FAKE_CUDA_NO_TMA
EXPORT CUresult cuEventElapsedTime_v2(float *milliseconds, Event *start,
                                      Event *end) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    ++state().eventCalls.elapsedV2;
  }
  return elapsedTime(milliseconds, start, end);
}
#endif

EXPORT CUresult cuEventDestroy_v2(Event *event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.eventCalls.destroys;
  if (!s.events.erase(event))
    return 400;
  --s.eventCalls.live;
  delete event;
  return 0;
}

#ifndef KCC_FAKE_CUDA_NO_TMA
// Records its arguments and writes a recognizable map: the word
// 0x4b43434d41500001 ("KCCMAP" 1), the address, the sizes; so a test can tell
// which map a launch got.
EXPORT CUresult cuTensorMapEncodeTiled(
    void *map, int dataType, unsigned rank, void *address,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
    int swizzle, int l2Promotion, int oobFill) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.encodes;
  s.dataType = dataType;
  s.rank = rank;
  s.address = address;
  for (unsigned i = 0; i < rank && i < 5; ++i) {
    s.globalDim[i] = globalDim[i];
    s.boxDim[i] = boxDim[i];
    s.elementStrides[i] = elementStrides[i];
    if (i + 1 < rank)
      s.globalStrides[i] = globalStrides[i];
  }
  s.interleave = interleave;
  s.swizzle = swizzle;
  s.l2Promotion = l2Promotion;
  s.oobFill = oobFill;
  s.map = map;
  if (s.encodeError)
    return s.encodeError;
  uint64_t words[16] = {0x4b43434d41500001ull,
                        reinterpret_cast<uintptr_t>(address)};
  for (unsigned i = 0; i < rank && i < 5; ++i)
    words[2 + i] = globalDim[i];
  std::memcpy(map, words, sizeof words);
  return 0;
}
#endif

// --- Controls for the tests -------------------------------------------------

EXPORT void fake_set_cc(int device, int cc) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().cc[device] = cc;
}
EXPORT void fake_set_launch_error(CUresult error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().launchError = error;
}
EXPORT void fake_set_cluster(const char *function, int width, int resident) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().clusters[function] = {width, resident};
}
EXPORT void fake_set_processor_count_error(CUresult error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().processorCountError = error;
}
EXPORT void *fake_new_context(int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.contexts.emplace_back(new Context{device});
  return s.contexts.back().get();
}
EXPORT int fake_retains() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().retains;
}
EXPORT int fake_module_loads() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().moduleLoads;
}
EXPORT int fake_launches() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().launches;
}
EXPORT void fake_last_launch(FakeLaunch *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::memcpy(out->grid, s.grid, sizeof s.grid);
  std::memcpy(out->block, s.block, sizeof s.block);
  out->shared = s.shared;
  out->stream = s.stream;
  std::snprintf(out->function, sizeof out->function, "%s", s.function.c_str());
}

EXPORT void fake_set_func_attribute_error(CUresult error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().attributeError = error;
}
EXPORT void fake_last_func_attribute(FakeFuncAttribute *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  out->calls = s.attributeCalls;
  out->attribute = s.attribute;
  out->value = s.attributeValue;
  std::snprintf(out->function, sizeof out->function, "%s",
                s.attributeFunction.c_str());
}

EXPORT void fake_set_encode_error(CUresult error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().encodeError = error;
}
EXPORT void fake_last_encode(FakeEncode *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  out->calls = s.encodes;
  out->dataType = s.dataType;
  out->rank = s.rank;
  out->address = s.address;
  std::memcpy(out->globalDim, s.globalDim, sizeof s.globalDim);
  std::memcpy(out->globalStrides, s.globalStrides, sizeof s.globalStrides);
  std::memcpy(out->boxDim, s.boxDim, sizeof s.boxDim);
  std::memcpy(out->elementStrides, s.elementStrides, sizeof s.elementStrides);
  out->interleave = s.interleave;
  out->swizzle = s.swizzle;
  out->l2Promotion = s.l2Promotion;
  out->oobFill = s.oobFill;
  out->map = s.map;
}
// Launches from now on record `count` kernelParams pointers (at most 16) and
// the 128 bytes behind kernelParams[map] (map < 0: none).
EXPORT void fake_capture_params(unsigned count, int map) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().captureParams = count < 16 ? count : 16;
  state().captureMap = map;
}
EXPORT void fake_captured_params(void **params, unsigned char *mapBytes) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::memcpy(params, s.params, sizeof s.params);
  std::memcpy(mapBytes, s.mapBytes, sizeof s.mapBytes);
}

// Device memory and streams: cuMemAlloc_v2 fails with `error` (0: succeeds);
// `stream` reports capture status `status` (0: none, 1: active).
EXPORT void fake_set_alloc_error(CUresult error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().allocError = error;
}
EXPORT void fake_set_capturing(void *stream, int status) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().capturing[stream] = status;
}
EXPORT void fake_memory(FakeMemory *out) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *out = state().memory;
}
/// The memory calls since the last read ("alloc 1048576 -> 0x...; sync
/// 0x...; free 0x...; "), truncated to `size`; then forgets them.
EXPORT void fake_memory_log(char *out, size_t size) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::snprintf(out, size, "%s", s.memoryLog.c_str());
  s.memoryLog.clear();
}

/// New allocations are filled with `byte` (-1: left as malloc returns them),
/// so that a test can tell zero-filled memory from fresh memory.
EXPORT void fake_set_alloc_fill(int byte) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().allocFill = byte;
}
/// cuMemsetD8_v2 fails with `error` (0: succeeds).
EXPORT void fake_set_memset_error(CUresult error) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().memsetError = error;
}
EXPORT int fake_device_name_calls() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().nameCalls;
}
/// Each launch of kernel `function` advances the clock by `milliseconds`
/// (default 1).
EXPORT void fake_set_kernel_time(const char *function, double milliseconds) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().kernelTimes[function] = milliseconds;
}
/// Event call `call` ("cuEventCreate", "cuEventRecord",
/// "cuEventSynchronize", "cuEventElapsedTime": either export) succeeds
/// `after` more times, then fails with `error` until this is called again
/// (error 0: never fails).
EXPORT void fake_set_event_error(const char *call, CUresult error, int after) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().eventErrors[call] = std::make_pair(error, after);
}
EXPORT void fake_events(FakeEvents *out) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *out = state().eventCalls;
}
