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
      consumerWarpgroups(ws.getConsumerWarpgroups()) {}

bool RoleScheduler::run() {
  if (!checkRoles())
    return false;
  auto entry = [](Region &r) { return r.empty() ? nullptr : &r.front(); };
  in.startRole(Producer, entry(ws.getProducer()));
  in.startRole(Consumer, entry(ws.getConsumer()));
  in.setScheduler(this);
  Role running = first;
  for (;;) {
    blockedAt[running] = nullptr;
    Outcome outcome = in.resume(running);
    Role other = otherRole(running);
    if (outcome == Outcome::Failed)
      break; // the other role is abandoned where it stopped
    if (outcome == Outcome::Preempted) {
      running = other;
      continue;
    }
    if (outcome == Outcome::Blocked) {
      kcc::MBarrierWaitOp mine = in.blockedWait(running);
      kcc::MBarrierWaitOp theirs = blockedAt[other];
      if (finished[other] || (theirs && waitBlocks(in, theirs))) {
        deadlock(running, mine);
        break;
      }
      blockedAt[running] = mine;
      running = other;
      continue;
    }
    finished[running] = true;
    if (finished[other])
      break;
    if (kcc::MBarrierWaitOp theirs = blockedAt[other];
        theirs && waitBlocks(in, theirs)) {
      deadlock(other, theirs);
      break;
    }
    running = other;
  }
  in.setScheduler(nullptr);
  return !in.diag;
}

bool RoleScheduler::wakesOther(Role running) const {
  kcc::MBarrierWaitOp theirs = blockedAt[otherRole(running)];
  return theirs && !waitBlocks(in, theirs);
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
                     kcc::WarpgroupMmaWaitOp, kcc::TmaStoreOp,
                     kcc::BulkCommitGroupOp, kcc::BulkWaitGroupOp,
                     kcc::FenceProxyAsyncOp, kcc::CpAsyncOp,
                     kcc::CpAsyncCommitGroupOp, kcc::CpAsyncWaitGroupOp,
                     kcc::WarpMmaOp>(op)) {
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

/// Role `r`, blocked at `w`, never resumes: the other role has finished or
/// is blocked too (then reported at the producer's wait).
void RoleScheduler::deadlock(Role r, kcc::MBarrierWaitOp w) {
  Role other = otherRole(r);
  kcc::MBarrierWaitOp theirs = finished[other] ? nullptr : blockedAt[other];
  if (theirs && r == Consumer) {
    std::swap(r, other);
    std::swap(w, theirs);
  }
  std::string problem =
      std::string("deadlock between the warp-specialized roles: the ") +
      roleName(r) + " waits here for " + pendingText(in, w) + " and the " +
      roleName(other) +
      (theirs ? " waits for " + pendingText(in, theirs) : " has finished") +
      in.context(r);
  std::string advice;
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
  if (theirs)
    d.notes.push_back({theirs.getLoc(), std::string("the ") + roleName(other) +
                                            " waits here" + in.context(other)});
  if (b->cur.arrivals < b->count)
    d.notes.push_back({b->initOp->getLoc(),
                       "count " + std::to_string(b->count) + " set here"});
  else
    addTxNotes(d, *b);
}

} // namespace kcc::verify
