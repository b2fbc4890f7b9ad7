//===- Machine.h - the simulator's state of one running CTA -------*- C++
//-*-===//
//
// Internal to sim/. One Machine runs the CTAs of a launch one after another
// (one per CTA of a cluster, run together); the pieces of it live in
// separate files by concern:
//   Simulator.cpp    scheduling, barriers, deadlock reports, the launch
//   Execute.cpp      a warp's lanes at one pc together, or one thread
//   Memory.cpp       the address map, bounds and alignment checks
//   Races.cpp        happens-before tracking of shared memory
//   Collectives.cpp  shfl / ds_bpermute / ds_swizzle / DPP / readlane
//   WarpMma.cpp      ldmatrix and mma.sync (warp-wide matrix fragments)
//   Async.cpp        mbarriers, TMA copies, bulk groups
//   Banks.cpp        bank-conflict accounting with targets/BankConflicts.h
//   Wgmma.cpp        warpgroup MMA (wgmma.mma_async, commit / wait groups)
//   Tcgen05.cpp      Blackwell TMEM and tcgen05.mma / commit / ld
//   Cluster.cpp      thread-block clusters: the cluster barrier, mapa,
//                    peers' mbarriers and shared memory, exits
//
//===----------------------------------------------------------------------===//
#ifndef KCC_SIM_MACHINE_H
#define KCC_SIM_MACHINE_H

#include "sim/Program.h"
#include "sim/Simulator.h"

#include "targets/WgmmaRules.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/bit.h"

#include <map>
#include <random>
#include <set>
#include <unordered_map>

