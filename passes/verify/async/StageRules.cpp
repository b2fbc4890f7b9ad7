//===- StageRules.cpp - transfer rules of shared-memory stages ------------===//
//
// A stage holds the data of one copy or store: reads need it complete and
// visible to the reader (a wait that observed the copy's phase, or a
// cta_barrier after other threads' writes); writes need it released: no
// copy or reader in flight, the loaded data read, a cta_barrier after the
// last smem_load, and, across roles, a wait that observed an arrival made
// after the other role's reads completed.
//
//===----------------------------------------------------------------------===//

#include "passes/analysis/PersistentTiles.h"
#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace kcc::verify {

Stage *stageAt(Interpreter &in, Operation *op, Value buf, Value index) {
  auto it = in.state.stages.find(buf);
  if (it == in.state.stages.end()) {
    in.fail(op->getLoc(),
            "cannot prove the async protocol: this shared-memory buffer does "
            "not come from a kcc.smem_alloc executed before",
            "use the result of kcc.smem_alloc directly");
    return nullptr;
  }
  std::optional<int64_t> i = in.known(op, index, "the stage index");
  if (!i)
    return nullptr;
  if (*i < 0 || *i >= static_cast<int64_t>(it->second.size())) {
    in.fail(op->getLoc(),
            "stage index " + llvm::Twine(*i) + " is out of range for " +
                llvm::Twine(it->second.size()) + " stages",
            "use an index in [0, " + llvm::Twine(it->second.size()) + ")");
    return nullptr;
  }
  return &it->second[*i];
}

int64_t stageIndex(Interpreter &in, Value buf, const Stage *s) {
  return s - in.state.stages.find(buf)->second.data();
}

bool landed(Interpreter &in, Stage &s, int r) {
  if (s.data != Stage::Async)
    return true;
  // Phases complete in order: a wait that observed the copy's phase or a
  // later one saw it land.
  unsigned mask = r < 0 ? ~0u : (1u << r) | (1u << Cta);
  auto it = in.state.barriers.find(s.bars);
  if (!(s.landedIn & mask) && it != in.state.barriers.end() &&
      s.barIndex < (int64_t)it->second.size())
    for (int q = 0; q < kRoles; ++q)
      if ((mask >> q & 1) && it->second[s.barIndex].observed[q] >= s.phase)
        s.landedIn |= 1u << q;
  return s.landedIn & mask;
}

void noteRead(Interpreter &in, Stage &s, Operation *op) {
  s.lastReaderRole = in.role();
  if (isa<kcc::SmemLoadOp, kcc::WarpMmaOp>(op)) {
    s.lastThreadReader = op;
    s.threadReadEnd = std::max(s.threadReadEnd, in.now());
  } else {
    s.lastReader = op;
    s.readEnd = std::max(s.readEnd, in.now());
  }
}

