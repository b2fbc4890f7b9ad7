// A HIP host program using kcc's generated HIP stubs (hip-host-program.test).
// It includes HIP's own header, so hipStream_t must be what the stubs take.
// Linked against the real libamdhip64; run here only against the fake one
// (runtime/tests/FakeHip.cpp): there is no AMD GPU to run it on.
#include <hip/hip_runtime_api.h>

#include "vector_add.hip.kcc.h"

#include <dlfcn.h>

#include <cstdio>

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0); // in order with the fake's stderr
  alignas(16) static float buf[64];
  hipStream_t stream = nullptr;
  // The fake libamdhip64 shows the arguments of each launch.
  using Hook = void (*)(void (*)(void **));
  if (auto setHook = reinterpret_cast<Hook>(
          dlsym(RTLD_DEFAULT, "fake_hip_set_launch_hook")))
    setHook([](void **args) {
      std::printf("args: a=%d n=%d\n", *static_cast<float **>(args[0]) == buf,
                  *static_cast<int32_t *>(args[3]));
    });

  // Facts are checked before anything touches HIP.
  kcc::Status s = vector_add::vector_add_f32_1024(buf + 1, buf, buf, 8, stream);
  std::printf("misaligned: code %d: %s\n", s.code, s.message.c_str());
  s = vector_add::vector_add_f32_1024(buf, buf, buf, 3000, stream);
  std::printf("launch: code %d: %s\n", s.code, s.message.c_str());
  s = vector_add::vector_add({kcc::DType::f16, 2048}, buf, buf, buf, 5000);
  std::printf("dispatch: code %d: %s\n", s.code, s.message.c_str());
  kcc_status_code c = kcc_vector_add_f32_1024(buf, buf, buf, 0, stream);
  std::printf("C entry, empty grid: code %d [%s]\n", c,
              kcc_last_error_message());
  s = vector_add::vector_add({kcc::DType::f64, 1024}, buf, buf, buf, 8);
  std::printf("no spec: code %d: %s\n", s.code, s.message.c_str());
  return 0;
}
