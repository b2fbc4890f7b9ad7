//===- Races.cpp - happens-before tracking of shared memory ---------------===//
//
// Every shared byte remembers its last write (who, in which barrier
// generation, at which clock) and the reads since. An access is ordered after
// an earlier one by another thread when
//  - a CTA-wide barrier separates them: all live threads of a CTA always
//    have the same generation (a full barrier completes only when every
//    thread arrived), so "earlier generation" means "before a barrier the
//    accessor has passed"; or
//  - the accessor acquired the other's clock: through an mbarrier phase it
//    waited for (arrivals and completed TMA transactions release into the
//    phase), a bulk wait_group (the copies of the groups it waited for), or
//    a partial barrier (bar.sync id, count) it passed with the other.
// Accesses of the async proxy (TMA) carry no generation: only an acquire
// orders them. A write unordered with an earlier read or write, or a read
// unordered with an earlier write, is a data race; a read of a byte nobody
// wrote is reported too (its value is undefined on the GPU).
//
//===----------------------------------------------------------------------===//
#include "sim/Machine.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

void kcc::sim::detail::joinInto(Clock &into, const Clock &from) {
  if (from.empty())
    return;
  // Joins run at every barrier, arrival and wgmma: the common case (every
  // id of `from` known already) raises entries in place, and a merge reuses
  // one scratch clock instead of allocating.
  bool known = true;
  for (size_t i = 0, j = 0; j < from.size(); ++j, ++i) {
    while (i < into.size() && into[i].first < from[j].first)
      ++i;
    if (i == into.size() || into[i].first != from[j].first) {
      known = false;
      break;
    }
    into[i].second = std::max(into[i].second, from[j].second);
  }
  if (known)
    return;
  static thread_local Clock out;
  out.clear();
  out.reserve(into.size() + from.size());
  size_t i = 0, j = 0;
  while (i < into.size() || j < from.size()) {
    if (j == from.size() || (i < into.size() && into[i].first < from[j].first))
      out.push_back(into[i++]);
    else if (i == into.size() || from[j].first < into[i].first)
      out.push_back(from[j++]);
    else {
      out.push_back({into[i].first, std::max(into[i].second, from[j].second)});
      ++i, ++j;
    }
  }
  into.swap(out);
}

uint32_t kcc::sim::detail::clockOf(const Clock &c, uint32_t id) {
  auto it = std::lower_bound(c.begin(), c.end(), id,
                             [](const std::pair<uint32_t, uint32_t> &e,
                                uint32_t v) { return e.first < v; });
  return it != c.end() && it->first == id ? it->second : 0;
}

void Machine::resetShadow() {
  // Only the bytes the last CTA touched need clearing (a CTA of a large
  // grid often touches a part of a large allocation).
  if (shadow.size() != prog.sharedBytes)
    shadow.assign(prog.sharedBytes, ByteShadow());
  else if (shadowLo < shadowHi)
    std::fill(shadow.begin() + shadowLo, shadow.begin() + shadowHi,
              ByteShadow());
  shadowLo = ~0ull, shadowHi = 0;
  globalShadow.clear();
  readPool.clear();
  writePool.clear();
  pendingUninit.reset();
  nextSyncIdCollection = kSyncIdCollectionStep;
}

