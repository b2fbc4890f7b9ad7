//===- Cluster.cpp - thread-block clusters (sm_90) ------------------------===//
//
// The CTAs of a cluster (nvvm.cluster_dim) run together under one seeded
// scheduler (Simulator.cpp's runCluster), each with its own threads, shared
// memory, mbarriers, copies and race shadows. This file has what crosses
// between them (PTX ISA 8.x: "Cluster of Cooperative Thread Arrays",
// barrier.cluster, mapa, the shared::cluster state space):
//  - a shared::cluster address names a CTA by rank (mapa tags it, see
//    kClusterRankShift); loads, stores and atomics through it reach that
//    CTA's shared memory (checked by its race shadows), mbarrier arrive /
//    expect_tx / complete_tx its mbarriers, and a multicast TMA load
//    (Async.cpp) lands in every CTA of its mask;
//  - barrier.cluster.arrive releases what the thread did (not .relaxed);
//    .wait blocks until every non-exited thread of the cluster arrived in
//    the phase and acquires the arrivals; an exiting thread counts as
//    arrived;
//  - protocol errors: using a peer's mbarrier before its init is ordered
//    before the use, or a peer's shared memory before anything orders the
//    access after the peer started (a cluster barrier after the init / at
//    the start is missing); a CTA exiting while a multicast to it is in
//    flight, or before a peer's access to it that nothing orders before
//    the exit, or a peer reaching it after it exited (a cluster barrier
//    before the exit is missing).
// Sync ids are unique in a cluster (kRankShift), so clocks carry across
// CTAs; a release to another CTA also carries the generation of the
// releasing CTA's barriers (genSyncId), which order its accesses there.
//
//===----------------------------------------------------------------------===//
#include "sim/Machine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

std::string Machine::ctaName() const {
  return llvm::formatv("CTA ({0}, {1}, {2})", ctaId[0], ctaId[1], ctaId[2])
      .str();
}

uint32_t Machine::clusterRegister(uint8_t sub) const {
  const std::array<uint32_t, 3> &d = cluster->dim;
  unsigned axis = sub & 3;
  switch (sub >> 2) {
  case 0: // %cluster_ctaid
    return ctaId[axis] % d[axis];
  case 1: // %cluster_nctaid
    return d[axis];
  case 2: // %clusterid
    return ctaId[axis] / d[axis];
  case 3: // %nclusterid
    return gridDim[axis] / d[axis];
  case 4: // %cluster_ctarank
    return rank;
  default: // %cluster_nctarank
    return d[0] * d[1] * d[2];
  }
}

Machine::Step Machine::clusterBarrier(Thread &t, const Inst &in) {
  Cluster &cl = *cluster;
  if (in.sub != 2) {
    // barrier.cluster.arrive: once per phase (PTX leaves a second arrival
    // before the phase completes undefined).
    if (t.clusterArrivals > cl.phase) {
      setFault(in.op, llvm::formatv("{0} arrives at the cluster barrier "
                                    "twice in phase {1}: each thread "
                                    "arrives once a phase, then waits "
                                    "(barrier.cluster.wait)",
                                    threadName(t), cl.phase));
      return Step::Fault;
    }
    ++t.clusterArrivals;
    if (in.sub == 0) {
      // Release, across the cluster: the clock, and the generation of this
      // CTA's barriers the thread passed.
      joinInto(cl.releasing, t.acquired);
      joinInto(cl.releasing, Clock{{t.sid, t.clock}, {genSyncId(rank), t.gen}});
      ++t.clock;
    }
    if (--cl.pending == 0)
      completeClusterPhase(cl);
    return Step::Continue;
  }
  if (t.clusterArrivals == 0) {
    setFault(in.op, llvm::formatv("{0} waits at the cluster barrier without "
                                  "having arrived (barrier.cluster.arrive)",
                                  threadName(t)));
    return Step::Fault;
  }
  // The phase of its last arrival: done, or the one in progress.
  if (cl.phase >= t.clusterArrivals) {
    joinInto(t.acquired, cl.completed);
    return Step::Continue;
  }
  t.state = TS::ClusterWait;
  return Step::Block;
}

