//===- Async.cpp - mbarriers, TMA copies and bulk async-groups ------------===//
//
// PTX semantics (ISA 8.x, "mbarrier" and "cp.async.bulk.tensor"):
//  - mbarrier.init(count): phase 0, `count` pending arrivals, tx-count 0;
//  - arrive: one (or `count`) fewer pending arrivals; expect_tx(n) raises the
//    tx-count by n; a TMA load's complete_tx lowers it by the box's bytes;
//    the phase completes when no arrival and no transaction byte is pending,
//    and the next phase starts with the init count;
//  - try_wait.parity(p) succeeds once the phase with parity p completed,
//    i.e. when the current phase's parity is no longer p.
// TMA copies are queued when issued and complete later, at a random
// scheduling point (Simulator.cpp), or when nothing else can run, in a
// random order: a kernel must not depend on the order. A TMA load reads the
// global box (out-of-bounds elements are zero, as the hardware fills them)
// and writes it to shared memory in box order with the map's swizzle (see
// swizzleAddress); a TMA store reads the shared box when it completes and
// writes the in-bounds elements. Synchronisation for the race checker:
// arrivals release the thread's clock into the phase, a completed copy its
// own; a successful wait acquires the phase's; bulk wait_group acquires the
// waited copies'.
//
//===----------------------------------------------------------------------===//
#include "sim/Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

namespace {
/// Where the byte the box's dense layout puts at shared address `addr`
/// lands with the tensor map's swizzle. The swizzle is a function of the
/// shared address, not of the box: the CUDA driver API's CUtensorMapSwizzle
/// swizzles "16B chunks within <span>B span"; the PTX ISA's matrix
/// descriptor table puts the start of the 128-byte pattern on a 1024-byte
/// boundary (512 / 256 for 64B / 32B) and derives its base offset as
/// (pattern start >> 7) & 7; CUTLASS's TMA/GMMA atoms name the same
/// permutation Swizzle<3,4,3> (128B), <2,4,3> (64B), <1,4,3> (32B): the
/// 16-byte chunk index, address bits 4-6, XORed with bits 7-9 (masked to
/// the span's chunk count). For a box whose rows are exactly 128 bytes and
/// a 1024-byte aligned destination, row r of the box is at r * 128 and its
/// chunk j at chunk j ^ (r % 8): the layout wgmma's 128B-swizzled
/// descriptors read (sim/Wgmma.cpp).
uint64_t swizzleAddress(uint64_t addr, unsigned swizzle) {
  if (swizzle < 32)
    return addr;
  uint64_t mask = swizzle / 16 - 1;
  return addr ^ (((addr >> 7) & mask) << 4);
}
} // namespace

std::string Machine::describeMBarrier(uint64_t addr) const {
  auto it = mbarriers.find(addr);
  std::string where = describeShared(addr);
  if (it == mbarriers.end())
    return "the mbarrier at " + where + " (not initialized)";
  const MBarrier &m = it->second;
  return llvm::formatv("the mbarrier at {0}: phase {1} (parity {2}) has {3} "
                       "of {4} arrivals pending and {5} transaction bytes "
                       "outstanding (expect_tx {6}, completed by copies {7})",
                       where, m.phase, m.phase & 1, m.pending, m.expected, m.tx,
                       m.txExpected, m.txCompleted)
      .str();
}

bool Machine::mbarrierPhaseDone(uint64_t addr, uint32_t parity) const {
  auto it = mbarriers.find(addr);
  return it != mbarriers.end() && (it->second.phase & 1) != (parity & 1);
}

MBarrier *Machine::findMBarrier(Thread &t, uint32_t op, uint64_t addr) {
  auto it = mbarriers.find(addr);
  if (it == mbarriers.end() || !it->second.valid) {
    setFault(op, llvm::formatv("{0} uses {1}, which no mbarrier.init "
                               "initialized{2}",
                               threadName(t), describeShared(addr),
                               it == mbarriers.end() ? "" : " (invalidated)"));
    return nullptr;
  }
  return &it->second;
}

void Machine::wakeMBarrierWaiters(uint64_t addr) {
  const MBarrier &m = mbarriers[addr];
  for (Thread &t : threads)
    if (t.state == TS::MBarWait && t.waitAddr == addr &&
        (m.phase & 1) != (t.waitParity & 1)) {
      joinInto(t.acquired, m.completed);
      ++t.pc;
      makeReady(t);
    }
}

