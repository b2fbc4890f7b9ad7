//===- Simulator.cpp - scheduling, barriers, deadlocks, the launch --------===//
#include "sim/Machine.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <thread>

using namespace kcc::sim;
using namespace kcc::sim::detail;

unsigned kcc::sim::hostThreadCount(unsigned requested) {
  if (!requested)
    if (const char *env = std::getenv("KCC_SIM_THREADS"))
      requested = unsigned(std::strtoul(env, nullptr, 10));
  if (!requested)
    requested = std::thread::hardware_concurrency();
  return std::max(1u, requested);
}

llvm::ThreadPoolInterface &kcc::sim::hostPool(unsigned threads) {
  static llvm::StdThreadPool pool(
      llvm::hardware_concurrency(hostThreadCount(threads)));
  return pool;
}

Options kcc::sim::optionsFor(const TargetModel &target) {
  Options o;
  o.target = target.name;
  o.warpSize = target.warpSize;
  o.banks = bankGeometry(target);
  o.sharedLimit = target.sharedMemory.bytesPerBlock;
  return o;
}

static RegisterFile &registerFile() {
  static thread_local RegisterFile file;
  return file;
}

Machine::Machine(const Program &program, const Options &options,
                 std::vector<GlobalBuffer> &buffers,
                 const std::vector<TensorMap> &maps, Result &result)
    : prog(program), opts(options), buffers(buffers), maps(maps),
      result(result), regs(registerFile()), rng(options.seed) {}

void Machine::makeReady(Thread &t) {
  t.state = TS::Ready;
  queuedLanes[t.warp] |= 1ull << t.lane;
  if (!warpListed[t.warp]) {
    warpListed[t.warp] = 1;
    ready.push_back(t.warp);
  }
}

bool Machine::stepWarp(uint32_t w, unsigned budget, uint32_t &pc,
                       bool &blocked) {
  warpListed[w] = 0;
  uint64_t ran;
  bool ok = runWarp(w, budget, ran);
  uint32_t first = w * opts.warpSize;
  blocked = false;
  pc = ran ? threads[first + llvm::countr_zero(ran)].pc : 0;
  if (!ok || !ran)
    return ok;
  for (uint64_t mm = ran; mm; mm &= mm - 1) {
    Thread &t = threads[first + llvm::countr_zero(mm)];
    if (t.state == TS::Ready)
      continue;
    blocked = true;
    if (t.state == TS::Exited && !threadExited(t))
      return false;
  }
  if (!blocked)
    return true;
  bool fired;
  return tryCollective(w, fired) &&
         tryWarpgroup(w * opts.warpSize / 128, fired);
}

std::string kcc::sim::detail::idRanges(const std::vector<uint32_t> &ids) {
  std::string s;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
      ++j;
    s += (s.empty() ? "" : ", ") +
         (i == j ? std::to_string(ids[i])
                 : std::to_string(ids[i]) + "-" + std::to_string(ids[j]));
    i = j + 1;
  }
  return (ids.size() == 1 ? "thread " : "threads ") + s;
}

bool Machine::checkBarrier(Thread &t, const Inst &in, uint32_t &id,
                           uint32_t &count) {
  id = in.a == kNone ? 0 : uint32_t(t.regs[in.a]);
  count = in.b == kNone ? numThreads : uint32_t(t.regs[in.b]);
  if (id >= barrierArrived.size() || count == 0 || count > numThreads) {
    setFault(in.op, llvm::formatv("barrier {0} with thread count {1} in a CTA "
                                  "of {2} threads",
                                  id, count, numThreads));
    return false;
  }
  if (count == numThreads && exited) {
    std::vector<uint32_t> gone;
    uint32_t where = 0;
    for (const Thread &o : threads)
      if (o.state == TS::Exited)
        gone.push_back(o.tid), where = o.exitPc;
    setFault(in.op,
             llvm::formatv("deadlock: {0} waits at barrier {1}, which needs "
                           "every thread of the CTA, but {2} already exited",
                           threadName(t), id, idRanges(gone)));
    fault->notes.push_back(
        {Report::Note, "a thread exited here", locOf(prog.code[where].op)});
    return false;
  }
  return true;
}

bool Machine::arriveBarrier(Thread &t, const Inst &in) {
  uint32_t id, count;
  if (!checkBarrier(t, in, id, count))
    return false;
  bool arriveOnly = in.sub == 1;
  if (arriveOnly) {
    // bar.arrive: counts, releases what the thread did before, goes on.
    joinInto(barrierReleased[id], t.acquired);
    joinInto(barrierReleased[id], Clock{{t.sid, t.clock}});
    ++t.clock;
    ++t.pc;
    if (++barrierArrived[id] < count)
      return true;
  } else {
    t.state = TS::Barrier;
    t.barrierId = id;
    t.barrierCount = count;
    if (++barrierArrived[id] < count)
      return true;
  }
  return releaseBarrier(id, count);
}

