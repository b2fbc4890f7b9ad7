//===- kcc-difftest.cpp - differential testing of kcc kernels -------------===//
//
//   kcc-difftest FILE.kc CASES.toml [-D N=V] [--print-outputs]
//                [--legs=interp,sim-sm_90a,sim-gfx942] [--bank-conflicts]
//                [--sim-module=TARGET=FILE.mlir]
//                [--emit-cases DIR [--fatbin FILE.fatbin]]
//   kcc-difftest --compare DIR
//
// Runs every (kernel, specialization, case) of a case file through the tile
// IR interpreter (the `interp` leg, the reference; a group(N) kernel runs
// over its 2-D grid) and the SIMT simulator on kcc's lowering for each
// simulated target (the `sim-<target>` legs, SimLegs.h; a group(N) kernel
// runs as kcc launches it), and prints a table of legs. With --emit-cases it
// also writes the inputs, the interpreter's outputs and a run list for the
// GPU leg (gpu-leg/KccGpuLeg.cpp); --compare then checks the GPU's outputs
// against the interpreter's. docs/difftest.md has the whole procedure.
//
//===----------------------------------------------------------------------===//
#include "ir/ElementTypes.h"
#include "ir/MessageText.h"
#include "tools/kcc-difftest/CaseFile.h"
#include "tools/kcc-difftest/Compare.h"
#include "tools/kcc-difftest/Inputs.h"
#include "tools/kcc-difftest/RunList.h"
#include "tools/kcc-difftest/SimLegs.h"
#include "tools/kcc-difftest/Table.h"

#include "frontend/Frontend.h"
#include "interp/Element.h"
#include "interp/Interpreter.h"
#include "ir/CExpr.h"
#include "ir/Dialect.h"
#include "passes/Passes.h"
#include "passes/transforms/KernelBuilds.h"
#include "pipeline/Pipeline.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include "mlir/Pass/PassManager.h"
#include "sim/Reports.h"

#include <atomic>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

using namespace llvm;
using namespace kcc;
using namespace kcc::difftest;
using interp::DType;

static cl::OptionCategory category("kcc-difftest options");
static cl::list<std::string>
    positional(cl::Positional, cl::desc("<input .kc file> <case file .toml>"),
               cl::cat(category));
static cl::list<std::string>
    defines("D", cl::desc("Set a constant parameter (as kcc -D)"),
            cl::value_desc("NAME=VALUE"), cl::Prefix, cl::cat(category));
static cl::opt<bool>
    printOutputs("print-outputs",
                 cl::desc("Print every output buffer the interpreter computed"),
                 cl::cat(category));