void kcc::sim::detail::completeClusterPhase(Cluster &cl) {
  ++cl.phase;
  cl.completed = std::move(cl.releasing);
  cl.releasing.clear();
  cl.pending = 0;
  for (Machine *m : cl.ctas)
    cl.pending += m->numThreads - m->exited;
  for (Machine *m : cl.ctas)
    for (Thread &o : m->threads)
      if (o.state == TS::ClusterWait && o.clusterArrivals <= cl.phase) {
        joinInto(o.acquired, cl.completed);
        ++o.pc;
        m->makeReady(o);
      }
}

std::string Machine::describeClusterBarrier() const {
  const Cluster &cl = *cluster;
  std::string missing;
  for (const Machine *m : cl.ctas) {
    std::vector<uint32_t> ids;
    for (const Thread &o : m->threads)
      if (o.state != TS::Exited && o.clusterArrivals <= cl.phase)
        ids.push_back(o.tid);
    if (!ids.empty())
      missing +=
          (missing.empty() ? "" : ", ") + idRanges(ids) + " of " + m->ctaName();
  }
  return llvm::formatv("phase {0}: {1} thread{2} of the cluster {3} not "
                       "arrived ({4})",
                       cl.phase, cl.pending, cl.pending == 1 ? "" : "s",
                       cl.pending == 1 ? "has" : "have", missing)
      .str();
}

Machine *Machine::clusterTarget(Thread &t, uint32_t op, uint64_t addr,
                                uint64_t &offset) {
  uint64_t tag = addr >> kClusterRankShift;
  offset = addr & kClusterOffsetMask;
  if (tag == 0 || tag - 1 == rank)
    return this;
  if (tag - 1 >= cluster->ctas.size()) {
    setFault(op,
             llvm::formatv("{0} uses the shared::cluster address {1:x}, "
                           "which names CTA rank {2}; its cluster has "
                           "{3} CTA{4}",
                           threadName(t), addr, tag - 1, cluster->ctas.size(),
                           cluster->ctas.size() == 1 ? "" : "s"));
    return nullptr;
  }
  return &peer(uint32_t(tag - 1));
}

namespace {
/// Whether `c` holds anything CTA `rank` released: then the CTA had
/// started when it did.
bool acquiredFrom(const Clock &c, uint32_t rank) {
  auto it = std::lower_bound(c.begin(), c.end(), rank << kRankShift,
                             [](const std::pair<uint32_t, uint32_t> &e,
                                uint32_t v) { return e.first < v; });
  return it != c.end() && rankOfId(it->first) == rank;
}
} // namespace

bool Machine::peerExited(Thread &t, uint32_t op, Machine &peer,
                         const std::string &access, uint64_t offset) {
  setFault(op, llvm::formatv("{0} of the cluster exited before {1} {2} at "
                             "{3}: a cluster barrier before the exit is "
                             "missing",
                             peer.ctaName(), threadName(t), access,
                             peer.describeShared(offset)));
  fault->notes.push_back(
      {Report::Note, peer.ctaName() + " exited here", locOf(peer.exitOp)});
  return false;
}

bool Machine::checkPeerMBarrier(Thread &t, uint32_t op, Machine &peer,
                                uint64_t addr, const char *what) {
  if (peer.ctaExited)
    return peerExited(t, op, peer, std::string(what) + " its mbarrier", addr);
  auto it = peer.mbarriers.find(addr);
  if (it != peer.mbarriers.end() && it->second.valid &&
      orderedAcross(t.acquired, it->second.initId, it->second.initGen,
                    it->second.initClock))
    return true;
  // Not initialized yet, or not known to be: which one depends on the
  // schedule, the missing order does not.
  setFault(op, llvm::formatv("{0} {1} the mbarrier at {2} of {3}, whose "
                             "mbarrier.init is not ordered before it{4}: a "
                             "cluster barrier after mbarrier.init is missing",
                             threadName(t), what, peer.describeShared(addr),
                             peer.ctaName(),
                             it == peer.mbarriers.end() ? " (not initialized "
                                                          "yet)"
                             : !it->second.valid        ? " (invalidated)"
                                                        : ""));
  if (it != peer.mbarriers.end())
    fault->notes.push_back(
        {Report::Note, "the mbarrier.init", locOf(it->second.initOp)});
  return false;
}

