// GPU tests of every bundled kernel through its generated launch stubs,
// against a CPU reference, at sizes that are and are not multiples of the
// block size; plus the runtime's error paths (broken alignment and
// divisibility facts, unknown specializations). Built on the GPU machine from
// kcc's outputs (see scripts/gpu-roundtrip.sh). `--quick` uses small sizes
// (for compute-sanitizer).
#include "Half.h"

#include "axpy.kcc.h"
#include "big_smem.kcc.h"
#include "blackwell_only.kcc.h"
#include "copy2d.kcc.h"
#include "layernorm.kcc.h"
#include "row_reduce.kcc.h"
#include "softmax.kcc.h"
#include "transpose.kcc.h"
#include "vector_add.kcc.h"
#include "while_loops.kcc.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

static int failures = 0, cases = 0;
static bool quick = false;

static void check(bool ok, const std::string &name, const std::string &detail) {
  ++cases;
  if (!ok)
    ++failures;
  std::printf("%s %-44s %s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.c_str());
}

#define CUDA_OK(x)                                                             \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("FAIL cuda: %s at %s:%d\n", cudaGetErrorString(e), __FILE__, \
                  __LINE__);                                                   \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

template <typename T> struct DeviceBuf {
  T *ptr = nullptr;
  size_t n = 0;
  explicit DeviceBuf(size_t count) : n(count) {
    CUDA_OK(cudaMalloc(&ptr, std::max<size_t>(1, n) * sizeof(T)));
  }
  DeviceBuf(const std::vector<T> &host) : DeviceBuf(host.size()) { upload(host); }
  ~DeviceBuf() { cudaFree(ptr); }
  void upload(const std::vector<T> &host) {
    CUDA_OK(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n);
    CUDA_OK(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

static std::mt19937 rng(1234);
template <typename T> std::vector<T> randomVec(size_t n, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(n);
  for (auto &x : v)
    x = Elem<T>::put(d(rng));
  return v;
}

/// Max error relative to max(1, |ref|), over float views.
template <typename T>
static double maxError(const std::vector<T> &got, const std::vector<float> &ref) {
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double g = Elem<T>::get(got[i]), r = ref[i];
    if (std::isnan(g) != std::isnan(r))
      return INFINITY;
    worst = std::max(worst, std::fabs(g - r) / std::max(1.0, std::fabs(r)));
  }
  return worst;
}

static std::string fmtErr(double e, double tol) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "max err %.2e (tol %.0e)", e, tol);
  return buf;
}

static bool launched(const kcc::Status &s, const std::string &name) {
  if (!s.ok())
    check(false, name, "launch failed: " + s.message);
  return s.ok();
}

//===--- copy2d / transpose (tensor parameters, load_tile/store_tile) ---===//

