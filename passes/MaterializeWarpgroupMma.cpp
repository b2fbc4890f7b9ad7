//===- MaterializeWarpgroupMma.cpp - dots on Hopper tensor cores ----------===//
//
// kcc-materialize-warpgroup-mma rewrites
//   %a = smem_load %A[%s]         (or trans of it)
//   %b = smem_load %B[%t]         (or trans of it)
//   %r = dot %a, %b, %acc
// where both stages are 128-byte swizzled (kcc-add-tensor-maps gave the
// loads wgmma operand maps, the TMA passes landed them), into
//   %r = warpgroup_mma %A[%s], %B[%t], %acc {a_k_major, b_k_major}
// so the tensor cores read shared memory directly. The accumulator "web"
// (the dot's accumulator and result, the scf.for iter_args/results/yields
// that carry it, its splat initialization) is retyped to #kcc.wgmma_acc;
// every other producer or user of the web goes through kcc.convert_layout.
// In a loop refilled one iteration late (kcc.mma_overlap) the groups stay in
// flight across iterations: the loop then runs under `if (lb < ub)` with
// `warpgroup_mma_wait 0` on its accumulators inside. A tile that leaves the
// web only to be staged for a TMA store is stored from the accumulator
// registers (see stageEpilogue). kcc-assign-layouts leaves those types
// alone and gives the rest #kcc.blocked with the warps this pass fixes (4
// per warpgroup).
//
//===----------------------------------------------------------------------===//

#include "passes/MmaOperands.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kcc {
#define GEN_PASS_DEF_KCCMATERIALIZEWARPGROUPMMA
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;

namespace {

/// The swizzled stage read behind dot operand `v`: smem_load, optionally
/// under a trans.
kcc::SmemLoadOp swizzledRead(Value v, bool &transposed) {
  transposed = false;
  if (auto tr = v.getDefiningOp<kcc::TransOp>()) {
    transposed = true;
    v = tr.getSrc();
  }
  auto read = v.getDefiningOp<kcc::SmemLoadOp>();
  if (!read || read.getSrc().getType().getSwizzle() == 0)
    return nullptr;
  return read;
}

struct MaterializeWarpgroupMma
    : kcc::impl::KccMaterializeWarpgroupMmaBase<MaterializeWarpgroupMma> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        if (failed(runOnKernel(func)))
          return signalPassFailure();
  }
  LogicalResult runOnKernel(func::FuncOp func);
};

/// The values that must carry the accumulator layout with `seeds`: through
/// scf.for init/iter_arg/yield/result links.
llvm::SetVector<Value> accumulatorWeb(ArrayRef<Value> seeds) {
  llvm::SetVector<Value> web;
  SmallVector<Value> work(seeds);
  auto add = [&](Value v) {
    if (web.insert(v))
      work.push_back(v);
  };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    web.insert(v);
    // v is a loop's iter_arg or result: the other three links.
    scf::ForOp loop;
    unsigned idx = 0;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (loop && arg.getArgNumber() > 0)
        idx = arg.getArgNumber() - 1;
      else
        loop = nullptr;
    } else if (auto res = dyn_cast<OpResult>(v)) {
      if ((loop = dyn_cast<scf::ForOp>(res.getOwner())))
        idx = res.getResultNumber();
    }
    if (loop) {
      add(loop.getRegionIterArgs()[idx]);
      add(loop.getResult(idx));
      add(loop.getInitArgs()[idx]);
      add(loop.getBody()->getTerminator()->getOperand(idx));
    }
    // v is yielded by a loop or initializes one.
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<scf::YieldOp>(user))
        if (auto loop = dyn_cast<scf::ForOp>(user->getParentOp()))
          add(loop.getResult(use.getOperandNumber()));
      if (auto loop = dyn_cast<scf::ForOp>(user))
        if (use.getOperandNumber() >= 3)
          add(loop.getResult(use.getOperandNumber() - 3));
    }
  }
  return web;
}

