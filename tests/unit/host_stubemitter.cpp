// Unit tests for the host launch-stub emitter (backends/host/StubEmitter.h):
// the text of the generated header and source, rejected names, and the
// generated files compiled (C++ and C) and run against a mock runtime.
#include "backends/host/Manifest.h"
#include "backends/host/StubEmitter.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace kcc::host;

namespace {

ParamInfo ptr(const char *name, ScalarKind elem, unsigned align = 0) {
  ParamInfo p;
  p.name = name;
  p.isPointer = true;
  p.elem = elem;
  p.align = align;
  return p;
}

ParamInfo scalar(const char *name, ScalarKind kind, int64_t divisibility = 0) {
  ParamInfo p;
  p.name = name;
  p.elem = kind;
  p.divisibility = divisibility;
  return p;
}

ConstantValue dtypeConst(const char *name, ScalarKind kind) {
  ConstantValue c;
  c.name = name;
  c.isDType = true;
  c.dtype = kind;
  c.text = scalarKindName(kind);
  return c;
}

ConstantValue intConst(const char *name, int64_t value) {
  ConstantValue c;
  c.name = name;
  c.intValue = value;
  c.text = value < 0 ? "m" + std::to_string(-value) : std::to_string(value);
  return c;
}

ConstantValue boolConst(const char *name, bool value) {
  ConstantValue c;
  c.name = name;
  c.intValue = value;
  c.text = value ? "true" : "false";
  return c;
}

std::vector<TargetBuild> builds(unsigned threads) {
  TargetBuild a;
  a.target = "sm_80";
  a.sm = 80;
  a.threads = threads;
  a.registers = 16;
  TargetBuild b = a;
  b.target = "sm_90a";
  b.sm = 90;
  return {a, b};
}

Specialization vectorAddSpec(ScalarKind t, int64_t block) {
  Specialization s;
  s.symbol = std::string("vector_add_") + scalarKindName(t) + "_" +
             std::to_string(block);
  s.constants = {dtypeConst("T", t), intConst("BLOCK", block)};
  s.params = {ptr("a", t, 16), ptr("b", t, 16), ptr("c", t, 16),
              scalar("n", ScalarKind::I32)};
  std::string b = std::to_string(block);
  s.grid = {"(((n) + (" + b + ") - 1) / (" + b + "))", "1", "1"};
  s.builds = builds(128);
  return s;
}

ModuleInfo vectorAddModule() {
  ModuleInfo m;
  m.stem = "vector_add";
  m.sourcePath = "/some/where/kernels/vector_add.kc";
  m.targets = {"sm_80", "sm_90a"};
  m.fatbinContents = "sm_80, sm_90a (+PTX sm_90a)";
  KernelInfo k;
  k.name = "vector_add";
  k.specializations = {vectorAddSpec(ScalarKind::F32, 1024),
                       vectorAddSpec(ScalarKind::F16, 2048)};
  m.kernels.push_back(k);
  return m;
}

/// vector_add + softmax (multiple_of, one specialization with constants),
/// scale (f16 and bool scalars, bool constant, symbol == kernel name), fill
/// (a scalar of a dtype constant's type: no dispatcher), copy (no constants)
/// and noop (no parameters).
ModuleInfo bigModule() {
  ModuleInfo m = vectorAddModule();
  m.stem = "my-kernels";
  m.sourcePath = "my-kernels.kc";

  KernelInfo softmax;
  softmax.name = "softmax";
  Specialization s;
  s.symbol = "softmax";
  s.constants = {intConst("BLOCK", 1024), dtypeConst("T", ScalarKind::F32)};
  s.params = {ptr("out", ScalarKind::F32, 16), ptr("inp", ScalarKind::F32, 16),
              scalar("stride", ScalarKind::I32, 16),
              scalar("ncols", ScalarKind::I32),
              scalar("nrows", ScalarKind::I32)};
  s.grid = {"nrows", "1", "1"};
  s.builds = builds(256);
  // Dynamic shared memory, over 48 KiB on sm_90a.
  s.builds[0].dynamicSharedBytes = 4096;
  s.builds[1].dynamicSharedBytes = 200704;
  softmax.specializations = {s};
  m.kernels.push_back(softmax);

  KernelInfo scale;
  scale.name = "scale";
  s = Specialization();
  s.symbol = "scale";
  s.constants = {boolConst("USE_BIAS", true), intConst("SHIFT", -4)};
  s.params = {ptr("x", ScalarKind::F16), scalar("alpha", ScalarKind::F16),
              scalar("flag", ScalarKind::I1),
              scalar("n", ScalarKind::I64, 8)};
  s.grid = {"((n) < (65536) ? (n) : (65536))", "", "1"};
  s.builds = builds(64);
  scale.specializations = {s};
  m.kernels.push_back(scale);

  KernelInfo fill;
  fill.name = "fill";
  for (ScalarKind t : {ScalarKind::F32, ScalarKind::BF16}) {
    s = Specialization();
    s.symbol = std::string("fill_") + scalarKindName(t);
    s.constants = {dtypeConst("T", t)};
    s.params = {ptr("dst", t), scalar("value", t), scalar("n", ScalarKind::I32)};
    s.grid = {"n", "1", "1"};
    s.builds = builds(128);
    fill.specializations.push_back(s);
  }
  m.kernels.push_back(fill);

  KernelInfo copy;
  copy.name = "copy";
  s = Specialization();
  s.symbol = "copy";
  s.params = {ptr("dst", ScalarKind::I8), ptr("src", ScalarKind::I8),
              scalar("rows", ScalarKind::I64), scalar("cols", ScalarKind::I16)};
  s.grid = {"(((cols) + (128) - 1) / (128))", "rows", "1"};
  s.builds = builds(128);
  copy.specializations = {s};
  m.kernels.push_back(copy);

  KernelInfo noop;
  noop.name = "noop";
  s = Specialization();
  s.symbol = "noop";
  s.grid = {"1", "1", "1"};
  s.builds = builds(32);
  noop.specializations = {s};
  m.kernels.push_back(noop);
  return m;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string emitError(const ModuleInfo &m) {
  StubFiles files;
  std::string error;
  bool ok = emitCudaStubs(m, "\x01\x02", files, error);
  CHECK_FALSE(ok);
  return error;
}

// --- compiling the generated files ---------------------------------------

struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "kcc-stubs-XXXXXX").string();
    if (char *p = mkdtemp(tmpl.data()))
      path = p;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty())
      std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string &name) const { return path + "/" + name; }
  void write(const std::string &name, const std::string &text) const {
    std::ofstream(file(name), std::ios::binary) << text;
  }
  std::string read(const std::string &name) const {
    std::ifstream in(file(name), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

bool haveTool(const char *tool) {
  std::string cmd = std::string("command -v ") + tool + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

/// Runs `cmd` in `dir`; output goes to dir/log.txt.
int run(const TempDir &dir, const std::string &cmd) {
  std::string full = "cd '" + dir.path + "' && " + cmd + " >log.txt 2>&1";
  return std::system(full.c_str());
}

std::string runtimeInclude() {
  return std::string(KCC_SOURCE_DIR) + "/runtime/include";
}

const char *kWarnings = "-Wall -Wextra -Wshadow -Werror";

// A stand-in for kcc_runtime that records the launch.
const char *kMockRuntime = R"cpp(
#include <kcc/runtime.h>
#include <cstring>
#include <string>
namespace mock {
const kcc::rt::KernelDesc *kernel;
int64_t grid[3];
void (*onLaunch)(void **args);
}
static thread_local std::string lastError;
const char *kcc_last_error_message(void) { return lastError.c_str(); }
namespace kcc {
const char *dtypeName(DType t) {
  static const char *names[] = {"i1", "i8", "i16", "i32", "i64",
                                "f16", "bf16", "f32", "f64"};
  return names[static_cast<int>(t)];
}
namespace rt {
Status checkAlignment(const KernelDesc &k, const char *param, const void *ptr,
                      unsigned align) {
  if (reinterpret_cast<uintptr_t>(ptr) % align)
    return {KCC_ERROR_MISALIGNED, std::string(k.symbol) + ": " + param +
                                      " not aligned to " + std::to_string(align)};
  return {};
}
Status checkDivisibility(const KernelDesc &k, const char *param, int64_t v,
                         int64_t d) {
  if (v % d)
    return {KCC_ERROR_NOT_DIVISIBLE, std::string(k.symbol) + ": " + param +
                                         " not a multiple of " + std::to_string(d)};
  return {};
}
Status launch(const KernelDesc &k, const int64_t grid[3], void **args,
              CUstream_st *) {
  mock::kernel = &k;
  std::memcpy(mock::grid, grid, sizeof(mock::grid));
  if (mock::onLaunch)
    mock::onLaunch(args);
  return {};
}
kcc_status_code setLastError(const Status &s) {
  lastError = s.message;
  return s.code;
}
} // namespace rt
} // namespace kcc
)cpp";

const char *kMain = R"cpp(
#include "my-kernels.kcc.h"
#include <cstdio>
#include <cstring>
namespace mock {
extern const kcc::rt::KernelDesc *kernel;
extern int64_t grid[3];
extern void (*onLaunch)(void **args);
}
alignas(16) static float a[64], b[64], c[64];
static void reportC(kcc_status_code code) {
  std::printf("C: %d [%s]\n", int(code), kcc_last_error_message());
}
static void report(const char *what, const kcc::Status &s) {
  std::printf("%s: %d %s", what, int(s.code), s.message.c_str());
  if (s.ok())
    std::printf("%s grid=%lld,%lld,%lld threads=%u/%u fatbin=%s %zu %s",
                mock::kernel->symbol, (long long)mock::grid[0],
                (long long)mock::grid[1], (long long)mock::grid[2],
                mock::kernel->threads[0].threads, mock::kernel->threads[0].sm,
                mock::kernel->fatbin->source, mock::kernel->fatbin->size,
                mock::kernel->fatbin->archs);
  std::printf("\n");
}
int main() {
  mock::onLaunch = [](void **args) {
    std::printf("n arg: %d\n", *static_cast<int32_t *>(args[3]));
    std::printf("a arg ok: %d\n", *static_cast<float **>(args[0]) == a);
  };
  report("typed", my_kernels::vector_add_f32_1024(a, b, c, 3000));
  mock::onLaunch = nullptr;
  const unsigned char *image =
      static_cast<const unsigned char *>(mock::kernel->fatbin->image);
  bool same = mock::kernel->fatbin->size == 1000 &&
              reinterpret_cast<uintptr_t>(image) % 16 == 0;
  for (size_t i = 0; i < 1000; ++i)
    same = same && image[i] == static_cast<unsigned char>(i * 31 + 7);
  std::printf("fatbin bytes ok: %d\n", int(same));
  report("misaligned", my_kernels::vector_add_f32_1024(a, b + 1, c, 3000));
  report("dispatch", my_kernels::vector_add({kcc::DType::f16, 2048}, a, b, c, 5000));
  report("no spec", my_kernels::vector_add({kcc::DType::f64, 1024}, a, b, c, 1));
  report("softmax", my_kernels::softmax(a, b, 32, 100, 7));
  report("not divisible", my_kernels::softmax(a, b, 33, 100, 7));
  kcc::f16 x[8] = {};
  mock::onLaunch = [](void **args) {
    std::printf("alpha %#x flag %d\n",
                unsigned(static_cast<kcc::f16 *>(args[1])->bits),
                int(*static_cast<bool *>(args[2])));
  };
  report("scale", my_kernels::scale(x, kcc::f16{0x3c00}, true, 1 << 20));
  mock::onLaunch = nullptr;
  report("scale spec", my_kernels::scale({true, -4}, x, kcc::f16{0}, false, 8));
  report("scale no spec", my_kernels::scale({false, -4}, x, kcc::f16{0}, false, 8));
  report("copy", my_kernels::copy(nullptr, nullptr, 3, 300));
  report("noop", my_kernels::noop());
  reportC(kcc_fill_bf16(nullptr, 0x3f80, 10, nullptr));
  reportC(kcc_scale(reinterpret_cast<uint16_t *>(x), 0x3c00, true, 7, nullptr));
  mock::onLaunch = [](void **args) {
    std::printf("C alpha %#x\n", unsigned(static_cast<kcc::f16 *>(args[1])->bits));
  };
  reportC(kcc_scale(reinterpret_cast<uint16_t *>(x), 0x4000, false, 16, nullptr));
  return 0;
}
)cpp";

const char *kMainC = R"c(
#include "my-kernels.kcc.h"
int use(float *a, uint16_t *x, struct CUstream_st *s) {
  kcc_status_code st = kcc_vector_add_f16_2048((uint16_t *)a, x, x, 4, s);
  if (st != KCC_SUCCESS)
    return (int)st;
  return (int)kcc_scale(x, 0x3c00, true, 8, 0) + (int)kcc_noop(s);
}
)c";

} // namespace