/// dst = src (copy) or src^T (transpose) for M x N src with padded row
/// strides; the padding of dst (a sentinel) must stay untouched, so a store
/// past the tensor's edge fails the test.
template <typename T, typename F>
static void testTile2D(const char *sym, bool transpose, F launch) {
  struct Shape {
    int m, n;
  };
  std::vector<Shape> shapes = {{1, 1}, {77, 301}, {64, 128}, {130, 77}, {3, 1000}};
  if (!quick)
    shapes.push_back({4099, 2051});
  int padElems = 16 / int(sizeof(T)); // strides stay multiples of 16 bytes
  // Then tensors outside the tensor contract: odd row strides (not
  // multiples of 16 bytes) and a base one element past a 16-byte boundary.
  // The launch runs the kernel's fallback build (no TMA) instead of
  // refusing them.
  for (bool contract : {true, false})
    for (Shape sh : shapes) {
      int dm = transpose ? sh.n : sh.m, dn = transpose ? sh.m : sh.n;
      int sStride =
          contract ? (sh.n + padElems) / padElems * padElems : sh.n | 1;
      int dStride =
          contract ? (dn + padElems) / padElems * padElems : (dn + 1) | 1;
      int offset = contract ? 0 : 1; // elements before the tensors' bases
      auto src = randomVec<T>(size_t(sh.m) * sStride + offset);
      std::vector<T> sentinel(size_t(dm) * dStride + offset,
                              Elem<T>::put(-7.0f));
      DeviceBuf<T> ds(src), dd(sentinel);
      std::string name = std::string(sym) + " " + std::to_string(sh.m) + "x" +
                         std::to_string(sh.n) +
                         (contract ? "" : " (odd strides, base + 1: fallback)");
      if (!launched(launch(dd.ptr + offset, dm, dn, dStride, ds.ptr + offset,
                           sh.m, sh.n, sStride),
                    name))
        continue;
      CUDA_OK(cudaDeviceSynchronize());
      std::vector<T> out = dd.download();
      size_t bad = 0;
      for (int i = 0; i < dm; ++i)
        for (int j = 0; j < dStride; ++j) {
          float want =
              j >= dn     ? -7.0f
              : transpose ? Elem<T>::get(src[offset + size_t(j) * sStride + i])
                          : Elem<T>::get(src[offset + size_t(i) * sStride + j]);
          if (Elem<T>::get(out[offset + size_t(i) * dStride + j]) != want)
            ++bad;
        }
      bad += Elem<T>::get(out[0]) != -7.0f && offset; // before the base
      check(bad == 0, name,
            bad ? std::to_string(bad) + " elements wrong" : "exact");
    }
  // A dst with more rows than the grid (sized by src) covers: the stub
  // refuses the launch (kcc's coverage guard), leaving dst untouched.
  {
    int m = 77, n = 301, dm = (transpose ? n : m) + 256, dn = transpose ? m : n;
    int sStride = (n + padElems) / padElems * padElems;
    int dStride = (dn + padElems) / padElems * padElems;
    std::vector<T> sentinel(size_t(dm) * dStride, Elem<T>::put(-7.0f));
    DeviceBuf<T> ds(randomVec<T>(size_t(m) * sStride)), dd(sentinel);
    kcc::Status s = launch(dd.ptr, dm, dn, dStride, ds.ptr, m, n, sStride);
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<T> out = dd.download();
    bool untouched = true;
    for (const T &x : out)
      untouched &= Elem<T>::get(x) == -7.0f;
    check(s.code == KCC_ERROR_INVALID_ARGUMENT &&
              s.message.find("unwritten") != std::string::npos && untouched,
          std::string(sym) + " refuses a dst its stores do not cover",
          s.message);
  }
}

//===--- vector_add / axpy ----------------------------------------------===//

template <typename T, typename F>
static void testVectorAdd(const char *sym, F launch) {
  for (int n : {1, 1000, 1024, 4097, quick ? 70001 : (1 << 22) + 3}) {
    auto a = randomVec<T>(n), b = randomVec<T>(n);
    DeviceBuf<T> da(a), db(b), dc(n);
    std::string name = std::string(sym) + " n=" + std::to_string(n);
    if (!launched(launch(da.ptr, db.ptr, dc.ptr, n), name))
      continue;
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> ref(n);
    for (int i = 0; i < n; ++i)
      ref[i] = Elem<T>::get(Elem<T>::put(Elem<T>::get(a[i]) + Elem<T>::get(b[i])));
    double e = maxError(dc.download(), ref);
    check(e <= Elem<T>::tol, name, fmtErr(e, Elem<T>::tol));
  }
}

template <typename T, typename F> static void testAxpy(const char *sym, F launch) {
  for (int n : {1, 999, 2048, 6001, quick ? 50003 : (1 << 21) + 5}) {
    auto x = randomVec<T>(n), y = randomVec<T>(n);
    DeviceBuf<T> dx(x), dy(y);
    float alpha = 0.75f;
    std::string name = std::string(sym) + " n=" + std::to_string(n);
    if (!launched(launch(dy.ptr, dx.ptr, alpha, n), name))
      continue;
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> ref(n);
    for (int i = 0; i < n; ++i)
      ref[i] = Elem<T>::get(Elem<T>::put(alpha * Elem<T>::get(x[i]) + Elem<T>::get(y[i])));
    double e = maxError(dy.download(), ref);
    check(e <= Elem<T>::tol, name, fmtErr(e, Elem<T>::tol));
  }
}

//===--- while loops ------------------------------------------------------===//

