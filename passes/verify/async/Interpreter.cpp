//===- Interpreter.cpp - structured-control-flow interpreter --------------===//
//
// Executes scf.for, scf.if and integer arith for one argument choice, and
// hands every async op to its transfer rule. Control flow is executed from
// explicit frames rather than by recursion, so that a role of
// kcc.warp_specialize can stop at any op and be resumed by the role
// scheduler.
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/RoleScheduler.h"
#include "passes/verify/async/Rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kcc::verify {

Interpreter::Interpreter(func::FuncOp func,
                         const llvm::DenseMap<Value, int64_t> &args,
                         const llvm::DenseMap<Operation *, bool> *branches,
                         Role firstRole)
    : func(func), branches(branches), firstRole(firstRole) {
  int64_t depth = 1;
  unsigned values = func.getNumArguments();
  func.walk([&](Operation *op) {
    values += op->getNumResults();
    if (auto a = dyn_cast<kcc::SmemAllocOp>(op))
      depth = std::max<int64_t>(depth, a.getType().getStages());
  });
  // One allocation instead of growing through every power of two: the
  // verifier builds an interpreter per choice.
  env.reserve(values);
  tileCap = 2 * std::min<int64_t>(depth, 16) + 2;
  for (auto [v, c] : args)
    if (isa<OpResult>(v))
      chosenIds[v] = c;
  for (BlockArgument a : func.getArguments()) {
    auto it = args.find(a);
    if (it != args.end())
      slot(a) = constant(it->second);
    else if (scalarWidth(a.getType()))
      slot(a) = fresh();
  }
}

bool Interpreter::run() {
  Region &body = func.getBody();
  if (!body.hasOneBlock()) {
    fail(func.getLoc(),
         "cannot prove the async protocol of a function "
         "with unstructured control flow",
         "use scf.for / scf.if");
    return false;
  }
  Block &entry = body.front();
  conts[Cta].frames.push_back({Frame::Body, &entry, entry.begin()});
  return advance(conts[Cta]) == Outcome::Done && checkExit(*this);
}

llvm::SmallVector<Scalar> Interpreter::evaluate(ArrayRef<Operation *> ops,
                                                ArrayRef<Value> observed) {
  for (Operation *op : ops)
    evalScalar(op);
  llvm::SmallVector<Scalar> values;
  for (Value v : observed)
    values.push_back(get(v));
  return values;
}

bool Interpreter::readsOperands(Operation *op) {
  if (isAsyncOp(op) || op->getNumRegions() > 0 ||
      op->hasTrait<OpTrait::IsTerminator>())
    return true;
  // evalScalar's condition.
  return op->getNumResults() == 1 && scalarWidth(op->getResult(0).getType());
}

//===----------------------------------------------------------------------===//
// Scalars and diagnostics
//===----------------------------------------------------------------------===//

Scalar Interpreter::fresh() {
  Scalar s;
  s.terms.push_back({nextSym++, 1});
  return s;
}

Scalar Interpreter::get(Value v) {
  if (const Scalar *s = lookup(v))
    return *s;
  // Integers produced by ops the verifier does not model are opaque.
  Scalar s = fresh();
  slot(v) = s;
  return s;
}

const Scalar *Interpreter::lookup(Value v) const {
  // Consumer group 1 runs the consumer region's ops a second time: its
  // values first, then what the CTA computed before the split.
  if (current == Consumer2) {
    auto it = env2.find(v);
    if (it != env2.end())
      return &it->second;
  }
  auto it = env.find(v);
  return it == env.end() ? nullptr : &it->second;
}

std::string Interpreter::context(int r) const {
  if (!hasLoops(conts[r]))
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << " (loop iteration with induction variable ";
  bool first = true;
  for (const Frame &f : conts[r].frames) {
    if (f.kind != Frame::LoopBody)
      continue;
    os << (first ? "" : ", ") << f.iv;
    first = false;
  }
  os << ")";
  return s;
}

