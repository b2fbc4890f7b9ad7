//===- AccumulatorWeb.cpp - give an MMA accumulator its register layout ---===//

#include "passes/analysis/AccumulatorWeb.h"

#include "passes/analysis/MmaOperands.h"
#include "passes/analysis/ReadOnlyMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>

using namespace mlir;

llvm::SetVector<Value> kcc::accumulatorWeb(ArrayRef<Value> seeds) {
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

namespace {
/// `x` (a splat, a splat constant or a row/column broadcast) rebuilt with
/// type `t` at `b`: such values can be made in any layout.
Value rebuildInLayout(OpBuilder &b, Value x, Type t) {
  Operation *def = x.getDefiningOp();
  if (auto splat = dyn_cast<kcc::SplatOp>(def))
    return kcc::SplatOp::create(b, def->getLoc(), t, splat.getOperand());
  if (auto bc = dyn_cast<kcc::BroadcastOp>(def)) {
    // An epilogue chunk's copy keeps its mark (kcc.epilogue_chunk).
    auto copy = kcc::BroadcastOp::create(b, def->getLoc(), t, bc.getSrc());
    copy->setDiscardableAttrs(def->getDiscardableAttrDictionary());
    return copy;
  }
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
} // namespace

FailureOr<llvm::SetVector<Value>>
kcc::retypeAccumulatorWeb(Operation *func, ArrayRef<Value> seeds,
                          Attribute layout,
                          function_ref<bool(OpOperand &)> isAccUse,
                          function_ref<bool(Operation *)> isMmaResult) {
  auto accType = [&](Type t) {
    auto tt = cast<RankedTensorType>(t);
    return RankedTensorType::get(tt.getShape(), tt.getElementType(), layout);
  };
  llvm::SetVector<Value> web = accumulatorWeb(seeds);
  auto inWeb = [&](Value v) { return web.contains(v); };
  // A use that passes the accumulator on inside the web: an MMA op's
  // accumulator operand, a loop's init or a yield of a web value.
  auto linked = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (isAccUse(use))
      return true;
    if (isa<scf::YieldOp>(user))
      return isa<scf::ForOp>(user->getParentOp()) &&
             inWeb(user->getParentOp()->getResult(use.getOperandNumber()));
    if (auto loop = dyn_cast<scf::ForOp>(user))
      return use.getOperandNumber() >= 3 &&
             inWeb(loop.getResult(use.getOperandNumber() - 3));
    return false;
  };
  for (Value v : web) {
    if (!isa<RankedTensorType>(v.getType()))
      return func->emitError("kcc: internal error: a non-tile joined an MMA "
                             "accumulator");
    Type plain = v.getType();
    Type acc = accType(plain);
    // Producers that cannot make the layout themselves hand over through a
    // convert_layout (splats are rebuilt in it).
    Operation *def = v.getDefiningOp();
    bool native = !def || isa<scf::ForOp>(def) || isMmaResult(def);
    if (def && isa<kcc::SplatOp>(def)) {
      OpBuilder b(def);
      Value splat = rebuildInLayout(b, v, acc);
      // Users outside the web keep the original splat.
      v.replaceUsesWithIf(splat, linked);
      continue;
    }
    if (def && !native) {
      OpBuilder b(def->getBlock(), std::next(def->getIterator()));
      auto cvt = kcc::ConvertLayoutOp::create(b, def->getLoc(), acc, v);
      v.replaceUsesWithIf(cvt.getResult(), [&](OpOperand &use) {
        return use.getOwner() != cvt && linked(use);
      });
      continue;
    }
    // Users outside the web read a converted copy.
    v.setType(acc);
    SmallVector<OpOperand *> outside;
    for (OpOperand &use : v.getUses()) {
      if (!linked(use))
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
    // An epilogue copied per column chunk (a loop result read by the
    // copies alone): every copy runs in the layout.
    if (outside.size() > 1 &&
        outside.size() == size_t(std::distance(v.use_begin(), v.use_end()))) {
      SmallVector<SmallVector<Operation *>> copies = kcc::epilogueCopies(v);
      if (!copies.empty()) {
        for (ArrayRef<Operation *> chain : copies)
          retypeEpilogueChain(v, chain, accType);
        continue;
      }
    }
    if (!outside.empty()) {
      OpBuilder b(func->getContext());
      if (auto arg = dyn_cast<BlockArgument>(v))
        b.setInsertionPointToStart(arg.getOwner());
      else
        b.setInsertionPointAfter(v.getDefiningOp());
      auto cvt = kcc::ConvertLayoutOp::create(b, v.getLoc(), plain, v);
      for (OpOperand *use : outside)
        use->set(cvt.getResult());
    }
  }
  return web;
}

/// One accumulator leaving its layout (see stageAccumulatorEpilogues).
static void stageEpilogue(kcc::ConvertLayoutOp cvt) {
  // Column chunks: every window is stored from the registers.
  if (kcc::storedInWindows(cvt.getResult())) {
    cvt.getResult().replaceAllUsesWith(cvt.getSrc());
    cvt.erase();
    return;
  }
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
  std::optional<int64_t> index = getConstantIntValue(staged.getStage());
  for (auto [readerBlock, user] : first) {
    Block *block = readerBlock; // captured below (C++17)
    OpBuilder b(user);
    Location loc = cvt.getLoc();
    Value stage = staged.getStage();
    if (index)
      stage = arith::ConstantIntOp::create(b, loc, *index, 32);
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

void kcc::stageAccumulatorEpilogues(Operation *func, Attribute layout) {
  SmallVector<kcc::ConvertLayoutOp> leaving;
  func->walk([&](kcc::ConvertLayoutOp cvt) {
    auto src = cast<RankedTensorType>(cvt.getSrc().getType());
    if (src.getEncoding() == layout)
      leaving.push_back(cvt);
  });
  for (kcc::ConvertLayoutOp cvt : leaving)
    stageEpilogue(cvt);
}

//===----------------------------------------------------------------------===//
// Row-wise work between two products (attention's softmax)
//===----------------------------------------------------------------------===//

namespace {
/// Whether a tile of `shape` can carry a #kcc.wgmma_acc layout: whole 64-row
/// blocks, and columns in whole 8-column chunks or a row vector.
bool fitsAccumulatorLayout(ArrayRef<int64_t> shape) {
  if (shape.empty() || shape.size() > 2 || shape[0] % 64)
    return false;
  return kcc::isWgmmaRowSlice(shape) || shape[1] % 8 == 0;
}

bool isTile(Value v) { return isa<RankedTensorType>(v.getType()); }

/// The results `op` gives the layout when its tile operand `v` has it
/// (empty: `op` cannot run in it).
SmallVector<Value> joinsWith(Operation *op, OpOperand &use) {
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  if (auto red = dyn_cast<kcc::ReduceOp>(op))
    return red.getAxis() == 1 && shapeOf(red.getSrc()).size() == 2
               ? SmallVector<Value>{red.getResult()}
               : SmallVector<Value>{};
  if (auto e = dyn_cast<kcc::ExpandDimsOp>(op))
    return e.getAxis() == 1 && shapeOf(e.getSrc()).size() == 1
               ? SmallVector<Value>{e.getResult()}
               : SmallVector<Value>{};
  if (auto bc = dyn_cast<kcc::BroadcastOp>(op))
    return kcc::isWgmmaRowSlice(shapeOf(bc.getSrc())) &&
                   fitsAccumulatorLayout(shapeOf(bc.getResult()))
               ? SmallVector<Value>{bc.getResult()}
               : SmallVector<Value>{};
  if (isa<scf::YieldOp>(op)) {
    unsigned i = use.getOperandNumber();
    // A branch (a mask applied on some iterations only): its result.
    if (auto branch = dyn_cast<scf::IfOp>(op->getParentOp()))
      return {branch.getResult(i)};
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    if (!loop)
      return {};
    return {loop.getResult(i), loop.getRegionIterArgs()[i]};
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (use.getOperandNumber() < 3)
      return {};
    unsigned i = use.getOperandNumber() - 3;
    return {loop.getResult(i), loop.getRegionIterArgs()[i]};
  }
  Dialect *d = op->getDialect();
  if (!d || !isa<arith::ArithDialect, math::MathDialect>(d) ||
      op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isTile(op->getResult(0)) ||
      !fitsAccumulatorLayout(shapeOf(op->getResult(0))))
    return {};
  return {op->getResult(0)};
}
/// Whether `use` reads a tile of the web in the layout without its result
/// joining: a column reduction of a wgmma accumulator (into a plain row of
/// columns, ReduceToLLVM.cpp) and a plain store into a shared stage (an
/// MMA operand written from the accumulator's registers).
bool readsInLayout(OpOperand &use, Attribute layout) {
  if (!isa<kcc::WgmmaAccLayoutAttr>(layout))
    return false;
  if (auto red = dyn_cast<kcc::ReduceOp>(use.getOwner()))
    return red.getAxis() == 0 && red.getSrc().getType().getRank() == 2 &&
           !cast<RankedTensorType>(red.getType()).getEncoding();
  if (auto store = dyn_cast<kcc::SmemStoreOp>(use.getOwner()))
    return &use == &store.getValueMutable() && !store.getWindow();
  return false;
}
} // namespace

void kcc::propagateAccumulatorLayout(Operation *func, Attribute layout) {
  auto withLayout = [&](Type t) {
    auto tt = cast<RankedTensorType>(t);
    return RankedTensorType::get(tt.getShape(), tt.getElementType(), layout);
  };
  auto hasLayout = [&](Value v) {
    auto tt = dyn_cast<RankedTensorType>(v.getType());
    return tt && tt.getEncoding() == layout;
  };
  // Seeds: tiles leaving the layout in a loop that also feeds a register-A
  // product, or that the loop carries after elementwise work (a product
  // scaled per K block and added to a running sum: FP8 block scales), so
  // the carried sum lives in the accumulator's registers too.
  SmallVector<ConvertLayoutOp> seeds;
  auto carriedBy = [](ConvertLayoutOp cvt, scf::ForOp loop) {
    Operation *yield = loop.getBody()->getTerminator();
    llvm::SmallPtrSet<Value, 16> seen;
    SmallVector<Value> work{cvt.getResult()};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      for (OpOperand &use : v.getUses()) {
        if (use.getOwner() == yield)
          return true;
        if (isa<scf::YieldOp, scf::ForOp>(use.getOwner()))
          continue;
        for (Value r : joinsWith(use.getOwner(), use))
          work.push_back(r);
      }
    }
    return false;
  };
  func->walk([&](ConvertLayoutOp cvt) {
    if (!hasLayout(cvt.getSrc()) ||
        cast<RankedTensorType>(cvt.getType()).getEncoding())
      return;
    // A product's result leaving the layout in a loop of mma.sync products
    // (S^T = K Q^T of a decode step, its softmax along the keys and the
    // second product reading P from a stage): the work between them stays
    // in the registers the product left it in.
    if (auto loop = dyn_cast<scf::ForOp>(cvt->getParentOp());
        loop && isa_and_nonnull<WarpMmaOp>(cvt.getSrc().getDefiningOp()) &&
        cvt.getSrc().getDefiningOp()->getParentOp() == loop) {
      seeds.push_back(cvt);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(cvt->getParentOp());
        loop && carriedBy(cvt, loop)) {
      seeds.push_back(cvt);
      return;
    }
    for (Operation *p = cvt->getParentOp(); p && p != func;
         p = p->getParentOp())
      if (auto loop = dyn_cast<scf::ForOp>(p))
        if (loop->walk(
                    [](WarpgroupMmaRegAOp) { return WalkResult::interrupt(); })
                .wasInterrupted()) {
          seeds.push_back(cvt);
          return;
        }
  });
  if (seeds.empty())
    return;

  // The values that take the layout: forward from the seeds through the
  // ops that can run in it.
  llvm::SetVector<Value> joined;
  SmallVector<Value> work;
  auto join = [&](Value v) {
    if (!hasLayout(v) && joined.insert(v))
      work.push_back(v);
  };
  for (ConvertLayoutOp cvt : seeds)
    join(cvt.getResult());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses())
      for (Value r : joinsWith(use.getOwner(), use))
        join(r);
  }
  auto inLayout = [&](Value v) { return hasLayout(v) || joined.contains(v); };

  // Operands from outside: splats, constants and row/column broadcasts are
  // made in the layout where they are used; anything else moves in.
  // `x` made again in the layout at `b`: splats, splat constants,
  // row/column broadcasts, and elementwise ops of those (a causal mask
  // `cols[None, :] <= rows[:, None]`), each element computed where its
  // register is; null for anything else.
  std::function<Value(OpBuilder &, Value, unsigned)> remake =
      [&](OpBuilder &b, Value x, unsigned depth) -> Value {
    Operation *def = x.getDefiningOp();
    if (!def || depth > 8)
      return Value();
    Type type = withLayout(x.getType());
    if (isa<SplatOp>(def) ||
        (isa<arith::ConstantOp>(def) &&
         isa<SplatElementsAttr>(cast<arith::ConstantOp>(def).getValue())))
      return rebuildInLayout(b, x, type);
    if (auto bc = dyn_cast<BroadcastOp>(def)) {
      ArrayRef<int64_t> src = bc.getSrc().getType().getShape();
      return src.size() == 2 && (src[0] == 1 || src[1] == 1)
                 ? rebuildInLayout(b, x, type)
                 : Value();
    }
    if (!isa_and_nonnull<arith::ArithDialect>(def->getDialect()) ||
        def->getNumResults() != 1 || def->getNumRegions() != 0)
      return Value();
    IRMapping map;
    for (Value operand : def->getOperands()) {
      if (!isTile(operand))
        continue;
      Value made = remake(b, operand, depth + 1);
      if (!made)
        return Value();
      map.map(operand, made);
    }
    Operation *copy = b.clone(*def, map);
    copy->getResult(0).setType(type);
    return copy->getResult(0);
  };
  auto bringIn = [&](OpOperand &operand, Type type) {
    Value x = operand.get();
    Operation *user = operand.getOwner();
    OpBuilder b(user);
    if (auto loop = dyn_cast<scf::ForOp>(user))
      b.setInsertionPoint(loop);
    Operation *def = x.getDefiningOp();
    Value made = remake(b, x, 0);
    operand.set(
        made ? made
             : ConvertLayoutOp::create(b, x.getLoc(), type, x).getResult());
    if (def && def->use_empty())
      def->erase();
  };
  // Users outside: they read a copy in their layout.
  SmallVector<OpOperand *> leaving;
  for (Value v : joined)
    for (OpOperand &use : v.getUses()) {
      if (readsInLayout(use, layout))
        continue;
      SmallVector<Value> r = joinsWith(use.getOwner(), use);
      if (r.empty() || !llvm::all_of(r, inLayout))
        leaving.push_back(&use);
    }
  // Retype, then mend the edges.
  for (Value v : joined)
    v.setType(withLayout(v.getType()));
  for (OpOperand *use : leaving) {
    Value v = use->get();
    Operation *user = use->getOwner();
    OpBuilder b(user);
    auto plain = RankedTensorType::get(
        cast<RankedTensorType>(v.getType()).getShape(),
        cast<RankedTensorType>(v.getType()).getElementType());
    use->set(ConvertLayoutOp::create(b, v.getLoc(), plain, v).getResult());
  }
  for (Value v : joined) {
    // The ops that make a joined value: their other tile operands.
    Operation *def = v.getDefiningOp();
    // A branch's result: what each side yields.
    if (auto branch = dyn_cast_or_null<scf::IfOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      for (Region *side : {&branch.getThenRegion(), &branch.getElseRegion()})
        if (!side->empty()) {
          OpOperand &yielded = side->front().getTerminator()->getOpOperand(i);
          if (!inLayout(yielded.get()))
            bringIn(yielded, v.getType());
        }
      continue;
    }
    if (def && !isa<scf::ForOp, ConvertLayoutOp>(def)) {
      for (OpOperand &operand : def->getOpOperands())
        if (isTile(operand.get()) && !inLayout(operand.get()))
          bringIn(operand, withLayout(operand.get().getType()));
      continue;
    }
    // A loop-carried value: its init and its yielded value.
    scf::ForOp loop;
    unsigned i = 0;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      i = arg.getArgNumber() - 1;
    } else if (auto res = dyn_cast<OpResult>(v)) {
      loop = dyn_cast<scf::ForOp>(res.getOwner());
      i = res.getResultNumber();
    }
    if (!loop)
      continue;
    OpOperand &init = loop.getInitArgsMutable()[i];
    if (!inLayout(init.get()))
      bringIn(init, v.getType());
    OpOperand &yielded = loop.getBody()->getTerminator()->getOpOperand(i);
    if (!inLayout(yielded.get()))
      bringIn(yielded, v.getType());
  }
  // The seeds now convert to their own layout.
  for (ConvertLayoutOp cvt : seeds) {
    cvt.getResult().replaceAllUsesWith(cvt.getSrc());
    cvt.erase();
  }
}