/// tests/e2e/gpu/Inputs/while_loops.kc: data-dependent trip counts, and a
/// ticket lock that thousands of programs contend for (each waits for the
/// programs that drew earlier tickets, all of them already running).
static void testWhileLoops() {
  int n = quick ? 257 : 20000;
  std::vector<int32_t> numbers(n);
  for (int i = 0; i < n; ++i)
    numbers[i] = 1 + i * 7919 % 100003;
  DeviceBuf<int32_t> inp(numbers), out(2 * size_t(n));
  if (launched(while_loops::collatz(out.ptr, inp.ptr, n), "collatz")) {
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<int32_t> got = out.download();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      int64_t x = numbers[i], peak = x, steps = 0;
      while (x != 1) {
        x = x % 2 == 0 ? x / 2 : 3 * x + 1;
        peak = std::max(peak, x);
        ++steps;
      }
      bad += got[2 * i] != steps || got[2 * i + 1] != peak;
    }
    check(bad == 0, "collatz n=" + std::to_string(n),
          std::to_string(bad) + " wrong");
  }
  for (int programs : {1, 64, quick ? 1000 : 50000}) {
    DeviceBuf<int32_t> next(std::vector<int32_t>{0}),
        serving(std::vector<int32_t>{0}), total(std::vector<int32_t>{0}),
        order(std::vector<int32_t>(programs, 0));
    std::string name = "ticket lock, " + std::to_string(programs) + " programs";
    if (!launched(while_loops::ticket(next.ptr, serving.ptr, total.ptr,
                                      order.ptr, programs),
                  name))
      continue;
    CUDA_OK(cudaDeviceSynchronize());
    // Every program added pid + 1 under the lock: a lost update shows.
    int64_t want = int64_t(programs) * (programs + 1) / 2;
    std::vector<int32_t> turns = order.download();
    bool everyTurn = std::all_of(turns.begin(), turns.end(),
                                 [](int32_t t) { return t == 1; });
    int32_t got = total.download()[0];
    check(got == int32_t(want) && everyTurn, name,
          "total " + std::to_string(got) + " (want " + std::to_string(want) +
              ")");
  }
}

//===--- row kernels ------------------------------------------------------===//

struct Shape {
  int rows, cols;
};
static std::vector<Shape> rowShapes() {
  if (quick)
    return {{1, 1}, {3, 100}, {5, 1030}, {2, 2500}};
  return {{1, 1}, {7, 1000}, {64, 1024}, {33, 3000}, {4, 5000}, {300, 2048},
          {5, 16384}, {3, 20000}};
}
static int strideFor(int cols) { return (cols + 7) / 8 * 8; } // multiple_of(8)

template <typename T, typename F> static void testSoftmax(const char *sym, F launch) {
  for (Shape s : rowShapes()) {
    int stride = strideFor(s.cols);
    auto in = randomVec<T>(size_t(s.rows) * stride, -8, 8);
    DeviceBuf<T> din(in), dout(in.size());
    std::string name = std::string(sym) + " " + std::to_string(s.rows) + "x" +
                       std::to_string(s.cols);
    if (!launched(launch(dout.ptr, din.ptr, stride, s.cols, s.rows), name))
      continue;
    CUDA_OK(cudaDeviceSynchronize());
    auto out = dout.download();
    std::vector<float> ref, got;
    for (int r = 0; r < s.rows; ++r) {
      double m = -INFINITY, sum = 0;
      for (int c = 0; c < s.cols; ++c)
        m = std::max(m, (double)Elem<T>::get(in[r * stride + c]));
      for (int c = 0; c < s.cols; ++c)
        sum += std::exp(Elem<T>::get(in[r * stride + c]) - m);
      for (int c = 0; c < s.cols; ++c) {
        ref.push_back(std::exp(Elem<T>::get(in[r * stride + c]) - m) / sum);
        got.push_back(Elem<T>::get(out[r * stride + c]));
      }
    }
    double tol = std::max(1e-5, Elem<T>::tol);
    double e = maxError(got, ref);
    check(e <= tol, name, fmtErr(e, tol));
  }
}

template <typename T, typename F>
static void testLayernorm(const char *sym, F launch) {
  for (Shape s : rowShapes()) {
    int stride = strideFor(s.cols);
    auto in = randomVec<T>(size_t(s.rows) * stride, -4, 4);
    auto w = randomVec<T>(s.cols), b = randomVec<T>(s.cols);
    DeviceBuf<T> din(in), dout(in.size()), dw(w), db(b);
    float eps = 1e-5f;
    std::string name = std::string(sym) + " " + std::to_string(s.rows) + "x" +
                       std::to_string(s.cols);
    if (!launched(launch(dout.ptr, din.ptr, dw.ptr, db.ptr, stride, s.cols, s.rows, eps),
                  name))
      continue;
    CUDA_OK(cudaDeviceSynchronize());
    auto out = dout.download();
    std::vector<float> ref, got;
    for (int r = 0; r < s.rows; ++r) {
      double mean = 0, var = 0;
      for (int c = 0; c < s.cols; ++c)
        mean += Elem<T>::get(in[r * stride + c]);
      mean /= s.cols;
      for (int c = 0; c < s.cols; ++c) {
        double d = Elem<T>::get(in[r * stride + c]) - mean;
        var += d * d;
      }
      double rstd = 1.0 / std::sqrt(var / s.cols + eps);
      for (int c = 0; c < s.cols; ++c) {
        double y = (Elem<T>::get(in[r * stride + c]) - mean) * rstd * Elem<T>::get(w[c]) +
                   Elem<T>::get(b[c]);
        ref.push_back(y);
        got.push_back(Elem<T>::get(out[r * stride + c]));
      }
    }
    double tol = std::max(1e-4, 2 * Elem<T>::tol);
    double e = maxError(got, ref);
    check(e <= tol, name, fmtErr(e, tol));
  }
}