void Machine::newAsyncSyncId() {
  if (copies.size() < nextSyncIdCollection)
    return;
  // An asynchronous copy's sync id matters to an ordering check only while
  // a shadow record names it as the writer or a reader; after that it only
  // lengthens every clock it was joined into (a pipelined loop adds one per
  // copy, and the joins became quadratic in the trip count). Ids of copies
  // still in flight, and tcgen05.mma ids (Tcgen05.cpp asks whether a thread
  // acquired one), stay.
  // This CTA's copy ids: the copy's index, else -1. In a cluster, multicasts
  // write peers' shadows and ids travel into peers' clocks, so all of them
  // are looked at.
  uint32_t firstCopy = idBase + numThreads;
  auto copyIndex = [&](uint32_t id) -> int64_t {
    if (id == kNone || id < firstCopy || id - firstCopy >= copies.size())
      return -1;
    return id - firstCopy;
  };
  std::vector<bool> live(copies.size(), false);
  auto mark = [&](uint32_t id) {
    if (int64_t i = copyIndex(id); i >= 0)
      live[i] = true;
  };
  for (size_t i = 0; i < copies.size(); ++i)
    if (!copies[i].done || copies[i].tcgen05)
      live[i] = true;
  for (Machine *m : cluster->ctas) {
    // Live writes only: superseded ones would keep every copy's id.
    for (uint64_t b = m->shadowLo; b < m->shadowHi; ++b)
      if (uint32_t w = m->shadow[b].write; w != kNone)
        mark(m->writePool[w].id);
    for (const ReadRec &r : m->readPool) // superseded records too
      mark(r.id);
    m->globalShadow.forEach(
        [&](const GlobalShadow &g) { mark(g.wId), mark(g.rId); });
  }
  auto prune = [&](Clock &c) {
    llvm::erase_if(c, [&](const std::pair<uint32_t, uint32_t> &e) {
      int64_t i = copyIndex(e.first);
      return i >= 0 && !live[i];
    });
  };
  size_t kept = 0;
  for (bool l : live)
    kept += l;
  for (Machine *m : cluster->ctas) {
    for (Thread &t : m->threads)
      prune(t.acquired), prune(t.tcIssued);
    for (auto &[addr, mb] : m->mbarriers)
      prune(mb.releasing), prune(mb.completed);
    for (Clock &c : m->barrierReleased)
      prune(c);
    for (AsyncCopy &c : m->copies)
      if (!c.seen.empty())
        prune(c.seen);
    prune(m->exitClock);
  }
  prune(cluster->releasing), prune(cluster->completed);
  // The next collection when as many copies again were issued as are kept
  // (at least the step): each one's cost is repaid by the joins it shortens.
  nextSyncIdCollection =
      copies.size() + std::max<size_t>(kSyncIdCollectionStep, kept);
}

bool Machine::checkPendingUninit() {
  if (!pendingUninit)
    return true;
  if (raceReports == 0)
    fault = std::move(pendingUninit);
  pendingUninit.reset();
  return raceReports != 0 ? true : false;
}

namespace {
/// Who is accessing: a thread, or an async copy on behalf of its issuer.
struct Accessor {
  uint32_t id;   // stamped into the shadow
  uint32_t self; // program order: accesses by this id are ordered
  uint32_t gen;  // barrier generation for the ordering check
  uint32_t stampGen, clock;
  const Clock *acquired;
};

bool isOrdered(const Accessor &a, uint32_t id, uint32_t gen, uint32_t clock) {
  if (id == a.self || id == a.id)
    return true;
  if (gen != kAsyncGen) {
    // Generations order accesses within a CTA; a peer CTA's (distributed
    // shared memory, multicast) count through the generation it released.
    if (rankOfId(id) == rankOfId(a.self)) {
      if (gen < a.gen)
        return true;
    } else if (gen < clockOf(*a.acquired, genSyncId(rankOfId(id)))) {
      return true;
    }
  }
  return clockOf(*a.acquired, id) >= clock;
}
} // namespace

bool Machine::ordered(const Thread &t, uint32_t id, uint32_t gen,
                      uint32_t clock) const {
  Accessor a{t.sid, t.sid, t.gen, t.gen, t.clock, &t.acquired};
  return isOrdered(a, id, gen, clock);
}

