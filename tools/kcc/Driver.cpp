//===- Driver.cpp - the kcc compilation driver
//------------------------------===//
//
// .kc -> tile IR (frontend) -> layout IR (kcc-assign-layouts, per target)
// -> LLVM dialect (backends/nvidia) -> LLVM IR -> PTX -> cubin -> fatbin.
//
//===----------------------------------------------------------------------===//
#include "tools/kcc/Driver.h"
#include "ir/MessageText.h"
#include "ir/SourceLocation.h"
#include "tools/kcc/BackendCache.h"
#include "tools/kcc/Report.h"
#include "tools/kcc/TuningDb.h"

#include "backends/amd/CodeGen.h"
#include "backends/host/KernelInfo.h"
#include "backends/host/KernelInfoFromIR.h"
#include "backends/host/Manifest.h"
#include "backends/host/StubEmitter.h"
#include "backends/nvidia/CodeGen.h"
#include "frontend/Frontend.h"
#include "ir/Dialect.h"
#include "passes/transforms/KernelBuilds.h"
#include "pipeline/Pipeline.h"
#include "pipeline/SelectVariants.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <map>
#include <set>

using namespace kcc;
using namespace kcc::driver;
using llvm::StringRef;

namespace {

void reportError(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "kcc") << msg << "\n";
}

/// What an input's outputs are named after: its file name without the
/// extension ("stdin" for standard input).
std::string outputStem(StringRef input) {
  std::string stem = llvm::sys::path::stem(input).str();
  return stem.empty() || input == "-" ? "stdin" : stem;
}

bool reportIfError(llvm::Error err, const llvm::Twine &context) {
  if (!err)
    return false;
  reportError(context + ": " + llvm::toString(std::move(err)));
  return true;
}