bool writable(Interpreter &in, Operation *op, Value buf, Stage &s) {
  Role role = in.role();
  std::string name = "stage " + std::to_string(stageIndex(in, buf, &s));
  if (s.mmaReader && isa<kcc::Tcgen05MmaOp>(s.mmaReader)) {
    in.fail(op->getLoc(),
            "writing " + name +
                " while a kcc.tcgen05_mma may still read it: no wait has "
                "observed a kcc.tcgen05_commit issued after that mma",
            "commit the tcgen05_mma to an mbarrier (kcc.tcgen05_commit) and "
            "wait on that phase before refilling the stage")
        .notes.push_back({s.mmaReader->getLoc(), "the tcgen05_mma "
                                                 "reading the stage"});
    return false;
  }
  if (s.mmaReader) {
    in.fail(op->getLoc(),
            "writing " + name +
                " while a kcc.warpgroup_mma group still reads it (its wgmma "
                "group has not been retired)",
            role != Cta
                ? "release the stage to the " + llvm::Twine(roleName(role)) +
                      " only after the group reading it has retired "
                      "(kcc.warpgroup_mma_wait, or a later warpgroup_mma "
                      "with a smaller `pending`)"
                : "retire the group first (kcc.warpgroup_mma_wait, or a "
                  "later warpgroup_mma with a smaller `pending`) and release "
                  "the stage with kcc.cta_barrier")
        .notes.push_back({s.mmaReader->getLoc(), "the warpgroup_mma "
                                                 "reading the stage"});
    return false;
  }
  if (s.tmaReader) {
    bool inOpen = llvm::any_of(in.queues().openGroup, [&](const BulkCopy &c) {
      return c.op == s.tmaReader;
    });
    in.fail(op->getLoc(),
            "writing " + name +
                " while a kcc.tma_store is still reading it (its bulk "
                "async-group has not been waited)",
            inOpen ? "add kcc.bulk_commit_group and kcc.bulk_wait_group 0 "
                     "read between the tma_store and this write"
                   : "add kcc.bulk_wait_group N read (N = the groups "
                     "allowed to stay in flight) before this write")
        .notes.push_back({s.tmaReader->getLoc(), "the tma_store reading the "
                                                 "stage"});
    return false;
  }
  // In a role, the other role's readers release a stage through an
  // mbarrier this role waits on (e.g. the producer's empty barrier).
  auto roleAdvice = [&] {
    int reader = isConsumer(s.lastReaderRole) && s.lastReaderRole != role
                     ? s.lastReaderRole
                     : otherRole(role);
    return std::string("in the ") + roleName(reader) +
           ", arrive on a barrier once its reads of the stage have "
           "completed (per_warpgroup, after the kcc.warpgroup_mma reading "
           "it has retired), and wait on that barrier in the " +
           roleName(role) + " before writing the stage";
  };
  if (s.data == Stage::CpAsync && !s.cpWaited) {
    in.fail(op->getLoc(),
            "overwriting a stage before its consumers released it: " + name +
                " still has a kcc.cp_async in flight (its group has not been "
                "retired by kcc.cp_async_wait_group)",
            "wait for the earlier copy (kcc.cp_async_wait_group), read the "
            "stage and release it with kcc.cta_barrier before writing it "
            "again")
        .notes.push_back(
            {s.writer->getLoc(), "the earlier copy into the stage"});
    return false;
  }
  if (s.data == Stage::Async && !landed(in, s)) {
    in.fail(op->getLoc(),
            "overwriting a stage before its consumers released it: " + name +
                " still has a kcc.tma_load in flight (no wait has completed "
                "barrier #" +
                llvm::Twine(s.barIndex) + " phase " + llvm::Twine(s.phase) +
                ")",
            role != Cta ? llvm::Twine(roleAdvice())
                        : "wait for the earlier copy, read the stage and "
                          "release it with kcc.cta_barrier before writing it "
                          "again")
        .notes.push_back(
            {s.writer->getLoc(), "the earlier copy into the stage"});
    return false;
  }
  bool otherReader = role != Cta && s.readerRole != role && s.readerRole != Cta;
  if (s.reader && !otherReader) {
    in.fail(op->getLoc(),
            "overwriting a stage before its consumers released it: no "
            "kcc.cta_barrier after the last " +
                s.reader->getName().getStringRef() + " of " + name,
            "add kcc.cta_barrier after the last read of the stage")
        .notes.push_back({s.reader->getLoc(), "the last read of the stage"});
    return false;
  }
  // Loaded data nobody read is a skipped stage when a copy overwrites it;
  // a generic store by threads that saw it land only discards it (a TMA
  // store reusing the stage of a load whose loop did not run), and so does
  // the next tile's copy over a persistent tile's once-per-tile load (a
  // query block unread where its key loop did not run): its stage is not
  // chosen by a pipeline's counter, so no stage can be skipped.
  auto oncePerTile = [](Operation *writer) {
    return writer && kcc::persistentTileLoopOf(writer) &&
           !kcc::enclosingLoop(writer);
  };
  // With roles, the data may have landed for the other one: the producer
  // prefetching the next tile's block learned, through the consumers'
  // release, that they saw the unread copy land.
  auto handedOver = [&] {
    auto it = in.state.barriers.find(s.bars);
    if (role == Cta || it == in.state.barriers.end() ||
        s.barIndex >= (int64_t)it->second.size())
      return false;
    const Barrier &b = it->second[s.barIndex];
    for (int q = 0; q < kRoles; ++q)
      if (q != role && q != Cta && b.observed[q] >= s.phase &&
          in.state.learned[role].arrived[q] > b.observedAt[q])
        return true;
    return false;
  };
  bool discarded = s.data == Stage::Async &&
                   ((isa<kcc::SmemStoreOp>(op) && landed(in, s, role)) ||
                    (isa<kcc::TmaLoadOp>(op) && oncePerTile(s.writer) &&
                     oncePerTile(op) && (landed(in, s, role) || handedOver())));
  if ((s.data == Stage::Async || s.data == Stage::CpAsync) && !s.consumed &&
      !discarded) {
    in.fail(op->getLoc(),
            "overwriting a stage before its consumers released it: the data "
            "loaded into " +
                name + (role != Cta ? " has not been read" : " was never read"),
            role != Cta ? llvm::Twine(roleAdvice())
                        : "read the stage (kcc.smem_load or kcc.tma_store) "
                          "before writing it again, or check the stage index")
        .notes.push_back({s.writer->getLoc(), "the unread copy"});
    return false;
  }
  // A read by the other role: this role must have observed a release
  // made after it completed.
  int q = s.lastReaderRole;
  if (role == Cta || q == role || q == Cta)
    return true;
  const Release &seen = in.state.learned[role];
  bool thread = s.threadReadEnd > seen.complete[q];
  bool leader = !thread && s.readEnd > seen.leaderComplete[q];
  if (!thread && !leader)
    return true;
  Operation *read = thread ? s.lastThreadReader : s.lastReader;
  const char *reader = roleName(q);
  // An observed arrival after the read that does not cover every thread.
  if ((thread ? s.threadReadEnd : s.readEnd) <= seen.arrived[q]) {
    if (thread)
      in.fail(op->getLoc(),
              llvm::Twine("overwriting a stage before its consumers released "
                          "it: the ") +
                  reader + " arrived on a barrier the " + roleName(role) +
                  " waited for after its last kcc.smem_load of " + name +
                  ", but only one thread (per warpgroup) arrives, while the "
                  "others may still be reading the stage",
              "add kcc.cta_barrier before the arrival");
    else
      in.fail(op->getLoc(),
              llvm::Twine("overwriting a stage before its consumers released "
                          "it: the ") +
                  reader + " arrived on a barrier the " + roleName(role) +
                  " waited for after its last read of " + name +
                  ", but a plain kcc.mbarrier_arrive is made by one thread, "
                  "and the kcc.warpgroup_mma groups of the other warpgroups "
                  "may still read the stage",
              "arrive with per_warpgroup (each warpgroup once its own groups "
              "retired), or add kcc.cta_barrier before the arrival");
  } else {
    in.fail(op->getLoc(),
            "overwriting a stage before its consumers released it: no "
            "kcc.mbarrier_wait of the " +
                llvm::Twine(roleName(role)) + " has observed an arrival the " +
                reader + " made after its last read of " + name + " completed" +
                (isa<kcc::WarpgroupMmaOp, kcc::WarpgroupMmaRegAOp>(read)
                     ? " (a kcc.warpgroup_mma reads until its group retires)"
                     : ""),
            roleAdvice());
  }
  in.diag->notes.push_back({read->getLoc(), "the last read of the stage"});
  return false;
}