bool Machine::sharedAccess(Thread *t, uint32_t op, uint64_t offset,
                           uint64_t bytes, bool store, uint32_t asyncId,
                           bool atomic, uint64_t unit) {
  if (!opts.checkRaces && !opts.checkUninitializedShared)
    return true;
  Accessor a;
  // The copy behind an async accessor: this CTA's, or a peer's multicast.
  const Machine &owner = t ? *this : ownerOf(asyncId);
  const AsyncCopy *copy =
      t ? nullptr : &owner.copies[(asyncId & kLocalIdMask) - owner.numThreads];
  if (t) {
    a = {t->sid, t->sid, t->gen, t->gen, t->clock, &t->acquired};
  } else {
    const AsyncCopy &c = *copy;
    const Thread &issuer = owner.threads[c.issuer];
    // The copy is ordered after what its issuer had seen when it issued it;
    // the issuer's state has not changed in ways that matter since then
    // except through later acquires, which only add order: an
    // under-approximation of races, never a false report. A wgmma's reads
    // are ordered after what its warpgroup had seen when it issued it.
    if (c.wgmma || c.tcgen05)
      a = {asyncId, asyncId, c.seenGen, kAsyncGen, 1, &c.seen};
    else
      a = {asyncId, issuer.sid, issuer.gen, kAsyncGen, 1, &issuer.acquired};
  }
  auto name = [&](uint32_t id) -> std::string {
    const Machine &o = ownerOf(id);
    uint32_t local = id & kLocalIdMask;
    if (local < o.numThreads)
      return o.threadName(o.threads[local]);
    const AsyncCopy &c = o.copies[local - o.numThreads];
    if (c.wgmma)
      return "the wgmma.mma_async of " +
             o.describeWarpgroup(o.wgmmas[c.wgmmaIndex].warpgroup);
    if (c.tcgen05)
      return "the tcgen05.mma issued by " + o.threadName(o.threads[c.issuer]);
    return std::string(c.dests ? "a multicast TMA load issued by "
                               : "an asynchronous copy (TMA) issued by ") +
           o.threadName(o.threads[c.issuer]);
  };
  auto race = [&](uint64_t byte, uint32_t otherId, uint32_t otherOp,
                  bool otherStore) {
    if (!reportedPairs.emplace(std::make_pair(op, otherOp), true).second)
      return;
    Report r{Report::Error, "", locOf(op)};
    r.message =
        llvm::formatv("data race on shared memory: {0} of {1} at {2} by {3} "
                      "is not ordered with the {4} by {5} (no barrier, "
                      "mbarrier wait or bulk wait_group between them)",
                      store ? "store" : "load",
                      (unit ? unit : bytes) == 1
                          ? "1 byte"
                          : std::to_string(unit ? unit : bytes) + " bytes",
                      describeShared(byte) +
                          (inCluster() ? " of " + ctaName() : ""),
                      name(a.id), otherStore ? "store" : "load", name(otherId))
            .str();
    reportRace(std::move(r), otherOp, otherStore);
  };
  bool asyncWgmma = copy && (copy->wgmma || copy->tcgen05);
  size_t reportsBefore = raceReports;
  // The bytes of one access mostly share their shadow (they were written
  // and read together): a byte whose shadow equals the previous byte's
  // before the access gets that byte's shadow after it, the same checks
  // having the same outcome (reports are once per pair of operations). For
  // that the read lists are shared between bytes and never changed in
  // place: a node is replaced, not updated.
  ByteShadow before, after;
  bool memo = false;
  uint32_t write = kNone; // this access's record, made at its first byte
  touchShadow(offset, bytes);
  for (uint64_t b = offset; b < offset + bytes; ++b) {
    ByteShadow &s = shadow[b];
    if (memo && s == before) {
      s = after;
      continue;
    }
    before = s;
    memo = true;
    // Sets `after` on every way out of this iteration.
    llvm::scope_exit done([&] { after = s; });
    if (!store) {
      if (s.write == kNone) {
        // Reported at the next barrier or the CTA's end unless a racing
        // write shows up first: then the race is the better report (a
        // missing barrier reads before or after the write, by schedule).
        if (opts.checkUninitializedShared && (t || asyncWgmma) &&
            !pendingUninit)
          pendingUninit = Fault{
              llvm::formatv("load of {0}, which no thread has written, by "
                            "{1} (its value is undefined)",
                            describeShared(b), name(a.id))
                  .str(),
              op,
              {}};
      } else if (const WriteRec w = writePool[s.write];
                 opts.checkRaces && !isOrdered(a, w.id, w.gen, w.clock)) {
        race(b, w.id, w.op, true);
      }
      // Record the read. Reads older than the current generation are
      // ordered before every later access of a thread, so a new generation
      // starts a new list (async reads, which no barrier orders, are kept).
      if (s.reads != kNone) {
        const ReadRec head = readPool[s.reads];
        if (head.last() == a.id) {
          // This accessor's own last read, superseded (a record of lanes
          // keeps the others).
          uint32_t next = head.next;
          if (head.lanes & (head.lanes - 1)) {
            ReadRec rest = head;
            rest.lanes &= ~(1ull << (63 - llvm::countl_zero(head.lanes)));
            readPool.push_back(rest);
            next = readPool.size() - 1;
          }
          readPool.push_back(
              {a.id, a.stampGen, std::max(head.clock, a.clock), op, next});
          s.reads = readPool.size() - 1;
          continue;
        }
        if (head.gen != kAsyncGen && head.gen < a.gen) {
          uint32_t keep = kNone;
          for (uint32_t i = s.reads; i != kNone; i = readPool[i].next)
            if (readPool[i].gen == kAsyncGen) {
              ReadRec copy = readPool[i];
              copy.next = keep;
              copy.oneGen = false;
              readPool.push_back(copy);
              keep = readPool.size() - 1;
            }
          s.reads = keep;
        }
      }
      readPool.push_back({a.id, a.stampGen, a.clock, op, s.reads});
      s.reads = readPool.size() - 1;
      continue;
    }
    if (opts.checkRaces) {
      if (s.write != kNone) {
        const WriteRec w = writePool[s.write];
        if (!(atomic && w.atomic) && !isOrdered(a, w.id, w.gen, w.clock))
          race(b, w.id, w.op, true);
      }
      bool raced = false;
      for (uint32_t i = s.reads; i != kNone && !raced; i = readPool[i].next) {
        const ReadRec &rr = readPool[i];
        rr.forEachReader([&](uint32_t id) {
          raced = !isOrdered(a, id, rr.gen, rr.clock);
          if (raced)
            race(b, id, rr.op, false);
          return raced;
        });
      }
    }
    if (write == kNone)
      write = newWrite(a.id, a.stampGen, a.clock, op, atomic);
    s.write = write;
    s.reads = kNone;
  }
  if (raceReports > reportsBefore && raceReports >= opts.maxReports) {
    setFault(
        op, llvm::formatv("stopping after {0} data race reports", raceReports));
    return false;
  }
  return true;
}

