//===- MbarrierRules.cpp - transfer rules of mbarriers --------------------===//
//
// The life cycle of an mbarrier (alloc, init, fence_mbarrier_init, inval)
// and its phases: arrivals and expected transaction bytes arm the pending
// phase, the copies that signal it bring bytes, and a wait needs an armed
// phase of the right parity that completes. A wait in a role also teaches
// it what the arrivals of the observed phase released (Release).
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/RoleScheduler.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

Barrier *barrierAt(Interpreter &in, Operation *op, Value bars, Value index) {
  auto it = in.state.barriers.find(bars);
  if (it == in.state.barriers.end()) {
    in.fail(op->getLoc(),
            "cannot prove the async protocol: this mbarrier array does not "
            "come from a kcc.mbarrier_alloc executed before",
            "use the result of kcc.mbarrier_alloc directly");
    return nullptr;
  }
  std::optional<int64_t> i = in.known(op, index, "the barrier index");
  if (!i)
    return nullptr;
  if (*i < 0 || *i >= static_cast<int64_t>(it->second.size())) {
    in.fail(op->getLoc(),
            "barrier index " + llvm::Twine(*i) + " is out of range for " +
                llvm::Twine(it->second.size()) + " barriers",
            "use an index in [0, " + llvm::Twine(it->second.size()) + ")");
    return nullptr;
  }
  return &it->second[*i];
}

int64_t barrierIndex(Interpreter &in, Value bars, const Barrier *b) {
  return b - in.state.barriers.find(bars)->second.data();
}

bool usable(Interpreter &in, Operation *op, Value bars, Barrier *b,
            bool needFence) {
  std::string name = "barrier #" + std::to_string(barrierIndex(in, bars, b));
  if (b->life == Barrier::Uninit) {
    in.fail(op->getLoc(), "uses " + name + " before kcc.mbarrier_init",
            "initialize it with kcc.mbarrier_init followed by "
            "kcc.fence_mbarrier_init before any other use")
        .notes.push_back({b->allocOp->getLoc(),
                          "the barriers are allocated here, uninitialized"});
    return false;
  }
  if (b->life == Barrier::Dead) {
    in.fail(op->getLoc(),
            "uses " + name + " after kcc.mbarrier_inval ended its life",
            "move the kcc.mbarrier_inval after the last use, or initialize "
            "the barrier again")
        .notes.push_back({b->invalOp->getLoc(), "invalidated here"});
    return false;
  }
  if (needFence && !b->fenced) {
    in.fail(op->getLoc(),
            "uses " + name +
                " before kcc.fence_mbarrier_init made its initialization "
                "visible",
            "add kcc.fence_mbarrier_init after the last kcc.mbarrier_init")
        .notes.push_back({b->initOp->getLoc(), "initialized here"});
    return false;
  }
  return true;
}

/// The phase of `b` completes: every copy signaling it has landed.
static void completePhase(Barrier &b) {
  b.phase++;
  b.lastReleased = b.cur.released;
  b.lastTcCovered = b.cur.tcCovered;
  b.cur = Phase();
}

/// The running role's wait saw `phase` of `b` complete: it learns what the
/// arrivals of that phase released.
static void observe(Interpreter &in, Barrier &b, int64_t phase,
                    const Release &released) {
  b.observed[in.role()] = std::max(b.observed[in.role()], phase);
  b.observedAt[in.role()] = in.now();
  in.state.learned[in.role()].join(released);
}

