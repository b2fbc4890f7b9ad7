//===- VerifyAsyncProtocol.cpp - typestate verifier for async IR ----------===//
//
// kcc-verify-async-protocol proves, before code emission, that the explicit
// async protocol of every function using the ops of ir/KccAsyncOps.td is
// well formed (the state machines are in the header of that file).
//
// Method: concrete abstract interpretation. The whole CTA executes the ops in
// program order, so the verifier executes the function once per choice of its
// run-time integers: integer scalars (arith on i1/i32/i64/index) are evaluated
// exactly, scf.for runs every iteration, scf.if takes the branch its condition
// selects, and every mbarrier / shared-memory stage / bulk async-group carries
// a typestate that each op checks and advances.
//  * Integer kernel arguments that reach a loop bound, an scf.if condition or
//    a barrier/stage index or parity ("control arguments") are unknown at
//    compile time: the function is executed for representative values (0 ..
//    2*S+2 and a large value, S = the deepest buffer; multiples of
//    kcc.divisibility and of constant divisors applied to them). The first
//    failing choice is named in the diagnostic ("with n = 1"), unless every
//    choice fails. More than 4096 combinations: each argument is varied alone
//    with the others at the large value.
//  * Other integers (program ids, loaded values, other arguments) are linear
//    symbolic forms, enough to compare TMA coordinates such as pid*32 and
//    pid*32 + 32. A stage index, barrier index, parity, loop bound or branch
//    condition that is not a known constant is an error ("cannot prove"),
//    never a silent accept; so is a region op other than scf.for/scf.if that
//    contains async ops.
//  * Execution is capped at kMaxSteps executed operations per choice (a
//    "cannot prove" error at the loop that exceeds it).
//  * A persistent kernel's tile loop (kcc.persistent_tiles, from the launch
//    id by the launch's extent) runs as in program 0 of a one-program
//    launch, which runs every tile, but at most 2*S+2 of them: what one
//    tile passes to the next is the stage counters of its pipelines (each
//    advancing by the same trip count every tile) and the barriers' phases
//    and stages, which repeat with period 2*S, so 2*S+1 tiles reach every
//    counter a longer run reaches, and the last one's drain is checked at
//    the kernel's end.
//  * kcc.warp_specialize: its producer and consumer regions run as two
//    concurrent roles (coroutines: each on its own thread, exactly one
//    running at a time) that share the typestate and meet only through
//    mbarriers. A wait whose phase cannot complete yet (missing arrivals,
//    or tx bytes still expected) blocks its role and the other one runs;
//    a blocked role resumes as soon as an op of the other role makes its
//    wait completable (wake-up preemption: the released role runs at once,
//    the adversarial order for "released too early" bugs). Both roles
//    blocked, or one blocked after the other finished, is a deadlock. Each
//    choice runs twice: producer first and consumer first.
//    What this does NOT prove: only these two schedules are explored, not
//    every interleaving, so a deadlock, a parity or byte-count mismatch or
//    an overwrite caught by an instantaneous check (a wgmma group or
//    tma_store still reading the stage) that only another interleaving
//    reaches is missed. Whether a write follows the release of the other
//    role's reads is decided from what each role has observed through its
//    waits (below), which holds in every interleaving.
//
// Rules checked (messages say what to add or change):
//  * mbarrier: use before init, use after inval, init twice, use before
//    fence_mbarrier_init, index out of range; a wait needs an armed phase
//    (else hang), the parity of the pending phase (else it returns at once),
//    all `count` arrivals and tx bytes expected == bytes of the copies that
//    signal the barrier in that phase; an arrival beyond `count`; inval with
//    copies in flight.
//  * stages: reads (smem_load, tma_store) need a completed (waited) load or
//    a cta_barrier after generic writes; writes (tma_load, smem_store) need
//    the stage released: no copy in flight, loaded data read, a cta_barrier
//    after the last smem_load and no un-waited tma_store reading it.
//  * proxies: smem_store -> fence_proxy_async -> cta_barrier -> tma_store.
//  * cp.async groups (kcc.cp_async, kcc-pipeline-async-copies): every thread
//    copies its own chunks, so a stage filled by cp.async may be read only
//    after a kcc.cp_async_wait_group retired the copy's group (each thread's
//    own chunks landed) and a kcc.cta_barrier followed (everyone's did); it
//    may be overwritten only once no copy into it is in flight and a
//    kcc.cta_barrier followed its last read (smem_load, warp_mma); the
//    kernel must not end with a copy that was never waited for. The
//    producer role issues none of them.
//  * bulk async-groups: overlapping tma_stores to one map in one group, a
//    tma_load of a box an un-completed tma_store writes, and a kernel ending
//    with uncommitted or un-waited tma_stores or with loads in flight (the
//    "trip count smaller than the pipeline depth" bug).
//  * roles: a read (smem_load, warpgroup_mma, tma_store) of a loaded stage
//    needs a wait observed in its own role (or before the split). A role
//    may overwrite a stage the other role read only after one of its waits
//    observed an arrival that covers the read: the consumer arrives from
//    one thread, so its smem_loads need a kcc.cta_barrier before the
//    arrival, and its wgmma groups must have retired before it, seen by
//    each warpgroup's leader (per_warpgroup, which counts
//    consumer_warpgroups arrivals, or a plain arrival with one warpgroup).
//    The producer is one thread: no kcc.cta_barrier, generic-proxy or
//    wgmma ops, bulk groups or proxy fences there; barriers are initialized
//    before the split, and the split is neither nested nor in a loop.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "targets/TmemRules.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>