Diag &Interpreter::fail(Location loc, const llvm::Twine &problem,
                        const llvm::Twine &advice) {
  diag = Diag{loc, problem.str() + context(current), advice.str(), {}};
  return *diag;
}

bool Interpreter::cannotProve(Operation *op, const llvm::Twine &what) {
  fail(op->getLoc(),
       "cannot prove the async protocol: " + what +
           " is not computable from constants, loop induction variables "
           "and the kernel's integer arguments",
       "compute it with arith ops from those (e.g. k % stages, (k / "
       "stages) & 1)");
  return false;
}

std::optional<int64_t> Interpreter::known(Operation *op, Value v,
                                          const llvm::Twine &what) {
  Scalar s = get(v);
  if (!s.isConst()) {
    cannotProve(op, what);
    return std::nullopt;
  }
  return s.c;
}

Location Interpreter::exitLoc() const {
  return returnOp ? returnOp->getLoc() : func->getLoc();
}

//===----------------------------------------------------------------------===//
// Continuations
//===----------------------------------------------------------------------===//

void Interpreter::startRole(Role r, Block *body) {
  conts[r] = Continuation();
  if (r == Consumer2)
    env2.clear();
  if (body)
    conts[r].frames.push_back({Frame::Body, body, body->begin()});
}

Outcome Interpreter::resume(Role r) {
  current = r;
  return advance(conts[r]);
}

kcc::MBarrierWaitOp Interpreter::blockedWait(Role r) const {
  const Continuation &c = conts[r];
  if (!c.atBlockedWait || c.frames.empty())
    return nullptr;
  return cast<kcc::MBarrierWaitOp>(&*c.frames.back().next);
}

void Interpreter::setScheduler(RoleScheduler *s) {
  scheduler = s;
  if (!s) {
    // The roles are over (or abandoned after a failure): the CTA goes on.
    current = Cta;
    conts[Producer] = Continuation();
    conts[Consumer] = Continuation();
    conts[Consumer2] = Continuation();
  }
}

bool Interpreter::hasLoops(const Continuation &c) const {
  return llvm::any_of(c.frames,
                      [](const Frame &f) { return f.kind == Frame::LoopBody; });
}

Operation *Interpreter::outermostLoop(const Continuation &c) const {
  for (const Frame &f : c.frames)
    if (f.kind == Frame::LoopBody)
      return f.owner;
  return nullptr;
}

Outcome Interpreter::advance(Continuation &c) {
  while (!c.frames.empty()) {
    Frame &f = c.frames.back();
    if (f.next == f.block->end()) {
      // A region without terminator (kcc.warp_specialize's) ends here.
      if (std::optional<Outcome> o = endBlock(c, nullptr))
        return *o;
      continue;
    }
    Operation *op = &*f.next;
    // A role resumed at the wait that blocked it re-checks the wait only:
    // its step was counted when it first reached it.
    if (!c.atBlockedWait) {
      if (++steps > kMaxSteps) {
        outOfSteps = true;
        Operation *outer = outermostLoop(c);
        fail((outer ? outer : op)->getLoc(),
             "cannot prove the async protocol: the verifier executes at most " +
                 llvm::Twine(kMaxSteps) +
                 " operations per kernel and this one needs more",
             "use a smaller constant trip count or split the loop");
        return Outcome::Failed;
      }
      if (op->hasTrait<OpTrait::IsTerminator>()) {
        if (isa<func::ReturnOp>(op))
          returnOp = op;
        if (std::optional<Outcome> o = endBlock(c, op))
          return *o;
        continue;
      }
    }
    c.atBlockedWait = false;
    // A role stops at a wait whose phase cannot complete yet; the
    // scheduler decides who runs next.
    if (current != Cta)
      if (auto w = dyn_cast<kcc::MBarrierWaitOp>(op);
          w && waitBlocks(*this, w)) {
        c.atBlockedWait = true;
        return Outcome::Blocked;
      }
    switch (exec(c, op)) {
    case Step::Failed:
      return Outcome::Failed;
    case Step::Entered:
      continue;
    case Step::Done:
      break;
    }
    if (std::optional<Outcome> o = finishOp(c))
      return *o;
  }
  return Outcome::Done;
}

