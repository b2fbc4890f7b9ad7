//===- SelectVariants.cpp - the compiler's choice among tunable values ----===//
//
// Each candidate is compiled alone through the target's layout and lowering
// pipelines, so every rule that can refuse it (the target support check,
// TMA and MMA legality, the async verifier, shared-memory allocation) has
// spoken before it is ranked. The legal ones are ranked by what the layout
// pipeline made of them, most important first:
//   1. where its products run: the staged tensor-core instruction beats
//      other tensor/matrix-core paths, which beat FMAs (an order of
//      magnitude each);
//   2. how many warps issue the products, up to two warpgroups: one
//      warpgroup's softmax or epilogue runs beside the other's MMAs, which
//      one warpgroup alone cannot hide (H100, docs/attention.md: BM = 128
//      beats BM = 64 at every head_dim);
//   3. the narrowest product's N up to 64: below it the operand reads from
//      shared memory, not the tensor cores, set the pace;
//   4. how many overlaps a pass refused for lack of registers or shape
//      (a product issued in its iteration serializes it with the softmax:
//      head_dim 128 BN = 64 beats BN = 128);
//   5. the depth of the shallowest pipeline, up to 3 (two stages expose a
//      load's latency whenever the consumer catches up), up to 2 where a
//      producer warpgroup refills wgmma stages (H200: head_dim 128 with
//      BN = 128 and two stages beats BN = 64 with four by 12 %);
//   6. the products' M x N, summed over the kernel's dots (each operand
//      byte feeds more FMAs; attention's S grows with BN, its P @ V not).
// Every candidate goes through the layout pipeline (where most target rules
// refuse); the lowering (shared-memory allocation) runs best first until one
// passes.
// Ties keep the first candidate in declaration order. This is a ranking of
// legal schedules, not a timing model: register spills (known only after
// ptxas) and problem sizes (wave quantization) are not in it.
//
//===----------------------------------------------------------------------===//
#include "pipeline/SelectVariants.h"

#include "ir/Dialect.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/transforms/KernelBuilds.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::pipeline;

std::string VariantFeatures::str() const {
  std::string pipelines =
      !stages ? std::string("no pipeline")
      : depth > stages
          ? llvm::formatv("{0}-stage pipelines (ranked as {1})", depth, stages)
                .str()
          : llvm::formatv("{0}-stage pipelines", stages).str();
  if (!productArea)
    return llvm::formatv("no products, {0} warp(s), {1} overlap(s) refused, "
                         "{2}",
                         mmaWarps, refusals, pipelines)
        .str();
  return llvm::formatv("products of {0} elements, the narrowest {1}{2} "
                       "columns (tensor-core score {3}), {4} warp(s) issue "
                       "them, {5} overlap(s) refused, {6}",
                       productArea, narrowN, narrowN == 64 ? "+" : "", mmaScore,
                       mmaWarps, refusals, pipelines)
      .str();
}

namespace {

/// "file:line:col: message" of a diagnostic.
std::string describe(Diagnostic &diag) {
  std::string where;
  if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
    where = llvm::formatv("{0}:{1}:{2}: ", loc.getFilename(), loc.getLine(),
                          loc.getColumn())
                .str();
  return where + diag.str();
}

/// Runs `pm` on `module`, keeping its diagnostics from the user: the first
/// error becomes the candidate's `refusal` ("refused" if it gave none), with
/// its location and message apart, when it fails.
bool runQuietly(PassManager &pm, ModuleOp module, VariantCandidate &cand) {
  std::string firstError;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && firstError.empty()) {
      firstError = describe(diag);
      cand.refusalLoc = diag.getLocation();
      cand.refusalMessage = diag.str();
    }
    return success(); // candidates' diagnostics stay here
  });
  if (succeeded(pm.run(module)))
    return true;
  cand.refusal = firstError.empty() ? "refused" : firstError;
  return false;
}

