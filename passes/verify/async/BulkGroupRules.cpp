//===- BulkGroupRules.cpp - transfer rules of bulk async-groups -----------===//
//
// tma_stores go into the open bulk async-group; kcc.bulk_commit_group closes
// it and kcc.bulk_wait_group N waits until at most N committed groups are in
// flight (with `read`: only until their sources are read). Stores of one
// group may not write overlapping boxes, a tma_load may not read a box an
// un-completed store writes, and the kernel may not end with stores in
// flight.
//
//===----------------------------------------------------------------------===//

#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

using namespace mlir;

namespace kcc::verify {

/// Whether the boxes of `a` and `b` (same map) overlap; nullopt if unknown.
static std::optional<bool> overlap(const BulkCopy &a, const BulkCopy &b) {
  auto box = cast<kcc::TensorMapType>(a.map.getType()).getBox();
  bool unknown = false;
  for (size_t d = 0;
       d < box.size() && d < a.coords.size() && d < b.coords.size(); ++d) {
    // Along the innermost dimension a copy of P parts spans P boxes.
    bool inner = d + 1 == box.size();
    int64_t aExtent = box[d] * (inner ? a.parts : 1);
    int64_t bExtent = box[d] * (inner ? b.parts : 1);
    Scalar diff = linear(a.coords[d], b.coords[d], -1);
    if (!diff.isConst())
      unknown = true;
    else if (diff.c >= bExtent || diff.c <= -aExtent)
      return false; // disjoint along this dimension
  }
  if (unknown)
    return std::nullopt;
  return true;
}

static bool checkOverlap(Interpreter &in, const BulkCopy &copy,
                         const BulkCopy &other, const llvm::Twine &problem,
                         const llvm::Twine &advice, const char *noteText) {
  if (copy.map != other.map)
    return true;
  std::optional<bool> o = overlap(copy, other);
  if (o && !*o)
    return true;
  if (!o)
    in.fail(copy.op->getLoc(),
            "cannot prove the async protocol: the boxes of this copy and an "
            "un-completed kcc.tma_store to the same tensor map may overlap "
            "(their coordinates do not differ by a constant)",
            advice)
        .notes.push_back({other.op->getLoc(), noteText});
  else
    in.fail(copy.op->getLoc(), problem, advice)
        .notes.push_back({other.op->getLoc(), noteText});
  return false;
}

BulkCopy bulkCopy(Interpreter &in, Operation *op, Value map,
                  ValueRange coords) {
  BulkCopy c{op, map, {}, Value(), 0};
  for (Value v : coords)
    c.coords.push_back(in.get(v));
  if (auto load = dyn_cast<kcc::TmaLoadOp>(op))
    c.parts = load.getParts();
  else if (auto store = dyn_cast<kcc::TmaStoreOp>(op))
    c.parts = store.getParts();
  return c;
}

bool loadAfterStores(Interpreter &in, const BulkCopy &copy) {
  // Any consumer group's stores: the producer's loads follow them all.
  for (const IssueQueues &st : in.state.queues) {
    for (const BulkCopy &store : st.openGroup)
      if (!checkOverlap(in, copy, store,
                        "relying on order inside one bulk async-group: this "
                        "kcc.tma_load reads a box that a kcc.tma_store of the "
                        "current, uncommitted group writes",
                        "commit the group and wait for it with "
                        "kcc.bulk_wait_group 0 (without read) before the load",
                        "the tma_store writing the box"))
        return false;
    for (const auto &group : st.committed)
      for (const BulkCopy &store : group)
        if (!checkOverlap(in, copy, store,
                          "this kcc.tma_load reads a box that a kcc.tma_store "
                          "writes whose bulk async-group has not completed",
                          "add kcc.bulk_wait_group 0 (without read) before "
                          "the load",
                          "the tma_store writing the box"))
          return false;
    for (const BulkCopy &store : st.unfinished)
      if (!checkOverlap(in, copy, store,
                        "this kcc.tma_load reads a box that a kcc.tma_store "
                        "writes, and `bulk_wait_group ... read` only waited "
                        "for the store's source reads, not its writes",
                        "wait with kcc.bulk_wait_group 0 without read before "
                        "the load",
                        "the tma_store writing the box"))
        return false;
  }
  return true;
}

bool tmaStore(Interpreter &in, kcc::TmaStoreOp op) {
  Stage *s = stageAt(in, op, op.getSrc(), op.getStage());
  if (!s || !readable(in, op, op.getSrc(), *s))
    return false;
  if (!asyncProxyReadable(in, op, *s))
    return false;
  BulkCopy copy = bulkCopy(in, op, op.getMap(), op.getCoords());
  copy.src = op.getSrc();
  copy.stage = stageIndex(in, op.getSrc(), s);
  for (const BulkCopy &st : in.queues().openGroup)
    if (!checkOverlap(in, copy, st,
                      "relying on order inside one bulk async-group: this "
                      "kcc.tma_store and an earlier one of the same group "
                      "write overlapping boxes of the same tensor map",
                      "commit the earlier store's group and wait for it "
                      "(kcc.bulk_commit_group; kcc.bulk_wait_group 0) "
                      "before this store",
                      "the earlier tma_store"))
      return false;
  s->consumed = true;
  s->tmaReader = op;
  s->tmaRole = in.role();
  noteRead(in, *s, op);
  in.queues().openGroup.push_back(std::move(copy));
  return true;
}

/// The stores of `group` have read their sources (and, unless `readOnly`,
/// written their boxes).
static void releaseGroup(Interpreter &in, std::vector<BulkCopy> &group,
                         bool readOnly) {
  for (BulkCopy &c : group) {
    auto it = in.state.stages.find(c.src);
    if (it != in.state.stages.end() && c.stage < (int64_t)it->second.size() &&
        it->second[c.stage].tmaReader == c.op) {
      it->second[c.stage].tmaReader = nullptr;
      it->second[c.stage].tmaWaitedAlone = c.op;
      it->second[c.stage].readEnd =
          std::max(it->second[c.stage].readEnd, in.now());
    }
    if (readOnly)
      in.queues().unfinished.push_back(c);
  }
}

bool bulkCommitGroup(Interpreter &in) {
  IssueQueues &q = in.queues();
  q.committed.push_back(std::move(q.openGroup));
  q.openGroup.clear();
  return true;
}

bool bulkWaitGroup(Interpreter &in, kcc::BulkWaitGroupOp op) {
  IssueQueues &st = in.queues();
  while (st.committed.size() > op.getPending()) {
    releaseGroup(in, st.committed.front(), op.getRead());
    st.committed.pop_front();
  }
  // Groups waited earlier with `read` are older than every group still
  // counted, so a wait without `read` completes their writes too.
  if (!op.getRead())
    st.unfinished.clear();
  return true;
}

bool bulkGroupsAtExit(Interpreter &in) {
  Location end = in.exitLoc();
  for (const IssueQueues &q : in.state.queues) {
    if (!q.openGroup.empty()) {
      in.fail(q.openGroup.front().op->getLoc(),
              "the kernel ends with this kcc.tma_store in an uncommitted bulk "
              "async-group: its shared-memory source may be released at exit "
              "while it is still being read",
              "add kcc.bulk_commit_group and kcc.bulk_wait_group 0 read before "
              "the end")
          .notes.push_back({end, "the kernel ends here"});
      return false;
    }
    for (const auto &group : q.committed)
      if (!group.empty()) {
        in.fail(group.front().op->getLoc(),
                "the kernel ends before the bulk async-group of this "
                "kcc.tma_store is waited: its shared-memory source may be "
                "released at exit while it is still being read",
                "add kcc.bulk_wait_group 0 read before the end")
            .notes.push_back({end, "the kernel ends here"});
        return false;
      }
  }
  return true;
}

} // namespace kcc::verify
