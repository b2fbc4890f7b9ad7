//===- DeferBlockPromotion.cpp - promote a K block's product a step late --===//
//
// kcc-defer-block-promotion (Passes.td). With FP8 block scales each K
// block's product starts from zero and is scaled into an f32 running sum:
//   P_k = A_k B_k^T (wgmma) ; acc += P_k * s_k
// Promoting P_k in its own iteration waits for it, so the tensor cores idle
// from its last instruction to the next block's first while the promotion
// runs and the next product is issued. Here P_k is promoted in iteration
// k + 1, after P_{k+1} is issued: one product is always in flight.
//
// Two products in flight at once need two register sets, and a product
// still in flight at the loop's back edge must sit in the registers the next
// trip expects (a copy of registers the tensor cores are writing would make
// ptxas serialize every wgmma of the kernel). So the loop runs two
// iterations per trip, the first product in one set, the second in the
// other, and only the second is carried in flight:
//   prologue:  iteration lb (its product retired there: only the back edge
//              may carry one in flight)
//   each trip: iteration j: issue P_j, retire P_{j-1} (wait 1), promote
//              it, the rest of iteration j; iteration j + 1 likewise
//   epilogue:  an even trip count's last iteration, as in a trip; then
//              retire the last product (wait 0) and promote it
// What a promotion reads besides its product and the sum is carried from the
// product's iteration as loaded (the scales' loads have a whole iteration to
// land); the pure work on it (the product of the two scales, its broadcast)
// is made again beside the promotion. The pipeliner releases these products'
// stages one iteration late (kcc::readPastItsIteration), after the wait that
// retires them; kcc-verify-async-protocol proves it.
//
// Opt-in (kcc --late-promotion): on an H200 it measured within 5 % of the
// promotion in its iteration, either way; once the scales no longer go
// through shared memory the loop waits on its TMA loads instead
// (docs/gemm.md "FP8").
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