bool readable(Interpreter &in, Operation *op, Value buf, Stage &s) {
  Role role = in.role();
  std::string name = "stage " + std::to_string(stageIndex(in, buf, &s));
  if (s.data == Stage::None && role != Cta) {
    in.fail(op->getLoc(),
            "reading a stage before its barrier phase completed: " + name +
                " holds no data yet and no kcc.mbarrier_wait of the " +
                roleName(role) + " waits for the copy that fills it",
            "wait on the barrier that the copy into the stage signals before "
            "the read");
    return false;
  }
  if (s.data == Stage::None) {
    in.fail(op->getLoc(),
            "reads " + name +
                ", which holds no data (nothing was loaded or "
                "stored into it)",
            "load or store the stage first, or check the stage index");
    return false;
  }
  if (s.data == Stage::CpAsync && !s.cpWaited) {
    in.fail(op->getLoc(),
            "reading " + name +
                " before its cp.async copy landed: no "
                "kcc.cp_async_wait_group has retired the group of the copy "
                "that fills it",
            "add kcc.cp_async_wait_group N (N = the groups committed after "
            "that copy's) and kcc.cta_barrier before the read")
        .notes.push_back({s.writer->getLoc(), "the copy into the stage"});
    return false;
  }
  if (s.data == Stage::CpAsync && !s.cpSynced) {
    in.fail(op->getLoc(),
            "reading " + name +
                " after this thread's cp.async copies landed but before the "
                "other threads' did: no kcc.cta_barrier follows the "
                "kcc.cp_async_wait_group",
            "add kcc.cta_barrier between the wait and the read")
        .notes.push_back({s.writer->getLoc(), "the copy into the stage"});
    return false;
  }
  if (s.data == Stage::Async && !landed(in, s, role)) {
    in.fail(op->getLoc(),
            "reading a stage before its barrier phase completed: " + name +
                " is filled by a kcc.tma_load that signals barrier #" +
                llvm::Twine(s.barIndex) + " in phase " + llvm::Twine(s.phase) +
                ", and no kcc.mbarrier_wait" +
                (role != Cta ? std::string(" of the ") + roleName(role) : "") +
                " has observed that phase",
            "add kcc.mbarrier_wait on barrier #" + llvm::Twine(s.barIndex) +
                ", parity " + llvm::Twine(s.phase & 1) + " before the read")
        .notes.push_back({s.writer->getLoc(), "the copy into the stage"});
    return false;
  }
  return true;
}