VariantFeatures featuresOf(func::FuncOp func) {
  VariantFeatures f;
  // Per dot (its source location: the copies a pass peels share it), the
  // best path any of its ops took.
  llvm::DenseMap<Location, int> dots;
  auto note = [&](Operation *op, int score) {
    int &s = dots[op->getLoc()];
    s = std::max(s, score);
  };
  int stages = 0;
  int64_t narrowest = 64;
  // A producer warpgroup refilling wgmma stages as soon as their readers
  // release them keeps two stages busy (per-operand release,
  // kcc-pipeline-tma-loads): more only cost the tile.
  bool refilledByProducer = false;
  llvm::DenseMap<Location, int64_t> areas;
  func.walk([&](Operation *op) {
    if (isa<WarpgroupMmaOp, WarpgroupMmaRegAOp>(op) &&
        op->getParentOfType<WarpSpecializeOp>())
      refilledByProducer = true;
    if (isa<WarpgroupMmaOp, WarpgroupMmaRegAOp, Tcgen05MmaOp>(op))
      note(op, 3);
    else if (isa<WarpMmaOp>(op))
      note(op, 2);
    else if (isa<DotOp>(op))
      note(op, op->hasAttr(KccDialect::kMmaAttr) ? 1 : 0);
    auto product = [&](int64_t m, int64_t n) {
      int64_t &area = areas[op->getLoc()];
      area = std::max(area, m * n);
      narrowest = std::min(narrowest, n);
    };
    if (isa<WarpgroupMmaOp, WarpgroupMmaRegAOp, WarpMmaOp, DotOp>(op)) {
      auto acc = dyn_cast<ShapedType>(op->getResult(0).getType());
      if (acc && acc.hasStaticShape() && acc.getRank() >= 2)
        product(acc.getDimSize(acc.getRank() - 2),
                acc.getDimSize(acc.getRank() - 1));
    }
    if (auto mma = dyn_cast<Tcgen05MmaOp>(op)) {
      SmemType b = mma.getB().getType();
      product(128, mma.getBKMajor() ? b.getShape()[0] : b.getShape()[1]);
    }
    if (op->hasAttr(KccDialect::kDeferRefusedAttr) ||
        op->hasAttr(KccDialect::kWarpSpecializeRefusedAttr))
      ++f.refusals;
    // Pipelined copies: their stage buffers.
    SmemType buffer;
    if (auto copy = dyn_cast<TmaLoadOp>(op))
      buffer = copy.getDst().getType();
    else if (auto copy = dyn_cast<CpAsyncOp>(op))
      buffer = copy.getDst().getType();
    if (buffer && buffer.getStages() > 1)
      stages = stages ? std::min<int>(stages, buffer.getStages())
                      : buffer.getStages();
  });
  for (auto &[loc, score] : dots)
    f.mmaScore += score;
  for (auto &[loc, area] : areas)
    f.productArea += area;
  f.depth = stages;
  f.stages = std::min(stages, refilledByProducer ? 2 : 3);
  f.narrowN = f.productArea ? narrowest : 0;
  f.mmaWarps = blockWarps(func);
  func.walk([&](WarpSpecializeOp ws) {
    f.mmaWarps = ws.getConsumerWarpgroups() * 4;
  });
  f.mmaWarps = std::min(f.mmaWarps, 8);
  return f;
}

/// The symbol a persistent build stands in for, or "".
StringRef persistentOf(func::FuncOp func) {
  auto of =
      func->getAttrOfType<FlatSymbolRefAttr>(KccDialect::kPersistentOfAttr);
  return of ? of.getValue() : StringRef();
}

/// The symbol a persistent, fallback, else-branch or split-K build belongs
/// to, or "".
StringRef buildOf(func::FuncOp func) {
  for (StringRef attr : {KccDialect::kFallbackOfAttr,
                         KccDialect::kVersionOfAttr, KccDialect::kSplitKOfAttr})
    if (auto of = func->getAttrOfType<FlatSymbolRefAttr>(attr))
      return of.getValue();
  return persistentOf(func);
}