template <typename T, typename F> static void testRowSum(const char *sym, F launch) {
  for (Shape s : rowShapes()) {
    int stride = strideFor(s.cols);
    auto in = randomVec<T>(size_t(s.rows) * stride);
    DeviceBuf<T> din(in);
    DeviceBuf<float> dout(s.rows);
    std::string name = std::string(sym) + " " + std::to_string(s.rows) + "x" +
                       std::to_string(s.cols);
    if (!launched(launch(dout.ptr, din.ptr, stride, s.cols, s.rows), name))
      continue;
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> ref(s.rows);
    for (int r = 0; r < s.rows; ++r) {
      double acc = 0;
      for (int c = 0; c < s.cols; ++c)
        acc += Elem<T>::get(in[r * stride + c]);
      ref[r] = acc;
    }
    double e = maxError(dout.download(), ref);
    check(e <= 1e-4, name, fmtErr(e, 1e-4));
  }
}

template <typename T, typename F> static void testRowMax(const char *sym, F launch) {
  for (Shape s : rowShapes()) {
    int stride = strideFor(s.cols);
    auto in = randomVec<T>(size_t(s.rows) * stride);
    DeviceBuf<T> din(in), dout(s.rows);
    std::string name = std::string(sym) + " " + std::to_string(s.rows) + "x" +
                       std::to_string(s.cols);
    if (!launched(launch(dout.ptr, din.ptr, stride, s.cols, s.rows), name))
      continue;
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> ref(s.rows, -INFINITY);
    for (int r = 0; r < s.rows; ++r)
      for (int c = 0; c < s.cols; ++c)
        ref[r] = std::max(ref[r], Elem<T>::get(in[r * stride + c]));
    double e = maxError(dout.download(), ref);
    check(e == 0, name, fmtErr(e, 0));
  }
}

//===--- runtime error paths ---------------------------------------------===//

static void testErrorPaths() {
  DeviceBuf<float> a(4096), b(4096), c(4096);
  // A pointer that breaks align(16): the launch is refused, nothing runs.
  kcc::Status s = vector_add::vector_add_f32_1024(a.ptr + 1, b.ptr, c.ptr, 100);
  check(s.code == KCC_ERROR_MISALIGNED &&
            s.message.find("vector_add_f32_1024") != std::string::npos &&
            s.message.find("'a'") != std::string::npos,
        "error: misaligned pointer", s.message);
  // Natural alignment of the element type is required as well.
  DeviceBuf<kcc::f16> h(4096);
  s = softmax::softmax_f16_1024(reinterpret_cast<kcc::f16 *>(
                                    reinterpret_cast<char *>(h.ptr) + 1),
                                h.ptr, 8, 8, 1);
  check(s.code == KCC_ERROR_MISALIGNED, "error: f16 pointer at odd address", s.message);
  // A size that breaks multiple_of(8).
  s = softmax::softmax_f32_1024(a.ptr, b.ptr, 1001, 1000, 2);
  check(s.code == KCC_ERROR_NOT_DIVISIBLE &&
            s.message.find("stride") != std::string::npos,
        "error: stride not a multiple of 8", s.message);
  // The C entry point reports the same through kcc_last_error_message().
  kcc_status_code code = kcc_vector_add_f32_1024(a.ptr + 1, b.ptr, c.ptr, 100, nullptr);
  check(code == KCC_ERROR_MISALIGNED &&
            std::strstr(kcc_last_error_message(), "vector_add_f32_1024"),
        "error: C entry point", kcc_last_error_message());
  // The dispatcher refuses a specialization that was not compiled.
  s = vector_add::vector_add({kcc::DType::f64, 1024}, a.ptr, b.ptr, c.ptr, 100);
  check(s.code == KCC_ERROR_INVALID_ARGUMENT, "error: unknown specialization", s.message);
  // ... and runs one that was.
  s = vector_add::vector_add({kcc::DType::f32, 1024}, a.ptr, b.ptr, c.ptr, 4096);
  check(s.ok(), "dispatcher: T = f32, BLOCK = 1024", s.message);
  // A fatbin without an image this GPU can run (sm_100a cubin + PTX only).
  // Not under compute-sanitizer (--quick): it reports the intended
  // CUDA_ERROR_NO_BINARY_FOR_GPU as an API error, and memcheck stays strict.
  if (!quick) {
    s = blackwell_only::blackwell_only(a.ptr, 4096);
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major * 10 + prop.minor < 100)
      check(s.code == KCC_ERROR_NO_IMAGE &&
                s.message.find("sm_100a (+PTX sm_100a)") != std::string::npos,
            "error: no image for this GPU", s.message);
    else
      check(s.ok(), "blackwell_only runs on this GPU", s.message);
  }
  // n = 0: an empty grid launches nothing and succeeds.
  s = vector_add::vector_add_f32_1024(a.ptr, b.ptr, c.ptr, 0);
  check(s.ok(), "empty grid (n = 0)", s.message);
  CUDA_OK(cudaDeviceSynchronize());
}