bool Machine::arriveBarrierGroup(uint32_t first, uint64_t mask, const Inst &in,
                                 uint32_t pc) {
  // The lanes in turn, as execute() would run them, unless they all wait
  // (bar.sync) at one barrier with one count and none of them but the last
  // can complete it: then they arrive together, the last completing it.
  Thread &t0 = threads[first + llvm::countr_zero(mask)];
  uint32_t id = 0, count = 0;
  bool together = in.sub != 1;
  if (together) {
    t0.pc = pc;
    if (!checkBarrier(t0, in, id, count)) {
      ++instructions; // as execute() counts the lane that faults
      return false;
    }
    unsigned n = llvm::popcount(mask);
    together = barrierArrived[id] + n <= count;
    for (uint64_t mm = mask; mm && together; mm &= mm - 1) {
      const Thread &t = threads[first + llvm::countr_zero(mm)];
      together = (in.a == kNone || uint32_t(t.regs[in.a]) == id) &&
                 (in.b == kNone || uint32_t(t.regs[in.b]) == count);
    }
  }
  if (!together) {
    for (uint64_t mm = mask; mm; mm &= mm - 1) {
      Thread &t = threads[first + llvm::countr_zero(mm)];
      t.pc = pc;
      if (!execute(t, 1))
        return false;
    }
    return true;
  }
  for (uint64_t mm = mask; mm; mm &= mm - 1) {
    Thread &t = threads[first + llvm::countr_zero(mm)];
    t.pc = pc;
    t.state = TS::Barrier;
    t.barrierId = id;
    t.barrierCount = count;
  }
  instructions += llvm::popcount(mask);
  barrierArrived[id] += llvm::popcount(mask);
  return barrierArrived[id] < count || releaseBarrier(id, count);
}

bool Machine::releaseBarrier(uint32_t id, uint32_t count) {
  // Everyone is here: release. A full barrier starts a new generation for
  // the race checker; a partial one joins its participants' clocks.
  barrierArrived[id] = 0;
  ++result.stats.barriers;
  bool full = count == numThreads;
  Clock joined = std::move(barrierReleased[id]);
  barrierReleased[id].clear();
  for (Thread &o : threads)
    if (o.state == TS::Barrier && o.barrierId == id) {
      if (!o.acquired.empty())
        joinInto(joined, o.acquired);
      if (!full)
        joinInto(joined, Clock{{o.sid, o.clock}});
    }
  if (full) {
    // This CTA's thread clocks are subsumed by the generation; keep async
    // ids and other CTAs' ids.
    llvm::erase_if(joined, [&](const std::pair<uint32_t, uint32_t> &e) {
      return e.first >= idBase && e.first - idBase < numThreads;
    });
    ++ctaGen;
    flushBanks();
    if (!checkPendingUninit())
      return false;
  }
  for (Thread &o : threads)
    if (o.state == TS::Barrier && o.barrierId == id) {
      if (!(joined.empty() && o.acquired.empty()))
        o.acquired = joined;
      if (full)
        o.gen = ctaGen;
      else
        ++o.clock;
      ++o.pc;
      makeReady(o);
    }
  return true;
}

