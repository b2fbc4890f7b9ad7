// Experiment: where does a TMA store write at a ragged edge?
#include "copy2d.kcc.h"
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
int main() {
  struct S { int m, n, stride; } shapes[] = {{2, 301, 320}, {2, 300, 320}, {2, 1, 64}, {2, 5, 64}, {2, 129, 192}, {33, 130, 132}};
  for (S s : shapes) {
    size_t count = size_t(s.m + 40) * s.stride; // 40 rows past the tensor
    std::vector<float> src(count), dst(count, -7.0f);
    for (size_t i = 0; i < count; ++i) src[i] = 1000.0f + i;
    float *ds, *dd;
    cudaMalloc(&ds, count * 4); cudaMalloc(&dd, count * 4);
    cudaMemcpy(ds, src.data(), count * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dd, dst.data(), count * 4, cudaMemcpyHostToDevice);
    kcc::Status st = copy2d::copy2d_f32_32_128(dd, s.m, s.n, s.stride, ds, s.m, s.n, s.stride);
    cudaDeviceSynchronize();
    cudaMemcpy(dst.data(), dd, count * 4, cudaMemcpyDeviceToHost);
    printf("m=%d n=%d stride=%d status=%d %s\n", s.m, s.n, s.stride, int(st.code), st.message.c_str());
    int badInside = 0;
    for (int i = 0; i < s.m; ++i) {
      int wrong = 0;
      for (int j = 0; j < s.n; ++j) badInside += dst[size_t(i) * s.stride + j] != src[size_t(i) * s.stride + j];
      for (int j = s.n; j < s.stride; ++j) wrong += dst[size_t(i) * s.stride + j] != -7.0f;
      if (wrong) printf("  row %d: %d padding elements written\n", i, wrong);
    }
    int extra = 0;
    for (size_t i = size_t(s.m) * s.stride; i < count; ++i) extra += dst[i] != -7.0f;
    printf("  wrong inside: %d; rows past dim0 written: %d elements\n", badInside, extra);
    cudaFree(ds); cudaFree(dd);
  }
}
