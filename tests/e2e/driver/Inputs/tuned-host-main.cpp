// A host program calling a launch function compiled with a tuning database
// (see tuning-db.test), against the fake driver: near a tuned shape on the
// tuned device the measured choice runs; far from it, or on another device,
// the cost model's.
#include "../../../../runtime/tests/FakeCudaControl.h"

#include "mm.kcc.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  // The device's compute capability (the runtime caches a device's name:
  // one per process).
  int cc = argc > 1 ? std::atoi(argv[1]) : 90;
  void *lib = fakeDriver();
  void (*setCc)(int, int);
  void (*lastLaunch)(FakeLaunch *);
  fakeSymbol(lib, "fake_set_cc", setCc);
  fakeSymbol(lib, "fake_last_launch", lastLaunch);
  struct Case {
    int m, n, k;
  };
  setCc(0, cc);
  for (Case s : {Case{1024, 1024, 1024}, Case{1500, 1024, 1024},
                 Case{4096, 1024, 1024}}) {
    std::vector<kcc::f16> a(size_t(s.m) * s.k + 8), b(size_t(s.n) * s.k + 8),
        c(size_t(s.m) * s.n + 8);
    auto aligned = [](std::vector<kcc::f16> &v) {
      auto p = reinterpret_cast<uintptr_t>(v.data());
      return reinterpret_cast<kcc::f16 *>((p + 15) / 16 * 16);
    };
    kcc::Status st = mm::mm_nt_f16(aligned(c), s.m, s.n, s.n, aligned(a), s.m,
                                   s.k, s.k, aligned(b), s.n, s.k, s.k);
    FakeLaunch l{};
    lastLaunch(&l);
    std::printf("cc %d %dx%dx%d: code %d: %s%s\n", cc, s.m, s.n, s.k, st.code,
                l.function, st.message.c_str());
  }
  return 0;
}
