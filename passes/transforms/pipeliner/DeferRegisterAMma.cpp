//===- DeferRegisterAMma.cpp - a loop's second product one iteration late -===//
//
// kcc-defer-register-a-mma (Passes.td). Attention's loop body is
//   S = Q K_j^T (wgmma) ; P = softmax(S) ; O = P V_j + O (wgmma, A = P)
// and each product waits for the one before, so the tensor cores idle while
// the softmax runs. Issuing iteration j's S before iteration j-1's P V lets
// the softmax of S_j run while the tensor cores compute P_{j-1} V_{j-1}:
//   prologue:  S_0, P_0 and everything else of iteration 0 but its P V
//   iteration j (1 .. n-1):
//     S_j (left in flight) ; O_{j-2} rescaled by alpha_{j-1} ;
//     P_{j-1} V_{j-1} into it (in flight, retires S_j) ;
//     the rest of iteration j (the softmax) ; wait for the product
//   epilogue:  O_{n-2} rescaled, P_{n-1} V_{n-1}
// The ops that compute the product's accumulator operand from the loop's
// accumulator (the rescale O * alpha[:, None]) move with the product, so
// nothing in iteration j reads O after the product is issued: the wait for
// it ends the iteration, and ptxas cannot schedule it into the softmax
// (where a rescale right after the softmax put it). The loop carries P,
// the product's result and what the rescale reads besides (alpha, a row
// vector; its broadcast is made again); the product's B stage is the
// previous iteration's, recomputed from the induction variable. Stage
// releases stay where the pipeliner put them, one iteration late, which
// the deferred product's wait comes before (kcc-verify-async-protocol
// proves it).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/PersistentTiles.h"
#include "passes/transforms/pipeliner/LoopPipelining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace kcc {
#define GEN_PASS_DEF_KCCDEFERREGISTERAMMA
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;
namespace pl = kcc::pipelining;