namespace kcc::sim::detail {

// The simulator's address map. Global buffer i lives at (i + 1) << 40, so an
// address names its buffer and an overrun lands in a gap, not in a neighbour.
// Generic pointers to shared memory and to tensor maps use windows far above.
constexpr uint64_t kBufferShift = 40;
constexpr uint64_t kSharedWindow = 1ull << 60;
constexpr uint64_t kTensorMapWindow = 1ull << 61;
constexpr uint64_t kTensorMapStride = 128;
constexpr uint64_t kDispatchPacket = 1ull << 62;
constexpr uint32_t kNone = ~0u;
/// The generation stamped on accesses of the async proxy (TMA): no CTA
/// barrier orders them, only an mbarrier wait or a bulk wait_group.
constexpr uint32_t kAsyncGen = ~0u - 1;

/// Sync ids are unique within a cluster: the bits from kRankShift up hold
/// the CTA's rank in its cluster (0 outside clusters, so a lone CTA numbers
/// them as it always did), the bits below a thread (< numThreads) or, above
/// that, an asynchronous copy of the CTA.
constexpr unsigned kRankShift = 27;
constexpr uint32_t kLocalIdMask = (1u << kRankShift) - 1;
inline uint32_t rankOfId(uint32_t id) { return id >> kRankShift; }
/// The sync id whose clock is a barrier generation of CTA `rank`: accesses
/// a CTA barrier ordered carry that CTA's generation, not clocks, so a
/// release to another CTA carries {genSyncId(rank), gen}: the accesses of
/// generations before `gen` happened before it.
inline uint32_t genSyncId(uint32_t rank) {
  return (rank << kRankShift) | kLocalIdMask;
}

/// A shared::cluster address (address space 7, and shared addresses in the
/// generic window) names a CTA of the cluster by rank + 1 in the bits from
/// kClusterRankShift up; 0 there is the CTA's own (a shared::cta address
/// cast to shared::cluster keeps its bits).
constexpr unsigned kClusterRankShift = 32;
constexpr uint64_t kClusterOffsetMask = (1ull << kClusterRankShift) - 1;

enum class TS : uint8_t {
  Ready,
  Barrier,
  Collective,
  MBarWait,
  Warpgroup,   // at a wgmma.mma_async, waiting for its warpgroup
  ClusterWait, // at barrier.cluster.wait
  Exited
};

/// A sparse vector clock: sync id -> clock, sorted by id. Sync ids are
/// thread ids, then one per asynchronous copy.
using Clock = std::vector<std::pair<uint32_t, uint32_t>>;
void joinInto(Clock &into, const Clock &from);
uint32_t clockOf(const Clock &c, uint32_t id); // 0 when absent

/// A cp.async of one thread: its source bytes (read at issue), landing in
/// shared memory when a wait_group retires its group.
struct CpAsyncCopy {
  uint32_t op = 0;
  uint64_t shared = 0; // offset
  uint8_t bytes = 0;
  std::array<uint8_t, 16> data{};
};

/// A thread's registers. The file is lane-minor: slot s of every lane of a
/// warp lies side by side (base[s * warpSize + lane]), so an instruction run
/// by a whole warp (Machine::runWarp) reads and writes contiguous
/// memory. A thread sees its own slots through `stride`.
struct RegPtr {
  uint64_t *p = nullptr;
  uint32_t stride = 1;
  uint64_t &operator[](size_t i) const { return p[i * stride]; }
  RegPtr operator+(size_t slot) const { return {p + slot * stride, stride}; }
};

/// The slots of a host thread's CTAs. Growing it keeps nothing and writes
/// nothing: a launch writes every slot before reading it (constants and
/// arguments at the CTA's start, SSA values when defined), and a
/// zero-filled or copied file of tens of megabytes cost more than the run.
class RegisterFile {
public:
  uint64_t *data() { return data_.get(); }
  void grow(size_t n) {
    if (n <= size_)
      return;
    data_.reset(new uint64_t[n]); // uninitialized
    size_ = n;
  }

private:
  std::unique_ptr<uint64_t[]> data_;
  size_t size_ = 0;
};

/// Ops that act on each lane's registers alone and cannot block: a warp's
/// lanes at one pc run them together (Machine::warpOp).
bool isLaneOp(Opc opc);
/// Cross-lane ops: the warp's lanes run them together (Collectives.cpp).
bool isCollectiveOp(Opc opc);

struct Thread {
  uint32_t pc = 0;
  TS state = TS::Ready;
  uint32_t tid = 0, lane = 0, warp = 0;
  uint32_t sid = 0; // sync id: tid, with the CTA's rank in a cluster
  std::array<uint32_t, 3> id = {0, 0, 0};
  RegPtr regs;
  // Happens-before: CTA barriers passed, the thread's own clock (bumped at
  // each release: mbarrier arrive), what it acquired through mbarriers.
  uint32_t gen = 0, clock = 1;
  Clock acquired;
  // Why it is blocked.
  uint32_t barrierId = 0, barrierCount = 0;
  uint64_t waitAddr = 0;
  uint32_t waitParity = 0;
  // Bulk async-groups: copies issued since the last commit, and committed
  // groups (oldest first), as indices into Machine::copies. Vectors, not
  // deques: a thread holds a few groups, and a deque allocates even empty
  // (every thread of every CTA is made afresh).
  std::vector<uint32_t> openGroup;
  std::vector<std::vector<uint32_t>> groups;
  // wgmma groups: wgmmas (indices into Machine::wgmmas) issued since the
  // last wgmma.commit_group, and committed groups, oldest first.
  std::vector<uint32_t> wgOpen;
  std::vector<std::vector<uint32_t>> wgGroups;
  // cp.async groups: copies since the last commit_group, committed groups
  // (oldest first).
  std::vector<CpAsyncCopy> cpOpen;
  std::vector<std::vector<CpAsyncCopy>> cpGroups;
  // tcgen05.mma issued by this thread and not yet committed (indices into
  // Machine::tcMmas), and the sync ids of all it issued: a commit's
  // arrival waits for every earlier one, so it releases them all.
  std::vector<uint32_t> tcOpen;
  Clock tcIssued;
  uint32_t exitPc = 0;
  // barrier.cluster.arrive calls so far (arrival k is in phase k - 1).
  uint32_t clusterArrivals = 0;
};

/// A write to shared memory in the race shadow (Machine::writePool): by
/// whom, in which generation and at which clock, by which op.
struct WriteRec {
  uint32_t id, gen, clock, op;
  bool atomic = false; // an atomic read-modify-write
};
/// Shadow of one shared byte for race and initialization checks: its last
/// write and its reads since, as indices into the pools. Eight bytes: a
/// warp's access reads and writes a few cache lines of shadow, and bytes of
/// one access compare as one word.
struct ByteShadow {
  uint32_t write = kNone; // into Machine::writePool; kNone: never written
  uint32_t reads = kNone; // head of a list in Machine::readPool
  bool operator==(const ByteShadow &o) const {
    return write == o.write && reads == o.reads;
  }
};
/// A read in a byte's list (most recent first), or with `lanes` the reads
/// of those lanes of one warp (id: its lane 0's), all with one generation,
/// clock and op: the lanes' records one by one, the highest lane's first.
struct ReadRec {
  uint32_t id, gen, clock, op, next;
  // Every read of the list from here on is by a thread of this CTA in this
  // record's generation (the fast paths keep it; others clear it), so a
  // later generation's store is ordered after all of them without a walk.
  // Records are never changed, so this holds for every byte that names it.
  bool oneGen = false;
  uint64_t lanes = 0;
  /// The most recent reader.
  uint32_t last() const {
    return lanes ? id + 63 - llvm::countl_zero(lanes) : id;
  }
  /// fn(reader id) for each reader, most recent first, until it says stop.
  template <typename Fn> void forEachReader(Fn fn) const {
    if (!lanes) {
      fn(id);
      return;
    }
    for (uint64_t mm = lanes; mm;) {
      unsigned l = 63 - llvm::countl_zero(mm);
      if (fn(id + l))
        return;
      mm &= ~(1ull << l);
    }
  }
};
/// A 16-byte block of global memory this CTA touched: its last write and
/// its last read by a thread, each with the bytes it covered (one of each:
/// fewer reports, never false ones; accesses to different bytes of a block
/// do not conflict).
struct GlobalShadow {
  uint32_t wId = kNone, wGen = 0, wClock = 0, wOp = 0;
  uint32_t rId = kNone, rGen = 0, rClock = 0, rOp = 0;
  uint16_t wBytes = 0, rBytes = 0;
  bool wAtomic = false, rAtomic = false;
  /// Records an access of the bytes `mine` by (id, gen, clock): the last
  /// write (whose bytes are no longer read) or the last read.
  void record(uint32_t id, uint32_t gen, uint32_t clock, uint32_t op,
              uint16_t mine, bool store, bool atomic) {
    if (store) {
      wId = id, wGen = gen, wClock = clock, wOp = op;
      wBytes = mine, wAtomic = atomic;
      rBytes &= uint16_t(~mine);
    } else {
      rId = id, rGen = gen, rClock = clock, rOp = op;
      rBytes = mine, rAtomic = atomic;
    }
  }
};

/// GlobalShadows by 16-byte block, in pages of 256 blocks (4 KiB of
/// memory): accesses mostly fall in the page of the one before, where a
/// hash lookup per block was most of a streaming kernel's run. clear()
/// keeps the pages for the next CTA.
class GlobalShadowMap {
public:
  GlobalShadow &operator[](uint64_t block) {
    uint64_t page = block >> kPageShift;
    if (!last || page != lastPage) {
      auto [it, fresh] = index.try_emplace(page, used);
      if (fresh) {
        if (used == pages.size())
          pages.push_back(std::make_unique<Page>());
        else
          pages[used]->fill(GlobalShadow());
        ++used;
      }
      last = pages[it->second].get();
      lastPage = page;
    }
    return (*last)[block & ((1u << kPageShift) - 1)];
  }
  void clear() {
    index.clear();
    used = 0;
    last = nullptr;
  }
  template <typename Fn> void forEach(Fn fn) const {
    for (uint32_t i = 0; i < used; ++i)
      for (const GlobalShadow &g : *pages[i])
        fn(g);
  }

private:
  static constexpr unsigned kPageShift = 8;
  using Page = std::array<GlobalShadow, 1u << kPageShift>;
  llvm::DenseMap<uint64_t, uint32_t> index; // page -> pages[i]
  std::vector<std::unique_ptr<Page>> pages;
  uint32_t used = 0;
  uint64_t lastPage = 0;
  Page *last = nullptr;
};

struct MBarrier {
  uint32_t expected = 0, pending = 0;
  int64_t tx = 0; // expected minus completed transaction bytes
  int64_t txExpected = 0, txCompleted = 0; // of the current phase, for reports
  uint32_t phase = 0;                      // number of completed phases
  Clock releasing; // joined by arrivals of the current phase
  Clock completed; // of the last completed phase
  uint32_t initOp = 0;
  // Who initialized it, when: a peer CTA may use it only once that is
  // ordered before (a cluster barrier after the init).
  uint32_t initId = kNone, initGen = kAsyncGen, initClock = ~0u;
  bool valid = true;
};

/// An asynchronous bulk copy in flight.
struct AsyncCopy {
  bool load = true; // TMA global->shared (else shared->global)
  uint32_t syncId = 0, op = 0, issuer = 0;
  uint64_t shared = 0; // shared offset of the box
  uint64_t mbar = 0;   // shared offset of the mbarrier (loads)
  unsigned map = 0;
  std::array<int64_t, 5> coords = {0, 0, 0, 0, 0};
  // A multicast load lands in each CTA of `dests` (bit r: cluster rank r)
  // on its own, at the same offsets; `landed` those it reached. 0: a plain
  // copy of the issuing CTA.
  uint16_t dests = 0, landed = 0;
  bool done = false;
  std::vector<uint8_t> snapshot; // stores: the box as read
  // A wgmma.mma_async's shared-memory reads (Wgmma.cpp), not a copy: it
  // completes only at wgmma.wait_group. Ordered after what its warpgroup's
  // threads had seen when they issued it.
  bool wgmma = false;
  uint32_t wgmmaIndex = 0;
  // A tcgen05.mma's shared-memory reads (Tcgen05.cpp): they happen when its
  // tcgen05.commit completes it, ordered after what the issuer had seen.
  bool tcgen05 = false;
  Clock seen;
  uint32_t seenGen = 0;
};

/// A wgmma.mma_async of one warpgroup, issued and not necessarily
/// complete. Its result registers, and the copies of them, hold tags
/// (wgmmaTag) that name it until an instruction reads them.
struct WgmmaRun {
  uint32_t op = 0, pc = 0, warpgroup = 0, copy = 0; // copy: its AsyncCopy
  unsigned n = 0;
  uint32_t flags = 0; // WgmmaAux
  bool scaleD = true;
  uint64_t descA = 0, descB = 0;
  kcc::WgmmaDescriptorFields a, b;
  std::vector<uint32_t> field;  // result field of each D register
  std::vector<uint64_t> acc;    // [thread][D register] inputs (may be tags)
  std::vector<uint32_t> aRegs;  // RegA: [thread][4] A registers at issue
  std::vector<uint32_t> result; // [thread][result field] f32 bits
  bool done = false;
};

/// The value a wgmma result register holds until the wgmma is retired: bit
/// 63, the wgmma's index, and a quiet-NaN f32 whose payload is the field.
inline uint64_t wgmmaTag(uint32_t index, uint32_t field) {
  return (1ull << 63) | (uint64_t(index) << 32) | 0x7fc00000u | field;
}
inline bool isWgmmaTag(uint64_t v) { return v >> 63; }
inline uint32_t wgmmaTagIndex(uint64_t v) {
  return uint32_t(v >> 32) & 0x7fffffffu;
}
inline uint32_t wgmmaTagField(uint64_t v) { return uint32_t(v) & 0xffffu; }

/// A tcgen05.mma issued by one thread: D (in TMEM) = A x B (+ D), run when
/// a tcgen05.commit of its thread completes it.
struct Tcgen05Run {
  uint32_t op = 0, issuer = 0, copy = 0; // copy: its AsyncCopy
  uint32_t d = 0, idesc = 0;
  uint64_t descA = 0, descB = 0;
  bool accumulate = false, done = false;
  bool i8 = false; // kind::i8 (else kind::f16 or, with f8, kind::f8f6f4)
  bool f8 = false;
};

/// Pending warp-wide shared accesses of one op instance (bank model).
struct BankRecord {
  std::vector<std::optional<uint64_t>> lanes;
};

struct Fault {
  std::string message;
  uint32_t op = 0;
  std::vector<Report> notes;
};

class Machine;

/// The CTAs of one thread-block cluster, run together by one scheduler
/// (Simulator.cpp), and the cluster barrier (Cluster.cpp). A kernel without
/// cluster dimensions runs each CTA as a cluster of one.
struct Cluster {
  std::vector<Machine *> ctas; // by rank
  std::array<uint32_t, 3> dim = {1, 1, 1};
  // barrier.cluster: completed phases, live threads yet to arrive in this
  // one, what the arrivals of this phase released and of the last one did.
  uint32_t phase = 0, pending = 0;
  Clock releasing, completed;
  void reset(unsigned liveThreads) {
    phase = 0, pending = liveThreads;
    releasing.clear(), completed.clear();
  }
};

/// A peer's access to a CTA's shared memory (an arrive on one of its
/// mbarriers, a load or store), the last of each accessor: it must happen
/// before the CTA exits.
struct PeerAccess {
  uint32_t gen = 0, clock = 0, op = 0;
  uint64_t offset = 0;
  bool arrive = false;
};

class Machine {
public:
  Machine(const Program &program, const Options &options,
          std::vector<GlobalBuffer> &buffers,
          const std::vector<TensorMap> &maps, Result &result);