/// Completes the phase if nothing is pending; wakes its waiters.
void kcc::sim::detail::maybeCompletePhase(Machine &mc, uint64_t addr) {
  MBarrier &m = mc.mbarriers[addr];
  if (m.pending != 0 || m.tx != 0)
    return;
  ++m.phase;
  m.completed = std::move(m.releasing);
  m.releasing.clear();
  m.pending = m.expected;
  m.txExpected = m.txCompleted = 0;
  mc.wakeMBarrierWaiters(addr);
}

bool Machine::anyPendingCopy() const {
  for (const AsyncCopy &c : copies)
    if (!c.done && !c.wgmma && !c.tcgen05)
      return true;
  return false;
}

bool Machine::completeRandomCopy(bool &any) {
  std::vector<uint32_t> pending;
  for (uint32_t i = 0; i < copies.size(); ++i)
    // wgmmas complete at wait_group, tcgen05.mma at their commit.
    if (!copies[i].done && !copies[i].wgmma && !copies[i].tcgen05)
      pending.push_back(i);
  any = !pending.empty();
  if (!any)
    return true;
  return completeCopy(pending[rng() % pending.size()]);
}

bool Machine::completeCopy(uint32_t index) {
  AsyncCopy &c = copies[index];
  if (c.done || c.wgmma || c.tcgen05)
    return true;
  if (c.dests) {
    for (uint32_t r = 0; r < cluster->ctas.size(); ++r)
      if ((c.dests >> r & 1) && !(c.landed >> r & 1) &&
          !landCopy(index, peer(r)))
        return false;
    return true;
  }
  c.done = true;
  ++result.stats.asyncCopies;
  return moveBox(c, *this);
}

bool Machine::landCopy(uint32_t index, Machine &dest) {
  AsyncCopy &c = copies[index];
  c.landed |= uint16_t(1u << dest.rank);
  if (c.landed == c.dests) {
    c.done = true;
    ++result.stats.asyncCopies;
  }
  return moveBox(c, dest);
}

/// A load's box into `dest`'s shared memory (its shadow records the copy's
/// writes) and its bytes complete on `dest`'s mbarrier at the copy's
/// offset; a store's from this CTA's shared memory to global memory.
bool Machine::moveBox(AsyncCopy &c, Machine &dest) {
  const TensorMap &map = maps[c.map];
  GlobalBuffer &buf = buffers[map.buffer];
  uint64_t elements = 1;
  for (unsigned d = 0; d < map.rank; ++d)
    elements *= map.box[d];
  uint64_t boxBytes = elements * map.elementBytes;
  // Check the whole box against shared memory first (a swizzle permutes
  // 16-byte chunks within each span of a box whose rows are whole spans).
  uint64_t span = boxBytes;
  if (c.shared + span > prog.sharedBytes) {
    setFault(c.op, llvm::formatv("TMA {0} box of {1} bytes at shared offset "
                                 "{2} is beyond the kernel's {3} bytes of "
                                 "shared memory",
                                 c.load ? "load" : "store", boxBytes, c.shared,
                                 prog.sharedBytes));
    return false;
  }
  // Elements contiguous in shared memory (and in global memory, or all
  // outside the tensor) move as one run: one shadow update and one copy,
  // not one per element (a swizzle breaks runs at 16-byte chunks).
  struct Run {
    uint64_t shared = 0, global = 0, bytes = 0;
    bool inBounds = false;
  } run;
  auto flush = [&]() {
    if (!run.bytes)
      return true;
    if (!dest.sharedAccess(nullptr, c.op, run.shared, run.bytes, c.load,
                           c.syncId, /*atomic=*/false, map.elementBytes))
      return false;
    uint8_t *s = dest.shared.data() + run.shared;
    if (c.load) {
      if (run.inBounds)
        std::memcpy(s, buf.bytes.data() + run.global, run.bytes);
      else
        std::memset(s, 0, run.bytes);
    } else if (run.inBounds) {
      std::memcpy(buf.bytes.data() + run.global, s, run.bytes);
    }
    run.bytes = 0;
    return true;
  };
  for (uint64_t e = 0; e < elements; ++e) {
    // Box element e -> global coordinates (dimension 0 fastest).
    uint64_t rest = e;
    bool inBounds = true;
    uint64_t globalOffset = map.baseOffset;
    for (unsigned d = 0; d < map.rank; ++d) {
      int64_t coord = c.coords[d] + int64_t(rest % map.box[d]);
      rest /= map.box[d];
      if (coord < 0 || uint64_t(coord) >= map.dims[d])
        inBounds = false;
      else
        globalOffset +=
            uint64_t(coord) * (d == 0 ? map.elementBytes : map.strideBytes[d]);
    }
    uint64_t sharedOffset =
        swizzleAddress(c.shared + e * map.elementBytes, map.swizzleBytes);
    if (inBounds && globalOffset + map.elementBytes > buf.bytes.size()) {
      setFault(c.op, llvm::formatv("TMA {0}: the tensor map reaches byte {1} "
                                   "of buffer '{2}', which has {3} bytes",
                                   c.load ? "load" : "store", globalOffset,
                                   buf.name, buf.bytes.size()));
      return false;
    }
    bool extends = run.bytes && run.inBounds == inBounds &&
                   sharedOffset == run.shared + run.bytes &&
                   (!inBounds || globalOffset == run.global + run.bytes);
    if (!extends) {
      if (!flush())
        return false;
      run = {sharedOffset, globalOffset, 0, inBounds};
    }
    run.bytes += map.elementBytes;
  }
  if (!flush())
    return false;
  if (c.load) {
    MBarrier &m = dest.mbarriers[c.mbar];
    m.tx -= int64_t(boxBytes);
    m.txCompleted += int64_t(boxBytes);
    joinInto(m.releasing, Clock{{c.syncId, 1}});
    maybeCompletePhase(dest, c.mbar);
  }
  return true;
}

