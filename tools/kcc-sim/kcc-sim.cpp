//===- kcc-sim.cpp - run a lowered kcc kernel in the SIMT simulator -------===//
//
//   kcc-sim FILE.kc --lower --target=gfx942 [-D N=V] [-o OUT.mlir]
//       prints kcc's lowering of FILE.kc (LLVM dialect + NVVM/ROCDL, with
//       source locations) for the target: the input of the second form.
//   kcc-sim FILE.mlir --target=sm_90a [--kernel=SYM]
//       --arg n=1000 --buffer x=f32:1000:uniform(-1,1,7) --buffer out=f32:8
//       [--tensor-map tm=x:dims=64x32:box=32x16[:strides=256][:swizzle=128]]
//       [--grid=X,Y,Z] [--seed=N --seeds=K] [--print=out]
//       [--expect=out=1,2,3 --rtol=R --atol=A] [--bank-conflicts]
//       runs the kernel on the simulator (docs/simulator.md); exit status 1
//       on a report (deadlock, race, out-of-bounds, ...) or a mismatch.
//
//===----------------------------------------------------------------------===//
#include "ir/MessageText.h"
#include "sim/Float.h"
#include "sim/Reports.h"
#include "sim/Simulator.h"
#include "tools/kcc-difftest/Compare.h"
#include "tools/kcc-difftest/Inputs.h"

#include "pipeline/Pipeline.h"
#include "frontend/Frontend.h"
#include "interp/Element.h"
#include "ir/CExpr.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

using namespace llvm;
using namespace kcc;

static cl::OptionCategory category("kcc-sim options");
static cl::opt<std::string> input(cl::Positional,
                                  cl::desc("<input .mlir or .kc>"),
                                  cl::Required, cl::cat(category));
static cl::opt<bool> lower("lower",
                           cl::desc("Input is a .kc file: print its lowering "
                                    "for --target (LLVM dialect, with source "
                                    "locations)"),
                           cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::desc("--lower: output file"),
                                       cl::init("-"), cl::cat(category));
static cl::list<std::string> defines("D", cl::desc("--lower: set a constant"),
                                     cl::value_desc("NAME=VALUE"), cl::Prefix,
                                     cl::cat(category));
static cl::opt<unsigned> numWarps("num-warps",
                                  cl::desc("--lower: warps per CTA (0: the "
                                           "compiler's choice)"),
                                  cl::init(0), cl::cat(category));
static cl::opt<bool> pingPong(
    "ping-pong", cl::cat(category),
    cl::desc("With --lower: as kcc --ping-pong (two consumer groups on "
             "alternate tiles of a warp-specialized persistent GEMM; default: "
             "true, as kcc)"),
    cl::init(true));