TEST_CASE("host stubs: element type names and sizes") {
  CHECK(std::string(scalarKindName(ScalarKind::I1)) == "i1");
  CHECK(std::string(scalarKindName(ScalarKind::BF16)) == "bf16");
  CHECK(std::string(scalarKindName(ScalarKind::F64)) == "f64");
  CHECK(scalarKindBytes(ScalarKind::I1) == 1);
  CHECK(scalarKindBytes(ScalarKind::F16) == 2);
  CHECK(scalarKindBytes(ScalarKind::I32) == 4);
  CHECK(scalarKindBytes(ScalarKind::F64) == 8);
}

TEST_CASE("host stubs: namespace of a stem") {
  CHECK(stubNamespace("vector_add") == "vector_add");
  CHECK(stubNamespace("my-kernels") == "my_kernels");
  CHECK(stubNamespace("a--b.c") == "a_b_c");
  CHECK(stubNamespace("2d") == "kcc_2d");
  CHECK(stubNamespace("_x") == "kcc_x");
  CHECK(stubNamespace("new") == "new_");
  CHECK(stubNamespace("kcc") == "kcc_");
}

TEST_CASE("host stubs: vector_add header") {
  StubFiles f;
  std::string error;
  REQUIRE(emitCudaStubs(vectorAddModule(), "abc", f, error));
  CHECK(error.empty());
  const std::string &h = f.header;
  CHECK(h.rfind("// Generated by kcc", 0) == 0);
  CHECK(contains(h, " from vector_add.kc; do not edit.\n"));
  CHECK_FALSE(contains(h, "/some/where")); // no build paths in the output
  CHECK(contains(h, "#ifndef KCC_VECTOR_ADD_KCC_H\n#define KCC_VECTOR_ADD_KCC_H\n"));
  CHECK(contains(h, "#include <kcc/runtime.h>\n"));
  CHECK(contains(h, "namespace vector_add {\n"));
  CHECK(contains(h, "kcc::Status vector_add_f32_1024(float *a, float *b, float *c, "
                    "int32_t n,\n"
                    "                                CUstream_st *stream = nullptr);\n"));
  CHECK(contains(h, "kcc::Status vector_add_f16_2048(kcc::f16 *a, kcc::f16 *b,"));
  CHECK(contains(h, "/// Kernel vector_add with T = f32, BLOCK = 1024.\n"
                    "/// Facts: a: align(16), b: align(16), c: align(16).\n"
                    "/// Grid: ((((n) + (1024) - 1) / (1024)), 1, 1).\n"
                    "/// Threads per block: 128 (sm_80), 128 (sm_90a).\n"));
  CHECK(contains(h, "struct vector_add_spec {\n  kcc::DType T;\n  int64_t BLOCK;\n};\n"));
  CHECK(contains(h, "kcc::Status vector_add(const vector_add_spec &spec, void *a, "
                    "void *b, void *c,\n"));
  CHECK(contains(h, "extern \"C\" {\n"));
  CHECK(contains(h, "kcc_status_code kcc_vector_add_f32_1024(float *a, float *b, "
                    "float *c, int32_t n,\n"
                    "                                        struct CUstream_st "
                    "*stream);\n"));
  CHECK(contains(h, "kcc_status_code kcc_vector_add_f16_2048(uint16_t *a, uint16_t *b,"));
  CHECK(contains(h, "#endif // KCC_VECTOR_ADD_KCC_H\n"));
  // The C++ part is hidden from C.
  CHECK(h.find("#ifdef __cplusplus\nnamespace vector_add {") < h.find("vector_add_spec"));
}