void Machine::startCta(std::array<uint32_t, 3> block,
                       std::array<uint32_t, 3> grid,
                       const std::vector<KernelArg> &args) {
  ctaId = block;
  gridDim = grid;
  ++result.stats.ctas;
  numThreads = blockDim[0] * blockDim[1] * blockDim[2];
  numWarps = (numThreads + opts.warpSize - 1) / opts.warpSize;
  if (threads.size() != numThreads) {
    threads.assign(numThreads, Thread());
    // Slots other than constants are written before they are read (SSA),
    // so what a previous launch left in them is never seen. Whole warps,
    // lane-minor (RegPtr).
    regs.grow(regOffset + size_t(numWarps) * opts.warpSize * prog.numSlots);
    for (unsigned w = 0; w < numWarps; ++w)
      for (size_t s = 0; s < prog.constants.size(); ++s)
        std::fill_n(warpRegs(w) + s * opts.warpSize, opts.warpSize,
                    prog.constants[s]);
    instanceCounters.assign(size_t(numThreads) * prog.numSharedAccessOps, 0);
    pendingBanks.assign(numWarps, {});
    bankSummaries.assign(prog.numSharedAccessOps, BankSummary());
  }
  std::fill(instanceCounters.begin(), instanceCounters.end(), 0);
  // The AMD dispatch packet: work-group sizes (u16 at 4) and grid sizes in
  // work-items (u32 at 12), what hipModuleLaunchKernel writes.
  dispatchPacket.assign(64, 0);
  for (unsigned d = 0; d < 3; ++d) {
    uint16_t wg = uint16_t(blockDim[d]);
    uint32_t gs = grid[d] * blockDim[d];
    std::memcpy(&dispatchPacket[4 + 2 * d], &wg, 2);
    std::memcpy(&dispatchPacket[12 + 4 * d], &gs, 4);
  }
  shared.assign(prog.sharedBytes, 0);
  resetShadow();
  mbarriers.clear();
  copies.clear();
  wgmmas.clear();
  tcMmas.clear();
  tmem.clear(); // made at the CTA's first tcgen05 op
  tmemAllocs.clear();
  tmemRelinquished = false;
  barrierArrived.fill(0);
  for (Clock &c : barrierReleased)
    c.clear();
  exited = 0;
  ctaGen = 0;
  ready.clear();
  queuedLanes.assign(numWarps, 0);
  warpListed.assign(numWarps, 0);
  ctaExited = false;
  exitClock.clear();
  peerAccesses.clear();
  accessPeer = nullptr;
  for (unsigned i = 0; i < numThreads; ++i) {
    Thread &t = threads[i];
    t = Thread();
    t.tid = i;
    t.sid = idBase + i;
    t.lane = i % opts.warpSize;
    t.warp = i / opts.warpSize;
    t.id = {i % blockDim[0], i / blockDim[0] % blockDim[1],
            i / (blockDim[0] * blockDim[1])};
    t.regs = {warpRegs(t.warp) + t.lane, opts.warpSize};
    t.pc = prog.entry;
    for (size_t a = 0; a < args.size(); ++a) {
      const KernelArg &k = args[a];
      uint64_t v = k.bits;
      if (k.kind == KernelArg::Pointer)
        v = ((uint64_t(k.index) + 1) << kBufferShift) + k.byteOffset;
      else if (k.kind == KernelArg::TensorMapPtr)
        v = kTensorMapWindow + k.index * kTensorMapStride;
      t.regs[prog.argSlots[a]] = v;
    }
    makeReady(t);
  }

  rng.seed(opts.seed * 0x9e3779b97f4a7c15ull + block[0] * 7919 +
           block[1] * 104729 + block[2] * 1299709);
}

bool Machine::threadExited(Thread &t) {
  ++exited;
  for (unsigned id = 0; id < barrierArrived.size(); ++id)
    if (barrierArrived[id]) {
      for (const Thread &o : threads)
        if (o.state == TS::Barrier && o.barrierId == id &&
            o.barrierCount == numThreads) {
          setFault(prog.code[t.pc].op,
                   llvm::formatv("deadlock: {0} exited while {1} "
                                 "wait at barrier {2}, which needs "
                                 "every thread of the CTA",
                                 threadName(t),
                                 barrierArrived[id] == 1
                                     ? "1 thread"
                                     : std::to_string(barrierArrived[id]) +
                                           " threads",
                                 id));
          fault->notes.push_back(
              {Report::Note, "the barrier", locOf(prog.code[o.pc].op)});
          return false;
        }
    }
  // PTX: an exited thread counts as arrived at the cluster barrier.
  Cluster &cl = *cluster;
  if (t.clusterArrivals <= cl.phase && cl.pending && --cl.pending == 0)
    completeClusterPhase(cl);
  if (!inCluster())
    return true;
  joinInto(exitClock, t.acquired);
  return exited < numThreads || ctaExit(t);
}

bool Machine::finishCta() {
  if (!checkWgmmasRetired() || !checkTcgen05Exit())
    return false;
  flushBanks();
  return checkPendingUninit();
}