namespace kcc {
#define GEN_PASS_DEF_KCCVERIFYASYNCPROTOCOL
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;

namespace {

constexpr int64_t kMaxSteps = 1 << 20;
constexpr size_t kMaxCombinations = 4096;
/// Data-dependent branches explored per function (2^N runs per choice).
constexpr size_t kMaxDataBranches = 6;
constexpr unsigned kMaxResources = 1024;

//===----------------------------------------------------------------------===//
// Scalars: a constant, or a linear form c + sum(a_i * s_i) over opaque
// symbols (enough to decide whether two TMA coordinates differ by a constant).
//===----------------------------------------------------------------------===//

struct Scalar {
  int64_t c = 0;
  llvm::SmallVector<std::pair<unsigned, int64_t>, 1> terms; // sorted by id
  bool isConst() const { return terms.empty(); }
};

/// Two's-complement arithmetic without signed-overflow UB.
int64_t addWrap(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t mulWrap(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

Scalar constant(int64_t v) {
  Scalar s;
  s.c = v;
  return s;
}

/// a + k * b, as a linear form (constants are wrapped by the caller).
Scalar linear(const Scalar &a, const Scalar &b, int64_t k) {
  Scalar r;
  r.c = addWrap(a.c, mulWrap(k, b.c));
  size_t i = 0, j = 0;
  while (i < a.terms.size() || j < b.terms.size()) {
    if (j == b.terms.size() ||
        (i < a.terms.size() && a.terms[i].first < b.terms[j].first)) {
      r.terms.push_back(a.terms[i++]);
    } else if (i == a.terms.size() || b.terms[j].first < a.terms[i].first) {
      r.terms.push_back({b.terms[j].first, mulWrap(k, b.terms[j].second)});
      ++j;
    } else {
      int64_t coef = addWrap(a.terms[i].second, mulWrap(k, b.terms[j].second));
      if (coef != 0)
        r.terms.push_back({a.terms[i].first, coef});
      ++i, ++j;
    }
  }
  return r;
}

Scalar scaled(const Scalar &a, int64_t k) {
  if (k == 0)
    return constant(0);
  Scalar r;
  r.c = mulWrap(a.c, k);
  for (auto [id, coef] : a.terms)
    if (int64_t c = mulWrap(coef, k))
      r.terms.push_back({id, c});
  return r;
}

/// Bit width of a scalar integer type (index: 64), 0 for anything else.
unsigned scalarWidth(Type t) {
  if (auto it = dyn_cast<IntegerType>(t))
    return it.getWidth();
  if (isa<IndexType>(t))
    return 64;
  return 0;
}

/// Canonical signed representation of `v` in `width` bits (i1: 0 or 1).
int64_t wrap(int64_t v, unsigned width) {
  if (width == 1)
    return v & 1;
  if (width == 0 || width >= 64)
    return v;
  return llvm::SignExtend64(static_cast<uint64_t>(v), width);
}

uint64_t asUnsigned(int64_t v, unsigned width) {
  if (width == 0 || width >= 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & llvm::maskTrailingOnes<uint64_t>(width);
}

//===----------------------------------------------------------------------===//
// Diagnostics are collected, not emitted, so that the function can be run for
// several argument choices and only the first failure be reported.
//===----------------------------------------------------------------------===//

struct Diag {
  Location loc;
  std::string problem;
  std::string advice;
  llvm::SmallVector<std::pair<Location, std::string>> notes;
};

//===----------------------------------------------------------------------===//
// Typestate
//===----------------------------------------------------------------------===//

/// Who executes an op: the whole CTA (outside kcc.warp_specialize) or one
/// of its roles.
enum Role { Cta = 0, Producer = 1, Consumer = 2 };
constexpr int kRoles = 3;
const char *roleName(int r) {
  return r == Producer ? "producer" : r == Consumer ? "consumer" : "CTA";
}
/// Per-role times (step counts), -1: none.
using RoleTimes = std::array<int64_t, kRoles>;
constexpr RoleTimes kNoTimes = {-1, -1, -1};

/// What arrivals make known to a role that observes their phase, per
/// arriving role: its latest arrival; the latest time by which the reads of
/// all its threads (smem_load) had completed; and the same for the reads an
/// arriving leader thread sees complete (wgmma groups its warpgroup
/// retired, tma_stores it waited for).
struct Release {
  RoleTimes arrived = kNoTimes, complete = kNoTimes, leaderComplete = kNoTimes;
  void join(const Release &o) {
    for (int q = 0; q < kRoles; ++q) {
      arrived[q] = std::max(arrived[q], o.arrived[q]);
      complete[q] = std::max(complete[q], o.complete[q]);
      leaderComplete[q] = std::max(leaderComplete[q], o.leaderComplete[q]);
    }
  }
};

struct Phase {
  int64_t arrivals = 0, expected = 0, brought = 0;
  llvm::SmallVector<Operation *, 2> arms;  // arrive / arrive_expect_tx
  llvm::SmallVector<Operation *, 2> loads; // tma_loads signaling it
  Release released; // learned by a wait observing the phase
  // The last tcgen05_mma (by issue number) a kcc.tcgen05_commit arriving
  // in this phase covers: a wait observing the phase retires it and those
  // before it.
  int64_t tcCovered = 0;
  bool armed() const { return arrivals > 0 || expected > 0; }
  bool touched() const { return armed() || !loads.empty(); }
};

struct Barrier {
  enum Life { Uninit, Live, Dead } life = Uninit;
  Operation *allocOp = nullptr, *initOp = nullptr, *invalOp = nullptr;
  bool fenced = false;
  int64_t count = 0;
  int64_t phase = 0; // number of the current (incomplete) phase
  // Per role: highest phase a wait of that role has seen complete.
  RoleTimes observed = kNoTimes;
  Phase cur;
  Release lastReleased; // `released` of phase `phase` - 1
  int64_t lastTcCovered = 0; // `tcCovered` of phase `phase` - 1
};

struct Stage {
  enum Data { None, Async, Generic, CpAsync } data = None;
  Operation *writer = nullptr; // the tma_load or smem_store of the data
  // Async data: the barrier and phase its copy signals.
  Value bars;
  int64_t barIndex = 0, phase = 0;
  unsigned landedIn = 0; // roles (bit per Role) that observed the copy
  // Generic data: fence_proxy_async after it, cta_barrier after it, and a
  // cta_barrier after that fence.
  bool fenced = false, synced = false, fencedSynced = false;
  int64_t issuedAt = 0;           // step count when the copy was issued
  bool consumed = false;          // read by smem_load or tma_store
  Operation *reader = nullptr;    // last smem_load not yet released
  int readerRole = Cta;           // the role of `reader`
  // The last reads by a role, kept after cta_barrier (which syncs one role
  // only): the other role may write once it observed releases made after
  // they completed. `readEnd`: wgmma (at retirement) and tma_store reads;
  // `threadReadEnd`: smem_load, by every thread.
  int lastReaderRole = Cta;
  Operation *lastReader = nullptr, *lastThreadReader = nullptr;
  int64_t readEnd = -1, threadReadEnd = -1;
  Operation *tmaReader = nullptr; // tma_store whose group is not waited
  // A tma_store whose read only the issuing thread has waited for
  // (bulk_wait_group runs there): the other threads may write the stage
  // after a cta_barrier.
  Operation *tmaWaitedAlone = nullptr;
  Operation *mmaReader = nullptr; // warpgroup_mma whose group is in flight,
                                  // or tcgen05_mma not yet retired
  int64_t tcSeq = 0;              // issue number of a tcgen05 mmaReader
  // CpAsync data: its group was retired by a wait_group, and a cta_barrier
  // followed that wait.
  bool cpWaited = false, cpSynced = false;
};

/// A cp.async in its thread group: the stage it fills (the copy is current
/// while the stage's writer is still `op`).
struct CpCopy {
  Operation *op;
  Stage *stage;
};

struct BulkCopy {
  Operation *op;
  Value map;
  llvm::SmallVector<Scalar, 2> coords;
  Value src; // tma_store source buffer
  int64_t stage = 0;
  int64_t parts = 1; // boxes side by side along the innermost dimension
};

bool isAsyncOp(Operation *op) {
  return isa<kcc::SmemAllocOp, kcc::MBarrierAllocOp, kcc::MBarrierInitOp,
             kcc::FenceMBarrierInitOp, kcc::MBarrierArriveExpectTxOp,
             kcc::MBarrierArriveOp, kcc::MBarrierWaitOp, kcc::MBarrierInvalOp,
             kcc::TmaLoadOp, kcc::TmaStoreOp, kcc::BulkCommitGroupOp,
             kcc::BulkWaitGroupOp, kcc::FenceProxyAsyncOp, kcc::CtaBarrierOp,
             kcc::SmemLoadOp, kcc::SmemStoreOp, kcc::WarpgroupMmaOp,
             kcc::WarpgroupMmaWaitOp, kcc::ConvertLayoutOp, kcc::CpAsyncOp,
             kcc::CpAsyncCommitGroupOp, kcc::CpAsyncWaitGroupOp, kcc::WarpMmaOp,
             kcc::TmemAllocOp, kcc::TmemDeallocOp, kcc::Tcgen05MmaOp,
             kcc::Tcgen05CommitOp, kcc::TmemLoadOp>(op);
}

bool containsAsyncOp(Operation *root) {
  bool found = false;
  root->walk([&](Operation *op) {
    if (op != root && isAsyncOp(op)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

//===----------------------------------------------------------------------===//
// Role threads: the two roles of kcc.warp_specialize run as coroutines on
// two threads (the interpreter is recursive, so a role suspends with its
// stack), reused by every run of a function. A baton (`turn`) says who runs:
// a role, or the verifier's thread (Cta); everyone else sleeps.
//===----------------------------------------------------------------------===//

class RoleThreads {
public:
  RoleThreads() {
    for (int r : {Producer, Consumer})
      threads[r] = std::thread([this, r] { serve(r); });
  }
  ~RoleThreads() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      shutdown = true;
    }
    for (int r : {Producer, Consumer}) {
      cv[r].notify_one();
      threads[r].join();
    }
  }

  /// Gives the baton to `next` and sleeps until it comes back to `me`.
  void pass(int me, int next) {
    std::unique_lock<std::mutex> lock(mutex);
    turn = next;
    cv[next].notify_one();
    cv[me].wait(lock, [&] { return turn == me; });
  }
  /// Gives the baton to `next` for good (a role that finished).
  void leave(int next) {
    std::lock_guard<std::mutex> lock(mutex);
    turn = next;
    cv[next].notify_one();
  }

  /// What a role thread runs when it gets the baton outside of pass().
  std::function<void(int)> job;

private:
  void serve(int me) {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      cv[me].wait(lock, [&] { return shutdown || turn == me; });
      if (shutdown)
        return;
      // A copy: once this role leaves, the next run may replace `job`.
      std::function<void(int)> run = job;
      lock.unlock();
      run(me); // ends with leave()
      lock.lock();
    }
  }

  std::mutex mutex;
  std::condition_variable cv[kRoles];
  int turn = Cta;
  bool shutdown = false;
  std::thread threads[kRoles];
};

//===----------------------------------------------------------------------===//
// The interpreter: one execution of a function for one argument choice.
//===----------------------------------------------------------------------===//

class Interp {
public:
  Interp(func::FuncOp func, const llvm::DenseMap<Value, int64_t> &args,
         const llvm::DenseMap<Operation *, bool> *branches = nullptr,
         RoleThreads *threads = nullptr, int firstRole = Producer)
      : func(func), branches(branches), threads(threads), firstRole(firstRole) {
    int64_t depth = 1;
    func.walk([&](kcc::SmemAllocOp a) {
      depth = std::max<int64_t>(depth, a.getType().getStages());
    });
    tileCap = 2 * std::min<int64_t>(depth, 16) + 2;
    for (BlockArgument a : func.getArguments()) {
      auto it = args.find(a);
      if (it != args.end())
        env[a] = constant(it->second);
      else if (scalarWidth(a.getType()))
        env[a] = fresh();
    }
  }

  /// Runs the function; false with `diag` set on the first violation.
  bool run() {
    Region &body = func.getBody();
    if (!body.hasOneBlock()) {
      fail(func.getLoc(),
           "cannot prove the async protocol of a function "
           "with unstructured control flow",
           "use scf.for / scf.if");
      return false;
    }
    return execBlock(body.front(), nullptr) && checkExit();
  }

  std::optional<Diag> diag;

private:
  func::FuncOp func;
  const llvm::DenseMap<Operation *, bool> *branches;
  llvm::DenseMap<Value, Scalar> env;
  unsigned nextSym = 0;
  int64_t steps = 0;
  // Tiles a persistent tile loop runs (2 * the deepest buffer + 2).
  int64_t tileCap = 0;
  Operation *returnOp = nullptr;
  // Loops being executed per role, innermost last: (loop, induction
  // variable value).
  std::array<llvm::SmallVector<std::pair<scf::ForOp, int64_t>, 2>, kRoles>
      roleLoops;
  // The last loop that finished at nesting depth 0, with its trip count and
  // the step count when it started.
  Operation *lastTopLoop = nullptr;
  int64_t lastTopTrip = 0, lastTopStart = 0;

  llvm::MapVector<Value, llvm::SmallVector<Barrier, 2>> barriers;
  llvm::MapVector<Value, llvm::SmallVector<Stage, 2>> stages;
  std::vector<BulkCopy> openGroup;
  std::deque<std::vector<BulkCopy>> committed; // oldest first
  // cp.async groups (the same in every thread): open, committed oldest first.
  std::vector<CpCopy> cpOpen;
  std::deque<std::vector<CpCopy>> cpCommitted;
  std::vector<BulkCopy> unfinished; // sources released, writes not complete
  // wgmma groups in flight, oldest first: the warpgroup_mma and the stages
  // (buffer, stage pointer) it is still reading.
  struct MmaGroup {
    Operation *op;
    llvm::SmallVector<Stage *, 2> stages;
  };
  std::deque<MmaGroup> mmaGroups;
  // tcgen05_mma ops issued and retired (issue numbers; they complete in
  // order), the last one issued, and the TMEM allocations (by the value
  // holding their address).
  int64_t tcIssued = 0, tcRetired = 0;
  Operation *lastTcMma = nullptr;
  kcc::TmemAllocTracker tmem;
  llvm::DenseMap<Value, unsigned> tmemIds;
  // TMEM allocations every thread read (kcc.tmem_load) since the last
  // cta_barrier: a tcgen05_mma (one thread) may not overwrite them yet.
  llvm::DenseMap<Value, Operation *> tmemReadUnsynced;
  llvm::DenseMap<Value, Operation *> tmemFreed;

  // kcc.warp_specialize: the role executing now; per role its last
  // kcc.cta_barrier (`synced`), its last point where every warpgroup's
  // leader had seen its own wgmma groups retire (`wgSynced`: cta_barrier or
  // per_warpgroup arrival), and what it learned of the others' through
  // waits.
  int role = Cta;
  RoleThreads *threads;
  int firstRole;
  RoleTimes synced = kNoTimes, wgSynced = kNoTimes;
  std::array<Release, kRoles> learned;
  // The roles' progress in the kcc.warp_specialize being executed (only
  // touched by the baton holder).
  struct Roles {
    bool finished[kRoles] = {};
    kcc::MBarrierWaitOp blockedAt[kRoles] = {};
    bool cancelled = false;
    int64_t warpgroups = 1;
  };
  std::unique_ptr<Roles> roles;

  auto &loops() { return roleLoops[role]; }

  Scalar fresh() {
    Scalar s;
    s.terms.push_back({nextSym++, 1});
    return s;
  }

  Scalar get(Value v) {
    auto it = env.find(v);
    if (it != env.end())
      return it->second;
    // Integers produced by ops the verifier does not model are opaque.
    Scalar s = fresh();
    env[v] = s;
    return s;
  }

  std::string context(int r) const {
    if (roleLoops[r].empty())
      return "";
    std::string s;
    llvm::raw_string_ostream os(s);
    os << " (loop iteration with induction variable ";
    llvm::interleave(
        roleLoops[r], os, [&](const auto &l) { os << l.second; }, ", ");
    os << ")";
    return s;
  }

  Diag &fail(Location loc, const llvm::Twine &problem,
             const llvm::Twine &advice) {
    diag = Diag{loc, problem.str() + context(role), advice.str(), {}};
    return *diag;
  }

  bool cannotProve(Operation *op, const llvm::Twine &what) {
    fail(op->getLoc(),
         "cannot prove the async protocol: " + what +
             " is not computable from constants, loop induction variables "
             "and the kernel's integer arguments",
         "compute it with arith ops from those (e.g. k % stages, (k / "
         "stages) & 1)");
    return false;
  }

  /// The constant value of `v`, or an error at `op` naming `what`.
  std::optional<int64_t> known(Operation *op, Value v,
                               const llvm::Twine &what) {
    Scalar s = get(v);
    if (!s.isConst()) {
      cannotProve(op, what);
      return std::nullopt;
    }
    return s.c;
  }

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// Executes `block` except its terminator; stores the terminator's operand
  /// values in `yielded` if given.
  bool execBlock(Block &block, llvm::SmallVectorImpl<Scalar> *yielded) {
    for (Operation &op : block) {
      if (++steps > kMaxSteps) {
        Operation *at = loops().empty() ? &op : loops().front().first;
        fail(at->getLoc(),
             "cannot prove the async protocol: the verifier executes at most " +
                 llvm::Twine(kMaxSteps) +
                 " operations per kernel and this one needs more",
             "use a smaller constant trip count or split the loop");
        return false;
      }
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        if (isa<func::ReturnOp>(op))
          returnOp = &op;
        if (yielded)
          for (Value v : op.getOperands())
            yielded->push_back(scalarWidth(v.getType()) ? get(v) : Scalar());
        continue;
      }
      if (!exec(&op) || (role != Cta && !wakeOther()))
        return false;
    }
    return true;
  }

  bool exec(Operation *op) {
    if (auto ws = dyn_cast<kcc::WarpSpecializeOp>(op))
      return execWarpSpecialize(ws);
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return execFor(forOp);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return execIf(ifOp);
    if (isAsyncOp(op))
      return execAsync(op);
    if (op->getNumRegions() > 0 && containsAsyncOp(op)) {
      fail(op->getLoc(),
           "cannot prove the async protocol inside '" +
               op->getName().getStringRef() + "'",
           "the verifier follows scf.for and scf.if only");
      return false;
    }
    evalScalar(op);
    return true;
  }

  bool execFor(scf::ForOp forOp) {
    // A persistent kernel's tile loop (from the launch id by the launch's
    // extent) runs as program 0 of a one-program launch would: every tile,
    // up to tileCap of them (see the header).
    bool tiles = forOp->hasAttr(kcc::KccDialect::kPersistentTilesAttr);
    std::optional<int64_t> lb = tiles ? std::optional<int64_t>(0)
                                      : known(forOp, forOp.getLowerBound(),
                                              "the lower bound of this loop");
    if (!lb)
      return false;
    std::optional<int64_t> ub =
        known(forOp, forOp.getUpperBound(), "the upper bound of this loop");
    if (!ub)
      return false;
    if (tiles)
      ub = std::min(*ub, tileCap);
    std::optional<int64_t> step =
        tiles ? std::optional<int64_t>(1)
              : known(forOp, forOp.getStep(), "the step of this loop");
    if (!step)
      return false;
    unsigned width = scalarWidth(forOp.getInductionVar().getType());
    if (*step <= 0) {
      fail(forOp.getLoc(),
           "cannot prove the async protocol: the loop step " +
               llvm::Twine(*step) + " is not positive",
           "use a positive step");
      return false;
    }
    bool isUnsigned = forOp.getUnsignedCmp();
    auto less = [&](int64_t a, int64_t b) {
      return isUnsigned ? asUnsigned(a, width) < asUnsigned(b, width) : a < b;
    };
    llvm::SmallVector<Scalar> iter;
    for (Value v : forOp.getInitArgs())
      iter.push_back(scalarWidth(v.getType()) ? get(v) : Scalar());
    int64_t trip = 0, start = steps;
    for (int64_t iv = *lb; less(iv, *ub); ++trip) {
      env[forOp.getInductionVar()] = constant(iv);
      for (auto [arg, val] : llvm::zip(forOp.getRegionIterArgs(), iter))
        if (scalarWidth(arg.getType()))
          env[arg] = val;
      loops().push_back({forOp, iv});
      llvm::SmallVector<Scalar> next;
      bool ok = execBlock(*forOp.getBody(), &next);
      loops().pop_back();
      if (!ok)
        return false;
      iter = std::move(next);
      int64_t nextIv = wrap(addWrap(iv, *step), width);
      if (nextIv <= iv && !isUnsigned)
        break; // signed overflow ends the loop
      if (isUnsigned && asUnsigned(nextIv, width) <= asUnsigned(iv, width))
        break;
      iv = nextIv;
    }
    for (auto [res, val] : llvm::zip(forOp.getResults(), iter))
      if (scalarWidth(res.getType()))
        env[res] = val;
    if (loops().empty()) {
      lastTopLoop = forOp;
      lastTopTrip = trip;
      lastTopStart = start;
    }
    return true;
  }

  bool execIf(scf::IfOp ifOp) {
    // A data-dependent branch: the caller chose a side (every side is
    // verified, in separate runs).
    auto chosen = branches ? branches->find(ifOp)
                           : llvm::DenseMap<Operation *, bool>::const_iterator();
    std::optional<int64_t> cond =
        branches && chosen != branches->end()
            ? std::optional<int64_t>(chosen->second)
            : known(ifOp, ifOp.getCondition(), "the condition of this scf.if");
    if (!cond)
      return false;
    Region &region = *cond ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (region.empty())
      return true;
    llvm::SmallVector<Scalar> yielded;
    if (!execBlock(region.front(), &yielded))
      return false;
    for (auto [res, val] : llvm::zip(ifOp.getResults(), yielded))
      if (scalarWidth(res.getType()))
        env[res] = val;
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Warp-specialized roles
  //===--------------------------------------------------------------------===//

  static int otherRole(int r) { return r == Producer ? Consumer : Producer; }

  /// Rejects what a role cannot execute: the producer is one thread that
  /// issues copies and waits on barriers; barriers are set up by the whole
  /// CTA before the split.
  bool checkRoles(kcc::WarpSpecializeOp ws) {
    if (role != Cta || !loops().empty()) {
      fail(ws.getLoc(),
           "cannot prove the async protocol of a kcc.warp_specialize nested "
           "in a role or in a loop",
           "split the kernel once, directly in its body");
      return false;
    }
    for (int r : {Producer, Consumer}) {
      Operation *bad = nullptr;
      std::string problem, advice;
      Region &region = r == Producer ? ws.getProducer() : ws.getConsumer();
      region.walk<WalkOrder::PreOrder>([&](Operation *op) {
        std::string name = "'" + op->getName().getStringRef().str() + "'";
        if (isa<kcc::WarpSpecializeOp>(op)) {
          problem = "cannot prove the async protocol of a kcc.warp_specialize "
                    "nested in a role";
          advice = "split the kernel once, directly in its body";
        } else if (isa<kcc::MBarrierInitOp, kcc::FenceMBarrierInitOp>(op)) {
          problem = name + " in the " + roleName(r) +
                    " region: barriers are initialized by the whole CTA "
                    "before kcc.warp_specialize, which the other role does "
                    "not wait for here";
          advice = "move it before kcc.warp_specialize (the last "
                   "kcc.mbarrier_init followed by kcc.fence_mbarrier_init)";
        } else if (r == Producer && isa<kcc::CtaBarrierOp>(op)) {
          problem = "kcc.cta_barrier in the producer region waits for threads "
                    "that never reach it (one producer thread executes the "
                    "region, the consumers synchronize among themselves): a "
                    "deadlock";
          advice = "synchronize with the consumers through mbarriers (wait "
                   "on a barrier they arrive on)";
        } else if (r == Producer &&
                   isa<kcc::SmemLoadOp, kcc::SmemStoreOp, kcc::WarpgroupMmaOp,
                       kcc::WarpgroupMmaWaitOp, kcc::TmaStoreOp,
                       kcc::BulkCommitGroupOp, kcc::BulkWaitGroupOp,
                       kcc::FenceProxyAsyncOp, kcc::CpAsyncOp,
                       kcc::CpAsyncCommitGroupOp, kcc::CpAsyncWaitGroupOp,
                       kcc::WarpMmaOp>(op)) {
          problem = name + " in the producer region: the producer issues "
                           "copies and waits on barriers only";
          advice = "move " + name + " to the consumer region";
        } else {
          return WalkResult::advance();
        }
        bad = op;
        return WalkResult::interrupt();
      });
      if (bad) {
        fail(bad->getLoc(), problem, advice)
            .notes.push_back({ws.getLoc(), "the roles split here"});
        return false;
      }
    }
    return true;
  }

  /// Runs the producer and consumer regions of `ws` as coroutines on the
  /// role threads; this thread sleeps while they run.
  bool execWarpSpecialize(kcc::WarpSpecializeOp ws) {
    if (!checkRoles(ws))
      return false;
    std::unique_ptr<RoleThreads> own;
    if (!threads)
      threads = (own = std::make_unique<RoleThreads>()).get();
    roles = std::make_unique<Roles>();
    Roles &r = *roles;
    r.warpgroups = ws.getConsumerWarpgroups();
    auto entry = [](Region &r) { return r.empty() ? nullptr : &r.front(); };
    std::array<Block *, kRoles> bodies = {nullptr, entry(ws.getProducer()),
                                          entry(ws.getConsumer())};
    threads->job = [&](int me) { runRole(me, bodies[me]); };
    threads->pass(Cta, firstRole);
    // After a failure the other role is suspended: let it unwind.
    r.cancelled = !r.finished[Producer] || !r.finished[Consumer];
    for (int other : {Producer, Consumer})
      if (!r.finished[other])
        threads->pass(Cta, other);
    role = Cta;
    roles.reset();
    if (own)
      threads = nullptr;
    return !diag;
  }

  /// Role `me`'s region, run on its thread; hands the baton on at the end.
  void runRole(int me, Block *body) {
    Roles &r = *roles;
    role = me;
    bool ok = !r.cancelled && (!body || execBlock(*body, nullptr));
    r.finished[me] = true;
    int other = otherRole(me), next = Cta;
    if (ok && !r.finished[other]) {
      if (kcc::MBarrierWaitOp theirs = r.blockedAt[other];
          theirs && blocks(theirs))
        deadlock(other, theirs);
      else
        next = other;
    }
    threads->leave(next);
  }

  /// Passes the baton to `next` and waits until it comes back; false when
  /// the run was cancelled meanwhile (unwind without a diagnostic).
  bool handTo(int next) {
    int me = role;
    threads->pass(me, next);
    role = me;
    return !roles->cancelled;
  }

  /// Wake-up preemption: once the running role's last op made the other
  /// role's blocked wait completable, the other role runs at once.
  bool wakeOther() {
    kcc::MBarrierWaitOp theirs = roles->blockedAt[otherRole(role)];
    return !theirs || blocks(theirs) || handTo(otherRole(role));
  }

  /// The barrier whose pending phase `w` waits for (its parity), or null
  /// when `w` names another phase or cannot be evaluated (wait() reports).
  Barrier *pendingBarrier(kcc::MBarrierWaitOp w) {
    auto it = barriers.find(w.getBars());
    auto index = env.find(w.getIndex()), parity = env.find(w.getParity());
    if (it == barriers.end() || index == env.end() || parity == env.end() ||
        !index->second.isConst() || !parity->second.isConst() ||
        index->second.c < 0 ||
        index->second.c >= static_cast<int64_t>(it->second.size()))
      return nullptr;
    Barrier &b = it->second[index->second.c];
    if (b.life != Barrier::Live || !b.fenced ||
        parity->second.c != (b.phase & 1))
      return nullptr;
    return &b;
  }

  /// Whether wait `w` in a role blocks: its phase cannot complete yet.
  bool blocks(kcc::MBarrierWaitOp w) {
    Barrier *b = pendingBarrier(w);
    return b &&
           (b->cur.arrivals < b->count || b->cur.expected > b->cur.brought);
  }

  /// Blocks the running role at `w` until the other role makes it
  /// completable; false on a deadlock (reported) or cancellation.
  bool block(kcc::MBarrierWaitOp w) {
    Roles &r = *roles;
    int me = role, other = otherRole(me);
    kcc::MBarrierWaitOp theirs = r.blockedAt[other];
    if (r.finished[other] || (theirs && blocks(theirs))) {
      deadlock(me, w);
      return false;
    }
    r.blockedAt[me] = w;
    bool ok = handTo(other);
    r.blockedAt[me] = nullptr;
    return ok;
  }

  /// "barrier #i phase P (what it still lacks)" for a blocked wait.
  std::string pendingText(kcc::MBarrierWaitOp w) {
    Barrier *b = pendingBarrier(w);
    std::string s = "barrier #" + std::to_string(indexOf(w.getBars(), b)) +
                    " phase " + std::to_string(b->phase) + " (";
    if (b->cur.arrivals < b->count)
      s += std::to_string(b->cur.arrivals) + " of " + std::to_string(b->count) +
           " arrivals";
    if (b->cur.expected > b->cur.brought)
      s += std::string(b->cur.arrivals < b->count ? "; " : "") + "expect_tx " +
           std::to_string(b->cur.expected) + " bytes, the copies bring " +
           std::to_string(b->cur.brought);
    return s + ")";
  }

  /// Reports that role `r`, blocked at `w`, never resumes: the other role
  /// has finished or is blocked too (then reported at the producer's wait).
  void deadlock(int r, kcc::MBarrierWaitOp w) {
    int other = otherRole(r);
    kcc::MBarrierWaitOp theirs =
        roles->finished[other] ? nullptr : roles->blockedAt[other];
    if (theirs && r == Consumer) {
      std::swap(r, other);
      std::swap(w, theirs);
    }
    std::string problem =
        std::string("deadlock between the warp-specialized roles: the ") +
        roleName(r) + " waits here for " + pendingText(w) + " and the " +
        roleName(other) +
        (theirs ? " waits for " + pendingText(theirs) : " has finished") +
        context(r);
    std::string advice;
    Barrier *b = pendingBarrier(w);
    if (b->cur.arrivals < b->count)
      advice = "arrive on the barrier as many times per phase as its "
               "kcc.mbarrier_init count, from the role that does not wait on "
               "it (a per_warpgroup arrival counts consumer_warpgroups = " +
               std::to_string(roles->warpgroups) + "), or change the count";
    else
      advice = "make the kcc.mbarrier_arrive_expect_tx bytes equal the box "
               "bytes of the kcc.tma_load ops that signal the barrier in this "
               "phase";
    diag = Diag{w.getLoc(), problem, advice, {}};
    if (theirs)
      diag->notes.push_back(
          {theirs.getLoc(), std::string("the ") + roleName(other) +
                                " waits here" + context(other)});
    if (b->cur.arrivals < b->count)
      diag->notes.push_back(
          {b->initOp->getLoc(),
           "count " + std::to_string(b->count) + " set here"});
    else
      addTxNotes(*diag, *b);
  }

  //===--------------------------------------------------------------------===//
  // Integer arithmetic
  //===--------------------------------------------------------------------===//

  void evalScalar(Operation *op) {
    if (op->getNumResults() != 1)
      return; // results stay unevaluated: opaque on use
    Value res = op->getResult(0);
    unsigned w = scalarWidth(res.getType());
    if (!w)
      return;
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
        env[res] = constant(wrap(ia.getValue().getSExtValue(), w));
      return;
    }
    auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
    auto setConst = [&](int64_t v) { env[res] = constant(wrap(v, w)); };
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>(op)) {
      Scalar a = operand(0);
      unsigned wa = scalarWidth(op->getOperand(0).getType());
      if (!a.isConst())
        env[res] = a; // linear forms ignore wrap-around
      else if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
        setConst(static_cast<int64_t>(asUnsigned(a.c, wa)));
      else if (wa == 1)
        setConst(a.c ? -1 : 0);
      else
        setConst(a.c);
      return;
    }
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      Scalar c = get(sel.getCondition());
      if (c.isConst()) {
        env[res] = c.c ? get(sel.getTrueValue()) : get(sel.getFalseValue());
        return;
      }
      Scalar t = get(sel.getTrueValue()), f = get(sel.getFalseValue());
      Scalar d = linear(t, f, -1);
      env[res] = d.isConst() && d.c == 0 ? t : fresh();
      return;
    }
    if (op->getNumOperands() != 2) {
      env[res] = fresh();
      return;
    }
    Scalar a = operand(0), b = operand(1);
    unsigned wa = scalarWidth(op->getOperand(0).getType());
    // Linear forms: add, sub, mul by a constant.
    if (isa<arith::AddIOp>(op)) {
      Scalar r = linear(a, b, 1);
      r.c = r.isConst() ? wrap(r.c, w) : r.c;
      env[res] = r;
      return;
    }
    if (isa<arith::SubIOp>(op)) {
      Scalar r = linear(a, b, -1);
      r.c = r.isConst() ? wrap(r.c, w) : r.c;
      env[res] = r;
      return;
    }
    if (isa<arith::MulIOp>(op)) {
      if (a.isConst() || b.isConst()) {
        Scalar r = a.isConst() ? scaled(b, a.c) : scaled(a, b.c);
        r.c = r.isConst() ? wrap(r.c, w) : r.c;
        env[res] = r;
      } else {
        env[res] = fresh();
      }
      return;
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      Scalar d = linear(a, b, -1);
      bool both = a.isConst() && b.isConst();
      if (!both && !d.isConst()) {
        env[res] = fresh();
        return;
      }
      // Symbolic operands with a constant difference compare by it (signed).
      int64_t x = both ? a.c : d.c, y = both ? b.c : 0;
      uint64_t ux = asUnsigned(x, wa), uy = asUnsigned(y, wa);
      bool v = false;
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq:
        v = x == y;
        break;
      case arith::CmpIPredicate::ne:
        v = x != y;
        break;
      case arith::CmpIPredicate::slt:
        v = x < y;
        break;
      case arith::CmpIPredicate::sle:
        v = x <= y;
        break;
      case arith::CmpIPredicate::sgt:
        v = x > y;
        break;
      case arith::CmpIPredicate::sge:
        v = x >= y;
        break;
      case arith::CmpIPredicate::ult:
        v = ux < uy;
        break;
      case arith::CmpIPredicate::ule:
        v = ux <= uy;
        break;
      case arith::CmpIPredicate::ugt:
        v = ux > uy;
        break;
      case arith::CmpIPredicate::uge:
        v = ux >= uy;
        break;
      }
      if (!both && (cmp.getPredicate() != arith::CmpIPredicate::eq &&
                    cmp.getPredicate() != arith::CmpIPredicate::ne &&
                    cmp.getPredicate() != arith::CmpIPredicate::slt &&
                    cmp.getPredicate() != arith::CmpIPredicate::sle &&
                    cmp.getPredicate() != arith::CmpIPredicate::sgt &&
                    cmp.getPredicate() != arith::CmpIPredicate::sge)) {
        env[res] = fresh(); // unsigned order of symbolic values is unknown
        return;
      }
      setConst(v);
      return;
    }
    if (!a.isConst() || !b.isConst()) {
      env[res] = fresh();
      return;
    }
    int64_t x = a.c, y = b.c;
    uint64_t ux = asUnsigned(x, wa), uy = asUnsigned(y, wa);
    bool divLike =
        isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op);
    if (divLike && y == 0) {
      env[res] = fresh(); // undefined: any later use cannot be proven
      return;
    }
    if (divLike && y == -1 && x == INT64_MIN) {
      env[res] = fresh();
      return;
    }
    if (isa<arith::DivSIOp>(op))
      return setConst(x / y);
    if (isa<arith::DivUIOp>(op))
      return setConst(static_cast<int64_t>(ux / uy));
    if (isa<arith::RemSIOp>(op))
      return setConst(x % y);
    if (isa<arith::RemUIOp>(op))
      return setConst(static_cast<int64_t>(ux % uy));
    if (isa<arith::CeilDivSIOp>(op))
      return setConst(x / y + ((x % y != 0) && ((x < 0) == (y < 0))));
    if (isa<arith::CeilDivUIOp>(op))
      return setConst(static_cast<int64_t>(ux / uy + (ux % uy != 0)));
    if (isa<arith::FloorDivSIOp>(op))
      return setConst(x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
    if (isa<arith::AndIOp>(op))
      return setConst(x & y);
    if (isa<arith::OrIOp>(op))
      return setConst(x | y);
    if (isa<arith::XOrIOp>(op))
      return setConst(x ^ y);
    if (isa<arith::MaxSIOp>(op))
      return setConst(std::max(x, y));
    if (isa<arith::MinSIOp>(op))
      return setConst(std::min(x, y));
    if (isa<arith::MaxUIOp>(op))
      return setConst(static_cast<int64_t>(std::max(ux, uy)));
    if (isa<arith::MinUIOp>(op))
      return setConst(static_cast<int64_t>(std::min(ux, uy)));
    if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
      if (uy >= wa) {
        env[res] = fresh(); // poison
        return;
      }
      if (isa<arith::ShLIOp>(op))
        return setConst(static_cast<int64_t>(ux << uy));
      if (isa<arith::ShRSIOp>(op))
        return setConst(x >> uy);
      return setConst(static_cast<int64_t>(ux >> uy));
    }
    env[res] = fresh();
  }

