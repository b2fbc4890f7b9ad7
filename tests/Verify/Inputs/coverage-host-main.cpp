// Launches copy2d with shapes its stores do cover and with a dst larger than
// the grid (sized by src) covers: the stub refuses the second before touching
// the GPU, naming the tensor, the sizes and the condition kcc proved.
#include "copy2d.kcc.h"

#include <cstdio>

int main() {
  alignas(16) static float dst[64 * 256], src[64 * 256];
  // Covered: the launch gets as far as the (missing) driver.
  kcc::Status ok =
      copy2d::copy2d_f32_32_128(dst, 40, 200, 256, src, 40, 200, 256, nullptr);
  std::printf("covered: code %d: %s\n", int(ok.code), ok.message.c_str());
  // dst has 64 rows; a grid for 32 rows of src writes only 32 of them.
  kcc::Status bad =
      copy2d::copy2d_f32_32_128(dst, 64, 200, 256, src, 32, 200, 256, nullptr);
  std::printf("uncovered: code %d: %s\n", int(bad.code), bad.message.c_str());
  // An empty dst needs nothing written.
  kcc::Status empty =
      copy2d::copy2d_f32_32_128(dst, 0, 200, 256, src, 32, 200, 256, nullptr);
  std::printf("empty: code %d: %s\n", int(empty.code), empty.message.c_str());
  return 0;
}