namespace kcc {
#define GEN_PASS_DEF_KCCDEFERBLOCKPROMOTION
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;
namespace pl = kcc::pipelining;

namespace {

/// A loop the pass rewrites, and what it found in it.
struct Site {
  scf::ForOp loop;
  kcc::WarpgroupMmaOp mma;
  kcc::Promotion promotion;
  int64_t step = 1;
  /// The pure ops of the body (arith, broadcasts, splats) the promotion
  /// reads, made again beside it, in body order.
  llvm::SetVector<Operation *> remade;
  /// The values of the product's iteration the promotion reads besides: loads
  /// and loop arguments.
  llvm::SetVector<Value> carried;
};

bool issuesProducts(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<kcc::WarpgroupMmaOp, kcc::WarpgroupMmaRegAOp,
                   kcc::WarpgroupMmaWaitOp, kcc::WarpMmaOp, kcc::DotOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

std::optional<Site> match(scf::ForOp loop) {
  Site s;
  s.loop = loop;
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (auto mma = dyn_cast<kcc::WarpgroupMmaOp>(op)) {
      if (s.mma)
        return std::nullopt;
      s.mma = mma;
    } else if (issuesProducts(&op)) {
      return std::nullopt;
    }
  }
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!s.mma || s.mma.getPending() != 0 || !step || *step <= 0 ||
      !loop.getInductionVar().getType().isInteger(32))
    return std::nullopt;
  s.step = *step;
  std::optional<kcc::Promotion> promotion =
      kcc::promotedIntoCarriedSum(s.mma.getResult(), s.mma.getAcc(), loop);
  if (!promotion)
    return std::nullopt;
  s.promotion = std::move(*promotion);
  Value sum = loop.getRegionIterArgs()[s.promotion.slot];
  std::function<void(Value)> readBesides = [&](Value v) {
    if (v == sum || v == s.mma.getResult())
      return;
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body) {
      s.carried.insert(v);
      return;
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || s.promotion.ops.contains(def))
      return;
    // Pure work on what the iteration loaded is made again beside the
    // promotion, and the loaded values are carried: a scale's loads then
    // have a whole iteration to land before anything reads them (computed
    // in their own iteration, the product of two scales waited there for
    // them: 18 % of the consumers' stall samples on an H200).
    bool pure =
        isa<kcc::BroadcastOp, kcc::ExpandDimsOp, kcc::SplatOp, kcc::AddPtrOp>(
            def) ||
        (isa_and_nonnull<arith::ArithDialect>(def->getDialect()) &&
         def->getNumResults() == 1 && def->getNumRegions() == 0);
    if (pure) {
      if (s.remade.insert(def))
        for (Value o : def->getOperands())
          readBesides(o);
      return;
    }
    s.carried.insert(v);
  };
  for (Operation *op : s.promotion.ops)
    for (Value v : op->getOperands())
      readBesides(v);
  SmallVector<Operation *> ordered(s.remade.begin(), s.remade.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  s.remade = llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
  // The promotion must run in the accumulator's registers: a row scale
  // relaid through shared memory (read from a TMA stage by threads) puts
  // barriers and scratch accesses between a product's issue and its
  // retirement, and ptxas then serialized every wgmma of the kernel (C7514).
  auto inLayout = [&](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return !t || t.getEncoding() ==
                     cast<RankedTensorType>(sum.getType()).getEncoding();
  };
  for (Operation *op : s.remade)
    if (isa<kcc::BroadcastOp>(op) && !inLayout(op->getOperand(0))) {
      s.mma->setAttr(kcc::KccDialect::kDeferRefusedAttr,
                     StringAttr::get(loop.getContext(),
                                     "promoted in its iteration: the row "
                                     "vector it is scaled by moves through "
                                     "shared memory (it is not computed in "
                                     "the accumulator's row layout; load it "
                                     "through pointers instead of a tile)"));
      return std::nullopt;
    }
  // The same for the barrier behind which the consumers release a stage
  // they read (a TMA-staged row of scales): with it between a product's
  // issue and its retirement, ptxas serialized the kernel's wgmmas (C7514).
  if (loop.getBody()
          ->walk([](kcc::CtaBarrierOp) { return WalkResult::interrupt(); })
          .wasInterrupted()) {
    s.mma->setAttr(kcc::KccDialect::kDeferRefusedAttr,
                   StringAttr::get(loop.getContext(),
                                   "promoted in its iteration: the loop "
                                   "releases a stage the threads read behind "
                                   "a barrier, which would fall between a "
                                   "product's issue and its retirement (ptxas "
                                   "then serializes the wgmmas; load the "
                                   "scales through pointers instead of a "
                                   "tile)"));
    return std::nullopt;
  }
  // Live together while a product is promoted: the sum, the product and
  // the next product in flight, and the tiles carried (row vectors are a
  // few registers).
  int64_t live = pl::accumulatorRegisters(sum) +
                 2 * pl::accumulatorRegisters(s.mma.getResult());
  for (Value v : s.carried)
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && isa_and_nonnull<kcc::WgmmaAccLayoutAttr>(t.getEncoding()) &&
        !kcc::isWgmmaRowSlice(t.getShape()))
      live += pl::accumulatorRegisters(v);
  if (int64_t budget = pl::tileRegisterBudget(loop); live > budget) {
    s.mma->setAttr(
        kcc::KccDialect::kDeferRefusedAttr,
        StringAttr::get(loop.getContext(),
                        "promoted in its iteration: promoted one iteration "
                        "late, it would keep " +
                            Twine(live) +
                            " registers a thread of tiles live together (the "
                            "sum and two products), more than the " +
                            Twine(budget) + " the consumer has for them"));
    return std::nullopt;
  }
  return s;
}

