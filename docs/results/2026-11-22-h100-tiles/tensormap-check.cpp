// Real-driver check of kcc::rt::encodeTensorMap on the GPU machine.
#include <kcc/runtime.h>
#include <cuda_runtime.h>
#include <cstdio>
int main() {
  void *p = nullptr;
  cudaMalloc(&p, 1 << 24);
  static kcc::rt::FatbinDesc fb{"check.kc", nullptr, 0, "none"};
  static kcc::rt::ThreadsForArch t[] = {{90, 128}};
  kcc::rt::KernelDesc k{&fb, "check", t, 1};
  struct Case { const char *name; kcc::DType d; const void *base; int64_t dims[2]; int64_t stride; int32_t box[2]; unsigned swz; };
  Case cases[] = {
    {"f32 77x301 stride 304 box 32x128", kcc::DType::f32, p, {77, 301}, 304, {32, 128}, 0},
    {"f16 4099x2051 stride 2056 box 32x256", kcc::DType::f16, p, {4099, 2051}, 2056, {32, 256}, 0},
    {"f32 box 64x32 swizzle 128", kcc::DType::f32, p, {1000, 1000}, 1000, {64, 32}, 128},
    {"bf16 box 8x64 swizzle 128", kcc::DType::bf16, p, {100, 64}, 64, {8, 64}, 128},
    {"misaligned base", kcc::DType::f32, (char *)p + 4, {77, 301}, 304, {32, 128}, 0},
    {"stride not 16B", kcc::DType::f32, p, {77, 301}, 301, {32, 128}, 0},
    {"box 512", kcc::DType::f32, p, {77, 301}, 304, {32, 512}, 0},
    {"inner box > swizzle span", kcc::DType::f32, p, {77, 301}, 304, {32, 64}, 128},
  };
  for (const Case &c : cases) {
    kcc::rt::TensorMap m{};
    int64_t strides[1] = {c.stride};
    kcc::Status s = kcc::rt::encodeTensorMap(k, "src", &m, c.d, c.base, 2, c.dims, strides, c.box, c.swz);
    int nonzero = 0;
    for (uint64_t w : m.words) nonzero += w != 0;
    std::printf("%-40s code=%d nonzero-words=%d %s\n", c.name, int(s.code), nonzero, s.message.c_str());
  }
  return 0;
}