//===----------------------------------------------------------------------===//
// The same web, predicted before wgmma is materialized
//===----------------------------------------------------------------------===//

namespace {
/// A dot wgmma will run in its register-A form (kcc::collectStagedDots once
/// B is staged): A computed in registers, 16-bit, whole fragments; B a tile
/// loaded by the dot's loop.
bool registerACandidate(kcc::DotOp dot) {
  bool transposed;
  if (kcc::mmaOperandLoad(dot.getA(), transposed))
    return false;
  kcc::LoadTileOp b = kcc::mmaOperandLoad(dot.getB(), transposed);
  return b && b->getParentOp() == dot->getParentOp() &&
         kcc::registerOperand(
             dot.getA(),
             cast<RankedTensorType>(dot.getB().getType()).getElementType());
}
} // namespace

llvm::DenseSet<Value> kcc::predictRowWiseWeb(Operation *func) {
  llvm::DenseSet<Value> web;
  SmallVector<Value> seeds;
  func->walk([&](scf::ForOp loop) {
    bool candidate = false;
    loop.getBody()->walk(
        [&](DotOp dot) { candidate |= registerACandidate(dot); });
    if (!candidate)
      return;
    loop.getBody()->walk([&](DotOp dot) {
      if (fitsAccumulatorLayout(dot.getType().getShape()))
        seeds.push_back(dot.getResult());
    });
  });
  SmallVector<Value> work;
  for (Value v : accumulatorWeb(seeds))
    if (web.insert(v).second)
      work.push_back(v);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses())
      for (Value r : joinsWith(use.getOwner(), use))
        if (web.insert(r).second)
          work.push_back(r);
  }
  return web;
}

