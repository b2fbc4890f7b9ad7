// Times kcc's memory-bound kernels through their launch stubs (CUDA events,
// median over batches) and prints one JSON object per case on stdout:
//   {"case": "vector_add f32", "shape": "268435456", "bytes": ..., "ms": ...}
// `bytes` counts the ideal traffic (each input read once, each output written
// once), the usual definition for GB/s. run_membound.py runs this and the
// PyTorch peers in one go and writes the table.
#include "Half.h"

#include "axpy.kcc.h"
#include "copy2d.kcc.h"
#include "layernorm.kcc.h"
#include "row_reduce.kcc.h"
#include "softmax.kcc.h"
#include "softmax_tma.kcc.h"
#include "layernorm_tma.kcc.h"
#include "transpose.kcc.h"
#include "vector_add.kcc.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CUDA_OK(x)                                                             \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "cuda: %s (%s:%d)\n", cudaGetErrorString(e),        \
                   __FILE__, __LINE__);                                        \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

static void *deviceAlloc(size_t bytes) {
  void *p;
  CUDA_OK(cudaMalloc(&p, bytes));
  CUDA_OK(cudaMemset(p, 0, bytes)); // finite values everywhere
  return p;
}

/// Median milliseconds per launch of `launch`.
static double timeIt(const std::function<kcc::Status()> &launch) {
  for (int i = 0; i < 3; ++i) {
    kcc::Status s = launch();
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message.c_str());
      std::exit(1);
    }
  }
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  std::vector<double> samples;
  const int reps = 10;
  for (int batch = 0; batch < 15; ++batch) {
    CUDA_OK(cudaEventRecord(start));
    for (int i = 0; i < reps; ++i)
      launch();
    CUDA_OK(cudaEventRecord(stop));
    CUDA_OK(cudaEventSynchronize(stop));
    float ms;
    CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(ms / reps);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

static void emit(const char *name, const std::string &shape, double bytes, double ms,
                 int64_t block = 0) {
  std::printf("{\"case\": \"%s\", \"shape\": \"%s\", \"bytes\": %.0f, \"ms\": %.6f, "
              "\"block\": %lld}\n",
              name, shape.c_str(), bytes, ms, (long long)block);
  std::fflush(stdout);
}

int main() {
  CUDA_OK(cudaFree(nullptr));
  const int n = 1 << 28; // 1 GiB of f32 per vector
  {
    void *a = deviceAlloc(size_t(n) * 4), *b = deviceAlloc(size_t(n) * 4),
         *c = deviceAlloc(size_t(n) * 4);
    std::string shape = std::to_string(n);
    emit("vector_add f32", shape, 3.0 * n * 4, timeIt([&] {
           return vector_add::vector_add_f32_1024((float *)a, (float *)b, (float *)c, n, nullptr);
         }));
    emit("vector_add f16", shape, 3.0 * n * 2, timeIt([&] {
           return vector_add::vector_add_f16_2048((kcc::f16 *)a, (kcc::f16 *)b, (kcc::f16 *)c, n, nullptr);
         }));
    emit("vector_add bf16", shape, 3.0 * n * 2, timeIt([&] {
           return vector_add::vector_add_bf16_2048((kcc::bf16 *)a, (kcc::bf16 *)b, (kcc::bf16 *)c, n, nullptr);
         }));
    emit("axpy f32", shape, 3.0 * n * 4, timeIt([&] {
           return axpy::axpy_f32_1024((float *)a, (float *)b, 0.5f, n, nullptr);
         }));
    emit("axpy f16", shape, 3.0 * n * 2, timeIt([&] {
           return axpy::axpy_f16_2048((kcc::f16 *)a, (kcc::f16 *)b, 0.5f, n, nullptr);
         }));
    cudaFree(a), cudaFree(b), cudaFree(c);
  }
  // 2-D copy and transpose of square matrices (dense rows): the peers are
  // torch's copy_ and x.t().contiguous().
  for (int m : {8192, 8191}) {
    size_t elems = size_t(m) * m;
    void *in = deviceAlloc(elems * 4), *out = deviceAlloc(elems * 4);
    // Rows padded to 16 bytes (the tensor contract) when m is odd.
    int s32 = (m + 3) / 4 * 4, s16 = (m + 7) / 8 * 8;
    std::string shape = std::to_string(m) + "x" + std::to_string(m);
    emit("copy2d f32", shape, 2.0 * elems * 4, timeIt([&] {
           return copy2d::copy2d_f32_32_128((float *)out, m, m, s32, (float *)in,
                                            m, m, s32, nullptr);
         }));
    emit("copy2d f16", shape, 2.0 * elems * 2, timeIt([&] {
           return copy2d::copy2d_f16_32_256((kcc::f16 *)out, m, m, s16,
                                            (kcc::f16 *)in, m, m, s16, nullptr);
         }));
    emit("transpose f32", shape, 2.0 * elems * 4, timeIt([&] {
           return transpose::transpose_f32_64_64((float *)out, m, m, s32,
                                                 (float *)in, m, m, s32, nullptr);
         }));
    emit("transpose f16", shape, 2.0 * elems * 2, timeIt([&] {
           return transpose::transpose_f16_64_64((kcc::f16 *)out, m, m, s16,
                                                 (kcc::f16 *)in, m, m, s16,
                                                 nullptr);
         }));
    // Dense odd rows (8191 elements, not a multiple of 16 bytes): outside
    // the tensor contract, so the launch runs the kernels' fallback builds.
    if (m % 2) {
      emit("copy2d_fallback f32", shape, 2.0 * elems * 4, timeIt([&] {
             return copy2d::copy2d_f32_32_128((float *)out, m, m, m,
                                              (float *)in, m, m, m, nullptr);
           }));
      emit("copy2d_fallback f16", shape, 2.0 * elems * 2, timeIt([&] {
             return copy2d::copy2d_f16_32_256((kcc::f16 *)out, m, m, m,
                                              (kcc::f16 *)in, m, m, m, nullptr);
           }));
      emit("transpose_fallback f32", shape, 2.0 * elems * 4, timeIt([&] {
             return transpose::transpose_f32_64_64(
                 (float *)out, m, m, m, (float *)in, m, m, m, nullptr);
           }));
    }
    cudaFree(in), cudaFree(out);
  }
  struct RowShape { int rows, cols; };
  for (RowShape s : {RowShape{16384, 1024}, RowShape{16384, 4096}, RowShape{4096, 16384}}) {
    size_t elems = size_t(s.rows) * s.cols;
    void *in = deviceAlloc(elems * 4), *out = deviceAlloc(elems * 4);
    void *w = deviceAlloc(size_t(s.cols) * 4), *b = deviceAlloc(size_t(s.cols) * 4);
    std::string shape = std::to_string(s.rows) + "x" + std::to_string(s.cols);
    int r = s.rows, c = s.cols;
    // Softmax and layernorm: every compiled BLOCK is timed and the fastest is
    // reported with its BLOCK (autotuning over the compiled specializations,
    // as Triton users do); a row wider than BLOCK is streamed.
    auto tuned = [&](const char *name, double bytes,
                     const std::function<kcc::Status(int64_t)> &launch) {
      double best = 1e30;
      int64_t bestBlock = 0;
      for (int64_t block : {1024, 4096, 16384}) {
        double ms = timeIt([&] { return launch(block); });
        // Every BLOCK's time, for people (run_membound.py reads stdout).
        std::fprintf(stderr, "%s %s BLOCK %lld: %.1f GB/s\n", name,
                     shape.c_str(), (long long)block, bytes / ms / 1e6);
        if (ms < best)
          best = ms, bestBlock = block;
      }
      emit(name, shape, bytes, best, bestBlock);
    };
    tuned("softmax f32", 2.0 * elems * 4, [&](int64_t block) {
      return softmax::softmax({kcc::DType::f32, block}, out, in, c, c, r, nullptr);
    });
    tuned("softmax f16", 2.0 * elems * 2, [&](int64_t block) {
      return softmax::softmax({kcc::DType::f16, block}, out, in, c, c, r, nullptr);
    });
    // Softmax on TMA tiles: 256-wide boxes through a 3-stage pipeline.
    emit("softmax_tma f32", shape, 2.0 * elems * 4, timeIt([&] {
           return softmax_tma::softmax_tma_f32((float *)out, r, c, c,
                                               (float *)in, r, c, c, nullptr);
         }));
    emit("softmax_tma f16", shape, 2.0 * elems * 2, timeIt([&] {
           return softmax_tma::softmax_tma_f16((kcc::f16 *)out, r, c, c,
                                               (kcc::f16 *)in, r, c, c, nullptr);
         }));
    tuned("layernorm f32", 2.0 * elems * 4 + 2.0 * c * 4, [&](int64_t block) {
      return layernorm::layernorm({kcc::DType::f32, block}, out, in, w, b, c, c, r,
                                  1e-5f, nullptr);
    });
    tuned("layernorm f16", 2.0 * elems * 2 + 2.0 * c * 2, [&](int64_t block) {
      return layernorm::layernorm({kcc::DType::f16, block}, out, in, w, b, c, c, r,
                                  1e-5f, nullptr);
    });
    // Layernorm on TMA tiles: three pipelined passes over each row.
    emit("layernorm_tma f32", shape, 2.0 * elems * 4 + 2.0 * c * 4, timeIt([&] {
           return layernorm_tma::layernorm_tma_f32(
               (float *)out, r, c, c, (float *)in, r, c, c, (float *)w, c,
               (float *)b, c, 1e-5f, nullptr);
         }));
    emit("layernorm_tma f16", shape, 2.0 * elems * 2 + 2.0 * c * 2, timeIt([&] {
           return layernorm_tma::layernorm_tma_f16(
               (kcc::f16 *)out, r, c, c, (kcc::f16 *)in, r, c, c,
               (kcc::f16 *)w, c, (kcc::f16 *)b, c, 1e-5f, nullptr);
         }));
    emit("row_sum f32", shape, 1.0 * elems * 4 + r * 4.0, timeIt([&] {
           return row_reduce::row_sum_f32_1024((float *)out, (float *)in, c, c, r, nullptr);
         }));
    emit("row_max f32", shape, 1.0 * elems * 4 + r * 4.0, timeIt([&] {
           return row_reduce::row_max_f32_4_256((float *)out, (float *)in, c, c, r, nullptr);
         }));
    cudaFree(in), cudaFree(out), cudaFree(w), cudaFree(b);
  }
  return 0;
}