Machine::Step Machine::asyncOp(Thread &t, const Inst &in) {
  RegPtr R = t.regs;
  // mbarrier addresses: shared::cta, shared::cluster (this CTA's, or a
  // peer's: `owner`), or generic in the shared window.
  Machine *owner = this;
  auto sharedAddr = [&](uint64_t a, unsigned space) -> std::optional<uint64_t> {
    owner = this;
    if (space == 0) {
      if (a < kSharedWindow || a >= kSharedWindow + (1ull << 40)) {
        setFault(in.op, llvm::formatv("{0} passes address {1:x}, which is "
                                      "not in shared memory",
                                      threadName(t), a));
        return std::nullopt;
      }
      a -= kSharedWindow;
      space = 7;
    }
    if (space == 7 && (a >> kClusterRankShift)) {
      uint64_t offset;
      owner = clusterTarget(t, in.op, a, offset);
      if (!owner)
        return std::nullopt;
      a = offset;
    }
    if (a + 8 > prog.sharedBytes || a % 8) {
      setFault(in.op,
               llvm::formatv("{0} uses an mbarrier at shared offset "
                             "{1}, which is {2}",
                             threadName(t), a,
                             a % 8 ? "not 8-byte aligned"
                                   : "beyond the kernel's shared memory"));
      return std::nullopt;
    }
    return a;
  };
  // init, inval and try_wait: PTX has them on the CTA's own mbarriers only.
  auto ownOnly = [&](uint64_t addr, const char *what) {
    if (owner == this)
      return true;
    setFault(in.op,
             llvm::formatv("{0} {1} the mbarrier at {2} of {3}: PTX "
                           "allows that on the CTA's own mbarriers "
                           "only (shared::cta)",
                           threadName(t), what, owner->describeShared(addr),
                           owner->ctaName()));
    return false;
  };
  // The mbarrier at `addr` of `owner`, for `what` (a peer's: checked).
  auto barrierOf = [&](uint64_t addr, const char *what) -> MBarrier * {
    if (owner == this)
      return findMBarrier(t, in.op, addr);
    if (!checkPeerMBarrier(t, in.op, *owner, addr, what))
      return nullptr;
    owner->recordPeerAccess(t, in.op, addr, /*arrive=*/true);
    return &owner->mbarriers[addr];
  };
  auto arrive = [&](uint64_t addr, uint32_t count) -> bool {
    MBarrier *m = barrierOf(addr, "arrives on");
    if (!m)
      return false;
    if (count > m->pending) {
      setFault(in.op,
               llvm::formatv("{0} arrives on {1}{2}: more arrivals "
                             "than the init count allows",
                             threadName(t), owner->describeMBarrier(addr),
                             owner == this ? "" : " of " + owner->ctaName()));
      return false;
    }
    // Release: what this thread did so far happens before the phase's end
    // (to a peer with the generation of this CTA's barriers it passed).
    joinInto(m->releasing, t.acquired);
    if (owner == this)
      joinInto(m->releasing, Clock{{t.sid, t.clock}});
    else
      joinInto(m->releasing, Clock{{t.sid, t.clock}, {genSyncId(rank), t.gen}});
    ++t.clock;
    m->pending -= count;
    maybeCompletePhase(*owner, addr);
    return true;
  };
  auto mapOf = [&](uint64_t ptr) -> std::optional<unsigned> {
    uint64_t i = (ptr - kTensorMapWindow) / kTensorMapStride;
    if (ptr < kTensorMapWindow || ptr >= kDispatchPacket ||
        (ptr - kTensorMapWindow) % kTensorMapStride || i >= maps.size()) {
      setFault(in.op, llvm::formatv("{0} passes {1:x} as a tensor map: not a "
                                    "tensor-map argument of the kernel",
                                    threadName(t), ptr));
      return std::nullopt;
    }
    return unsigned(i);
  };
  auto coords = [&](AsyncCopy &c, const TensorMap &map) -> bool {
    uint32_t n = prog.aux[in.aux];
    if (n != map.rank) {
      setFault(in.op, llvm::formatv("TMA op with {0} coordinates on a "
                                    "rank-{1} tensor map",
                                    n, map.rank));
      return false;
    }
    for (uint32_t d = 0; d < n; ++d)
      c.coords[d] = int32_t(uint32_t(R[prog.aux[in.aux + 1 + d]]));
    return true;
  };

  switch (in.opc) {
  case Opc::MBarInit: {
    std::optional<uint64_t> a = sharedAddr(R[in.a], in.srcAddrSpace);
    if (!a || !ownOnly(*a, "initializes"))
      return Step::Fault;
    uint32_t count = uint32_t(R[in.b]);
    if (count == 0 || count >= (1u << 20)) {
      setFault(in.op, llvm::formatv("mbarrier.init with count {0}: the count "
                                    "must be in [1, 2^20 - 1]",
                                    count));
      return Step::Fault;
    }
    MBarrier m;
    m.expected = m.pending = count;
    m.initOp = in.op;
    m.initId = t.sid, m.initGen = t.gen, m.initClock = t.clock;
    mbarriers[*a] = m;
    return Step::Continue;
  }
  case Opc::MBarInval: {
    std::optional<uint64_t> a = sharedAddr(R[in.a], in.srcAddrSpace);
    if (!a || !ownOnly(*a, "invalidates") || !findMBarrier(t, in.op, *a))
      return Step::Fault;
    mbarriers[*a].valid = false;
    return Step::Continue;
  }
  case Opc::MBarArrive: {
    std::optional<uint64_t> a = sharedAddr(R[in.a], in.srcAddrSpace);
    if (!a)
      return Step::Fault;
    auto it = owner->mbarriers.find(*a);
    uint32_t phase = it != owner->mbarriers.end() ? it->second.phase : 0;
    if (!arrive(*a, in.b == kNone ? 1 : uint32_t(R[in.b])))
      return Step::Fault;
    if (prog.ops[in.op]->getNumResults())
      R[in.res] = phase; // the state token: the phase arrived on
    return Step::Continue;
  }
  case Opc::MBarArriveExpectTx:
  case Opc::MBarExpectTx:
  case Opc::MBarCompleteTx: {
    std::optional<uint64_t> a = sharedAddr(R[in.a], in.srcAddrSpace);
    if (!a)
      return Step::Fault;
    MBarrier *m = barrierOf(*a, in.opc == Opc::MBarCompleteTx
                                    ? "completes transaction bytes on"
                                    : "expects transaction bytes on");
    if (!m)
      return Step::Fault;
    int64_t bytes = int64_t(uint32_t(R[in.b]));
    if (in.opc == Opc::MBarCompleteTx) {
      m->tx -= bytes;
      m->txCompleted += bytes;
      maybeCompletePhase(*owner, *a);
      return Step::Continue;
    }
    m->tx += bytes;
    m->txExpected += bytes;
    if (in.opc == Opc::MBarExpectTx)
      return Step::Continue;
    return arrive(*a, 1) ? Step::Continue : Step::Fault;
  }
  case Opc::MBarTryWaitParity: {
    std::optional<uint64_t> a = sharedAddr(R[in.a], in.srcAddrSpace);
    if (!a || !ownOnly(*a, "waits on") || !findMBarrier(t, in.op, *a))
      return Step::Fault;
    uint32_t parity = uint32_t(R[in.b]) & 1;
    if (mbarrierPhaseDone(*a, parity)) {
      joinInto(t.acquired, mbarriers[*a].completed);
      return Step::Continue;
    }
    t.state = TS::MBarWait;
    t.waitAddr = *a;
    t.waitParity = parity;
    return Step::Block;
  }
  case Opc::TmaLoad:
  case Opc::TmaStore: {
    newAsyncSyncId();
    AsyncCopy c;
    c.load = in.opc == Opc::TmaLoad;
    c.op = in.op;
    c.issuer = t.tid;
    c.syncId = idBase + numThreads + copies.size();
    std::optional<unsigned> map = mapOf(R[in.b]);
    if (!map)
      return Step::Fault;
    c.map = *map;
    // The box in shared memory: shared::cta, or shared::cluster (this
    // CTA's, or for a load a peer's).
    c.shared = R[in.a];
    Machine *dstCta = this;
    if (c.load && in.srcAddrSpace == 7 && (c.shared >> kClusterRankShift)) {
      dstCta = clusterTarget(t, in.op, c.shared, c.shared);
      if (!dstCta)
        return Step::Fault;
    }
    const TensorMap &tm = maps[c.map];
    if (!coords(c, tm))
      return Step::Fault;
    if (c.load) {
      std::optional<uint64_t> mb = sharedAddr(R[in.c], 3);
      if (!mb)
        return Step::Fault;
      c.mbar = *mb;
      uint32_t maskSlot = prog.aux[in.aux + 1 + prog.aux[in.aux]];
      if (maskSlot != kNone) {
        // Multicast: the box and its complete_tx land at the same offsets
        // in every CTA of the mask (whichever CTA the address names).
        uint32_t mask = uint16_t(R[maskSlot]);
        size_t n = cluster->ctas.size();
        if (mask == 0 || (mask >> n)) {
          setFault(in.op,
                   llvm::formatv("{0} multicasts a TMA load with mask {1:x}: "
                                 "{2}",
                                 threadName(t), mask,
                                 mask ? llvm::formatv("it names CTA rank {0}, "
                                                      "but the cluster has "
                                                      "{1} CTA{2}",
                                                      llvm::Log2_32(mask), n,
                                                      n == 1 ? "" : "s")
                                            .str()
                                      : std::string("no CTA receives it")));
          return Step::Fault;
        }
        c.dests = uint16_t(mask);
        for (uint32_t r = 0; r < n; ++r)
          if ((mask >> r & 1) &&
              (r == rank ? !findMBarrier(t, in.op, c.mbar)
                         : !checkPeerMBarrier(t, in.op, peer(r), c.mbar,
                                              "multicasts a TMA load "
                                              "completing on")))
            return Step::Fault;
      } else if (dstCta != this) {
        setFault(in.op,
                 llvm::formatv("{0} issues a TMA load into the shared memory "
                               "of {1} with an mbarrier of its own CTA: "
                               "without multicast the destination and the "
                               "mbarrier must be in the same CTA",
                               threadName(t), dstCta->ctaName()));
        return Step::Fault;
      } else if (!findMBarrier(t, in.op, c.mbar)) {
        return Step::Fault;
      }
    }
    // A swizzled box's rows must be at most the swizzle span (the driver
    // refuses wider ones); the simulator models rows of exactly the span,
    // not the layout of narrower ones.
    uint64_t rowBytes = uint64_t(tm.box[0]) * tm.elementBytes;
    if (tm.swizzleBytes && rowBytes != tm.swizzleBytes) {
      setFault(in.op, llvm::formatv(
                          "TMA {0} with the {1}-byte swizzle and a box "
                          "whose innermost extent is {2} bytes: {3}",
                          c.load ? "load" : "store", tm.swizzleBytes, rowBytes,
                          rowBytes > tm.swizzleBytes
                              ? "more than the swizzle span, which the "
                                "tensor-map encoding refuses"
                              : "the simulator models swizzled boxes "
                                "whose rows are exactly the swizzle span"));
      return Step::Fault;
    }
    // Boxes must be 128-byte aligned in shared memory; swizzled ones on the
    // 1024-byte boundary where the pattern starts.
    uint64_t align = tm.swizzleBytes ? 1024 : 128;
    if (c.shared % align) {
      setFault(in.op,
               llvm::formatv("TMA {0} with a box at shared offset {1}: "
                             "it must be {2}-byte aligned",
                             c.load ? "load" : "store", c.shared, align));
      return Step::Fault;
    }
    copies.push_back(c);
    if (!c.load)
      t.openGroup.push_back(copies.size() - 1);
    return Step::Continue;
  }
  case Opc::BulkCommit:
    t.groups.push_back(std::move(t.openGroup));
    t.openGroup.clear();
    return Step::Continue;
  case Opc::BulkWait: {
    // The thread waits until at most `a` groups are pending: completing
    // them here is one of the schedules the hardware may produce.
    while (t.groups.size() > in.a) {
      std::vector<uint32_t> group = std::move(t.groups.front());
      t.groups.erase(t.groups.begin());
      for (size_t i = group.size(); i > 1; --i)
        std::swap(group[i - 1], group[rng() % i]);
      for (uint32_t c : group) {
        if (!completeCopy(c))
          return Step::Fault;
        joinInto(t.acquired, Clock{{copies[c].syncId, 1}});
      }
    }
    return Step::Continue;
  }
  case Opc::CpAsync: {
    // The chunk is checked as written here (a copy may land any time until
    // its group is waited for, so nobody may still be reading it) and
    // written when its group retires (nobody may read it before).
    CpAsyncCopy c;
    c.op = in.op;
    c.bytes = in.sub;
    uint64_t srcBytes = in.c == ~0u ? c.bytes : uint64_t(uint32_t(R[in.c]));
    if ((c.bytes != 4 && c.bytes != 8 && c.bytes != 16) || srcBytes > c.bytes) {
      setFault(in.op, llvm::formatv("cp.async of {0} bytes with src-size {1}: "
                                    "the size must be 4, 8 or 16 and the "
                                    "src-size at most the size",
                                    c.bytes, srcBytes));
      return Step::Fault;
    }
    for (auto [addr, what] :
         {std::pair{R[in.a], "destination"}, std::pair{R[in.b], "source"}})
      if (addr % c.bytes) {
        setFault(in.op, llvm::formatv("cp.async of {0} bytes: the {1} address "
                                      "{2:x} is not {0}-byte aligned",
                                      c.bytes, what, addr));
        return Step::Fault;
      }
    uint64_t sharedOffset = ~0ull;
    if (!resolve(t, in.op, in.addrSpace, R[in.a], c.bytes, true, &sharedOffset))
      return Step::Fault;
    c.shared = sharedOffset;
    if (!threadSharedAccess(t, in.op, c.shared, c.bytes, true))
      return Step::Fault;
    if (srcBytes) {
      uint8_t *src =
          resolve(t, in.op, in.srcAddrSpace, R[in.b], srcBytes, false, nullptr);
      if (!src)
        return Step::Fault;
      std::memcpy(c.data.data(), src, srcBytes);
    }
    t.cpOpen.push_back(c);
    return Step::Continue;
  }
  case Opc::CpAsyncCommit:
    t.cpGroups.push_back(std::move(t.cpOpen));
    t.cpOpen.clear();
    return Step::Continue;
  case Opc::CpAsyncWait:
    while (t.cpGroups.size() > in.a) {
      for (const CpAsyncCopy &c : t.cpGroups.front()) {
        if (!threadSharedAccess(t, c.op, c.shared, c.bytes, true))
          return Step::Fault;
        std::memcpy(shared.data() + c.shared, c.data.data(), c.bytes);
      }
      // The group's storage holds the next open group (a pipelined loop
      // commits one per iteration).
      if (t.cpOpen.empty() && !t.cpOpen.capacity()) {
        t.cpOpen.swap(t.cpGroups.front());
        t.cpOpen.clear();
      }
      t.cpGroups.erase(t.cpGroups.begin());
    }
    return Step::Continue;
  default:
    setFault(in.op, "internal error: opcode without an implementation");
    return Step::Fault;
  }
}
