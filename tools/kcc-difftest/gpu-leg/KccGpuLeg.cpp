//===- KccGpuLeg.cpp - the GPU leg of kcc-difftest ------------------------===//
//
//   kcc-gpu-leg DIR       (DIR as written by kcc-difftest --emit-cases)
//   kcc-gpu-leg-hip DIR   (the same for AMD GPUs: --fatbin FILE.hipfb)
//
// For every DIR/*/runlist.txt (or DIR/runlist.txt): loads the fatbin (or
// HIP offload bundle) named there, and per case allocates the buffers,
// copies the inputs (.npy), launches the symbol through kcc's runtime
// (kcc::rt::launch / kcc::rt::hip::launch, the launch path of the generated
// stubs; NVIDIA kernels also get the tensor maps of tensormaps.txt), and
// writes each output buffer as gpu.<name>.npy (amdgpu.<name>.npy) in the
// case directory; a failure goes to gpu.error, a case that cannot run here
// to gpu.skip (amdgpu.*). Built on the GPU machine with CMake
// (CMakeLists.txt here); needs only the CUDA driver API or HIP, kcc's
// runtime and the plain C++ parts of kcc-difftest (run list, .npy). The
// HIP leg exits 0 with a message where HIP finds no AMD GPU.
//
//===----------------------------------------------------------------------===//
#include "interp/Npy.h"
#include "tools/kcc-difftest/RunList.h"

#include "kcc/runtime.h"

#ifdef KCC_GPU_LEG_HIP
#include "kcc/runtime_hip.h"
#include <hip/hip_runtime_api.h>
#else
#include <cuda.h>
#endif

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace kcc::difftest;
using namespace kcc::interp;

namespace {
/// A TMA tensor map the kernel takes after its user arguments (from
/// tensormaps.txt, written by scripts/manifest-tensormaps.py from the
/// manifest): encoded from the tensor argument at `base` as the stubs do.
struct MapSpec {
  unsigned base = 0;
  kcc::DType elem = kcc::DType::f32;
  unsigned swizzle = 0;
  std::vector<int32_t> box;
};
using MapTable = std::map<std::string, std::vector<MapSpec>>;
/// symbol -> (sm -> dynamic shared-memory bytes), from tensormaps.txt.
using SmemTable = std::map<std::string, std::map<unsigned, unsigned>>;
SmemTable smemBytes;

bool parseDType(const std::string &name, kcc::DType &out) {
  for (kcc::DType t :
       {kcc::DType::i1, kcc::DType::i8, kcc::DType::i16, kcc::DType::i32,
        kcc::DType::i64, kcc::DType::f16, kcc::DType::bf16, kcc::DType::f32,
        kcc::DType::f64, kcc::DType::f8e4m3, kcc::DType::f8e5m2,
        kcc::DType::f8e4m3fnuz, kcc::DType::f8e5m2fnuz})
    if (name == kcc::dtypeName(t)) {
      out = t;
      return true;
    }
  return false;
}

bool readMaps(const fs::path &path, MapTable &maps, std::string &error) {
  std::ifstream in(path);
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    std::istringstream ss(line);
    std::string key, symbol, dtype;
    MapSpec m;
    ss >> key >> symbol;
    if (key == "smem") {
      unsigned sm = 0, bytes = 0;
      if (!(ss >> sm >> bytes)) {
        error = path.string() + ":" + std::to_string(n) + ": bad smem line";
        return false;
      }
      smemBytes[symbol][sm] = bytes;
      continue;
    }
    ss >> m.base >> dtype >> m.swizzle;
    for (int32_t b; ss >> b;)
      m.box.push_back(b);
    if (key != "map" || !parseDType(dtype, m.elem) || m.box.empty()) {
      error = path.string() + ":" + std::to_string(n) + ": bad map line";
      return false;
    }
    maps[symbol].push_back(std::move(m));
  }
  return true;
}

// The device API of the leg: the CUDA driver, or HIP (-DKCC_GPU_LEG_HIP,
// an AMD GPU: the .hipfb's code objects through kcc's HIP runtime).
#ifdef KCC_GPU_LEG_HIP
using DevPtr = void *;
using DevResult = hipError_t;
std::string cuError(hipError_t r) { return hipGetErrorName(r); }
DevResult devAlloc(DevPtr *p, size_t n) { return hipMalloc(p, n); }
DevResult devFree(DevPtr p) { return hipFree(p); }
DevResult devToDevice(DevPtr d, const void *h, size_t n) {
  return hipMemcpy(d, h, n, hipMemcpyHostToDevice);
}
DevResult devToHost(void *h, DevPtr d, size_t n) {
  return hipMemcpy(h, d, n, hipMemcpyDeviceToHost);
}
DevResult devSync() { return hipDeviceSynchronize(); }
constexpr DevResult kOk = hipSuccess;
const std::string kLeg = "amdgpu"; // the leg's file prefix
#else
using DevPtr = CUdeviceptr;
using DevResult = CUresult;
std::string cuError(CUresult r) {
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  return name ? name : "CUDA error " + std::to_string(int(r));
}
DevResult devAlloc(DevPtr *p, size_t n) { return cuMemAlloc(p, n); }
DevResult devFree(DevPtr p) { return cuMemFree(p); }
DevResult devToDevice(DevPtr d, const void *h, size_t n) {
  return cuMemcpyHtoD(d, h, n);
}
DevResult devToHost(void *h, DevPtr d, size_t n) {
  return cuMemcpyDtoH(h, d, n);
}
DevResult devSync() { return cuCtxSynchronize(); }
constexpr DevResult kOk = CUDA_SUCCESS;
const std::string kLeg = "gpu"; // the leg's file prefix
#endif