  /// Runs CTA `block` of `grid` as a cluster of one; false after an error
  /// (reported).
  bool runCta(std::array<uint32_t, 3> block, std::array<uint32_t, 3> grid,
              const std::vector<KernelArg> &args);
  /// Sets up CTA `block` (its threads at the entry, fresh shared memory,
  /// shadows, barriers) with its threads' slots from `regOffset` on.
  void startCta(std::array<uint32_t, 3> block, std::array<uint32_t, 3> grid,
                const std::vector<KernelArg> &args);

  std::array<uint32_t, 3> blockDim = {1, 1, 1};

  // --- shared with the files of sim/ ------------------------------------
  const Program &prog;
  const Options &opts;
  std::vector<GlobalBuffer> &buffers;
  const std::vector<TensorMap> &maps;
  Result &result;
  std::array<uint32_t, 3> gridDim = {1, 1, 1}, ctaId = {0, 0, 0};
  unsigned numThreads = 0, numWarps = 0;
  std::vector<Thread> threads;
  // Every thread's slots. It outlives the launch (one per host thread): a
  // GEMM's file is tens of megabytes, and faulting a fresh one in on every
  // launch was a third of a difftest's time.
  RegisterFile &regs;
  size_t regOffset = 0; // where this CTA's threads' slots start in `regs`
  std::vector<uint8_t> shared;
  std::vector<uint8_t> dispatchPacket;
  std::mt19937_64 rng;
  std::optional<Fault> fault;
  uint32_t ctaGen = 0;
  /// Instructions of this CTA, and of the launch's CTAs before it (the
  /// instruction budget counts both).
  uint64_t instructions = 0, instructionBase = 0;