void Machine::describeBlocked(
    std::vector<std::pair<std::string, uint32_t>> &out,
    const std::string &suffix) const {
  std::map<std::tuple<int, uint32_t, uint64_t>, std::vector<uint32_t>> groups;
  for (const Thread &t : threads) {
    if (t.state == TS::Exited)
      continue;
    uint64_t key = t.state == TS::MBarWait  ? (t.waitAddr << 1 | t.waitParity)
                   : t.state == TS::Barrier ? t.barrierId
                                            : 0;
    groups[{int(t.state), t.pc, key}].push_back(t.tid);
  }
  for (auto &[key, ids] : groups) {
    auto [state, pc, what] = key;
    std::string who = idRanges(ids) + suffix, msg;
    if (TS(state) == TS::MBarWait)
      msg = llvm::formatv("{0} wait for the phase with parity {1} of {2}", who,
                          what & 1, describeMBarrier(what >> 1));
    else if (TS(state) == TS::Barrier)
      msg = llvm::formatv("{0} wait at barrier {1} ({2} of {3} threads "
                          "arrived)",
                          who, what, barrierArrived[what],
                          threads[ids[0]].barrierCount);
    else if (TS(state) == TS::Warpgroup)
      msg = who + " wait at this wgmma.mma_async for threads of their "
                  "warpgroup that cannot arrive";
    else if (TS(state) == TS::ClusterWait)
      msg = who + " wait at the cluster barrier (barrier.cluster.wait) for " +
            describeClusterBarrier();
    else
      msg = who + " wait at this cross-lane op for lanes that cannot arrive";
    out.push_back({msg, prog.code[pc].op});
  }
}

bool Machine::runCta(std::array<uint32_t, 3> block,
                     std::array<uint32_t, 3> grid,
                     const std::vector<KernelArg> &args) {
  // A cluster of one: this CTA, rank 0, its slots at the file's start.
  soloCluster.ctas.assign(1, this);
  cluster = &soloCluster;
  rank = 0, idBase = 0, regOffset = 0;
  startCta(block, grid, args);
  soloCluster.reset(numThreads);

  // splitmix64 steps the schedule: cheap, and the same on every machine.
  // Everything random in a CTA's run comes from its own id and the seed, so
  // CTAs run in any order, on any host thread, run the same.
  uint64_t state = opts.seed * 0x9e3779b97f4a7c15ull + block[0] * 7919 +
                   block[1] * 104729 + block[2] * 1299709;
  auto next = [&]() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto report = [&]() {
    result.reports.push_back({Report::Error, fault->message, locOf(fault->op)});
    for (const Report &n : fault->notes)
      result.reports.push_back(n);
    return false;
  };

  for (;;) {
    while (!ready.empty()) {
      size_t pick = next() % ready.size();
      uint32_t w = ready[pick];
      ready[pick] = ready.back();
      ready.pop_back();
      uint32_t pc;
      bool blocked;
      if (!stepWarp(w, 1 + next() % opts.maxQuantum, pc, blocked))
        return report();
      if (opts.maxInstructions &&
          instructionBase + instructions > opts.maxInstructions) {
        setFault(pc < prog.code.size() ? prog.code[pc].op : 0,
                 llvm::formatv("stopped after {0} instructions, the run's "
                               "instruction budget (a loop that does not "
                               "end, or a run too large for the budget: "
                               "kcc-sim --max-instructions, kcc-difftest "
                               "--max-sim-instructions raise it; 0 lifts it)",
                               instructionBase + instructions));
        return report();
      }
      if (!blocked)
        continue;
      // Async copies land at random points between issue and observation.
      if (!copies.empty() && next() % 8 == 0) {
        bool any;
        if (!completeRandomCopy(any))
          return report();
      }
    }
    if (exited == numThreads) {
      // Stores still in flight land before the grid ends.
      for (uint32_t i = 0; i < copies.size(); ++i)
        if (!completeCopy(i))
          return report();
      if (!finishCta())
        return report();
      return raceReports == 0;
    }
    // Nothing can run: only a pending copy can unblock anyone.
    bool any;
    if (!completeRandomCopy(any))
      return report();
    if (any)
      continue;
    // Deadlock: describe every group of blocked threads.
    std::vector<std::pair<std::string, uint32_t>> groups;
    describeBlocked(groups, "");
    for (size_t g = 0; g < groups.size(); ++g)
      result.reports.push_back(
          {g ? Report::Note : Report::Error,
           g ? groups[g].first
             : llvm::formatv("deadlock in CTA ({0}, {1}, {2}): no thread can "
                             "make progress; {3}",
                             ctaId[0], ctaId[1], ctaId[2], groups[g].first)
                   .str(),
           locOf(groups[g].second)});
    if (exited)
      result.reports.push_back(
          {Report::Note,
           llvm::formatv("{0} of {1} threads exited", exited, numThreads).str(),
           locOf(prog.code[prog.entry].op)});
    return false;
  }
}

