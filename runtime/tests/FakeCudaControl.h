//===- FakeCudaControl.h - what the fake libcuda records, for tests -*- C++ -*-===//
//
// The records the fake driver (FakeCuda.cpp) fills through its fake_* control
// functions; the tests load it with dlopen and look those functions up with
// dlsym, so only these layouts are shared.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_TESTS_FAKECUDACONTROL_H
#define KCC_RUNTIME_TESTS_FAKECUDACONTROL_H

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

/// The last cuLaunchKernel (fake_last_launch).
struct FakeLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void *stream;
  char function[128];
};

/// The last cuFuncSetAttribute and how many there were
/// (fake_last_func_attribute).
struct FakeFuncAttribute {
  int calls;
  int attribute;
  int value;
  char function[128];
};

/// The last cuTensorMapEncodeTiled and how many there were
/// (fake_last_encode).
struct FakeEncode {
  int calls;
  int dataType;
  unsigned rank;
  void *address;
  uint64_t globalDim[5], globalStrides[5];
  uint32_t boxDim[5], elementStrides[5];
  int interleave, swizzle, l2Promotion, oobFill;
  void *map;
};

/// Device memory and stream calls (fake_memory): cuMemAlloc_v2 and
/// cuMemFree_v2 calls (failed ones too), cuStreamSynchronize calls, the
/// last allocation's size, the bytes allocated and not freed, memsets.
struct FakeMemory {
  int allocs;
  int frees;
  int syncs;
  size_t lastBytes;
  size_t liveBytes;
  int memsets; // cuMemsetD8_v2 calls (failed ones too)
};

/// Event calls (fake_events), failed ones too: cuEventCreate,
/// cuEventDestroy_v2, cuEventRecord, cuEventSynchronize, cuEventElapsedTime_v2
/// and cuEventElapsedTime; the events created and not destroyed.
struct FakeEvents {
  int creates;
  int destroys;
  int records;
  int syncs;
  int elapsedV2;
  int elapsedUnversioned;
  int live;
};

/// For host programs run against the fake driver (tests/e2e/driver): the
/// library KCC_CUDA_DRIVER names (the one the runtime opens), and its
/// control function `name` in `fn`; either missing ends the program.
inline void *fakeDriver() {
  void *lib = dlopen(std::getenv("KCC_CUDA_DRIVER"), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::printf("cannot open the fake driver: %s\n", dlerror());
    std::exit(1);
  }
  return lib;
}
template <typename Fn> void fakeSymbol(void *lib, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn) {
    std::printf("the fake driver has no %s\n", name);
    std::exit(1);
  }
}

#endif // KCC_RUNTIME_TESTS_FAKECUDACONTROL_H