int main(int argc, char **argv) {
  quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  CUDA_OK(cudaFree(nullptr)); // make the primary context current
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (sm_%d%d)%s\n", prop.name, prop.major, prop.minor,
              quick ? " [quick]" : "");

  auto wrap = [](auto fn) {
    return [fn](auto... args) { return fn(args..., nullptr); };
  };
  testVectorAdd<float>("vector_add_f32_1024", wrap(vector_add::vector_add_f32_1024));
  testVectorAdd<kcc::f16>("vector_add_f16_2048", wrap(vector_add::vector_add_f16_2048));
  testVectorAdd<kcc::bf16>("vector_add_bf16_2048", wrap(vector_add::vector_add_bf16_2048));
  testTile2D<float>("copy2d_f32_32_128", false, wrap(copy2d::copy2d_f32_32_128));
  testTile2D<kcc::f16>("copy2d_f16_32_256", false, wrap(copy2d::copy2d_f16_32_256));
  testTile2D<float>("transpose_f32_64_64", true, wrap(transpose::transpose_f32_64_64));
  testTile2D<kcc::f16>("transpose_f16_64_64", true, wrap(transpose::transpose_f16_64_64));
  // Over 48 KiB of dynamic shared memory (tests/e2e/gpu/Inputs/big_smem.kc).
  testTile2D<float>("big_transpose_f32_128_128", true,
                    wrap(big_smem::big_transpose_f32_128_128));
  testTile2D<kcc::f16>("big_transpose_f16_128_128", true,
                       wrap(big_smem::big_transpose_f16_128_128));
  testAxpy<float>("axpy_f32_1024", wrap(axpy::axpy_f32_1024));
  testAxpy<kcc::f16>("axpy_f16_2048", wrap(axpy::axpy_f16_2048));
  // Every specialization, through the dispatcher: rows that fit in BLOCK (read
  // once) and rows that do not (streamed) both occur in rowShapes().
  for (int block : {1024, 4096, 16384}) {
    auto viaSpec = [block](kcc::DType t, auto fn) {
      return [=](auto... args) { return fn({t, block}, args..., nullptr); };
    };
    std::string b = std::to_string(block);
    testSoftmax<float>(("softmax_f32_" + b).c_str(),
                       viaSpec(kcc::DType::f32, softmax::softmax));
    testSoftmax<kcc::f16>(("softmax_f16_" + b).c_str(),
                          viaSpec(kcc::DType::f16, softmax::softmax));
    testLayernorm<float>(("layernorm_f32_" + b).c_str(),
                         viaSpec(kcc::DType::f32, layernorm::layernorm));
    testLayernorm<kcc::f16>(("layernorm_f16_" + b).c_str(),
                            viaSpec(kcc::DType::f16, layernorm::layernorm));
  }
  testLayernorm<kcc::bf16>("layernorm_bf16_1024", wrap(layernorm::layernorm_bf16_1024));
  testRowSum<float>("row_sum_f32_1024", wrap(row_reduce::row_sum_f32_1024));
  testRowSum<kcc::f16>("row_sum_f16_2048", wrap(row_reduce::row_sum_f16_2048));
  testRowMax<float>("row_max_f32_4_256", wrap(row_reduce::row_max_f32_4_256));
  testRowMax<kcc::f16>("row_max_f16_8_256", wrap(row_reduce::row_max_f16_8_256));
  testWhileLoops();
  testErrorPaths();

  std::printf("%d of %d GPU test cases passed\n", cases - failures, cases);
  return failures == 0 ? 0 : 1;
}