  //===--------------------------------------------------------------------===//
  // Barriers
  //===--------------------------------------------------------------------===//

  /// The barrier `bars[index]` of `op`, or null after reporting an error.
  Barrier *barrierAt(Operation *op, Value bars, Value index) {
    auto it = barriers.find(bars);
    if (it == barriers.end()) {
      fail(op->getLoc(),
           "cannot prove the async protocol: this mbarrier array does not "
           "come from a kcc.mbarrier_alloc executed before",
           "use the result of kcc.mbarrier_alloc directly");
      return nullptr;
    }
    std::optional<int64_t> i = known(op, index, "the barrier index");
    if (!i)
      return nullptr;
    if (*i < 0 || *i >= static_cast<int64_t>(it->second.size())) {
      fail(op->getLoc(),
           "barrier index " + llvm::Twine(*i) + " is out of range for " +
               llvm::Twine(it->second.size()) + " barriers",
           "use an index in [0, " + llvm::Twine(it->second.size()) + ")");
      return nullptr;
    }
    return &it->second[*i];
  }

  int64_t indexOf(Value bars, const Barrier *b) {
    return b - barriers.find(bars)->second.data();
  }

  /// Checks that `b` is initialized, alive and (if `needFence`) fenced.
  bool usable(Operation *op, Value bars, Barrier *b, bool needFence) {
    std::string name = "barrier #" + std::to_string(indexOf(bars, b));
    if (b->life == Barrier::Uninit) {
      fail(op->getLoc(), "uses " + name + " before kcc.mbarrier_init",
           "initialize it with kcc.mbarrier_init followed by "
           "kcc.fence_mbarrier_init before any other use")
          .notes.push_back({b->allocOp->getLoc(),
                            "the barriers are allocated here, uninitialized"});
      return false;
    }
    if (b->life == Barrier::Dead) {
      fail(op->getLoc(),
           "uses " + name + " after kcc.mbarrier_inval ended its life",
           "move the kcc.mbarrier_inval after the last use, or initialize "
           "the barrier again")
          .notes.push_back({b->invalOp->getLoc(), "invalidated here"});
      return false;
    }
    if (needFence && !b->fenced) {
      fail(op->getLoc(),
           "uses " + name +
               " before kcc.fence_mbarrier_init made its initialization "
               "visible",
           "add kcc.fence_mbarrier_init after the last kcc.mbarrier_init")
          .notes.push_back({b->initOp->getLoc(), "initialized here"});
      return false;
    }
    return true;
  }