TEST_CASE("host stubs: a persistent kernel") {
  ModuleInfo m = vectorAddModule();
  Specialization p = m.kernels[0].specializations[0];
  p.symbol = "vector_add_f32_1024__persistent";
  p.persistent = 2;
  p.persistentOf = "vector_add_f32_1024";
  p.builds[1].dynamicSharedBytes = 4096;
  m.kernels[0].persistentBuilds.push_back(p);
  StubFiles f;
  std::string error;
  REQUIRE(emitCudaStubs(m, "abc", f, error));
  // The persistent build's descriptor carries the CTAs per multiprocessor
  // and its own launch shape; the specialization's points to it. The other
  // specialization has none, and no launch function is made for the build.
  CHECK(contains(f.source, "static const kcc::rt::ThreadsForArch "
                           "threads_vector_add_f32_1024__persistent[] = {\n"
                           "    {80, 128}, {90, 128, nullptr, 4096}};\n"));
  CHECK(contains(f.source, "\"vector_add_f32_1024__persistent\",\n"
                           "    threads_vector_add_f32_1024__persistent, 2, "
                           "2};\n"));
  CHECK(contains(f.source,
                 "\"vector_add_f32_1024\", threads_vector_add_f32_1024, 2, 0,\n"
                 "    &kernel_vector_add_f32_1024__persistent};\n"));
  CHECK(f.source.find("kernel_vector_add_f32_1024__persistent = {") <
        f.source.find("kernel_vector_add_f32_1024 = {"));
  CHECK(contains(
      f.source, "\"vector_add_f16_2048\", threads_vector_add_f16_2048, 2};\n"));
  CHECK(!contains(f.header, "vector_add_f32_1024__persistent("));
  CHECK(contains(f.header, "/// Persistent (kcc --persistent=2): when the grid "
                           "has more than 2 x\n///   multiprocessors tiles, "
                           "the launch runs vector_add_f32_1024__persistent"));
  std::string manifest = emitManifest(m, "0.1.0", {});
  CHECK(contains(manifest, "\"persistent\": {\n"));
  CHECK(contains(manifest, "\"symbol\": \"vector_add_f32_1024__persistent\""));
  CHECK(contains(manifest, "\"ctas_per_sm\": 2"));

  // A target where the persistent build is slower (its dots off the staged
  // tensor-core path): its entry says so, and so does the manifest.
  m.kernels[0].persistentBuilds[0].builds[0].persistentNotLaunched =
      "it runs fewer of its dots on the staged tensor-core instruction than "
      "the one-CTA-per-tile build";
  REQUIRE(emitCudaStubs(m, "abc", f, error));
  CHECK(contains(f.source, "threads_vector_add_f32_1024__persistent[] = {\n"
                           "    {80, 128, nullptr, 0, true}, {90, 128, "
                           "nullptr, 4096}};\n"));
  CHECK(contains(emitManifest(m, "0.1.0", {}),
                 "\"not_launched\": \"it runs fewer of its dots on the staged "
                 "tensor-core instruction than the one-CTA-per-tile "
                 "build\""));

  // A persistent build a target could not compile (the driver dropped it
  // there): the launch runs one program per tile on every target of the
  // vendor, and the manifest says why.
  m.kernels[0].persistentBuilds[0].builds.pop_back();
  m.kernels[0].persistentBuilds[0].notBuilt.push_back(
      {"sm_90a", "kernel needs 300000 bytes of shared memory"});
  REQUIRE(emitCudaStubs(m, "abc", f, error));
  CHECK(!contains(f.source, "kernel_vector_add_f32_1024__persistent"));
  CHECK(contains(emitManifest(m, "0.1.0", {}),
                 "\"why\": \"kernel needs 300000 bytes of shared memory\""));
}

TEST_CASE("host stubs: vector_add source") {
  StubFiles f;
  std::string error;
  std::string fatbin;
  for (int i = 0; i < 50; ++i)
    fatbin += char(i * 7);
  REQUIRE(emitCudaStubs(vectorAddModule(), fatbin, f, error));
  const std::string &c = f.source;
  CHECK(contains(c, "#include \"vector_add.kcc.h\"\n"));
  // The fatbin as string literals: printable bytes as they are (but '?'),
  // others as 3-digit octal escapes, lines of at most 80 columns.
  CHECK(contains(c, "alignas(16) static const unsigned char kFatbin[] =\n"
                    "    \"\\000\\007\\016\\025\\034#*18\\077FMT[bipw~\\205\\214"
                    "\\223\\232\\241\\250\\257\\266\\275\"\n"
                    "    \"\\304\\313\\322\\331\\340\\347\\356\\365\\374\\003"
                    "\\012\\021\\030\\037&-4;BIPW\";\n"));
  CHECK(contains(c, "static const kcc::rt::FatbinDesc kFatbinDesc = {\n"
                    "    \"vector_add.kc\", kFatbin, sizeof(kFatbin) - 1,\n"
                    "    \"sm_80, sm_90a (+PTX sm_90a)\"};\n"));
  CHECK(contains(c, "static const kcc::rt::ThreadsForArch threads_vector_add_f32_1024[] "
                    "= {\n    {80, 128}, {90, 128}};\n"));
  CHECK(contains(c, "\"vector_add_f32_1024\", threads_vector_add_f32_1024, 2};\n"));
  CHECK(contains(c, "static void grid_vector_add_f32_1024(int64_t n, int64_t *kcc_grid) {\n"
                    "  kcc_grid[0] = (((n) + (1024) - 1) / (1024));\n"
                    "  kcc_grid[1] = 1;\n  kcc_grid[2] = 1;\n}\n"));
  CHECK(contains(c, "kcc::Status kcc_status = kcc::rt::checkAlignment(\n"
                    "      kcc_impl::kernel_vector_add_f32_1024, \"a\", a, 16);\n"
                    "  if (!kcc_status)\n    return kcc_status;\n"));
  CHECK(contains(c, "  int64_t grid[3];\n  kcc_impl::grid_vector_add_f32_1024(n, grid);\n"
                    "  void *args[] = {&a, &b, &c, &n};\n"
                    "  return kcc::rt::launch(kcc_impl::kernel_vector_add_f32_1024, grid, args,\n"
                    "                         stream);\n"));
  CHECK(contains(c, "  if (spec.T == kcc::DType::f16 && spec.BLOCK == 2048)\n"
                    "    return ::vector_add::vector_add_f16_2048(\n"
                    "        static_cast<kcc::f16 *>(a), static_cast<kcc::f16 *>(b),\n"
                    "        static_cast<kcc::f16 *>(c), n, stream);\n"));
  CHECK(contains(c, "  std::string kcc_message = \"vector_add has no specialization \";\n"
                    "  kcc_message += \"T = \";\n"
                    "  kcc_message += kcc::dtypeName(spec.T);\n"
                    "  kcc_message += \", BLOCK = \";\n"
                    "  kcc_message += std::to_string(spec.BLOCK);\n"
                    "  kcc_message += \"; compiled: (T = f32, BLOCK = 1024), "
                    "(T = f16, BLOCK = 2048)\";\n"
                    "  return kcc::Status{KCC_ERROR_INVALID_ARGUMENT, kcc_message};\n"));
  CHECK(contains(c, "extern \"C\" kcc_status_code kcc_vector_add_f16_2048("));
  CHECK(contains(c, "  return kcc::rt::setLastError(::vector_add::vector_add_f32_1024(\n"
                    "      a, b, c, n, stream));\n"));
  CHECK(contains(c, "  return kcc::rt::setLastError(::vector_add::vector_add_f16_2048(\n"
                    "      reinterpret_cast<kcc::f16 *>(a), reinterpret_cast<kcc::f16 *>(b),\n"));
  // f16 alignment defaults to the element size when there is no fact.
  ModuleInfo m = vectorAddModule();
  m.kernels[0].specializations[1].params[1].align = 0;
  REQUIRE(emitCudaStubs(m, fatbin, f, error));
  CHECK(contains(f.source, "kcc_impl::kernel_vector_add_f16_2048,\n"
                           "                                       \"b\", b, 2);\n"));

  // Deterministic.
  StubFiles again;
  REQUIRE(emitCudaStubs(m, fatbin, again, error));
  CHECK(again.header == f.header);
  CHECK(again.source == f.source);
}