/// A memory-bound candidate whose first launch-decided branch got a build
/// of its own (kcc-version-launch-branches: `func` keeps the then branch,
/// `<func>__else` the other): its traffic is the build's the launch runs.
void foldElseBuild(ModuleOp module, VariantCandidate &cand) {
  for (auto other : module.getOps<func::FuncOp>()) {
    auto of =
        other->getAttrOfType<FlatSymbolRefAttr>(KccDialect::kVersionOfAttr);
    auto guard =
        other->getAttrOfType<DictionaryAttr>(KccDialect::kVersionGuardAttr);
    // By name: it is a version of the masks' build (`__ragged`, of equal
    // traffic) where there is one.
    if (!of || !guard || !guard.getAs<StringAttr>("guard") ||
        other.getSymName() != cand.symbol + kElseBuildSuffix.str())
      continue;
    std::string why;
    std::optional<LaunchCost> otherCost = launchCostOf(other, why);
    if (!otherCost || otherCost->streamBytes.empty()) {
      cand.cost.reset();
      cand.costWhy = "its else-branch build: " +
                     (why.empty() ? std::string("has products") : why);
      return;
    }
    cand.cost->streamBytes =
        "((" + guard.getAs<StringAttr>("guard").getValue().str() + ") ? " +
        cand.cost->streamBytes + " : " + otherCost->streamBytes + ")";
    return;
  }
}

/// The S of `func`'s stages(S) clause, if it has one.
std::optional<int> pipelineStagesOf(func::FuncOp func) {
  auto s =
      func ? func->getAttrOfType<IntegerAttr>(KccDialect::kPipelineStagesAttr)
           : IntegerAttr();
  return s ? std::optional<int>(int(s.getInt())) : std::nullopt;
}

/// Whether `a` and `b` are specializations of one kernel whose constants
/// differ in one value only.
bool sameButOne(func::FuncOp a, func::FuncOp b) {
  auto sa = a->getAttrOfType<DictionaryAttr>(KccDialect::kSpecializationAttr);
  auto sb = b->getAttrOfType<DictionaryAttr>(KccDialect::kSpecializationAttr);
  if (!sa || !sb || sa.size() != sb.size())
    return false;
  int differ = 0;
  for (NamedAttribute v : sa)
    differ += sb.get(v.getName()) != v.getValue();
  return differ == 1;
}

/// Erases the functions `drop` names and their builds (an else-branch
/// build's own persistent and fallback builds too).
void eraseFunctions(ModuleOp module, llvm::StringSet<> drop) {
  for (bool erased = true; erased;) {
    erased = false;
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (drop.contains(func.getSymName()) || drop.contains(buildOf(func))) {
        drop.insert(func.getSymName());
        func.erase();
        erased = true;
      }
  }
}

} // namespace