  /// The phase of `b` completes: every copy signaling it has landed.
  void completePhase(Barrier &b) {
    b.phase++;
    b.lastReleased = b.cur.released;
    b.lastTcCovered = b.cur.tcCovered;
    b.cur = Phase();
  }

  /// The running role's wait saw `phase` of `b` complete: it learns what
  /// the arrivals of that phase released.
  void observe(Barrier &b, int64_t phase, const Release &released) {
    b.observed[role] = std::max(b.observed[role], phase);
    learned[role].join(released);
  }

  bool arrive(Operation *op, Value bars, Value index, int64_t bytes,
              bool perWarpgroup = false) {
    Barrier *b = barrierAt(op, bars, index);
    if (!b || !usable(op, bars, b, /*needFence=*/true))
      return false;
    if (b->cur.arrivals >= b->count) {
      if (b->cur.expected != b->cur.brought) {
        fail(op->getLoc(),
             "arrives on barrier #" + llvm::Twine(indexOf(bars, b)) +
                 " whose phase " + llvm::Twine(b->phase) + " already has all " +
                 llvm::Twine(b->count) +
                 " arrivals and still waits for transaction bytes (expect_tx " +
                 llvm::Twine(b->cur.expected) + " bytes, the copies bring " +
                 llvm::Twine(b->cur.brought) + ")",
             "wait for the phase before arriving again, or raise the "
             "kcc.mbarrier_init count")
            .notes.push_back(
                {b->initOp->getLoc(),
                 "count " + std::to_string(b->count) + " set here"});
        return false;
      }
      // The hardware completes the phase by itself; this arrival opens the
      // next one.
      completePhase(*b);
    }
    b->cur.arrivals++;
    b->cur.expected = addWrap(b->cur.expected, bytes);
    b->cur.arms.push_back(op);
    // What the arrival releases: the producer is one thread; a consumer
    // arrival is made by thread 0 (plain: the leader of warpgroup 0) or by
    // each warpgroup's leader, without a barrier among the others.
    if (role != Cta) {
      bool one = role == Producer;
      Release r;
      r.arrived[role] = steps;
      r.complete[role] = one ? steps : synced[role];
      r.leaderComplete[role] = one || perWarpgroup || roles->warpgroups == 1
                                   ? steps
                                   : wgSynced[role];
      b->cur.released.join(r);
    }
    return true;
  }

  void addTxNotes(Diag &d, const Barrier &b) {
    for (Operation *arm : b.cur.arms)
      if (auto e = dyn_cast<kcc::MBarrierArriveExpectTxOp>(arm))
        d.notes.push_back(
            {arm->getLoc(),
             "expects " + std::to_string(e.getBytes()) + " bytes here"});
    for (Operation *l : b.cur.loads)
      d.notes.push_back(
          {l->getLoc(),
           "this copy brings " +
               std::to_string(cast<kcc::TmaLoadOp>(l).getBytes()) +
               " bytes"});
  }