  // Execute.cpp: runs `t` for up to `budget` instructions or until it
  // blocks or exits. False on a fault.
  bool execute(Thread &t, unsigned budget);
  /// Runs the ready lanes of warp `w` at its lowest ready pc together, an
  /// instruction at a time for all of them, for up to `budget`
  /// instructions: lane ops (isLaneOp) and branches over the whole group,
  /// any other op lane by lane through execute(). The group stops when its
  /// lanes part (a blocking op, an exit, lanes waiting behind a branch's
  /// target); lanes still ready are queued again. `ran`: the lanes that
  /// ran. False on a fault.
  bool runWarp(uint32_t w, unsigned budget, uint64_t &ran);
  /// Runs lane op `in` for the lanes in `mask` of the warp whose first
  /// thread is `first` and whose registers start at `base`.
  bool warpOp(const Inst &in, uint32_t first, uint64_t *base, uint64_t mask);
  /// A load or store of `t` (bounds, alignment, races, banks). False on a
  /// fault.
  bool memoryOp(Thread &t, const Inst &in);
  /// Load or store `in` at `pc` for the lanes in `mask` (as warpOp), lane by
  /// lane in lane order; accesses all inside this CTA's shared memory or one
  /// global buffer skip memoryOp's address dispatch. False on a fault (the
  /// faulting lane's pc is `pc`).
  bool warpMemoryOp(const Inst &in, uint32_t pc, uint32_t first, uint64_t *base,
                    uint64_t mask);
  /// The bytes of `t`'s access of `in` at `addr` (a load, store or atomic),
  /// bounds-checked and recorded in the race shadow of shared or global
  /// memory (a peer CTA's for distributed shared memory). Null after a
  /// fault. `ownShared`: set to the offset of an access to this CTA's
  /// shared memory.
  uint8_t *checkedAccess(Thread &t, const Inst &in, uint64_t addr,
                         uint64_t bytes, bool store, bool atomic,
                         uint64_t *ownShared = nullptr);
  /// A branch's parallel copy of block arguments (Program::aux at `at`) for
  /// the lanes in `mask`.
  void branchCopy(uint64_t *base, uint32_t at, uint64_t mask);
  std::vector<uint64_t> scratch; // branchCopy's sources
  uint64_t *warpRegs(uint32_t w) {
    return regs.data() + regOffset + size_t(w) * opts.warpSize * prog.numSlots;
  }
  uint64_t fullMask() const {
    return opts.warpSize >= 64 ? ~0ull : (1ull << opts.warpSize) - 1;
  }
  void setFault(uint32_t op, const llvm::Twine &message);
  std::string threadName(const Thread &t) const;
  mlir::Location locOf(uint32_t op) const;

