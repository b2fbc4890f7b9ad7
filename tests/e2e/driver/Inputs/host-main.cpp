// A host program using kcc's generated stubs (see stubs-host-program.test).
#include "vector_add.kcc.h"

#include <cstdio>

int main() {
  alignas(16) static float buf[64];
  // Facts are checked before anything touches the driver.
  kcc::Status s = vector_add::vector_add_f32_1024(buf + 1, buf, buf, 8);
  std::printf("misaligned: code %d: %s\n", s.code, s.message.c_str());
  s = vector_add::vector_add_f32_1024(buf, buf, buf, 8);
  std::printf("launch: code %d: %s\n", s.code, s.message.c_str());
  kcc_status_code c = kcc_vector_add_f32_1024(buf, buf, buf, 8, nullptr);
  std::printf("C entry: code %d, %s\n", c, kcc_last_error_message());
  s = vector_add::vector_add({kcc::DType::f64, 1024}, buf, buf, buf, 8);
  std::printf("dispatch: code %d: %s\n", s.code, s.message.c_str());
  return 0;
}