/// Writes `data` to OUTDIR/name, or to stdout when the output is "-"; adds
/// the path of every file written to `written` (for --depfile).
bool writeOutput(const Options &options, StringRef name, StringRef data,
                 bool binary, std::vector<std::string> &written) {
  if (options.outputDir == "-") {
    if (binary) {
      reportError("refusing to write binary " + name +
                  " to stdout; give an output directory with -o");
      return false;
    }
    // A write error (a full device, a closed pipe) is an error like any
    // other, not LLVM's "IO failure" abort when the stream is destroyed.
    llvm::outs() << data;
    llvm::outs().flush();
    if (std::error_code ec = llvm::outs().error()) {
      llvm::outs().clear_error();
      reportError("cannot write " + name + " to stdout: " + ec.message());
      return false;
    }
    return true;
  }
  llvm::SmallString<256> path(options.outputDir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::ToolOutputFile out(
      path, ec, binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
  if (ec) {
    reportError("cannot write " + path + ": " + ec.message());
    return false;
  }
  out.os() << data;
  out.os().flush();
  if (std::error_code ec = out.os().error()) {
    out.os().clear_error();
    reportError("cannot write " + path + ": " + ec.message());
    return false; // not kept: ToolOutputFile removes the partial file
  }
  out.keep();
  written.push_back(path.str().str());
  return true;
}

/// Escapes a path for a Makefile rule (what Ninja and CMake's depfile
/// readers understand): spaces, '#' and '$' are special there.
std::string escapeForMake(StringRef path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    else if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

/// --depfile: one Makefile rule naming every file written as depending on
/// every file read (the inputs and --target-model files), so a build system
/// reruns kcc exactly when one of them changes.
bool writeDepfile(const Options &options,
                  const std::vector<std::string> &written) {
  if (written.empty()) {
    reportError("--depfile needs output files; this run wrote none (-o -)");
    return false;
  }
  std::string rule;
  auto absolute = [](StringRef path) {
    llvm::SmallString<256> abs(path);
    llvm::sys::fs::make_absolute(abs);
    return escapeForMake(abs);
  };
  // The tuner (<stem>.kcc.tune.cpp) is written only where a launch function
  // weighs candidates, which a build system cannot know before the compile
  // to declare it: Ninja refuses a depfile naming an undeclared output, so
  // it is a by-product, not a target.
  for (const std::string &out : written)
    if (!StringRef(out).ends_with(".kcc.tune.cpp"))
      rule += (rule.empty() ? "" : " ") + absolute(out);
  rule += ":";
  auto addDependency = [&](StringRef path) {
    rule += " \\\n  " + absolute(path);
  };
  for (const std::string &input : options.inputs)
    addDependency(input);
  for (const std::string &dep : options.dependencies)
    addDependency(dep);
  rule += "\n";
  std::error_code ec;
  llvm::ToolOutputFile out(options.depfile, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    reportError("cannot write depfile " + options.depfile + ": " +
                ec.message());
    return false;
  }
  out.os() << rule;
  out.keep();
  return true;
}

std::string printOp(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  os << "\n";
  return text;
}

/// One target's module in LLVM IR, compiled on a thread of its own (its own
/// LLVMContext), and what that produced: the text of --emit=llvm/asm, the
/// cubin or HSACO, or the error to report.
struct BackendJob {
  const TargetModel *target = nullptr;
  std::string prefix; // <stem>.<target>
  std::unique_ptr<llvm::LLVMContext> llvmCtx;
  std::unique_ptr<llvm::Module> module;
  std::string output, ptx, ptxasLog, error;
  std::string cacheWarning; // --cache-dir: why the result was not kept
  std::map<std::string, amd::KernelResources> amdResources;
};

/// Compiles one input file; returns false on error (already reported).
class FileCompiler {
public:
  FileCompiler(const Options &options, mlir::MLIRContext &ctx,
               mlir::TimingScope &timing, std::vector<std::string> &written,
               const std::vector<TuningDb> &tuningDbs)
      : options(options), ctx(ctx), timing(timing), written(written),
        tuningDbs(tuningDbs) {}

  /// --kernel: drops the kernels no pattern matches (a pattern names a
  /// kernel of the source, a launch function or a tunable group). Leaving
  /// none is an error that lists what the file has.
  bool selectKernels(mlir::ModuleOp module, StringRef inputPath) {
    auto matches = [&](StringRef name) {
      return llvm::any_of(options.kernels,
                          [&](const auto &p) { return p.second.match(name); });
    };
    // The launch functions, for the error: a tunable group's, not its
    // candidates'.
    llvm::SetVector<llvm::StringRef> names;
    bool kept = false;
    for (mlir::func::FuncOp func :
         llvm::make_early_inc_range(module.getOps<mlir::func::FuncOp>())) {
      if (!func->hasAttr(KccDialect::kKernelAttr))
        continue;
      llvm::SmallVector<llvm::StringRef> keys = {func.getSymName()};
      if (auto base =
              func->getAttrOfType<mlir::StringAttr>(KccDialect::kBaseNameAttr))
        keys.push_back(base.getValue());
      auto groups =
          func->getAttrOfType<mlir::DictionaryAttr>(KccDialect::kVariantOfAttr);
      for (mlir::NamedAttribute group :
           groups ? groups.getValue()
                  : llvm::ArrayRef<mlir::NamedAttribute>()) {
        keys.push_back(group.getName().getValue());
        names.insert(group.getName().getValue());
      }
      if (!func->hasAttr(KccDialect::kVariantOnlyAttr))
        names.insert(func.getSymName());
      if (llvm::any_of(keys, matches)) {
        kept = true;
        continue;
      }
      func.erase();
    }
    if (kept)
      return true;
    std::string patterns;
    for (const auto &p : options.kernels)
      patterns += (patterns.empty() ? "" : ", ") + elidedText(p.first);
    reportError(
        "--kernel=" + patterns + " matches no kernel of " +
        llvm::sys::path::filename(inputPath) +
        "; its launch functions: " + llvm::join(names.getArrayRef(), ", "));
    return false;
  }

  bool run(StringRef inputPath) {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> buffer =
        readBoundedInput(inputPath, error);
    if (!buffer) {
      reportError(error);
      return false;
    }
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    stem = outputStem(inputPath);
    // Errors from passes print like the frontend's: file:line:col + caret.
    mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
    // Once per location and message: builds of one kernel (its else-branch
    // and fallback builds, its specializations) share source and would
    // repeat an error in the code they share.
    std::set<std::string> printed;
    mlir::ScopedDiagnosticHandler once(&ctx, [&](mlir::Diagnostic &diag) {
      std::string key;
      llvm::raw_string_ostream os(key);
      os << int(diag.getSeverity()) << diag.getLocation() << diag.str();
      return printed.insert(os.str()).second ? mlir::failure()
                                             : mlir::success();
    });

    mlir::OwningOpRef<mlir::ModuleOp> tileIR;
    {
      mlir::TimingScope scope = timing.nest("frontend (" + stem + ")");
      frontend::Options feOptions;
      for (const auto &[name, value] : options.defines)
        feOptions.defines.push_back({name, value});
      feOptions.errorLimit = options.errorLimit;
      unsigned numErrors = 0;
      tileIR = frontend::buildTileIR(sourceMgr, ctx, feOptions, numErrors);
      if (!tileIR || numErrors) {
        if (numErrors)
          llvm::errs() << numErrors << (numErrors == 1 ? " error" : " errors")
                       << " generated.\n";
        return false;
      }
    }
    if (!options.kernels.empty() && !selectKernels(*tileIR, inputPath))
      return false;
    if (options.emit == EmitKind::TileIR)
      return write(stem + ".tile.mlir", printOp(*tileIR), false);
    // The tile-IR passes every target shares (pipeline/Pipeline.h).
    {
      mlir::TimingScope scope = timing.nest("tile passes");
      mlir::PassManager pm(&ctx);
      pm.enableTiming(scope);
      pipeline::TileOptions tileOptions;
      tileOptions.unprovenCoverageIsError = options.unprovenCoverageIsError;
      tileOptions.persistent = options.persistent;
      tileOptions.cluster = options.clusters;
      tileOptions.fallbackBuilds = options.fallbackBuilds;
      tileOptions.splitK = options.splitK;
      tileOptions.versionBranches = options.versionBranches;
      tileOptions.versionMasks = options.versionMasks;
      pipeline::buildTilePipeline(pm, tileOptions);
      if (failed(pm.run(*tileIR)))
        return false;
    }
    // NVIDIA kernels receive their TMA tensor maps as trailing arguments,
    // the same for every NVIDIA target of the fatbin (one stub serves them
    // all); AMD targets compile the tile IR without them.
    mlir::OwningOpRef<mlir::ModuleOp> nvTileIR;
    std::vector<const TargetModel *> tmaTargets =
        pipeline::tensorMapTargets(options.targets);
    if (!tmaTargets.empty()) {
      mlir::TimingScope scope = timing.nest("tensor maps");
      nvTileIR = tileIR->clone();
      mlir::PassManager pm(&ctx);
      pipeline::buildTensorMapPipeline(pm, tmaTargets);
      if (failed(pm.run(*nvTileIR)))
        return false;
    }
    mlir::ModuleOp nvIR = nvTileIR ? *nvTileIR : *tileIR;
    info.stem = stem;
    info.sourcePath = inputPath.str();
    for (const TargetModel *target : options.targets)
      info.targets.push_back(target->name);
    if (!host::collectKernelInfo(nvIR, info))
      return false;

    report.file = inputPath.str();
    if (options.report != ReportKind::None)
      report.addLifts(*tileIR);
    std::vector<nvidia::FatbinImage> images;
    std::vector<amd::BundleImage> amdImages;
    // Each target's MLIR pipelines run here in turn (one MLIRContext); its
    // LLVM half (optimization, code generation, ptxas or ld.lld) starts on
    // a thread of its own as soon as they are done, beside the next
    // target's MLIR pipelines, and the results are taken in target order.
    std::vector<std::unique_ptr<BackendJob>> jobs;
    {
      mlir::TimingScope backends = timing.nest(
          "LLVM backends (in parallel, from the first target's MLIR on)");
      llvm::DefaultThreadPool pool(llvm::hardware_concurrency(options.jobs));
      bool ok = true;
      for (const TargetModel *target : options.targets) {
        mlir::TimingScope scope = timing.nest(target->name);
        std::unique_ptr<BackendJob> job;
        if (!compileForTarget(target->vendor == Vendor::NVIDIA ? nvIR : *tileIR,
                              *target, job, scope)) {
          ok = false;
          break;
        }
        if (job) {
          pool.async([&, j = job.get()] { runBackend(*j, backends); });
          jobs.push_back(std::move(job));
        }
      }
      pool.wait();
      if (!ok)
        return false;
    }
    for (std::unique_ptr<BackendJob> &job : jobs)
      if (!finishBackend(*job, images, amdImages))
        return false;
    // Measured tile choices, for the launch functions that weigh several.
    for (const TuningDb &db : tuningDbs)
      for (const std::string &w : applyTuningDb(db, info))
        llvm::WithColor::warning(llvm::errs(), "kcc") << w << "\n";
    if (options.report != ReportKind::None) {
      report.addResources(info);
      if (options.report == ReportKind::JSON)
        llvm::outs() << llvm::formatv("{0:2}", report.toJSON()) << "\n";
      else
        report.printText(llvm::outs());
      llvm::outs().flush();
    }
    if (options.emit != EmitKind::Fatbin)
      return true;

    std::vector<std::string> files;
    if (!images.empty() && !packNVIDIA(nvIR, images, files))
      return false;
    if (!amdImages.empty() && !packAMD(*tileIR, amdImages, files))
      return false;
    mlir::TimingScope scope = timing.nest("manifest");
    return write(stem + ".manifest.json",
                 host::emitManifest(info, KCC_VERSION, files), false);
  }

private:
  /// <stem>.fatbin (cubins + PTX of the newest target) and the CUDA stubs.
  bool packNVIDIA(mlir::ModuleOp tileIR,
                  std::vector<nvidia::FatbinImage> &images,
                  std::vector<std::string> &files) {
    // The newest architecture also ships as PTX so newer GPUs can JIT it.
    const TargetModel *newest = images.front().target;
    for (const nvidia::FatbinImage &image : images)
      if (image.target->sm > newest->sm)
        newest = image.target;
    std::vector<nvidia::FatbinImage> packed;
    std::string contents;
    for (nvidia::FatbinImage &image : images) {
      if (!image.isPTX)
        contents += (contents.empty() ? "" : ", ") + image.target->name;
      if (!image.isPTX || image.target == newest)
        packed.push_back(std::move(image));
    }
    info.fatbinContents = contents + " (+PTX " + newest->name + ")";
    llvm::Expected<std::string> fatbin = [&] {
      mlir::TimingScope scope = timing.nest("fatbinary");
      return nvidia::runFatbinary(packed);
    }();
    if (!fatbin)
      return !reportIfError(fatbin.takeError(), "packing " + stem + ".fatbin");

    // Host side: typed launch stubs with the fatbin embedded.
    return writeImageAndStubs(tileIR, stem + ".fatbin", *fatbin,
                              host::emitCudaStubs, "host stubs", files);
  }

  /// <stem>.hipfb: the HSACOs of every gfx target in one offload bundle.
  bool packAMD(mlir::ModuleOp tileIR, std::vector<amd::BundleImage> &images,
               std::vector<std::string> &files) {
    llvm::Expected<std::string> bundle = [&] {
      mlir::TimingScope scope = timing.nest("clang-offload-bundler");
      return amd::bundle(images);
    }();
    if (!bundle)
      return !reportIfError(bundle.takeError(), "bundling " + stem + ".hipfb");

    // Host side: the same typed launch functions, through the HIP runtime.
    return writeImageAndStubs(tileIR, stem + ".hipfb", *bundle,
                              host::emitHipStubs, "HIP host stubs", files);
  }

  using StubEmitter = bool (*)(const host::ModuleInfo &, const std::string &,
                               host::StubFiles &, std::string &, std::string &,
                               std::string &);
  /// Writes a device image and the launch stubs `emitStubs` makes for it.
  bool writeImageAndStubs(mlir::ModuleOp tileIR, const std::string &imageName,
                          const std::string &image, StubEmitter emitStubs,
                          StringRef what, std::vector<std::string> &files) {
    mlir::TimingScope scope = timing.nest(what);
    host::StubFiles stubs;
    std::string error, kernel, name;
    if (!emitStubs(info, image, stubs, error, kernel, name)) {
      mlir::emitError(host::stubErrorLoc(tileIR, kernel, name))
          << "cannot generate " << what << ": " << error;
      return false;
    }
    std::string names[] = {imageName, stubs.headerName, stubs.sourceName};
    files.insert(files.end(), std::begin(names), std::end(names));
    if (!stubs.tunerName.empty())
      files.push_back(stubs.tunerName);
    return write(names[0], image, true) &&
           write(names[1], stubs.header, false) &&
           write(names[2], stubs.source, false) &&
           (stubs.tunerName.empty() ||
            write(stubs.tunerName, stubs.tuner, false));
  }

  bool write(StringRef name, StringRef data, bool binary) {
    return writeOutput(options, name, data, binary, written);
  }

  /// What the layout pipeline left, for the report and the builds.
  struct LaidOut {
    struct Func {
      std::string symbol;
      unsigned warps = 0;
      std::string persistentNotLaunched; // kcc::persistentBuildNotLaunched
    };
    std::vector<Func> funcs; // the kernels, with their launch shape
    mlir::OwningOpRef<mlir::ModuleOp> ir; // layout IR, for --report/--emit
    std::vector<Report::Remark> remarks;
  };

  /// A diagnostic held back while a compile may be retried.
  struct Held {
    mlir::Location loc;
    mlir::DiagnosticSeverity severity;
    std::string text;
    std::vector<std::pair<mlir::Location, std::string>> notes;
  };

  /// Emits the held diagnostics (with their notes) after all.
  static void replay(const std::vector<Held> &held) {
    for (const Held &h : held) {
      mlir::InFlightDiagnostic diag =
          h.severity == mlir::DiagnosticSeverity::Warning
              ? mlir::emitWarning(h.loc, h.text)
              : mlir::emitError(h.loc, h.text);
      for (const auto &[loc, text] : h.notes)
        diag.attachNote(loc) << text;
    }
  }

  /// Runs the layout pipeline and (unless only layout IR is asked for) the
  /// lowering on `module`. While it has fallback or persistent builds,
  /// diagnostics are held back: an error of such a build drops that build
  /// (for a fallback build the launch then refuses tensors outside the
  /// contract, as without one; for a persistent build it runs one program
  /// per tile; the report and the manifest say why) and the rest is
  /// compiled again from the module as it was; any other error is printed.
  /// A compile that succeeds at once pays nothing for this.
  bool layOutAndLower(mlir::OwningOpRef<mlir::ModuleOp> &module,
                      const TargetModel &target,
                      const pipeline::LayoutOptions &layout, LaidOut &out,
                      mlir::TimingScope &scope) {
    mlir::OwningOpRef<mlir::ModuleOp> pristine;
    while (true) {
      bool hold = hasDroppableBuilds(*module);
      if (hold)
        pristine = module->clone();
      std::vector<Held> held;
      out = LaidOut();
      if (runLayoutAndLowering(*module, target, layout, hold, out, held,
                               scope)) {
        replay(held); // warnings
        return true;
      }
      std::map<std::string, std::string> dropped;
      for (const Held &h : held)
        if (h.severity == mlir::DiagnosticSeverity::Error)
          if (std::string f = droppableBuildOf(h.loc); !f.empty()) {
            std::string at = sourceLocationText(h.loc);
            dropped.emplace(f, at.empty() ? h.text : at + ": " + h.text);
          }
      if (dropped.empty()) {
        replay(held);
        return false;
      }
      for (const auto &[symbol, why] : dropped) {
        if (auto f = pristine->lookupSymbol<mlir::func::FuncOp>(symbol))
          f.erase();
        if (host::Specialization *spec = host::findSpecialization(info, symbol))
          spec->notBuilt.push_back({target.name, why});
      }
      module = std::move(pristine);
    }
  }

  bool runLayoutAndLowering(mlir::ModuleOp module, const TargetModel &target,
                            const pipeline::LayoutOptions &layout,
                            bool holdErrors, LaidOut &out,
                            std::vector<Held> &held, mlir::TimingScope &scope) {
    // The pass's access-width remarks feed the report, not the terminal.
    mlir::ScopedDiagnosticHandler handler(
        &ctx, [&](mlir::Diagnostic &diag) -> mlir::LogicalResult {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Remark) {
            out.remarks.push_back({diag.getLocation(), diag.str()});
            return mlir::success();
          }
          if (!holdErrors)
            return mlir::failure(); // to the source-line printer
          Held h{diag.getLocation(), diag.getSeverity(), diag.str(), {}};
          for (mlir::Diagnostic &note : diag.getNotes())
            h.notes.push_back({note.getLocation(), note.str()});
          held.push_back(std::move(h));
          return mlir::success();
        });
    {
      mlir::PassManager pm(&ctx);
      mlir::TimingScope passScope = scope.nest("layout passes");
      pm.enableTiming(passScope);
      pipeline::buildLayoutPipeline(pm, target, layout);
      if (failed(pm.run(module)))
        return false;
    }
    if (options.report != ReportKind::None ||
        options.emit == EmitKind::LayoutIR)
      out.ir = module.clone();
    for (auto func : module.getOps<mlir::func::FuncOp>())
      if (unsigned warps = blockWarps(func))
        out.funcs.push_back({func.getSymName().str(), warps,
                             persistentBuildNotLaunched(func).value_or("")});
    if (options.emit != EmitKind::LayoutIR) {
      mlir::PassManager pm(&ctx);
      mlir::TimingScope passScope = scope.nest("lowering passes");
      pm.enableTiming(passScope);
      pipeline::buildLowerToLLVMPipeline(pm, target);
      if (failed(pm.run(module)))
        return false;
    }
    return true;
  }

  /// The candidates `c` kept on `target`, as the stubs weigh them.
  static host::DispatchTarget dispatchTarget(const pipeline::VariantChoice &c,
                                             const TargetModel &target) {
    host::DispatchTarget d;
    d.target = target.name;
    d.sm = target.vendor == Vendor::NVIDIA ? target.sm : 0;
    const ThroughputModel &t = target.throughput;
    d.rates = {double(t.tensorFlops), double(t.sharedBytes), double(t.l2Bytes),
               double(t.dramBytes),   double(t.latency),     double(t.launch)};
    for (int i : c.kept) {
      const pipeline::VariantCandidate &cand = c.candidates[i];
      host::DispatchCandidate h;
      h.symbol = cand.symbol;
      if (const std::optional<LaunchCost> &cost = cand.cost) {
        h.trips = cost->trips;
        h.rows = cost->rows;
        h.cols = cost->cols;
        h.tileM = double(cost->tileM);
        h.tileN = double(cost->tileN);
        h.flops = cost->flops;
        h.smemBytes = cost->smemBytes;
        h.rowBytes = cost->rowBytes;
        h.colBytes = cost->colBytes;
        h.storeBytes = cost->storeBytes;
        h.flopsScale = cost->flopsScale;
        h.streamBytes = cost->streamBytes;
      }
      h.stages = std::max(1, cand.features.depth);
      d.candidates.push_back(std::move(h));
    }
    return d;
  }

  /// Runs `target`'s MLIR pipelines on a copy of `tileIR` and leaves what
  /// the LLVM half of the compile needs in `job` (none for --emit=layout-ir).
  bool compileForTarget(mlir::ModuleOp tileIR, const TargetModel &target,
                        std::unique_ptr<BackendJob> &job,
                        mlir::TimingScope &scope) {
    mlir::OwningOpRef<mlir::ModuleOp> module(tileIR.clone());
    (*module)->setAttr(KccDialect::kTargetAttr,
                       mlir::StringAttr::get(&ctx, target.name));
    std::string prefix = stem + "." + target.name;

    // Shared buffers are laid out with the bank model here too, so the
    // report shows the conflicts of what will be emitted.
    pipeline::LayoutOptions layout;
    layout.numWarps = options.numWarps;
    layout.remarks = options.report != ReportKind::None;
    layout.warpSpecialize = options.warpSpecialize;
    layout.pingPong = options.pingPong;
    layout.prefetchTileLoads = options.prefetchTileLoads;
    layout.chunkEpilogues = options.chunkEpilogues;
    layout.pipelineStages = options.pipelineStages;
    layout.overlapProducts = options.overlapProducts;
    layout.latePromotion = options.latePromotion;
    layout.versionMasks = options.versionMasks;
    layout.warpgroupTurns = options.warpgroupTurns;
    // A persistent build whose tiles run different trip counts is not
    // compiled: its CTAs take the tiles in turn and would finish unevenly
    // (the launch runs one CTA per tile, as where a build is dropped).
    for (const auto &[symbol, why] :
         pipeline::dropUnevenPersistentBuilds(*module))
      if (host::Specialization *spec = host::findSpecialization(info, symbol))
        spec->notBuilt.push_back({target.name, why});
    // Tunable constants: one candidate per group stays for this target.
    {
      mlir::TimingScope passScope = scope.nest("select variants");
      auto started = std::chrono::steady_clock::now();
      auto choices = pipeline::selectVariants(*module, target, layout,
                                              options.dispatchVariants);
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - started)
                           .count();
      if (failed(choices))
        return false;
      for (const pipeline::VariantChoice &c : *choices)
        if (host::VariantGroup *group = host::findVariantGroup(info, c.group)) {
          group->chosen.push_back({target.name, c.candidates[c.chosen].symbol});
          group->dispatch.push_back(dispatchTarget(c, target));
        }
      if (options.report != ReportKind::None)
        report.addVariantChoices(target, seconds, std::move(*choices));
    }
    // Tile IR -> layout IR -> LLVM dialect.
    LaidOut laid;
    if (!layOutAndLower(module, target, layout, laid, scope))
      return false;
    if (options.report != ReportKind::None)
      report.addTarget(*laid.ir, target, std::move(laid.remarks));
    if (options.emit == EmitKind::LayoutIR)
      return write(prefix + ".layout.mlir", printOp(*laid.ir), false);
    for (const LaidOut::Func &f : laid.funcs) {
      host::Specialization *spec = host::findSpecialization(info, f.symbol);
      if (!spec)
        continue;
      host::TargetBuild build;
      build.target = target.name;
      build.sm = target.sm;
      build.threads = f.warps * target.warpSize;
      build.persistentNotLaunched = f.persistentNotLaunched;
      spec->builds.push_back(build);
    }
    // The dynamic shared memory each kernel's launch must provide.
    for (auto func : module->getOps<mlir::LLVM::LLVMFuncOp>()) {
      host::Specialization *spec = host::findSpecialization(info, func.getName());
      auto bytes = func->getAttrOfType<mlir::IntegerAttr>(
          KccDialect::kDynamicSmemBytesAttr);
      if (spec && bytes && !spec->builds.empty() &&
          spec->builds.back().target == target.name)
        spec->builds.back().dynamicSharedBytes = bytes.getInt();
    }

    job = std::make_unique<BackendJob>();
    job->target = &target;
    job->prefix = prefix;
    job->llvmCtx = std::make_unique<llvm::LLVMContext>();
    {
      mlir::TimingScope t = scope.nest("translate to LLVM IR");
      job->module = mlir::translateModuleToLLVMIR(*module, *job->llvmCtx, stem);
      if (!job->module) {
        reportError("internal error: translating " + prefix +
                    " to LLVM IR failed");
        return false;
      }
    }
    return true;
  }

  /// The LLVM half of one target's compile, on a thread of its own: it
  /// touches only `job` (its own LLVMContext), so jobs run in parallel.
  void runBackend(BackendJob &job, mlir::TimingScope &parent) {
    const TargetModel &target = *job.target;
    mlir::TimingScope scope = parent.nest(target.name);
    auto fail = [&](llvm::Error e, const std::string &context) {
      job.error = context + ": " + llvm::toString(std::move(e));
    };
    bool isAMD = target.vendor == Vendor::AMD;
    // The cache holds binaries: --emit=llvm and asm stop before them.
    std::optional<BackendCache> cache;
    std::string key;
    if (!options.cacheDir.empty() && (options.emit == EmitKind::Fatbin ||
                                      options.emit == EmitKind::Object)) {
      mlir::TimingScope t = scope.nest("cache lookup");
      cache.emplace(options.cacheDir);
      key = BackendCache::key(*job.module, target, options.optLevel,
                              options.fpContract);
      BackendCacheEntry hit;
      if (cache->load(key, hit)) {
        mlir::TimingScope h = scope.nest("cache hit");
        if (isAMD) {
          auto resources = amd::readKernelResources(hit.output);
          if (resources) {
            job.amdResources = std::move(*resources);
            job.output = std::move(hit.output);
            return;
          }
          llvm::consumeError(resources.takeError()); // a bad entry: a miss
        } else {
          job.output = std::move(hit.output);
          job.ptx = std::move(hit.ptx);
          job.ptxasLog = std::move(hit.ptxasLog);
          return;
        }
      }
    }
    // What this compile made, for the next one.
    auto remember = [&] {
      if (!cache)
        return;
      std::string why = cache->store(key, {job.output, job.ptx, job.ptxasLog});
      if (!why.empty())
        job.cacheWarning = why;
    };
    auto tm = isAMD ? amd::createTargetMachine(target, options.optLevel,
                                               options.fpContract)
                    : nvidia::createTargetMachine(target, options.optLevel,
                                                  options.fpContract);
    if (!tm)
      return fail(tm.takeError(), target.name);
    {
      mlir::TimingScope t = scope.nest("LLVM optimization");
      llvm::Error e =
          isAMD ? amd::optimizeModule(*job.module, **tm, options.optLevel)
                : nvidia::optimizeModule(*job.module, **tm, options.optLevel);
      if (e)
        return fail(std::move(e), job.prefix);
    }
    if (options.emit == EmitKind::LLVM) {
      llvm::raw_string_ostream os(job.output);
      job.module->print(os, nullptr);
      return;
    }
    if (isAMD) {
      if (options.emit == EmitKind::Asm) {
        mlir::TimingScope t = scope.nest("AMDGPU assembly");
        llvm::Expected<std::string> text = amd::emitAssembly(*job.module, **tm);
        if (!text)
          return fail(text.takeError(), job.prefix);
        job.output = std::move(*text);
        return;
      }
      mlir::TimingScope t = scope.nest("AMDGPU object + ld.lld");
      llvm::Expected<std::string> hsaco = amd::emitHsaco(*job.module, **tm);
      if (!hsaco)
        return fail(hsaco.takeError(), job.prefix);
      auto resources = amd::readKernelResources(*hsaco);
      if (!resources)
        return fail(resources.takeError(),
                    "reading the metadata of " + job.prefix + ".hsaco");
      job.output = std::move(*hsaco);
      job.amdResources = std::move(*resources);
      return remember();
    }
    {
      mlir::TimingScope t = scope.nest("PTX emission");
      llvm::Expected<std::string> emitted = nvidia::emitPTX(*job.module, **tm);
      if (!emitted)
        return fail(emitted.takeError(), job.prefix);
      job.ptx = std::move(*emitted);
    }
    if (options.emit == EmitKind::Asm)
      return;
    mlir::TimingScope t = scope.nest("ptxas");
    llvm::Expected<nvidia::Cubin> cubin =
        nvidia::runPtxas(job.ptx, target, options.optLevel, options.jobs);
    if (!cubin)
      return fail(cubin.takeError(),
                  "internal error: ptxas rejected the PTX kcc generated for " +
                      job.prefix);
    job.output = std::move(cubin->data);
    job.ptxasLog = std::move(cubin->ptxasLog);
    remember();
  }

  /// The build of `spec` for `target` (compileForTarget added it), or null.
  static host::TargetBuild *buildFor(host::Specialization *spec,
                                     const TargetModel &target) {
    for (host::TargetBuild &b : spec->builds)
      if (b.target == target.name)
        return &b;
    return nullptr;
  }

  /// Back on the main thread, in target order: the job's error, its files,
  /// and the resources ptxas or the HSACO's metadata give each build.
  bool finishBackend(BackendJob &job, std::vector<nvidia::FatbinImage> &images,
                     std::vector<amd::BundleImage> &amdImages) {
    const TargetModel &target = *job.target;
    if (!job.error.empty()) {
      reportError(job.error);
      return false;
    }
    if (!job.cacheWarning.empty())
      llvm::WithColor::warning(llvm::errs(), "kcc")
          << job.cacheWarning << " (the compile goes on without the cache)\n";
    bool isAMD = target.vendor == Vendor::AMD;
    if (options.emit == EmitKind::LLVM)
      return write(job.prefix + ".ll", job.output, false);
    if (options.emit == EmitKind::Asm)
      return isAMD ? write(job.prefix + ".s", job.output, false)
                   : write(job.prefix + ".ptx", job.ptx, false);
    for (host::Specialization *spec : host::allSpecializations(info)) {
      host::TargetBuild *build = buildFor(spec, target);
      if (!build)
        continue;
      if (isAMD) {
        auto it = job.amdResources.find(spec->symbol);
        if (it == job.amdResources.end())
          continue;
        build->registers = it->second.vgprs + it->second.agprs;
        build->sharedBytes = it->second.ldsBytes;
        build->stackBytes = it->second.scratchBytes;
        // VGPR spills go to scratch, one dword per lane each (SGPR spills
        // go to VGPR lanes, not memory).
        build->spillStoreBytes = build->spillLoadBytes =
            it->second.vgprSpills * 4;
        continue;
      }
      nvidia::PtxasResources res;
      if (!nvidia::parsePtxasResources(job.ptxasLog, spec->symbol, res))
        continue;
      build->registers = res.registers;
      build->sharedBytes = res.sharedBytes;
      build->stackBytes = res.stackBytes;
      build->spillStoreBytes = res.spillStoreBytes;
      build->spillLoadBytes = res.spillLoadBytes;
    }
    if (options.emit == EmitKind::Object)
      return write(job.prefix + (isAMD ? ".hsaco" : ".cubin"), job.output,
                   true);
    if (isAMD) {
      amdImages.push_back({&target, std::move(job.output)});
      return true;
    }
    images.push_back({&target, /*isPTX=*/false, std::move(job.output)});
    images.push_back({&target, /*isPTX=*/true, std::move(job.ptx)});
    return true;
  }

  const Options &options;
  mlir::MLIRContext &ctx;
  mlir::TimingScope &timing;
  std::vector<std::string> &written;
  const std::vector<TuningDb> &tuningDbs;
  llvm::SourceMgr sourceMgr;
  std::string stem;
  host::ModuleInfo info;
  Report report;
};

} // namespace

