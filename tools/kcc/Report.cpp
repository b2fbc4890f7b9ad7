//===- Report.cpp - `kcc --report`: what the compiler chose, and why
//--------===//
#include "tools/kcc/Report.h"
#include "ir/ElementTypes.h"
#include "ir/SourceLocation.h"

#include "backends/gpu/SharedAccesses.h"
#include "ir/Dialect.h"
#include "passes/analysis/AxisInfo.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/transforms/KernelBuilds.h"
#include "targets/BankConflicts.h"
#include "targets/LaneExchange.h"
#include "targets/TmaRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace kcc;
using namespace kcc::driver;
using namespace mlir;

namespace {
std::string locString(Location loc) {
  std::string text = sourceLocationText(loc);
  return text.empty() ? "<unknown>" : text;
}

std::string typeString(Type t) { return kcc::elementTypeName(t); }

/// The user-facing op name of a shared-memory user.
std::string opName(Operation *op) {
  if (auto red = dyn_cast<ReduceOp>(op))
    return stringifyReduceKind(red.getKind()).str();
  return op->getName().stripDialect().str();
}
} // namespace

void Report::addTarget(ModuleOp module, const TargetModel &target,
                       std::vector<Remark> remarks) {
  BankGeometry banks = bankGeometry(target);
  // The plain butterfly's cost (xor exchanges only), to show the saving.
  unsigned plainCycles = 0;
  if (llvm::Expected<ButterflyPlan> plain =
          planButterfly(target, target.warpSize))
    plainCycles = plain->plainCycles;
  else
    llvm::consumeError(plain.takeError());
  for (auto func : module.getOps<func::FuncOp>()) {
    std::string symbol = func.getSymName().str();
    if (!kernels.count(symbol))
      order.push_back(symbol);
    TargetEntry entry;
    entry.target = target.name;
    entry.bankModel = llvm::formatv("{0} banks x {1} B, {2} lanes", banks.banks,
                                    banks.bankBytes, banks.lanes)
                          .str();
    entry.threads = blockWarps(func) * target.warpSize;
    func.walk([&](Operation *op) {
      if (auto ws = dyn_cast<WarpSpecializeOp>(op))
        entry.roles =
            llvm::formatv(
                "warp-specialized: a producer warpgroup ({0} warps, setmaxnreg "
                "{1}) issues the TMA pipeline; {2} consumer warpgroup(s) "
                "(setmaxnreg {3}) release its stages through per-stage "
                "mbarriers",
                ws.getProducerWarps(), ws.getProducerRegs(),
                ws.getConsumerWarpgroups(), ws.getConsumerRegs())
                .str() +
            (ws.getNumConsumerGroups() > 1
                 ? llvm::formatv("; ping-pong: {0} consumer groups of {1} "
                                 "warpgroup(s) take alternate tiles, their K "
                                 "loops in turns, so one group's epilogue "
                                 "runs beside the other's K loop",
                                 ws.getNumConsumerGroups(),
                                 ws.getConsumerWarpgroups())
                       .str()
             : ws->hasAttr(KccDialect::kPingPongRefusedAttr)
                 ? "; no ping-pong: " + ws->getAttrOfType<StringAttr>(
                                              KccDialect::kPingPongRefusedAttr)
                                            .str()
                 : std::string());
      else if (auto why = op->getAttrOfType<StringAttr>(
                   KccDialect::kWarpSpecializeRefusedAttr))
        entry.roles = "not warp-specialized: " + why.str();
    });

    std::optional<std::string> notLaunched = persistentBuildNotLaunched(func);
    func::FuncOp persistentBuild = persistentBuildOf(func);
    std::optional<std::string> buildNotLaunched =
        persistentBuild ? persistentBuildNotLaunched(persistentBuild)
                        : std::nullopt;
    if (func::FuncOp plain = oneCtaPerTileBuildOf(func); plain && notLaunched)
      entry.launch = "persistent: not launched on " + target.name + " (@" +
                     plain.getSymName().str() +
                     " runs instead): " + *notLaunched;
    else if (auto p = func->getAttrOfType<IntegerAttr>(
                 KccDialect::kPersistentAttr)) {
      // Paired tiles (kcc-rasterize-programs): which loop made them uneven.
      std::string order = "its tiles in grouped order";
      func.walk([&](scf::ForOp loop) {
        if (auto at =
                loop->getAttrOfType<StringAttr>(KccDialect::kPairedTilesAttr))
          order = "pairs of tiles, a tile and its mirror along x, back to "
                  "back (the trip count of the loop at " +
                  at.str() +
                  " changes along x; each pair costs about the same)";
      });
      entry.launch = llvm::formatv(
          "persistent: at most {0} CTA(s) per multiprocessor, each running "
          "{2}; TMA pipelines carry their stages and phases from tile to "
          "tile. Launched instead of @{1} when the grid has more than {0} x "
          "multiprocessors tiles",
          p.getInt(),
          func->getAttrOfType<FlatSymbolRefAttr>(KccDialect::kPersistentOfAttr)
              .getValue(),
          order);
    } else if (buildNotLaunched)
      entry.launch = "one CTA per tile for every grid on " + target.name +
                     ": the persistent build @" +
                     persistentBuild.getSymName().str() +
                     " is not launched: " + *buildNotLaunched;
    else if (persistentBuild)
      entry.launch = llvm::formatv(
          "one CTA per tile when the grid has at most {0} x multiprocessors "
          "tiles; @{1} (persistent) otherwise",
          persistentBuild
              ->getAttrOfType<IntegerAttr>(KccDialect::kPersistentAttr)
              .getInt(),
          persistentBuild.getSymName());
    // Tensors outside the tensor contract: which build runs them.
    auto appendLaunch = [&](const std::string &text) {
      entry.launch += (entry.launch.empty() ? "" : "; ") + text;
    };
    // kcc --clusters: launched as clusters, or why not.
    if (auto n = func->getAttrOfType<IntegerAttr>(KccDialect::kClusterAttr))
      appendLaunch(llvm::formatv(
          "clusters of {0} CTAs (neighbouring tile rows of one tile column); "
          "the TMA loads they make alike are multicast copies",
          n.getInt()));
    else if (auto why = func->getAttrOfType<StringAttr>(
                 KccDialect::kClusterRefusedAttr))
      appendLaunch("not launched as clusters: " + why.str());
    if (auto of =
            func->getAttrOfType<FlatSymbolRefAttr>(KccDialect::kFallbackOfAttr))
      appendLaunch("fallback: runs instead of @" + of.getValue().str() +
                   " when a tensor's base is not 16-byte aligned or a row "
                   "stride is negative or not a multiple of 16 bytes (no "
                   "TMA; accesses as wide as the declared facts allow)");
    else if (func::FuncOp fallback = fallbackBuildOf(func))
      appendLaunch("@" + fallback.getSymName().str() +
                   " runs instead for tensors outside the tensor contract");
    // kcc --split-k: the build the launch runs for grids too small for the
    // GPU, or why the kernel has none.
    if (func->hasAttr(KccDialect::kSplitKAttr)) {
      std::string of =
          func->getAttrOfType<FlatSymbolRefAttr>(KccDialect::kSplitKOfAttr)
              .getValue()
              .str();
      appendLaunch("split-K build of @" + of +
                   ": slice z of the grid's third axis runs its share of the "
                   "K loop and stores its f32 accumulator to the workspace; "
                   "the last slice of a tile to draw its ticket sums the "
                   "slices' partial tiles in slice order and runs the "
                   "kernel's epilogue");
    } else if (auto why = func->getAttrOfType<StringAttr>(
                   KccDialect::kSplitKRefusedAttr)) {
      appendLaunch("split-K: not built: " + why.str());
    } else if (func::FuncOp partial =
                   buildNaming(func, KccDialect::kSplitKOfAttr)) {
      appendLaunch("split-K: the launch runs @" + partial.getSymName().str() +
                   " instead when the grid is too small for the GPU and the "
                   "K loop long (kcc::rt::splitKSlices)");
    }
    // The kernel's `if` the launch decides: which build runs each branch;
    // masks the launch decides: which build runs without them. A build may
    // be both (a chain: then branch, its masked copy, the else branch).
    if (auto of = func->getAttrOfType<FlatSymbolRefAttr>(
            KccDialect::kVersionOfAttr)) {
      auto guard =
          func->getAttrOfType<DictionaryAttr>(KccDialect::kVersionGuardAttr);
      std::string when = guard.getAs<StringAttr>("when").str(),
                  at = guard.getAs<StringAttr>("at").str();
      if (guard.get("masks"))
        appendLaunch("the masked build: runs instead of @" +
                     of.getValue().str() + " when not " + when + " (" + at +
                     ")");
      else
        appendLaunch("else branch of `if " + when + "` (" + at +
                     "): runs instead of @" + of.getValue().str() +
                     " when the condition is false (one build per branch, so "
                     "neither pays for the other's registers)");
    }
    if (func::FuncOp other = versionBuildOf(func)) {
      auto guard =
          other->getAttrOfType<DictionaryAttr>(KccDialect::kVersionGuardAttr);
      std::string when = guard.getAs<StringAttr>("when").str(),
                  at = guard.getAs<StringAttr>("at").str();
      if (guard.get("masks"))
        appendLaunch("runs without the masks the launch decides when " + when +
                     " (" + at + "); @" + other.getSymName().str() +
                     " keeps them for the other launches");
      else
        appendLaunch("then branch of `if " + when + "` (" + at + "); @" +
                     other.getSymName().str() +
                     " runs the else branch when it is false");
    }
    if (auto cov = func->getAttrOfType<ArrayAttr>(KccDialect::kCoverageAttr))
      for (auto d : cov.getAsRange<DictionaryAttr>()) {
        std::string tensor = d.getAs<StringAttr>("tensor").str();
        if (auto why = d.getAs<StringAttr>("unproven"))
          entry.coverage.push_back("coverage of '" + tensor +
                                   "': not proven (" + why.str() + ")");
        else if (auto when = d.getAs<StringAttr>("when"))
          entry.coverage.push_back("coverage of '" + tensor +
                                   "': every element written exactly "
                                   "once when " +
                                   when.str() +
                                   "; the stubs refuse other sizes");
        else
          entry.coverage.push_back("coverage of '" + tensor +
                                   "': every element written exactly once, "
                                   "for all sizes");
      }
    // "; <instruction> not taken: <why>" for a dot that misses the
    // target's main tensor-core instruction (wgmma, tcgen05.mma).
    auto mainInstructionMissed = [&](Operation *op) -> std::string {
      if (!hasStagedMma(target))
        return "";
      const std::string &inst = target.mma.instruction;
      auto refused =
          op->getAttrOfType<DictionaryAttr>(KccDialect::kTensorCoreRefusedAttr);
      auto why =
          refused ? refused.getAs<StringAttr>(target.name) : StringAttr();
      return "; " + inst + " not taken: " +
             (why ? why.str()
                  : std::string("its operands did not get TMA stages (see "
                                "the loads below)"));
    };
    // Register-A dots kcc-defer-register-a-mma issues a loop iteration late
    // (the copies it peels share their location).
    llvm::DenseSet<Location> deferredAt;
    func.walk([&](WarpgroupMmaRegAOp mma) {
      if (mma.getPending() > 0 && isa<scf::ForOp>(mma->getParentOp()))
        deferredAt.insert(mma->getLoc());
    });
    // Products kcc-defer-block-promotion promotes an iteration late: left
    // in flight, from an accumulator that is not the loop's (a GEMM's
    // accumulation carries its own).
    // Marked by kcc-defer-block-promotion (a product kept in flight for
    // another reason, such as P @ V's deferral, is not promoted late).
    llvm::DenseSet<Location> promotedLateAt;
    func.walk([&](WarpgroupMmaOp mma) {
      if (mma->hasAttr(KccDialect::kPromotedLateAttr))
        promotedLateAt.insert(mma->getLoc());
    });
    func.walk([&](Operation *op) {
      auto shape = [](Value a, Value b) {
        auto at = cast<ShapedType>(a.getType()),
             bt = cast<ShapedType>(b.getType());
        return llvm::formatv("{0}x{1}x{2} {3}", at.getDimSize(0),
                             bt.getDimSize(bt.getRank() - 1), at.getDimSize(1),
                             typeString(at.getElementType()))
            .str();
      };
      if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
        auto acc = mma.getAcc().getType();
        std::string note;
        if (promotedLateAt.contains(op->getLoc()))
          note = "; promoted into its running sum one iteration late, "
                 "beside the next product (kcc --late-promotion)";
        if (auto why =
                op->getAttrOfType<StringAttr>(KccDialect::kDeferRefusedAttr))
          note = "; " + why.str() + " (kcc --late-promotion)";
        entry.dots.push_back(llvm::formatv(
            "{0}: dot {1}x{2} on tensor cores (wgmma.mma_async from swizzled "
            "TMA stages){3}",
            locString(op->getLoc()), acc.getDimSize(0), acc.getDimSize(1),
            note));
      } else if (auto mma = dyn_cast<WarpgroupMmaRegAOp>(op)) {
        auto acc = mma.getAcc().getType();
        std::string note;
        // Whether the consumer warpgroups take turns issuing it, and why.
        auto turns = op->getAttrOfType<StringAttr>(KccDialect::kTurnsAttr);
        if (deferredAt.contains(op->getLoc()))
          note = std::string("; issued one iteration late, beside the next "
                             "iteration's work before it (kcc "
                             "--overlap-products)") +
                 (turns ? "; " + turns.str() + " (kcc --warpgroup-turns)"
                        : std::string());
        if (auto why =
                op->getAttrOfType<StringAttr>(KccDialect::kDeferRefusedAttr))
          note = "; " + why.str() + " (kcc --overlap-products)";
        entry.dots.push_back(llvm::formatv(
            "{0}: dot {1}x{2} on tensor cores (wgmma.mma_async with A from "
            "registers, B from a swizzled TMA stage){3}",
            locString(op->getLoc()), acc.getDimSize(0), acc.getDimSize(1),
            note));
      } else if (auto mma = dyn_cast<Tcgen05MmaOp>(op)) {
        SmemType a = mma.getA().getType(), b = mma.getB().getType();
        int64_t n = mma.getBKMajor() ? b.getShape()[0] : b.getShape()[1];
        int64_t k = mma.getAKMajor() ? a.getShape()[1] : a.getShape()[0];
        entry.dots.push_back(llvm::formatv(
            "{0}: dot 128x{1}x{2} {3} on tensor cores (tcgen05.mma from "
            "swizzled TMA stages, accumulator in {4} TMEM columns)",
            locString(op->getLoc()), n, k, typeString(a.getElementType()),
            mma.getTmem().getType().getColumns()));
      } else if (auto mma = dyn_cast<WarpMmaOp>(op)) {
        std::string missed = mainInstructionMissed(op);
        SmemType a = mma.getA().getType();
        auto acc = cast<ShapedType>(mma.getAcc().getType());
        int64_t k = mma.getAKMajor() ? a.getShape()[1] : a.getShape()[0];
        entry.dots.push_back(llvm::formatv(
            "{0}: dot {1}x{2}x{3} {4} on tensor cores ({5}, fragments by "
            "ldmatrix from the cp.async stages){6}",
            locString(op->getLoc()), acc.getDimSize(0), acc.getDimSize(1), k,
            typeString(a.getElementType()),
            op->getAttrOfType<StringAttr>(KccDialect::kMmaAttr).getValue(),
            missed));
      } else if (auto dot = dyn_cast<DotOp>(op)) {
        std::string where =
            locString(op->getLoc()) + ": dot " + shape(dot.getA(), dot.getB());
        bool amd = target.vendor == Vendor::AMD;
        std::string simd =
            amd ? " on SIMD cores (FMAs)" : " on CUDA cores (FMAs)";
        std::string missed = mainInstructionMissed(op);
        if (auto mma = op->getAttrOfType<StringAttr>(KccDialect::kMmaAttr))
          entry.dots.push_back(
              where + (amd ? " on matrix cores (" : " on tensor cores (") +
              mma.str() +
              (amd ? ", fragments loaded from padded LDS)"
                   : ", fragments by ldmatrix from padded shared memory)") +
              missed);
        else if (auto why =
                     op->getAttrOfType<StringAttr>(KccDialect::kMmaRefusedAttr))
          entry.dots.push_back(where + simd + ": " + why.str() + missed);
        else
          entry.dots.push_back(where + simd + missed);
      }
    });
    // A dot peeled into copies (kcc-defer-register-a-mma) is one line.
    {
      llvm::StringSet<> seen;
      llvm::erase_if(entry.dots, [&](const std::string &d) {
        return !seen.insert(d).second;
      });
    }
    // A tile divided by a value broadcast over it: an IEEE division per
    // element (div.rn is a dozen instructions with a slow path), where the
    // reciprocal of the value once and a multiply per element would do
    // (attention's epilogue, acc / l[:, None]: +5-11 % at seq 1k on an H200).
    {
      llvm::StringSet<> seen;
      func.walk([&](arith::DivFOp div) {
        auto tile = dyn_cast<RankedTensorType>(div.getType());
        if (!tile)
          return;
        std::string form;
        if (div.getRhs().getDefiningOp<SplatOp>()) {
          form = "x * (1.0 / s)";
        } else if (auto bc = div.getRhs().getDefiningOp<BroadcastOp>()) {
          auto src = cast<RankedTensorType>(bc.getSrc().getType());
          if (src.getRank() != 2 || tile.getRank() != 2)
            return;
          form = src.getDimSize(1) == 1 ? "x * (1.0 / v)[:, None]"
                                        : "x * (1.0 / v)[None, :]";
        } else {
          return;
        }
        std::string where = locString(div.getLoc());
        if (!seen.insert(where).second)
          return;
        std::string shape;
        llvm::raw_string_ostream os(shape);
        llvm::interleave(tile.getShape(), os, "x");
        entry.hints.push_back(
            where + ": `/` divides each element of this " + shape +
            " tile by a broadcast value: one IEEE division per element (a "
            "dozen instructions); `" +
            form +
            "` divides once per value and multiplies per element (rounded "
            "twice instead of once)");
      });
    }
    func.walk([&](ReduceOp red) {
      auto plan = red->getAttrOfType<ArrayAttr>(KccDialect::kButterflyAttr);
      if (!plan)
        return;
      Butterfly bf;
      bf.loc = locString(red.getLoc());
      bf.op = opName(red);
      bf.lanes = target.warpSize;
      bf.plainCycles = plainCycles;
      bf.choices = target.laneExchanges.size();
      for (Attribute a : plan) {
        auto d = cast<DictionaryAttr>(a);
        StringRef kind = d.getAs<StringAttr>("op").getValue();
        int64_t mask = d.getAs<IntegerAttr>("mask").getInt();
        bf.steps += llvm::formatv("{0}{1} ^{2}", bf.steps.empty() ? "" : ", ",
                                  kind, mask)
                        .str();
        for (const auto &[name, cycles] : target.laneExchanges)
          if (name == kind)
            bf.cycles += cycles;
      }
      entry.butterflies.push_back(std::move(bf));
    });
    llvm::DenseSet<Value> stagedTiles;
    func.walk([&](Operation *op) {
      // A cp.async pipeline's copy: 16-byte chunks, one per thread and
      // instruction.
      if (isa<CpAsyncOp, CpAsyncGatherOp>(op)) {
        // The prologue's and the loop's copies of one tile: one line.
        Value dst = op->getOperand(op->getNumOperands() - 2);
        if (!stagedTiles.insert(dst).second)
          return;
        SmemType t = cast<SmemType>(dst.getType());
        MemoryOp m;
        m.loc = locString(op->getLoc());
        m.kind = "load";
        m.elem = typeString(t.getElementType());
        m.elements = t.getShape()[0] * t.getShape()[1];
        m.path = "cp.async";
        m.accessBytes = 16;
        m.accessElems = 16 / getElementBytes(t.getElementType());
        if (auto why =
                op->getAttrOfType<StringAttr>(KccDialect::kTileAccessAttr))
          m.explanation = why.str();
        if (auto why =
                op->getAttrOfType<StringAttr>(KccDialect::kTmaRefusedAttr);
            why && target.tma.supported)
          m.notTaken.push_back({"tma", "tma-not-lowered", why.str()});
        entry.memoryOps.push_back(std::move(m));
        // Falls through to its shared-memory writes below.
      }
      // A TMA copy: one box per instruction (P boxes side by side for a
      // swizzled tile wider than one span), issued by one thread.
      if (isa<TmaLoadOp, TmaStoreOp>(op)) {
        auto load = dyn_cast<TmaLoadOp>(op);
        auto store = dyn_cast<TmaStoreOp>(op);
        TensorMapType map = load ? load.getMap().getType()
                                 : store.getMap().getType();
        int64_t parts = load ? load.getParts() : store.getParts();
        MemoryOp m;
        m.loc = locString(op->getLoc());
        m.kind = load ? "load" : "store";
        m.elem = typeString(map.getElementType());
        m.accessElems =
            map.getBoxBytes() / getElementBytes(map.getElementType());
        m.elements = parts * m.accessElems;
        m.path = "tma";
        m.accessBytes = map.getBoxBytes();
        if (auto why =
                op->getAttrOfType<StringAttr>(KccDialect::kTileAccessAttr))
          m.explanation = why.str();
        entry.memoryOps.push_back(std::move(m));
        return;
      }
      // An atomic: one read-modify-write per element, by its owner thread
      // (backends/gpu/AtomicsToLLVM.cpp), or the program's one.
      if (isa<AtomicRMWOp, AtomicCASOp>(op)) {
        auto rmw = dyn_cast<AtomicRMWOp>(op);
        auto cas = dyn_cast<AtomicCASOp>(op);
        Value ptr = op->getOperand(0);
        auto tile = dyn_cast<RankedTensorType>(ptr.getType());
        Type pointee =
            cast<PtrType>(getElementTypeOrSelf(ptr.getType())).getPointeeType();
        MemoryOp m;
        m.loc = locString(op->getLoc());
        m.kind = rmw ? "atomic_" + stringifyAtomicKind(rmw.getKind()).str()
                     : std::string("atomic_cas");
        m.elem = typeString(pointee);
        m.elements = tile ? tile.getNumElements() : 1;
        m.accessBytes = getElementBytes(pointee);
        m.path = "atomic";
        MemoryOrder order = rmw ? rmw.getOrder() : cas.getOrder();
        MemoryScope scope = rmw ? rmw.getScope() : cas.getScope();
        m.explanation =
            llvm::formatv("order={0} scope={1}; {2}",
                          stringifyMemoryOrder(order),
                          stringifyMemoryScope(scope),
                          tile ? "one update per element, by the thread that "
                                 "owns it"
                               : "the program's: thread 0 updates, between "
                                 "block barriers where the order asks")
                .str();
        entry.memoryOps.push_back(std::move(m));
        return;
      }
      // A histogram: the program's counters in shared memory, updated with
      // shared-memory atomics (AtomicsToLLVM.cpp).
      if (auto h = dyn_cast<HistogramOp>(op)) {
        MemoryOp m;
        m.loc = locString(op->getLoc());
        m.kind = "histogram";
        m.elem = "i32";
        m.elements = h.getSrc().getType().getNumElements();
        m.accessBytes = 4;
        m.path = "shared atomic";
        m.explanation =
            llvm::formatv("{0} counters ({1} B) in shared memory: zeroed, one "
                          "CTA-scoped atomic add per counted element by the "
                          "thread that owns it, read back after a barrier",
                          h.getBins(), int64_t(h.getBins()) * 4)
                .str();
        entry.memoryOps.push_back(std::move(m));
        return;
      }
      bool isLoad = isa<LoadOp>(op), isStore = isa<StoreOp>(op);
      if (isLoad || isStore) {
        MemoryOp m;
        m.loc = locString(op->getLoc());
        m.kind = isLoad ? "load" : "store";
        Value ptr = op->getOperand(0);
        auto tile = dyn_cast<RankedTensorType>(ptr.getType());
        Type pointee =
            cast<PtrType>(getElementTypeOrSelf(ptr.getType())).getPointeeType();
        m.elem = typeString(pointee);
        m.elements = tile ? tile.getNumElements() : 1;
        if (auto w =
                op->getAttrOfType<IntegerAttr>(KccDialect::kAccessWidthAttr))
          m.accessElems = w.getInt();
        m.accessBytes = m.accessElems * getElementBytes(pointee);
        m.path = m.accessElems > 1 ? "vector" : "scalar";
        // The pass's explanation for this op (remarks come in op order).
        for (auto it = remarks.begin(); it != remarks.end(); ++it)
          if (it->loc == op->getLoc()) {
            m.explanation = it->text;
            remarks.erase(it);
            break;
          }
        if (m.explanation.empty() && !tile)
          m.explanation = "a single element per program (not a tile): one "
                          "scalar access";

        if (m.accessBytes < target.maxVectorBytes)
          m.notTaken.push_back(
              {llvm::formatv("vector {0} B", target.maxVectorBytes).str(),
               "access-width", m.explanation});
        if (!target.tma.supported) {
          TmaVerdict v = checkTmaTensorMap(target, TmaTensorMapParams());
          m.notTaken.push_back({"tma", v.failures.front().rule.str(),
                                v.failures.front().message});
        } else if (auto why = op->getAttrOfType<StringAttr>(
                       KccDialect::kTileAccessAttr)) {
          m.notTaken.push_back({"tma", "tma-not-lowered", why.str()});
        } else if (auto why = op->getAttrOfType<StringAttr>(
                       KccDialect::kLiftRefusedAttr)) {
          m.notTaken.push_back(
              {"tma", "no-tensor-descriptor",
               "this tile of pointers was not lifted to a strided box of a "
               "tensor (descriptor synthesis): " +
                   why.str() +
                   "; or declare a tensor<T, R> parameter and use "
                   "load_tile/store_tile"});
        } else {
          m.notTaken.push_back(
              {"tma", "no-tensor-descriptor",
               "a tile of pointers has no tensor (base, shape, strides) to "
               "encode a tensor map from; declare a tensor<T, R> parameter "
               "and use load_tile/store_tile"});
        }
        // kcc-pipeline-async-copies says why it did not stage a dot
        // operand (after the TMA reason in kcc.tile_access).
        StringRef refused = "not pipelined with cp.async: ";
        auto access =
            op->getAttrOfType<StringAttr>(KccDialect::kTileAccessAttr);
        size_t at = access ? access.getValue().find(refused) : StringRef::npos;
        if (isLoad && target.hasAsyncCopy("cp.async") && at != StringRef::npos)
          m.notTaken.push_back(
              {"cp.async", "cp-async-not-pipelined",
               access.getValue().substr(at + refused.size()).str()});
        else if (isLoad && target.hasAsyncCopy("cp.async"))
          m.notTaken.push_back(
              {"cp.async", "no-shared-stage",
               "cp.async copies global to shared memory; this tile goes "
               "straight to registers and no pipeline stages it"});
        if (isLoad && target.hasAsyncCopy("buffer-load-lds"))
          m.notTaken.push_back(
              {"buffer-load-lds", "no-shared-stage",
               "direct-to-LDS loads fill LDS; this tile goes straight to "
               "registers and no pipeline stages it"});
        entry.memoryOps.push_back(std::move(m));
        return;
      }
      // Shared memory of the lowering: one line per (op, access kind), the
      // worst instruction's degree and the total wavefronts.
      std::map<std::string, SharedAccess> byKind;
      std::vector<std::string> kinds;
      for (const gpu::SharedAccess &a : gpu::describeSharedAccesses(op)) {
        const std::string &kind = a.what;
        if (!byKind.count(kind)) {
          kinds.push_back(kind);
          SharedAccess s;
          s.loc = locString(op->getLoc());
          s.op = opName(op);
          s.what = kind;
          s.store = a.isStore;
          s.bytes = a.bytes;
          byKind[kind] = s;
        }
        SharedAccess &s = byKind[kind];
        for (const auto &lanes : a.warps) {
          llvm::Expected<BankConflictResult> r = analyzeBankConflicts(
              banks, lanes, a.bytes,
              a.isStore ? SharedAccessKind::Store : SharedAccessKind::Load);
          if (!r) {
            // The lowering's patterns are aligned by construction; say so
            // instead of hiding it if that ever breaks.
            s.what +=
                " (not analyzable: " + llvm::toString(r.takeError()) + ")";
            continue;
          }
          ++s.instructions;
          s.wavefronts += r->wavefronts;
          s.ideal += r->idealWavefronts;
          s.degree = std::max(s.degree, r->degree);
        }
      }
      for (const std::string &k : kinds)
        entry.shared.push_back(byKind[k]);
    });
    kernels[symbol].push_back(std::move(entry));
  }
}