// The fast paths below decide as sharedAccess and globalAccess would
// (ordered() is the same rule for a thread) and leave everything else,
// reports included, to them.
// The common cases, which sharedAccess would decide the same way, without
// reading the read lists: a read of bytes that share one shadow whose last
// write is the thread's own or before a barrier it passed, extending a list
// of its generation (or starting one where the list holds only an earlier
// generation's reads); a store whose bytes' last writes and reads are all
// ordered that way. Anything else (unwritten bytes, orderings through
// clocks, races, async readers) takes sharedAccess.
inline bool Machine::sharedReadFast(const Thread &t, uint32_t op,
                                    uint64_t offset, uint64_t bytes) {
  ByteShadow *s = shadow.data() + offset;
  const ByteShadow s0 = s[0];
  if (s0.write == kNone)
    return false;
  if (opts.checkRaces) {
    const WriteRec &w = writePool[s0.write];
    if (!ordered(t, w.id, w.gen, w.clock))
      return false;
  }
  for (uint64_t b = 1; b < bytes; ++b)
    if (!(s[b] == s0))
      return false;
  uint32_t next = s0.reads;
  bool oneGen = true;
  if (next != kNone) {
    const ReadRec &head = readPool[next];
    if (head.last() == t.sid ||
        !(head.gen == t.gen || (head.oneGen && head.gen < t.gen)))
      return false;
    // A list of one generation stays one (the head's is this thread's).
    if (head.gen != t.gen)
      next = kNone; // sharedAccess drops them: no async reads to keep
    else
      oneGen = head.oneGen;
  }
  ReadRec rec{t.sid, t.gen, t.clock, op, next};
  rec.oneGen = oneGen;
  readPool.push_back(rec);
  ByteShadow after = s0;
  after.reads = readPool.size() - 1;
  std::fill_n(s, bytes, after);
  return true;
}

inline bool Machine::sharedWriteFast(const Thread &t, uint32_t op,
                                     uint64_t offset, uint64_t bytes) {
  ByteShadow *s = shadow.data() + offset;
  if (opts.checkRaces) {
    // Bytes equal to the one before were checked with it.
    for (uint64_t b = 0; b < bytes; ++b) {
      const ByteShadow &x = s[b];
      if (b && x == s[b - 1])
        continue;
      if (x.write != kNone) {
        const WriteRec &w = writePool[x.write];
        if (!ordered(t, w.id, w.gen, w.clock))
          return false;
      }
      if (x.reads == kNone)
        continue;
      bool simple = true;
      if (readPool[x.reads].oneGen)
        simple = readPool[x.reads].gen < t.gen;
      else
        for (uint32_t i = x.reads; i != kNone && simple; i = readPool[i].next)
          readPool[i].forEachReader([&](uint32_t id) {
            simple = ordered(t, id, readPool[i].gen, readPool[i].clock);
            return !simple;
          });
      if (!simple)
        return false;
    }
  }
  ByteShadow after;
  after.write = newWrite(t.sid, t.gen, t.clock, op, /*atomic=*/false);
  std::fill_n(s, bytes, after);
  return true;
}