TEST_CASE("host stubs: facts, f16/bool scalars, dispatchers") {
  StubFiles f;
  std::string error;
  REQUIRE(emitCudaStubs(bigModule(), "xyz", f, error));
  const std::string &h = f.header, &c = f.source;
  CHECK(contains(h, "namespace my_kernels {\n"));
  CHECK(contains(h, "#ifndef KCC_MY_KERNELS_KCC_H"));
  CHECK(contains(c, "#include \"my-kernels.kcc.h\"\n"));
  // softmax: multiple_of checked; grid uses only nrows.
  CHECK(contains(h, "/// Facts: out: align(16), inp: align(16), stride: multiple_of(16).\n"));
  CHECK(contains(c, "  kcc_status = kcc::rt::checkDivisibility(\n"
                    "      kcc_impl::kernel_softmax, \"stride\", stride, 16);\n"));
  CHECK(contains(c, "static void grid_softmax(int64_t nrows, int64_t *kcc_grid) {\n"));
  CHECK(contains(c, "kcc_impl::grid_softmax(nrows, grid);\n"));
  // softmax has one specialization: the dispatcher overloads the typed
  // function, and its pointers become void * (T may be any dtype).
  CHECK(contains(h, "struct softmax_spec {\n  int64_t BLOCK;\n  kcc::DType T;\n};\n"));
  CHECK(contains(h, "kcc::Status softmax(const softmax_spec &spec, void *out, void *inp,\n"));
  // scale: f16 and bool scalars, i64 multiple_of, bool and negative constants.
  CHECK(contains(h, "kcc::Status scale(kcc::f16 *x, kcc::f16 alpha, bool flag, int64_t n,\n"));
  CHECK(contains(h, "struct scale_spec {\n  bool USE_BIAS;\n  int64_t SHIFT;\n};\n"));
  CHECK(contains(h, "kcc::Status scale(const scale_spec &spec, kcc::f16 *x, kcc::f16 alpha,\n"));
  CHECK(contains(h, "kcc_status_code kcc_scale(uint16_t *x, uint16_t alpha, bool flag, "
                    "int64_t n,\n"));
  CHECK(contains(c, "kcc::rt::checkAlignment(\n      kcc_impl::kernel_scale, \"x\", x, 2);\n"));
  CHECK(contains(c, "kcc::rt::checkDivisibility(kcc_impl::kernel_scale, \"n\", n, 8);\n"));
  CHECK(contains(c, "  if (spec.USE_BIAS && spec.SHIFT == -4)\n"));
  CHECK(contains(c, "  kcc_grid[0] = ((n) < (65536) ? (n) : (65536));\n  kcc_grid[1] = 1;\n"));
  CHECK(contains(c, "  void *args[] = {&x, &alpha, &flag, &n};\n"));
  CHECK(contains(c, "::my_kernels::scale(\n"
                    "      reinterpret_cast<kcc::f16 *>(x), kcc::f16{alpha}, flag, n, stream));\n"));
  CHECK(contains(c, "    return ::my_kernels::scale(x, alpha, flag, n, stream);\n"));
  CHECK(contains(c, "(spec.USE_BIAS ? \"true\" : \"false\")"));
  // fill: `value: T` differs between specializations: no dispatcher.
  CHECK(contains(h, "// No fill(spec, ...) dispatcher: parameter 'value' has type f32 in "
                    "fill_f32 but\n// bf16 in fill_bf16"));
  CHECK_FALSE(contains(h, "struct fill_spec"));
  CHECK(contains(h, "kcc::Status fill_bf16(kcc::bf16 *dst, kcc::bf16 value, int32_t n,\n"));
  // copy: no constants, no dispatcher; i16 grid parameter widened.
  CHECK_FALSE(contains(h, "copy_spec"));
  CHECK(contains(h, "/// Kernel copy.\n/// Facts: none.\n"));
  CHECK(contains(c, "static void grid_copy(int64_t rows, int64_t cols, int64_t *kcc_grid) {\n"
                    "  kcc_grid[0] = (((cols) + (128) - 1) / (128));\n"
                    "  kcc_grid[1] = rows;\n"));
  // noop: no parameters.
  CHECK(contains(h, "kcc::Status noop(CUstream_st *stream = nullptr);\n"));
  CHECK(contains(h, "kcc_status_code kcc_noop(struct CUstream_st *stream);\n"));
  CHECK(contains(c, "static void grid_noop(int64_t *kcc_grid) {\n"));
  CHECK(contains(c, "  void **args = nullptr;\n"));
}

TEST_CASE("host stubs: names that cannot be C++ names are rejected") {
  ModuleInfo m = vectorAddModule();
  m.kernels[0].specializations[1].params[1].name = "new";
  CHECK(emitError(m) == "parameter 'new' of kernel 'vector_add' is a C++ keyword; "
                        "rename it (the launch stubs use it as a C++ name)");

  for (const char *name : {"stream", "spec", "grid", "args", "kcc", "int32_t"}) {
    m = vectorAddModule();
    m.kernels[0].specializations[0].params[3].name = name;
    CHECK(emitError(m) == std::string("parameter '") + name +
                              "' of kernel 'vector_add' is reserved in the "
                              "generated launch stubs; rename it (the launch "
                              "stubs use it as a C++ name)");
  }
  m = vectorAddModule();
  m.kernels[0].specializations[0].params[0].name = "kcc_a";
  CHECK(contains(emitError(m), "'kcc_a' of kernel 'vector_add' starts with 'kcc_'"));
  m = vectorAddModule();
  m.kernels[0].specializations[0].params[0].name = "restrict";
  CHECK(contains(emitError(m), "'restrict' of kernel 'vector_add' is a C++ keyword"));
  m = vectorAddModule();
  m.kernels[0].specializations[0].params[0].name = "a__b";
  CHECK(contains(emitError(m), "is reserved in C and C++"));
  m = vectorAddModule();
  m.kernels[0].specializations[0].params[0].name = "INT32_MAX";
  CHECK(contains(emitError(m), "is a macro of <stdint.h>"));
  m = vectorAddModule();
  m.kernels[0].specializations[0].constants[1].name = "delete";
  CHECK(contains(emitError(m), "constant parameter 'delete' of kernel 'vector_add' is "
                               "a C++ keyword"));

  m = vectorAddModule();
  m.kernels[0].name = "class";
  CHECK(emitError(m) == "kernel 'class' is a C++ keyword; rename it (the launch "
                        "stubs use it as a C++ name)");
  m = vectorAddModule();
  m.kernels[0].specializations[0].symbol = "kcc_x";
  CHECK(contains(emitError(m), "kernel function 'kcc_x' of kernel 'vector_add' starts "
                               "with 'kcc_'"));
  m = vectorAddModule();
  m.kernels[0].specializations[0].symbol = "last_error_message";
  CHECK(contains(emitError(m), "kcc_last_error_message in C"));

  m = vectorAddModule();
  m.stem = "we\"ird";
  CHECK(contains(emitError(m), "cannot be used in #include"));
}

