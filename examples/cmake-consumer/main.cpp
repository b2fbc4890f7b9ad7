// Runs two kcc kernels through their generated launch stubs and checks them
// against the CPU. Exit status: 0 pass, 1 wrong results or an error, 77 no
// CUDA device (nothing was run).
#include "row_normalize.kcc.h"
#include "saxpy.kcc.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

int failures = 0;

bool cudaOk(cudaError_t err, const char *what) {
  if (err == cudaSuccess)
    return true;
  std::fprintf(stderr, "consumer: %s: %s\n", what, cudaGetErrorString(err));
  ++failures;
  return false;
}

bool kccOk(const kcc::Status &status) {
  if (status)
    return true;
  std::fprintf(stderr, "consumer: %s\n", status.message.c_str());
  ++failures;
  return false;
}

void expectNear(const char *what, const std::vector<float> &got,
                const std::vector<float> &want, float tol) {
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])))) {
      std::fprintf(stderr, "consumer: %s[%zu] = %g, expected %g\n", what, i,
                   got[i], want[i]);
      ++failures;
      return;
    }
  std::printf("%s: %zu values match the CPU\n", what, got.size());
}

void testSaxpy(int n) {
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * (i % 97) - 3;
    y[i] = 1.0f / (1 + i % 13);
    want[i] = 2.5f * x[i] + y[i];
  }
  float *dx = nullptr, *dy = nullptr;
  size_t bytes = n * sizeof(float);
  if (cudaOk(cudaMalloc(&dx, bytes), "cudaMalloc") &&
      cudaOk(cudaMalloc(&dy, bytes), "cudaMalloc") &&
      cudaOk(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice), "copy") &&
      cudaOk(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice), "copy") &&
      kccOk(saxpy::saxpy(dy, dx, 2.5f, n)) &&
      cudaOk(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost), "copy"))
    expectNear("saxpy", y, want, 1e-6f);
  cudaFree(dx);
  cudaFree(dy);
}

void testRowNormalize(int nrows, int ncols, int stride) {
  std::vector<float> in(size_t(nrows) * stride), out(in.size(), 0),
      want(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = std::sin(0.37f * float(i)) + 0.5f;
  for (int r = 0; r < nrows; ++r) {
    double ss = 0;
    for (int c = 0; c < ncols; ++c)
      ss += double(in[r * stride + c]) * in[r * stride + c];
    for (int c = 0; c < ncols; ++c)
      want[r * stride + c] = float(in[r * stride + c] / std::sqrt(ss + 1e-12));
  }
  float *din = nullptr, *dout = nullptr;
  size_t bytes = in.size() * sizeof(float);
  if (cudaOk(cudaMalloc(&din, bytes), "cudaMalloc") &&
      cudaOk(cudaMalloc(&dout, bytes), "cudaMalloc") &&
      cudaOk(cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice),
             "copy") &&
      cudaOk(cudaMemset(dout, 0, bytes), "memset") &&
      kccOk(row_normalize::row_normalize(dout, din, stride, ncols, nrows)) &&
      cudaOk(cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost),
             "copy"))
    expectNear("row_normalize", out, want, 1e-5f);
  cudaFree(din);
  cudaFree(dout);
}

} // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer: no CUDA device; built and linked, nothing run\n");
    return 77;
  }
  testSaxpy(1 << 20);
  testSaxpy(1000003); // not a multiple of the block
  testRowNormalize(333, 1000, 1024);
  testRowNormalize(7, 17, 20);
  // A fact the kernel was compiled with is checked at launch, not assumed.
  kcc::Status misaligned =
      row_normalize::row_normalize(nullptr, nullptr, 6, 4, 1);
  if (misaligned) {
    std::fprintf(stderr, "consumer: stride 6 broke multiple_of(4) silently\n");
    ++failures;
  } else {
    std::printf("stride 6 refused: %s\n", misaligned.message.c_str());
  }
  if (!cudaOk(cudaDeviceSynchronize(), "synchronize"))
    return 1;
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