bool readStage(Interpreter &in, Operation *op, Value buf, Value stageV) {
  Stage *s = stageAt(in, op, buf, stageV);
  if (!s || !readable(in, op, buf, *s))
    return false;
  if (s->data == Stage::Generic && !s->synced) {
    in.fail(op->getLoc(),
            "reads stage " + llvm::Twine(stageIndex(in, buf, s)) +
                " written by other threads' kcc.smem_store without a "
                "kcc.cta_barrier in between",
            "add kcc.cta_barrier between the store and the load")
        .notes.push_back({s->writer->getLoc(), "the write"});
    return false;
  }
  s->consumed = true;
  s->reader = op;
  s->readerRole = in.role();
  noteRead(in, *s, op);
  return true;
}

//===----------------------------------------------------------------------===//
// Op rules
//===----------------------------------------------------------------------===//

bool smemAlloc(Interpreter &in, kcc::SmemAllocOp op) {
  in.state.stages[op.getResult()].assign(op.getType().getStages(), Stage());
  return true;
}

bool tmaLoad(Interpreter &in, kcc::TmaLoadOp op) {
  // A multicast copy stands for the parts every CTA of the cluster copies:
  // this CTA's stage receives the whole box, its barrier all the bytes.
  if (op.getMulticast() && !clusterAccess(in, op))
    return false;
  Stage *s = stageAt(in, op, op.getDst(), op.getStage());
  if (!s)
    return false;
  Barrier *b = barrierAt(in, op, op.getBars(), op.getIndex());
  if (!b || !usable(in, op, op.getBars(), b, /*needFence=*/true))
    return false;
  if (!writable(in, op, op.getDst(), *s) || !asyncProxyWritable(in, op, *s))
    return false;
  if (!loadAfterStores(in, bulkCopy(in, op, op.getMap(), op.getCoords())))
    return false;
  *s = Stage();
  s->data = Stage::Async;
  s->writer = op;
  s->writerRole = in.role();
  s->bars = op.getBars();
  s->barIndex = barrierIndex(in, op.getBars(), b);
  s->phase = b->phase;
  s->issuedAt = in.now();
  b->cur.brought = addWrap(b->cur.brought, op.getBytes());
  b->cur.loads.push_back(op);
  return true;
}