void defer(Site &s) {
  // Copied onto each clone of the product: --report says which were moved.
  s.mma->setAttr(kcc::KccDialect::kPromotedLateAttr,
                 UnitAttr::get(s.mma->getContext()));
  scf::ForOp loop = s.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Value iv = loop.getInductionVar(), lb = loop.getLowerBound(),
        ub = loop.getUpperBound();
  unsigned slot = s.promotion.slot, slots = loop.getNumRegionIterArgs();
  ValueRange iterArgs = loop.getRegionIterArgs();

  // The promotion of `product` into `sum`, with the values its iteration
  // carried.
  auto promote = [&](OpBuilder &b, Value sum, Value product,
                     ValueRange carried) {
    IRMapping map;
    map.map(iterArgs[slot], sum);
    map.map(s.mma.getResult(), product);
    for (auto [v, c] : llvm::zip(s.carried, carried))
      map.map(v, c);
    for (Operation *op : s.remade)
      b.clone(*op, map);
    for (Operation *op : s.promotion.ops)
      b.clone(*op, map);
    return map.lookup(yield.getOperand(slot));
  };
  // A broadcast the promotion makes again beside it, which nothing else
  // reads.
  auto onlyPromotes = [&](Operation *op) {
    return s.remade.contains(op) &&
           llvm::all_of(op->getUsers(), [&](Operation *u) {
             return s.promotion.ops.contains(u) || s.remade.contains(u);
           });
  };
  // An iteration without its promotion (`map` gives its induction variable
  // and iter_args); its product gets `pending`, and `issued` runs right after
  // it. Returns the product.
  auto iterate = [&](OpBuilder &b, IRMapping &map, unsigned pending,
                     llvm::function_ref<void(Value)> issued) {
    Value product;
    for (Operation &op : body->without_terminator()) {
      if (s.promotion.ops.contains(&op) || onlyPromotes(&op))
        continue;
      Operation *copy = b.clone(op, map);
      if (&op != s.mma.getOperation())
        continue;
      cast<kcc::WarpgroupMmaOp>(copy).setPending(pending);
      product = copy->getResult(0);
      if (issued)
        issued(product);
    }
    return product;
  };
  auto mapped = [](IRMapping &map, auto values) {
    SmallVector<Value> out;
    for (Value v : values)
      out.push_back(map.lookupOrDefault(v));
    return out;
  };
  auto retire = [&](OpBuilder &b, unsigned pending, Value product) {
    return kcc::WarpgroupMmaWaitOp::create(b, loc, pending, ValueRange{product})
        .getResult(0);
  };

  // Nothing runs when the loop does not: its results are its inits.
  scf::IfOp guard = pl::guardLoopRuns(loop);
  OpBuilder tb = OpBuilder::atBlockEnd(&guard.getThenRegion().front());

  // Prologue: iteration lb, its product retired there (only the back edge
  // may carry one in flight: moving registers the tensor cores still write
  // into the loop's would make ptxas serialize every wgmma, C7514).
  Value step = pl::constI32(tb, loc, s.step);
  IRMapping pro;
  pro.map(iv, lb);
  pro.map(iterArgs, loop.getInitArgs());
  Value firstProduct = iterate(tb, pro, /*pending=*/0, nullptr);
  SmallVector<Value> inits = mapped(pro, yield.getOperands());
  inits[slot] = loop.getInitArgs()[slot];
  inits.push_back(firstProduct);
  llvm::append_range(inits, mapped(pro, s.carried));

  // Two iterations per trip, each retiring and promoting the product before
  // its own: (n - 1) / 2 trips from lb + step.
  Value trips = pl::tripCount(tb, loc, lb, ub, s.step);
  Value rest = arith::SubIOp::create(tb, loc, trips, pl::constI32(tb, loc, 1));
  Value pairs = arith::DivUIOp::create(tb, loc, rest, pl::constI32(tb, loc, 2));
  Value from = arith::AddIOp::create(tb, loc, lb, step);
  Value to = arith::AddIOp::create(
      tb, loc, from,
      arith::MulIOp::create(tb, loc, pairs, pl::constI32(tb, loc, 2 * s.step)));
  unsigned carriedCount = s.carried.size();
  // Iteration `at` (its values in `map`), retiring and promoting `prev`
  // after issuing its own product; returns that product.
  auto stepOver = [&](OpBuilder &bb, IRMapping &map, Value &sum, Value prev,
                      ArrayRef<Value> prevCarried) {
    return iterate(bb, map, /*pending=*/1, [&](Value) {
      sum = promote(bb, sum, retire(bb, 1, prev), prevCarried);
    });
  };
  auto trips2 = scf::ForOp::create(
      tb, loc, from, to, pl::constI32(tb, loc, 2 * s.step), inits,
      [&](OpBuilder &bb, Location, Value j, ValueRange args) {
        Value sum = args[slot], prev = args[slots];
        SmallVector<Value> prevCarried(args.drop_front(slots + 1));
        SmallVector<Value> others(args.take_front(slots));
        for (int64_t half = 0; half < 2; ++half) {
          IRMapping map;
          map.map(iv, half ? arith::AddIOp::create(bb, loc, j, step).getResult()
                           : j);
          map.map(iterArgs, others);
          prev = stepOver(bb, map, sum, prev, prevCarried);
          others = mapped(map, yield.getOperands());
          prevCarried = mapped(map, s.carried);
        }
        others[slot] = sum;
        others.push_back(prev);
        llvm::append_range(others, prevCarried);
        scf::YieldOp::create(bb, loc, others);
      });
  trips2->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  trips2.setUnsignedCmp(loop.getUnsignedCmp());

  // Epilogue: an even trip count leaves one iteration (at `to`), which
  // retires the loop's last product; then the last product is retired and
  // promoted. Both branches yield retired values only.
  Value odd = arith::CmpIOp::create(
      tb, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(tb, loc, rest, pl::constI32(tb, loc, 1)),
      pl::constI32(tb, loc, 0));
  auto tail = scf::IfOp::create(tb, loc, loop.getResultTypes(), odd,
                                /*withElseRegion=*/true);
  ValueRange loopOut = trips2.getResults();
  auto finish = [&](OpBuilder &bb, SmallVector<Value> others, Value sum,
                    Value last, ValueRange lastCarried) {
    others[slot] = promote(bb, sum, retire(bb, 0, last), lastCarried);
    scf::YieldOp::create(bb, loc, others);
  };
  {
    OpBuilder ob = OpBuilder::atBlockEnd(&tail.getThenRegion().front());
    IRMapping map;
    map.map(iv, to);
    map.map(iterArgs, loopOut.take_front(slots));
    Value sum = loopOut[slot];
    SmallVector<Value> prevCarried(loopOut.slice(slots + 1, carriedCount));
    Value last = stepOver(ob, map, sum, loopOut[slots], prevCarried);
    finish(ob, mapped(map, yield.getOperands()), sum, last,
           mapped(map, s.carried));
    OpBuilder eb2 = OpBuilder::atBlockEnd(&tail.getElseRegion().front());
    finish(eb2, SmallVector<Value>(loopOut.take_front(slots)), loopOut[slot],
           loopOut[slots], loopOut.slice(slots + 1, carriedCount));
  }
  scf::YieldOp::create(tb, loc, tail.getResults());

  loop->replaceAllUsesWith(guard.getResults());
  loop->erase();
}

struct DeferBlockPromotion
    : kcc::impl::KccDeferBlockPromotionBase<DeferBlockPromotion> {
  void runOnOperation() override {
    SmallVector<Site> sites;
    getOperation().walk([&](scf::ForOp loop) {
      if (std::optional<Site> s = match(loop))
        sites.push_back(std::move(*s));
    });
    for (Site &s : sites)
      defer(s);
  }
};

} // namespace
