//===- TargetModelFuzzer.cpp - libFuzzer target: target-model TOML --------===//
//
// parseTargetModel (what `kcc --target-model=FILE.toml` reads, `inherits`
// resolved against the built-in models) and, for a model it accepts, the
// code that trusts the model's numbers: the bank-conflict model, the TMA
// legality rules, and the layout pipeline on a fixed two-kernel module.
// Errors are fine (a malformed model must be refused with a message); crashes,
// sanitizer reports and unlocated errors are bugs.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzerUtil.h"

#include "ir/Dialect.h"
#include "pipeline/Pipeline.h"
#include "targets/BankConflicts.h"
#include "targets/TargetModel.h"
#include "targets/TmaRules.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>
#include <optional>

using namespace kcc;

namespace {

// A reduction, a 2-D tile, masked vector loads and stores: what the layout
// pass sizes with the model's warp size, vector width and registers.
const char *kKernels = R"(
kernel row_softmax<BLOCK: i32, T: dtype>(out: ptr<T> align(16),
                                        inp: ptr<T> align(16), n: i32)
    grid(n) specialize(BLOCK = 1024, T = f32) specialize(BLOCK = 256, T = f16)
{
  let cols = arange(0, BLOCK);
  let x = cast(load(inp + program_id(0) * BLOCK + cols, cols < n, -inf), f32);
  let e = exp(x - max(x));
  store(out + program_id(0) * BLOCK + cols, cast(e / sum(e), T), cols < n);
}
kernel tile2d(x: ptr<f16> align(16), out: ptr<f32> align(16), n: i32) grid(1) {
  let offs = arange(0, 64)[:, None] * 64 + arange(0, 64)[None, :];
  store(out + arange(0, 64), sum(cast(load(x + offs), f32), axis=1));
}
)";

/// The fixed tile IR, built once.
mlir::ModuleOp tileIR(mlir::MLIRContext &ctx) {
  static mlir::OwningOpRef<mlir::ModuleOp> module = [&] {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(kKernels, "kernels.kc"),
        llvm::SMLoc());
    unsigned numErrors = 0;
    auto m = frontend::buildTileIR(sourceMgr, ctx, {}, numErrors);
    if (!m)
      fuzz::bug("the target-model fuzzer's own kernels do not compile");
    return m;
  }();
  return *module;
}

void exerciseBankModel(const TargetModel &model) {
  BankGeometry geometry = bankGeometry(model);
  for (unsigned bytes : {1u, 2u, 4u, 8u, 16u})
    for (SharedAccessKind kind :
         {SharedAccessKind::Load, SharedAccessKind::Store})
      for (uint64_t stride : {uint64_t(bytes), uint64_t(bytes) * 32}) {
        std::vector<std::optional<uint64_t>> lanes;
        for (unsigned lane = 0; lane < geometry.lanes && lane < 64; ++lane)
          lanes.push_back(lane * stride);
        llvm::Expected<BankConflictResult> result =
            analyzeBankConflicts(geometry, lanes, bytes, kind);
        if (!result)
          llvm::consumeError(result.takeError());
      }
}

void exerciseTmaRules(const TargetModel &model) {
  TmaTensorMapParams params;
  (void)checkTmaTensorMap(model, params);
  params.dtype = 6; // FLOAT16
  params.rank = 2;
  params.globalDim = {1024, 1024};
  params.globalStrides = {2048};
  params.boxDim = {64, 64};
  params.elementStrides = {1, 1};
  params.swizzle = 3;
  (void)checkTmaTensorMap(model, params);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<mlir::MLIRContext> ctx = fuzz::createContext();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<TargetModel> parsed =
      parseTargetModel(text, "fuzz.toml", &TargetRegistry::builtin());
  if (!parsed) {
    std::string msg = llvm::toString(parsed.takeError());
    // Every refusal names the file and a line:column in it.
    if (!llvm::StringRef(msg).starts_with("fuzz.toml:"))
      fuzz::bug("target model error without a location: " + msg);
    return 0;
  }
  // The layout passes find the model by name in the kcc dialect's registry.
  static TargetRegistry registry;
  std::string name = parsed->name;
  registry = TargetRegistry::builtin();
  registry.add(std::move(*parsed));
  ctx->getOrLoadDialect<KccDialect>()->setTargetRegistry(&registry);
  const TargetModel &model = *registry.lookup(name);
  (void)model.llvmCpu();
  (void)model.llvmFeatures();
  (void)model.fatbinArch();
  exerciseBankModel(model);
  exerciseTmaRules(model);

  mlir::OwningOpRef<mlir::ModuleOp> module(tileIR(*ctx).clone());
  mlir::ScopedDiagnosticHandler quiet(ctx.get(), [](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error &&
        !fuzz::hasFileLocation(diag.getLocation()))
      fuzz::bug("layout error without a source location: " + diag.str());
    return mlir::success();
  });
  mlir::PassManager pm(ctx.get());
  pipeline::buildLayoutPipeline(pm, model, {});
  (void)pm.run(*module);
  return 0;
}