/// The epilogue of a GEMM: a tile that leaves the accumulator layout to be
/// staged for a TMA store goes into the stage straight from the accumulator
/// registers; its other readers (the masked-store fallback beside the TMA
/// store) relayout through that same stage. The kernel keeps no relayout
/// scratch for the accumulator, which lets 128 x 256 tiles keep three
/// pipeline stages (kcc::epilogueStore says when).
void stageEpilogue(kcc::ConvertLayoutOp cvt) {
  kcc::SmemStoreOp staged = kcc::epilogueStore(cvt.getResult());
  if (!staged)
    return;
  staged.getValueMutable().set(cvt.getSrc());
  // One relayout per block, ahead of its first reader.
  llvm::MapVector<Block *, Operation *> first;
  for (Operation *user : cvt->getUsers()) {
    auto [it, fresh] = first.insert({user->getBlock(), user});
    if (!fresh && user->isBeforeInBlock(it->second))
      it->second = user;
  }
  int64_t index = *getConstantIntValue(staged.getStage());
  for (auto [block, user] : first) {
    OpBuilder b(user);
    Location loc = cvt.getLoc();
    Value stage = arith::ConstantIntOp::create(b, loc, index, 32);
    kcc::CtaBarrierOp::create(b, loc);
    kcc::SmemStoreOp::create(b, loc, cvt.getSrc(), staged.getDst(), stage);
    kcc::CtaBarrierOp::create(b, loc);
    Value relaid =
        kcc::SmemLoadOp::create(b, loc, cvt.getType(), staged.getDst(), stage);
    cvt.getResult().replaceUsesWithIf(relaid, [&](OpOperand &use) {
      return use.getOwner()->getBlock() == block;
    });
  }
  cvt.erase();
}

/// `x` (a splat, a splat constant or a row/column broadcast) rebuilt with
/// type `t` at `b`: such values can be made in any layout.
Value rebuildInLayout(OpBuilder &b, Value x, Type t) {
  Operation *def = x.getDefiningOp();
  if (auto splat = dyn_cast<kcc::SplatOp>(def))
    return kcc::SplatOp::create(b, def->getLoc(), t, splat.getOperand());
  if (auto bc = dyn_cast<kcc::BroadcastOp>(def))
    return kcc::BroadcastOp::create(b, def->getLoc(), t, bc.getSrc());
  auto dense = cast<DenseElementsAttr>(cast<arith::ConstantOp>(def).getValue());
  return arith::ConstantOp::create(
      b, def->getLoc(), t,
      DenseElementsAttr::get(cast<ShapedType>(t),
                             dense.getSplatValue<Attribute>()));
}

/// Runs the elementwise epilogue `chain` (kcc::epilogueChain) that starts at
/// accumulator `acc` in the accumulator layout (`accType` of a plain type):
/// its splats and broadcasts are rebuilt in that layout, and the tile leaves
/// it through one convert_layout after the last op.
void retypeEpilogueChain(Value acc, ArrayRef<Operation *> chain,
                         function_ref<Type(Type)> accType) {
  llvm::SmallPtrSet<Value, 8> inChain = {acc};
  Type plainEnd;
  for (Operation *op : chain) {
    OpBuilder b(op);
    for (OpOperand &operand : op->getOpOperands()) {
      Value x = operand.get();
      if (inChain.contains(x))
        continue;
      operand.set(rebuildInLayout(b, x, accType(x.getType())));
      if (Operation *def = x.getDefiningOp(); def->use_empty())
        def->erase();
    }
    Value r = op->getResult(0);
    plainEnd = r.getType();
    r.setType(accType(plainEnd));
    inChain.insert(r);
  }
  Operation *last = chain.back();
  Value end = last->getResult(0);
  OpBuilder b(last->getBlock(), std::next(last->getIterator()));
  auto cvt = kcc::ConvertLayoutOp::create(b, last->getLoc(), plainEnd, end);
  end.replaceAllUsesExcept(cvt.getResult(), cvt);
}

