//===- CommandLine.cpp - kcc's command line -------------------------------===//
//
//   kcc file.kc -o OUTDIR --target=sm_80,sm_90a,sm_100a -O3 -D BLOCK=1024
//   kcc legality tma --target=sm_90a < cases.jsonl
//
// Apart from main (kcc.cpp) so that the command-line fuzzer runs it too.
//
//===----------------------------------------------------------------------===//
#include "tools/kcc/CommandLine.h"

#include "backends/amd/CodeGen.h"
#include "backends/nvidia/CodeGen.h"
#include "ir/MessageText.h"
#include "pipeline/Pipeline.h"
#include "tools/kcc/Driver.h"
#include "tools/kcc/Legality.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;
using namespace kcc;

static cl::OptionCategory kccCategory("kcc options");

static cl::list<std::string>
    inputs(cl::Positional,
           cl::desc("<input .kc files> | legality tma (reads JSON Lines "
                    "tensor-map cases on stdin, one verdict per line)"),
           cl::cat(kccCategory));
static cl::opt<std::string>
    outputDir("o",
              cl::desc("Output directory (default: .); '-' prints "
                       "textual output (--emit=tile-ir|layout-ir|llvm|ptx) "
                       "to stdout"),
              cl::value_desc("dir"), cl::init("."), cl::cat(kccCategory));
static cl::list<std::string>
    targetList("target",
               cl::desc("Comma-separated GPU targets: sm_80, sm_90a, sm_100a, "
                        "gfx90a, gfx942 (default: the NVIDIA ones)"),
               cl::value_desc("t1,t2"), cl::CommaSeparated,
               cl::cat(kccCategory));
static cl::list<std::string> offloadArch(
    "offload-arch", cl::desc("Same as --target (clang's spelling); may repeat"),
    cl::value_desc("arch"), cl::CommaSeparated, cl::cat(kccCategory));
static cl::opt<unsigned>
    jobs("j",
         cl::desc("Threads kcc uses (default 0: one per CPU): the targets' "
                  "LLVM backends run in parallel, and ptxas optimizes a "
                  "module's kernels on as many (-split-compile); the code "
                  "does not depend on it"),
         cl::value_desc("N"), cl::init(0), cl::Prefix, cl::cat(kccCategory));
static cl::opt<char> optLevel("O", cl::desc("Optimization level (default 3)"),
                              cl::value_desc("0-3"), cl::Prefix, cl::init('3'),
                              cl::cat(kccCategory));
static cl::opt<std::string> emit(
    "emit",
    cl::desc("What to produce: tile-ir, layout-ir, llvm, asm (PTX / AMDGPU "
             "assembly), obj (cubin / HSACO), fatbin (default: fatbin and/or "
             "HIP offload bundle, stubs, manifest)"),
    cl::value_desc("kind"), cl::init("fatbin"), cl::cat(kccCategory));
static cl::opt<unsigned> numWarps(
    "num-warps",
    cl::desc("Warps per CTA for every kernel (power of two, 1-32; default: "
             "chosen per kernel from its largest tile)"),
    cl::value_desc("N"), cl::init(0), cl::cat(kccCategory));