bool kcc::staysInRowWiseWeb(OpOperand &use, const llvm::DenseSet<Value> &web) {
  if (auto dot = dyn_cast<DotOp>(use.getOwner()))
    return use.get() == dot.getC() ||
           (use.get() == dot.getA() && registerACandidate(dot));
  SmallVector<Value> joined = joinsWith(use.getOwner(), use);
  return !joined.empty() &&
         llvm::all_of(joined, [&](Value r) { return web.contains(r); });
}

//===----------------------------------------------------------------------===//
// Row vectors broadcast over an accumulator
//===----------------------------------------------------------------------===//

namespace {
/// Ops cloned per row vector at most: index math, a few loads.
constexpr unsigned kMaxRowOps = 48;

/// What computes a row vector, to be cloned in the accumulator's layout.
struct RowSlice {
  llvm::SetVector<Operation *> ops; // operands first
  bool movable = true; // every load reads memory the kernel never writes
  /// The last op of the block that defines a scalar the slice reads and is
  /// not cloned (a program id): the clones go after it.
  Operation *after = nullptr;
};

bool isRowElementwise(Operation *op) {
  return (isa<kcc::AddPtrOp>(op) ||
          (isa_and_nonnull<arith::ArithDialect>(op->getDialect()) &&
           !isa<arith::ConstantOp>(op))) &&
         op->getNumResults() == 1 && op->getNumRegions() == 0;
}

/// Whether `op` transposes a [1, N] stage read (its only use) to [N, 1].
bool isStageColumn(Operation *op) {
  auto trans = dyn_cast_or_null<kcc::TransOp>(op);
  auto read = trans ? trans.getSrc().getDefiningOp<kcc::SmemLoadOp>()
                    : kcc::SmemLoadOp();
  if (!read || !read->hasOneUse() || read->getBlock() != op->getBlock())
    return false;
  ArrayRef<int64_t> shape = read.getType().getShape();
  return shape.size() == 2 && shape[0] == 1;
}

/// Collects the ops computing `v` for a row vector read in `block`: tiles
/// from splats, splat constants, aranges, expand_dims (to [M, 1]),
/// elementwise ops and loads; scalars of `block` from constants, pure
/// scalar ops and loads (other scalars are read where they are). False when
/// anything else feeds it.
bool collectRowSlice(Value v, Block *block, const kcc::ReadOnlyMemory &ro,
                     RowSlice &slice) {
  Operation *def = v.getDefiningOp();
  bool tile = isa<RankedTensorType>(v.getType());
  if (!tile && (!def || def->getBlock() != block))
    return true; // a scalar from outside: dominates the block
  if (!def || slice.ops.size() >= kMaxRowOps)
    return false;
  // A scalar of the block that is not index math nor a load: read where it
  // is.
  if (!tile && !isa<kcc::LoadOp, arith::ConstantOp>(def) &&
      !isRowElementwise(def)) {
    if (!slice.after || slice.after->isBeforeInBlock(def))
      slice.after = def;
    return true;
  }
  if (slice.ops.contains(def))
    return true;
  bool leaf = isa<kcc::ArangeOp, kcc::SplatOp>(def);
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    if (tile && !isa<SplatElementsAttr>(c.getValue()))
      return false;
    leaf = true;
  }
  auto expand = dyn_cast<kcc::ExpandDimsOp>(def);
  if (expand && expand.getAxis() != 1)
    return false;
  // A [1, N] stage read and transposed: read as the column directly (the
  // clone is an smem_load in the row layout, where the read was; the stage
  // holds this iteration's data until the iteration releases it).
  if (isStageColumn(def)) {
    slice.movable = false;
    slice.ops.insert(def);
    return true;
  }
  bool load = isa<kcc::LoadOp>(def);
  if (!leaf && !expand && !load && !isRowElementwise(def))
    return false;
  if (load && !ro.isReadOnlyLoad(def))
    slice.movable = false;
  for (Value o : def->getOperands())
    if (!collectRowSlice(o, block, ro, slice))
      return false;
  slice.ops.insert(def);
  return true;
}