bool arrive(Interpreter &in, Operation *op, Value bars, Value index,
            int64_t bytes, bool perWarpgroup) {
  Barrier *b = barrierAt(in, op, bars, index);
  if (!b || !usable(in, op, bars, b, /*needFence=*/true))
    return false;
  if (b->cur.arrivals >= b->count) {
    if (b->cur.expected != b->cur.brought) {
      in.fail(op->getLoc(),
              "arrives on barrier #" + llvm::Twine(barrierIndex(in, bars, b)) +
                  " whose phase " + llvm::Twine(b->phase) +
                  " already has all " + llvm::Twine(b->count) +
                  " arrivals and still waits for transaction bytes "
                  "(expect_tx " +
                  llvm::Twine(b->cur.expected) + " bytes, the copies bring " +
                  llvm::Twine(b->cur.brought) + ")",
              "wait for the phase before arriving again, or raise the "
              "kcc.mbarrier_init count")
          .notes.push_back({b->initOp->getLoc(),
                            "count " + std::to_string(b->count) + " set here"});
      return false;
    }
    // The hardware completes the phase by itself; this arrival opens the
    // next one.
    completePhase(*b);
  }
  b->cur.arrivals++;
  b->cur.expected = addWrap(b->cur.expected, bytes);
  b->cur.arms.push_back(op);
  // What the arrival releases: the producer is one thread; a consumer
  // arrival is made by thread 0 (plain: the leader of warpgroup 0) or by
  // each warpgroup's leader, without a barrier among the others.
  Role role = in.role();
  if (role != Cta) {
    bool one = role == Producer;
    Release r;
    r.arrived[role] = in.now();
    r.complete[role] = one ? in.now() : in.state.synced[role];
    r.leaderComplete[role] =
        one || perWarpgroup || in.roles()->warpgroups() == 1
            ? in.now()
            : in.state.wgSynced[role];
    b->cur.released.join(r);
  }
  return true;
}

void addTxNotes(Diag &d, const Barrier &b) {
  for (Operation *arm : b.cur.arms)
    if (auto e = dyn_cast<kcc::MBarrierArriveExpectTxOp>(arm))
      d.notes.push_back(
          {arm->getLoc(),
           "expects " + std::to_string(e.getBytes()) + " bytes here"});
  for (Operation *l : b.cur.loads)
    d.notes.push_back(
        {l->getLoc(), "this copy brings " +
                          std::to_string(cast<kcc::TmaLoadOp>(l).getBytes()) +
                          " bytes"});
}

Barrier *pendingBarrier(Interpreter &in, kcc::MBarrierWaitOp w) {
  auto it = in.state.barriers.find(w.getBars());
  const Scalar *index = in.lookup(w.getIndex());
  const Scalar *parity = in.lookup(w.getParity());
  if (it == in.state.barriers.end() || !index || !parity || !index->isConst() ||
      !parity->isConst() || index->c < 0 ||
      index->c >= static_cast<int64_t>(it->second.size()))
    return nullptr;
  Barrier &b = it->second[index->c];
  if (b.life != Barrier::Live || !b.fenced || parity->c != (b.phase & 1))
    return nullptr;
  return &b;
}

bool waitBlocks(Interpreter &in, kcc::MBarrierWaitOp w) {
  Barrier *b = pendingBarrier(in, w);
  return b && (b->cur.arrivals < b->count || b->cur.expected > b->cur.brought);
}

std::string pendingText(Interpreter &in, kcc::MBarrierWaitOp w) {
  Barrier *b = pendingBarrier(in, w);
  std::string s = "barrier #" +
                  std::to_string(barrierIndex(in, w.getBars(), b)) + " phase " +
                  std::to_string(b->phase) + " (";
  if (b->cur.arrivals < b->count)
    s += std::to_string(b->cur.arrivals) + " of " + std::to_string(b->count) +
         " arrivals";
  if (b->cur.expected > b->cur.brought)
    s += std::string(b->cur.arrivals < b->count ? "; " : "") + "expect_tx " +
         std::to_string(b->cur.expected) + " bytes, the copies bring " +
         std::to_string(b->cur.brought);
  return s + ")";
}

//===----------------------------------------------------------------------===//
// Op rules
//===----------------------------------------------------------------------===//

bool mbarrierAlloc(Interpreter &in, kcc::MBarrierAllocOp op) {
  auto &v = in.state.barriers[op.getResult()];
  v.assign(op.getType().getCount(), Barrier());
  for (Barrier &b : v)
    b.allocOp = op;
  return true;
}

bool mbarrierInit(Interpreter &in, kcc::MBarrierInitOp op) {
  Barrier *b = barrierAt(in, op, op.getBars(), op.getIndex());
  if (!b)
    return false;
  if (b->life == Barrier::Live) {
    in.fail(op->getLoc(),
            "initializes barrier #" +
                llvm::Twine(barrierIndex(in, op.getBars(), b)) +
                " twice without kcc.mbarrier_inval",
            "re-initializing a live barrier is undefined behavior: drop this "
            "init, or end the barrier's life with kcc.mbarrier_inval first")
        .notes.push_back({b->initOp->getLoc(), "first initialized here"});
    return false;
  }
  Operation *allocOp = b->allocOp;
  *b = Barrier();
  b->allocOp = allocOp;
  b->life = Barrier::Live;
  b->initOp = op;
  b->count = op.getCount();
  return true;
}

