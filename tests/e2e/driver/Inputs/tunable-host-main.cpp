// A host program calling a launch function over a tunable constant (see
// tunable.test), run against the fake driver (FakeCuda.cpp, opened through
// KCC_CUDA_DRIVER): which candidate each compute capability launches, with
// which grid.
#include "../../../../runtime/tests/FakeCudaControl.h"

#include "tunable.kcc.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main() {
  void *lib = fakeDriver();
  void (*setCc)(int, int);
  void (*lastLaunch)(FakeLaunch *);
  fakeSymbol(lib, "fake_set_cc", setCc);
  fakeSymbol(lib, "fake_last_launch", lastLaunch);
  alignas(16) static float x[1000];
  for (int cc : {80, 86, 90, 100, 120}) {
    setCc(0, cc);
    kcc::Status s = tunable::scale(x, 1000);
    FakeLaunch l{};
    lastLaunch(&l);
    std::printf("cc %d: code %d: %s grid %u\n", cc, s.code, l.function,
                l.grid[0]);
  }
  setCc(0, 90);
  kcc_status_code c = kcc_scale(x, 1000, nullptr);
  FakeLaunch l{};
  lastLaunch(&l);
  std::printf("C cc 90: code %d: %s grid %u\n", c, l.function, l.grid[0]);
  return 0;
}