uint8_t *Machine::peerShared(Thread &t, uint32_t op, Machine &peer,
                             uint64_t offset, uint64_t bytes, bool store) {
  const char *what = store ? "stores to" : "loads from";
  if (peer.ctaExited) {
    peerExited(t, op, peer, std::string(what) + " its shared memory", offset);
    return nullptr;
  }
  if (offset + bytes > prog.sharedBytes) {
    setFault(op, llvm::formatv("out-of-bounds distributed shared-memory "
                               "access: {0} {1} {2} bytes at shared offset "
                               "{3} of {4}; the kernel has {5} bytes of "
                               "shared memory",
                               threadName(t), store ? "stores" : "loads", bytes,
                               offset, peer.ctaName(), prog.sharedBytes));
    return nullptr;
  }
  // CUDA: a CTA's shared memory is there for its peers once it started,
  // which only a cluster barrier (or another release of it) tells them.
  if (!acquiredFrom(t.acquired, peer.rank)) {
    setFault(op, llvm::formatv("{0} {1} the shared memory of {2} at {3} "
                               "before anything orders it after that CTA "
                               "started: a cluster barrier before "
                               "distributed shared-memory accesses is "
                               "missing",
                               threadName(t), what, peer.ctaName(),
                               peer.describeShared(offset)));
    return nullptr;
  }
  peer.recordPeerAccess(t, op, offset, /*arrive=*/false);
  accessPeer = &peer;
  return peer.shared.data() + offset;
}

void Machine::recordPeerAccess(const Thread &t, uint32_t op, uint64_t offset,
                               bool arrive) {
  // Clocks and generations only grow along a thread: its last access
  // ordered before the exit orders the earlier ones.
  peerAccesses[t.sid] = {t.gen, t.clock, op, offset, arrive};
}

bool Machine::ctaExit(const Thread &last) {
  ctaExited = true;
  exitOp = prog.code[last.exitPc].op;
  auto exitError = [&](const llvm::Twine &what, uint32_t peerOp,
                       const char *note) {
    setFault(exitOp, llvm::formatv("{0} of the cluster exited while {1}: a "
                                   "cluster barrier before the exit is "
                                   "missing",
                                   ctaName(), what.str()));
    fault->notes.push_back({Report::Note, note, locOf(peerOp)});
    return false;
  };
  for (Machine *m : cluster->ctas) {
    if (m == this)
      continue;
    for (const AsyncCopy &c : m->copies)
      if (!c.done && (c.dests >> rank & 1) && !(c.landed >> rank & 1))
        return exitError("a multicast TMA load issued by " +
                             m->threadName(m->threads[c.issuer]) +
                             " was still in flight to it",
                         c.op, "the multicast TMA load");
  }
  // Peers' accesses, in a fixed order for a deterministic report.
  std::vector<std::pair<uint32_t, PeerAccess>> accesses(peerAccesses.begin(),
                                                        peerAccesses.end());
  llvm::sort(accesses,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  for (const auto &[id, a] : accesses)
    if (!orderedAcross(exitClock, id, a.gen, a.clock)) {
      const Machine &o = ownerOf(id);
      return exitError(
          llvm::formatv("{0} may still {1} {2} (nothing orders that before "
                        "the exit)",
                        o.threadName(o.threads[id & kLocalIdMask]),
                        a.arrive ? "arrive on its mbarrier at"
                                 : "access its shared memory at",
                        describeShared(a.offset)),
          a.op, a.arrive ? "the arrive" : "the access");
    }
  // Its own copies land, as a lone CTA's do at its end; a multicast's
  // parts for its peers stay in flight.
  for (uint32_t i = 0; i < copies.size(); ++i) {
    const AsyncCopy &c = copies[i];
    if (c.done || c.wgmma || c.tcgen05)
      continue;
    if (!c.dests ? !completeCopy(i)
                 : (c.dests >> rank & 1) && !(c.landed >> rank & 1) &&
                       !landCopy(i, *this))
      return false;
  }
  return finishCta();
}