bool kcc::sim::detail::runCluster(
    Cluster &cl, const std::vector<Machine *> &ctas,
    const std::vector<std::array<uint32_t, 3>> &blocks,
    std::array<uint32_t, 3> grid, const std::vector<KernelArg> &args) {
  size_t n = blocks.size();
  cl.ctas.assign(ctas.begin(), ctas.begin() + n);
  Machine &first = *cl.ctas[0];
  const Options &opts = first.opts;
  const Program &prog = first.prog;
  // Every CTA's slots in the host thread's one file, sized before any
  // thread points into it.
  size_t perCta = llvm::divideCeil(size_t(first.blockDim[0]) *
                                       first.blockDim[1] * first.blockDim[2],
                                   opts.warpSize) *
                  opts.warpSize * prog.numSlots;
  first.regs.grow(n * perCta);
  unsigned threads = 0;
  for (uint32_t r = 0; r < n; ++r) {
    Machine &m = *cl.ctas[r];
    m.cluster = &cl;
    m.rank = r, m.idBase = r << kRankShift, m.regOffset = r * perCta;
    m.instructions = 0;
    m.startCta(blocks[r], grid, args);
    threads += m.numThreads;
  }
  cl.reset(threads);

  // One splitmix64 stream schedules the whole cluster, seeded from its
  // first CTA as a lone CTA's is: the same on any host thread.
  uint64_t state = opts.seed * 0x9e3779b97f4a7c15ull + blocks[0][0] * 7919 +
                   blocks[0][1] * 104729 + blocks[0][2] * 1299709;
  auto next = [&]() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  // The fault (of `at`'s CTA first: a peer's op may have set it on another).
  auto report = [&](Machine *at) {
    Machine *m = at;
    for (Machine *o : cl.ctas)
      if (!m->fault && o->fault)
        m = o;
    Result &result = m->result;
    if (m->fault) {
      result.reports.push_back(
          {Report::Error, m->fault->message, m->locOf(m->fault->op)});
      for (const Report &note : m->fault->notes)
        result.reports.push_back(note);
    }
    return false;
  };
  auto instructions = [&] {
    uint64_t sum = first.instructionBase;
    for (Machine *m : cl.ctas)
      sum += m->instructions;
    return sum;
  };
  // Lands one random pending copy (or a multicast's part for one CTA).
  auto landRandomCopy = [&](bool &any) -> Machine * {
    struct Part {
      Machine *m;
      uint32_t index;
      int dest;
    };
    std::vector<Part> parts;
    for (Machine *m : cl.ctas)
      for (uint32_t i = 0; i < m->copies.size(); ++i) {
        const AsyncCopy &c = m->copies[i];
        if (c.done || c.wgmma || c.tcgen05)
          continue;
        if (!c.dests)
          parts.push_back({m, i, -1});
        for (uint32_t r = 0; r < n; ++r)
          if ((c.dests >> r & 1) && !(c.landed >> r & 1))
            parts.push_back({m, i, int(r)});
      }
    any = !parts.empty();
    if (!any)
      return nullptr;
    Part p = parts[next() % parts.size()];
    bool ok = p.dest < 0 ? p.m->completeCopy(p.index)
                         : p.m->landCopy(p.index, *cl.ctas[p.dest]);
    return ok ? nullptr : p.m;
  };

  for (;;) {
    for (;;) {
      size_t total = 0;
      for (Machine *m : cl.ctas)
        total += m->ready.size();
      if (!total)
        break;
      size_t pick = next() % total;
      Machine *m = cl.ctas[0];
      for (Machine *o : cl.ctas) {
        m = o;
        if (pick < o->ready.size())
          break;
        pick -= o->ready.size();
      }
      uint32_t w = m->ready[pick];
      m->ready[pick] = m->ready.back();
      m->ready.pop_back();
      uint32_t pc;
      bool blocked;
      if (!m->stepWarp(w, 1 + next() % opts.maxQuantum, pc, blocked))
        return report(m);
      if (opts.maxInstructions && instructions() > opts.maxInstructions) {
        m->setFault(pc < prog.code.size() ? prog.code[pc].op : 0,
                    llvm::formatv("stopped after {0} instructions, the run's "
                                  "instruction budget (a loop that does not "
                                  "end, or a run too large for the budget: "
                                  "kcc-sim --max-instructions, kcc-difftest "
                                  "--max-sim-instructions raise it; 0 lifts "
                                  "it)",
                                  instructions()));
        return report(m);
      }
      if (!blocked)
        continue;
      bool copiesIssued = false;
      for (Machine *o : cl.ctas)
        copiesIssued |= !o->copies.empty();
      if (copiesIssued && next() % 8 == 0) {
        bool any;
        if (Machine *failed = landRandomCopy(any))
          return report(failed);
      }
    }
    bool allExited = true;
    for (Machine *m : cl.ctas)
      allExited &= m->ctaExited;
    if (allExited) {
      bool ok = true;
      for (Machine *m : cl.ctas)
        ok &= m->raceReports == 0;
      return ok;
    }
    // Nothing can run: only a pending copy can unblock anyone.
    bool any;
    if (Machine *failed = landRandomCopy(any))
      return report(failed);
    if (any)
      continue;
    // Deadlock: every group of blocked threads, with its CTA.
    std::vector<std::pair<std::string, uint32_t>> groups;
    std::string names;
    for (Machine *m : cl.ctas) {
      m->describeBlocked(groups, " of " + m->ctaName());
      names += (names.empty() ? "" : ", ") + m->ctaName().substr(4);
    }
    Result &result = first.result;
    for (size_t g = 0; g < groups.size(); ++g)
      result.reports.push_back(
          {g ? Report::Note : Report::Error,
           g ? groups[g].first
             : llvm::formatv("deadlock in the cluster of CTAs {0}: no thread "
                             "can make progress; {1}",
                             names, groups[g].first)
                   .str(),
           first.locOf(groups[g].second)});
    for (Machine *m : cl.ctas)
      if (m->exited)
        result.reports.push_back(
            {Report::Note,
             llvm::formatv("{0} of {1} threads of {2} exited", m->exited,
                           m->numThreads, m->ctaName())
                 .str(),
             first.locOf(prog.code[prog.entry].op)});
    return false;
  }
}