bool fenceMBarrierInit(Interpreter &in) {
  for (auto &entry : in.state.barriers)
    for (Barrier &b : entry.second)
      if (b.life == Barrier::Live)
        b.fenced = true;
  return true;
}

bool mbarrierArriveExpectTx(Interpreter &in, kcc::MBarrierArriveExpectTxOp op) {
  return arrive(in, op, op.getBars(), op.getIndex(),
                static_cast<int64_t>(op.getBytes()));
}

bool mbarrierArrive(Interpreter &in, kcc::MBarrierArriveOp op) {
  // Across a cluster every CTA takes this step (kcc::ClusterUniform, checked
  // before the run), each arriving on every CTA's barrier: this CTA's
  // barrier counts one arrival per CTA.
  int64_t ctas = 1;
  if (op.getCluster()) {
    if (!clusterAccess(in, op))
      return false;
    auto n =
        op->getParentOfType<mlir::func::FuncOp>()
            ->getAttrOfType<mlir::IntegerAttr>(kcc::KccDialect::kClusterAttr);
    ctas = n.getInt();
  }
  if (Barrier *b = barrierAt(in, op, op.getBars(), op.getIndex())) {
    Barrier::Scope scope = op.getCluster() ? Barrier::Cluster : Barrier::Local;
    if (b->arrivals != Barrier::Unknown && b->arrivals != scope) {
      in.fail(op.getLoc(),
              op.getCluster()
                  ? "arrives on the barrier of every CTA of the cluster, "
                    "where this CTA's threads also arrive on it alone"
                  : "arrives on this CTA's barrier alone, where the "
                    "cluster's CTAs also arrive on it together",
              "a barrier counts the arrivals of one CTA or of the whole "
              "cluster: arrive with `cluster` everywhere or nowhere");
      return false;
    }
    b->arrivals = scope;
  }
  if (!op.getPerWarpgroup() || !in.roles()) {
    for (int64_t c = 0; c < ctas; ++c)
      if (!arrive(in, op, op.getBars(), op.getIndex(), 0))
        return false;
    return true;
  }
  // Each consumer warpgroup's leader, once it saw its groups retire.
  in.state.wgSynced[in.role()] = in.now();
  for (int64_t c = 0; c < ctas; ++c)
    for (int64_t i = 0; i < in.roles()->warpgroups(); ++i)
      if (!arrive(in, op, op.getBars(), op.getIndex(), 0,
                  /*perWarpgroup=*/true))
        return false;
  return true;
}