void writeText(const fs::path &path, const std::string &text) {
  std::ofstream(path) << text << "\n";
}

/// Runs one case; returns "" or the reason it failed.
std::string runCase(const RunCase &c, const fs::path &caseDir,
                    const kcc::rt::FatbinDesc &fatbin,
                    const std::vector<MapSpec> &maps) {
  std::vector<DevPtr> ptrs(c.buffers.size(), DevPtr());
  std::vector<NpyArray> arrays(c.buffers.size());
  struct Free {
    std::vector<DevPtr> &p;
    ~Free() {
      for (DevPtr d : p)
        if (d)
          (void)devFree(d);
    }
  } freeAll{ptrs};
  std::string error;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    if (!readNpyFile((caseDir / c.buffers[i].file).string(), arrays[i], error))
      return error;
    size_t bytes = std::max<size_t>(arrays[i].data.size(), 1);
    if (DevResult r = devAlloc(&ptrs[i], bytes); r != kOk)
      return "device allocation: " + cuError(r);
    if (DevResult r =
            devToDevice(ptrs[i], arrays[i].data.data(), arrays[i].data.size());
        r != kOk)
      return "copy to the device: " + cuError(r);
  }
  // One 8-byte slot per argument: pointers, or the scalar's bits (the
  // little-endian low bytes are the value of a narrower type).
  std::vector<uint64_t> slots(c.args.size());
  std::vector<void *> args(c.args.size());
  for (size_t i = 0; i < c.args.size(); ++i) {
    const RunArg &a = c.args[i];
    if (a.isPointer) {
      size_t b = 0;
      while (b < c.buffers.size() && c.buffers[b].name != a.buffer)
        ++b;
      if (b == c.buffers.size())
        return "run list: no buffer '" + a.buffer + "'";
      slots[i] = uint64_t(uintptr_t(ptrs[b]));
    } else {
      slots[i] = a.bits;
    }
    args[i] = &slots[i];
  }
#ifdef KCC_GPU_LEG_HIP
  (void)maps; // AMD images take no tensor maps
  std::vector<kcc::rt::ThreadsForArch> threads;
  for (const auto &[target, n] : c.amdThreads)
    threads.push_back({0, n, target.c_str()});
  kcc::rt::KernelDesc desc{&fatbin, c.symbol.c_str(), threads.data(),
                           unsigned(threads.size())};
  kcc::Status s = kcc::rt::hip::launch(desc, c.grid, args.data(), nullptr);
#else
  std::vector<kcc::rt::ThreadsForArch> threads;
  for (auto [sm, n] : c.threads)
    threads.push_back({sm, n, nullptr, smemBytes[c.symbol][sm]});
  kcc::rt::KernelDesc desc{&fatbin, c.symbol.c_str(), threads.data(),
                           unsigned(threads.size())};
  // Tensor maps after the user arguments, as the generated stubs pass them.
  std::vector<kcc::rt::TensorMap> encoded(maps.size());
  for (size_t m = 0; m < maps.size(); ++m) {
    const MapSpec &spec = maps[m];
    unsigned rank = spec.box.size();
    if (spec.base + 2 * rank > c.args.size())
      return "tensormaps.txt: tensor argument out of range";
    int64_t dims[8] = {}, strides[8] = {};
    for (unsigned d = 0; d < rank; ++d)
      dims[d] = int32_t(slots[spec.base + 1 + d]);
    for (unsigned d = 0; d + 1 < rank; ++d)
      strides[d] = int32_t(slots[spec.base + 1 + rank + d]);
    kcc::Status s = kcc::rt::encodeTensorMap(
        desc, "tensor", &encoded[m], spec.elem,
        reinterpret_cast<const void *>(slots[spec.base]), rank, dims,
        rank > 1 ? strides : nullptr, spec.box.data(), spec.swizzle);
    if (!s)
      return s.message;
    if (!s.message.empty()) { // an empty tensor
      kcc::Status e = kcc::rt::emptyTensorLaunch(desc, c.grid, s);
      if (!e)
        return e.message;
      return "";
    }
    args.push_back(&encoded[m]);
  }
  kcc::Status s = kcc::rt::launch(desc, c.grid, args.data(), nullptr);