namespace {
/// Adds `from`'s per-op bank sums to `to`'s.
void mergeBanks(std::vector<BankSummary> &to,
                const std::vector<BankSummary> &from) {
  if (to.size() < from.size())
    to.resize(from.size());
  for (size_t k = 0; k < from.size(); ++k) {
    const BankSummary &f = from[k];
    BankSummary &t = to[k];
    if (!f.executions)
      continue;
    if (!t.op)
      t.op = f.op, t.store = f.store, t.accessBytes = f.accessBytes;
    t.executions += f.executions, t.wavefronts += f.wavefronts;
    t.idealWavefronts += f.idealWavefronts;
    t.maxDegree = std::max(t.maxDegree, f.maxDegree);
  }
}

std::array<uint32_t, 3> kernelBlockDim(mlir::LLVM::LLVMFuncOp func,
                                       unsigned warpSize) {
  for (const char *name : {"nvvm.maxntid", "rocdl.reqd_work_group_size"})
    if (auto a = func->getAttrOfType<mlir::DenseI32ArrayAttr>(name)) {
      std::array<uint32_t, 3> d = {1, 1, 1};
      for (int64_t i = 0; i < a.size() && i < 3; ++i)
        d[i] = a[i];
      return d;
    }
  if (unsigned warps = kcc::blockWarps(func))
    return {warps * warpSize, 1, 1};
  return {0, 0, 0};
}
} // namespace

Result kcc::sim::simulate(mlir::LLVM::LLVMFuncOp func,
                          const std::vector<KernelArg> &args,
                          std::vector<GlobalBuffer> &buffers,
                          const std::vector<TensorMap> &maps,
                          std::array<uint32_t, 3> grid,
                          const Options &options) {
  Report err{Report::Error, "", func.getLoc()};
  std::shared_ptr<const Program> prog = decodeKernel(func, err);
  if (!prog) {
    Result result;
    result.reports.push_back(std::move(err));
    return result;
  }
  return simulate(func, *prog, args, buffers, maps, grid, options);
}

std::shared_ptr<const Program>
kcc::sim::decodeKernel(mlir::LLVM::LLVMFuncOp func, Report &error) {
  auto prog = std::make_shared<Program>();
  DecodeError err{"", func.getLoc()};
  if (decodeFunction(func, *prog, err))
    return prog;
  error = {Report::Error, err.message, err.loc};
  return nullptr;
}

