//===- RoleScheduler.cpp - the roles of kcc.warp_specialize ---------------===//
//
// The scheduler switches between the two role continuations of the
// interpreter; a switch happens only where a role blocks, is preempted by
// wake-up, or ends (RoleScheduler.h).
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/RoleScheduler.h"
#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

RoleScheduler::RoleScheduler(Interpreter &in, kcc::WarpSpecializeOp ws,
                             Role first)
    : in(in), ws(ws), first(first),
      consumerWarpgroups(ws.getConsumerWarpgroups()) {
  order = {Producer, Consumer};
  if (ws.getNumConsumerGroups() == 2)
    order.push_back(Consumer2);
}

bool RoleScheduler::run() {
  if (!checkRoles())
    return false;
  auto entry = [](Region &r) { return r.empty() ? nullptr : &r.front(); };
  in.startRole(Producer, entry(ws.getProducer()));
  for (Role r : order)
    if (isConsumer(r))
      in.startRole(r, entry(ws.getConsumer()));
  in.setScheduler(this);
  Role running = first;
  for (;;) {
    blockedAt[running] = nullptr;
    Outcome outcome = in.resume(running);
    if (outcome == Outcome::Failed)
      break; // the other roles are abandoned where they stopped
    if (outcome == Outcome::Preempted) {
      running = woken;
      continue;
    }
    if (outcome == Outcome::Blocked)
      blockedAt[running] = in.blockedWait(running);
    else
      finished[running] = true;
    // The next role after this one that can run: not finished, and not
    // blocked at a wait that still cannot complete.
    std::optional<Role> next;
    for (size_t i = 1; i <= order.size() && !next; ++i) {
      Role r = order[(indexOf(running) + i) % order.size()];
      if (!finished[r] && (!blockedAt[r] || !stillBlocked(r)))
        next = r;
    }
    if (next) {
      running = *next;
      continue;
    }
    if (llvm::any_of(order, [&](Role r) { return !finished[r]; }))
      deadlock();
    break;
  }
  in.setScheduler(nullptr);
  return !in.diag;
}

bool RoleScheduler::stillBlocked(Role r) const {
  Interpreter::AsRole as(in, r);
  return waitBlocks(in, blockedAt[r]);
}

size_t RoleScheduler::indexOf(Role r) const {
  return llvm::find(order, r) - order.begin();
}

bool RoleScheduler::wakesOther(Role running) const {
  for (size_t i = 1; i < order.size(); ++i) {
    Role r = order[(indexOf(running) + i) % order.size()];
    if (blockedAt[r] && !stillBlocked(r)) {
      woken = r;
      return true;
    }
  }
  return false;
}

/// The producer is one thread that issues copies and waits on barriers;
/// barriers are set up by the whole CTA before the split.
bool RoleScheduler::checkRoles() {
  if (in.role() != Cta || in.inLoop(Cta)) {
    in.fail(ws.getLoc(),
            "cannot prove the async protocol of a kcc.warp_specialize nested "
            "in a role or in a loop",
            "split the kernel once, directly in its body");
    return false;
  }
  for (Role r : {Producer, Consumer}) {
    Operation *bad = nullptr;
    std::string problem, advice;
    Region &region = r == Producer ? ws.getProducer() : ws.getConsumer();
    region.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Built only for a message: this walk runs for every choice.
      auto name = [&] {
        return "'" + op->getName().getStringRef().str() + "'";
      };
      if (isa<kcc::WarpSpecializeOp>(op)) {
        problem = "cannot prove the async protocol of a kcc.warp_specialize "
                  "nested in a role";
        advice = "split the kernel once, directly in its body";
      } else if (isa<kcc::MBarrierInitOp, kcc::FenceMBarrierInitOp>(op)) {
        problem = name() + " in the " + roleName(r) +
                  " region: barriers are initialized by the whole CTA "
                  "before kcc.warp_specialize, which the other role does "
                  "not wait for here";
        advice = "move it before kcc.warp_specialize (the last "
                 "kcc.mbarrier_init followed by kcc.fence_mbarrier_init)";
      } else if (r == Producer && isa<kcc::CtaBarrierOp>(op)) {
        problem = "kcc.cta_barrier in the producer region waits for threads "
                  "that never reach it (one producer thread executes the "
                  "region, the consumers synchronize among themselves): a "
                  "deadlock";
        advice = "synchronize with the consumers through mbarriers (wait "
                 "on a barrier they arrive on)";
      } else if (r == Producer &&
                 isa<kcc::SmemLoadOp, kcc::SmemStoreOp, kcc::WarpgroupMmaOp,
                     kcc::WarpgroupMmaRegAOp, kcc::WarpgroupMmaWaitOp,
                     kcc::TmaStoreOp, kcc::BulkCommitGroupOp,
                     kcc::BulkWaitGroupOp, kcc::FenceProxyAsyncOp,
                     kcc::CpAsyncOp, kcc::CpAsyncCommitGroupOp,
                     kcc::CpAsyncWaitGroupOp, kcc::WarpMmaOp>(op)) {
        problem = name() + " in the producer region: the producer issues "
                           "copies and waits on barriers only";
        advice = "move " + name() + " to the consumer region";
      } else {
        return WalkResult::advance();
      }
      bad = op;
      return WalkResult::interrupt();
    });
    if (bad) {
      in.fail(bad->getLoc(), problem, advice)
          .notes.push_back({ws.getLoc(), "the roles split here"});
      return false;
    }
  }
  return true;
}

/// No unfinished role can run: each is blocked at a wait that cannot
/// complete. Reported at the producer's wait if it is blocked, else at the
/// first blocked consumer group's, with the other roles' positions.
void RoleScheduler::deadlock() {
  Role r = Producer;
  if (!blockedAt[r])
    r = *llvm::find_if(order, [&](Role q) { return bool(blockedAt[q]); });
  kcc::MBarrierWaitOp w = blockedAt[r];
  auto pending = [&](Role q) {
    Interpreter::AsRole as(in, q);
    return pendingText(in, blockedAt[q]);
  };
  std::string problem =
      std::string("deadlock between the warp-specialized roles: the ") +
      roleName(r) + " waits here for " + pending(r);
  for (Role q : order) {
    if (q == r)
      continue;
    problem += std::string(" and the ") + roleName(q);
    problem +=
        finished[q] ? std::string(" has finished") : " waits for " + pending(q);
  }
  problem += in.context(r);
  std::string advice;
  Interpreter::AsRole as(in, r);
  const Barrier *b = pendingBarrier(in, w);
  if (b->cur.arrivals < b->count)
    advice = "arrive on the barrier as many times per phase as its "
             "kcc.mbarrier_init count, from the role that does not wait on "
             "it (a per_warpgroup arrival counts consumer_warpgroups = " +
             std::to_string(consumerWarpgroups) + "), or change the count";
  else
    advice = "make the kcc.mbarrier_arrive_expect_tx bytes equal the box "
             "bytes of the kcc.tma_load ops that signal the barrier in this "
             "phase";
  Diag &d = in.diag.emplace(Diag{w.getLoc(), problem, advice, {}});
  for (Role q : order)
    if (q != r && !finished[q])
      d.notes.push_back(
          {blockedAt[q].getLoc(),
           std::string("the ") + roleName(q) + " waits here" + in.context(q)});
  if (b->cur.arrivals < b->count)
    d.notes.push_back({b->initOp->getLoc(),
                       "count " + std::to_string(b->count) + " set here"});
  else
    addTxNotes(d, *b);
}

} // namespace kcc::verify