FailureOr<std::vector<VariantChoice>>
kcc::pipeline::selectVariants(ModuleOp module, const TargetModel &target,
                              const LayoutOptions &layout, unsigned keep) {
  // The groups, in the order their first candidate appears.
  std::vector<VariantChoice> choices;
  llvm::StringMap<size_t> groupIndex;
  llvm::StringMap<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>()) {
    funcs[func.getSymName()] = func;
    auto groups =
        func->getAttrOfType<DictionaryAttr>(KccDialect::kVariantOfAttr);
    if (!groups || !buildOf(func).empty())
      continue;
    auto spec =
        func->getAttrOfType<DictionaryAttr>(KccDialect::kSpecializationAttr);
    for (NamedAttribute g : groups) {
      auto [it, inserted] =
          groupIndex.insert({g.getName().getValue(), choices.size()});
      if (inserted) {
        VariantChoice c;
        c.group = g.getName().getValue().str();
        for (auto name :
             cast<ArrayAttr>(g.getValue()).getAsValueRange<StringAttr>())
          c.open.push_back(name.str());
        choices.push_back(std::move(c));
      }
      VariantChoice &c = choices[it->second];
      VariantCandidate cand;
      cand.symbol = func.getSymName().str();
      cand.cost = launchCostOf(func, cand.costWhy);
      if (cand.cost && !cand.cost->streamBytes.empty())
        foldElseBuild(module, cand);
      for (const std::string &name : c.open) {
        Attribute v = spec ? spec.get(name) : Attribute();
        std::string text;
        if (auto i = dyn_cast_or_null<IntegerAttr>(v))
          text = i.getType().isInteger(1) ? (i.getInt() ? "true" : "false")
                                          : std::to_string(i.getInt());
        else if (auto b = dyn_cast_or_null<BoolAttr>(v))
          text = b.getValue() ? "true" : "false";
        else if (auto t = dyn_cast_or_null<TypeAttr>(v)) {
          llvm::raw_string_ostream os(text);
          os << t.getValue();
        }
        cand.values += (cand.values.empty() ? "" : ", ") + name + "=" + text;
      }
      c.candidates.push_back(std::move(cand));
    }
  }
  if (choices.empty())
    return choices;

  // Each candidate alone, once even if several groups list it.
  llvm::StringMap<VariantCandidate> compiled;
  llvm::StringMap<OwningOpRef<ModuleOp>> laidOut; // the legal ones' layout IR
  MLIRContext *ctx = module.getContext();
  for (VariantChoice &c : choices)
    for (VariantCandidate &cand : c.candidates) {
      if (auto it = compiled.find(cand.symbol); it != compiled.end()) {
        std::string values = cand.values;
        cand = it->second;
        cand.values = values;
        continue;
      }
      // A candidate is ranked on its own build: not with its fallback
      // build (for odd tensors only), nor with its persistent build, which
      // a target that cannot compile it drops (the launch then runs one
      // CTA per tile, tools/kcc/Driver.cpp).
      OwningOpRef<ModuleOp> alone(module.clone());
      llvm::StringSet<> others;
      for (auto func : alone->getOps<func::FuncOp>())
        if (func.getSymName() != cand.symbol)
          others.insert(func.getSymName());
      eraseFunctions(*alone, others);
      PassManager layoutPm(ctx);
      LayoutOptions quiet = layout;
      quiet.remarks = false;
      buildLayoutPipeline(layoutPm, target, quiet);
      cand.legal = runQuietly(layoutPm, *alone, cand);
      if (cand.legal) {
        if (auto func = alone->lookupSymbol<func::FuncOp>(cand.symbol))
          cand.features = featuresOf(func);
        laidOut[cand.symbol] = std::move(alone);
      }
      compiled[cand.symbol] = cand;
    }

  // A stages(S) candidate whose pipelines came out no deeper than a
  // shallower S's of the same other values (the deeper stages did not fit)
  // is the same kernel: pruned, so the launch does not weigh it twice.
  for (VariantChoice &c : choices)
    for (VariantCandidate &deep : c.candidates)
      for (const VariantCandidate &shallow : c.candidates) {
        if (!deep.legal || !shallow.legal || &deep == &shallow)
          continue;
        func::FuncOp d = funcs.lookup(deep.symbol),
                     s = funcs.lookup(shallow.symbol);
        std::optional<int> ds = pipelineStagesOf(d), ss = pipelineStagesOf(s);
        if (!ds || !ss || *ds <= *ss ||
            deep.features.depth > shallow.features.depth || !sameButOne(d, s))
          continue;
        deep.legal = false;
        deep.refusal = llvm::formatv(
            "its stages({0}) pipelines are {1} deep, as with stages({2}) "
            "({3}): deeper stages do not fit the shared memory",
            *ds, deep.features.depth, *ss, shallow.values);
        deep.sameAs = shallow.symbol;
        compiled[deep.symbol].legal = false;
        break;
      }

  // Rank; lower the best until one passes; keep it and the named.
  llvm::StringSet<> keepSymbols;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func->hasAttr(KccDialect::kVariantOnlyAttr) && buildOf(func).empty())
      keepSymbols.insert(func.getSymName());
  bool ok = true;
  for (VariantChoice &c : choices) {
    std::vector<size_t> order;
    for (size_t i = 0; i < c.candidates.size(); ++i)
      if (c.candidates[i].legal)
        order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return c.candidates[a].features.key() > c.candidates[b].features.key();
    });
    auto lowers = [&](size_t i) {
      VariantCandidate &cand = c.candidates[i];
      VariantCandidate &memo = compiled[cand.symbol];
      if (!memo.checked) {
        PassManager lowerPm(ctx);
        buildLowerToLLVMPipeline(lowerPm, target);
        memo.checked = true;
        memo.legal = runQuietly(lowerPm, *laidOut[cand.symbol], memo);
      }
      cand.checked = true;
      cand.legal = memo.legal;
      cand.refusal = memo.refusal;
      cand.refusalLoc = memo.refusalLoc;
      cand.refusalMessage = memo.refusalMessage;
      return cand.legal;
    };
    for (size_t i : order)
      if (lowers(i)) {
        c.chosen = static_cast<int>(i);
        break;
      }
    if (c.chosen >= 0) {
      // The launch chooses by size among the best candidates on the same
      // tensor-core path, where it can weigh them.
      const VariantCandidate &best = c.candidates[c.chosen];
      c.kept.push_back(c.chosen);
      if (keep <= 1)
        c.keptWhy = "kcc --dispatch-variants=1";
      else if (!target.throughput.enabled())
        c.keptWhy = "the target model has no [throughput]";
      else if (!best.cost)
        c.keptWhy = best.costWhy;
      // A memory-bound kernel's candidates are weighed by their traffic
      // alone, which says nothing of how many CTAs carry it: only those
      // launching the chosen one's grid stay (a row per program: softmax).
      bool streaming = best.cost && !best.cost->streamBytes.empty();
      auto gridOf = [&](const VariantCandidate &cand) -> Attribute {
        func::FuncOp f = funcs.lookup(cand.symbol);
        return f ? f->getAttr(KccDialect::kGridAttr) : Attribute();
      };
      bool otherGrid = false;
      for (size_t i : order) {
        if (!c.keptWhy.empty() || c.kept.size() >= keep)
          break;
        VariantCandidate &cand = c.candidates[i];
        if (static_cast<int>(i) == c.chosen || !cand.cost ||
            cand.features.mmaScore != best.features.mmaScore)
          continue;
        if (streaming && gridOf(cand) != gridOf(best)) {
          otherGrid = true;
          continue;
        }
        if (lowers(i))
          c.kept.push_back(static_cast<int>(i));
      }
      if (c.kept.size() == 1 && c.keptWhy.empty() && otherGrid)
        c.keptWhy = "its candidates launch different grids, and the launch "
                    "weighs a kernel without products by its traffic alone "
                    "(kcc::rt::streamCycles), the same for any grid";
      for (int i : c.kept)
        keepSymbols.insert(c.candidates[i].symbol);
      continue;
    }
    func::FuncOp first = funcs.lookup(c.candidates.front().symbol);
    // One refusal, at one place, for every candidate: no choice of the
    // constants changes it (a type the target lacks), so it is the error.
    const VariantCandidate &front = c.candidates.front();
    if (front.refusalLoc &&
        llvm::all_of(c.candidates, [&](const VariantCandidate &cand) {
          return cand.refusalLoc == front.refusalLoc &&
                 cand.refusalMessage == front.refusalMessage;
        })) {
      emitError(*front.refusalLoc, front.refusalMessage)
              .attachNote(first.getLoc())
          << "every candidate of '" << c.group << "' on " << target.name << " ("
          << c.candidates.size() << " of " << llvm::join(c.open, ", ")
          << ") is refused for this";
      ok = false;
      continue;
    }
    InFlightDiagnostic diag =
        emitError(first.getLoc())
        << "no candidate of '" << c.group << "' compiles for " << target.name
        << " (" << c.candidates.size() << " tried); widen the candidates of "
        << llvm::join(c.open, ", ") << " or leave " << target.name
        << " out of the targets";
    for (const VariantCandidate &cand : c.candidates)
      diag.attachNote(first.getLoc()) << cand.values << ": " << cand.refusal;
    ok = false;
  }
  if (!ok)
    return failure();
  llvm::StringSet<> drop;
  for (auto &[name, func] : funcs)
    if (buildOf(func).empty() && !keepSymbols.contains(name))
      drop.insert(name);
  eraseFunctions(module, drop);
  return choices;
}