Result kcc::sim::simulate(mlir::LLVM::LLVMFuncOp func, const Program &prog,
                          const std::vector<KernelArg> &args,
                          std::vector<GlobalBuffer> &buffers,
                          const std::vector<TensorMap> &maps,
                          std::array<uint32_t, 3> grid,
                          const Options &options) {
  Result result;
  auto error = [&](const llvm::Twine &msg, mlir::Location loc) {
    result.reports.push_back({Report::Error, msg.str(), loc});
    return result;
  };
  if (options.sharedLimit && prog.sharedBytes > options.sharedLimit)
    return error(llvm::formatv("the kernel declares {0} bytes of shared "
                               "memory; {1} allows {2} per CTA",
                               prog.sharedBytes, options.target,
                               options.sharedLimit),
                 func.getLoc());
  if (args.size() != prog.argSlots.size())
    return error(llvm::formatv("@{0} takes {1} arguments, got {2}",
                               func.getName(), prog.argSlots.size(),
                               args.size()),
                 func.getLoc());
  for (size_t i = 0; i < args.size(); ++i) {
    bool isPtr = mlir::isa<mlir::LLVM::LLVMPointerType>(prog.argTypes[i]);
    if (isPtr != (args[i].kind != KernelArg::Scalar))
      return error(llvm::formatv("argument {0} of @{1} is {2}", i,
                                 func.getName(),
                                 isPtr ? "a pointer" : "a scalar"),
                   func.getLoc());
    if ((args[i].kind == KernelArg::Pointer &&
         args[i].index >= buffers.size()) ||
        (args[i].kind == KernelArg::TensorMapPtr &&
         args[i].index >= maps.size()))
      return error(llvm::formatv("argument {0} of @{1} names a missing "
                                 "buffer or tensor map",
                                 i, func.getName()),
                   func.getLoc());
  }
  for (const TensorMap &m : maps)
    if (m.buffer >= buffers.size() || m.rank == 0 || m.rank > 5)
      return error("a tensor map names a missing buffer or has a bad rank",
                   func.getLoc());
  std::array<uint32_t, 3> block = options.blockDim;
  if (!block[0])
    block = kernelBlockDim(func, options.warpSize);
  if (!block[0] || !block[1] || !block[2] ||
      uint64_t(block[0]) * block[1] * block[2] > 1024)
    return error(llvm::formatv("cannot simulate @{0}: block size {1}x{2}x{3} "
                               "(give it with nvvm.maxntid, kcc.num_warps or "
                               "the options)",
                               func.getName(), block[0], block[1], block[2]),
                 func.getLoc());
  if (options.warpSize != 32 && options.warpSize != 64)
    return error("the warp size must be 32 or 64", func.getLoc());
  // Cluster dimensions (PTX .reqnctapercluster): the CTAs of a cluster run
  // together; a grid that the clusters do not tile fails to launch.
  std::array<uint32_t, 3> clusterDim = {1, 1, 1};
  if (auto a = func->getAttrOfType<mlir::DenseI32ArrayAttr>(
          mlir::NVVM::NVVMDialect::getClusterDimAttrName()))
    for (int64_t i = 0; i < a.size() && i < 3; ++i) {
      if (a[i] <= 0)
        return error(llvm::formatv("@{0} has cluster dimension {1} = {2}",
                                   func.getName(), i, a[i]),
                     func.getLoc());
      clusterDim[i] = uint32_t(a[i]);
    }
  uint64_t clusterSize =
      uint64_t(clusterDim[0]) * clusterDim[1] * clusterDim[2];
  if (clusterSize > 16)
    return error(llvm::formatv("@{0} asks for clusters of {1}x{2}x{3} CTAs; "
                               "sm_90 runs at most 16 (8 portably)",
                               func.getName(), clusterDim[0], clusterDim[1],
                               clusterDim[2]),
                 func.getLoc());
  for (unsigned d = 0; d < 3; ++d)
    if (grid[d] % clusterDim[d])
      return error(
          llvm::formatv("the grid of {0}x{1}x{2} CTAs is not a multiple of "
                        "@{3}'s cluster of {4}x{5}x{6} (nvvm.cluster_dim): "
                        "the CUDA launch fails",
                        grid[0], grid[1], grid[2], func.getName(),
                        clusterDim[0], clusterDim[1], clusterDim[2]),
          func.getLoc());
  // What runs as one: a cluster's CTAs by rank (x fastest), clusters in
  // launch order; without clusters, each CTA.
  std::vector<std::vector<std::array<uint32_t, 3>>> units;
  for (uint32_t cz = 0; cz < grid[2] / clusterDim[2]; ++cz)
    for (uint32_t cy = 0; cy < grid[1] / clusterDim[1]; ++cy)
      for (uint32_t cx = 0; cx < grid[0] / clusterDim[0]; ++cx) {
        std::vector<std::array<uint32_t, 3>> &unit = units.emplace_back();
        for (uint32_t z = 0; z < clusterDim[2]; ++z)
          for (uint32_t y = 0; y < clusterDim[1]; ++y)
            for (uint32_t x = 0; x < clusterDim[0]; ++x)
              unit.push_back({cx * clusterDim[0] + x, cy * clusterDim[1] + y,
                              cz * clusterDim[2] + z});
      }
  // One unit's run: its reports, statistics, instructions and bank sums.
  struct CtaRun {
    bool ran = false, ok = true;
    uint64_t instructions = 0;
    Result result;
    std::vector<BankSummary> banks;
  };
  std::vector<CtaRun> runs(units.size());
  unsigned numThreads = block[0] * block[1] * block[2];
  // A host thread's machines (one per CTA of a cluster), reporting into
  // `scratch`.
  struct Runner {
    Result scratch;
    Cluster cluster;
    std::vector<std::unique_ptr<Machine>> ctas;
    std::vector<Machine *> ptrs;
  };
  auto makeRunner = [&](Runner &w) {
    w.cluster.dim = clusterDim;
    for (uint64_t r = 0; r < clusterSize; ++r) {
      w.ctas.push_back(
          std::make_unique<Machine>(prog, options, buffers, maps, w.scratch));
      w.ctas.back()->blockDim = block;
      w.ptrs.push_back(w.ctas.back().get());
    }
  };
  // Runs unit i on `w` after `base` instructions of the units before it,
  // and moves what it made into runs[i].
  auto runOne = [&](Runner &w, size_t i, uint64_t base) {
    CtaRun &run = runs[i];
    Machine &m = *w.ctas[0];
    m.instructions = 0;
    m.instructionBase = base;
    run.ok = clusterSize == 1
                 ? m.runCta(units[i][0], grid, args)
                 : runCluster(w.cluster, w.ptrs, units[i], grid, args);
    run.ran = true;
    run.instructions = 0;
    for (Machine *c : w.ptrs)
      run.instructions += c->instructions;
    run.result.reports = std::move(w.scratch.reports);
    run.result.stats = w.scratch.stats;
    w.scratch = Result();
    run.banks.swap(m.bankSummaries);
    m.bankSummaries.assign(run.banks.size(), BankSummary());
    for (Machine *c : w.ptrs) {
      if (c != &m) {
        mergeBanks(run.banks, c->bankSummaries);
        c->bankSummaries.assign(c->bankSummaries.size(), BankSummary());
      }
      c->fault.reset();
    }
  };
  unsigned workers = hostThreadCount(options.hostThreads);
  if (prog.globalAtomics)
    workers = 1;
  workers = unsigned(std::min<size_t>(workers, units.size()));
  if (workers <= 1) {
    Runner w;
    makeRunner(w);
    uint64_t base = 0;
    for (size_t i = 0; i < units.size(); ++i) {
      runOne(w, i, base);
      base += runs[i].instructions;
      if (!runs[i].ok)
        break;
    }
  } else {
    // Host threads take units in order; none starts one after a unit that
    // failed (the sequential run would have stopped there).
    std::atomic<size_t> nextUnit{0}, firstFailure{units.size()};
    auto worker = [&] {
      // Made at the first unit it takes: a worker queued behind another
      // job's (kcc-difftest runs cases side by side on the same pool)
      // often finds none left.
      std::optional<Runner> w;
      for (size_t i; (i = nextUnit++) < units.size() && i < firstFailure;) {
        if (!w)
          makeRunner(w.emplace());
        runOne(*w, i, 0);
        if (!runs[i].ok) {
          for (size_t f = firstFailure; i < f;)
            firstFailure.compare_exchange_weak(f, i);
          break;
        }
      }
    };
    llvm::ThreadPoolTaskGroup group(hostPool(options.hostThreads));
    for (unsigned w = 0; w + 1 < workers; ++w)
      group.async(worker);
    worker();
    group.wait();
  }
  // In unit order, as one run through them would have it: up to the first
  // failure. A unit in which the instruction budget runs out counting the
  // units before it runs again with that count, to stop where that run
  // would.
  uint64_t base = 0;
  std::vector<BankSummary> banks;
  for (size_t i = 0; i < units.size() && runs[i].ran; ++i) {
    if (workers > 1 && options.maxInstructions &&
        base + runs[i].instructions > options.maxInstructions) {
      Runner w;
      makeRunner(w);
      runOne(w, i, base);
    }
    CtaRun &run = runs[i];
    base += run.instructions;
    for (Report &r : run.result.reports)
      result.reports.push_back(std::move(r));
    Stats &s = result.stats, &c = run.result.stats;
    s.ctas += c.ctas, s.asyncCopies += c.asyncCopies;
    s.barriers += c.barriers, s.collectives += c.collectives;
    mergeBanks(banks, run.banks);
    if (!run.ok)
      break;
  }
  result.stats.threads = result.stats.ctas * numThreads;
  result.stats.instructions = base;
  for (const BankSummary &s : banks)
    if (s.executions)
      result.banks.push_back(s);
  return result;
}
