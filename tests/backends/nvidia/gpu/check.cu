// Numerical sanity check of kcc-convert-to-llvm output on a GPU (driver API).
// Usage: check <vadd.ptx> <bias_add.ptx> <red.ptx>
#include <cuda.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#define CK(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { const char *s; cuGetErrorString(e, &s); printf("%s: %s\n", #x, s); exit(1); } } while (0)
static std::string slurp(const char *p) { std::ifstream f(p); std::stringstream s; s << f.rdbuf(); return s.str(); }
static CUfunction load(const char *path, const char *name) {
  std::string ptx = slurp(path); CUmodule m; CK(cuModuleLoadData(&m, ptx.c_str()));
  CUfunction f; CK(cuModuleGetFunction(&f, m, name)); return f; }
static CUdeviceptr up(const std::vector<float> &v) { CUdeviceptr d; CK(cuMemAlloc(&d, v.size() * 4)); CK(cuMemcpyHtoD(d, v.data(), v.size() * 4)); return d; }
static std::vector<float> down(CUdeviceptr d, size_t n) { std::vector<float> v(n); CK(cuMemcpyDtoH(v.data(), d, n * 4)); return v; }
int fails = 0;
static void expect(bool ok, const char *what, int i, float got, float want) {
  if (!ok && fails++ < 10) printf("MISMATCH %s[%d]: got %g want %g\n", what, i, got, want); }
int main(int argc, char **argv) {
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate(&ctx, nullptr, 0, dev));
  { // vadd, n = 3000 (3 CTAs of 1024, last partially masked)
    int n = 3000; std::vector<float> x(3072), y(3072), o(3072, -7.f);
    for (int i = 0; i < 3072; ++i) { x[i] = i * 0.5f; y[i] = 1000 - i; }
    CUdeviceptr dx = up(x), dy = up(y), dout = up(o);
    void *args[] = {&dx, &dy, &dout, &n};
    CK(cuLaunchKernel(load(argv[1], "vadd"), 3, 1, 1, 128, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize());
    auto r = down(dout, 3072);
    for (int i = 0; i < 3072; ++i) { float w = i < n ? x[i] + y[i] : -7.f; expect(r[i] == w, "vadd", i, r[i], w); }
  }
  { // bias_add: m = 100 rows, 64 cols, 2 CTAs of 64 rows
    int m = 100, nc = 64; std::vector<float> x(128 * 64), b(64), o(128 * 64, -7.f);
    for (int i = 0; i < 128 * 64; ++i) x[i] = (i % 97) * 0.25f;
    for (int j = 0; j < 64; ++j) b[j] = j * 10.f;
    CUdeviceptr dx = up(x), db = up(b), dout = up(o);
    void *args[] = {&dx, &db, &dout, &m, &nc};
    CK(cuLaunchKernel(load(argv[2], "bias_add"), 2, 1, 1, 128, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize());
    auto r = down(dout, 128 * 64);
    for (int i = 0; i < 128; ++i) for (int j = 0; j < 64; ++j) {
      float w = i < m ? x[i * 64 + j] + b[j] + (i / 64) * 64 : -7.f; expect(r[i * 64 + j] == w, "bias_add", i * 64 + j, r[i * 64 + j], w); }
  }
  { // reductions
    std::vector<float> x(1024), o(66, 0.f);
    for (int i = 0; i < 1024; ++i) x[i] = ((i * 37) % 101) / 50.f - 1.f;
    CUdeviceptr dx = up(x), dout = up(o);
    void *args[] = {&dx, &dout};
    CK(cuLaunchKernel(load(argv[3], "red"), 1, 1, 1, 128, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize());
    auto r = down(dout, 66);
    double s = 0; float mx = -INFINITY; for (float v : x) { s += v; mx = fmaxf(mx, v); }
    expect(fabs(r[0] - 3 * s) < 1e-2, "sum*3", 0, r[0], 3 * s); expect(r[1] == mx, "max", 1, r[1], mx);
    for (int i = 0; i < 32; ++i) {
      double rs = 0; float cm = -INFINITY;
      for (int j = 0; j < 32; ++j) { rs += exp(x[i * 32 + j]); cm = fmaxf(cm, x[j * 32 + i]); }
      expect(fabs(r[2 + i] - rs) < 1e-3 * rs, "rowsum(exp)", i, r[2 + i], rs);
      expect(r[34 + i] == cm, "colmax", i, r[34 + i], cm);
    }
  }
  printf(fails ? "FAILED (%d mismatches)\n" : "ALL OK\n", fails);
  return fails != 0;
}