static cl::opt<unsigned> persistent(
    "persistent",
    cl::desc("--lower: also compile group(N) kernels' persistent builds, as "
             "kcc --persistent=N does"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<unsigned> clusters(
    "clusters",
    cl::desc("--lower: launch group(N) kernels as clusters of this many CTAs "
             "(2), their shared TMA loads multicast, as kcc --clusters=N "
             "does"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<std::string> targetName("target",
                                       cl::desc("Target model (warp size, "
                                                "bank model, shared size)"),
                                       cl::init("sm_90a"), cl::cat(category));
static cl::opt<std::string> kernelName("kernel",
                                       cl::desc("The llvm.func to run "
                                                "(default: the only kernel)"),
                                       cl::cat(category));
static cl::list<std::string> scalarArgs("arg", cl::desc("A scalar argument"),
                                        cl::value_desc("NAME=VALUE"),
                                        cl::cat(category));
static cl::list<std::string> bufferArgs(
    "buffer",
    cl::desc("A buffer for a pointer argument: TYPE:N[:INIT], INIT "
             "= zero | fill(V) | iota | uniform(MIN,MAX,SEED) | V,V,..."),
    cl::value_desc("NAME=TYPE:N[:INIT]"), cl::cat(category));
static cl::list<std::string> tensorMapArgs(
    "tensor-map",
    cl::desc("A tensor-map argument over a buffer: "
             "BUF:dims=D0xD1..:box=B0xB1..[:strides=S1x..][:swizzle=N] "
             "(dimension 0 innermost, strides in bytes)"),
    cl::value_desc("NAME=SPEC"), cl::cat(category));
static cl::opt<std::string> gridOpt("grid",
                                    cl::desc("CTAs (default: the kernel's "
                                             "kcc.grid)"),
                                    cl::value_desc("X[,Y[,Z]]"),
                                    cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Schedule seed"), cl::init(1),
                              cl::cat(category));
static cl::opt<unsigned> hostThreads(
    "host-threads",
    cl::desc("Host threads that run CTAs side by side (0: $KCC_SIM_THREADS, "
             "else one per core); the result is the same for every count"),
    cl::init(0), cl::cat(category));
static cl::opt<unsigned> seeds("seeds",
                               cl::desc("Run this many schedules (seeds "
                                        "seed, seed+1, ...)"),
                               cl::init(1), cl::cat(category));
static cl::list<std::string> printBuffers("print",
                                          cl::desc("Print a buffer after the "
                                                   "run"),
                                          cl::value_desc("NAME"),
                                          cl::cat(category));
static cl::list<std::string> expects("expect",
                                     cl::desc("Expected contents of a buffer"),
                                     cl::value_desc("NAME=V,V,..."),
                                     cl::cat(category));
static cl::opt<double> rtolOpt("rtol", cl::init(1e-5), cl::cat(category),
                               cl::desc("--expect: relative tolerance"));
static cl::opt<double> atolOpt("atol", cl::init(1e-6), cl::cat(category),
                               cl::desc("--expect: absolute tolerance"));
static cl::opt<bool> bankConflicts("bank-conflicts",
                                   cl::desc("Print the bank-conflict summary "
                                            "of every shared access op"),
                                   cl::cat(category));
static cl::opt<bool> noRaces("no-race-check", cl::cat(category),
                             cl::desc("Do not check shared-memory races"));
static cl::opt<bool> noUninit("no-uninit-check", cl::cat(category),
                              cl::desc("Allow reads of unwritten shared "
                                       "memory"));
static cl::opt<uint64_t>
    maxInstructions("max-instructions", cl::init(0), cl::cat(category),
                    cl::desc("Stop after this many "
                             "instructions (0: no limit)"));

namespace {

int fail(const Twine &msg) {
  WithColor::error(errs(), "kcc-sim") << msg << "\n";
  return 1;
}

void registerDialects(mlir::MLIRContext &ctx) {
  mlir::DialectRegistry registry;
  pipeline::registerCompilerDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
}

int runLower() {
  auto source = MemoryBuffer::getFile(input, /*IsText=*/true);
  if (!source)
    return fail("cannot read '" + input + "': " + source.getError().message());
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*source), SMLoc());
  mlir::MLIRContext ctx;
  registerDialects(ctx);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  frontend::Options options;
  for (const std::string &d : defines) {
    auto [name, value] = StringRef(d).split('=');
    if (name.empty() || value.empty())
      return fail("-D expects NAME=VALUE, got '" + d + "'");
    options.defines.push_back({name.str(), value.str()});
  }
  const TargetModel *target = TargetRegistry::builtin().lookup(targetName);
  if (!target)
    return fail("unknown target '" + elidedText(targetName) + "'");
  unsigned errors = 0;
  mlir::OwningOpRef<mlir::ModuleOp> tile =
      frontend::buildTileIR(sourceMgr, ctx, options, errors);
  if (!tile || errors)
    return 1;
  // As kcc compiles it: the coverage proof, a group(N) kernel's 1-D launch
  // in grouped order (its kcc.grid, which the run reads, is the flat grid
  // too), the tensor maps, the layout pipeline and the lowering.
  pipeline::TileOptions tileOptions;
  tileOptions.persistent = persistent;
  if (std::string why = pipeline::clusterSizeError(clusters); !why.empty())
    return fail(why);
  tileOptions.cluster = clusters;
  // The build for tensors in the contract only (kcc-difftest runs the
  // fallback builds where its cases' tensors break it).
  tileOptions.fallbackBuilds = false;
  tileOptions.splitK = false;
  // One build per kernel, its `if`s as written: a run names the kernel, and
  // nothing here would pick a branch's build (kcc-difftest does).
  tileOptions.versionBranches = false;
  mlir::PassManager pm(&ctx);
  pipeline::buildTilePipeline(pm, tileOptions);
  if (failed(pm.run(*tile)))
    return 1;
  // As kcc: no persistent build where the tiles run different trip counts.
  pipeline::dropUnevenPersistentBuilds(*tile);
  pipeline::LayoutOptions layout;
  layout.numWarps = numWarps;
  layout.pingPong = pingPong;
  mlir::OwningOpRef<mlir::ModuleOp> withMaps =
      pipeline::withTensorMaps(*tile, *target);
  mlir::OwningOpRef<mlir::ModuleOp> lowered =
      withMaps ? pipeline::lowerForSimulator(*withMaps, *target, layout)
               : nullptr;
  if (!lowered)
    return 1;
  std::string err;
  auto out = mlir::openOutputFile(outputPath, &err);
  if (!out)
    return fail(err);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  lowered->print(out->os(), flags);
  out->os() << "\n";
  out->keep();
  return 0;
}

/// "a=b" -> (a, b).
bool splitAssign(StringRef s, StringRef &name, StringRef &value) {
  std::tie(name, value) = s.split('=');
  return !name.empty() && s.contains('=');
}

bool parseDims(StringRef s, SmallVectorImpl<uint64_t> &out) {
  SmallVector<StringRef, 5> parts;
  s.split(parts, 'x');
  for (StringRef p : parts) {
    uint64_t v;
    if (p.getAsInteger(10, v))
      return false;
    out.push_back(v);
  }
  return !out.empty() && out.size() <= 5;
}

/// Parses INIT of --buffer into a difftest InitSpec.
bool parseInit(StringRef s, difftest::InitSpec &init, std::string &err) {
  if (s.empty() || s == "zero")
    return true;
  if (s.consume_front("fill(") && s.consume_back(")")) {
    if (s.trim().getAsDouble(init.value)) {
      err = "fill(V) expects a number";
      return false;
    }
    return true;
  }
  if (s == "iota") {
    init.kind = difftest::InitSpec::Iota;
    return true;
  }
  if (s.consume_front("uniform(") && s.consume_back(")")) {
    SmallVector<StringRef, 3> p;
    s.split(p, ',');
    if (p.size() != 3 || p[0].trim().getAsDouble(init.min) ||
        p[1].trim().getAsDouble(init.max) ||
        p[2].trim().getAsInteger(10, init.seed)) {
      err = "uniform(MIN,MAX,SEED) expects two numbers and an integer";
      return false;
    }
    init.kind = difftest::InitSpec::Uniform;
    return true;
  }
  SmallVector<StringRef, 16> values;
  s.split(values, ',');
  init.kind = difftest::InitSpec::List;
  for (StringRef v : values) {
    double d;
    if (v.trim().getAsDouble(d)) {
      err = "'" + v.str() +
            "' is not a number (INIT is zero, iota, "
            "uniform(MIN,MAX,SEED) or a list of values)";
      return false;
    }
    init.values.push_back(d);
  }
  return true;
}

struct NamedBuffer {
  std::string name;
  interp::NpyArray array;
};

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "kcc-sim: run kcc's lowered kernels in the SIMT "
                              "simulator\n");
  if (lower)
    return runLower();

  const TargetModel *target = TargetRegistry::builtin().lookup(targetName);
  if (!target)
    return fail("unknown target '" + elidedText(targetName) + "' (known: " +
                join(TargetRegistry::builtin().names(), ", ") + ")");

  mlir::MLIRContext ctx;
  registerDialects(ctx);
  SourceMgr sourceMgr;
  std::string err;
  auto file = mlir::openInputFile(input, &err);
  if (!file)
    return fail(err);
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return 1;

  // The kernel.
  mlir::LLVM::LLVMFuncOp func;
  std::vector<std::string> kernels;
  for (auto f : module->getOps<mlir::LLVM::LLVMFuncOp>()) {
    if (f.isExternal())
      continue;
    kernels.push_back(f.getName().str());
    if (kernelName.empty() ? !func : f.getName() == kernelName)
      func = f;
  }
  if (!func || (kernelName.empty() && kernels.size() != 1))
    return fail(kernels.empty()
                    ? "no llvm.func with a body in " + input
                    : (kernelName.empty()
                           ? "several kernels; choose one with "
                             "--kernel (" +
                                 join(kernels, ", ") + ")"
                           : "no kernel '" + kernelName +
                                 "' (kernels: " + join(kernels, ", ") + ")"));

  // Arguments by name (kcc.arg_names, else arg<i>).
  auto names = func->getAttrOfType<mlir::ArrayAttr>("kcc.arg_names");
  auto argTypes = func.getArgumentTypes();
  auto argName = [&](size_t i) {
    return names && i < names.size() ? cast<mlir::StringAttr>(names[i]).str()
                                     : "arg" + std::to_string(i);
  };
  StringMap<std::string> scalars, bufferSpecs, mapSpecs;
  // Buffers may also be named only by a tensor map (the memory it covers).
  auto collect = [&](cl::list<std::string> &list, StringMap<std::string> &into,
                     const char *flag, bool anyName = false) -> bool {
    for (const std::string &s : list) {
      StringRef name, value;
      if (!splitAssign(s, name, value))
        return fail(Twine("--") + flag + " expects NAME=VALUE, got '" + s +
                    "'"),
               false;
      if (!anyName &&
          !llvm::any_of(llvm::seq<size_t>(0, argTypes.size()),
                        [&](size_t i) { return argName(i) == name; }))
        return fail(Twine("--") + flag + " " + name + ": @" + func.getName() +
                    " has no parameter named '" + name + "'"),
               false;
      into[name] = value.str();
    }
    return true;
  };
  if (!collect(scalarArgs, scalars, "arg") ||
      !collect(bufferArgs, bufferSpecs, "buffer", /*anyName=*/true) ||
      !collect(tensorMapArgs, mapSpecs, "tensor-map"))
    return 1;

  std::vector<NamedBuffer> arrays;
  auto bufferIndex = [&](StringRef name) -> std::optional<unsigned> {
    for (unsigned i = 0; i < arrays.size(); ++i)
      if (arrays[i].name == name)
        return i;
    return std::nullopt;
  };
  // Buffers first (tensor maps refer to them).
  for (auto &[name, spec] : bufferSpecs) {
    SmallVector<StringRef, 3> parts;
    StringRef(spec).split(parts, ':', 2);
    uint64_t n;
    std::optional<interp::DType> dtype =
        parts.size() >= 2 ? interp::parseDType(parts[0].str()) : std::nullopt;
    if (!dtype || parts[1].getAsInteger(10, n) || n == 0 || n > (1ull << 32))
      return fail("--buffer " + name.str() + "=" + spec +
                  ": expected TYPE:N[:INIT] with a type such as f32 and N in "
                  "[1, 2^32]");
    NamedBuffer b;
    b.name = name.str();
    b.array.dtype = *dtype;
    b.array.shape = {int64_t(n)};
    b.array.data.assign(n * interp::dtypeSize(*dtype), 0);
    difftest::InitSpec initSpec;
    std::string e;
    if (!parseInit(parts.size() == 3 ? parts[2] : "", initSpec, e))
      return fail("--buffer " + name.str() + ": " + e);
    if (initSpec.kind == difftest::InitSpec::List &&
        initSpec.values.size() != n)
      return fail(formatv("--buffer {0}: {1} values for {2} elements", name,
                          initSpec.values.size(), n));
    difftest::fillBuffer(initSpec, b.array);
    arrays.push_back(std::move(b));
  }
  std::vector<sim::TensorMap> maps;
  StringMap<unsigned> mapIndex;
  for (auto &[name, spec] : mapSpecs) {
    SmallVector<StringRef, 6> parts;
    StringRef(spec).split(parts, ':');
    std::optional<unsigned> buf = bufferIndex(parts[0]);
    if (!buf)
      return fail("--tensor-map " + name.str() + ": no --buffer named '" +
                  parts[0] + "'");
    sim::TensorMap m;
    m.buffer = *buf;
    m.elementBytes = interp::dtypeSize(arrays[*buf].array.dtype);
    SmallVector<uint64_t, 5> dims, box, strides;
    for (StringRef p : ArrayRef(parts).drop_front()) {
      StringRef key, value;
      bool ok = splitAssign(p, key, value);
      if (ok && key == "dims")
        ok = parseDims(value, dims);
      else if (ok && key == "box")
        ok = parseDims(value, box);
      else if (ok && key == "strides")
        ok = parseDims(value, strides);
      else if (ok && key == "swizzle")
        ok = !value.getAsInteger(10, m.swizzleBytes) &&
             (m.swizzleBytes == 0 || m.swizzleBytes == 32 ||
              m.swizzleBytes == 64 || m.swizzleBytes == 128);
      else
        ok = false;
      if (!ok)
        return fail("--tensor-map " + name.str() + ": bad field '" + p + "'");
    }
    if (dims.empty() || dims.size() != box.size())
      return fail("--tensor-map " + name.str() +
                  ": dims and box must have the same rank");
    m.rank = dims.size();
    uint64_t stride = m.elementBytes;
    for (unsigned d = 0; d < m.rank; ++d) {
      m.dims[d] = dims[d];
      m.box[d] = box[d];
      if (d > 0) {
        m.strideBytes[d] = d - 1 < strides.size() ? strides[d - 1] : stride;
        stride = m.strideBytes[d];
      }
      stride *= dims[d];
    }
    mapIndex[name] = maps.size();
    maps.push_back(m);
  }

  std::vector<sim::KernelArg> args;
  StringMap<int64_t> intScalars;
  for (size_t i = 0; i < argTypes.size(); ++i) {
    std::string name = argName(i);
    mlir::Type t = argTypes[i];
    sim::KernelArg a;
    if (isa<mlir::LLVM::LLVMPointerType>(t)) {
      if (std::optional<unsigned> b = bufferIndex(name)) {
        a.kind = sim::KernelArg::Pointer;
        a.index = *b;
      } else if (mapIndex.count(name)) {
        a.kind = sim::KernelArg::TensorMapPtr;
        a.index = mapIndex[name];
      } else {
        return fail("pointer parameter '" + name + "' needs --buffer " + name +
                    "=TYPE:N or --tensor-map");
      }
      args.push_back(a);
      continue;
    }
    auto it = scalars.find(name);
    if (it == scalars.end())
      return fail("scalar parameter '" + name + "' needs --arg " + name +
                  "=VALUE");
    StringRef v = it->second;
    if (auto it2 = dyn_cast<mlir::IntegerType>(t)) {
      int64_t x;
      if (v.getAsInteger(0, x))
        return fail("--arg " + name + "=" + v + ": not an integer");
      unsigned w = it2.getWidth();
      if (w < 64 && (x >= (int64_t(1) << w) || x < -(int64_t(1) << (w - 1))))
        return fail("--arg " + name + "=" + v + " does not fit in i" +
                    Twine(w));
      a.bits = uint64_t(x) & (w >= 64 ? ~0ull : (1ull << w) - 1);
      intScalars[name] = x;
    } else if (isa<mlir::FloatType>(t)) {
      double x;
      if (v.getAsDouble(x))
        return fail("--arg " + name + "=" + v + ": not a number");
      if (t.isF32())
        a.bits = uint32_t(sim::bitsOf(float(x)));
      else if (t.isF64())
        a.bits = sim::bitsOf(x);
      else if (t.isF16())
        a.bits = sim::floatToHalf(float(x));
      else
        a.bits = sim::floatToBF16(float(x));
    } else {
      return fail("parameter '" + name + "' has an unsupported type");
    }
    args.push_back(a);
  }

  // The grid: --grid, else the kernel's kcc.grid expressions.
  std::array<uint32_t, 3> grid = {1, 1, 1};
  if (!gridOpt.empty()) {
    SmallVector<StringRef, 3> parts;
    StringRef(gridOpt).split(parts, ',');
    if (parts.size() > 3)
      return fail("--grid expects X[,Y[,Z]]");
    for (size_t d = 0; d < parts.size(); ++d)
      if (parts[d].getAsInteger(10, grid[d]) || grid[d] == 0)
        return fail("--grid: '" + parts[d] + "' is not a positive integer");
  } else if (auto g = func->getAttrOfType<mlir::ArrayAttr>("kcc.grid")) {
    for (size_t d = 0; d < g.size() && d < 3; ++d) {
      int64_t v;
      std::string e;
      auto lookup = [&](std::string_view n) -> std::optional<int64_t> {
        auto it = intScalars.find(StringRef(n.data(), n.size()));
        if (it == intScalars.end())
          return std::nullopt;
        return it->second;
      };
      if (!kcc::evaluateCExpr(cast<mlir::StringAttr>(g[d]).getValue().str(),
                              lookup, v, e))
        return fail("kcc.grid: " + e);
      if (v < 0 || v > (int64_t(1) << 31))
        return fail(
            formatv("kcc.grid evaluates to {0} CTAs in dimension {1}", v, d));
      grid[d] = uint32_t(v);
    }
  }

  sim::Options options = sim::optionsFor(*target);
  options.checkRaces = !noRaces;
  options.checkUninitializedShared = !noUninit;
  options.maxInstructions = maxInstructions;
  options.hostThreads = hostThreads;

  std::vector<sim::GlobalBuffer> initial;
  for (const NamedBuffer &b : arrays)
    initial.push_back(
        {b.name, b.array.data, unsigned(interp::dtypeSize(b.array.dtype))});
  std::vector<sim::GlobalBuffer> buffers;
  sim::Result result;
  auto start = std::chrono::steady_clock::now();
  unsigned ran = 0;
  for (unsigned s = 0; s < std::max(1u, unsigned(seeds)); ++s) {
    buffers = initial;
    options.seed = seed + s;
    result = sim::simulate(func, args, buffers, maps, grid, options);
    ++ran;
    if (!result.ok()) {
      if (seeds > 1)
        errs() << "kcc-sim: schedule seed " << options.seed << " failed\n";
      break;
    }
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  sim::printReports(result.reports, sourceMgr, errs());
  bool ok = result.ok();
  for (size_t i = 0; i < arrays.size(); ++i)
    arrays[i].array.data = buffers[i].bytes;
  for (const std::string &p : printBuffers) {
    std::optional<unsigned> b = bufferIndex(p);
    if (!b)
      return fail("--print " + p + ": no such buffer");
    outs() << p << " =";
    for (int64_t i = 0; i < arrays[*b].array.numElements(); ++i)
      outs() << " " << difftest::formatElement(arrays[*b].array, i);
    outs() << "\n";
  }
  for (const std::string &e : expects) {
    StringRef name, values;
    if (!splitAssign(e, name, values))
      return fail("--expect expects NAME=V,V,...");
    std::optional<unsigned> b = bufferIndex(name);
    if (!b)
      return fail("--expect " + name + ": no such buffer");
    difftest::InitSpec spec;
    std::string perr;
    if (!parseInit(values, spec, perr) || spec.kind != difftest::InitSpec::List)
      return fail("--expect " + name + ": " +
                  (perr.empty() ? "expected a list of values" : perr));
    interp::NpyArray ref = arrays[*b].array;
    if (int64_t(spec.values.size()) != ref.numElements())
      return fail(formatv("--expect {0}: {1} values for {2} elements", name,
                          spec.values.size(), ref.numElements()));
    difftest::fillBuffer(spec, ref);
    difftest::Comparison cmp = difftest::compareArrays(
        name.str(), ref, arrays[*b].array, {rtolOpt, atolOpt});
    if (!cmp.ok) {
      errs() << "kcc-sim: error: " << cmp.summary << "\n";
      ok = false;
    }
  }
  if (bankConflicts)
    sim::printBankSummary(result.banks, outs(), /*all=*/true);
  outs() << formatv(
      "kcc-sim: @{0} on {1}: {2} ({3} CTAs of {4} threads, {5} "
      "instructions, {6} schedule{7}, {8:f1} ms)\n",
      func.getName(), target->name, ok ? "PASS" : "FAIL", result.stats.ctas,
      result.stats.ctas ? result.stats.threads / result.stats.ctas : 0,
      result.stats.instructions, ran, ran == 1 ? "" : "s", ms);
  return ok ? 0 : 1;
}