static cl::opt<bool> warpSpecialize(
    "warp-specialize",
    cl::desc("Give TMA pipelines that feed wgmma a producer warpgroup (with "
             "setmaxnreg) where the target model allows it (default: true)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<bool> pingPong(
    "ping-pong",
    cl::desc("Run warp-specialized persistent GEMMs whose tile accumulator "
             "fits one warpgroup (128x128, 64x256) as two consumer groups on "
             "alternate tiles, one's epilogue beside the other's K loop "
             "(default: true; --ping-pong=false keeps one cooperative "
             "group; docs/gemm.md, \"Ping-pong\")"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<bool> fpContract(
    "fp-contract",
    cl::desc("Fuse a floating multiply and the add of its result into one "
             "fused multiply-add, rounded once, as nvcc (--fmad=true) and "
             "clang (-ffp-contract=fast) do for GPU code (default: true; "
             "=false rounds the product and the sum each)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<bool> prefetchTileLoads(
    "prefetch-tile-loads",
    cl::desc("In a persistent warp-specialized kernel, the producer "
             "warpgroup loads the block each tile reads once (attention's "
             "query block) a tile ahead, while the consumers finish the tile "
             "before (default: true; docs/attention.md)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<bool> overlapProducts(
    "overlap-products",
    cl::desc("Issue a loop's register-A wgmma (attention's P @ V) one "
             "iteration late, so the tensor cores run it beside the next "
             "iteration's softmax (default: true; docs/attention.md)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<bool> latePromotion(
    "late-promotion",
    cl::desc("Promote a K block's wgmma product into its running sum (FP8 "
             "block scales: acc = acc + dot(a, b) * s) one iteration late, "
             "after the next product is issued (default: false: measured "
             "slower on an H200, docs/gemm.md \"FP8\")"),
    cl::init(false), cl::cat(kccCategory));
static cl::opt<unsigned> errorLimit(
    "error-limit",
    cl::desc("Stop printing errors after this many (default 20; 0: print "
             "them all), as clang's -ferror-limit"),
    cl::init(20), cl::cat(kccCategory));
static cl::opt<bool> versionMasks(
    "version-masks",
    cl::desc("Run code whose masked accesses are all in bounds (every block "
             "but a ragged last one) as a copy without the masks, chosen per "
             "block at run time (default: true; docs/language.md, \"Masks\")"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<cl::boolOrDefault> warpgroupTurns(
    "warpgroup-turns",
    cl::desc("With --overlap-products, whether the two consumer warpgroups "
             "of an attention loop take turns issuing its products through "
             "named barriers, FlashAttention-3's ping-pong (default: where "
             "the key blocks have 128 or more keys, measured faster there on "
             "an H200 and slower with 64; --report says which; "
             "docs/attention.md)"),
    cl::cat(kccCategory));
static cl::opt<bool> chunkEpilogues(
    "chunk-epilogues",
    cl::desc("Copy a GEMM's output tile out 64 columns at a time through two "
             "small stages when a whole-tile stage would cost the K loop a "
             "pipeline stage (default: true)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<unsigned> pipelineStages(
    "pipeline-stages",
    cl::desc("Shared-memory stages of a K loop's TMA and cp.async pipelines, "
             "2 to 8 (a loop feeding wgmma gets one more, for the product in "
             "flight; fewer where they do not fit; default: 3)"),
    cl::init(3), cl::cat(kccCategory));
static cl::opt<unsigned> persistent(
    "persistent",
    cl::desc("Also build group(N) kernels as persistent grids of this many "
             "CTAs per multiprocessor, each looping over tiles; the launch "
             "runs that build when the grid has more tiles than CTAs "
             "(default: 0, one CTA per tile only)"),
    cl::value_desc("N"), cl::init(0), cl::cat(kccCategory));
static cl::opt<unsigned> clusters(
    "clusters",
    cl::desc("Launch group(N) kernels as clusters of this many CTAs (2; 0 or "
             "1: none) on targets with TMA multicast (sm_90a): the two CTAs "
             "of a cluster take neighbouring tile rows, and the operand tiles "
             "they both load (a GEMM's B) are copied once and multicast to "
             "both (default: 0; docs/gemm.md, \"Clusters\")"),
    cl::value_desc("N"), cl::init(0), cl::cat(kccCategory));
static cl::opt<bool> fallbackBuilds(
    "fallback-builds",
    cl::desc("Also build kernels over tensor<> parameters without the tensor "
             "contract (16-byte aligned bases, row strides multiples of 16 "
             "bytes); the launch runs that build for tensors that break it "
             "instead of refusing them (default: true)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<bool> splitK(
    "split-k",
    cl::desc("Also build GEMM-shaped kernels with a split-K build (slices of "
             "the K loop store partial sums; each tile's last slice sums them "
             "in slice order and runs the kernel's epilogue, in one launch); "
             "the launch runs it when the grid is too small to fill the GPU "
             "and the K loop long (default: true)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<unsigned> dispatchVariants(
    "dispatch-variants",
    cl::desc("Tunable constants the specialize clause leaves open: keep up "
             "to N candidates per target (the best ranked on the same "
             "tensor-core path) and let the launch run the one its sizes "
             "favour (runtime/include/kcc/dispatch.h); 1 keeps the "
             "compiler's choice alone (default: 12)"),
    cl::init(12), cl::cat(kccCategory));
static cl::list<std::string> tuningDbs(
    "tuning-db",
    cl::desc("A tuning database the generated tuner (<stem>.tune.cpp) wrote: "
             "its measured tile choices go into the launch stubs, which "
             "use them on that device for sizes within a factor of 2 of a "
             "tuned shape, and the cost model elsewhere (may repeat: one per "
             "target)"),
    cl::value_desc("FILE"), cl::cat(kccCategory));
static cl::opt<bool> versionBranches(
    "version-branches",
    cl::desc("Compile a kernel once per branch of a top-level `if` whose "
             "condition compares integer parameters, dim(x, k) and constants; "
             "the launch evaluates it and runs that branch's build, so "
             "neither pays for the other's registers (default: true)"),
    cl::init(true), cl::cat(kccCategory));
static cl::opt<std::string> unprovenCoverage(
    "unproven-coverage",
    cl::desc("What a tensor whose coverage by store_tile the compiler cannot "
             "prove (with isl) is: error (default) or warning"),
    cl::value_desc("error|warning"), cl::init("error"), cl::cat(kccCategory));
static cl::opt<std::string> report(
    "report",
    cl::desc("Print, per kernel and target, each memory operation's path and "
             "the rule behind every fast path not taken, the bank-conflict "
             "degree of each shared-memory access, and registers/shared "
             "memory (--report=json for JSON)"),
    cl::value_desc("text|json"), cl::ValueOptional, cl::cat(kccCategory));
static cl::list<std::string> targetModels(
    "target-model",
    cl::desc("Add or override a target from a TOML description (may repeat; "
             "`inherits = \"sm_90a\"` starts from a built-in model)"),
    cl::value_desc("file.toml"), cl::cat(kccCategory));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Keep what each target's LLVM half (optimization, code "
             "generation, ptxas or ld.lld) made in this directory, under a "
             "hash of its LLVM module, the target, the options, kcc and "
             "ptxas, and reuse it when they are the same (default: "
             "$KCC_CACHE_DIR; none if unset)"),
    cl::value_desc("dir"), cl::cat(kccCategory));
static cl::opt<std::string> depfile(
    "depfile",
    cl::desc("Also write a Makefile-style dependency file: every output "
             "depends on every input and --target-model file (for CMake's "
             "DEPFILE, Ninja and Make)"),
    cl::value_desc("file.d"), cl::cat(kccCategory));
static cl::list<std::string>
    defines("D", cl::desc("Set a constant parameter in every specialization"),
            cl::value_desc("NAME=VALUE"), cl::Prefix, cl::cat(kccCategory));

static cl::list<std::string> kernelPatterns(
    "kernel",
    cl::desc("Compile only the kernels that match: a kernel's name in the "
             "source (gemm: all its specializations), a launch function's "
             "name (gemm_f16_f16_128_256_64) or a glob of either "
             "(gemm_bf16_*); may repeat or list several, comma-separated"),
    cl::value_desc("NAME"), cl::CommaSeparated, cl::cat(kccCategory));

static int fail(const Twine &msg) {
  WithColor::error(errs(), "kcc") << msg << "\n";
  return 1;
}

/// --target and --offload-arch together, in order.
static std::vector<std::string> requestedTargets() {
  std::vector<std::string> requested(targetList.begin(), targetList.end());
  requested.insert(requested.end(), offloadArch.begin(), offloadArch.end());
  return requested;
}

/// Finds a target or prints why not (with a suggestion).
static const TargetModel *lookupTarget(const TargetRegistry &registry,
                                       StringRef name) {
  if (const TargetModel *target = registry.lookup(name))
    return target;
  std::string hint;
  if (registry.lookup((name + "a").str()))
    hint = " (did you mean '" + name.str() + "a'?)";
  fail("unknown target '" + elidedText(name) + "'" + hint +
       "; valid targets are " + join(registry.names(), ", "));
  return nullptr;
}

/// `kcc legality tma --target=T`: one verdict per JSON line on stdin.
/// `status`, or 1 after saying so if standard output could not be written
/// (a full device, a closed pipe): an ordinary error, not LLVM's "IO
/// failure" abort when the stream is destroyed at exit.
static int checkStdout(int status) {
  outs().flush();
  if (std::error_code ec = outs().error()) {
    outs().clear_error();
    WithColor::error(errs(), "kcc")
        << "cannot write to standard output: " << ec.message() << "\n";
    return 1;
  }
  return status;
}

static int runLegality(const TargetRegistry &registry) {
  if (inputs.size() != 2 || inputs[1] != "tma")
    return fail("usage: kcc legality tma --target=TARGET < cases.jsonl "
                "(the only legality query so far is 'tma')");
  std::vector<std::string> requested = requestedTargets();
  if (requested.size() != 1)
    return fail("kcc legality tma needs exactly one --target");
  const TargetModel *target = lookupTarget(registry, requested.front());
  if (!target)
    return 1;
  std::string error;
  std::unique_ptr<MemoryBuffer> in =
      driver::readBoundedInput("-", error, driver::kMaxQueryBytes);
  if (!in)
    return fail(error);
  return driver::runTmaLegality(*target, in->getBuffer(), "<stdin>", outs(),
                                errs());
}

const cl::OptionCategory &kcc::commandLineCategory() {
  static std::once_flag once;
  std::call_once(once, [] {
    // libLLVM already owns -time-passes (llvm::TimePassesIsEnabled); kcc
    // adopts it so that one flag times kcc's stages and LLVM's passes alike.
    if (cl::Option *tp = cl::getRegisteredOptions().lookup("time-passes")) {
      tp->addCategory(kccCategory);
      tp->setDescription("Print where compile time goes (every stage, ptxas "
                         "and fatbinary included)");
    }
    cl::HideUnrelatedOptions(kccCategory);
    if (cl::Option *tp = cl::getRegisteredOptions().lookup("time-passes"))
      tp->setHiddenFlag(cl::NotHidden);
    cl::SetVersionPrinter([](raw_ostream &os) {
      os << "kcc version " << KCC_VERSION << " (LLVM/MLIR "
         << LLVM_VERSION_STRING << ")\n";
    });
  });
  return kccCategory;
}

int kcc::runCommandLine(int argc, const char *const *argv) {
  (void)commandLineCategory();
  // LLVM's parse errors ("kcc: Unknown command line argument ...") as kcc's:
  // "kcc: error: ...", a note for its "Did you mean" (the command-line
  // fuzzer found them without "error"). An option's bad value LLVM prints
  // itself ("kcc: for the --x option: ..."), to standard error.
  std::string parseErrors;
  raw_string_ostream parseOs(parseErrors);
  if (!cl::ParseCommandLineOptions(
          argc, argv, "kcc: ahead-of-time GPU kernel compiler\n", &parseOs)) {
    std::string prefix = sys::path::filename(argv[0]).str() + ": ";
    for (StringRef line : split(StringRef(parseErrors).rtrim('\n'), '\n')) {
      if (line.empty())
        continue;
      line.consume_front(prefix);
      if (line.starts_with("Did you mean"))
        WithColor::note(errs(), "kcc") << line << "\n";
      else
        WithColor::error(errs(), "kcc") << line << "\n";
    }
    return 1;
  }

  // The backends first: a --target-model file is checked against what
  // they know (processors, PTX ISA versions).
  nvidia::registerBackend();
  amd::registerBackend();
  TargetRegistry registry = TargetRegistry::builtin();
  // ... and against what the installed ptxas assembles.
  registry.setToolCheck(nvidia::ptxasRefuses);
  for (const std::string &path : targetModels)
    if (Error e = registry.addFromFile(path)) {
      // A model's own errors are located (FILE:LINE:COL: error: ...); one
      // that cannot be read is kcc's (found by the command-line fuzzer: it
      // printed no "error").
      std::string msg = toString(std::move(e));
      // An empty path prefixes every message (found by the fuzzer in CI).
      if (path.empty() || !StringRef(msg).starts_with(path + ":"))
        return fail(msg);
      errs() << msg << "\n";
      return 1;
    }

  if (!inputs.empty() && inputs.front() == "legality")
    return checkStdout(runLegality(registry));

  driver::Options options;
  options.registry = &registry;
  if (inputs.empty())
    return fail("no input files; usage: kcc FILE.kc [-o DIR] [--target=...] "
                "(see kcc --help)");
  options.inputs.assign(inputs.begin(), inputs.end());
  options.outputDir = outputDir;
  options.timePasses = TimePassesIsEnabled;
  if (numWarps.getNumOccurrences() &&
      (numWarps == 0 || numWarps > 32 || (numWarps & (numWarps - 1)) != 0))
    return fail("invalid --num-warps=" + std::to_string(numWarps) +
                "; use a power of two from 1 to 32");
  options.numWarps = numWarps;
  options.warpSpecialize = warpSpecialize;
  options.pingPong = pingPong;
  options.prefetchTileLoads = prefetchTileLoads;
  options.fpContract = fpContract;
  options.chunkEpilogues = chunkEpilogues;
  if (pipelineStages < 2 || pipelineStages > 8)
    return fail("invalid --pipeline-stages=" + std::to_string(pipelineStages) +
                "; use 2 to 8");
  options.pipelineStages = pipelineStages;
  options.overlapProducts = overlapProducts;
  options.latePromotion = latePromotion;
  options.versionMasks = versionMasks;
  options.errorLimit = errorLimit;
  options.warpgroupTurns = kcc::pipeline::warpgroupTurnsMode(warpgroupTurns);
  options.persistent = persistent;
  if (std::string why = kcc::pipeline::clusterSizeError(clusters); !why.empty())
    return fail(why);
  options.clusters = clusters;
  options.fallbackBuilds = fallbackBuilds;
  options.splitK = splitK;
  if (dispatchVariants == 0 || dispatchVariants > 16)
    return fail("invalid --dispatch-variants=" +
                std::to_string(dispatchVariants) + "; use 1 to 16");
  options.dispatchVariants = dispatchVariants;
  options.tuningDbs.assign(tuningDbs.begin(), tuningDbs.end());
  options.versionBranches = versionBranches;
  if (unprovenCoverage != "error" && unprovenCoverage != "warning")
    return fail("invalid --unproven-coverage=" + unprovenCoverage +
                "; use error or warning");
  options.unprovenCoverageIsError = unprovenCoverage == "error";
  options.cacheDir = cacheDir;
  if (!cacheDir.getNumOccurrences())
    if (const char *env = std::getenv("KCC_CACHE_DIR"))
      options.cacheDir = env;
  if (depfile.getNumOccurrences()) {
    if (options.outputDir == "-")
      return fail("--depfile needs output files; give an output directory "
                  "with -o");
    if (depfile.empty())
      return fail("--depfile needs a file name (--depfile=FILE.d)");
    options.depfile = depfile;
    options.dependencies.assign(targetModels.begin(), targetModels.end());
    options.dependencies.insert(options.dependencies.end(), tuningDbs.begin(),
                                tuningDbs.end());
  }
  // kcc prints its own report; LLVM would print a second one at exit.
  TimePassesIsEnabled = false;

  if (optLevel < '0' || optLevel > '3')
    return fail("invalid optimization level '-O" + std::string(1, optLevel) +
                "'; valid levels are -O0, -O1, -O2, -O3");
  options.optLevel = optLevel - '0';
  options.jobs = jobs;

  // asm/obj name the per-target artifact of either vendor; ptx/cubin are
  // the NVIDIA spellings, refused below for AMD targets.
  static const std::pair<StringRef, driver::EmitKind> emitKinds[] = {
      {"tile-ir", driver::EmitKind::TileIR},
      {"layout-ir", driver::EmitKind::LayoutIR},
      {"llvm", driver::EmitKind::LLVM},
      {"asm", driver::EmitKind::Asm},
      {"ptx", driver::EmitKind::Asm},
      {"obj", driver::EmitKind::Object},
      {"cubin", driver::EmitKind::Object},
      {"fatbin", driver::EmitKind::Fatbin}};
  bool emitFound = false;
  for (const auto &[name, kind] : emitKinds)
    if (emit == name) {
      options.emit = kind;
      emitFound = true;
    }
  if (!emitFound)
    return fail("unknown --emit kind '" + emit +
                "'; valid kinds are tile-ir, layout-ir, llvm, asm (ptx), obj "
                "(cubin), fatbin");

  if (report.getNumOccurrences()) {
    if (report.empty() || report == "text")
      options.report = driver::ReportKind::Text;
    else if (report == "json")
      options.report = driver::ReportKind::JSON;
    else
      return fail("unknown --report format '" + report +
                  "'; valid formats are text (the default) and json");
    if (options.outputDir == "-")
      return fail("--report prints to stdout; give an output directory with "
                  "-o for the compiled files");
  }

  std::vector<std::string> requested = requestedTargets();
  if (requested.empty())
    requested = {"sm_80", "sm_90a", "sm_100a"};
  for (const std::string &name : requested) {
    const TargetModel *target = lookupTarget(registry, name);
    if (!target)
      return 1;
    if (target->vendor == Vendor::AMD && (emit == "ptx" || emit == "cubin"))
      return fail("--emit=" + emit + " is for NVIDIA targets; for '" + name +
                  "' use --emit=" + (emit == "ptx" ? "asm" : "obj") +
                  " (AMDGPU assembly / HSACO; for NVIDIA targets they mean "
                  "PTX / cubin)");
    if (!llvm::is_contained(options.targets, target))
      options.targets.push_back(target);
  }

  for (const std::string &pattern : kernelPatterns) {
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(pattern);
    if (!glob)
      return fail("malformed --kernel pattern '" + pattern +
                  "': " + toString(glob.takeError()));
    options.kernels.emplace_back(pattern, std::move(*glob));
  }
  for (const std::string &define : defines) {
    auto [name, value] = StringRef(define).split('=');
    if (name.empty() || value.empty() || !StringRef(define).contains('='))
      return fail("malformed -D '" + define + "'; expected -D NAME=VALUE");
    options.defines.emplace_back(name.str(), value.str());
  }
  return checkStdout(driver::compile(options));
}