  // Memory.cpp: the bytes an access touches, or null after a fault.
  /// With `peerOk`, an address in a peer CTA's shared memory resolves too
  /// (distributed shared memory): accessPeer names that CTA then.
  uint8_t *resolve(Thread &t, uint32_t op, unsigned addrSpace, uint64_t addr,
                   uint64_t bytes, bool store, uint64_t *sharedOffset,
                   bool peerOk = false);
  std::string describeGlobal(uint64_t addr, uint64_t bytes) const;
  std::string describeShared(uint64_t offset) const;

  // Races.cpp
  std::vector<ByteShadow> shadow;
  /// The bytes of `shadow` written since resetShadow (empty: lo >= hi).
  uint64_t shadowLo = ~0ull, shadowHi = 0;
  void touchShadow(uint64_t offset, uint64_t bytes) {
    shadowLo = std::min(shadowLo, offset);
    shadowHi = std::max(shadowHi, offset + bytes);
  }
  std::vector<ReadRec> readPool;
  std::vector<WriteRec> writePool;
  /// A new write record; its index.
  uint32_t newWrite(uint32_t id, uint32_t gen, uint32_t clock, uint32_t op,
                    bool atomic) {
    writePool.push_back({id, gen, clock, op, atomic});
    return uint32_t(writePool.size() - 1);
  }
  unsigned raceReports = 0;
  std::map<std::pair<uint32_t, uint32_t>, bool> reportedPairs;
  bool ordered(const Thread &t, uint32_t id, uint32_t gen,
               uint32_t clock) const;
  /// Checks and records an access by a thread (t) or by an async copy
  /// (t == null, id/clock of the copy). False after a fault.
  /// An atomic read-modify-write (`atomic`) does not race with another:
  /// threads counting into one shared counter is what atomics are for.
  /// `unit`: the bytes a report names as one access (a TMA element of a
  /// run of them); 0: `bytes`.
  bool sharedAccess(Thread *t, uint32_t op, uint64_t offset, uint64_t bytes,
                    bool store, uint32_t asyncId = 0, bool atomic = false,
                    uint64_t unit = 0);
  /// sharedAccess for a thread's plain load or store, with a fast path for
  /// the common case.
  bool threadSharedAccess(Thread &t, uint32_t op, uint64_t offset,
                          uint64_t bytes, bool store);
  /// threadSharedAccess's read, where it decides alone; false: it takes
  /// sharedAccess.
  bool sharedReadFast(const Thread &t, uint32_t op, uint64_t offset,
                      uint64_t bytes);
  /// threadSharedAccess after touchShadow: the fast paths, else
  /// sharedAccess.
  bool recordShared(Thread &t, uint32_t op, uint64_t offset, uint64_t bytes,
                    bool store);
  /// threadSharedAccess's store, where it decides alone.
  bool sharedWriteFast(const Thread &t, uint32_t op, uint64_t offset,
                       uint64_t bytes);
  /// The reads or stores of `bytes` at addrs[l] (shared: offsets) by the
  /// lanes `lanes` of the warp from `first`, in lane order, as
  /// threadSharedAccess / threadGlobalAccess would record them one by one:
  /// the lanes done, up to the first that faulted.
  uint64_t warpAccesses(bool shared, uint32_t first, uint64_t lanes,
                        uint32_t op, const uint64_t *addrs, uint64_t bytes,
                        bool store);
  /// globalAccess for a thread's plain load or store, with a fast path.
  bool threadGlobalAccess(Thread &t, uint32_t op, uint64_t addr, uint64_t bytes,
                          bool store);
  /// After a thread of the warp whose first thread is `first` read `bytes`
  /// at `offset` (threadSharedAccess), records the same read by the
  /// following `lanes` in lane order while the fast path's conditions hold.
  /// The lanes recorded (a prefix of `lanes`).
  uint64_t extendSharedReads(uint32_t first, uint64_t lanes, uint32_t op,
                             uint64_t offset, uint64_t bytes);
  /// The same for a read of global memory (threadGlobalAccess): a block
  /// keeps its last reader, so the lanes after it leave the last lane's.
  uint64_t extendGlobalReads(uint32_t first, uint64_t lanes, uint32_t op,
                             uint64_t addr, uint64_t bytes);
  /// The same for a thread's access to global memory within its CTA:
  /// another thread's access to one of the same bytes, one of them a write
  /// and not both atomic, unordered by a barrier (or an acquire) is a data
  /// race (global memory is per CTA here: other CTAs are not ordered with
  /// it at all, and kcc kernels do not synchronize them).
  GlobalShadowMap globalShadow;
  std::set<std::pair<const void *, const void *>> reportedGlobalPairs;
  bool globalAccess(Thread &t, uint32_t op, uint64_t addr, uint64_t bytes,
                    bool store, bool atomic = false);
  /// A race's error and a note at the other access.
  void reportRace(Report error, uint32_t otherOp, bool otherStore);
  void resetShadow();
  /// Called as a copy gets its sync id: from time to time drops the ids no
  /// ordering check can ask about any more from every clock.
  void newAsyncSyncId();
  static constexpr size_t kSyncIdCollectionStep = 64;
  size_t nextSyncIdCollection = kSyncIdCollectionStep;
  /// A read of unwritten shared memory waits here for a racing write.
  std::optional<Fault> pendingUninit;
  /// Turns a pending unwritten read into the fault; false if it did.
  bool checkPendingUninit();