namespace {

/// A loop the pass rewrites, and what it found in it.
struct Chain {
  scf::ForOp loop;
  kcc::WarpgroupMmaOp first;      // S
  kcc::WarpgroupMmaRegAOp second; // the product whose A comes from S
  unsigned slot = 0;              // the iter_arg the product's result feeds
  int64_t step = 1;
  llvm::SetVector<Operation *> stage; // computes its B stage from the iv
  // The ops that compute the product's accumulator operand from the loop's
  // accumulator (they move with the product), in body order, with the
  // broadcasts they read; and the values of the iteration they read besides
  // (carried to the next one).
  llvm::SetVector<Operation *> rescale;
  llvm::SetVector<Value> carried;
};

/// Whether `op` or an op nested in it reads a value of `values`.
bool readsAny(Operation &op, const llvm::DenseSet<Value> &values) {
  return op
      .walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (values.contains(v))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The chain in `loop`, if it has the shape the rewrite needs: one wgmma and
/// then one register-A wgmma directly in the body (none nested), both
/// retiring where they are issued, the second's A operand computed from the
/// first's result, its result only yielded, the loop's accumulator read
/// only on the way to the product's accumulator operand, a constant step,
/// an i32 induction variable and a B stage recomputable from it.
std::optional<Chain> matchChain(scf::ForOp loop) {
  Chain c;
  c.loop = loop;
  Block *body = loop.getBody();
  bool nested = false;
  for (Operation &op : body->without_terminator()) {
    if (auto s = dyn_cast<kcc::WarpgroupMmaOp>(op)) {
      if (c.first || c.second)
        return std::nullopt;
      c.first = s;
    } else if (auto r = dyn_cast<kcc::WarpgroupMmaRegAOp>(op)) {
      if (c.second)
        return std::nullopt;
      c.second = r;
    } else {
      nested |= op.walk([](Operation *inner) {
                    return isa<kcc::WarpgroupMmaOp, kcc::WarpgroupMmaRegAOp,
                               kcc::WarpgroupMmaWaitOp>(inner)
                               ? WalkResult::interrupt()
                               : WalkResult::advance();
                  }).wasInterrupted();
    }
  }
  if (nested || !c.first || !c.second || c.first.getPending() != 0 ||
      c.second.getPending() != 0 ||
      !loop.getInductionVar().getType().isInteger(32))
    return std::nullopt;
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return std::nullopt;
  c.step = *step;
  Value result = c.second.getResult();
  if (!result.hasOneUse() || !isa<scf::YieldOp>(*result.getUsers().begin()))
    return std::nullopt;
  c.slot = result.getUses().begin()->getOperandNumber();
  // A from S: forward from S's result through the ops before the product.
  llvm::DenseSet<Value> fromFirst{c.first.getResult()};
  for (Operation &op : body->without_terminator()) {
    if (&op == c.second.getOperation())
      break;
    if (readsAny(op, fromFirst))
      fromFirst.insert(op.result_begin(), op.result_end());
  }
  if (!fromFirst.contains(c.second.getA()))
    return std::nullopt;
  // The accumulator is read only on the way to the product's accumulator
  // operand (the rescale): those ops move with the product.
  Value acc = loop.getRegionIterArgs()[c.slot];
  llvm::DenseSet<Value> fromAcc{acc};
  for (Operation &op : body->without_terminator()) {
    if (&op == c.second.getOperation() || !readsAny(op, fromAcc))
      continue;
    if (op.getNumRegions() || op.getNumResults() != 1)
      return std::nullopt;
    fromAcc.insert(op.getResult(0));
    c.rescale.insert(&op);
  }
  for (Operation *op : c.rescale)
    for (Operation *user : op->getUsers())
      if (user != c.second.getOperation() && !c.rescale.contains(user))
        return std::nullopt;
  if (!c.rescale.empty() &&
      (c.second.getAcc().getDefiningOp() != c.rescale.back()))
    return std::nullopt;
  // What the rescale reads besides: broadcasts of a row vector are made
  // again next to it, the row vector carried; loop-invariant values read
  // where they are; anything else carried as it is.
  std::function<void(Value)> readBesides = [&](Value v) {
    if (fromAcc.contains(v))
      return;
    // The induction variable and the other iter_args: this iteration's.
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body) {
      c.carried.insert(v);
      return;
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body)
      return;
    if (isa<kcc::BroadcastOp, kcc::ExpandDimsOp, kcc::SplatOp>(def)) {
      readBesides(def->getOperand(0));
      c.rescale.insert(def);
      return;
    }
    c.carried.insert(v);
  };
  for (Operation *op :
       SmallVector<Operation *>(c.rescale.begin(), c.rescale.end()))
    for (Value v : op->getOperands())
      readBesides(v);
  // Body order for the clones.
  SmallVector<Operation *> ordered(c.rescale.begin(), c.rescale.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  c.rescale = llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
  if (!pl::coordinateSlice(c.second.getBStage(), loop, c.stage))
    return std::nullopt;
  // Live together while the deferred product runs: its accumulator, S and
  // the P it reads. The next P does not add to them: the softmax makes it
  // from S element by element, each packed pair replacing two of S's
  // registers.
  int64_t live = pl::accumulatorRegisters(c.second.getResult()) +
                 pl::accumulatorRegisters(c.first.getResult()) +
                 pl::accumulatorRegisters(c.second.getA());
  for (Value v : c.carried)
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && isa_and_nonnull<kcc::WgmmaAccLayoutAttr>(t.getEncoding()))
      live += pl::accumulatorRegisters(v);
  if (int64_t budget = pl::tileRegisterBudget(loop); live > budget) {
    c.second->setAttr(
        kcc::KccDialect::kDeferRefusedAttr,
        StringAttr::get(loop.getContext(),
                        "issued in its iteration: deferred, it would keep " +
                            Twine(live) +
                            " registers a thread of tiles live together (its "
                            "accumulator, the first product's and its A "
                            "operand), more than the " +
                            Twine(budget) + " the consumer has for them"));
    return std::nullopt;
  }
  return c;
}

/// The rescale and the product of `c` for the iteration whose induction
/// variable is `iv`, at `b`: the rescale reads the accumulator `acc` and the
/// carried values `saved`, the B stage is computed again for `iv`.
kcc::WarpgroupMmaRegAOp issueProduct(OpBuilder &b, Chain &c, Value iv,
                                     Value acc, ValueRange saved, Value a,
                                     unsigned pending) {
  IRMapping map;
  map.map(c.loop.getInductionVar(), iv);
  map.map(c.loop.getRegionIterArgs()[c.slot], acc);
  for (auto [v, s] : llvm::zip(c.carried, saved))
    map.map(v, s);
  for (Operation *op : c.rescale)
    b.clone(*op, map);
  for (Operation *op : c.stage)
    b.clone(*op, map);
  kcc::WarpgroupMmaRegAOp r = c.second;
  auto issued = kcc::WarpgroupMmaRegAOp::create(
      b, r.getLoc(), r.getType(), a, r.getB(),
      map.lookupOrDefault(r.getBStage()), map.lookupOrDefault(r.getAcc()),
      r.getBKMajor(), pending);
  if (Attribute turns = r->getAttr(kcc::KccDialect::kTurnsAttr))
    issued->setAttr(kcc::KccDialect::kTurnsAttr, turns);
  return issued;
}

/// The first named barrier of the consumer warpgroups' turns: 0 is the
/// CTA's, 1 and 2 the consumer groups' (kcc.cta_barrier in a consumer).
constexpr int32_t kTurnBarrier = 3;

/// Whether the loop's consumer is two or more warpgroups of one group (the
/// accumulator's rows split among them), which can take turns.
bool sharedByWarpgroups(scf::ForOp loop) {
  auto ws = loop->getParentOfType<kcc::WarpSpecializeOp>();
  return ws && ws.getConsumer().isAncestor(loop->getParentRegion()) &&
         ws.getConsumerWarpgroups() >= 2 && ws.getNumConsumerGroups() == 1;
}

/// Whether the warpgroups sharing `c`'s loop take turns (`mode`: auto, on or
/// off), and a sentence saying so and why, for --report; empty when they
/// cannot.
std::pair<bool, std::string> chooseTurns(Chain &c, StringRef mode) {
  if (!sharedByWarpgroups(c.loop))
    return {false, ""};
  const char *take = "the consumer warpgroups take turns issuing it: ";
  const char *skip = "the consumer warpgroups do not take turns: ";
  if (mode == "on")
    return {true, std::string(take) + "asked for"};
  if (mode == "off")
    return {false, std::string(skip) + "turned off"};
  // The turns pay where one warpgroup's products outlast the other's
  // softmax: with 128-key blocks they gained 1-6 % on an H200 (head_dim 64
  // and 128), with 64-key blocks they lost 1-4 % (docs/attention.md).
  constexpr int64_t kTurnKeys = 128;
  int64_t keys = c.first.getType().getShape()[1];
  if (keys >= kTurnKeys)
    return {true, take + std::to_string(keys) + "-column first products (" +
                      std::to_string(kTurnKeys) +
                      " or more) cover the other warpgroup's softmax"};
  return {false, skip + std::to_string(keys) +
                     "-column first products (below " +
                     std::to_string(kTurnKeys) +
                     ") are too short to cover the other warpgroup's "
                     "softmax, so turns would only add waits"};
}

void defer(Chain &c, StringRef turnsMode) {
  scf::ForOp loop = c.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Value iv = loop.getInductionVar(), lb = loop.getLowerBound(),
        ub = loop.getUpperBound(), step = loop.getStep();
  Operation *product = c.second.getOperation();
  unsigned slots = loop.getNumRegionIterArgs();
  // The rescale's ops that serve only it and the product move with it.
  llvm::DenseSet<Operation *> moved;
  for (Operation *op : llvm::reverse(c.rescale))
    if (llvm::all_of(op->getUsers(), [&](Operation *u) {
          return u == product || moved.contains(u);
        }))
      moved.insert(op);
  auto stays = [&](Operation &op) {
    return &op != product && !moved.contains(&op);
  };
  // Nothing runs when the loop does not: its results are its inits.
  scf::IfOp guard = pl::guardLoopRuns(loop);
  OpBuilder tb = OpBuilder::atBlockEnd(&guard.getThenRegion().front());

  // Iteration lb without its rescale and product.
  IRMapping first;
  first.map(iv, lb);
  for (auto [arg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    first.map(arg, init);
  for (Operation &op : body->without_terminator())
    if (stays(op))
      tb.clone(op, first);
  SmallVector<Value> inits;
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    inits.push_back(i == c.slot ? loop.getInitArgs()[i]
                                : first.lookupOrDefault(v));
  for (Value v : c.carried)
    inits.push_back(first.lookupOrDefault(v));
  inits.push_back(first.lookupOrDefault(c.second.getA()));

  // Iterations lb + step .. ub, each issuing the previous one's product;
  // two warpgroups may take turns issuing them (warpgroup 0 first).
  std::pair<bool, std::string> chosen = chooseTurns(c, turnsMode);
  bool turns = chosen.first;
  if (!chosen.second.empty())
    c.second->setAttr(kcc::KccDialect::kTurnsAttr,
                      StringAttr::get(loop.getContext(), chosen.second));
  auto turn = [&](OpBuilder &at, kcc::WarpgroupTurnKind kind) {
    kcc::WarpgroupTurnOp::create(at, loc, kind, kTurnBarrier);
  };
  // The turns start once per kernel. A persistent kernel starts them before
  // its tile loop: each tile's warpgroups take (trips - 1) turns each, so
  // the last pass of a tile starts the next one's (starting them on every
  // tile would pass one turn too many; the async verifier refuses that).
  if (turns) {
    if (Operation *tiles = kcc::persistentTileLoopOf(loop)) {
      auto before =
          dyn_cast_or_null<kcc::WarpgroupTurnOp>(tiles->getPrevNode());
      if (!before || before.getKind() != kcc::WarpgroupTurnKind::Start) {
        OpBuilder sb(tiles);
        turn(sb, kcc::WarpgroupTurnKind::Start);
      }
    } else {
      turn(tb, kcc::WarpgroupTurnKind::Start);
    }
  }
  Value next = arith::AddIOp::create(tb, loc, lb, step);
  auto rotated = scf::ForOp::create(
      tb, loc, next, ub, step, inits,
      [&](OpBuilder &bb, Location, Value niv, ValueRange args) {
        IRMapping map;
        map.map(iv, niv);
        for (auto [i, old] : llvm::enumerate(loop.getRegionIterArgs()))
          if (i != c.slot)
            map.map(old, args[i]);
        Value pPrev = args.back();
        ValueRange saved = args.slice(slots, c.carried.size());
        kcc::WarpgroupMmaRegAOp deferred;
        Value retired;
        // The product retires (and its A registers are free again) before
        // a stage is released, at the latest at the iteration's end.
        auto retire = [&] {
          if (retired || !deferred)
            return;
          retired = kcc::WarpgroupMmaWaitOp::create(
                        bb, c.second.getLoc(), 0,
                        ValueRange{deferred.getResult(), pPrev})
                        .getResult(0);
        };
        for (Operation &op : body->without_terminator()) {
          if (!stays(op))
            continue;
          if (op.walk([](kcc::MBarrierArriveOp) {
                  return WalkResult::interrupt();
                }).wasInterrupted())
            retire();
          if (turns && &op == c.first.getOperation())
            turn(bb, kcc::WarpgroupTurnKind::Wait);
          Operation *copy = bb.clone(op, map);
          if (&op != c.first.getOperation())
            continue;
          // S stays in flight while the previous iteration's rescale and
          // product are issued; the product's own wait (pending 1) retires
          // S.
          cast<kcc::WarpgroupMmaOp>(copy).setPending(1);
          Value prev = arith::SubIOp::create(bb, loc, niv, step);
          deferred = issueProduct(bb, c, prev, args[c.slot], saved, pPrev, 1);
          if (turns)
            turn(bb, kcc::WarpgroupTurnKind::Pass);
          auto wait = kcc::WarpgroupMmaWaitOp::create(
              bb, c.first.getLoc(), 1, ValueRange{copy->getResult(0)});
          map.map(c.first.getResult(), wait.getResult(0));
        }
        retire();
        SmallVector<Value> out;
        for (auto [i, v] : llvm::enumerate(yield.getOperands()))
          out.push_back(i == c.slot ? retired : map.lookupOrDefault(v));
        for (Value v : c.carried)
          out.push_back(map.lookupOrDefault(v));
        out.push_back(map.lookupOrDefault(c.second.getA()));
        scf::YieldOp::create(bb, loc, out);
      });
  rotated->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  rotated.setUnsignedCmp(loop.getUnsignedCmp());

  // The last iteration's rescale and product.
  Value trips = pl::tripCount(tb, loc, lb, ub, c.step);
  Value last = arith::AddIOp::create(
      tb, loc, lb,
      arith::MulIOp::create(
          tb, loc,
          arith::SubIOp::create(tb, loc, trips, pl::constI32(tb, loc, 1)),
          step));
  kcc::WarpgroupMmaRegAOp tail =
      issueProduct(tb, c, last, rotated.getResult(c.slot),
                   rotated.getResults().slice(slots, c.carried.size()),
                   rotated.getResults().back(), /*pending=*/0);
  SmallVector<Value> results(rotated.getResults().take_front(slots));
  results[c.slot] = tail.getResult();
  scf::YieldOp::create(tb, loc, results);

  loop->replaceAllUsesWith(guard.getResults());
  loop->erase();
}

struct DeferRegisterAMma
    : kcc::impl::KccDeferRegisterAMmaBase<DeferRegisterAMma> {
  using Base::Base;
  void runOnOperation() override {
    StringRef mode = turns;
    if (mode == "true")
      mode = "on";
    else if (mode == "false")
      mode = "off";
    if (mode != "auto" && mode != "on" && mode != "off") {
      getOperation()->emitError("kcc-defer-register-a-mma: turns must be "
                                "auto, on or off, got '")
          << turns << "'";
      return signalPassFailure();
    }
    SmallVector<Chain> chains;
    getOperation().walk([&](scf::ForOp loop) {
      if (std::optional<Chain> c = matchChain(loop))
        chains.push_back(*c);
    });
    for (Chain &c : chains)
      defer(c, mode);
  }
};

} // namespace