bool smemLoad(Interpreter &in, kcc::SmemLoadOp op) {
  return readStage(in, op, op.getSrc(), op.getStage());
}

bool smemStore(Interpreter &in, kcc::SmemStoreOp op) {
  Stage *s = stageAt(in, op, op.getDst(), op.getStage());
  if (!s || !writable(in, op, op.getDst(), *s))
    return false;
  if (s->tmaWaitedAlone) {
    in.fail(op->getLoc(),
            "writing stage " + llvm::Twine(stageIndex(in, op.getDst(), s)) +
                " from every thread when only the thread that issued the "
                "kcc.tma_store reading it has waited for that read "
                "(kcc.bulk_wait_group runs in that thread)",
            "add kcc.cta_barrier between the kcc.bulk_wait_group and this "
            "write")
        .notes.push_back(
            {s->tmaWaitedAlone->getLoc(), "the tma_store reading the stage"});
    return false;
  }
  *s = Stage();
  s->data = Stage::Generic;
  s->writer = op;
  s->writerRole = in.role();
  return true;
}

bool warpMma(Interpreter &in, kcc::WarpMmaOp op) {
  return readStage(in, op, op.getA(), op.getAStage()) &&
         readStage(in, op, op.getB(), op.getBStage());
}

/// Every thread (of the running role) has reached it: their reads and
/// writes so far are complete and visible to each other.
bool ctaBarrier(Interpreter &in) {
  CtaState &st = in.state;
  // In the consumer role: a named barrier of the consumer threads.
  if (in.role() != Cta)
    st.synced[in.role()] = st.wgSynced[in.role()] = in.now();
  st.tmemReadUnsynced.clear();
  // A consumer group's barrier is its own (a named barrier per group): it
  // orders that group's reads and writes only. What the CTA did before the
  // split counts as consumer group 0's, whose threads were the CTA's first.
  int role = in.role();
  auto syncs = [&](int owner) {
    return role == Cta || owner == role || (owner == Cta && role == Consumer);
  };
  for (auto &entry : st.stages)
    for (Stage &s : entry.second) {
      if (syncs(s.readerRole))
        s.reader = nullptr;
      if (syncs(s.tmaRole))
        s.tmaWaitedAlone = nullptr;
      if (!syncs(s.writerRole))
        continue;
      if (s.data == Stage::CpAsync && s.cpWaited)
        s.cpSynced = true;
      if (s.data == Stage::Generic) {
        s.synced = true;
        s.fencedSynced = s.fencedSynced || s.fenced;
      }
    }
  return true;
}

bool loadsLandedAtExit(Interpreter &in) {
  for (auto &entry : in.state.stages)
    for (Stage &s : entry.second) {
      if (s.data != Stage::Async || landed(in, s))
        continue;
      auto smem = cast<kcc::SmemType>(entry.first.getType());
      std::string problem =
          "the kernel ends while this kcc.tma_load into stage " +
          std::to_string(stageIndex(in, entry.first, &s)) +
          " is still in flight: no wait completes barrier #" +
          std::to_string(s.barIndex) + " phase " + std::to_string(s.phase);
      std::string advice = "wait for every copy that is issued";
      // A copy issued before the last loop, outside it: a prologue load
      // that the loop did not run long enough to consume.
      Operation *loop = in.lastTopLoop();
      bool prologue = loop && s.issuedAt < in.lastTopStart() &&
                      !loop->isAncestor(s.writer) && smem.getStages() > 1;
      if (prologue) {
        problem += "; the loop runs " + std::to_string(in.lastTopTrip()) +
                   " iteration(s), fewer than the pipeline depth " +
                   std::to_string(smem.getStages());
        advice = "guard each prologue load (and its expect_tx) with scf.if "
                 "on the trip count, so a short loop does not leave stages "
                 "in flight";
      }
      Diag &d = in.fail(s.writer->getLoc(), problem, advice);
      if (prologue)
        d.notes.push_back({loop->getLoc(), "the pipelined loop"});
      d.notes.push_back({in.exitLoc(), "the kernel ends here"});
      return false;
    }
  return true;
}

} // namespace kcc::verify