  // Banks.cpp
  std::vector<uint32_t> instanceCounters; // [thread][shared op]
  std::vector<std::unordered_map<uint64_t, BankRecord>>
      pendingBanks;                       // per warp
  std::vector<BankSummary> bankSummaries; // per shared op (by Inst::c)
  void recordBankAccess(Thread &t, const Inst &in, uint64_t offset);
  void flushBanks();

  // Collectives.cpp: fires the warp's cross-lane op if every live lane is
  // blocked. False on a fault.
  bool tryCollective(unsigned warp, bool &fired);
  // The cross-lane op `in` (register or matrix) for the `present` lanes of
  // the warp whose lanes are first..last-1: writes their results, leaves
  // their pcs. False on a fault.
  bool collectiveOp(unsigned first, unsigned last, uint64_t present,
                    const Inst &in);
  // WarpMma.cpp: ldmatrix / mma.sync for the lanes first..last-1 of a warp,
  // all present at `in`. False on a fault.
  bool warpMatrixOp(unsigned first, unsigned last, uint64_t present,
                    const Inst &in);

  // Async.cpp
  std::map<uint64_t, MBarrier> mbarriers; // by shared offset
  std::vector<AsyncCopy> copies;
  uint32_t nextSyncId = 0;
  enum class Step { Continue, Block, Fault };
  Step asyncOp(Thread &t, const Inst &in);
  bool completeCopy(uint32_t index);
  bool completeRandomCopy(bool &any);
  bool anyPendingCopy() const;
  bool mbarrierPhaseDone(uint64_t addr, uint32_t parity) const;
  void wakeMBarrierWaiters(uint64_t addr);
  std::string describeMBarrier(uint64_t addr) const;
  MBarrier *findMBarrier(Thread &t, uint32_t op, uint64_t addr);

