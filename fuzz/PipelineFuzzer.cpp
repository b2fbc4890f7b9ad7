//===- PipelineFuzzer.cpp - libFuzzer target: .kc -> LLVM IR -------------===//
//
// The whole in-process compile of one input for one target, as kcc's driver
// runs it up to `--emit=llvm` (without LLVM's own optimization pipeline):
// frontend -> tile IR (printed and parsed back, as kcc-opt would read it)
// -> the candidate of each tunable group -> layout pipeline for the target ->
// NVIDIA lowering to the LLVM dialect (NVVM, or ROCDL for AMD targets) -> LLVM
// IR, which must pass LLVM's verifier. Inputs choose the target and warps with
// header comments (FuzzerUtil.h).
//
// Errors the passes may legitimately report for a kernel the frontend
// accepted are listed in isExpectedPipelineError(); any other error reaching
// the user (a verifier or legalization failure, an unlocated message) is a
// bug, like a crash.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzerUtil.h"

#include "passes/Passes.h"
#include "pipeline/Pipeline.h"
#include "pipeline/SelectVariants.h"
#include "targets/TargetModel.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>

using namespace kcc;

namespace {

/// Errors of the layout and lowering passes that describe a limit of kcc 0.1
/// or of the target, at the user's source line.
bool isExpectedPipelineError(llvm::StringRef msg) {
  return (msg.starts_with("a tile of ") &&
          msg.contains("registers per thread")) ||
         msg.starts_with("kcc.dot is parsed but its lowering") ||
         (msg.starts_with("kcc: kernel needs ") &&
          msg.contains("bytes of shared memory")) ||
         // The FMA lowering of dot stages both operands (limits.test).
         (msg.starts_with("kcc: dot needs ") &&
          msg.contains("bytes of shared memory")) ||
         msg.contains("has no matrix-multiply") ||
         // kcc-check-target-support: element types the target lacks (8-bit
         // floats: sm_80 and gfx90a have none, NVIDIA and MI300 each their
         // own family; fp8-gemm.test).
         msg.contains(" values cannot be compiled for '") ||
         msg.starts_with("scope=system atomics are not supported on") ||
         // More launch parameters than ptxas takes (limits.test).
         (msg.starts_with("kernel '") &&
          msg.contains("bytes of launch parameters")) ||
         // kcc-check-tile-extents: extents that are not powers of two
         // outside accumulators and TMA stages (tile-extents.test).
         (msg.starts_with("kcc: this ") &&
          msg.contains("that is not a power of two")) ||
         (msg.starts_with("kcc: the ") &&
          msg.contains("held in a tensor-core accumulator whose blocks do "
                       "not tile it")) ||
         // The async verifier's budgets (a large constant trip count, many
         // data-dependent branches; pipeline-unproven.test).
         msg.contains("the verifier executes at most") ||
         msg.contains("the verifier explores at most") ||
         msg.contains("is not supported on AMD targets yet") ||
         // kcc-prove-tile-coverage's verdicts on the user's stores.
         msg.starts_with("cannot prove that the stores cover tensor") ||
         msg.starts_with("the stores never cover tensor") ||
         msg.starts_with("the box origins (tile size x coordinate)") ||
         // A kernel named like another's persistent, fallback or else-branch
         // build.
         (msg.starts_with("kernel '") &&
          msg.contains("that symbol is taken; rename the kernel")) ||
         (msg.starts_with("programs (") && msg.contains(") both write"));
}

/// A tunable candidate's refusal, "file:line:col: message"
/// (pipeline/SelectVariants.h): expected if its message is.
bool isExpectedRefusal(llvm::StringRef refusal) {
  for (int colons = 0; colons < 3 && !refusal.empty(); ++colons)
    refusal = refusal.split(':').second;
  return isExpectedPipelineError(refusal.ltrim());
}

std::string print(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz::ContextPool contexts;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  fuzz::InputOptions inputOptions = fuzz::parseInputOptions(text);
  if (!inputOptions.valid)
    return -1;
  const TargetModel *target = TargetRegistry::builtin().lookup(
      inputOptions.target.empty() ? "sm_90a" : inputOptions.target);
  if (!target)
    return -1; // kcc refuses unknown targets before compiling

  mlir::MLIRContext &ctx = contexts.get();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.kc"), llvm::SMLoc());
  fuzz::silenceSourceMgr(sourceMgr);

  mlir::OwningOpRef<mlir::ModuleOp> tileIR;
  {
    // The frontend turns verifier diagnostics into its own internal error.
    mlir::ScopedDiagnosticHandler quiet(
        &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
    frontend::Options options;
    options.defines = inputOptions.defines;
    unsigned numErrors = 0;
    tileIR = frontend::buildTileIR(sourceMgr, ctx, options, numErrors);
    // Keep only kernels the frontend accepts in the corpus, so that
    // mutations start from them and reach the passes (the frontend's error
    // paths are kcc-frontend-fuzzer's job).
    if (!tileIR)
      return -1;
  }

  // From here on every error is checked: the kernel was accepted.
  std::string stage = "tile IR round trip";
  mlir::ScopedDiagnosticHandler check(&ctx, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    std::string msg = diag.str();
    if (!fuzz::hasFileLocation(diag.getLocation()))
      fuzz::bug(stage + ": error without a source location: " + msg);
    // No candidate of a tunable group compiles: expected if each note's
    // refusal ("BM=64: file:line:col: message") is.
    bool noCandidate = stage == "variant selection" &&
                       llvm::StringRef(msg).starts_with("no candidate of '");
    for (mlir::Diagnostic &note : diag.getNotes())
      if (noCandidate &&
          !isExpectedRefusal(llvm::StringRef(note.str()).split(": ").second))
        fuzz::bug(stage + ": unexpected refusal: " + note.str());
    if (stage == "tile IR round trip" ||
        (!noCandidate && !isExpectedPipelineError(msg)))
      fuzz::bug(stage + ": unexpected error: " + msg);
    return mlir::success();
  });

  // `--emit=tile-ir` output must read back (kcc-opt, lit tests).
  {
    std::string printed = print(*tileIR);
    mlir::ParserConfig config(&ctx);
    mlir::OwningOpRef<mlir::ModuleOp> reparsed =
        mlir::parseSourceString<mlir::ModuleOp>(printed, config, "tile.mlir");
    if (!reparsed)
      fuzz::bug("the printed tile IR does not parse back:\n" + printed);
  }

  mlir::ModuleOp module = *tileIR;
  {
    // As kcc does before lowering: the coverage proof (isl), then the
    // grouped launch order of group(N) kernels.
    stage = "coverage proof";
    mlir::PassManager pm(&ctx);
    pipeline::TileOptions tileOptions;
    tileOptions.persistent = inputOptions.persistent;
    tileOptions.fallbackBuilds = inputOptions.fallbackBuilds;
    pipeline::buildTilePipeline(pm, tileOptions);
    if (mlir::failed(pm.run(module)))
      return 0;
  }
  module->setAttr(KccDialect::kTargetAttr,
                  mlir::StringAttr::get(&ctx, target->name));
  pipeline::LayoutOptions layout;
  layout.numWarps = inputOptions.numWarps;
  layout.remarks = true;
  {
    // As kcc does: one candidate of each tunable group stays.
    stage = "variant selection";
    auto choices = pipeline::selectVariants(module, *target, layout);
    if (mlir::failed(choices))
      return 0;
    for (const pipeline::VariantChoice &c : *choices)
      for (const pipeline::VariantCandidate &cand : c.candidates)
        if (!cand.refusal.empty() && cand.sameAs.empty() &&
            !isExpectedRefusal(cand.refusal))
          fuzz::bug(stage + ": unexpected refusal of " + cand.symbol + ": " +
                    cand.refusal);
  }
  {
    stage = "layout pipeline";
    mlir::PassManager pm(&ctx);
    pipeline::buildLayoutPipeline(pm, *target, layout);
    if (mlir::failed(pm.run(module)))
      return 0;
  }
  {
    stage = "layout IR round trip";
    std::string printed = print(module);
    mlir::ParserConfig config(&ctx);
    if (!mlir::parseSourceString<mlir::ModuleOp>(printed, config,
                                                 "layout.mlir"))
      fuzz::bug("the printed layout IR does not parse back:\n" + printed);
  }
  {
    stage = "lowering to the LLVM dialect";
    mlir::PassManager pm(&ctx);
    pipeline::buildLowerToLLVMPipeline(pm, *target);
    if (mlir::failed(pm.run(module)))
      return 0;
  }
  stage = "translation to LLVM IR";
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmCtx, "fuzz");
  if (!llvmModule)
    fuzz::bug("translating the LLVM dialect to LLVM IR failed");
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*llvmModule, &os))
    fuzz::bug("the LLVM IR does not verify: " + problems);
  return 0;
}