bool Machine::threadSharedAccess(Thread &t, uint32_t op, uint64_t offset,
                                 uint64_t bytes, bool store) {
  if (!opts.checkRaces && !opts.checkUninitializedShared)
    return true;
  touchShadow(offset, bytes);
  return recordShared(t, op, offset, bytes, store);
}

inline bool Machine::recordShared(Thread &t, uint32_t op, uint64_t offset,
                                  uint64_t bytes, bool store) {
  bool fast = store ? sharedWriteFast(t, op, offset, bytes)
                    : sharedReadFast(t, op, offset, bytes);
  return fast || sharedAccess(&t, op, offset, bytes, store);
}

bool Machine::threadGlobalAccess(Thread &t, uint32_t op, uint64_t addr,
                                 uint64_t bytes, bool store) {
  if (!opts.checkRaces || bytes == 0)
    return true;
  uint64_t block = addr >> 4;
  if ((addr + bytes - 1) >> 4 != block)
    return globalAccess(t, op, addr, bytes, store);
  uint16_t mine = uint16_t(((1u << bytes) - 1) << (addr & 15));
  GlobalShadow &s = globalShadow[block];
  if (((s.wBytes & mine) && !ordered(t, s.wId, s.wGen, s.wClock)) ||
      (store && (s.rBytes & mine) && !ordered(t, s.rId, s.rGen, s.rClock)))
    return globalAccess(t, op, addr, bytes, store);
  s.record(t.sid, t.gen, t.clock, op, mine, store, /*atomic=*/false);
  return true;
}

uint64_t Machine::warpAccesses(bool shared, uint32_t first, uint64_t lanes,
                               uint32_t op, const uint64_t *addrs,
                               uint64_t bytes, bool store) {
  uint64_t done = 0;
  if (!shared) {
    for (uint64_t mm = lanes; mm; mm &= mm - 1) {
      unsigned l = llvm::countr_zero(mm);
      if (!threadGlobalAccess(threads[first + l], op, addrs[l], bytes, store))
        break;
      done |= 1ull << l;
    }
    return done;
  }
  if (!opts.checkRaces && !opts.checkUninitializedShared)
    return lanes;
  uint64_t lo = ~0ull, hi = 0;
  for (uint64_t mm = lanes; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    lo = std::min(lo, addrs[l]), hi = std::max(hi, addrs[l]);
  }
  touchShadow(lo, hi + bytes - lo);
  for (uint64_t mm = lanes; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    if (!recordShared(threads[first + l], op, addrs[l], bytes, store))
      break;
    done |= 1ull << l;
  }
  return done;
}

uint64_t Machine::extendSharedReads(uint32_t first, uint64_t lanes, uint32_t op,
                                    uint64_t offset, uint64_t bytes) {
  if (!opts.checkRaces && !opts.checkUninitializedShared)
    return lanes;
  // What threadSharedAccess's fast path does for each lane in turn, with
  // the shadow's checks made once.
  ByteShadow *s = shadow.data() + offset;
  const ByteShadow s0 = s[0];
  for (uint64_t b = 1; b < bytes; ++b)
    if (!(s[b] == s0))
      return 0;
  if (s0.write == kNone || s0.reads == kNone)
    return 0;
  const WriteRec w = writePool[s0.write];
  uint32_t head = s0.reads, gen = readPool[head].gen,
           last = readPool[head].last();
  bool oneGen = readPool[head].oneGen;
  // One record for each run of lanes with one clock: the records of the
  // lanes one by one, in the order a walk meets them (ReadRec::lanes).
  ReadRec run{idBase + first, gen, 0, op, head};
  run.oneGen = oneGen; // the lanes' reads are in the head's generation
  uint64_t runLanes = 0;
  auto flush = [&] {
    if (!runLanes)
      return;
    run.lanes = runLanes;
    readPool.push_back(run);
    head = run.next = readPool.size() - 1;
    runLanes = 0;
  };
  uint64_t done = 0;
  for (uint64_t mm = lanes; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    const Thread &t = threads[first + l];
    if (t.gen != gen || last == t.sid ||
        (opts.checkRaces && !ordered(t, w.id, w.gen, w.clock)))
      break;
    if (runLanes && t.clock != run.clock)
      flush();
    run.clock = t.clock;
    runLanes |= 1ull << l;
    last = t.sid;
    done |= 1ull << l;
  }
  flush();
  for (uint64_t b = 0; b < bytes; ++b)
    s[b].reads = head;
  return done;
}