static cl::opt<std::string> emitCases(
    "emit-cases",
    cl::desc("Write inputs, interpreter outputs and a run list for the GPU "
             "leg to DIR/<stem>/"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> fatbinPath(
    "fatbin",
    cl::desc("With --emit-cases: the fatbin (or HIP .hipfb) kcc compiled from the same .kc "
             "(its <stem>.manifest.json must be next to it)"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string> legsOpt(
    "legs",
    cl::desc("Comma-separated CPU legs: interp (the reference, always run), "
             "sim-sm_90a, sim-gfx942, sim-<target> (default: all CPU legs)"),
    cl::init("interp,sim-sm_90a,sim-gfx942"), cl::cat(category));
static cl::list<std::string> simModules(
    "sim-module",
    cl::desc(
        "Run the sim leg of TARGET on this LLVM-dialect module instead "
        "of kcc's lowering (tests of the simulator with broken lowerings)"),
    cl::value_desc("TARGET=FILE.mlir"), cl::cat(category));
static cl::opt<bool> bankConflicts(
    "bank-conflicts",
    cl::desc("Print the shared-memory bank conflicts of each sim leg, per op"),
    cl::cat(category));
static cl::opt<bool>
    timeLegs("time-legs",
             cl::desc("Print the wall time of the CPU legs over all cases: the "
                      "interpreter's, and the sim legs' (run side by side)"),
             cl::cat(category));
static cl::opt<uint64_t> maxCaseBytes(
    "max-case-bytes",
    cl::desc("The most bytes one case's buffers may take together (default "
             "4 GiB); a larger case is refused at its buffer, not allocated"),
    cl::init(uint64_t(1) << 32), cl::cat(category));

// Step budgets: a loop that never ends (a `while` whose condition never
// turns false) is a located error instead of a hang.
static cl::opt<uint64_t> maxInterpSteps(
    "max-interp-steps",
    cl::desc("Stop the interpreter's run of a case with an error after this "
             "many operations (default 100000000; 0: no limit)"),
    cl::init(100000000), cl::cat(category));
static cl::opt<uint64_t> simMaxInstructions(
    "max-sim-instructions",
    cl::desc("Stop a simulator leg's run of a case with an error after this "
             "many instructions over all its threads (default 4000000000, "
             "minutes of simulation; 0: no limit)"),
    cl::init(4000000000ull), cl::cat(category));
static cl::opt<uint64_t> simMaxThreads(
    "sim-max-threads",
    cl::desc("Skip (with a reason) sim cases with more CTAs x threads"),
    cl::init(1ull << 22), cl::cat(category));
static cl::opt<bool> fallbackBuildsOpt(
    "fallback-builds",
    cl::desc("Compile kernels over tensor<> parameters with their fallback "
             "builds (as kcc does by default); cases whose strides break the "
             "tensor contract run them. With =false such cases are refused, "
             "as the launch would refuse them (default: true)"),
    cl::init(true), cl::cat(category));
static cl::opt<unsigned> persistentOpt(
    "persistent",
    cl::desc("Also compile group(N) kernels' persistent builds (as kcc "
             "--persistent=N); the sim legs launch one, over N CTAs per "
             "multiprocessor, where a case's grid has more tiles than that"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<unsigned> clustersOpt(
    "clusters",
    cl::desc("Compile group(N) kernels as kcc --clusters=N (2): the sim legs "
             "launch them as clusters, their shared loads multicast "
             "(default: 0, none)"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<unsigned> splitKOpt(
    "split-k",
    cl::desc("Also compile GEMM-shaped kernels' split-K builds (as kcc "
             "--split-k) and run each case's sim legs through them with N "
             "slices, as the stubs run them: the slices into a workspace, "
             "each tile's last slice summing them (0: the kernel as built)"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<bool> pingPongOpt(
    "ping-pong",
    cl::desc("Compile as kcc --ping-pong: warp-specialized persistent GEMMs "
             "run two consumer groups on alternate tiles (default: true, as "
             "kcc)"),
    cl::init(true), cl::cat(category));
static cl::opt<cl::boolOrDefault> warpgroupTurnsOpt(
    "warpgroup-turns",
    cl::desc("Compile as kcc --warpgroup-turns[=true|false]: whether two "
             "consumer warpgroups of an overlapped attention loop take turns "
             "issuing its products (default: the compiler's choice, as kcc)"),
    cl::cat(category));
static cl::opt<bool> latePromotionOpt(
    "late-promotion",
    cl::desc("Compile as kcc --late-promotion: a K block's wgmma product "
             "promoted into its running sum one iteration late (default: "
             "false, as kcc)"),
    cl::init(false), cl::cat(category));
static cl::opt<unsigned> simProcessors(
    "sim-processors",
    cl::desc("Multiprocessors of the simulated device, which choose and "
             "size a persistent launch and are num_multiprocessors() in "
             "grid expressions (default: 2; the GPU leg launches the grid "
             "computed with it)"),
    cl::init(2), cl::cat(category));
static cl::opt<uint64_t> simSeed("sim-seed",
                                 cl::desc("Schedule seed of the sim legs"),
                                 cl::init(1), cl::cat(category));
static cl::opt<unsigned> simThreads(
    "sim-threads",
    cl::desc("Host threads of the sim legs: with more than one, a case's "
             "legs run side by side and each leg's CTAs on up to N threads "
             "(0: $KCC_SIM_THREADS, else one per core); results and reports "
             "are the same for every count"),
    cl::init(0), cl::cat(category));
static cl::list<std::string> caseNames(
    "cases",
    cl::desc("Run only these cases: NAME (of any kernel) or KERNEL/NAME; "
             "each must select at least one case"),
    cl::value_desc("[KERNEL/]NAME,..."), cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string>
    compareDir("compare",
               cl::desc("Compare the legs' outputs in DIR (written by "
                        "--emit-cases and the GPU leg)"),
               cl::value_desc("DIR"), cl::cat(category));

namespace {

int fail(const Twine &msg) {
  WithColor::error(errs(), "kcc-difftest") << msg << "\n";
  return 1;
}

std::string typeString(mlir::Type t) {
  // The language's names of the 8-bit floats (MLIR prints f8E4M3FN).
  if (kcc::isFloat8(t))
    return kcc::elementTypeName(t);
  std::string s;
  raw_string_ostream os(s);
  os << t;
  return s;
}

std::optional<DType> dtypeOfType(mlir::Type t) {
  return interp::parseDType(typeString(t));
}

/// The kernels of the compiled file: base name -> specializations.
using KernelMap = StringMap<std::vector<mlir::func::FuncOp>>;

/// Threads per block of each symbol per NVIDIA target, from kcc's manifest.
using ThreadsMap = StringMap<std::vector<std::pair<unsigned, unsigned>>>;
/// The same per AMD target ("gfx942").
using AmdThreadsMap =
    StringMap<std::vector<std::pair<std::string, unsigned>>>;

bool readManifest(StringRef path, ThreadsMap &threads,
                  AmdThreadsMap &amdThreads, std::string &error) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf) {
    error = "cannot read " + path.str() + ": " + buf.getError().message();
    return false;
  }
  Expected<json::Value> v = json::parse((*buf)->getBuffer());
  if (!v) {
    error = path.str() + ": " + toString(v.takeError());
    return false;
  }
  const json::Object *root = v->getAsObject();
  const json::Array *kernels = root ? root->getArray("kernels") : nullptr;
  if (!kernels) {
    error = path.str() + ": no \"kernels\" array (not a kcc manifest?)";
    return false;
  }
  for (const json::Value &k : *kernels) {
    const json::Object *ko = k.getAsObject();
    const json::Array *specs = ko ? ko->getArray("specializations") : nullptr;
    // A specialization, its else-branch build and their fallback builds (a
    // launch may run any).
    std::vector<const json::Object *> builds;
    for (size_t i = 0; specs && i < specs->size(); ++i)
      for (const json::Object *so = (*specs)[i].getAsObject(); so;) {
        builds.push_back(so);
        if (const json::Object *fo = so->getObject("fallback"))
          builds.push_back(fo);
        const json::Object *eb = so->getObject("else_branch");
        so = eb ? eb->getObject("build") : nullptr;
      }
    for (const json::Object *so : builds) {
      std::optional<StringRef> symbol = so->getString("symbol");
      const json::Array *targets = so->getArray("targets");
      if (!symbol || !targets)
        continue;
      auto &list = threads[*symbol];
      for (const json::Value &t : *targets) {
        const json::Object *to = t.getAsObject();
        std::optional<StringRef> name =
            to ? to->getString("target") : std::nullopt;
        std::optional<int64_t> n =
            to ? to->getInteger("threads_per_block") : std::nullopt;
        unsigned sm = 0;
        if (name && n && name->starts_with("gfx"))
          amdThreads[*symbol].emplace_back(name->str(), unsigned(*n));
        if (!name || !n || !name->starts_with("sm_") ||
            name->drop_front(3).take_while(isDigit).getAsInteger(10, sm))
          continue;
        list.emplace_back(sm, unsigned(*n));
      }
    }
  }
  return true;
}

/// Everything one run of one case needs, checked against the signature.
struct PreparedCase {
  std::vector<interp::Buffer> buffers;
  std::vector<interp::KernelArg> args;
  std::vector<RunArg> runArgs;
  std::vector<RunOutput> outputs;
  /// The interpreter's grid (a group(N) kernel's 2-D grid) and the launch
  /// grid of kcc's code (its 1-D grid in grouped order), which the sim legs
  /// and the GPU leg run. The same for every other kernel.
  interp::Grid grid = {1, 1, 1};
  interp::Grid launchGrid = {1, 1, 1};
  /// The sim legs' launch: what the runtime launches on a device of
  /// --sim-processors multiprocessors (with --persistent, a persistent
  /// build over a capped grid when the grid has more tiles than CTAs).
  interp::Grid simGrid = {1, 1, 1};
  std::string simSymbol;
  /// --split-k: the sim legs run the kernel's split-K build instead.
  std::optional<SplitLaunch> split;
  // What the GPU leg launches: the kernel, or its fallback build where the
  // case's arguments break the kernel's facts.
  std::string runSymbol;
};

class DiffTest {
public:
  DiffTest(SourceMgr &sourceMgr, const CaseFile &cases)
      : sourceMgr(sourceMgr), cases(cases) {}

  /// `module` is the interpreter's (the kernels as written), `launched` the
  /// same kernels as kcc compiles them (kcc-rasterize-programs applied).
  int run(mlir::ModuleOp module, mlir::ModuleOp launched, StringRef stem) {
    launchedModule = launched;
    KernelMap kernels;
    std::vector<std::string> order;
    for (auto f : module.getOps<mlir::func::FuncOp>()) {
      auto base = f->getAttrOfType<mlir::StringAttr>("kcc.base_name");
      if (!base)
        continue;
      if (!kernels.count(base.getValue()))
        order.push_back(base.str());
      kernels[base.getValue()].push_back(f);
    }
    // Resolve every kernel and specialization first: a typo in the case
    // file is an error before anything runs.
    std::vector<std::vector<mlir::func::FuncOp>> selected;
    for (const KernelSpec &k : cases.kernels) {
      auto it = kernels.find(k.name);
      if (it == kernels.end())
        return caseError(k.loc, "no kernel named '" + elidedText(k.name) +
                                    "' in " + sourceName() +
                                    " (kernels: " + join(order, ", ") + ")");
      if (k.specializations.empty()) {
        selected.push_back(it->second);
        continue;
      }
      selected.emplace_back();
      for (size_t i = 0; i < k.specializations.size(); ++i) {
        const std::string &name = k.specializations[i];
        Loc loc = k.specializationLocs[i];
        auto f = find_if(it->second, [&](mlir::func::FuncOp f) {
          return f.getSymName() == name;
        });
        if (f == it->second.end()) {
          std::vector<std::string> names;
          for (auto g : it->second)
            names.push_back(g.getSymName().str());
          return caseError(loc, "kernel '" + k.name +
                                    "' has no specialization '" +
                                    elidedText(name) +
                                    "' (it has: " + join(names, ", ") + ")");
        }
        selected.back().push_back(*f);
      }
    }

    // The sim legs lower only the kernels the cases run (and their
    // persistent builds): a case file that tests a few of a file's many
    // specializations does not pay for compiling the rest on every leg.
    // A fallback build only where a case's scalars break its build's facts.
    llvm::StringSet<> used, fallbackUsed;
    for (auto [k, funcs] : zip(cases.kernels, selected))
      for (mlir::func::FuncOp f : funcs) {
        used.insert(f.getSymName());
        auto launchF =
            launched.lookupSymbol<mlir::func::FuncOp>(f.getSymName());
        for (const CaseSpec &c : k.cases)
          if (launchF && brokenFact(launchF, c))
            fallbackUsed.insert(f.getSymName());
      }
    // A used kernel's else-branch build is used with it (launched for the
    // cases its guard is false for).
    for (auto f : launched.getOps<mlir::func::FuncOp>())
      if (auto vo = f->getAttrOfType<mlir::FlatSymbolRefAttr>(
              KccDialect::kVersionOfAttr);
          vo && used.contains(vo.getValue())) {
        used.insert(f.getSymName());
        if (fallbackUsed.contains(vo.getValue()))
          fallbackUsed.insert(f.getSymName());
      }
    for (auto f :
         llvm::make_early_inc_range(launched.getOps<mlir::func::FuncOp>())) {
      auto of = f->getAttrOfType<mlir::FlatSymbolRefAttr>(
          KccDialect::kPersistentOfAttr);
      auto fb = f->getAttrOfType<mlir::FlatSymbolRefAttr>(
          KccDialect::kFallbackOfAttr);
      auto sk =
          f->getAttrOfType<mlir::FlatSymbolRefAttr>(KccDialect::kSplitKOfAttr);
      if (!used.contains(f.getSymName()) &&
          !(of && used.contains(of.getValue())) &&
          !(sk && used.contains(sk.getValue())) &&
          !(fb && fallbackUsed.contains(fb.getValue())))
        f.erase();
    }
    if (!prepareLegs(launched))
      return 1;
    if (!emitCases.empty() && !prepareEmit(stem))
      return 1;
    // Cases go through in windows: the window's interpreter runs side by
    // side (runInterps), then its sim legs (runSims), then each case's
    // output in case order. A window is bounded in cases and in bytes.
    bool anyFail = false;
    std::vector<std::unique_ptr<CaseRun>> window;
    uint64_t windowBytes = 0;
    auto flush = [&] {
      runInterps(window);
      runSims(window);
      for (auto &r : window)
        anyFail |= !finishCase(*r);
      window.clear();
      windowBytes = 0;
    };
    for (auto [k, funcs] : zip(cases.kernels, selected))
      for (mlir::func::FuncOp f : funcs)
        for (const CaseSpec &c : k.cases) {
          auto r = std::make_unique<CaseRun>(k, f, c);
          // A case-file error ends the run after the cases before it.
          std::string error;
          deferredError = &error;
          bool ok = prepare(f, c, r->p);
          deferredError = nullptr;
          if (!ok) {
            flush();
            errs() << error;
            return 1;
          }
          for (const interp::Buffer &b : r->p.buffers)
            windowBytes += 2 * b.array.data.size();
          window.push_back(std::move(r));
          if (window.size() >= kWindowCases || windowBytes >= kWindowBytes)
            flush();
        }
    flush();
    if (!emitCases.empty() && !finishEmit())
      return 1;
    table.print(outs());
    if (bankConflicts)
      printLegBankConflicts(simLegs, outs());
    if (timeLegs)
      outs() << formatv("wall time: interp {0:f3} s, sim legs {1:f3} s ({2} "
                        "host thread{3})\n",
                        interpSeconds, simSeconds,
                        sim::hostThreadCount(simThreads),
                        sim::hostThreadCount(simThreads) == 1 ? "" : "s");
    return anyFail ? 1 : 0;
  }

private:
  SourceMgr &sourceMgr;
  const CaseFile &cases;
  std::vector<SimLeg> simLegs;
  Table table{{}};
  mlir::ModuleOp launchedModule;
  double interpSeconds = 0, simSeconds = 0; // --time-legs
  /// Where caseError writes while a case is prepared ahead of the output of
  /// the cases before it; null: errs().
  std::string *deferredError = nullptr;
  /// A window of cases run side by side: at most this many, or the case
  /// that makes their buffers (before and after) this many bytes.
  static constexpr size_t kWindowCases = 64;
  static constexpr uint64_t kWindowBytes = 1ull << 29;

  /// The sim legs of --legs, each with its module; the table's columns.
  bool prepareLegs(mlir::ModuleOp module) {
    SmallVector<StringRef, 4> names;
    StringRef(legsOpt).split(names, ',', -1, /*KeepEmpty=*/false);
    std::map<std::string, std::string> overrides;
    for (const std::string &m : simModules) {
      auto [target, path] = StringRef(m).split('=');
      if (target.empty() || path.empty()) {
        fail("--sim-module expects TARGET=FILE.mlir, got '" + m + "'");
        return false;
      }
      overrides["sim-" + target.str()] = path.str();
    }
    std::vector<std::string> columns = {"interp"};
    for (StringRef n : names) {
      n = n.trim();
      if (n == "interp")
        continue;
      if (n == "gpu") {
        fail("the gpu leg runs on a GPU machine: see --emit-cases and "
             "--compare");
        return false;
      }
      if (!n.starts_with("sim-")) {
        fail("unknown leg '" + n + "' (CPU legs: " + join(cpuLegNames(), ", ") +
             ")");
        return false;
      }
      SimLeg leg;
      leg.name = n.str();
      std::string err;
      auto it = overrides.find(leg.name);
      kcc::pipeline::LayoutOptions layout;
      layout.pingPong = pingPongOpt;
      layout.warpgroupTurns =
          kcc::pipeline::warpgroupTurnsMode(warpgroupTurnsOpt);
      layout.latePromotion = latePromotionOpt;
      if (!prepareSimLeg(leg, module, it == overrides.end() ? "" : it->second,
                         layout, err)) {
        fail(err);
        return false;
      }
      if (it != overrides.end())
        overrides.erase(it);
      columns.push_back(leg.name);
      simLegs.push_back(std::move(leg));
    }
    if (!overrides.empty()) {
      fail("--sim-module for " + overrides.begin()->first +
           ", which is not among --legs");
      return false;
    }
    columns.push_back("interp ms");
    for (const SimLeg &leg : simLegs)
      columns.push_back(leg.name + " ms");
    table = Table(columns, 1 + simLegs.size(), Table::Summary::CasesAndLegs);
    return true;
  }
  // --emit-cases
  std::string emitDir;
  RunList runList;
  ThreadsMap threads;
  AmdThreadsMap amdThreads;
  bool haveManifest = false;

  std::string sourceName() const {
    return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
        ->getBufferIdentifier()
        .str();
  }

  int caseError(Loc loc, const Twine &msg) {
    if (deferredError)
      *deferredError += cases.error(loc, msg) + "\n";
    else
      errs() << cases.error(loc, msg) << "\n";
    return 1;
  }
  bool caseErrorB(Loc loc, const Twine &msg) {
    caseError(loc, msg);
    return false;
  }

  bool prepare(mlir::func::FuncOp f, const CaseSpec &c, PreparedCase &p) {
    std::string where =
        " (case '" + c.name + "', " + f.getSymName().str() + ")";
    auto names = f->getAttrOfType<mlir::ArrayAttr>("kcc.arg_names");
    ArrayRef<mlir::Type> inputs = f.getFunctionType().getInputs();
    auto paramName = [&](size_t i) {
      return names && i < names.size() ? cast<mlir::StringAttr>(names[i]).str()
                                       : "#" + std::to_string(i);
    };
    auto paramIndex = [&](StringRef name) -> std::optional<size_t> {
      for (size_t i = 0; i < inputs.size(); ++i)
        if (paramName(i) == name)
          return i;
      return std::nullopt;
    };
    // Scalars: every one given, each naming a scalar parameter.
    for (const ScalarSpec &s : c.scalars) {
      std::optional<size_t> i = paramIndex(s.name);
      if (!i)
        return caseErrorB(s.loc, "'" + s.name + "' is not a parameter of " +
                                     f.getSymName());
      if (isa<PtrType>(inputs[*i]))
        return caseErrorB(s.loc, "'" + s.name +
                                     "' is a pointer parameter; give it a "
                                     "buffer under 'buffers'");
    }
    std::vector<const BufferSpec *> bufferOf(inputs.size(), nullptr);
    for (const BufferSpec &b : c.buffers) {
      std::optional<size_t> i = paramIndex(b.name);
      if (!i || !isa<PtrType>(inputs[*i]))
        return caseErrorB(b.loc, "buffer '" + b.name +
                                     "' is not a pointer parameter of " +
                                     f.getSymName());
      bufferOf[*i] = &b;
    }
    auto lookup = [&](std::string_view name) -> std::optional<int64_t> {
      for (const ScalarSpec &s : c.scalars)
        if (s.name == name && s.kind != ScalarSpec::Float)
          return s.intValue;
      return std::nullopt;
    };
    uint64_t caseBytes = 0; // the buffers' bytes so far (--max-case-bytes)
    for (size_t i = 0; i < inputs.size(); ++i) {
      mlir::Type t = inputs[i];
      interp::KernelArg arg;
      RunArg runArg;
      if (auto ptr = dyn_cast<PtrType>(t)) {
        const BufferSpec *b = bufferOf[i];
        if (!b)
          return caseErrorB(c.loc, "no buffer for pointer parameter '" +
                                       paramName(i) + "'" + where);
        std::optional<DType> pointee = dtypeOfType(ptr.getPointeeType());
        if (!pointee)
          return caseErrorB(c.loc, "unsupported pointee type of '" +
                                       paramName(i) + "'");
        if (b->dtype && *b->dtype != *pointee)
          return caseErrorB(b->dtypeLoc, "buffer '" + b->name + "' is " +
                                             interp::dtypeName(*b->dtype) +
                                             " but parameter '" + paramName(i) +
                                             "' is " + typeString(t) + where);
        interp::Buffer buf;
        buf.name = b->name;
        buf.array.dtype = *pointee;
        // Bytes in 64 bits, checked at every product: a shape whose element
        // count overflows must not wrap into a small allocation.
        uint64_t bytes = interp::dtypeSize(*pointee);
        for (const SizeSpec &s : b->shape) {
          int64_t n;
          std::string err;
          if (!kcc::evaluateCExpr(s.expr, lookup, n, err))
            return caseErrorB(s.loc, "size '" + s.expr + "': " + err + where);
          if (n <= 0 || n > (int64_t(1) << 32))
            return caseErrorB(s.loc, "size '" + s.expr + "' is " + Twine(n) +
                                         "; sizes must be in "
                                         "[1, 2^32]" +
                                         where);
          buf.array.shape.push_back(n);
          if (__builtin_mul_overflow(bytes, uint64_t(n), &bytes) ||
              bytes >
                  maxCaseBytes - std::min<uint64_t>(caseBytes, maxCaseBytes))
            return caseErrorB(
                s.loc, "buffer '" + b->name + "' would take the case's " +
                           "buffers past --max-case-bytes=" +
                           Twine(uint64_t(maxCaseBytes)) +
                           " bytes; use smaller sizes or raise the limit" +
                           where);
        }
        caseBytes += bytes;
        if (b->init.kind == InitSpec::List &&
            int64_t(b->init.values.size()) != buf.array.numElements())
          return caseErrorB(
              b->loc, "buffer '" + b->name + "' has " +
                          Twine(buf.array.numElements()) + " elements but " +
                          Twine(b->init.values.size()) + " values" + where);
        buf.array.data.assign(
            buf.array.numElements() * interp::dtypeSize(*pointee), 0);
        fillBuffer(b->init, buf.array);
        arg.isPointer = true;
        arg.buffer = p.buffers.size();
        runArg.isPointer = true;
        runArg.buffer = b->name;
        if (b->output) {
          Tolerance tol = defaultTolerance(*pointee, c.reduction);
          p.outputs.push_back(
              {b->name, c.rtol.value_or(tol.rtol), c.atol.value_or(tol.atol)});
        }
        p.buffers.push_back(std::move(buf));
      } else {
        std::optional<DType> d = dtypeOfType(t);
        auto s = find_if(c.scalars, [&](const ScalarSpec &s) {
          return s.name == paramName(i);
        });
        if (s == c.scalars.end())
          return caseErrorB(c.loc, "no value for scalar parameter '" +
                                       paramName(i) + "' (" + typeString(t) +
                                       ") under 'scalars'" + where);
        if (!d)
          return caseErrorB(s->loc,
                            "unsupported parameter type " + typeString(t));
        runArg.dtype = *d;
        if (interp::isFloat(*d)) {
          if (s->kind == ScalarSpec::Bool)
            return caseErrorB(s->loc, "'" + s->name + "' is " + typeString(t) +
                                          ", not a boolean");
          arg.floatValue = interp::roundToFloat(s->floatValue, *d);
          uint8_t bytes[8] = {};
          interp::storeFloatElement(bytes, *d, 0, arg.floatValue);
          std::memcpy(&runArg.bits, bytes, 8);
        } else {
          if (s->kind == ScalarSpec::Float)
            return caseErrorB(s->loc, "'" + s->name + "' is " + typeString(t) +
                                          ", not a float");
          unsigned w = interp::intWidth(*d);
          if (interp::wrapInt(s->intValue, w) != s->intValue &&
              !(w == 1 && s->intValue == 1))
            return caseErrorB(s->loc, "value " + Twine(s->intValue) + " of '" +
                                          s->name + "' does not fit in " +
                                          typeString(t));
          arg.intValue = interp::wrapInt(s->intValue, w);
          runArg.bits = interp::asUnsigned(arg.intValue, w);
        }
      }
      p.args.push_back(arg);
      p.runArgs.push_back(runArg);
    }
    if (p.outputs.empty())
      return caseErrorB(c.loc, "case '" + c.name +
                                   "' has no output buffer (output = true)");
    std::string err;
    if (!interp::checkCoverageGuards(f, p.args, simProcessors, err))
      return caseErrorB(c.loc, err + where);
    if (!interp::evaluateGrid(f, p.args, simProcessors, p.grid, err))
      return caseErrorB(c.loc, err + where);
    auto launchF =
        launchedModule.lookupSymbol<mlir::func::FuncOp>(f.getSymName());
    if (!launchF)
      return caseErrorB(c.loc, "internal error: no launched form" + where);
    // The kernel's `if` the launch decides: the else branch's build where
    // its condition is false (as the stubs choose), down the chain (the
    // masked build where the masks the launch decides are not all on).
    for (mlir::func::FuncOp other = versionBuildOf(launchF); other;
         other = versionBuildOf(launchF)) {
      auto guard = other->getAttrOfType<mlir::DictionaryAttr>(
          KccDialect::kVersionGuardAttr);
      int64_t holds = 0;
      if (!interp::evaluateLaunchExpr(
              launchF, guard.getAs<mlir::StringAttr>("guard").getValue(),
              p.args, simProcessors, holds, err))
        return caseErrorB(c.loc, "the if's condition: " + err + where);
      if (holds)
        break;
      launchF = other;
      p.runSymbol = other.getSymName().str();
    }
    if (!interp::evaluateGrid(launchF, p.args, simProcessors, p.launchGrid,
                              err))
      return caseErrorB(c.loc, err + where);
    p.simGrid = p.launchGrid;
    p.simSymbol =
        interp::launchedBuild(launchF, simProcessors, p.simGrid).getSymName();
    // Arguments the build's facts do not hold for: the launch runs its
    // fallback build, or refuses them (as the stubs do).
    if (std::optional<std::string> broken = brokenFact(launchF, c)) {
      mlir::func::FuncOp fallback = fallbackBuildOf(launchF);
      // A fact the user declared holds in the fallback build too.
      if (fallback)
        broken = brokenFact(fallback, c);
      if (broken)
        return caseErrorB(
            c.loc, "the launch would refuse this case: " + *broken + where);
      p.simSymbol = fallback.getSymName();
      p.runSymbol = fallback.getSymName();
    }
    // --split-k: the kernel's split-K build, as the stubs launch it, where
    // the case runs the kernel itself.
    if (splitKOpt > 1 && p.simSymbol == launchF.getSymName()) {
      auto partial = launchedModule.lookupSymbol<mlir::func::FuncOp>(
          (launchF.getSymName() + "__splitk").str());
      auto shape = partial ? partial->getAttrOfType<mlir::DictionaryAttr>(
                                 KccDialect::kSplitKAttr)
                           : mlir::DictionaryAttr();
      if (shape) {
        SplitLaunch split;
        split.build = partial.getSymName().str();
        split.splits = splitKOpt;
        for (auto [key, value] :
             {std::pair{"rows", &split.rows}, std::pair{"cols", &split.cols},
              std::pair{"tiles", &split.tiles}})
          if (!interp::evaluateLaunchExpr(
                  launchF, shape.getAs<mlir::StringAttr>(key).getValue(),
                  p.args, simProcessors, *value, err))
            return caseErrorB(c.loc, "the split-K workspace's " +
                                         std::string(key) + ": " + err + where);
        if (split.rows > 0 && split.cols > 0 && split.tiles > 0)
          p.split = split;
      }
    }
    return true;
  }

  /// The first fact (kcc.divisibility) of `f`'s integer parameters that
  /// case `c`'s scalars break, said for people; none if all hold. A tensor
  /// stride with the contract's fact must also not be negative. Buffers are
  /// allocated aligned, so alignment facts hold.
  static std::optional<std::string> brokenFact(mlir::func::FuncOp f,
                                               const CaseSpec &c) {
    auto names = f->getAttrOfType<mlir::ArrayAttr>("kcc.arg_names");
    for (unsigned i = 0, e = f.getNumArguments(); names && i < e; ++i) {
      auto d = f.getArgAttrOfType<mlir::IntegerAttr>(
          i, KccDialect::kDivisibilityAttr);
      if (!d || i >= names.size())
        continue;
      StringRef name = cast<mlir::StringAttr>(names[i]).getValue();
      for (const ScalarSpec &s : c.scalars)
        if (s.name == name && s.kind == ScalarSpec::Int &&
            (s.intValue % d.getInt() != 0 ||
             (s.intValue < 0 && strideOfTensor(f, i))))
          return ("'" + name + "' = " + Twine(s.intValue) +
                  (s.intValue < 0
                       ? " is negative"
                       : " is not a multiple of " + Twine(d.getInt())))
              .str();
    }
    return std::nullopt;
  }

  /// Whether argument `i` of `f` is a stride of a tensor<> parameter.
  static bool strideOfTensor(mlir::func::FuncOp f, unsigned i) {
    for (unsigned b = 0; b < i; ++b)
      if (auto rank = f.getArgAttrOfType<mlir::IntegerAttr>(
              b, KccDialect::kTensorRankAttr);
          rank && i > b + rank.getInt() && i < b + 2 * rank.getInt())
        return true;
    return false;
  }

  /// Prints an interpreter error at its source location, clang style.
  void printRunError(const interp::RunError &e, mlir::func::FuncOp f,
                     const CaseSpec &c) {
    std::optional<mlir::FileLineColLoc> flc = interp::findFileLineCol(e.loc);
    SMLoc loc;
    if (flc)
      loc = sourceMgr.FindLocForLineAndColumn(sourceMgr.getMainFileID(),
                                              flc->getLine(), flc->getColumn());
    if (loc.isValid())
      sourceMgr.PrintMessage(errs(), loc, SourceMgr::DK_Error, e.message);
    else
      errs() << sourceName() << ": error: " << e.message << "\n";
    errs() << cases.path << ":" << c.loc.line << ":" << c.loc.column
           << ": note: in case '" << c.name << "' of " << f.getSymName()
           << "\n";
  }

  /// A case between its interpreter run and its row: the sim legs' cells
  /// come in between (runSims).
  struct CaseRun {
    CaseRun(const KernelSpec &k, mlir::func::FuncOp f, const CaseSpec &c)
        : k(k), f(f), c(c) {}
    const KernelSpec &k;
    mlir::func::FuncOp f;
    const CaseSpec &c;
    PreparedCase p;
    std::vector<interp::Buffer> inputs; // the buffers before the run
    std::optional<interp::RunError> err;
    double interpMs = 0;
    std::vector<SimCell> sims; // per leg
  };

  /// The interpreter's run of a prepared case (the reference). Reads the
  /// kernel's IR only, so cases run side by side.
  void interpCase(CaseRun &r) {
    r.inputs = r.p.buffers;
    auto start = std::chrono::steady_clock::now();
    interp::RunStats stats;
    r.err = interp::runKernel(r.f, r.p.args, r.p.buffers, r.p.grid, &stats,
                              maxInterpSteps);
    r.interpMs = std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count();
    if (r.err && r.err->budgetExhausted)
      r.err->message += " (kcc-difftest --max-interp-steps=N raises it; 0 "
                        "lifts it)";
  }

  /// `jobs` calls of job(order[i]) on the host threads (this thread waits),
  /// or in turn on one.
  void runJobs(size_t jobs, llvm::ArrayRef<size_t> order,
               llvm::function_ref<void(size_t)> job) {
    unsigned workers = std::min<size_t>(sim::hostThreadCount(simThreads), jobs);
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i; (i = next++) < jobs;)
        job(order[i]);
    };
    if (workers <= 1)
      return worker();
    // All on the pool: a launch's CTAs queued from a job run on a pool
    // thread that is free, never on one thread too many.
    llvm::ThreadPoolTaskGroup group(sim::hostPool(simThreads));
    for (unsigned w = 0; w < workers; ++w)
      group.async(worker);
    group.wait();
  }

  /// The interpreter runs of `window`'s cases, side by side; each sim leg
  /// compares against its case's.
  void runInterps(std::vector<std::unique_ptr<CaseRun>> &window) {
    auto start = std::chrono::steady_clock::now();
    std::vector<size_t> order(window.size());
    std::iota(order.begin(), order.end(), 0);
    runJobs(window.size(), order, [&](size_t i) { interpCase(*window[i]); });
    interpSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }

  /// The sim legs of `window`'s cases: independent runs, side by side on
  /// the host threads when there are several (each leg's CTAs too), else
  /// in turn. Nothing is printed here.
  void runSims(std::vector<std::unique_ptr<CaseRun>> &window) {
    size_t legs = simLegs.size(), jobs = window.size() * legs;
    auto start = std::chrono::steady_clock::now();
    for (auto &r : window)
      r->sims.assign(legs, SimCell());
    auto job = [&](size_t i) {
      CaseRun &r = *window[i / legs];
      r.sims[i % legs] = runSimCase(simLegs[i % legs], r.p.simSymbol, r.inputs,
                                    r.p.args, r.p.runArgs, r.p.outputs,
                                    r.err ? nullptr : &r.p.buffers, r.p.simGrid,
                                    {simMaxThreads, simSeed, simMaxInstructions,
                                     bankConflicts, simThreads},
                                    r.p.split ? &*r.p.split : nullptr);
    };
    // Longest first (the interpreter's time as the guess), so that the
    // threads finish together.
    std::vector<size_t> order(jobs);
    std::iota(order.begin(), order.end(), 0);
    llvm::sort(order, [&](size_t a, size_t b) {
      double x = window[a / legs]->interpMs, y = window[b / legs]->interpMs;
      return x != y ? x > y : a < b;
    });
    runJobs(jobs, order, job);
    simSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }

  /// Prints a case's errors and reports (the interpreter's, then each
  /// leg's), adds its row and writes what --print-outputs and --emit-cases
  /// ask for. False if a leg failed.
  bool finishCase(CaseRun &r) {
    const CaseSpec &c = r.c;
    mlir::func::FuncOp f = r.f;
    std::string status = "PASS";
    std::string message;
    if (r.err) {
      printRunError(*r.err, f, c);
      status = "FAIL";
      message = r.err->message;
    }
    std::vector<std::string> cells = {status},
                             times = {formatv("{0:f1}", r.interpMs).str()};
    std::vector<std::string> details;
    if (r.err)
      details.push_back("interp: " + message);
    bool simFail = false;
    for (auto [leg, cell] : llvm::zip(simLegs, r.sims)) {
      sim::printReports(cell.reports, sourceMgr, errs());
      addBanks(leg, cell);
      if (cell.cell == "FAIL") {
        simFail = true;
        errs() << cases.path << ":" << c.loc.line << ":" << c.loc.column
               << ": note: in case '" << c.name << "' of " << f.getSymName()
               << " (" << leg.name << ")\n";
      }
      cells.push_back(cell.cell);
      times.push_back(cell.cell.rfind("SKIP", 0) == 0
                          ? "-"
                          : formatv("{0:f1}", cell.ms).str());
      if (!cell.detail.empty())
        details.push_back(cell.detail);
    }
    cells.insert(cells.end(), times.begin(), times.end());
    std::string caseName = c.name;
    if (r.p.split)
      caseName += formatv(" (split-K x{0})", r.p.split->splits).str();
    table.addRow({r.k.name, f.getSymName().str(), caseName}, cells,
                 join(details, "; "));
    if (printOutputs && !r.err)
      for (const RunOutput &o : r.p.outputs)
        for (const interp::Buffer &b : r.p.buffers)
          if (b.name == o.buffer) {
            outs() << f.getSymName() << " " << c.name << " " << b.name << " =";
            for (int64_t i = 0; i < b.array.numElements(); ++i)
              outs() << " " << formatElement(b.array, i);
            outs() << "\n";
          }
    if (!emitCases.empty())
      return emitCase(r.k, f, c, r.p, r.inputs, r.err ? message : "") &&
             !r.err && !simFail;
    return !r.err && !simFail;
  }

  bool prepareEmit(StringRef stem) {
    SmallString<256> dir(emitCases);
    sys::path::append(dir, stem);
    emitDir = dir.str().str();
    if (std::error_code ec = sys::fs::create_directories(emitDir)) {
      fail("cannot create " + emitDir + ": " + ec.message());
      return false;
    }
    if (fatbinPath.empty())
      return true;
    SmallString<256> manifest(fatbinPath);
    sys::path::replace_extension(manifest, "manifest.json");
    std::string err;
    if (!readManifest(manifest, threads, amdThreads, err)) {
      fail(err);
      return false;
    }
    haveManifest = true;
    SmallString<256> copy(emitDir);
    sys::path::append(copy, sys::path::filename(fatbinPath));
    if (std::error_code ec = sys::fs::copy_file(fatbinPath, copy)) {
      fail("cannot copy " + fatbinPath + ": " + ec.message());
      return false;
    }
    runList.fatbin = sys::path::filename(fatbinPath).str();
    return true;
  }

  bool emitCase(const KernelSpec &k, mlir::func::FuncOp f, const CaseSpec &c,
                const PreparedCase &p,
                const std::vector<interp::Buffer> &inputs,
                const std::string &interpError) {
    RunCase rc;
    rc.id = k.name + "/" + f.getSymName().str() + "/" + c.name;
    rc.symbol = p.runSymbol.empty() ? f.getSymName().str() : p.runSymbol;
    if (haveManifest) {
      auto it = threads.find(rc.symbol);
      if (it != threads.end())
        rc.threads = it->second;
      auto amd = amdThreads.find(rc.symbol);
      if (amd != amdThreads.end())
        rc.amdThreads = amd->second;
    }
    for (int d = 0; d < 3; ++d)
      rc.grid[d] = p.launchGrid[d];
    rc.args = p.runArgs;
    rc.outputs = p.outputs;
    rc.interpPassed = interpError.empty();
    rc.interpMessage = interpError;
    SmallString<256> caseDir(emitDir);
    sys::path::append(caseDir, rc.id);
    if (std::error_code ec = sys::fs::create_directories(caseDir)) {
      fail("cannot create " + caseDir + ": " + ec.message());
      return false;
    }
    auto write = [&](const std::string &name, const interp::NpyArray &a) {
      SmallString<256> path(caseDir);
      sys::path::append(path, name);
      std::string err;
      if (!interp::writeNpyFile(path.str().str(), a, err))
        return fail(err), false;
      return true;
    };
    for (const interp::Buffer &b : inputs) {
      rc.buffers.push_back(
          {b.name, b.array.dtype, inputFileName(b.name, b.array.dtype)});
      if (!write(rc.buffers.back().file, b.array))
        return false;
    }
    if (interpError.empty())
      for (const interp::Buffer &b : p.buffers)
        for (const RunOutput &o : p.outputs)
          if (o.buffer == b.name &&
              !write(outputFileName("interp", b.name, b.array.dtype), b.array))
            return false;
    runList.cases.push_back(std::move(rc));
    return true;
  }

  bool finishEmit() {
    SmallString<256> path(emitDir);
    sys::path::append(path, "runlist.txt");
    std::error_code ec;
    raw_fd_ostream os(path, ec, sys::fs::OF_Text);
    if (ec) {
      fail("cannot write " + path + ": " + ec.message());
      return false;
    }
    os << writeRunList(runList);
    return true;
  }
};

/// --compare DIR: the table of legs from the files in DIR.
int compare(StringRef dir) {
  std::vector<std::string> lists;
  SmallString<256> top(dir);
  sys::path::append(top, "runlist.txt");
  if (sys::fs::exists(top))
    lists.push_back(top.str().str());
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    SmallString<256> p(it->path());
    sys::path::append(p, "runlist.txt");
    if (sys::fs::exists(p))
      lists.push_back(p.str().str());
  }
  if (lists.empty())
    return fail("no runlist.txt in " + dir +
                " or its subdirectories (write "
                "them with --emit-cases)");
  llvm::sort(lists);
  // Legs: the NVIDIA GPU leg, and the AMD one where its results exist.
  std::vector<std::string> gpuLegs = {"gpu"};
  std::vector<RunList> parsed;
  for (const std::string &listPath : lists) {
    auto buf = MemoryBuffer::getFile(listPath);
    if (!buf)
      return fail("cannot read " + listPath + ": " + buf.getError().message());
    RunList list;
    std::string err;
    if (!parseRunList((*buf)->getBuffer(), list, err))
      return fail(listPath + ": " + err);
    parsed.push_back(std::move(list));
  }
  for (auto [listPath, list] : llvm::zip(lists, parsed))
    for (const RunCase &c : list.cases) {
      SmallString<256> dirPath(sys::path::parent_path(listPath));
      sys::path::append(dirPath, c.id);
      std::error_code ec;
      for (sys::fs::directory_iterator it(dirPath, ec), e; it != e && !ec;
           it.increment(ec))
        if (sys::path::filename(it->path()).starts_with("amdgpu.") &&
            gpuLegs.size() == 1)
          gpuLegs.push_back("amdgpu");
    }
  std::vector<std::string> columns = {"interp"};
  columns.insert(columns.end(), gpuLegs.begin(), gpuLegs.end());
  Table table(columns);
  bool anyFail = false;
  std::string err;
  for (auto [listPath, list] : llvm::zip(lists, parsed)) {
    StringRef base = sys::path::parent_path(listPath);
    for (const RunCase &c : list.cases) {
      SmallVector<StringRef, 3> parts;
      StringRef(c.id).split(parts, '/');
      std::vector<std::string> key(parts.begin(), parts.end());
      key.resize(3);
      SmallString<256> caseDir(base);
      sys::path::append(caseDir, c.id);
      auto file = [&](StringRef name) {
        SmallString<256> p(caseDir);
        sys::path::append(p, name);
        return p.str().str();
      };
      std::string interpCell = c.interpPassed ? "PASS" : "FAIL";
      std::string detail = c.interpPassed ? "" : "interp: " + c.interpMessage;
      std::vector<std::string> cells = {interpCell};
      anyFail |= interpCell == "FAIL";
      for (const std::string &leg : gpuLegs) {
        std::string gpuCell;
        if (!c.interpPassed) {
          gpuCell = "SKIP(no reference)";
        } else if (auto e = MemoryBuffer::getFile(file(leg + ".error"))) {
          gpuCell = "FAIL";
          detail = leg + ": " + (*e)->getBuffer().trim().str();
        } else if (auto s = MemoryBuffer::getFile(file(leg + ".skip"))) {
          gpuCell = "SKIP(" + (*s)->getBuffer().trim().str() + ")";
        } else {
          gpuCell = "PASS";
          std::vector<std::string> notes;
          for (const RunOutput &o : c.outputs) {
            auto rb = find_if(c.buffers, [&](const RunBuffer &b) {
              return b.name == o.buffer;
            });
            DType t = rb == c.buffers.end() ? DType::f32 : rb->dtype;
            interp::NpyArray ref, got;
            std::string gotPath = file(outputFileName(leg, o.buffer, t));
            if (!sys::fs::exists(gotPath)) {
              gpuCell = "SKIP(no " + leg + " results)";
              notes.clear();
              break;
            }
            if (!interp::readNpyFile(
                    file(outputFileName("interp", o.buffer, t)), ref, err) ||
                !interp::readNpyFile(gotPath, got, err)) {
              gpuCell = "FAIL";
              notes = {err};
              break;
            }
            Comparison cmp =
                compareArrays(o.buffer, ref, got, {o.rtol, o.atol});
            if (!cmp.ok) {
              gpuCell = "FAIL";
              notes.push_back(cmp.summary);
            }
          }
          if (!notes.empty())
            detail = leg + ": " + join(notes, "; ");
        }
        anyFail |= gpuCell == "FAIL";
        cells.push_back(gpuCell);
      }
      table.addRow(key, cells, detail);
    }
  }
  table.print(outs());
  return anyFail ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
#ifdef __GLIBC__
  // The interpreter's tiles and the cases' buffers are made and freed
  // again and again at the same sizes: kept in the heap rather than mapped
  // and unmapped each time (each fresh mapping page-faults as it fills;
  // the bundled cases' interpreter runs took 0.19 s, now 0.13).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kcc-difftest: run kcc kernels in the tile IR interpreter and the SIMT "
      "simulator, and compare with the GPU\n");
  if (!compareDir.empty()) {
    if (!positional.empty())
      return fail("--compare takes no input files");
    return compare(compareDir);
  }
  if (positional.size() != 2)
    return fail("expected two inputs: FILE.kc CASES.toml (or --compare DIR)");
  if (!fatbinPath.empty() && emitCases.empty())
    return fail("--fatbin needs --emit-cases");

  auto caseText = MemoryBuffer::getFile(positional[1], /*IsText=*/true);
  if (!caseText)
    return fail("cannot read '" + positional[1] +
                "': " + caseText.getError().message());
  CaseFile cases;
  std::string err;
  if (!parseCaseFile(positional[1], (*caseText)->getBuffer(), cases, err)) {
    errs() << err << "\n";
    return 1;
  }

  if (!caseNames.empty()) {
    // A subset of a case file (the sanitizer leg of CI runs a few cases of
    // each file); a name that selects nothing is a typo, not an empty run.
    auto selects = [](StringRef name, const KernelSpec &k, const CaseSpec &c) {
      auto [kernel, kase] = name.rsplit('/');
      return kase.empty() ? c.name == name : k.name == kernel && c.name == kase;
    };
    for (StringRef name : caseNames)
      if (none_of(cases.kernels, [&](const KernelSpec &k) {
            return any_of(k.cases, [&](const CaseSpec &c) {
              return selects(name, k, c);
            });
          }))
        return fail("--cases: no case named '" + elidedText(name) + "' in " +
                    positional[1]);
    for (KernelSpec &k : cases.kernels)
      erase_if(k.cases, [&](const CaseSpec &c) {
        return none_of(caseNames,
                       [&](StringRef name) { return selects(name, k, c); });
      });
    erase_if(cases.kernels,
             [](const KernelSpec &k) { return k.cases.empty(); });
  }

  auto source = MemoryBuffer::getFile(positional[0], /*IsText=*/true);
  if (!source)
    return fail("cannot read '" + positional[0] +
                "': " + source.getError().message());
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*source), SMLoc());
  mlir::MLIRContext ctx;
  // The sim legs lower the kernels to (or parse) LLVM + NVVM/ROCDL.
  mlir::DialectRegistry registry;
  pipeline::registerCompilerDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  frontend::Options options;
  for (const std::string &d : defines) {
    auto [name, value] = StringRef(d).split('=');
    if (name.empty() || value.empty())
      return fail("-D expects NAME=VALUE, got '" + d + "'");
    options.defines.push_back({name.str(), value.str()});
  }
  unsigned numErrors = 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      frontend::buildTileIR(sourceMgr, ctx, options, numErrors);
  if (!module || numErrors) {
    if (numErrors)
      errs() << numErrors << (numErrors == 1 ? " error" : " errors")
             << " generated.\n";
    return 1;
  }
  // Only the kernels the cases run go through the pipelines below: a case
  // file that tests a few of a file's many specializations (the bench
  // attention file has 22) does not pay for the coverage proofs of the rest.
  // A name that resolves to nothing keeps the module whole, for
  // DiffTest::run's error listing what the file has.
  {
    auto wanted = [&](mlir::func::FuncOp f) {
      auto base = f->getAttrOfType<mlir::StringAttr>(KccDialect::kBaseNameAttr);
      return !base || any_of(cases.kernels, [&](const KernelSpec &k) {
        return k.name == base.getValue() &&
               (k.specializations.empty() ||
                is_contained(k.specializations, f.getSymName()));
      });
    };
    auto funcs = module->getOps<mlir::func::FuncOp>();
    bool resolves = all_of(cases.kernels, [&](const KernelSpec &k) {
      return all_of(k.specializations,
                    [&](const std::string &name) {
                      auto f = module->lookupSymbol<mlir::func::FuncOp>(name);
                      return f && wanted(f);
                    }) &&
             any_of(funcs, [&](mlir::func::FuncOp f) {
               auto base = f->getAttrOfType<mlir::StringAttr>(
                   KccDialect::kBaseNameAttr);
               return base && base.getValue() == k.name;
             });
    });
    if (resolves)
      for (auto f : make_early_inc_range(funcs))
        if (!wanted(f))
          f.erase();
  }
  // What kcc compiles: a group(N) kernel launched as a 1-D grid in grouped
  // order, for the sim legs and the GPU cases. The interpreter, the
  // reference, runs the kernel as written over its 2-D grid, so a wrong
  // rasterization shows up as a mismatch.
  // First, as kcc does, the coverage proof: its launch guards (checked per
  // case, as the stubs check them) and its errors.
  {
    pipeline::TileOptions coverage;
    coverage.rasterize = false;
    coverage.liftPointerTiles = false;
    coverage.fallbackBuilds = false; // the reference runs the kernel as written
    coverage.splitK = false;
    coverage.versionBranches = false;
    mlir::PassManager pm(&ctx);
    pipeline::buildTilePipeline(pm, coverage);
    if (failed(pm.run(*module)))
      return 1;
  }
  mlir::OwningOpRef<mlir::ModuleOp> launched(module->clone());
  pipeline::TileOptions launch;
  launch.proveCoverage = false;
  launch.persistent = persistentOpt;
  if (std::string why = pipeline::clusterSizeError(clustersOpt); !why.empty())
    return fail(why);
  launch.cluster = clustersOpt;
  launch.fallbackBuilds = fallbackBuildsOpt;
  launch.splitK = splitKOpt > 1;
  mlir::PassManager pm(&ctx);
  pipeline::buildTilePipeline(pm, launch);
  if (failed(pm.run(*launched)))
    return 1;
  // As kcc: no persistent build where the tiles run different trip counts.
  pipeline::dropUnevenPersistentBuilds(*launched);
  module->walk([](ProgramGridOp marker) { marker.erase(); });
  DiffTest test(sourceMgr, cases);
  return test.run(*module, *launched, sys::path::stem(positional[0]));
}