  bool wait(kcc::MBarrierWaitOp op) {
    // A role blocks while its phase cannot complete yet; then the normal
    // rules apply.
    while (role != Cta && blocks(op))
      if (!block(op))
        return false;
    Value bars = op.getBars();
    Barrier *b = barrierAt(op, bars, op.getIndex());
    if (!b || !usable(op, bars, b, /*needFence=*/true))
      return false;
    std::optional<int64_t> parity = known(op, op.getParity(), "the parity");
    if (!parity)
      return false;
    std::string name = "barrier #" + std::to_string(indexOf(bars, b));
    if (*parity != 0 && *parity != 1) {
      fail(op.getLoc(),
           "waits for parity " + llvm::Twine(*parity) + " of " + name,
           "a parity is 0 or 1: the phase number modulo 2");
      return false;
    }
    int64_t curParity = b->phase & 1;
    if (*parity != curParity) {
      // try_wait.parity on the other parity names the previous phase, which
      // is complete (or, in phase 0, counts as complete): it returns at once.
      // In a role, the other one may have completed the phase and armed the
      // next: this role waits for the completed phase if it has not seen it.
      bool behind =
          role != Cta && b->phase >= 1 &&
          std::max(b->observed[role], b->observed[Cta]) < b->phase - 1;
      if (b->cur.touched() && !behind) {
        Diag &d = fail(
            op.getLoc(),
            "wrong phase parity: waits for parity " + llvm::Twine(*parity) +
                " but the pending phase " + llvm::Twine(b->phase) + " of " +
                name + " has parity " + llvm::Twine(curParity) + "; parity " +
                llvm::Twine(*parity) +
                " names the previous phase, so the wait returns immediately "
                "without waiting for this phase's arrivals and copies",
            "wait with parity " + llvm::Twine(curParity) +
                " (the phase number modulo 2; in a pipeline, (k / stages) "
                "& 1)");
        Operation *armedAt =
            !b->cur.arms.empty() ? b->cur.arms.front() : b->cur.loads.front();
        d.notes.push_back(
            {armedAt->getLoc(), "the pending phase is armed here"});
        return false;
      }
      if (b->phase == 0) {
        fail(op.getLoc(),
             "wrong phase parity: waits for parity 1 of " + name +
                 ", which has not completed any phase: the wait returns "
                 "immediately without waiting for anything",
             "the first phase of a barrier has parity 0");
        return false;
      }
      // Waiting again for the phase that just completed: returns at once.
      observe(*b, b->phase - 1, b->lastReleased);
      retireTcgen05(b->lastTcCovered);
      return true;
    }
    if (!b->cur.armed()) {
      Diag &d =
          fail(op.getLoc(),
               "wait on a barrier with no pending arrival or expect: " + name +
                   " is in phase " + llvm::Twine(b->phase) +
                   " and nothing has arrived on it, so the wait never "
                   "returns (a hang)",
               "issue kcc.mbarrier_arrive_expect_tx (and the copies) "
               "for this phase before waiting, or remove the wait");
      for (Operation *l : b->cur.loads)
        d.notes.push_back({l->getLoc(), "this copy signals " + name +
                                            " but nothing expects its bytes"});
      return false;
    }
    if (b->cur.expected != b->cur.brought) {
      bool hang = b->cur.expected > b->cur.brought;
      Diag &d = fail(
          op.getLoc(),
          "expect_tx " + llvm::Twine(b->cur.expected) +
              " bytes but the copies signaling this barrier bring " +
              llvm::Twine(b->cur.brought) + " (" + name + ", phase " +
              llvm::Twine(b->phase) + "): " +
              (hang ? "the phase never completes (a hang)"
                    : "the phase may complete before every copy has landed "
                      "(reads of data not yet written)"),
          "make the kcc.mbarrier_arrive_expect_tx bytes equal the sum of the "
          "box bytes of the kcc.tma_load ops that signal " +
              name + " in this phase");
      addTxNotes(d, *b);
      return false;
    }
    if (b->cur.arrivals < b->count) {
      fail(op.getLoc(),
           "the phase this wait waits for never completes (a hang): " + name +
               " has " + llvm::Twine(b->cur.arrivals) + " of " +
               llvm::Twine(b->count) + " arrivals in phase " +
               llvm::Twine(b->phase),
           "arrive as many times per phase as the kcc.mbarrier_init count, or "
           "lower the count")
          .notes.push_back({b->initOp->getLoc(),
                            "count " + std::to_string(b->count) + " set here"});
      return false;
    }
    observe(*b, b->phase, b->cur.released);
    retireTcgen05(b->cur.tcCovered);
    completePhase(*b);
    return true;
  }

  /// A wait saw a tcgen05_commit's phase complete: the tcgen05_mma ops up to
  /// issue number `covered` have finished reading their stages and writing
  /// TMEM.
  void retireTcgen05(int64_t covered) {
    if (covered <= tcRetired)
      return;
    tcRetired = covered;
    for (auto &entry : stages)
      for (Stage &st : entry.second)
        if (st.mmaReader && isa<kcc::Tcgen05MmaOp>(st.mmaReader) &&
            st.tcSeq <= tcRetired) {
          st.mmaReader = nullptr;
          st.readEnd = std::max(st.readEnd, steps);
        }
  }

  /// `tm` is a live TMEM allocation.
  bool tmemLive(Operation *op, Value tm) {
    if (!tmemIds.count(tm)) {
      fail(op->getLoc(),
           "uses TMEM that no kcc.tmem_alloc executed before allocated",
           "allocate it with kcc.tmem_alloc at the start of the kernel");
      return false;
    }
    if (Operation *freed = tmemFreed.lookup(tm)) {
      fail(op->getLoc(), "uses TMEM after kcc.tmem_dealloc freed it",
           "free the allocation after its last use")
          .notes.push_back({freed->getLoc(), "freed here"});
      return false;
    }
    return true;
  }

  /// No tcgen05_mma may still be running when `op` needs TMEM settled.
  bool tcgen05Retired(Operation *op, const llvm::Twine &what) {
    if (tcRetired >= tcIssued)
      return true;
    fail(op->getLoc(),
         what + " while a kcc.tcgen05_mma may still be writing TMEM (no wait "
                "has observed a kcc.tcgen05_commit issued after it)",
         "commit the tcgen05_mma ops to an mbarrier (kcc.tcgen05_commit) and "
         "wait on that phase first")
        .notes.push_back({lastTcMma->getLoc(), "the tcgen05_mma in flight"});
    return false;
  }

  //===--------------------------------------------------------------------===//
  // Stages
  //===--------------------------------------------------------------------===//

  Stage *stageAt(Operation *op, Value buf, Value index) {
    auto it = stages.find(buf);
    if (it == stages.end()) {
      fail(op->getLoc(),
           "cannot prove the async protocol: this shared-memory buffer does "
           "not come from a kcc.smem_alloc executed before",
           "use the result of kcc.smem_alloc directly");
      return nullptr;
    }
    std::optional<int64_t> i = known(op, index, "the stage index");
    if (!i)
      return nullptr;
    if (*i < 0 || *i >= static_cast<int64_t>(it->second.size())) {
      fail(op->getLoc(),
           "stage index " + llvm::Twine(*i) + " is out of range for " +
               llvm::Twine(it->second.size()) + " stages",
           "use an index in [0, " + llvm::Twine(it->second.size()) + ")");
      return nullptr;
    }
    return &it->second[*i];
  }

  int64_t stageIndex(Value buf, const Stage *s) {
    return s - stages.find(buf)->second.data();
  }

  /// A copy into `s` has landed for role `r` once a wait of that role or of
  /// the whole CTA observed its phase (or a later one: phases complete in
  /// order); for r = -1, once any wait did.
  bool landed(Stage &s, int r = -1) {
    if (s.data != Stage::Async)
      return true;
    unsigned mask = r < 0 ? ~0u : (1u << r) | (1u << Cta);
    auto it = barriers.find(s.bars);
    if (!(s.landedIn & mask) && it != barriers.end() &&
        s.barIndex < (int64_t)it->second.size())
      for (int q = 0; q < kRoles; ++q)
        if ((mask >> q & 1) && it->second[s.barIndex].observed[q] >= s.phase)
          s.landedIn |= 1u << q;
    return s.landedIn & mask;
  }

  /// Records a read of `s` by `op` in the running role.
  void noteRead(Stage &s, Operation *op) {
    s.lastReaderRole = role;
    if (isa<kcc::SmemLoadOp, kcc::WarpMmaOp>(op)) {
      s.lastThreadReader = op;
      s.threadReadEnd = std::max(s.threadReadEnd, steps);
    } else {
      s.lastReader = op;
      s.readEnd = std::max(s.readEnd, steps);
    }
  }

