// A host program calling a memory-bound launch function whose BLOCK the
// compiler left open (see dispatch-memory-bound.test), run against the fake
// driver: which candidate, and which of its builds, each row length runs.
#include "../../../../runtime/tests/FakeCudaControl.h"

#include "rows.kcc.h"

#include <cstdio>
#include <vector>

int main() {
  void *lib = fakeDriver();
  void (*setCc)(int, int);
  void (*lastLaunch)(FakeLaunch *);
  fakeSymbol(lib, "fake_set_cc", setCc);
  fakeSymbol(lib, "fake_last_launch", lastLaunch);
  setCc(0, 90);
  const int rows = 4;
  for (int cols : {1000, 1024, 3000, 5000, 20000}) {
    std::vector<float> in(size_t(rows) * cols + 8), out(in.size());
    kcc::Status st = rows::softmax_f32(out.data(), in.data(), cols, cols, rows);
    FakeLaunch l{};
    lastLaunch(&l);
    std::printf("%d cols: code %d: %s grid %u %u %u%s\n", cols, st.code,
                l.function, l.grid[0], l.grid[1], l.grid[2],
                st.message.c_str());
  }
  return 0;
}