std::optional<Outcome> Interpreter::finishOp(Continuation &c) {
  ++c.frames.back().next;
  // Wake-up preemption: the released role runs at once.
  if (current != Cta && scheduler->wakesOther(current))
    return Outcome::Preempted;
  return std::nullopt;
}

/// What loops and branches pass on: integers, and which wgmma group writes
/// an accumulator.
static bool carried(Type t) { return scalarWidth(t) || isWgmmaAccumulator(t); }

Interpreter::Step Interpreter::exec(Continuation &c, Operation *op) {
  if (!accumulatorsRetired(*this, op))
    return Step::Failed;
  if (auto ws = dyn_cast<kcc::WarpSpecializeOp>(op))
    return RoleScheduler(*this, ws, firstRole).run() ? Step::Done
                                                     : Step::Failed;
  // A loop or branch without async ops leaves the protocol's state alone:
  // skipped, its results opaque (its bounds or condition may come from
  // loaded values).
  if (isa<scf::ForOp, scf::IfOp>(op) && !containsAsyncOp(op))
    return Step::Done;
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return enterFor(c, forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return enterIf(c, ifOp);
  if (isAsyncOp(op))
    return transfer(*this, op) ? Step::Done : Step::Failed;
  if (op->getNumRegions() > 0 && containsAsyncOp(op)) {
    // The frontend's only other region: a `while` loop, whose trip count
    // the verifier cannot know.
    bool isWhile = isa<scf::WhileOp>(op);
    fail(op->getLoc(),
         isWhile ? std::string("cannot prove the async protocol inside a "
                               "while loop (its trip count is not known)")
                 : "cannot prove the async protocol inside '" +
                       op->getName().getStringRef().str() + "'",
         isWhile ? "move the TMA-staged tiles out of the while loop, or "
                   "write it as a for loop over a bound"
                 : "the verifier follows scf.for and scf.if only");
    return Step::Failed;
  }
  evalScalar(op);
  return Step::Done;
}

llvm::SmallVector<Scalar> Interpreter::yieldedValues(Operation *terminator) {
  llvm::SmallVector<Scalar> values;
  if (terminator)
    for (Value v : terminator->getOperands())
      values.push_back(carried(v.getType()) ? get(v) : Scalar());
  return values;
}

std::optional<Outcome> Interpreter::endBlock(Continuation &c,
                                             Operation *terminator) {
  Frame &f = c.frames.back();
  if (f.kind == Frame::Body) {
    c.frames.pop_back();
    return std::nullopt;
  }
  llvm::SmallVector<Scalar> yielded = yieldedValues(terminator);
  if (f.kind == Frame::IfBody) {
    Operation *ifOp = f.owner;
    c.frames.pop_back();
    for (auto [res, val] : llvm::zip(ifOp->getResults(), yielded))
      if (carried(res.getType()))
        slot(res) = val;
    return finishOp(c);
  }
  // The next iteration, unless the induction variable overflows (which
  // ends the loop) or reaches the upper bound.
  int64_t nextIv = wrap(addWrap(f.iv, f.step), f.width);
  bool overflow = f.isUnsigned
                      ? asUnsigned(nextIv, f.width) <= asUnsigned(f.iv, f.width)
                      : nextIv <= f.iv;
  if (!overflow) {
    ++f.trip;
    bool less = f.isUnsigned
                    ? asUnsigned(nextIv, f.width) < asUnsigned(f.ub, f.width)
                    : nextIv < f.ub;
    if (less) {
      f.iv = nextIv;
      beginIteration(f, yielded);
      return std::nullopt;
    }
  }
  auto forOp = cast<scf::ForOp>(f.owner);
  int64_t trip = f.trip, start = f.start;
  c.frames.pop_back();
  finishLoop(c, forOp, trip, start, yielded);
  return finishOp(c);
}

Interpreter::Step Interpreter::enterFor(Continuation &c, scf::ForOp forOp) {
  // A persistent kernel's tile loop (from the launch id by the launch's
  // extent) runs as program 0 of a one-program launch would: every tile,
  // up to tileCap of them (see the header).
  // With ping-pong consumer groups, group g's tiles are g, g + 2, ...
  // The loop's bounds (computed from the launch id and extent, opaque here)
  // take those values for the ops that read them.
  bool tiles = forOp->hasAttr(kcc::KccDialect::kPersistentTilesAttr);
  int64_t groups = tiles && scheduler && isConsumer(current)
                       ? scheduler->consumerGroups()
                       : 1;
  if (tiles) {
    slot(forOp.getLowerBound()) = constant(current == Consumer2);
    slot(forOp.getStep()) = constant(groups);
  }
  std::optional<int64_t> lb =
      tiles
          ? std::optional<int64_t>(current == Consumer2)
          : known(forOp, forOp.getLowerBound(), "the lower bound of this loop");
  if (!lb)
    return Step::Failed;
  std::optional<int64_t> ub =
      known(forOp, forOp.getUpperBound(), "the upper bound of this loop");
  if (!ub)
    return Step::Failed;
  if (tiles)
    ub = std::min(*ub, tileCap);
  std::optional<int64_t> step =
      tiles ? std::optional<int64_t>(groups)
            : known(forOp, forOp.getStep(), "the step of this loop");
  if (!step)
    return Step::Failed;
  unsigned width = scalarWidth(forOp.getInductionVar().getType());
  if (*step <= 0) {
    fail(forOp.getLoc(),
         "cannot prove the async protocol: the loop step " +
             llvm::Twine(*step) + " is not positive",
         "use a positive step");
    return Step::Failed;
  }
  bool isUnsigned = forOp.getUnsignedCmp();
  llvm::SmallVector<Scalar> iter;
  for (Value v : forOp.getInitArgs())
    iter.push_back(carried(v.getType()) ? get(v) : Scalar());
  bool less =
      isUnsigned ? asUnsigned(*lb, width) < asUnsigned(*ub, width) : *lb < *ub;
  if (!less) {
    finishLoop(c, forOp, /*trip=*/0, /*start=*/steps, iter);
    return Step::Done;
  }
  Block *body = forOp.getBody();
  Frame f{Frame::LoopBody, body, body->begin(), forOp};
  f.iv = *lb;
  f.ub = *ub;
  f.step = *step;
  f.start = steps;
  f.width = width;
  f.isUnsigned = isUnsigned;
  c.frames.push_back(f);
  beginIteration(c.frames.back(), iter);
  return Step::Entered;
}

void Interpreter::beginIteration(Frame &f, llvm::ArrayRef<Scalar> iter) {
  auto forOp = cast<scf::ForOp>(f.owner);
  slot(forOp.getInductionVar()) = constant(f.iv);
  for (auto [arg, val] : llvm::zip(forOp.getRegionIterArgs(), iter))
    if (carried(arg.getType()))
      slot(arg) = val;
  f.next = f.block->begin();
}

void Interpreter::finishLoop(Continuation &c, scf::ForOp forOp, int64_t trip,
                             int64_t start, llvm::ArrayRef<Scalar> iter) {
  for (auto [res, val] : llvm::zip(forOp.getResults(), iter))
    if (carried(res.getType()))
      slot(res) = val;
  if (!hasLoops(c)) {
    topLoop = forOp;
    topTrip = trip;
    topStart = start;
  }
}

Interpreter::Step Interpreter::enterIf(Continuation &c, scf::IfOp ifOp) {
  // A data-dependent branch: the caller chose a side (every side is
  // verified, in separate runs).
  auto chosen = branches ? branches->find(ifOp)
                         : llvm::DenseMap<Operation *, bool>::const_iterator();
  std::optional<int64_t> cond =
      branches && chosen != branches->end()
          ? std::optional<int64_t>(chosen->second)
          : known(ifOp, ifOp.getCondition(), "the condition of this scf.if");
  if (!cond)
    return Step::Failed;
  Region &region = *cond ? ifOp.getThenRegion() : ifOp.getElseRegion();
  if (region.empty())
    return Step::Done;
  Block &block = region.front();
  c.frames.push_back({Frame::IfBody, &block, block.begin(), ifOp});
  return Step::Entered;
}

//===----------------------------------------------------------------------===//
// Integer arithmetic
//===----------------------------------------------------------------------===//

void Interpreter::evalScalar(Operation *op) {
  if (op->getNumResults() != 1)
    return; // results stay unevaluated: opaque on use
  Value res = op->getResult(0);
  unsigned w = scalarWidth(res.getType());
  if (!w)
    return;
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
      slot(res) = constant(wrap(ia.getValue().getSExtValue(), w));
    return;
  }
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
  auto setConst = [&](int64_t v) { slot(res) = constant(wrap(v, w)); };
  if (isa<kcc::ConsumerGroupOp>(op))
    return setConst(current == Consumer2 ? 1 : 0);
  if (auto it = chosenIds.find(res); it != chosenIds.end())
    return setConst(it->second);
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op)) {
    Scalar a = operand(0);
    unsigned wa = scalarWidth(op->getOperand(0).getType());
    if (!a.isConst())
      slot(res) = a; // linear forms ignore wrap-around
    else if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
      setConst(static_cast<int64_t>(asUnsigned(a.c, wa)));
    else if (wa == 1)
      setConst(a.c ? -1 : 0);
    else
      setConst(a.c);
    return;
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    Scalar c = get(sel.getCondition());
    if (c.isConst()) {
      slot(res) = c.c ? get(sel.getTrueValue()) : get(sel.getFalseValue());
      return;
    }
    // A choice computed from loaded values (a loop's trip count or none):
    // the caller chose a side, as for data-dependent branches, per
    // condition (every role's copy of it has the same side).
    Operation *key = sel.getCondition().getDefiningOp();
    if (auto chosen = branches && key
                          ? branches->find(key)
                          : llvm::DenseMap<Operation *, bool>::const_iterator();
        branches && key && chosen != branches->end()) {
      slot(res) =
          chosen->second ? get(sel.getTrueValue()) : get(sel.getFalseValue());
      return;
    }
    Scalar t = get(sel.getTrueValue()), f = get(sel.getFalseValue());
    Scalar d = linear(t, f, -1);
    slot(res) = d.isConst() && d.c == 0 ? t : fresh();
    return;
  }
  if (op->getNumOperands() != 2) {
    slot(res) = fresh();
    return;
  }
  Scalar a = operand(0), b = operand(1);
  unsigned wa = scalarWidth(op->getOperand(0).getType());
  // Linear forms: add, sub, mul by a constant.
  if (isa<arith::AddIOp>(op)) {
    Scalar r = linear(a, b, 1);
    r.c = r.isConst() ? wrap(r.c, w) : r.c;
    slot(res) = r;
    return;
  }
  if (isa<arith::SubIOp>(op)) {
    Scalar r = linear(a, b, -1);
    r.c = r.isConst() ? wrap(r.c, w) : r.c;
    slot(res) = r;
    return;
  }
  if (isa<arith::MulIOp>(op)) {
    if (a.isConst() || b.isConst()) {
      Scalar r = a.isConst() ? scaled(b, a.c) : scaled(a, b.c);
      r.c = r.isConst() ? wrap(r.c, w) : r.c;
      slot(res) = r;
    } else {
      slot(res) = fresh();
    }
    return;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    Scalar d = linear(a, b, -1);
    bool both = a.isConst() && b.isConst();
    if (!both && !d.isConst()) {
      slot(res) = fresh();
      return;
    }
    // Symbolic operands with a constant difference compare by it (signed).
    int64_t x = both ? a.c : d.c, y = both ? b.c : 0;
    uint64_t ux = asUnsigned(x, wa), uy = asUnsigned(y, wa);
    bool v = false;
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq:
      v = x == y;
      break;
    case arith::CmpIPredicate::ne:
      v = x != y;
      break;
    case arith::CmpIPredicate::slt:
      v = x < y;
      break;
    case arith::CmpIPredicate::sle:
      v = x <= y;
      break;
    case arith::CmpIPredicate::sgt:
      v = x > y;
      break;
    case arith::CmpIPredicate::sge:
      v = x >= y;
      break;
    case arith::CmpIPredicate::ult:
      v = ux < uy;
      break;
    case arith::CmpIPredicate::ule:
      v = ux <= uy;
      break;
    case arith::CmpIPredicate::ugt:
      v = ux > uy;
      break;
    case arith::CmpIPredicate::uge:
      v = ux >= uy;
      break;
    }
    if (!both && (cmp.getPredicate() != arith::CmpIPredicate::eq &&
                  cmp.getPredicate() != arith::CmpIPredicate::ne &&
                  cmp.getPredicate() != arith::CmpIPredicate::slt &&
                  cmp.getPredicate() != arith::CmpIPredicate::sle &&
                  cmp.getPredicate() != arith::CmpIPredicate::sgt &&
                  cmp.getPredicate() != arith::CmpIPredicate::sge)) {
      slot(res) = fresh(); // unsigned order of symbolic values is unknown
      return;
    }
    setConst(v);
    return;
  }
  if (!a.isConst() || !b.isConst()) {
    slot(res) = fresh();
    return;
  }
  int64_t x = a.c, y = b.c;
  uint64_t ux = asUnsigned(x, wa), uy = asUnsigned(y, wa);
  bool divLike =
      isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op);
  if (divLike && y == 0) {
    slot(res) = fresh(); // undefined: any later use cannot be proven
    return;
  }
  if (divLike && y == -1 && x == INT64_MIN) {
    slot(res) = fresh();
    return;
  }
  if (isa<arith::DivSIOp>(op))
    return setConst(x / y);
  if (isa<arith::DivUIOp>(op))
    return setConst(static_cast<int64_t>(ux / uy));
  if (isa<arith::RemSIOp>(op))
    return setConst(x % y);
  if (isa<arith::RemUIOp>(op))
    return setConst(static_cast<int64_t>(ux % uy));
  if (isa<arith::CeilDivSIOp>(op))
    return setConst(x / y + ((x % y != 0) && ((x < 0) == (y < 0))));
  if (isa<arith::CeilDivUIOp>(op))
    return setConst(static_cast<int64_t>(ux / uy + (ux % uy != 0)));
  if (isa<arith::FloorDivSIOp>(op))
    return setConst(x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
  if (isa<arith::AndIOp>(op))
    return setConst(x & y);
  if (isa<arith::OrIOp>(op))
    return setConst(x | y);
  if (isa<arith::XOrIOp>(op))
    return setConst(x ^ y);
  if (isa<arith::MaxSIOp>(op))
    return setConst(std::max(x, y));
  if (isa<arith::MinSIOp>(op))
    return setConst(std::min(x, y));
  if (isa<arith::MaxUIOp>(op))
    return setConst(static_cast<int64_t>(std::max(ux, uy)));
  if (isa<arith::MinUIOp>(op))
    return setConst(static_cast<int64_t>(std::min(ux, uy)));
  if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
    if (uy >= wa) {
      slot(res) = fresh(); // poison
      return;
    }
    if (isa<arith::ShLIOp>(op))
      return setConst(static_cast<int64_t>(ux << uy));
    if (isa<arith::ShRSIOp>(op))
      return setConst(x >> uy);
    return setConst(static_cast<int64_t>(ux >> uy));
  }
  slot(res) = fresh();
}

} // namespace kcc::verify