  /// Checks that stage `s` may be overwritten by `op` (a tma_load or
  /// smem_store).
  bool writable(Operation *op, Value buf, Stage &s) {
    std::string name = "stage " + std::to_string(stageIndex(buf, &s));
    if (s.mmaReader && isa<kcc::Tcgen05MmaOp>(s.mmaReader)) {
      fail(op->getLoc(),
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
      fail(op->getLoc(),
           "writing " + name +
               " while a kcc.warpgroup_mma group still reads it (its wgmma "
               "group has not been retired)",
           role != Cta
               ? "release the stage to the " + llvm::Twine(roleName(role)) +
                     " only after the group reading it has retired "
                     "(kcc.warpgroup_mma_wait, or a later warpgroup_mma with "
                     "a smaller `pending`)"
               : "retire the group first (kcc.warpgroup_mma_wait, or a "
                 "later warpgroup_mma with a smaller `pending`) and release "
                 "the stage with kcc.cta_barrier")
          .notes.push_back({s.mmaReader->getLoc(), "the warpgroup_mma "
                                                   "reading the stage"});
      return false;
    }
    if (s.tmaReader) {
      bool inOpen = llvm::any_of(
          openGroup, [&](const BulkCopy &c) { return c.op == s.tmaReader; });
      fail(op->getLoc(),
           "writing " + name +
               " while a kcc.tma_store is still reading it (its bulk "
               "async-group has not been waited)",
           inOpen ? "add kcc.bulk_commit_group and kcc.bulk_wait_group 0 read "
                    "between the tma_store and this write"
                  : "add kcc.bulk_wait_group N read (N = the groups allowed "
                    "to stay in flight) before this write")
          .notes.push_back({s.tmaReader->getLoc(), "the tma_store reading the "
                                                   "stage"});
      return false;
    }
    // In a role, the other role's readers release a stage through an
    // mbarrier this role waits on (e.g. the producer's empty barrier).
    auto roleAdvice = [&] {
      return std::string("in the ") + roleName(otherRole(role)) +
             ", arrive on a barrier once its reads of the stage have "
             "completed (per_warpgroup, after the kcc.warpgroup_mma reading "
             "it has retired), and wait on that barrier in the " +
             roleName(role) + " before writing the stage";
    };
    if (s.data == Stage::CpAsync && !s.cpWaited) {
      fail(op->getLoc(),
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
    if (s.data == Stage::Async && !landed(s)) {
      fail(op->getLoc(),
           "overwriting a stage before its consumers released it: " + name +
               " still has a kcc.tma_load in flight (no wait has completed "
               "barrier #" +
               llvm::Twine(s.barIndex) + " phase " + llvm::Twine(s.phase) + ")",
           role != Cta ? llvm::Twine(roleAdvice())
                       : "wait for the earlier copy, read the stage and "
                         "release it with kcc.cta_barrier before writing it "
                         "again")
          .notes.push_back(
              {s.writer->getLoc(), "the earlier copy into the stage"});
      return false;
    }
    bool otherReader =
        role != Cta && s.readerRole != role && s.readerRole != Cta;
    if (s.reader && !otherReader) {
      fail(op->getLoc(),
           "overwriting a stage before its consumers released it: no "
           "kcc.cta_barrier after the last " +
               s.reader->getName().getStringRef() + " of " + name,
           "add kcc.cta_barrier after the last read of the stage")
          .notes.push_back({s.reader->getLoc(), "the last read of the stage"});
      return false;
    }
    if ((s.data == Stage::Async || s.data == Stage::CpAsync) && !s.consumed) {
      fail(op->getLoc(),
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
    const Release &seen = learned[role];
    bool thread = s.threadReadEnd > seen.complete[q];
    bool leader = !thread && s.readEnd > seen.leaderComplete[q];
    if (!thread && !leader)
      return true;
    Operation *read = thread ? s.lastThreadReader : s.lastReader;
    const char *reader = roleName(q);
    // An observed arrival after the read that does not cover every thread.
    if ((thread ? s.threadReadEnd : s.readEnd) <= seen.arrived[q]) {
      if (thread)
        fail(op->getLoc(),
             llvm::Twine("overwriting a stage before its consumers released "
                         "it: the ") +
                 reader + " arrived on a barrier the " + roleName(role) +
                 " waited for after its last kcc.smem_load of " + name +
                 ", but only one thread (per warpgroup) arrives, while the "
                 "others may still be reading the stage",
             "add kcc.cta_barrier before the arrival");
      else
        fail(op->getLoc(),
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
      fail(op->getLoc(),
           "overwriting a stage before its consumers released it: no "
           "kcc.mbarrier_wait of the " +
               llvm::Twine(roleName(role)) + " has observed an arrival the " +
               reader + " made after its last read of " + name + " completed" +
               (isa<kcc::WarpgroupMmaOp>(read)
                    ? " (a kcc.warpgroup_mma reads until its group retires)"
                    : ""),
           roleAdvice());
    }
    diag->notes.push_back({read->getLoc(), "the last read of the stage"});
    return false;
  }

  /// Checks that `op` may read stage `s` (smem_load or tma_store).
  bool readable(Operation *op, Value buf, Stage &s) {
    std::string name = "stage " + std::to_string(stageIndex(buf, &s));
    if (s.data == Stage::None && role != Cta) {
      fail(op->getLoc(),
           "reading a stage before its barrier phase completed: " + name +
               " holds no data yet and no kcc.mbarrier_wait of the " +
               roleName(role) + " waits for the copy that fills it",
           "wait on the barrier that the copy into the stage signals before "
           "the read");
      return false;
    }
    if (s.data == Stage::None) {
      fail(op->getLoc(),
           "reads " + name +
               ", which holds no data (nothing was loaded or "
               "stored into it)",
           "load or store the stage first, or check the stage index");
      return false;
    }
    if (s.data == Stage::CpAsync && !s.cpWaited) {
      fail(op->getLoc(),
           "reading " + name +
               " before its cp.async copy landed: no kcc.cp_async_wait_group "
               "has retired the group of the copy that fills it",
           "add kcc.cp_async_wait_group N (N = the groups committed after "
           "that copy's) and kcc.cta_barrier before the read")
          .notes.push_back({s.writer->getLoc(), "the copy into the stage"});
      return false;
    }
    if (s.data == Stage::CpAsync && !s.cpSynced) {
      fail(op->getLoc(),
           "reading " + name +
               " after this thread's cp.async copies landed but before the "
               "other threads' did: no kcc.cta_barrier follows the "
               "kcc.cp_async_wait_group",
           "add kcc.cta_barrier between the wait and the read")
          .notes.push_back({s.writer->getLoc(), "the copy into the stage"});
      return false;
    }
    if (s.data == Stage::Async && !landed(s, role)) {
      fail(op->getLoc(),
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

  //===--------------------------------------------------------------------===//
  // Bulk copies
  //===--------------------------------------------------------------------===//

  /// Whether the boxes of `a` and `b` (same map) overlap; nullopt if unknown.
  std::optional<bool> overlap(const BulkCopy &a, const BulkCopy &b) {
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

  bool checkOverlap(const BulkCopy &copy, const BulkCopy &other,
                    const llvm::Twine &problem, const llvm::Twine &advice,
                    const char *noteText) {
    if (copy.map != other.map)
      return true;
    std::optional<bool> o = overlap(copy, other);
    if (o && !*o)
      return true;
    if (!o)
      fail(copy.op->getLoc(),
           "cannot prove the async protocol: the boxes of this copy and an "
           "un-completed kcc.tma_store to the same tensor map may overlap "
           "(their coordinates do not differ by a constant)",
           advice)
          .notes.push_back({other.op->getLoc(), noteText});
    else
      fail(copy.op->getLoc(), problem, advice)
          .notes.push_back({other.op->getLoc(), noteText});
    return false;
  }

  BulkCopy bulkCopy(Operation *op, Value map, ValueRange coords) {
    BulkCopy c{op, map, {}, Value(), 0};
    for (Value v : coords)
      c.coords.push_back(get(v));
    if (auto load = dyn_cast<kcc::TmaLoadOp>(op))
      c.parts = load.getParts();
    else if (auto store = dyn_cast<kcc::TmaStoreOp>(op))
      c.parts = store.getParts();
    return c;
  }

  /// Retires wgmma groups until at most `pending` are in flight.
  void retireMma(int64_t pending) {
    while (int64_t(mmaGroups.size()) > pending) {
      for (Stage *st : mmaGroups.front().stages) {
        if (st->mmaReader == mmaGroups.front().op)
          st->mmaReader = nullptr;
        st->readEnd = std::max(st->readEnd, steps);
      }
      mmaGroups.pop_front();
    }
  }

  /// A generic- or async-proxy read of stage `stageV` of `buf` by the whole
  /// CTA (smem_load, warpgroup_mma).
  bool readStage(Operation *op, Value buf, Value stageV) {
    Stage *s = stageAt(op, buf, stageV);
    if (!s || !readable(op, buf, *s))
      return false;
    if (s->data == Stage::Generic && !s->synced) {
      fail(op->getLoc(),
           "reads stage " + llvm::Twine(stageIndex(buf, s)) +
               " written by other threads' kcc.smem_store without a "
               "kcc.cta_barrier in between",
           "add kcc.cta_barrier between the store and the load")
          .notes.push_back({s->writer->getLoc(), "the write"});
      return false;
    }
    s->consumed = true;
    s->reader = op;
    s->readerRole = role;
    noteRead(*s, op);
    return true;
  }

  bool tmaLoad(kcc::TmaLoadOp op) {
    Stage *s = stageAt(op, op.getDst(), op.getStage());
    if (!s)
      return false;
    Barrier *b = barrierAt(op, op.getBars(), op.getIndex());
    if (!b || !usable(op, op.getBars(), b, /*needFence=*/true))
      return false;
    if (!writable(op, op.getDst(), *s))
      return false;
    BulkCopy copy = bulkCopy(op, op.getMap(), op.getCoords());
    for (const BulkCopy &st : openGroup)
      if (!checkOverlap(copy, st,
                        "relying on order inside one bulk async-group: this "
                        "kcc.tma_load reads a box that a kcc.tma_store of the "
                        "current, uncommitted group writes",
                        "commit the group and wait for it with "
                        "kcc.bulk_wait_group 0 (without read) before the load",
                        "the tma_store writing the box"))
        return false;
    for (const auto &group : committed)
      for (const BulkCopy &st : group)
        if (!checkOverlap(copy, st,
                          "this kcc.tma_load reads a box that a kcc.tma_store "
                          "writes whose bulk async-group has not completed",
                          "add kcc.bulk_wait_group 0 (without read) before "
                          "the load",
                          "the tma_store writing the box"))
          return false;
    for (const BulkCopy &st : unfinished)
      if (!checkOverlap(copy, st,
                        "this kcc.tma_load reads a box that a kcc.tma_store "
                        "writes, and `bulk_wait_group ... read` only waited "
                        "for the store's source reads, not its writes",
                        "wait with kcc.bulk_wait_group 0 without read before "
                        "the load",
                        "the tma_store writing the box"))
        return false;
    *s = Stage();
    s->data = Stage::Async;
    s->writer = op;
    s->bars = op.getBars();
    s->barIndex = indexOf(op.getBars(), b);
    s->phase = b->phase;
    s->issuedAt = steps;
    b->cur.brought = addWrap(b->cur.brought, op.getBytes());
    b->cur.loads.push_back(op);
    return true;
  }

  bool tmaStore(kcc::TmaStoreOp op) {
    Stage *s = stageAt(op, op.getSrc(), op.getStage());
    if (!s || !readable(op, op.getSrc(), *s))
      return false;
    std::string name = "stage " + std::to_string(stageIndex(op.getSrc(), s));
    if (s->data == Stage::Generic && !s->fenced) {
      fail(op.getLoc(),
           "kcc.tma_store reads " + name +
               " through the async proxy, but the kcc.smem_store that wrote "
               "it (generic proxy) is not followed by kcc.fence_proxy_async",
           "add kcc.fence_proxy_async and then kcc.cta_barrier between the "
           "kcc.smem_store and the kcc.tma_store")
          .notes.push_back({s->writer->getLoc(), "the generic-proxy write"});
      return false;
    }
    if (s->data == Stage::Generic && !s->fencedSynced) {
      fail(op.getLoc(),
           "kcc.tma_store reads " + name +
               " but no kcc.cta_barrier follows the kcc.fence_proxy_async "
               "after its kcc.smem_store: other threads' writes may not be "
               "fenced yet",
           "add kcc.cta_barrier after kcc.fence_proxy_async")
          .notes.push_back({s->writer->getLoc(), "the generic-proxy write"});
      return false;
    }
    BulkCopy copy = bulkCopy(op, op.getMap(), op.getCoords());
    copy.src = op.getSrc();
    copy.stage = stageIndex(op.getSrc(), s);
    for (const BulkCopy &st : openGroup)
      if (!checkOverlap(copy, st,
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
    noteRead(*s, op);
    openGroup.push_back(std::move(copy));
    return true;
  }

  void releaseGroup(std::vector<BulkCopy> &group, bool readOnly) {
    for (BulkCopy &c : group) {
      auto it = stages.find(c.src);
      if (it != stages.end() && c.stage < (int64_t)it->second.size() &&
          it->second[c.stage].tmaReader == c.op) {
        it->second[c.stage].tmaReader = nullptr;
        it->second[c.stage].tmaWaitedAlone = c.op;
        it->second[c.stage].readEnd =
            std::max(it->second[c.stage].readEnd, steps);
      }
      if (readOnly)
        unfinished.push_back(c);
    }
  }

  //===--------------------------------------------------------------------===//
  // Dispatch of async ops
  //===--------------------------------------------------------------------===//

  bool execAsync(Operation *op) {
    if (isa<kcc::MBarrierAllocOp, kcc::SmemAllocOp>(op)) {
      unsigned n = 0;
      if (auto a = dyn_cast<kcc::MBarrierAllocOp>(op))
        n = a.getType().getCount();
      else
        n = cast<kcc::SmemAllocOp>(op).getType().getStages();
      if (n > kMaxResources) {
        fail(op->getLoc(),
             "cannot prove the async protocol: the verifier tracks at most " +
                 llvm::Twine(kMaxResources) +
                 " barriers or stages per "
                 "allocation, this one has " +
                 llvm::Twine(n),
             "allocate fewer barriers or stages");
        return false;
      }
    }
    if (auto alloc = dyn_cast<kcc::MBarrierAllocOp>(op)) {
      auto &v = barriers[alloc.getResult()];
      v.assign(alloc.getType().getCount(), Barrier());
      for (Barrier &b : v)
        b.allocOp = op;
      return true;
    }
    if (auto alloc = dyn_cast<kcc::SmemAllocOp>(op)) {
      stages[alloc.getResult()].assign(alloc.getType().getStages(), Stage());
      return true;
    }
    if (auto init = dyn_cast<kcc::MBarrierInitOp>(op)) {
      Barrier *b = barrierAt(op, init.getBars(), init.getIndex());
      if (!b)
        return false;
      if (b->life == Barrier::Live) {
        fail(op->getLoc(),
             "initializes barrier #" + llvm::Twine(indexOf(init.getBars(), b)) +
                 " twice without kcc.mbarrier_inval",
             "re-initializing a live barrier is undefined behavior: drop this "
             "init, or end the barrier's life with kcc.mbarrier_inval first")
            .notes.push_back({b->initOp->getLoc(), "first initialized here"});
        return false;
      }
      Operation *allocOp = b->allocOp;
      *b = Barrier();
      b->allocOp = allocOp;
      b->life = Barrier::Live;
      b->initOp = op;
      b->count = init.getCount();
      return true;
    }
    if (isa<kcc::FenceMBarrierInitOp>(op)) {
      for (auto &entry : barriers)
        for (Barrier &b : entry.second)
          if (b.life == Barrier::Live)
            b.fenced = true;
      return true;
    }
    if (auto e = dyn_cast<kcc::MBarrierArriveExpectTxOp>(op))
      return arrive(op, e.getBars(), e.getIndex(),
                    static_cast<int64_t>(e.getBytes()));
    if (auto a = dyn_cast<kcc::MBarrierArriveOp>(op)) {
      if (!a.getPerWarpgroup() || !roles)
        return arrive(op, a.getBars(), a.getIndex(), 0);
      // Each consumer warpgroup's leader, once it saw its groups retire.
      wgSynced[role] = steps;
      for (int64_t i = 0; i < roles->warpgroups; ++i)
        if (!arrive(op, a.getBars(), a.getIndex(), 0, /*perWarpgroup=*/true))
          return false;
      return true;
    }
    if (auto w = dyn_cast<kcc::MBarrierWaitOp>(op))
      return wait(w);
    if (auto inval = dyn_cast<kcc::MBarrierInvalOp>(op)) {
      Barrier *b = barrierAt(op, inval.getBars(), inval.getIndex());
      if (!b || !usable(op, inval.getBars(), b, /*needFence=*/false))
        return false;
      int64_t idx = indexOf(inval.getBars(), b);
      for (auto &entry : stages)
        for (Stage &s : entry.second)
          if (s.data == Stage::Async && s.bars == inval.getBars() &&
              s.barIndex == idx && !landed(s)) {
            fail(op->getLoc(),
                 "invalidates barrier #" + llvm::Twine(idx) +
                     " while a kcc.tma_load signaling it is still in flight",
                 "wait for the copy before kcc.mbarrier_inval")
                .notes.push_back({s.writer->getLoc(), "the copy in flight"});
            return false;
          }
      b->life = Barrier::Dead;
      b->invalOp = op;
      return true;
    }
    if (auto load = dyn_cast<kcc::TmaLoadOp>(op))
      return tmaLoad(load);
    if (auto store = dyn_cast<kcc::TmaStoreOp>(op))
      return tmaStore(store);
    if (isa<kcc::BulkCommitGroupOp>(op)) {
      committed.push_back(std::move(openGroup));
      openGroup.clear();
      return true;
    }
    if (auto w = dyn_cast<kcc::BulkWaitGroupOp>(op)) {
      while (committed.size() > w.getPending()) {
        releaseGroup(committed.front(), w.getRead());
        committed.pop_front();
      }
      // Groups waited earlier with `read` are older than every group still
      // counted, so a wait without `read` completes their writes too.
      if (!w.getRead())
        unfinished.clear();
      return true;
    }
    if (isa<kcc::FenceProxyAsyncOp>(op)) {
      for (auto &entry : stages)
        for (Stage &s : entry.second)
          if (s.data == Stage::Generic)
            s.fenced = true;
      return true;
    }
    if (auto cp = dyn_cast<kcc::CpAsyncOp>(op)) {
      Stage *s = stageAt(op, cp.getDst(), cp.getStage());
      if (!s || !writable(op, cp.getDst(), *s))
        return false;
      *s = Stage();
      s->data = Stage::CpAsync;
      s->writer = op;
      s->issuedAt = steps;
      cpOpen.push_back({op, s});
      return true;
    }
    if (isa<kcc::CpAsyncCommitGroupOp>(op)) {
      cpCommitted.push_back(std::move(cpOpen));
      cpOpen.clear();
      return true;
    }
    if (auto w = dyn_cast<kcc::CpAsyncWaitGroupOp>(op)) {
      // wait_group retires committed groups only; the open one stays.
      while (int64_t(cpCommitted.size()) > int64_t(w.getPending())) {
        for (const CpCopy &c : cpCommitted.front())
          if (c.stage->writer == c.op)
            c.stage->cpWaited = true;
        cpCommitted.pop_front();
      }
      return true;
    }
    if (auto mma = dyn_cast<kcc::WarpMmaOp>(op))
      return readStage(op, mma.getA(), mma.getAStage()) &&
             readStage(op, mma.getB(), mma.getBStage());
    if (isa<kcc::CtaBarrierOp>(op)) {
      // In the consumer role: a named barrier of the consumer threads.
      if (role != Cta)
        synced[role] = wgSynced[role] = steps;
      tmemReadUnsynced.clear();
      for (auto &entry : stages)
        for (Stage &s : entry.second) {
          s.reader = nullptr;
          s.tmaWaitedAlone = nullptr;
          if (s.data == Stage::CpAsync && s.cpWaited)
            s.cpSynced = true;
          if (s.data == Stage::Generic) {
            s.synced = true;
            s.fencedSynced = s.fencedSynced || s.fenced;
          }
        }
      return true;
    }
    // wgmma reads both operand stages until its group retires: when the op
    // returns if `pending` is 0, else at a later wait.
    if (auto mma = dyn_cast<kcc::WarpgroupMmaOp>(op)) {
      if (!readStage(op, mma.getA(), mma.getAStage()) ||
          !readStage(op, mma.getB(), mma.getBStage()))
        return false;
      MmaGroup g{op, {stageAt(op, mma.getA(), mma.getAStage()),
                      stageAt(op, mma.getB(), mma.getBStage())}};
      for (Stage *st : g.stages)
        st->mmaReader = op;
      mmaGroups.push_back(g);
      retireMma(mma.getPending());
      return true;
    }
    if (auto wait = dyn_cast<kcc::WarpgroupMmaWaitOp>(op)) {
      retireMma(wait.getPending());
      return true;
    }
    if (auto alloc = dyn_cast<kcc::TmemAllocOp>(op)) {
      unsigned id = tmemIds.size();
      tmemIds[alloc.getResult()] = id;
      llvm::Error e = tmem.alloc(id, alloc.getType().getColumns());
      if (!e && alloc.getRelinquish())
        e = tmem.relinquishAllocPermit();
      if (e) {
        fail(op->getLoc(), llvm::toString(std::move(e)),
             "allocate at most 512 TMEM columns per CTA, each allocation "
             "once, before the kernel's first tcgen05 op, and relinquish "
             "the permit only with the last one");
        return false;
      }
      return true;
    }
    if (auto dealloc = dyn_cast<kcc::TmemDeallocOp>(op)) {
      Value tm = dealloc.getTmem();
      if (!tmemLive(op, tm) || !tcgen05Retired(op, "frees TMEM"))
        return false;
      if (llvm::Error e = tmem.dealloc(
              tmemIds[tm], dealloc.getTmem().getType().getColumns())) {
        fail(op->getLoc(), llvm::toString(std::move(e)),
             "free each allocation once");
        return false;
      }
      tmemFreed[tm] = op;
      return true;
    }
    // tcgen05_mma reads both stages (async proxy) until a wait observes a
    // commit issued after it.
    if (auto mma = dyn_cast<kcc::Tcgen05MmaOp>(op)) {
      if (!tmemLive(op, mma.getTmem()) ||
          !readStage(op, mma.getA(), mma.getAStage()) ||
          !readStage(op, mma.getB(), mma.getBStage()))
        return false;
      if (Operation *read = tmemReadUnsynced.lookup(mma.getTmem())) {
        fail(op->getLoc(),
             "this kcc.tcgen05_mma (issued by one thread) writes the TMEM "
             "accumulator while other threads' kcc.tmem_load of it may "
             "still be reading",
             "add kcc.cta_barrier between the tmem_load and the next "
             "tcgen05_mma (the lowering fences tcgen05 around it)")
            .notes.push_back({read->getLoc(), "the tmem_load"});
        return false;
      }
      ++tcIssued;
      lastTcMma = op;
      for (Stage *st : {stageAt(op, mma.getA(), mma.getAStage()),
                        stageAt(op, mma.getB(), mma.getBStage())}) {
        st->mmaReader = op;
        st->tcSeq = tcIssued;
      }
      return true;
    }
    if (auto commit = dyn_cast<kcc::Tcgen05CommitOp>(op)) {
      if (!arrive(op, commit.getBars(), commit.getIndex(), 0))
        return false;
      Barrier *b = barrierAt(op, commit.getBars(), commit.getIndex());
      b->cur.tcCovered = std::max(b->cur.tcCovered, tcIssued);
      return true;
    }
    if (auto load = dyn_cast<kcc::TmemLoadOp>(op)) {
      if (!tmemLive(op, load.getTmem()) ||
          !tcgen05Retired(op, "reads the TMEM accumulator"))
        return false;
      tmemReadUnsynced[load.getTmem()] = op;
      return true;
    }
    // The accumulator is only complete once every group has retired (it
    // leaves its layout through convert_layout or an epilogue smem_store).
    auto accRead = [](Operation *o) -> Value {
      if (auto cvt = dyn_cast<kcc::ConvertLayoutOp>(o))
        return cvt.getSrc();
      if (auto store = dyn_cast<kcc::SmemStoreOp>(o))
        return store.getValue();
      return Value();
    };
    if (Value read = accRead(op);
        read && isa_and_nonnull<kcc::WgmmaAccLayoutAttr>(
                    cast<RankedTensorType>(read.getType()).getEncoding())) {
      if (!mmaGroups.empty()) {
        fail(op->getLoc(),
             "reads a wgmma accumulator while a kcc.warpgroup_mma group is "
             "still writing it",
             "add kcc.warpgroup_mma_wait 0 before using the accumulator")
            .notes.push_back({mmaGroups.back().op->getLoc(),
                              "the group in flight"});
        return false;
      }
      if (isa<kcc::ConvertLayoutOp>(op))
        return true;
    }
    if (auto load = dyn_cast<kcc::SmemLoadOp>(op))
      return readStage(op, load.getSrc(), load.getStage());
    if (auto store = dyn_cast<kcc::SmemStoreOp>(op)) {
      Stage *s = stageAt(op, store.getDst(), store.getStage());
      if (!s || !writable(op, store.getDst(), *s))
        return false;
      if (s->tmaWaitedAlone) {
        fail(op->getLoc(),
             "writing stage " + llvm::Twine(stageIndex(store.getDst(), s)) +
                 " from every thread when only the thread that issued the "
                 "kcc.tma_store reading it has waited for that read "
                 "(kcc.bulk_wait_group runs in that thread)",
             "add kcc.cta_barrier between the kcc.bulk_wait_group and this "
             "write")
            .notes.push_back({s->tmaWaitedAlone->getLoc(),
                              "the tma_store reading the stage"});
        return false;
      }
      *s = Stage();
      s->data = Stage::Generic;
      s->writer = op;
      return true;
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Kernel exit
  //===--------------------------------------------------------------------===//

  bool checkExit() {
    Location end = returnOp ? returnOp->getLoc() : func.getLoc();
    if (lastTcMma && !tcgen05Retired(lastTcMma, "the kernel ends"))
      return false;
    if (llvm::Error e = tmem.exit()) {
      fail(end, llvm::toString(std::move(e)),
           "free every TMEM allocation with kcc.tmem_dealloc on every path "
           "to the kernel's end");
      return false;
    }
    if (!mmaGroups.empty()) {
      fail(mmaGroups.front().op->getLoc(),
           "the kernel ends while this kcc.warpgroup_mma group is still in "
           "flight (reading shared memory, writing its accumulator)",
           "add kcc.warpgroup_mma_wait 0 after the last warpgroup_mma")
          .notes.push_back({end, "the kernel ends here"});
      return false;
    }
    if (!openGroup.empty()) {
      fail(openGroup.front().op->getLoc(),
           "the kernel ends with this kcc.tma_store in an uncommitted bulk "
           "async-group: its shared-memory source may be released at exit "
           "while it is still being read",
           "add kcc.bulk_commit_group and kcc.bulk_wait_group 0 read before "
           "the end")
          .notes.push_back({end, "the kernel ends here"});
      return false;
    }
    for (const auto &group : committed)
      if (!group.empty()) {
        fail(group.front().op->getLoc(),
             "the kernel ends before the bulk async-group of this "
             "kcc.tma_store is waited: its shared-memory source may be "
             "released at exit while it is still being read",
             "add kcc.bulk_wait_group 0 read before the end")
            .notes.push_back({end, "the kernel ends here"});
        return false;
      }
    for (auto &entry : stages)
      for (Stage &s : entry.second)
        if (s.data == Stage::CpAsync && !s.cpWaited) {
          fail(s.writer->getLoc(),
               "the kernel ends while this kcc.cp_async into stage " +
                   std::to_string(stageIndex(entry.first, &s)) +
                   " is still in flight: no kcc.cp_async_wait_group retires "
                   "its group",
               "issue only the copies the loop will read (guard each with "
               "scf.if on the trip count), or wait for them")
              .notes.push_back({end, "the kernel ends here"});
          return false;
        }
    for (auto &entry : stages)
      for (Stage &s : entry.second) {
        if (s.data != Stage::Async || landed(s))
          continue;
        auto smem = cast<kcc::SmemType>(entry.first.getType());
        std::string problem =
            "the kernel ends while this kcc.tma_load into stage " +
            std::to_string(stageIndex(entry.first, &s)) +
            " is still in flight: no wait completes barrier #" +
            std::to_string(s.barIndex) + " phase " + std::to_string(s.phase);
        std::string advice = "wait for every copy that is issued";
        // A copy issued before the last loop, outside it: a prologue load
        // that the loop did not run long enough to consume.
        bool prologue = lastTopLoop && s.issuedAt < lastTopStart &&
                        !lastTopLoop->isAncestor(s.writer) &&
                        smem.getStages() > 1;
        if (prologue) {
          problem += "; the loop runs " + std::to_string(lastTopTrip) +
                     " iteration(s), fewer than the pipeline depth " +
                     std::to_string(smem.getStages());
          advice = "guard each prologue load (and its expect_tx) with scf.if "
                   "on the trip count, so a short loop does not leave stages "
                   "in flight";
        }
        Diag &d = fail(s.writer->getLoc(), problem, advice);
        if (prologue)
          d.notes.push_back({lastTopLoop->getLoc(), "the pipelined loop"});
        d.notes.push_back({end, "the kernel ends here"});
        return false;
      }
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Argument choices
//===----------------------------------------------------------------------===//

/// Integer function arguments that reach a control use: loop bounds, scf.if
/// conditions, and the barrier index / stage index / parity of async ops.
llvm::SetVector<BlockArgument>
controlArguments(func::FuncOp func, llvm::SmallVector<int64_t> &divisors) {
  llvm::SmallVector<Value> work;
  func.walk([&](Operation *op) {
    if (auto f = dyn_cast<scf::ForOp>(op))
      work.append({f.getLowerBound(), f.getUpperBound(), f.getStep()});
    else if (auto i = dyn_cast<scf::IfOp>(op))
      work.push_back(i.getCondition());
    else if (auto w = dyn_cast<kcc::MBarrierWaitOp>(op))
      work.append({w.getIndex(), w.getParity()});
    else if (auto l = dyn_cast<kcc::TmaLoadOp>(op))
      work.append({l.getStage(), l.getIndex()});
    else if (auto s = dyn_cast<kcc::TmaStoreOp>(op))
      work.push_back(s.getStage());
    else if (auto s = dyn_cast<kcc::SmemLoadOp>(op))
      work.push_back(s.getStage());
    else if (auto m = dyn_cast<kcc::WarpgroupMmaOp>(op))
      work.append({m.getAStage(), m.getBStage()});
    else if (auto m = dyn_cast<kcc::WarpMmaOp>(op))
      work.append({m.getAStage(), m.getBStage()});
    else if (auto c = dyn_cast<kcc::CpAsyncOp>(op))
      work.push_back(c.getStage());
    else if (auto s = dyn_cast<kcc::SmemStoreOp>(op))
      work.push_back(s.getStage());
    else if (isa<kcc::MBarrierInitOp, kcc::MBarrierArriveOp,
                 kcc::MBarrierArriveExpectTxOp, kcc::MBarrierInvalOp>(op))
      work.push_back(op->getOperand(1));
  });
  llvm::DenseSet<Value> seen;
  llvm::SetVector<BlockArgument> args;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == func.getOperation()) {
        if (scalarWidth(arg.getType()))
          args.insert(arg);
      } else if (auto f = dyn_cast<scf::ForOp>(owner)) {
        if (arg == f.getInductionVar()) {
          work.append({f.getLowerBound(), f.getStep()});
        } else {
          unsigned i = arg.getArgNumber() - 1;
          work.push_back(f.getInitArgs()[i]);
          work.push_back(f.getBody()->getTerminator()->getOperand(i));
        }
      }
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (auto f = dyn_cast<scf::ForOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      work.push_back(f.getInitArgs()[i]);
      work.push_back(f.getBody()->getTerminator()->getOperand(i));
      continue;
    }
    if (auto i = dyn_cast<scf::IfOp>(def)) {
      unsigned n = cast<OpResult>(v).getResultNumber();
      work.push_back(i.getCondition());
      for (Region *r : {&i.getThenRegion(), &i.getElseRegion()})
        if (!r->empty())
          work.push_back(r->front().getTerminator()->getOperand(n));
      continue;
    }
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
            arith::CeilDivUIOp, arith::FloorDivSIOp>(def))
      if (auto c = def->getOperand(1).getDefiningOp<arith::ConstantOp>())
        if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
          if (ia.getInt() > 1 && !llvm::is_contained(divisors, ia.getInt()))
            divisors.push_back(ia.getInt());
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  return args;
}

std::string argName(func::FuncOp func, BlockArgument arg) {
  auto names = func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kArgNamesAttr);
  if (names && names.size() == func.getNumArguments())
    if (auto s = dyn_cast<StringAttr>(names[arg.getArgNumber()]))
      return s.getValue().str();
  return "argument #" + std::to_string(arg.getArgNumber());
}

/// Representative values of one control argument.
llvm::SmallVector<int64_t> representatives(func::FuncOp func, BlockArgument arg,
                                           int64_t depth,
                                           ArrayRef<int64_t> divisors,
                                           int64_t large) {
  int64_t unit = 1;
  if (auto d = func.getArgAttrOfType<IntegerAttr>(
          arg.getArgNumber(), kcc::KccDialect::kDivisibilityAttr))
    unit = std::max<int64_t>(1, d.getInt());
  llvm::SmallVector<int64_t> values;
  auto add = [&](int64_t v) {
    v = wrap(v, scalarWidth(arg.getType()));
    if (!llvm::is_contained(values, v))
      values.push_back(v);
  };
  for (int64_t t = 0; t <= 2 * depth + 2; ++t)
    add(mulWrap(t, unit));
  add(mulWrap(large, unit));
  // Sizes divided into tiles: cover trip counts 0 .. 2*depth+2 of the tiles
  // too (exact multiples and one more element).
  for (int64_t d : divisors)
    if (d % unit == 0)
      for (int64_t t = 0; t <= 2 * depth + 2; ++t) {
        add(mulWrap(t, d));
        add(addWrap(mulWrap(t, d), unit));
      }
  return values;
}

struct VerifyAsyncProtocol
    : kcc::impl::KccVerifyAsyncProtocolBase<VerifyAsyncProtocol> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](func::FuncOp func) {
      if (!func.isExternal() && containsAsyncOp(func))
        ok &= verify(func);
    });
    if (!ok)
      signalPassFailure();
  }

  bool verify(func::FuncOp func) {
    int64_t depth = 1;
    func.walk([&](kcc::SmemAllocOp a) {
      depth = std::max<int64_t>(depth, a.getType().getStages());
    });
    depth = std::min<int64_t>(depth, 16); // bounds the number of choices
    llvm::SmallVector<int64_t> divisors;
    llvm::SetVector<BlockArgument> args = controlArguments(func, divisors);
    if (divisors.size() > 3)
      divisors.resize(3);
    int64_t large = 8 * std::lcm<int64_t>(depth, 2) + 3;
    llvm::SmallVector<llvm::SmallVector<int64_t>> values;
    llvm::SmallVector<int64_t> largeValues;
    for (BlockArgument a : args) {
      values.push_back(representatives(func, a, depth, divisors, large));
      largeValues.push_back(values.back()[std::min<size_t>(
          2 * depth + 3, values.back().size() - 1)]);
    }

    // The choices: the full cross product when small enough, else every
    // argument varied alone with the others at the large value.
    std::vector<llvm::SmallVector<int64_t>> choices;
    size_t product = 1;
    for (auto &v : values)
      product = std::min<size_t>(product * v.size(), kMaxCombinations + 1);
    if (product <= kMaxCombinations) {
      llvm::SmallVector<int64_t> cur(values.size());
      std::function<void(size_t)> rec = [&](size_t i) {
        if (i == values.size()) {
          choices.push_back(cur);
          return;
        }
        for (int64_t v : values[i]) {
          cur[i] = v;
          rec(i + 1);
        }
      };
      rec(0);
    } else {
      for (size_t i = 0; i < values.size(); ++i)
        for (int64_t v : values[i]) {
          llvm::SmallVector<int64_t> cur(values.size());
          for (size_t j = 0; j < values.size(); ++j)
            cur[j] = j == i ? v : largeValues[j];
          choices.push_back(cur);
        }
    }

    // Data-dependent branches (kcc.data_dependent): every combination of
    // sides, for every argument choice.
    llvm::SmallVector<Operation *> dataIfs;
    func.walk([&](scf::IfOp i) {
      if (i->hasAttr(kcc::KccDialect::kDataDependentAttr))
        dataIfs.push_back(i);
    });
    if (dataIfs.size() > kMaxDataBranches) {
      emitError(dataIfs[kMaxDataBranches]->getLoc())
          << "cannot prove the async protocol: the verifier explores at most "
          << kMaxDataBranches
          << " data-dependent branches per kernel; split the kernel";
      return false;
    }
    // Warp-specialized kernels: each run once with the producer starting,
    // once with the consumer starting.
    bool specialized = false;
    func.walk([&](kcc::WarpSpecializeOp) { specialized = true; });
    llvm::SmallVector<int> schedules{Producer};
    std::optional<RoleThreads> threads;
    if (specialized) {
      schedules.push_back(Consumer);
      threads.emplace();
    }
    std::optional<Diag> first;
    llvm::SmallVector<int64_t> firstChoice;
    // The schedule of the first failure when the other one passed with the
    // same choice and branch sides (then it is worth naming).
    int firstOnlyIn = Cta;
    size_t failures = 0;
    for (const auto &choice : choices) {
      llvm::DenseMap<Value, int64_t> bound;
      for (auto [a, v] : llvm::zip(args, choice))
        bound[a] = v;
      bool failed = false;
      for (unsigned sides = 0; sides < (1u << dataIfs.size()) && !failed;
           ++sides) {
        llvm::DenseMap<Operation *, bool> branches;
        for (auto [i, op] : llvm::enumerate(dataIfs))
          branches[op] = (sides >> i) & 1;
        llvm::SmallVector<int> failedIn;
        std::optional<Diag> diag;
        for (int start : schedules) {
          Interp interp(func, bound, &branches, threads ? &*threads : nullptr,
                        start);
          if (interp.run())
            continue;
          failedIn.push_back(start);
          if (!diag)
            diag = interp.diag;
        }
        if (failedIn.empty())
          continue;
        failed = true;
        if (!first) {
          first = diag;
          firstChoice = choice;
          if (failedIn.size() < schedules.size())
            firstOnlyIn = failedIn.front();
        }
      }
      failures += failed;
    }
    if (!first)
      return true;

    std::string with;
    bool named = failures < choices.size() && !args.empty();
    if (named || firstOnlyIn != Cta) {
      llvm::raw_string_ostream os(with);
      os << " (";
      if (named) {
        os << "with ";
        for (size_t i = 0; i < args.size(); ++i)
          os << (i ? ", " : "") << argName(func, args[i]) << " = "
             << firstChoice[i];
      }
      if (firstOnlyIn != Cta)
        os << (named ? ", " : "") << "when the " << roleName(firstOnlyIn)
           << " starts first";
      os << ")";
    }
    InFlightDiagnostic d = emitError(first->loc)
                           << first->problem << with << "; " << first->advice;
    for (auto &[loc, text] : first->notes)
      d.attachNote(loc) << text;
    return false;
  }
};

} // namespace