int driver::compile(const Options &options) {
  mlir::DialectRegistry registry;
  pipeline::registerCompilerDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // The passes find the targets, --target-model files included, by name.
  if (options.registry)
    ctx.getLoadedDialect<KccDialect>()->setTargetRegistry(options.registry);
  // kcc compiles small modules; threads cost more than they give here.
  ctx.disableMultithreading();
  // Users get file:line:col and a caret, not a dump of the failing IR op.
  ctx.printOpOnDiagnostic(false);

  pipeline::registerPassesAndPipelines();

  mlir::DefaultTimingManager tm;
  tm.setEnabled(options.timePasses);
  tm.setDisplayMode(mlir::DefaultTimingManager::DisplayMode::Tree);
  tm.setOutput(mlir::createOutputStrategy(
      mlir::DefaultTimingManager::OutputFormat::Text, llvm::errs()));
  mlir::TimingScope root = tm.getRootScope();

  // Outputs are named by the input's stem: two inputs with one stem would
  // overwrite each other's files in the one output directory.
  llvm::StringMap<std::string> byStem;
  for (const std::string &input : options.inputs) {
    if (options.outputDir == "-")
      break;
    std::string stem = outputStem(input);
    auto [it, fresh] = byStem.try_emplace(stem, input);
    if (!fresh) {
      reportError("inputs '" + it->second + "' and '" + input +
                  "' would both write " + stem + ".* into '" +
                  options.outputDir +
                  "'; compile them into different output directories (-o)");
      return 1;
    }
  }
  if (options.outputDir != "-") {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(options.outputDir)) {
      reportError("cannot create output directory '" + options.outputDir +
                  "': " + ec.message());
      return 1;
    }
  }
  // Tuning databases: read and checked once, before any compile.
  std::vector<TuningDb> tuningDbs;
  for (const std::string &path : options.tuningDbs) {
    llvm::Expected<TuningDb> db = readTuningDb(path);
    if (!db) {
      reportError(llvm::toString(db.takeError()));
      return 1;
    }
    tuningDbs.push_back(std::move(*db));
  }
  bool ok = true;
  std::vector<std::string> written;
  for (const std::string &input : options.inputs) {
    FileCompiler compiler(options, ctx, root, written, tuningDbs);
    ok &= compiler.run(input);
  }
  // A failed compile leaves no depfile: the build system reruns it anyway.
  if (ok && !options.depfile.empty())
    ok = writeDepfile(options, written);
  return ok ? 0 : 1;
}

