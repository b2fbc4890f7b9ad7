//===- CpAsyncRules.cpp - transfer rules of cp.async groups ---------------===//
//
// Every thread copies its own chunks with kcc.cp_async (sm_80), so a stage
// filled by cp.async is complete for one thread once a
// kcc.cp_async_wait_group retired the copy's group, and for every thread
// after a kcc.cta_barrier followed (StageRules.cpp checks the reads and
// writes of the stage against these states).
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

bool cpAsync(Interpreter &in, Operation *op, Value dst, Value stage) {
  Stage *s = stageAt(in, op, dst, stage);
  if (!s || !writable(in, op, dst, *s))
    return false;
  *s = Stage();
  s->data = Stage::CpAsync;
  s->writer = op;
  s->writerRole = in.role();
  s->issuedAt = in.now();
  in.queues().cpOpen.push_back({op, s});
  return true;
}

bool cpAsyncCommitGroup(Interpreter &in) {
  IssueQueues &q = in.queues();
  q.cpCommitted.push_back(std::move(q.cpOpen));
  q.cpOpen.clear();
  return true;
}

bool cpAsyncWaitGroup(Interpreter &in, kcc::CpAsyncWaitGroupOp op) {
  IssueQueues &st = in.queues();
  // wait_group retires committed groups only; the open one stays.
  while (int64_t(st.cpCommitted.size()) > int64_t(op.getPending())) {
    for (const CpCopy &c : st.cpCommitted.front())
      if (c.stage->writer == c.op)
        c.stage->cpWaited = true;
    st.cpCommitted.pop_front();
  }
  return true;
}

bool cpAsyncAtExit(Interpreter &in) {
  for (auto &entry : in.state.stages)
    for (Stage &s : entry.second)
      if (s.data == Stage::CpAsync && !s.cpWaited) {
        in.fail(s.writer->getLoc(),
                "the kernel ends while this kcc.cp_async into stage " +
                    std::to_string(stageIndex(in, entry.first, &s)) +
                    " is still in flight: no kcc.cp_async_wait_group retires "
                    "its group",
                "issue only the copies the loop will read (guard each with "
                "scf.if on the trip count), or wait for them")
            .notes.push_back({in.exitLoc(), "the kernel ends here"});
        return false;
      }
  return true;
}

} // namespace kcc::verify