TEST_CASE("host stubs: duplicates and bad grids are rejected") {
  ModuleInfo m = vectorAddModule();
  m.kernels[0].specializations[1].symbol = "vector_add_f32_1024";
  CHECK(emitError(m) == "duplicate symbol 'vector_add_f32_1024' (kernel function "
                        "of vector_add and kernel function of vector_add)");
  m = vectorAddModule();
  m.kernels.push_back(m.kernels[0]);
  m.kernels[1].name = "other";
  CHECK(contains(emitError(m), "duplicate symbol 'vector_add_f32_1024'"));
  // A kernel whose dispatcher would be named like another kernel's function.
  m = vectorAddModule();
  KernelInfo k = m.kernels[0];
  k.name = "vector_add_f16_2048";
  k.specializations[0].symbol = "x1";
  k.specializations[1].symbol = "x2";
  m.kernels.push_back(k);
  CHECK(emitError(m) == "duplicate symbol 'vector_add_f16_2048' (kernel function of "
                        "vector_add and dispatcher of vector_add_f16_2048)");
  m = vectorAddModule();
  m.kernels[0].specializations[0].params[2].name = "a";
  CHECK(emitError(m) == "kernel 'vector_add' has two parameters named 'a'");

  m = vectorAddModule();
  m.kernels[0].specializations[0].grid[0] = "n); system(\"rm\"";
  CHECK(contains(emitError(m), "is not a C integer expression"));
  m = vectorAddModule();
  m.kernels[0].specializations[0].grid[1] = "a + 1";
  CHECK(emitError(m) == "grid expression 'a + 1' of vector_add_f32_1024 uses 'a', "
                        "which is not an integer parameter");
  m = vectorAddModule();
  m.kernels[0].specializations[0].grid[1] = "BLOCK";
  CHECK(contains(emitError(m), "uses 'BLOCK', which is not an integer parameter"));
  m = vectorAddModule();
  m.kernels[0].specializations[0].builds.clear();
  CHECK(emitError(m) == "kernel function 'vector_add_f32_1024' has no target builds");
}

TEST_CASE("host stubs: generated files compile (C++ and C) and run") {
  if (!haveTool("c++") || !haveTool("cc")) {
    MESSAGE("c++ or cc not found; skipping the compile test");
    return;
  }
  TempDir dir;
  REQUIRE(!dir.path.empty());
  StubFiles f;
  std::string error;
  std::string fatbin(1000, '\0');
  for (size_t i = 0; i < fatbin.size(); ++i)
    fatbin[i] = char(i * 31 + 7);
  REQUIRE(emitCudaStubs(bigModule(), fatbin, f, error));
  dir.write("my-kernels.kcc.h", f.header);
  dir.write("my-kernels.kcc.cpp", f.source);
  dir.write("mock_runtime.cpp", kMockRuntime);
  dir.write("main.cpp", kMain);
  dir.write("main.c", kMainC);
  std::string inc = " -I'" + runtimeInclude() + "' -I. ";

  // C++: syntax only, all warnings, GNU and strict modes.
  int rc = run(dir, std::string("c++ -std=gnu++17 -fsyntax-only ") + kWarnings + inc +
                        "my-kernels.kcc.cpp main.cpp");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);
  rc = run(dir, std::string("c++ -std=c++17 -pedantic -fsyntax-only ") + kWarnings +
                    inc + "my-kernels.kcc.cpp");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);
  // C: the header alone, and a user of the C entry points.
  rc = run(dir, std::string("cc -std=c11 -pedantic -fsyntax-only ") + kWarnings + inc +
                    "-x c my-kernels.kcc.h");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);
  rc = run(dir, std::string("cc -std=c99 -fsyntax-only ") + kWarnings + inc + "main.c");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);

  // Linked against a mock runtime and run.
  rc = run(dir, "c++ -std=c++17" + inc +
                    "my-kernels.kcc.cpp mock_runtime.cpp main.cpp -o prog && ./prog");
  std::string out = dir.read("log.txt");
  INFO(out);
  REQUIRE(rc == 0);
  const char *expected =
      "n arg: 3000\n"
      "a arg ok: 1\n"
      "typed: 0 vector_add_f32_1024 grid=3,1,1 threads=128/80 fatbin=my-kernels.kc 1000 "
      "sm_80, sm_90a (+PTX sm_90a)\n"
      "fatbin bytes ok: 1\n"
      "misaligned: 3 vector_add_f32_1024: b not aligned to 16\n"
      "dispatch: 0 vector_add_f16_2048 grid=3,1,1 threads=128/80 fatbin=my-kernels.kc "
      "1000 sm_80, sm_90a (+PTX sm_90a)\n"
      "no spec: 5 vector_add has no specialization T = f64, BLOCK = 1024; compiled: "
      "(T = f32, BLOCK = 1024), (T = f16, BLOCK = 2048)\n"
      "softmax: 0 softmax grid=7,1,1 threads=256/80 fatbin=my-kernels.kc 1000 sm_80, "
      "sm_90a (+PTX sm_90a)\n"
      "not divisible: 4 softmax: stride not a multiple of 16\n"
      "alpha 0x3c00 flag 1\n"
      "scale: 0 scale grid=65536,1,1 threads=64/80 fatbin=my-kernels.kc 1000 sm_80, "
      "sm_90a (+PTX sm_90a)\n"
      "scale spec: 0 scale grid=8,1,1 threads=64/80 fatbin=my-kernels.kc 1000 sm_80, "
      "sm_90a (+PTX sm_90a)\n"
      "scale no spec: 5 scale has no specialization USE_BIAS = false, SHIFT = -4; "
      "compiled: (USE_BIAS = true, SHIFT = -4)\n"
      "copy: 0 copy grid=3,3,1 threads=128/80 fatbin=my-kernels.kc 1000 sm_80, sm_90a "
      "(+PTX sm_90a)\n"
      "noop: 0 noop grid=1,1,1 threads=32/80 fatbin=my-kernels.kc 1000 sm_80, sm_90a "
      "(+PTX sm_90a)\n"
      "C: 0 []\n"
      "C: 4 [scale: n not a multiple of 8]\n"
      "C alpha 0x4000\n"
      "C: 0 []\n";
  CHECK(out == expected);
}

//===----------------------------------------------------------------------===//
// The HIP flavour (emitHipStubs): the same stubs with HIP's stream type,
// kcc_runtime_hip's launch, the offload bundle and the AMD builds.
//===----------------------------------------------------------------------===//

namespace {

/// Builds for gfx90a and gfx942 (sm 0, wave64), as kcc makes for AMD targets.
std::vector<TargetBuild> amdBuilds(unsigned threads) {
  TargetBuild a;
  a.target = "gfx90a";
  a.sm = 0;
  a.threads = threads;
  TargetBuild b = a;
  b.target = "gfx942";
  return {a, b};
}

/// `m` with every specialization built for gfx90a and gfx942 instead, with
/// the same threads per block.
ModuleInfo amdModule(ModuleInfo m) {
  m.targets = {"gfx90a", "gfx942"};
  m.fatbinContents = "";
  for (KernelInfo &k : m.kernels)
    for (Specialization &s : k.specializations)
      s.builds = amdBuilds(s.builds.front().threads);
  return m;
}

/// `m` built for sm_80, sm_90a, gfx90a and gfx942 (AMD builds with twice the
/// threads: wave64).
ModuleInfo mixedModule(ModuleInfo m) {
  m.targets = {"sm_80", "sm_90a", "gfx90a", "gfx942"};
  for (KernelInfo &k : m.kernels)
    for (Specialization &s : k.specializations)
      for (const TargetBuild &b : amdBuilds(s.builds.front().threads * 2))
        s.builds.push_back(b);
  return m;
}

std::string hipEmitError(const ModuleInfo &m) {
  StubFiles files;
  std::string error;
  bool ok = emitHipStubs(m, "\x01\x02", files, error);
  CHECK_FALSE(ok);
  return error;
}

/// The names a header declares: "kcc::Status NAME(" and "kcc_status_code
/// NAME(" and "struct NAME {", in order.
std::vector<std::string> declaredNames(const std::string &header) {
  std::vector<std::string> names;
  std::istringstream in(header);
  std::string line;
  for (const char *prefix : {"kcc::Status ", "kcc_status_code ", "struct "}) {
    in.clear();
    in.seekg(0);
    while (std::getline(in, line))
      if (line.rfind(prefix, 0) == 0)
        names.push_back(line.substr(0, line.find_first_of("({")));
  }
  return names;
}

size_t count(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + 1))
    ++n;
  return n;
}