std::unique_ptr<llvm::MemoryBuffer>
kcc::driver::readBoundedInput(StringRef path, std::string &error,
                              size_t limit) {
  int fd = 0;
  bool isStdin = path == "-";
  if (!isStdin) {
    if (std::error_code ec = llvm::sys::fs::openFileForRead(path, fd)) {
      error = "cannot read '" + path.str() + "': " + ec.message();
      return nullptr;
    }
  }
  // Chunks until EOF or one byte past the limit: a device file that never
  // ends (/dev/zero) or a wrong file is refused, not read until memory
  // runs out.
  std::string data;
  llvm::SmallVector<char, 0> chunk(1 << 16);
  while (data.size() <= limit) {
    llvm::Expected<size_t> n = llvm::sys::fs::readNativeFile(
        llvm::sys::fs::convertFDToNativeFile(fd),
        llvm::MutableArrayRef<char>(chunk.data(), chunk.size()));
    if (!n) {
      error = "cannot read " +
              (isStdin ? std::string("stdin") : "'" + path.str() + "'") + ": " +
              llvm::toString(n.takeError());
      break;
    }
    if (*n == 0)
      break;
    data.append(chunk.data(), *n);
  }
  if (!isStdin)
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  if (!error.empty())
    return nullptr;
  if (data.size() > limit) {
    error =
        (isStdin ? std::string("input stdin") : "input '" + path.str() + "'") +
        " is larger than " + std::to_string(limit >> 20) + " MiB" +
        (limit == kMaxInputBytes
             ? "; kernel sources are far smaller (is it the right file?)"
             : "; split it");
    return nullptr;
  }
  return llvm::MemoryBuffer::getMemBufferCopy(data, isStdin ? "<stdin>" : path);
}