void Report::addLifts(ModuleOp tileIR) {
  for (auto func : tileIR.getOps<func::FuncOp>())
    func.walk([&](Operation *op) {
      if (auto d = op->getAttrOfType<StringAttr>(KccDialect::kLiftedAttr))
        lifts[func.getSymName().str()].emplace(
            locString(op->getLoc()),
            "lifted: " + d.str() + " (descriptor synthesis)");
    });
}

const std::string *Report::liftOf(const std::string &symbol,
                                  const MemoryOp &m) const {
  auto f = lifts.find(symbol);
  if (f == lifts.end())
    return nullptr;
  auto l = f->second.find(m.loc);
  return l == f->second.end() ? nullptr : &l->second;
}

void Report::addResources(const host::ModuleInfo &info) {
  for (const host::KernelInfo &k : info.kernels)
    for (const auto *list :
         {&k.specializations, &k.persistentBuilds, &k.fallbackBuilds,
          &k.versionBuilds, &k.splitKBuilds})
      for (const host::Specialization &spec : *list) {
        auto it = kernels.find(spec.symbol);
        if (it == kernels.end())
          continue;
        // A build a target could not compile (Driver.cpp dropped it there):
        // what the launch does instead.
        auto notBuilt = [&](const host::Specialization *build,
                            const std::string &what,
                            const std::string &instead) {
          for (const auto &[target, why] :
               build ? build->notBuilt : decltype(spec.notBuilt)())
            for (TargetEntry &e : it->second)
              if (e.target == target)
                e.launch += (e.launch.empty() ? "" : "; ") +
                            ("no " + what + " build on " + target + " (" + why +
                             "): " + instead);
        };
        notBuilt(k.fallbackBuildOf(spec), "fallback",
                 "tensors outside the tensor contract are refused at launch");
        notBuilt(k.persistentBuildOf(spec), "persistent",
                 "the launch runs one CTA per tile");
        notBuilt(k.splitKBuildOf(spec), "split-K",
                 "the launch never splits the K loop");
        for (const host::TargetBuild &b : spec.builds)
          for (TargetEntry &e : it->second)
            if (e.target == b.target && b.registers) {
              e.haveResources = true;
              e.registers = b.registers;
              // ptxas counts static shared memory only; NVIDIA kernels keep
              // theirs in dynamic shared memory.
              e.sharedBytes = b.sharedBytes + b.dynamicSharedBytes;
              e.spillBytes = b.spillStoreBytes + b.spillLoadBytes;
              e.stackBytes = b.stackBytes;
            }
      }
}

