// A host program whose kernel's grid uses num_multiprocessors() (see
// multiprocessors.test), run against the fake driver (FakeCuda.cpp, a
// device of 4 multiprocessors): the grid the launch gets, and a failed
// device query refusing the launch.
#include "../../../../runtime/tests/FakeCudaControl.h"

#include "mp.kcc.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main() {
  void *lib = fakeDriver();
  void (*setCc)(int, int);
  void (*setProcessorCountError)(int);
  void (*lastLaunch)(FakeLaunch *);
  fakeSymbol(lib, "fake_set_cc", setCc);
  fakeSymbol(lib, "fake_set_processor_count_error", setProcessorCountError);
  fakeSymbol(lib, "fake_last_launch", lastLaunch);
  setCc(0, 90);
  static float x[64 * 37], y[64 * 37];
  for (int rows : {37, 5}) {
    kcc::Status s = mp::rowscale(x, y, rows, 64);
    FakeLaunch l{};
    lastLaunch(&l);
    std::printf("rows %d: code %d: grid %u %s\n", rows, s.code, l.grid[0],
                s.message.c_str());
  }
  setProcessorCountError(101);
  kcc::Status s = mp::rowscale(x, y, 37, 64);
  std::printf("query fails: code %d: %s\n", s.code, s.message.c_str());
  return 0;
}