#endif
  if (!s)
    return s.message;
  if (DevResult r = devSync(); r != kOk)
    return "synchronize: " + cuError(r);
  for (const RunOutput &o : c.outputs) {
    size_t b = 0;
    while (b < c.buffers.size() && c.buffers[b].name != o.buffer)
      ++b;
    if (b == c.buffers.size())
      return "run list: no buffer '" + o.buffer + "'";
    NpyArray out = arrays[b];
    if (DevResult r = devToHost(out.data.data(), ptrs[b], out.data.size());
        r != kOk)
      return "copy from the device: " + cuError(r);
    if (!writeNpyFile(
            (caseDir / outputFileName(kLeg, o.buffer, out.dtype)).string(),
            out, error))
      return error;
  }
  return "";
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s DIR (written by kcc-difftest "
                 "--emit-cases)\n",
                 argv[0]);
    return 2;
  }
  fs::path dir = argv[1];
  std::vector<fs::path> lists;
  if (fs::exists(dir / "runlist.txt"))
    lists.push_back(dir / "runlist.txt");
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec))
    if (fs::exists(e.path() / "runlist.txt"))
      lists.push_back(e.path() / "runlist.txt");
  if (lists.empty()) {
    std::fprintf(stderr, "kcc-gpu-leg: no runlist.txt under %s\n", argv[1]);
    return 2;
  }
#ifdef KCC_GPU_LEG_HIP
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
    // No AMD GPU: the leg cannot run here, which is not a failure of kcc.
    std::printf("kcc-gpu-leg (HIP): no AMD GPU found; nothing run\n");
    return 0;
  }
#else
  if (CUresult r = cuInit(0)) {
    std::fprintf(stderr, "kcc-gpu-leg: cuInit: %s\n", cuError(r).c_str());
    return 1;
  }
  CUdevice dev;
  CUcontext ctx;
  if (cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx)) {
    std::fprintf(stderr, "kcc-gpu-leg: cannot make a context on device 0\n");
    return 1;
  }
#endif
  int failures = 0, runs = 0;
  struct Loaded {
    std::vector<uint64_t> image; // 8-byte aligned fatbin bytes
    std::string source;
    kcc::rt::FatbinDesc desc{};
  };
  std::vector<std::unique_ptr<Loaded>> fatbins;
  for (const fs::path &listPath : lists) {
    std::ifstream in(listPath);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    RunList list;
    std::string error;
    if (!parseRunList(text, list, error)) {
      std::fprintf(stderr, "%s: %s\n", listPath.c_str(), error.c_str());
      return 1;
    }
    fs::path base = listPath.parent_path();
    // The runtime caches modules per FatbinDesc address (as the stubs' static
    // descriptors have one each): every fatbin's image and descriptor live
    // until the end, so no two fatbins ever share an address.
    Loaded &loaded = *fatbins.emplace_back(std::make_unique<Loaded>());
    std::vector<uint64_t> &image = loaded.image;
    loaded.source = list.fatbin;
    if (!list.fatbin.empty()) {
      std::ifstream f(base / list.fatbin, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(f)),
                        std::istreambuf_iterator<char>());
      image.resize((bytes.size() + 7) / 8);
      std::memcpy(image.data(), bytes.data(), bytes.size());
    }
    loaded.desc = {loaded.source.c_str(), image.data(), image.size() * 8,
                   "see the manifest"};
    const kcc::rt::FatbinDesc &fatbin = loaded.desc;
    MapTable maps;
    if (fs::exists(base / "tensormaps.txt") &&
        !readMaps(base / "tensormaps.txt", maps, error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    for (const RunCase &c : list.cases) {
      fs::path caseDir = base / c.id;
      fs::remove(caseDir / (kLeg + ".error"));
      fs::remove(caseDir / (kLeg + ".skip"));
      if (!c.interpPassed) {
        writeText(caseDir / (kLeg + ".skip"), "no reference");
        continue;
      }
#ifdef KCC_GPU_LEG_HIP
      bool inImage = !c.amdThreads.empty();
#else
      bool inImage = !c.threads.empty();
#endif
      if (image.empty() || !inImage) {
        writeText(caseDir / (kLeg + ".skip"),
                  "not in the image (--fatbin FILE.fatbin or FILE.hipfb)");
        continue;
      }
      ++runs;
      std::string err = runCase(c, caseDir, fatbin, maps[c.symbol]);
      std::printf("%-60s %s\n", c.id.c_str(), err.empty() ? "ran" : "FAILED");
      if (!err.empty()) {
        ++failures;
        writeText(caseDir / (kLeg + ".error"), err);
        std::fprintf(stderr, "  %s\n", err.c_str());
        // A fault poisons the context; later cases would all fail.
        if (devSync() != kOk) {
          std::fprintf(stderr, "kcc-gpu-leg: the context is lost; stopping\n");
          return 1;
        }
      }
    }
  }
  std::printf("%d cases run on the GPU, %d failed to run\n", runs, failures);
  return failures ? 1 : 0;
}
