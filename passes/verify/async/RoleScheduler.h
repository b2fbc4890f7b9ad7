//===- RoleScheduler.h - the roles of kcc.warp_specialize -------*- C++ -*-===//
//
// Runs the producer and consumer regions of a kcc.warp_specialize as
// concurrent roles (the consumer region once per consumer group: two with
// ping-pong) that share the typestate and meet only through mbarriers. Each
// role is a continuation of the interpreter (an explicit stack of frames);
// exactly one runs at a time, on the pass's own thread:
//  * the first role (producer or consumer: every choice is run with both)
//    runs until it ends, fails, or reaches a wait whose phase cannot
//    complete yet (missing arrivals, or tx bytes still expected); then it
//    is suspended there and the next role that can run does (in the order
//    producer, consumer groups);
//  * wake-up preemption: as soon as an op of the running role makes another
//    role's blocked wait completable, the running role is suspended after
//    that op and the released one resumes (the adversarial order for
//    "released too early" bugs);
//  * every unfinished role blocked (reported at the producer's wait) is a
//    deadlock.
//
//===----------------------------------------------------------------------===//

#ifndef KCC_PASSES_VERIFY_ASYNC_ROLESCHEDULER_H
#define KCC_PASSES_VERIFY_ASYNC_ROLESCHEDULER_H

#include "passes/verify/async/Typestate.h"

#include "ir/Dialect.h"

namespace kcc::verify {

class Interpreter;

class RoleScheduler {
public:
  RoleScheduler(Interpreter &in, kcc::WarpSpecializeOp ws, Role first);

  /// Runs both roles to their end; false with the interpreter's diagnostic
  /// set on a violation or a deadlock.
  bool run();

  /// Whether role `running`'s last op made the other role's blocked wait
  /// completable: then the other role resumes at once.
  bool wakesOther(Role running) const;

  /// The consumer warpgroups (each arrives once with per_warpgroup).
  int64_t warpgroups() const { return consumerWarpgroups; }
  /// The consumer groups running the consumer region (2: ping-pong).
  int64_t consumerGroups() const { return order.size() - 1; }

private:
  /// Rejects what a role cannot execute.
  bool checkRoles();
  /// Reports that no unfinished role can resume.
  void deadlock();
  size_t indexOf(Role r) const;
  /// Whether suspended role `r`'s wait still cannot complete.
  bool stillBlocked(Role r) const;

  Interpreter &in;
  kcc::WarpSpecializeOp ws;
  Role first;
  int64_t consumerWarpgroups;
  // The roles in scheduling order: the producer, then each consumer group.
  llvm::SmallVector<Role, 3> order;
  // The role wakesOther found completable (resumed next).
  mutable Role woken = Producer;
  bool finished[kRoles] = {};
  // The wait each suspended role blocked at (null: not blocked).
  kcc::MBarrierWaitOp blockedAt[kRoles] = {};
};

} // namespace kcc::verify

#endif // KCC_PASSES_VERIFY_ASYNC_ROLESCHEDULER_H