LogicalResult MaterializeWarpgroupMma::runOnKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  struct Site {
    kcc::DotOp dot;
    kcc::SmemLoadOp a, b;
    bool aT, bT;
  };
  SmallVector<Site> sites;
  bool ok = true;
  func.walk([&](kcc::DotOp dot) {
    Site s{dot, nullptr, nullptr, false, false};
    s.a = swizzledRead(dot.getA(), s.aT);
    s.b = swizzledRead(dot.getB(), s.bT);
    if (!s.a && !s.b)
      return; // CUDA-core path
    if (!s.a || !s.b) {
      dot.emitError("kcc: one operand of this dot reached a wgmma "
                    "(128-byte swizzled) shared-memory stage and the other "
                    "did not; load both operands with load_tile in the same "
                    "loop so both get TMA stages");
      ok = false;
      return;
    }
    sites.push_back(s);
  });
  if (!ok)
    return failure();
  if (sites.empty())
    return success();

  unsigned warpgroups = 2;
  for (Site &s : sites)
    warpgroups = std::min(
        warpgroups, kcc::accumulatorWarpgroups(s.dot.getType().getShape()[0]));
  unsigned warps = 4 * warpgroups;
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kNumWarpsAttr))
    if (attr.getInt() != warps)
      return func.emitError("kcc: this kernel's wgmma dots need ")
             << warps << " warps (" << warpgroups
             << " warpgroups), but it asks for " << attr.getInt();
  func->setAttr(kcc::KccDialect::kNumWarpsAttr,
                IntegerAttr::get(IntegerType::get(ctx, 32), warps));
  auto layout = kcc::WgmmaAccLayoutAttr::get(ctx, warpgroups);
  auto accType = [&](Type t) {
    auto tt = cast<RankedTensorType>(t);
    return RankedTensorType::get(tt.getShape(), tt.getElementType(), layout);
  };

  // Rewrite the dots (their results keep the plain type until the web is
  // retyped below).
  SmallVector<Value> seeds;
  llvm::SetVector<scf::ForOp> drained;
  for (Site &s : sites) {
    OpBuilder b(s.dot);
    // In a loop whose stages are refilled one iteration late
    // (kcc.mma_overlap), the group stays in flight while the next iteration
    // issues; the accumulator is complete after a wait behind the loop
    // (added below, once the accumulators have their layout).
    auto loop = dyn_cast<scf::ForOp>(s.dot->getParentOp());
    bool overlap = loop && loop->hasAttr(kcc::KccDialect::kMmaOverlapAttr);
    if (overlap)
      drained.insert(loop);
    auto mma = kcc::WarpgroupMmaOp::create(
        b, s.dot.getLoc(), s.dot.getType(), s.a.getSrc(), s.a.getStage(),
        s.b.getSrc(), s.b.getStage(), s.dot.getC(),
        /*a_k_major=*/!s.aT, /*b_k_major=*/s.bT, /*pending=*/overlap ? 1 : 0);
    s.dot.replaceAllUsesWith(mma.getResult());
    Value aOperand = s.dot.getA(), bOperand = s.dot.getB();
    s.dot.erase();
    for (Value v : {aOperand, bOperand})
      if (Operation *def = v.getDefiningOp(); def && def->use_empty()) {
        Value src = isa<kcc::TransOp>(def) ? def->getOperand(0) : Value();
        def->erase();
        if (src && src.use_empty())
          src.getDefiningOp()->erase();
      }
    seeds.append({mma.getResult(), mma.getAcc()});
  }

  llvm::SetVector<Value> web = accumulatorWeb(seeds);
  auto inWeb = [&](Value v) { return web.contains(v); };
  for (Value v : web) {
    if (!isa<RankedTensorType>(v.getType()))
      return func.emitError("kcc: internal error: a non-tile joined a wgmma "
                            "accumulator");
    Type plain = v.getType();
    Type acc = accType(plain);
    // Producers that cannot make the layout themselves hand over through a
    // convert_layout (splats are rebuilt in it).
    Operation *def = v.getDefiningOp();
    bool native = !def || isa<kcc::WarpgroupMmaOp, scf::ForOp>(def);
    if (def && isa<kcc::SplatOp>(def)) {
      OpBuilder b(def);
      Value splat = rebuildInLayout(b, v, acc);
      // Users outside the web keep the original splat.
      v.replaceUsesWithIf(splat, [&](OpOperand &use) {
        return isa<kcc::WarpgroupMmaOp, scf::ForOp, scf::YieldOp>(
            use.getOwner());
      });
      continue;
    }
    if (def && !native) {
      OpBuilder b(def->getBlock(), std::next(def->getIterator()));
      auto cvt = kcc::ConvertLayoutOp::create(b, def->getLoc(), acc, v);
      v.replaceUsesWithIf(cvt.getResult(), [&](OpOperand &use) {
        return use.getOwner() != cvt &&
               isa<kcc::WarpgroupMmaOp, scf::ForOp, scf::YieldOp>(
                   use.getOwner());
      });
      continue;
    }
    // Users outside the web read a converted copy.
    v.setType(acc);
    SmallVector<OpOperand *> outside;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      bool linked = isa<kcc::WarpgroupMmaOp>(user) ||
                    (isa<scf::YieldOp>(user) &&
                     isa<scf::ForOp>(user->getParentOp()) &&
                     inWeb(user->getParentOp()->getResult(
                         use.getOperandNumber()))) ||
                    (isa<scf::ForOp>(user) && use.getOperandNumber() >= 3);
      if (!linked)
        outside.push_back(&use);
    }
    // The elementwise epilogue (bias, activation, the cast to a 16-bit
    // output: kcc::epilogueChain) runs in the accumulator layout, so the
    // relayout (or the direct store into the TMA stage) comes at its end;
    // its splats and row/column broadcasts are rebuilt in that layout.
    if (outside.size() == 1) {
      SmallVector<Operation *> chain = kcc::epilogueChain(*outside.front());
      if (!chain.empty()) {
        retypeEpilogueChain(v, chain, accType);
        continue;
      }
    }
    if (!outside.empty()) {
      OpBuilder b(ctx);
      if (auto arg = dyn_cast<BlockArgument>(v))
        b.setInsertionPointToStart(arg.getOwner());
      else
        b.setInsertionPointAfter(v.getDefiningOp());
      auto cvt = kcc::ConvertLayoutOp::create(b, v.getLoc(), plain, v);
      for (OpOperand *use : outside)
        use->set(cvt.getResult());
    }
  }

  // The wait behind each overlapped loop: the loop's accumulators pass
  // through it, so every reader comes after the retirement. The loop and its
  // wait sit under `if (lb < ub)`: on the path that skips the loop the
  // accumulators keep their initial values without a wait after them
  // (ptxas serializes every wgmma of the kernel when a non-wgmma
  // instruction may define an accumulator ahead of a wait, C7515).
  for (scf::ForOp loop : drained) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value runs =
        arith::CmpIOp::create(b, loc,
                              loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                    : arith::CmpIPredicate::slt,
                              loop.getLowerBound(), loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                   /*withElseRegion=*/true);
    loop->replaceAllUsesWith(guard.getResults());
    Block *then = &guard.getThenRegion().front();
    loop->moveBefore(then, then->end());
    SmallVector<Value> accs;
    for (Value r : loop.getResults())
      if (inWeb(r))
        accs.push_back(r);
    OpBuilder tb = OpBuilder::atBlockEnd(then);
    auto wait = kcc::WarpgroupMmaWaitOp::create(tb, loc, 0, accs);
    SmallVector<Value> out(loop.getResults());
    for (auto [acc, done] : llvm::zip(accs, wait.getResults()))
      std::replace(out.begin(), out.end(), acc, Value(done));
    scf::YieldOp::create(tb, loc, out);
    OpBuilder eb = OpBuilder::atBlockEnd(&guard.getElseRegion().front());
    scf::YieldOp::create(eb, loc, loop.getInitArgs());
  }

  SmallVector<kcc::ConvertLayoutOp> leaving;
  func.walk([&](kcc::ConvertLayoutOp cvt) {
    auto src = cast<RankedTensorType>(cvt.getSrc().getType());
    if (isa_and_nonnull<kcc::WgmmaAccLayoutAttr>(src.getEncoding()))
      leaving.push_back(cvt);
  });
  for (kcc::ConvertLayoutOp cvt : leaving)
    stageEpilogue(cvt);
  return success();
}

} // namespace