  // Wgmma.cpp
  std::vector<WgmmaRun> wgmmas;
  /// Issues the warpgroup's wgmma once all 128 threads wait at it. False on
  /// a fault.
  bool tryWarpgroup(unsigned warpgroup, bool &fired);
  bool fireWgmma(unsigned warpgroup, uint32_t pc);
  /// wgmma.commit_group / wgmma.wait_group.
  Step wgmmaGroupOp(Thread &t, const Inst &in);
  /// Reads the operands from shared memory and computes the results.
  bool completeWgmma(uint32_t index);
  /// Before an instruction flagged kReadsWgmmaAcc: replaces the tags of
  /// retired wgmmas in its operands by their values; false (a fault) if it
  /// reads a result of a wgmma not yet retired.
  bool checkWgmmaAccRead(Thread &t, uint32_t pc);
  /// At the CTA's end: every wgmma was retired.
  bool checkWgmmasRetired();
  std::string describeWarpgroup(unsigned warpgroup) const;

  // Tcgen05.cpp: TMEM (lane-major, 128 x 512 32-bit cells), its
  // allocations (first column -> columns), the allocation permit, and the
  // tcgen05.mma of the CTA.
  std::vector<uint32_t> tmem;
  std::map<uint32_t, uint32_t> tmemAllocs;
  bool tmemRelinquished = false;
  std::vector<Tcgen05Run> tcMmas;
  Step tcgen05Op(Thread &t, const Inst &in);
  /// At the CTA's end: every tcgen05.mma committed, all TMEM freed.
  bool checkTcgen05Exit();

  // Simulator.cpp. `ready` lists warps with lanes queued (queuedLanes,
  // bit per lane); a warp is listed once (warpListed) and may have none
  // left by the time it is picked.
  std::vector<uint32_t> ready;
  std::vector<uint64_t> queuedLanes;
  std::vector<uint8_t> warpListed;
  /// One scheduling step of warp `w` (runWarp) and what follows it: exits,
  /// collectives, warpgroup MMAs. `pc` is where the group stopped,
  /// `blocked` whether a lane of it blocked or exited. False on a fault.
  bool stepWarp(uint32_t w, unsigned budget, uint32_t &pc, bool &blocked);
  std::array<unsigned, 16> barrierArrived{};
  /// What threads that arrived without waiting (bar.arrive) release to
  /// the waiters of each barrier.
  std::array<Clock, 16> barrierReleased{};
  unsigned exited = 0;
  void makeReady(Thread &t);
  bool arriveBarrier(Thread &t, const Inst &in);
  /// The barrier `in` names for `t`, checked (a fault if it cannot
  /// complete).
  bool checkBarrier(Thread &t, const Inst &in, uint32_t &id, uint32_t &count);
  /// The lanes `mask` of the warp from `first`, in lockstep at the barrier
  /// op `in` (at `pc`), arrive as each would in turn. False on a fault.
  bool arriveBarrierGroup(uint32_t first, uint64_t mask, const Inst &in,
                          uint32_t pc);
  /// Barrier `id` of `count` threads completed: its waiters go on.
  bool releaseBarrier(uint32_t id, uint32_t count);
  /// After `t` returned: a CTA barrier others wait at can no longer
  /// complete (a fault), the cluster barrier counts it as arrived, and the
  /// CTA's last thread ends the CTA in a cluster. False on a fault.
  bool threadExited(Thread &t);
  /// The checks at a CTA's end (wgmmas retired, TMEM freed, bank sums,
  /// unwritten reads); false on a fault.
  bool finishCta();
  /// Appends (message, op) for each group of this CTA's blocked threads;
  /// `suffix` follows the thread ids ("threads 0-127 of CTA (1, 0, 0)").
  void describeBlocked(std::vector<std::pair<std::string, uint32_t>> &out,
                       const std::string &suffix) const;

