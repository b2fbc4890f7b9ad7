// A host program calling a launch function whose targets kept several tile
// candidates (see dispatch-by-size.test), run against the fake driver
// (FakeCuda.cpp, 4 multiprocessors): which candidate each call's sizes run,
// and KCC_VARIANT forcing one.
#include "../../../../runtime/tests/FakeCudaControl.h"

#include "dispatch.kcc.h"

#include <cstdio>
#include <vector>

int main() {
  void *lib = fakeDriver();
  void (*setCc)(int, int);
  void (*lastLaunch)(FakeLaunch *);
  fakeSymbol(lib, "fake_set_cc", setCc);
  fakeSymbol(lib, "fake_last_launch", lastLaunch);
  setCc(0, 90);
  struct Shape {
    int m, n, k;
  };
  for (Shape s :
       {Shape{16, 128, 16384}, Shape{64, 256, 256}, Shape{1024, 1024, 1024}}) {
    std::vector<kcc::f16> a(size_t(s.m) * s.k + 8), b(size_t(s.n) * s.k + 8),
        c(size_t(s.m) * s.n + 8);
    // 16-byte aligned bases: the tensor contract.
    auto aligned = [](std::vector<kcc::f16> &v) {
      auto p = reinterpret_cast<uintptr_t>(v.data());
      return reinterpret_cast<kcc::f16 *>((p + 15) / 16 * 16);
    };
    kcc::Status st =
        dispatch::mm_nt_f16(aligned(c), s.m, s.n, s.n, aligned(a), s.m, s.k,
                            s.k, aligned(b), s.n, s.k, s.k);
    FakeLaunch l{};
    lastLaunch(&l);
    std::printf("%dx%dx%d: code %d: %s grid %u %u %u%s\n", s.m, s.n, s.k,
                st.code, l.function, l.grid[0], l.grid[1], l.grid[2],
                st.message.c_str());
  }
  return 0;
}