void Report::addVariantChoices(const TargetModel &target, double seconds,
                               std::vector<pipeline::VariantChoice> choices) {
  if (!choices.empty())
    searchSeconds[target.name] = seconds;
  for (pipeline::VariantChoice &c : choices)
    variants.push_back({target.name, std::move(c)});
}

namespace {
/// The kind of rule a candidate's refusal names, for the search's summary.
std::string ruleKind(const std::string &refusal) {
  static const std::pair<const char *, const char *> kinds[] = {
      {"shared memory", "shared memory"},
      {"register", "registers"},
      {"TMEM", "TMEM columns"},
      {"TMA", "TMA boxes"},
      {"wgmma", "MMA shapes"},
      {"MFMA", "MMA shapes"},
      {"mma", "MMA shapes"},
      {"async", "the async verifier"}};
  for (const auto &[key, kind] : kinds)
    if (refusal.find(key) != std::string::npos)
      return kind;
  return "other rules";
}
} // namespace

void Report::printText(llvm::raw_ostream &os) const {
  os << "kcc report: " << file << "\n";
  // The search per target: candidates, what pruned them, what stayed.
  for (const auto &[target, seconds] : searchSeconds) {
    size_t groups = 0, candidates = 0, legal = 0, kept = 0;
    std::map<std::string, size_t> pruned;
    for (const auto &[t, c] : variants) {
      if (t != target)
        continue;
      ++groups;
      kept += c.kept.size();
      for (const pipeline::VariantCandidate &cand : c.candidates) {
        ++candidates;
        if (cand.legal)
          ++legal;
        else
          ++pruned[ruleKind(cand.refusal)];
      }
    }
    std::vector<std::string> rules;
    for (const auto &[kind, n] : pruned)
      rules.push_back(std::to_string(n) + " by " + kind);
    os << "\ntunable search on " << target << ": " << groups
       << " launch function(s), " << candidates << " candidates, " << legal
       << " legal, " << (candidates - legal) << " pruned"
       << (rules.empty() ? "" : " (" + llvm::join(rules, ", ") + ")") << ", "
       << kept << " kept; " << llvm::formatv("{0:f1}", seconds).str() << " s\n";
  }
  for (const auto &[target, c] : variants) {
    const pipeline::VariantCandidate &best = c.candidates[c.chosen];
    os << "\n"
       << c.group << " on " << target << ": " << best.values << " (@"
       << best.symbol << ") of " << c.candidates.size() << " candidates of "
       << llvm::join(c.open, ", ") << "\n";
    os << "  chosen: " << best.features.str() << "\n";
    if (c.kept.size() > 1) {
      std::vector<std::string> values;
      for (int i : c.kept)
        values.push_back("(" + c.candidates[i].values + ")");
      bool streaming = best.cost && !best.cost->streamBytes.empty();
      os << "  kept for the launch to choose by size ("
         << (streaming ? "kcc::rt::streamCycles: the bytes a program's loads "
                         "and stores touch, masked lanes included,"
                       : "kcc::rt::launchCycles")
         << " over the target model's [throughput]): "
         << llvm::join(values, ", ") << "\n";
    } else {
      os << "  the launch runs it at every size: " << c.keptWhy << "\n";
    }
    for (const pipeline::VariantCandidate &cand : c.candidates) {
      if (&cand == &best)
        continue;
      if (cand.legal && llvm::is_contained(c.kept, &cand - &c.candidates[0]))
        os << "  " << cand.values << ": kept: " << cand.features.str() << "\n";
      else if (cand.legal)
        os << "  " << cand.values << ": ranked lower"
           << (cand.checked ? "" : " (not lowered)") << ": "
           << cand.features.str() << "\n";
      else
        os << "  " << cand.values << ": refused: " << cand.refusal << "\n";
    }
  }
  for (const std::string &symbol : order)
    for (const TargetEntry &e : kernels.at(symbol)) {
      os << "\nkernel " << symbol << " on " << e.target << ": " << e.threads
         << " threads";
      if (e.haveResources)
        os << ", " << e.registers << " registers, " << e.sharedBytes
           << " B shared memory, " << e.spillBytes << " B spilled, "
           << e.stackBytes << " B stack";
      else
        os << " (registers and shared memory: compile to cubin or fatbin)";
      os << "\n";
      if (!e.roles.empty())
        os << "  " << e.roles << "\n";
      if (!e.launch.empty())
        os << "  " << e.launch << "\n";
      for (const std::string &c : e.coverage)
        os << "  " << c << "\n";
      for (const std::string &d : e.dots)
        os << "  " << d << "\n";
      for (const std::string &h : e.hints)
        os << "  hint: " << h << "\n";
      for (const MemoryOp &m : e.memoryOps) {
        os << llvm::formatv("  {0}: {1} {2} x {3}: {4}, {5} B per access "
                            "({6} x {3})\n",
                            m.loc, m.kind, m.elements, m.elem, m.path,
                            m.accessBytes, m.accessElems);
        if (!m.explanation.empty())
          os << "    why: " << m.explanation << "\n";
        if (const std::string *lift = liftOf(symbol, m))
          os << "    " << *lift << "\n";
        for (const NotTaken &n : m.notTaken)
          os << "    not taken: " << n.path << " [" << n.rule << "] "
             << n.reason << "\n";
      }
      if (!e.butterflies.empty())
        os << "  wave reductions (butterfly exchanges; cycles as the target "
              "model estimates them):\n";
      for (const Butterfly &bf : e.butterflies) {
        os << llvm::formatv("    {0}: {1} over {2} lanes: {3}", bf.loc, bf.op,
                            bf.lanes, bf.steps);
        if (bf.choices > 1)
          os << llvm::formatv(": {0} cycles (xor exchanges only: {1})",
                              bf.cycles, bf.plainCycles);
        else
          os << " (the target's only exchange)";
        os << "\n";
      }
      if (e.shared.empty())
        continue;
      os << "  shared memory (" << e.bankModel << "):\n";
      for (const SharedAccess &s : e.shared)
        os << llvm::formatv(
            "    {0}: {1}: {2}, {3} B per lane, {4} "
            "warp instruction(s): {5} wavefronts (ideal {6}), "
            "{7}\n",
            s.loc, s.op, s.what, s.bytes, s.instructions, s.wavefronts, s.ideal,
            s.degree == 1 ? std::string("conflict-free")
                          : std::to_string(s.degree) + "-way conflict");
    }
}