uint64_t Machine::extendGlobalReads(uint32_t first, uint64_t lanes, uint32_t op,
                                    uint64_t addr, uint64_t bytes) {
  if (!opts.checkRaces || bytes == 0)
    return lanes;
  uint64_t block = addr >> 4;
  if ((addr + bytes - 1) >> 4 != block)
    return 0;
  uint16_t mine = uint16_t(((1u << bytes) - 1) << (addr & 15));
  GlobalShadow &s = globalShadow[block];
  // What threadGlobalAccess's fast path does for each lane in turn: the
  // write is checked against each, the read fields end as the last's.
  uint64_t done = 0;
  const Thread *last = nullptr;
  for (uint64_t mm = lanes; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    const Thread &t = threads[first + l];
    if ((s.wBytes & mine) && !ordered(t, s.wId, s.wGen, s.wClock))
      break;
    last = &t;
    done |= 1ull << l;
  }
  if (last)
    s.record(last->sid, last->gen, last->clock, op, mine, /*store=*/false,
             /*atomic=*/false);
  return done;
}

bool Machine::globalAccess(Thread &t, uint32_t op, uint64_t addr,
                           uint64_t bytes, bool store, bool atomic) {
  if (!opts.checkRaces || bytes == 0)
    return true;
  Accessor a{t.sid, t.sid, t.gen, t.gen, t.clock, &t.acquired};
  size_t reportsBefore = raceReports;
  auto race = [&](uint32_t otherId, uint32_t otherOp, bool otherStore) {
    // Once per pair of source locations, either way round: a tile access
    // is several instructions (per vector chunk, per element of a gather).
    if (!reportedPairs.emplace(std::make_pair(op, otherOp), true).second ||
        !reportedGlobalPairs
             .insert(std::minmax(locOf(op).getAsOpaquePointer(),
                                 locOf(otherOp).getAsOpaquePointer()))
             .second)
      return;
    Report r{Report::Error, "", locOf(op)};
    r.message =
        llvm::formatv("data race on global memory: {0} of {1} at {2} by {3} "
                      "is not ordered with the {4} by {5} of the same "
                      "program (no barrier between them)",
                      store ? "store" : "load",
                      bytes == 1 ? "1 byte" : std::to_string(bytes) + " bytes",
                      describeGlobal(addr, bytes), threadName(t),
                      otherStore ? "store" : "load",
                      threadName(threads[otherId - idBase]))
            .str();
    reportRace(std::move(r), otherOp, otherStore);
  };
  for (uint64_t block = addr >> 4, last = (addr + bytes - 1) >> 4;
       block <= last; ++block) {
    // The bytes of this 16-byte block the access covers.
    uint64_t lo = std::max(addr, block << 4),
             hi = std::min(addr + bytes, (block + 1) << 4);
    uint16_t mine = uint16_t(((1u << (hi - lo)) - 1) << (lo & 15));
    GlobalShadow &s = globalShadow[block];
    if ((s.wBytes & mine) && !(atomic && s.wAtomic) &&
        !isOrdered(a, s.wId, s.wGen, s.wClock))
      race(s.wId, s.wOp, true);
    if (store && (s.rBytes & mine) && !(atomic && s.rAtomic) &&
        !isOrdered(a, s.rId, s.rGen, s.rClock))
      race(s.rId, s.rOp, false);
    s.record(t.sid, t.gen, t.clock, op, mine, store, atomic);
  }
  if (raceReports > reportsBefore && raceReports >= opts.maxReports) {
    setFault(
        op, llvm::formatv("stopping after {0} data race reports", raceReports));
    return false;
  }
  return true;
}

void Machine::reportRace(Report error, uint32_t otherOp, bool otherStore) {
  result.reports.push_back(std::move(error));
  result.reports.push_back(
      {Report::Note,
       llvm::formatv("the conflicting {0}", otherStore ? "store" : "load")
           .str(),
       locOf(otherOp)});
  ++raceReports;
}