std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// kcc_runtime_hip's launch, for the mock runtime above.
const char *kMockHipRuntime = R"cpp(
#include <kcc/runtime_hip.h>
namespace kcc {
namespace rt {
namespace hip {
Status launch(const KernelDesc &k, const int64_t grid[3], void **args,
              ihipStream_t *) {
  return kcc::rt::launch(k, grid, args, nullptr);
}
} // namespace hip
} // namespace rt
} // namespace kcc
)cpp";

// hipStream_t from HIP's own header is what the stubs take.
const char *kMainHipHeader = R"cpp(
#include <hip/hip_runtime_api.h>
#include "my-kernels.hip.kcc.h"
kcc::Status use(float *a, hipStream_t stream) {
  kcc_status_code c = kcc_noop(stream);
  if (c != KCC_SUCCESS)
    return kcc::Status{c, kcc_last_error_message()};
  return my_kernels::vector_add_f32_1024(a, a, a, 4, stream);
}
)cpp";

} // namespace

TEST_CASE("host stubs (HIP): vector_add header") {
  StubFiles f;
  std::string error;
  REQUIRE(emitHipStubs(amdModule(vectorAddModule()), "abc", f, error));
  CHECK(error.empty());
  CHECK(f.headerName == "vector_add.hip.kcc.h");
  CHECK(f.sourceName == "vector_add.hip.kcc.cpp");
  const std::string &h = f.header;
  CHECK(h.rfind("// Generated by kcc", 0) == 0);
  CHECK(contains(h, "// Launch stubs for the kernels of vector_add.kc (offload "
                    "bundle: gfx90a,\n// gfx942).\n"));
  CHECK(contains(h, "Link with kcc_runtime_hip.\n"));
  CHECK(contains(h, "// HIP: streams are ihipStream_t *, i.e. hipStream_t."));
  CHECK(contains(h, "#ifndef KCC_VECTOR_ADD_HIP_KCC_H\n"
                    "#define KCC_VECTOR_ADD_HIP_KCC_H\n"));
  CHECK(contains(h, "#include <kcc/runtime_hip.h>\n"));
  CHECK_FALSE(contains(h, "CUstream_st"));
  CHECK(contains(h, "namespace vector_add {\n"));
  CHECK(contains(
      h, "kcc::Status vector_add_f32_1024(float *a, float *b, float *c, "
         "int32_t n,\n"
         "                                ihipStream_t *stream = nullptr);\n"));
  CHECK(contains(h, "/// Threads per block: 128 (gfx90a), 128 (gfx942).\n"));
  CHECK(contains(
      h,
      "kcc::Status vector_add(const vector_add_spec &spec, void *a, "
      "void *b, void *c,\n"
      "                       int32_t n, ihipStream_t *stream = nullptr);\n"));
  CHECK(contains(h,
                 "kcc_status_code kcc_vector_add_f32_1024(float *a, float *b, "
                 "float *c, int32_t n,\n"
                 "                                        struct ihipStream_t "
                 "*stream);\n"));
  CHECK(contains(h, "#endif // KCC_VECTOR_ADD_HIP_KCC_H\n"));
}

TEST_CASE("host stubs (HIP): vector_add source") {
  StubFiles f;
  std::string error;
  std::string bundle = "__CLANG_OFFLOAD_BUNDLE__\x02";
  REQUIRE(emitHipStubs(amdModule(vectorAddModule()), bundle, f, error));
  const std::string &c = f.source;
  CHECK(contains(c, "#include \"vector_add.hip.kcc.h\"\n"));
  CHECK(contains(c, "// gfx90a, gfx942\n"
                    "alignas(16) static const unsigned char kFatbin[] =\n"
                    "    \"__CLANG_OFFLOAD_BUNDLE__\\002\";\n"));
  CHECK(contains(c, "static const kcc::rt::FatbinDesc kFatbinDesc = {\n"
                    "    \"vector_add.kc\", kFatbin, sizeof(kFatbin) - 1, "
                    "\"gfx90a, gfx942\"};\n"));
  CHECK(contains(
      c, "static const kcc::rt::ThreadsForArch threads_vector_add_f32_1024[] "
         "= {\n    {0, 128, \"gfx90a\"}, {0, 128, \"gfx942\"}};\n"));
  CHECK(contains(
      c, "\"vector_add_f32_1024\", threads_vector_add_f32_1024, 2};\n"));
  CHECK(contains(
      c, "kcc::Status vector_add_f32_1024(float *a, float *b, float *c, "
         "int32_t n,\n"
         "                                ihipStream_t *stream) {\n"));
  CHECK(contains(
      c, "  return kcc::rt::hip::launch(kcc_impl::kernel_vector_add_f32_1024, "
         "grid, args,\n"
         "                              stream);\n"));
  CHECK(contains(c, "extern \"C\" kcc_status_code kcc_vector_add_f32_1024(\n"
                    "    float *a, float *b, float *c, int32_t n, ihipStream_t "
                    "*stream) {\n"));
  CHECK_FALSE(contains(c, "CUstream_st"));
  CHECK_FALSE(contains(c, "kcc::rt::launch("));

  // Deterministic.
  StubFiles again;
  REQUIRE(emitHipStubs(amdModule(vectorAddModule()), bundle, again, error));
  CHECK(again.header == f.header);
  CHECK(again.source == f.source);
}

TEST_CASE("host stubs (HIP): same functions, checks and entry points as CUDA") {
  // One module built for NVIDIA and AMD targets: each flavour takes its
  // vendor's builds, and both declare the same names.
  ModuleInfo m = mixedModule(bigModule());
  StubFiles cuda, hip;
  std::string error;
  REQUIRE(emitCudaStubs(m, "fatbin", cuda, error));
  REQUIRE(emitHipStubs(m, "bundle", hip, error));
  CHECK(cuda.headerName == "my-kernels.kcc.h");
  CHECK(hip.headerName == "my-kernels.hip.kcc.h");
  CHECK(hip.sourceName == "my-kernels.hip.kcc.cpp");
  std::vector<std::string> names = declaredNames(cuda.header);
  // 8 typed functions, 3 dispatchers, 8 C entry points, 3 spec structs.
  CHECK(names.size() == 22);
  CHECK(declaredNames(hip.header) == names);
  for (const char *check :
       {"kcc::rt::checkAlignment(", "kcc::rt::checkDivisibility(",
        "kcc_impl::grid_", "kcc::rt::setLastError(",
        "KCC_ERROR_INVALID_ARGUMENT", "void *args[] = {"}) {
    CAPTURE(check);
    CHECK(count(hip.source, check) == count(cuda.source, check));
    CHECK(count(cuda.source, check) > 0);
  }
  CHECK(count(hip.source, "kcc::rt::hip::launch(") ==
        count(cuda.source, "kcc::rt::launch("));

  // CUDA: the sm_* builds only; HIP: the gfx* builds only.
  CHECK(contains(cuda.source, "threads_vector_add_f32_1024[] = {\n"
                              "    {80, 128}, {90, 128}};\n"));
  CHECK(contains(hip.source,
                 "threads_vector_add_f32_1024[] = {\n"
                 "    {0, 256, \"gfx90a\"}, {0, 256, \"gfx942\"}};\n"));
  CHECK(contains(cuda.header,
                 "/// Threads per block: 128 (sm_80), 128 (sm_90a).\n"));
  CHECK(contains(hip.header,
                 "/// Threads per block: 256 (gfx90a), 256 (gfx942).\n"));
  CHECK(contains(cuda.source, "\"sm_80, sm_90a (+PTX sm_90a)\"};\n"));
  CHECK(contains(hip.source, "\"gfx90a, gfx942\"};\n"));

  // With the vendor's words swapped back, the HIP header is the CUDA header
  // up to line wrapping.
  auto words = [](std::string text) {
    text = replaceAll(text, "struct ihipStream_t", "struct CUstream_st");
    text = replaceAll(text, "ihipStream_t", "CUstream_st");
    text = replaceAll(text, "_HIP_KCC_H", "_KCC_H");
    std::string out;
    std::istringstream in(text);
    std::string word;
    while (in >> word)
      if (word != "//" && word != "///")
        out += word + " ";
    return out;
  };
  // From after the #include, without the lines naming targets.
  auto body = [](const std::string &header) {
    std::istringstream in(header.substr(header.find("#ifndef __cplusplus")));
    std::string line, out;
    while (std::getline(in, line))
      if (line.rfind("/// Threads per block: ", 0) != 0 &&
          line.rfind("/// Dynamic shared memory ", 0) != 0)
        out += line + "\n";
    return out;
  };
  CHECK(words(body(hip.header)) == words(body(cuda.header)));
}

