// A host program using stubs with TMA tensor map parameters (see
// stubs-tensormap.test), run against the fake driver (FakeCuda.cpp, opened
// through KCC_CUDA_DRIVER): prints what cuTensorMapEncodeTiled and
// cuLaunchKernel saw.
#include "../../../../runtime/tests/FakeCudaControl.h"

#include "tma_copy.kcc.h"

#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

void (*setCc)(int, int);
void (*lastEncode)(FakeEncode *);
void (*captureParams)(unsigned, int);
void (*capturedParams)(void **, unsigned char *);
int (*launches)();

void printStatus(const char *what, const kcc::Status &s) {
  std::printf("%s: code %d: %s\n", what, s.code, s.message.c_str());
}

void printEncode() {
  FakeEncode e{};
  lastEncode(&e);
  std::printf("encode #%d: type %d rank %u dims", e.calls, e.dataType, e.rank);
  for (unsigned i = 0; i < e.rank; ++i)
    std::printf(" %" PRIu64, e.globalDim[i]);
  std::printf(" strides");
  for (unsigned i = 0; i + 1 < e.rank; ++i)
    std::printf(" %" PRIu64, e.globalStrides[i]);
  std::printf(" box");
  for (unsigned i = 0; i < e.rank; ++i)
    std::printf(" %u", e.boxDim[i]);
  std::printf(" elementStrides");
  for (unsigned i = 0; i < e.rank; ++i)
    std::printf(" %u", e.elementStrides[i]);
  std::printf(" interleave %d swizzle %d l2 %d oob %d map%%64 %d\n",
              e.interleave, e.swizzle, e.l2Promotion, e.oobFill,
              int(reinterpret_cast<uintptr_t>(e.map) % 64));
}

/// What the last launch got at kernelParams[index] (captured as a map).
void printLaunchMap(unsigned index, const void *expectedAddress) {
  void *params[16];
  uint64_t words[16];
  capturedParams(params, reinterpret_cast<unsigned char *>(words));
  std::printf("launch #%d: param %u %%64 %d, map word0 %" PRIx64
              " address ok %d dims %" PRIu64 " %" PRIu64 "\n",
              launches(), index,
              int(reinterpret_cast<uintptr_t>(params[index]) % 64), words[0],
              words[1] == reinterpret_cast<uintptr_t>(expectedAddress),
              words[2], words[3]);
}

} // namespace

int main() {
  void *lib = fakeDriver();
  fakeSymbol(lib, "fake_set_cc", setCc);
  fakeSymbol(lib, "fake_last_encode", lastEncode);
  fakeSymbol(lib, "fake_capture_params", captureParams);
  fakeSymbol(lib, "fake_captured_params", capturedParams);
  fakeSymbol(lib, "fake_launches", launches);

  alignas(16) static float dst[100 * 320], src[100 * 320];
  setCc(0, 90);
  // dst's map is argument 9 (after the 9 user arguments), src's 10.
  captureParams(11, 9);
  kcc::Status s =
      tma_copy::tma_copy_f32(dst, 100, 300, 320, src, 100, 300, 320, 7);
  printStatus("sm_90 f32", s);
  printEncode(); // src's, the last one
  printLaunchMap(9, dst);
  captureParams(11, 10);
  s = tma_copy::tma_copy({kcc::DType::f16}, dst, 64, 1000, 1024, src, 64, 1000,
                         1024, 7);
  printStatus("sm_90 f16 dispatch", s);
  printEncode();
  printLaunchMap(10, src);

  // Rank 1 through the C entry point.
  captureParams(3, 2);
  kcc_status_code c =
      kcc_tma_vec(reinterpret_cast<uint16_t *>(src), 1000, nullptr);
  std::printf("C sm_90 vec: code %d [%s]\n", c, kcc_last_error_message());
  printEncode();
  printLaunchMap(2, src);

  // Refused by the runtime's TMA rules, before the driver.
  s = tma_copy::tma_copy_f32(dst, 100, 300, -320, src, 100, 300, 320, 7);
  printStatus("negative stride", s);
  // Empty tensors: nothing to launch when the grid is empty too.
  int before = launches();
  s = tma_copy::tma_copy_f32(dst, 0, 300, 320, src, 0, 300, 320, 7);
  printStatus("empty", s);
  std::printf("launched: %d\n", launches() - before);
  s = tma_copy::tma_copy_f32(dst, 0, 300, 320, src, 100, 300, 320, 7);
  printStatus("empty dst", s);
  s = tma_copy::tma_copy_f32(dst, 100, -5, 320, src, 100, 300, 320, 7);
  printStatus("negative dst", s);

  // Before Hopper: zeroed maps, no encode, the launch happens.
  setCc(0, 80);
  FakeEncode e{};
  lastEncode(&e);
  int encodes = e.calls;
  captureParams(11, 10);
  s = tma_copy::tma_copy_f32(dst, 100, 300, 320, src, 100, 300, 320, 7);
  printStatus("sm_80", s);
  lastEncode(&e);
  std::printf("sm_80 encodes: %d\n", e.calls - encodes);
  printLaunchMap(10, nullptr);
  return 0;
}
