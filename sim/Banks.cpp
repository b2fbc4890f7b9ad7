//===- Banks.cpp - bank conflicts of shared accesses, per op --------------===//
//
// The lanes of a warp execute a shared access together; here they execute
// one at a time, so the lanes' addresses are gathered per (op, dynamic
// instance): the n-th execution of an op by each lane belongs to the n-th
// warp-wide execution. Under structured control flow that is the lockstep
// execution. At each CTA barrier (and at the end of the CTA) the gathered
// executions are costed with the compiler's own model,
// kcc::analyzeBankConflicts (targets/BankConflicts.h), and summed per op.
//
//===----------------------------------------------------------------------===//
#include "sim/Machine.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

void Machine::recordBankAccess(Thread &t, const Inst &in, uint64_t offset) {
  uint32_t &counter =
      instanceCounters[size_t(t.tid) * prog.numSharedAccessOps + in.c];
  uint64_t key = (uint64_t(in.c) << 32) | counter++;
  BankRecord &rec = pendingBanks[t.warp][key];
  if (rec.lanes.empty())
    rec.lanes.resize(opts.warpSize);
  rec.lanes[t.lane] = offset;
  BankSummary &s = bankSummaries[in.c];
  if (!s.op) {
    s.op = prog.ops[in.op];
    s.store = in.opc == Opc::Store;
    s.accessBytes = (in.bits == 1 ? 1 : in.bits / 8) * in.lanes;
  }
}

void Machine::flushBanks() {
  for (auto &warpRecords : pendingBanks) {
    for (auto &[key, rec] : warpRecords) {
      BankSummary &s = bankSummaries[key >> 32];
      SharedAccessKind kind =
          s.store ? SharedAccessKind::Store : SharedAccessKind::Load;
      // Wider than 16 bytes: the backend splits it into 16-byte accesses.
      unsigned width = std::min(16u, s.accessBytes);
      ++s.executions;
      for (unsigned part = 0; part * width < s.accessBytes; ++part) {
        std::vector<std::optional<uint64_t>> lanes = rec.lanes;
        for (auto &l : lanes)
          if (l)
            *l += part * width;
        llvm::Expected<BankConflictResult> r =
            analyzeBankConflicts(opts.banks, lanes, width, kind);
        if (!r) {
          // Unaligned for the width (a misaligned access faults first) or
          // a lane outside the phase table: not costable, not counted.
          llvm::consumeError(r.takeError());
          continue;
        }
        s.wavefronts += r->wavefronts;
        s.idealWavefronts += r->idealWavefronts;
        s.maxDegree = std::max(s.maxDegree, r->degree);
      }
    }
    warpRecords.clear();
  }
}