/// The wait's phase can complete (a role that would block on it was
/// suspended before, see RoleScheduler.h): the normal rules apply.
bool mbarrierWait(Interpreter &in, kcc::MBarrierWaitOp op) {
  Value bars = op.getBars();
  Barrier *b = barrierAt(in, op, bars, op.getIndex());
  if (!b || !usable(in, op, bars, b, /*needFence=*/true))
    return false;
  std::optional<int64_t> parity = in.known(op, op.getParity(), "the parity");
  if (!parity)
    return false;
  std::string name = "barrier #" + std::to_string(barrierIndex(in, bars, b));
  if (*parity != 0 && *parity != 1) {
    in.fail(op.getLoc(),
            "waits for parity " + llvm::Twine(*parity) + " of " + name,
            "a parity is 0 or 1: the phase number modulo 2");
    return false;
  }
  int64_t curParity = b->phase & 1;
  if (*parity != curParity) {
    // try_wait.parity on the other parity names the previous phase, which
    // is complete (or, in phase 0, counts as complete): it returns at once.
    // In a role, the other one may have completed the phase and armed the
    // next: this role waits for the completed phase if it has not seen it.
    Role role = in.role();
    bool behind = role != Cta && b->phase >= 1 &&
                  std::max(b->observed[role], b->observed[Cta]) < b->phase - 1;
    if (b->cur.touched() && !behind) {
      Diag &d = in.fail(
          op.getLoc(),
          "wrong phase parity: waits for parity " + llvm::Twine(*parity) +
              " but the pending phase " + llvm::Twine(b->phase) + " of " +
              name + " has parity " + llvm::Twine(curParity) + "; parity " +
              llvm::Twine(*parity) +
              " names the previous phase, so the wait returns immediately "
              "without waiting for this phase's arrivals and copies",
          "wait with parity " + llvm::Twine(curParity) +
              " (the phase number modulo 2; in a pipeline, (k / stages) "
              "& 1)");
      Operation *armedAt =
          !b->cur.arms.empty() ? b->cur.arms.front() : b->cur.loads.front();
      d.notes.push_back({armedAt->getLoc(), "the pending phase is armed here"});
      return false;
    }
    if (b->phase == 0) {
      in.fail(op.getLoc(),
              "wrong phase parity: waits for parity 1 of " + name +
                  ", which has not completed any phase: the wait returns "
                  "immediately without waiting for anything",
              "the first phase of a barrier has parity 0");
      return false;
    }
    // Waiting again for the phase that just completed: returns at once.
    observe(in, *b, b->phase - 1, b->lastReleased);
    retireTcgen05(in, b->lastTcCovered);
    return true;
  }
  if (!b->cur.armed()) {
    Diag &d =
        in.fail(op.getLoc(),
                "wait on a barrier with no pending arrival or expect: " + name +
                    " is in phase " + llvm::Twine(b->phase) +
                    " and nothing has arrived on it, so the wait never "
                    "returns (a hang)",
                "issue kcc.mbarrier_arrive_expect_tx (and the copies) "
                "for this phase before waiting, or remove the wait");
    for (Operation *l : b->cur.loads)
      d.notes.push_back({l->getLoc(), "this copy signals " + name +
                                          " but nothing expects its bytes"});
    return false;
  }
  if (b->cur.expected != b->cur.brought) {
    bool hang = b->cur.expected > b->cur.brought;
    Diag &d = in.fail(
        op.getLoc(),
        "expect_tx " + llvm::Twine(b->cur.expected) +
            " bytes but the copies signaling this barrier bring " +
            llvm::Twine(b->cur.brought) + " (" + name + ", phase " +
            llvm::Twine(b->phase) + "): " +
            (hang ? "the phase never completes (a hang)"
                  : "the phase may complete before every copy has landed "
                    "(reads of data not yet written)"),
        "make the kcc.mbarrier_arrive_expect_tx bytes equal the sum of the "
        "box bytes of the kcc.tma_load ops that signal " +
            name + " in this phase");
    addTxNotes(d, *b);
    return false;
  }
  if (b->cur.arrivals < b->count) {
    in.fail(op.getLoc(),
            "the phase this wait waits for never completes (a hang): " + name +
                " has " + llvm::Twine(b->cur.arrivals) + " of " +
                llvm::Twine(b->count) + " arrivals in phase " +
                llvm::Twine(b->phase),
            "arrive as many times per phase as the kcc.mbarrier_init count, "
            "or lower the count")
        .notes.push_back({b->initOp->getLoc(),
                          "count " + std::to_string(b->count) + " set here"});
    return false;
  }
  observe(in, *b, b->phase, b->cur.released);
  retireTcgen05(in, b->cur.tcCovered);
  completePhase(*b);
  return true;
}

bool mbarrierInval(Interpreter &in, kcc::MBarrierInvalOp op) {
  Barrier *b = barrierAt(in, op, op.getBars(), op.getIndex());
  if (!b || !usable(in, op, op.getBars(), b, /*needFence=*/false))
    return false;
  int64_t idx = barrierIndex(in, op.getBars(), b);
  for (auto &entry : in.state.stages)
    for (Stage &s : entry.second)
      if (s.data == Stage::Async && s.bars == op.getBars() &&
          s.barIndex == idx && !landed(in, s)) {
        in.fail(op->getLoc(),
                "invalidates barrier #" + llvm::Twine(idx) +
                    " while a kcc.tma_load signaling it is still in flight",
                "wait for the copy before kcc.mbarrier_inval")
            .notes.push_back({s.writer->getLoc(), "the copy in flight"});
        return false;
      }
  b->life = Barrier::Dead;
  b->invalOp = op;
  return true;
}

} // namespace kcc::verify