  // Cluster.cpp. The cluster this CTA runs in (outside clusters its own
  // cluster of one), its rank there and the first sync id of that rank.
  Cluster soloCluster;
  Cluster *cluster = &soloCluster;
  uint32_t rank = 0, idBase = 0;
  bool inCluster() const { return cluster->ctas.size() > 1; }
  Machine &peer(uint32_t r) const { return *cluster->ctas[r]; }
  /// The CTA whose thread or copy sync id `id` is.
  const Machine &ownerOf(uint32_t id) const {
    return rankOfId(id) == rank ? *this : peer(rankOfId(id));
  }
  std::string ctaName() const;
  /// nvvm.read.ptx.sreg.cluster.* (Inst::sub: kind << 2 | axis).
  uint32_t clusterRegister(uint8_t sub) const;
  /// barrier.cluster.arrive[.relaxed] / wait.
  Step clusterBarrier(Thread &t, const Inst &in);
  /// "phase 0: 128 of 256 threads of the cluster have not arrived
  /// (threads 0-127 of CTA (1, 0, 0))".
  std::string describeClusterBarrier() const;
  /// The CTA a shared::cluster address (tag and offset, see
  /// kClusterRankShift) names, and its offset there; null after a fault.
  Machine *clusterTarget(Thread &t, uint32_t op, uint64_t addr,
                         uint64_t &offset);
  /// Whether `t` may use `peer`'s mbarrier at `addr` (`what` it does, for
  /// the report): the peer has not exited and its mbarrier.init is ordered
  /// before. False on a fault.
  /// Reports that `peer` exited before thread `t`'s `access` at `offset`
  /// of its shared memory; false.
  bool peerExited(Thread &t, uint32_t op, Machine &peer,
                  const std::string &access, uint64_t offset);
  bool checkPeerMBarrier(Thread &t, uint32_t op, Machine &peer, uint64_t addr,
                         const char *what);
  /// The shared memory of `peer` for a load or store by `t` (distributed
  /// shared memory), checked and recorded; null after a fault.
  uint8_t *peerShared(Thread &t, uint32_t op, Machine &peer, uint64_t offset,
                      uint64_t bytes, bool store);
  /// Remembers a peer's access (its last per accessor) for the exit check.
  void recordPeerAccess(const Thread &t, uint32_t op, uint64_t offset,
                        bool arrive);
  /// The CTA's last thread returned (in a cluster of several): the
  /// multicasts to it have landed and its peers' accesses happened before,
  /// its own copies land, and finishCta. False on a fault.
  bool ctaExit(const Thread &last);
  /// Set by resolve() when an access lands in a peer's shared memory.
  Machine *accessPeer = nullptr;
  bool ctaExited = false;
  uint32_t exitOp = 0; // the return of its last thread
  Clock exitClock;     // what its threads had acquired when they exited
  llvm::DenseMap<uint32_t, PeerAccess> peerAccesses; // by accessor sync id

  // Async.cpp: a multicast copy's box and complete_tx in `dest`.
  bool landCopy(uint32_t index, Machine &dest);
  bool moveBox(AsyncCopy &c, Machine &dest);
};

/// Runs the CTAs `blocks` (by rank) of one cluster on `ctas` together: one
/// seeded scheduler picks among the ready threads of all of them, their
/// copies land at random points. False after an error (reported).
bool runCluster(Cluster &cl, const std::vector<Machine *> &ctas,
                const std::vector<std::array<uint32_t, 3>> &blocks,
                std::array<uint32_t, 3> grid,
                const std::vector<KernelArg> &args);

/// "threads 0-31, 64" for a sorted list of thread ids.
std::string idRanges(const std::vector<uint32_t> &ids);

/// Completes the cluster barrier's phase: its waiters acquire what the
/// arrivals released and go on (Cluster.cpp).
void completeClusterPhase(Cluster &cl);

/// Whether an access stamped (id, gen, clock) happened before what
/// `acquired` has seen, where no barrier generation of the accessor's CTA
/// applies (the accessor is of another CTA): by its clock, or by a
/// generation its CTA released.
inline bool orderedAcross(const Clock &acquired, uint32_t id, uint32_t gen,
                          uint32_t clock) {
  return clockOf(acquired, id) >= clock ||
         (gen != kAsyncGen && gen < clockOf(acquired, genSyncId(rankOfId(id))));
}

/// The shared offset of element (mn, k) of a wgmma / tcgen05 operand with
/// `eb`-byte elements in the canonical 128-byte swizzled layouts, from its
/// descriptor's start, LBO and SBO (Wgmma.cpp's header derives it).
uint64_t swizzledOperandOffset(uint64_t start, uint64_t lbo, uint64_t sbo,
                               bool mnMajor, unsigned mn, unsigned k,
                               unsigned eb);

/// Completes the mbarrier's phase at `addr` if nothing is pending and wakes
/// its waiters (Async.cpp).
void maybeCompletePhase(Machine &mc, uint64_t addr);

} // namespace kcc::sim::detail

#endif // KCC_SIM_MACHINE_H