/// Whether no op strictly between `from` and `to` (same block) may write
/// memory.
bool noWritesBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isa<kcc::LoadOp>(op) && !isMemoryEffectFree(op))
      return false;
  return true;
}

/// See kcc::rematerializeRowVectors; false when `bc` keeps its source.
bool rematerializeRow(kcc::BroadcastOp bc, const kcc::ReadOnlyMemory &ro) {
  Block *block = bc->getBlock();
  RowSlice slice;
  if (!collectRowSlice(bc.getSrc(), block, ro, slice))
    return false;
  // Index math alone (an attention mask's row coordinates) is computed per
  // register from the layout's register map after kcc-rematerialize-
  // broadcasts, which costs nothing either: left to it.
  auto reads = [](Operation *op) {
    return isa<kcc::LoadOp>(op) || isStageColumn(op);
  };
  if (llvm::none_of(slice.ops, reads))
    return false;
  // Loads are issued again only when nothing else reads what they feed
  // (no access doubles); a load that may see a write moves nowhere.
  llvm::DenseSet<Operation *> fromLoad;
  for (Operation *op : slice.ops) {
    if (!reads(op) && llvm::none_of(op->getOperands(), [&](Value o) {
          return fromLoad.contains(o.getDefiningOp());
        }))
      continue;
    fromLoad.insert(op);
    for (Operation *user : op->getUsers())
      if (user != bc.getOperation() && !slice.ops.contains(user))
        return false;
    if (isa<kcc::LoadOp>(op) && !slice.movable &&
        (op->getBlock() != block || !noWritesBetween(op, bc)))
      return false;
  }
  Attribute layout = bc.getType().getEncoding();
  OpBuilder b(bc);
  if (slice.movable && slice.after)
    b.setInsertionPointAfter(slice.after);
  else if (slice.movable)
    b.setInsertionPointToStart(block);
  IRMapping map;
  for (Operation *op : slice.ops) {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (isStageColumn(op)) {
      auto read =
          cast<kcc::TransOp>(op).getSrc().getDefiningOp<kcc::SmemLoadOp>();
      auto column = kcc::SmemLoadOp::create(
          b, read.getLoc(),
          RankedTensorType::get(type.getShape(), type.getElementType(), layout),
          read.getSrc(), read.getStage());
      map.map(op->getResult(0), column.getResult());
      continue;
    }
    Operation *clone = b.clone(*op, map);
    if (!type)
      continue;
    auto retyped =
        RankedTensorType::get(type.getShape(), type.getElementType(), layout);
    clone->getResult(0).setType(retyped);
    if (auto c = dyn_cast<arith::ConstantOp>(clone))
      c.setValueAttr(SplatElementsAttr::get(
          retyped,
          cast<SplatElementsAttr>(c.getValue()).getSplatValue<Attribute>()));
  }
  bc.getSrcMutable().set(map.lookup(bc.getSrc()));
  // The originals the loads fed are dead now: erased, users first (a stage
  // column's read with its transpose).
  for (Operation *op : llvm::reverse(slice.ops))
    if (fromLoad.contains(op) && op->use_empty()) {
      Operation *read = isStageColumn(op)
                            ? cast<kcc::TransOp>(op).getSrc().getDefiningOp()
                            : nullptr;
      op->erase();
      if (read && read->use_empty())
        read->erase();
    }
  return true;
}
} // namespace