llvm::json::Value Report::toJSON() const {
  llvm::json::Array ks;
  for (const std::string &symbol : order) {
    llvm::json::Array ts;
    for (const TargetEntry &e : kernels.at(symbol)) {
      llvm::json::Array mem, shared, butterflies;
      for (const Butterfly &bf : e.butterflies)
        butterflies.push_back(
            llvm::json::Object{{"loc", bf.loc},
                               {"op", bf.op},
                               {"lanes", bf.lanes},
                               {"exchanges", bf.steps},
                               {"cycles", bf.cycles},
                               {"xor_only_cycles", bf.plainCycles}});
      for (const MemoryOp &m : e.memoryOps) {
        llvm::json::Array nt;
        for (const NotTaken &n : m.notTaken)
          nt.push_back(llvm::json::Object{
              {"path", n.path}, {"rule", n.rule}, {"reason", n.reason}});
        const std::string *lift = liftOf(symbol, m);
        mem.push_back(llvm::json::Object{{"loc", m.loc},
                                         {"lift", lift ? *lift : ""},
                                         {"op", m.kind},
                                         {"element_type", m.elem},
                                         {"elements", m.elements},
                                         {"path", m.path},
                                         {"access_bytes", m.accessBytes},
                                         {"access_elements", m.accessElems},
                                         {"explanation", m.explanation},
                                         {"not_taken", std::move(nt)}});
      }
      for (const SharedAccess &s : e.shared)
        shared.push_back(llvm::json::Object{{"loc", s.loc},
                                            {"op", s.op},
                                            {"access", s.what},
                                            {"store", s.store},
                                            {"bytes_per_lane", s.bytes},
                                            {"instructions", s.instructions},
                                            {"wavefronts", s.wavefronts},
                                            {"ideal_wavefronts", s.ideal},
                                            {"conflict_degree", s.degree}});
      llvm::json::Array coverage;
      for (const std::string &c : e.coverage)
        coverage.push_back(c);
      llvm::json::Array dots, hints;
      for (const std::string &d : e.dots)
        dots.push_back(d);
      for (const std::string &h : e.hints)
        hints.push_back(h);
      llvm::json::Object t{{"target", e.target},
                           {"threads", e.threads},
                           {"roles", e.roles},
                           {"launch", e.launch},
                           {"coverage", std::move(coverage)},
                           {"dots", std::move(dots)},
                           {"hints", std::move(hints)},
                           {"bank_model", e.bankModel},
                           {"memory_ops", std::move(mem)},
                           {"shared_memory_accesses", std::move(shared)},
                           {"wave_reductions", std::move(butterflies)}};
      if (e.haveResources) {
        t["registers"] = e.registers;
        t["shared_memory_bytes"] = e.sharedBytes;
        t["spill_bytes"] = e.spillBytes;
        t["stack_bytes"] = e.stackBytes;
      }
      ts.push_back(std::move(t));
    }
    ks.push_back(
        llvm::json::Object{{"kernel", symbol}, {"targets", std::move(ts)}});
  }
  llvm::json::Array vs;
  for (const auto &[target, c] : variants) {
    llvm::json::Array cands;
    for (const pipeline::VariantCandidate &cand : c.candidates) {
      llvm::json::Object o{{"values", cand.values},
                           {"symbol", cand.symbol},
                           {"legal", cand.legal},
                           {"lowered", cand.checked}};
      if (cand.legal) {
        o["features"] = cand.features.str();
        llvm::json::Array key;
        for (int64_t k : cand.features.key())
          key.push_back(k);
        o["rank_key"] = std::move(key);
      } else {
        o["refusal"] = cand.refusal;
      }
      cands.push_back(std::move(o));
    }
    llvm::json::Array kept;
    for (int i : c.kept)
      kept.push_back(c.candidates[i].symbol);
    vs.push_back(llvm::json::Object{{"launch", c.group},
                                    {"target", target},
                                    {"chosen", c.candidates[c.chosen].symbol},
                                    {"kept", std::move(kept)},
                                    {"candidates", std::move(cands)}});
  }
  return llvm::json::Object{{"file", file},
                            {"kernels", std::move(ks)},
                            {"tunable_choices", std::move(vs)}};
}