TEST_CASE("host stubs: dynamic shared memory per target") {
  StubFiles f;
  std::string error;
  REQUIRE(emitCudaStubs(bigModule(), "fatbin", f, error));
  // With the threads, per target; entries without any keep their short form.
  CHECK(contains(f.source, "static const kcc::rt::ThreadsForArch threads_softmax[] = {\n"
                           "    {80, 256, nullptr, 4096}, {90, 256, nullptr, 200704}};\n"));
  CHECK(contains(f.source, "threads_vector_add_f32_1024[] = {\n"
                           "    {80, 128}, {90, 128}};\n"));
  CHECK(contains(f.header, "/// Dynamic shared memory (bytes): 4096 (sm_80), 200704 "
                           "(sm_90a).\n"));
  CHECK(count(f.header, "/// Dynamic shared memory") == 1);

  // HIP: AMD kernels use static LDS; their table has no bytes.
  StubFiles hip;
  REQUIRE(emitHipStubs(mixedModule(bigModule()), "bundle", hip, error));
  CHECK(contains(hip.source, "threads_softmax[] = {\n"
                             "    {0, 512, \"gfx90a\"}, {0, 512, \"gfx942\"}};\n"));
  CHECK_FALSE(contains(hip.source, ", nullptr, "));
  CHECK_FALSE(contains(hip.header, "Dynamic shared memory"));
}

TEST_CASE("host stubs (HIP): refused modules") {
  // Only NVIDIA builds: nothing for HIP; only AMD builds: nothing for CUDA.
  CHECK(hipEmitError(vectorAddModule()) ==
        "kernel function 'vector_add_f32_1024' has no AMD (gfx) target builds");
  CHECK(emitError(amdModule(vectorAddModule())) ==
        "kernel function 'vector_add_f32_1024' has no NVIDIA target builds");
  ModuleInfo m = amdModule(vectorAddModule());
  m.kernels[0].specializations[0].builds.clear();
  CHECK(hipEmitError(m) ==
        "kernel function 'vector_add_f32_1024' has no target builds");
  // The same names are refused for both (either flavour may be generated
  // from one module).
  for (const char *name : {"stream", "ihipStream_t", "CUstream_st", "kcc_x"}) {
    CAPTURE(name);
    m = mixedModule(vectorAddModule());
    m.kernels[0].specializations[0].params[3].name = name;
    std::string hipError = hipEmitError(m);
    CHECK_FALSE(hipError.empty());
    CHECK(hipError == emitError(m));
  }
  m = amdModule(vectorAddModule());
  m.stem = "we\"ird";
  CHECK(contains(hipEmitError(m), "cannot be used in #include"));
}

TEST_CASE("host stubs (HIP): generated files compile (C++ and C) and run") {
  if (!haveTool("c++") || !haveTool("cc")) {
    MESSAGE("c++ or cc not found; skipping the compile test");
    return;
  }
  TempDir dir;
  REQUIRE(!dir.path.empty());
  StubFiles f;
  std::string error;
  std::string bundle(1000, '\0');
  for (size_t i = 0; i < bundle.size(); ++i)
    bundle[i] = char(i * 31 + 7);
  REQUIRE(emitHipStubs(amdModule(bigModule()), bundle, f, error));
  dir.write(f.headerName, f.header);
  dir.write(f.sourceName, f.source);
  dir.write("mock_runtime.cpp", std::string(kMockRuntime) + kMockHipRuntime);
  dir.write("main.cpp", replaceAll(kMain, "my-kernels.kcc.h", f.headerName));
  dir.write("main.c",
            replaceAll(replaceAll(kMainC, "my-kernels.kcc.h", f.headerName),
                       "CUstream_st", "ihipStream_t"));
  std::string inc = " -I'" + runtimeInclude() + "' -I. ";

  int rc = run(dir, std::string("c++ -std=gnu++17 -fsyntax-only ") + kWarnings +
                        inc + "my-kernels.hip.kcc.cpp main.cpp");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);
  rc = run(dir, std::string("c++ -std=c++17 -pedantic -fsyntax-only ") +
                    kWarnings + inc + "my-kernels.hip.kcc.cpp");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);
  rc = run(dir, std::string("cc -std=c11 -pedantic -fsyntax-only ") +
                    kWarnings + inc + "-x c my-kernels.hip.kcc.h");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);
  rc = run(dir, std::string("cc -std=c99 -fsyntax-only ") + kWarnings + inc +
                    "main.c");
  INFO(dir.read("log.txt"));
  CHECK(rc == 0);
  // With HIP's own header first (Debian: libamdhip64-dev), hipStream_t is
  // the stubs' stream type.
  if (std::ifstream("/usr/include/hip/hip_runtime_api.h").good()) {
    dir.write("main_hip.cpp", kMainHipHeader);
    rc = run(dir, std::string(
                      "c++ -std=c++17 -fsyntax-only -D__HIP_PLATFORM_AMD__ ") +
                      kWarnings + inc + "main_hip.cpp");
    INFO(dir.read("log.txt"));
    CHECK(rc == 0);
  } else {
    MESSAGE("no /usr/include/hip/hip_runtime_api.h; not checking hipStream_t");
  }

  // Linked against the mock runtime and run: what the CUDA stubs do, with the
  // AMD builds' block sizes and the bundle's contents.
  rc = run(
      dir,
      "c++ -std=c++17" + inc +
          "my-kernels.hip.kcc.cpp mock_runtime.cpp main.cpp -o prog && ./prog");
  std::string out = dir.read("log.txt");
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(contains(out, "typed: 0 vector_add_f32_1024 grid=3,1,1 threads=128/0 "
                      "fatbin=my-kernels.kc 1000 gfx90a, gfx942\n"));
  CHECK(contains(out, "fatbin bytes ok: 1\n"));
  CHECK(contains(out,
                 "misaligned: 3 vector_add_f32_1024: b not aligned to 16\n"));
  CHECK(contains(out,
                 "dispatch: 0 vector_add_f16_2048 grid=3,1,1 threads=128/0"));
  CHECK(contains(out, "no spec: 5 vector_add has no specialization T = f64"));
  CHECK(
      contains(out, "not divisible: 4 softmax: stride not a multiple of 16\n"));
  CHECK(contains(out, "alpha 0x3c00 flag 1\n"));
  CHECK(contains(out, "scale: 0 scale grid=65536,1,1 threads=64/0"));
  CHECK(contains(out, "noop: 0 noop grid=1,1,1 threads=32/0"));
  CHECK(contains(out, "C: 4 [scale: n not a multiple of 8]\n"
                      "C alpha 0x4000\n"
                      "C: 0 []\n"));
}