void kcc::rematerializeRowVectors(Operation *func, Attribute layout) {
  auto fn = dyn_cast<func::FuncOp>(func);
  if (!fn)
    return;
  SmallVector<BroadcastOp> rows;
  func->walk([&](BroadcastOp bc) {
    auto src = bc.getSrc().getType();
    if (bc.getType().getEncoding() == layout && !src.getEncoding() &&
        src.getRank() == 2 && src.getShape()[1] == 1 &&
        src.getShape()[0] % 64 == 0)
      rows.push_back(bc);
  });
  if (rows.empty())
    return;
  kcc::ReadOnlyMemory ro(fn);
  for (BroadcastOp bc : rows)
    rematerializeRow(bc, ro);
}

void kcc::foldRelayoutRoundTrips(Operation *func) {
  SmallVector<ConvertLayoutOp> relayouts;
  func->walk([&](ConvertLayoutOp cvt) { relayouts.push_back(cvt); });
  llvm::SmallPtrSet<Operation *, 8> erased;
  for (ConvertLayoutOp back : relayouts) {
    if (erased.contains(back))
      continue;
    auto there = back.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!there || there.getSrc().getType() != back.getType())
      continue;
    back.getResult().replaceAllUsesWith(there.getSrc());
    erased.insert(back);
    back.erase();
    if (there->use_empty()) {
      erased.insert(there);
      there.erase();
    }
  }
}
