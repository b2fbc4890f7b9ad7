//===- TurnRules.cpp - transfer rules of kcc.warpgroup_turn ---------------===//
//
// The consumer warpgroups of one group run the same code and take turns
// through named barriers: warpgroup w's `wait` completes when warpgroup
// w - 1 has passed it the turn, its `pass` hands the turn to w + 1, and the
// last warpgroup's `start` hands it to warpgroup 0. The verifier runs the
// group's code once, so the protocol holds for every warpgroup when each
// runs `start`, then `wait` and `pass` alternately: a second `wait`
// without a `pass` (or a `wait` before any `start`) waits for an arrival
// that never comes, a `pass` without a held turn lets a warpgroup in while
// another holds the turn, and ending while holding it leaves the next
// warpgroup waiting.
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

bool warpgroupTurn(Interpreter &in, kcc::WarpgroupTurnOp op) {
  using Turn = IssueQueues::Turn;
  IssueQueues &q = in.queues();
  switch (op.getKind()) {
  case kcc::WarpgroupTurnKind::Start:
    if (q.turn != Turn::Unstarted) {
      in.fail(op.getLoc(),
              "the warpgroups' turns are started twice: the first warpgroup "
              "would be let in twice",
              "start the turns once, before the loop that takes them");
      return false;
    }
    q.turn = Turn::Passed;
    return true;
  case kcc::WarpgroupTurnKind::Wait:
    if (q.turn == Turn::Unstarted) {
      in.fail(op.getLoc(),
              "deadlock: a warpgroup waits for its turn, but no warpgroup "
              "has started the turns, so every warpgroup waits forever",
              "start the turns (kcc.warpgroup_turn start) before the first "
              "wait");
      return false;
    }
    if (q.turn == Turn::Held) {
      in.fail(op.getLoc(),
              "deadlock: a warpgroup waits for its turn again without "
              "passing on the one it holds, so the next warpgroup never "
              "gets it",
              "pass the turn (kcc.warpgroup_turn pass) after the work it "
              "orders")
          .notes.push_back({q.turnTaken->getLoc(), "the turn was taken here"});
      return false;
    }
    q.turn = Turn::Held;
    q.turnTaken = op;
    return true;
  case kcc::WarpgroupTurnKind::Pass:
    if (q.turn != Turn::Held) {
      in.fail(op.getLoc(),
              "a warpgroup passes on a turn it does not hold: the next "
              "warpgroup would start its turn while another holds one",
              "wait for the turn (kcc.warpgroup_turn wait) before passing it");
      return false;
    }
    q.turn = Turn::Passed;
    return true;
  }
  return true;
}

bool turnsAtExit(Interpreter &in) {
  for (const IssueQueues &q : in.state.queues) {
    if (q.turn != IssueQueues::Turn::Held)
      continue;
    in.fail(q.turnTaken->getLoc(),
            "deadlock: a warpgroup ends holding the turn it took here, so "
            "the next warpgroup waits for it forever",
            "pass the turn (kcc.warpgroup_turn pass) before the end")
        .notes.push_back({in.exitLoc(), "the kernel ends here"});
    return false;
  }
  return true;
}

} // namespace kcc::verify