//===----------------------------------------------------------------------===//
// TMA tensor maps (ParamInfo::isTensorMap): encoded by the stub, never in a
// signature. The generated text and a run against the fake driver are in
// tests/e2e/driver/stubs-tensormap.test; here, the emitter's refusals.
//===----------------------------------------------------------------------===//

namespace {

/// tma(src: tensor<f32, 2>, n: i32) + the map of src.
ModuleInfo tensorMapModule() {
  ModuleInfo m;
  m.stem = "tma";
  m.sourcePath = "tma.kc";
  m.targets = {"sm_90a"};
  m.fatbinContents = "sm_90a";
  KernelInfo k;
  k.name = "tma";
  Specialization s;
  s.symbol = "tma";
  ParamInfo base = ptr("src", ScalarKind::F32, 16);
  base.tensorRank = 2;
  ParamInfo map;
  map.name = "src__map0";
  map.isTensorMap = true;
  map.elem = ScalarKind::F32;
  map.tensorBase = 0;
  map.box = {32, 64};
  map.swizzle = 0;
  s.params = {base,
              scalar("src_dim0", ScalarKind::I32),
              scalar("src_dim1", ScalarKind::I32),
              scalar("src_stride0", ScalarKind::I32),
              scalar("n", ScalarKind::I32),
              map};
  s.grid = {"n", "1", "1"};
  s.builds = builds(128);
  k.specializations = {s};
  m.kernels.push_back(k);
  return m;
}

ParamInfo &theMap(ModuleInfo &m) {
  return m.kernels[0].specializations[0].params.back();
}

} // namespace

TEST_CASE("host stubs: tensor maps") {
  StubFiles f;
  std::string error, kernel, name;
  REQUIRE(emitCudaStubs(tensorMapModule(), "x", f, error));
  CHECK(contains(f.header, "kcc::Status tma(float *src, int32_t src_dim0, "
                           "int32_t src_dim1,\n"));
  CHECK(!contains(f.header, "map0"));
  CHECK(contains(f.source, "kcc::rt::TensorMap kcc_map0; // src__map0\n"));
  CHECK(contains(f.source, "&n, &kcc_map0};"));

  ModuleInfo m = tensorMapModule();
  m.kernels[0].specializations[0].builds = amdBuilds(256);
  // AMD images have no tensor maps: the HIP stub passes the user arguments
  // only and encodes nothing.
  REQUIRE(emitHipStubs(m, "x", f, error, kernel, name));
  CHECK(contains(f.source, "&n};"));
  CHECK(!contains(f.source, "encodeTensorMap"));
  CHECK(!contains(f.source, "kcc_map0"));

  const char *prefix =
      "internal error: tensor map parameter 'src__map0' of tma";
  m = tensorMapModule();
  theMap(m).tensorBase = 9;
  REQUIRE_FALSE(emitCudaStubs(m, "x", f, error, kernel, name));
  CHECK(error ==
        std::string(prefix) + " maps parameter #9, which does not exist");
  CHECK(name == "src__map0");
  m = tensorMapModule();
  theMap(m).tensorBase = 4;
  CHECK(emitError(m) == std::string(prefix) +
                            " maps 'n', which is not the base pointer of a "
                            "tensor parameter");
  m = tensorMapModule();
  m.kernels[0].specializations[0].params[0].tensorRank = 0;
  CHECK(contains(emitError(m), "maps 'src', which is not the base pointer"));
  m = tensorMapModule();
  m.kernels[0].specializations[0].params[2].isPointer = true;
  CHECK(emitError(m) == std::string(prefix) +
                            ": size or stride 'src_dim1' of tensor 'src' is "
                            "not an integer parameter");
  m = tensorMapModule();
  theMap(m).elem = ScalarKind::F16;
  CHECK(emitError(m) ==
        std::string(prefix) + " has element type f16 but tensor 'src' has f32");
  // A lifted tile of pointers' map: its own sizes and strides, one per
  // box dimension (strides: one fewer).
  m = tensorMapModule();
  theMap(m).mapSizes = {"n"};
  theMap(m).mapStrides = {};
  CHECK(emitError(m) == std::string(prefix) +
                            " maps 'src' with sizes and strides that do not "
                            "match its box");
  m = tensorMapModule();
  theMap(m).mapSizes = {"n", "7"};
  theMap(m).mapStrides = {"n"};
  REQUIRE(emitCudaStubs(m, "x", f, error, kernel, name));
  CHECK(contains(f.source, "const int64_t kcc_dims[] = {n, 7};"));
  CHECK(contains(f.source, "const int64_t kcc_strides[] = {n};"));
  m = tensorMapModule();
  theMap(m).box = {64};
  CHECK(emitError(m) == std::string(prefix) +
                            " has a box of rank 1 but tensor 'src' has rank 2");
  m = tensorMapModule();
  theMap(m).box = {32, 512};
  CHECK(emitError(m) ==
        std::string(prefix) + " has box side 512, outside TMA's 1..256");
  m = tensorMapModule();
  theMap(m).swizzle = 16;
  CHECK(emitError(m) ==
        std::string(prefix) + " has swizzle 16, not 0, 32, 64 or 128 bytes");
}

TEST_CASE("host stubs: a fallback build for tensors outside the contract") {
  ModuleInfo m = tensorMapModule();
  Specialization &s = m.kernels[0].specializations[0];
  s.symbol = "tma_f32";
  s.constants = {dtypeConst("T", ScalarKind::F32)};
  s.params[3].divisibility = 4; // src_stride0: the contract's 16 bytes
  s.builds = builds(128);
  Specialization f = s;
  f.symbol = "tma_f32__fallback";
  f.fallbackOf = "tma_f32";
  f.params.pop_back(); // no tensor map
  f.params[0].align = 4;
  f.params[3].divisibility = 0;
  f.builds = builds(256);
  m.kernels[0].fallbackBuilds.push_back(f);
  StubFiles out;
  std::string error, kernel, name;
  REQUIRE(emitCudaStubs(m, "x", out, error));
  // The fallback's internal launch function comes first; the launch checks
  // the contract (what its facts claim beyond the fallback's) and hands the
  // same arguments over where it fails, before any check of its own.
  CHECK(contains(out.source,
                 "static kcc::Status kcc_variant_tma_f32__fallback("));
  CHECK(out.source.find("kcc_variant_tma_f32__fallback(") <
        out.source.find("kcc::Status tma_f32("));
  CHECK(
      contains(out.source,
               "  if (!(reinterpret_cast<uintptr_t>(src) % 16 == 0 &&\n"
               "        src_stride0 >= 0 && src_stride0 % 4 == 0))\n"
               "    return kcc_variant_tma_f32__fallback(\n"
               "        src, src_dim0, src_dim1, src_stride0, n, stream);\n"));
  CHECK(contains(out.source,
                 "\"tma_f32__fallback\", threads_tma_f32__fallback, 2};"));
  CHECK(!contains(out.header, "tma_f32__fallback("));
  // The dispatcher by constants runs the specialization, never its
  // fallback build directly.
  CHECK(contains(out.source, "return ::tma::tma_f32("));
  CHECK(!contains(out.source, "::tma::tma_f32__fallback("));
  CHECK(contains(out.header, "/// Tensors outside the tensor contract"));
  std::string manifest = emitManifest(m, "0.1.0", {});
  CHECK(contains(manifest, "\"fallback\": {\n"));
  CHECK(contains(manifest, "\"symbol\": \"tma_f32__fallback\""));

  // A target that could not build it: the launch keeps refusing such
  // tensors (no call), and the manifest says where and why.
  m.kernels[0].fallbackBuilds[0].builds.pop_back();
  m.kernels[0].fallbackBuilds[0].notBuilt = {{"sm_90a", "too big"}};
  REQUIRE(emitCudaStubs(m, "x", out, error));
  CHECK(!contains(out.source, "kcc_variant_tma_f32__fallback"));
  CHECK(contains(emitManifest(m, "0.1.0", {}), "\"not_built\": [\n"));
}
