//===- Typestate.h - typestate values of the async verifier -----*- C++ -*-===//
//
// The values kcc-verify-async-protocol computes with (the method is in
// passes/verify/VerifyAsyncProtocol.cpp): integer scalars as constants or
// linear forms, the typestate of every mbarrier (and its phases), shared
// stage, bulk async-group, cp.async group, wgmma group and TMEM allocation,
// what the roles of kcc.warp_specialize have learned of each other, and the
// collected diagnostic. The transfer rules (Rules.h) check and advance them.
//
//===----------------------------------------------------------------------===//

#ifndef KCC_PASSES_VERIFY_ASYNC_TYPESTATE_H
#define KCC_PASSES_VERIFY_ASYNC_TYPESTATE_H

#include "targets/TmemRules.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace kcc::verify {

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
inline int64_t addWrap(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
inline int64_t mulWrap(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

inline Scalar constant(int64_t v) {
  Scalar s;
  s.c = v;
  return s;
}

/// a + k * b, as a linear form (constants are wrapped by the caller).
inline Scalar linear(const Scalar &a, const Scalar &b, int64_t k) {
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

inline Scalar scaled(const Scalar &a, int64_t k) {
  if (k == 0)
    return constant(0);
  Scalar r;
  r.c = mulWrap(a.c, k);
  for (auto [id, coef] : a.terms)
    if (int64_t c = mulWrap(coef, k))
      r.terms.push_back({id, c});
  return r;
}

/// Whether `t` is a wgmma accumulator tile: the verifier tracks which group
/// writes one (its value is that group's id, 0 once retired).
inline bool isWgmmaAccumulator(mlir::Type t) {
  auto tile = llvm::dyn_cast<mlir::RankedTensorType>(t);
  return tile &&
         llvm::isa_and_nonnull<kcc::WgmmaAccLayoutAttr>(tile.getEncoding());
}

/// Bit width of a scalar integer type (index: 64), 0 for anything else.
inline unsigned scalarWidth(mlir::Type t) {
  if (auto it = llvm::dyn_cast<mlir::IntegerType>(t))
    return it.getWidth();
  if (llvm::isa<mlir::IndexType>(t))
    return 64;
  return 0;
}

/// Canonical signed representation of `v` in `width` bits (i1: 0 or 1).
inline int64_t wrap(int64_t v, unsigned width) {
  if (width == 1)
    return v & 1;
  if (width == 0 || width >= 64)
    return v;
  return llvm::SignExtend64(static_cast<uint64_t>(v), width);
}

inline uint64_t asUnsigned(int64_t v, unsigned width) {
  if (width == 0 || width >= 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & llvm::maskTrailingOnes<uint64_t>(width);
}

//===----------------------------------------------------------------------===//
// Diagnostics are collected, not emitted, so that the function can be run for
// several argument choices and only the first failure be reported.
//===----------------------------------------------------------------------===//

struct Diag {
  mlir::Location loc;
  std::string problem;
  std::string advice;
  llvm::SmallVector<std::pair<mlir::Location, std::string>> notes;
};

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

/// Who executes an op: the whole CTA (outside kcc.warp_specialize) or one
/// of its roles. With ping-pong (`groups = 2`) the consumer region runs as
/// two roles, one per consumer group: Consumer (group 0, the threads that
/// were the CTA's first) and Consumer2 (group 1).
enum Role { Cta = 0, Producer = 1, Consumer = 2, Consumer2 = 3 };
constexpr int kRoles = 4;
inline bool isConsumer(int r) { return r == Consumer || r == Consumer2; }
inline const char *roleName(int r) {
  return r == Producer    ? "producer"
         : r == Consumer  ? "consumer"
         : r == Consumer2 ? "consumer group 1"
                          : "CTA";
}
/// The role a message about a role's stage hand-off names as its partner.
inline Role otherRole(int r) { return r == Producer ? Consumer : Producer; }

/// Per-role times (step counts), -1: none.
using RoleTimes = std::array<int64_t, kRoles>;
constexpr RoleTimes kNoTimes = {-1, -1, -1, -1};

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

//===----------------------------------------------------------------------===//
// Barriers and their phases
//===----------------------------------------------------------------------===//

struct Phase {
  int64_t arrivals = 0, expected = 0, brought = 0;
  llvm::SmallVector<mlir::Operation *, 2> arms;  // arrive / arrive_expect_tx
  llvm::SmallVector<mlir::Operation *, 2> loads; // tma_loads signaling it
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
  mlir::Operation *allocOp = nullptr, *initOp = nullptr, *invalOp = nullptr;
  bool fenced = false;
  // Who arrives on it: this CTA's threads alone, or (kcc.mbarrier_arrive
  // ... cluster) every CTA's; a barrier takes one kind.
  enum Scope : uint8_t { Unknown, Local, Cluster } arrivals = Unknown;
  int64_t count = 0;
  int64_t phase = 0; // number of the current (incomplete) phase
  // Per role: highest phase a wait of that role has seen complete.
  RoleTimes observed = kNoTimes;
  // Per role: when its last wait on the barrier saw a phase complete.
  RoleTimes observedAt = kNoTimes;
  Phase cur;
  Release lastReleased;      // `released` of phase `phase` - 1
  int64_t lastTcCovered = 0; // `tcCovered` of phase `phase` - 1
};

//===----------------------------------------------------------------------===//
// Shared-memory stages
//===----------------------------------------------------------------------===//

struct Stage {
  enum Data { None, Async, Generic, CpAsync } data = None;
  mlir::Operation *writer = nullptr; // the tma_load or smem_store of the data
  int writerRole = 0;                // the role that issued `writer` (Cta)
  // Async data: the barrier and phase its copy signals.
  mlir::Value bars;
  int64_t barIndex = 0, phase = 0;
  unsigned landedIn = 0; // roles (bit per Role) that observed the copy
  // Generic data: fence_proxy_async after it, cta_barrier after it, and a
  // cta_barrier after that fence.
  bool fenced = false, synced = false, fencedSynced = false;
  int64_t issuedAt = 0;              // step count when the copy was issued
  bool consumed = false;             // read by smem_load or tma_store
  mlir::Operation *reader = nullptr; // last smem_load not yet released
  int readerRole = Cta;              // the role of `reader`
  // The last reads by a role, kept after cta_barrier (which syncs one role
  // only): the other role may write once it observed releases made after
  // they completed. `readEnd`: wgmma (at retirement) and tma_store reads;
  // `threadReadEnd`: smem_load, by every thread.
  int lastReaderRole = Cta;
  mlir::Operation *lastReader = nullptr, *lastThreadReader = nullptr;
  int64_t readEnd = -1, threadReadEnd = -1;
  // The last kcc.fence_proxy_async the threads of `lastReaderRole` made
  // after their last smem_load of the stage: a TMA copy (async proxy) may
  // overwrite generic-proxy reads only once they are fenced.
  int64_t threadReadFenced = -1;
  mlir::Operation *tmaReader = nullptr; // tma_store whose group is not waited
  // A tma_store whose read only the issuing thread has waited for
  // (bulk_wait_group runs there): the other threads may write the stage
  // after a cta_barrier.
  mlir::Operation *tmaWaitedAlone = nullptr;
  int tmaRole = 0; // the role that issued the last tma_store of the stage
  mlir::Operation *mmaReader = nullptr; // warpgroup_mma whose group is in
                                        // flight, or tcgen05_mma not yet
                                        // retired
  int64_t tcSeq = 0;                    // issue number of a tcgen05 mmaReader
  // CpAsync data: its group was retired by a wait_group, and a cta_barrier
  // followed that wait.
  bool cpWaited = false, cpSynced = false;
};

//===----------------------------------------------------------------------===//
// Copies and groups in flight
//===----------------------------------------------------------------------===//

/// A cp.async in its thread group: the stage it fills (the copy is current
/// while the stage's writer is still `op`).
struct CpCopy {
  mlir::Operation *op;
  Stage *stage;
};

/// A TMA copy, as the bulk async-group rules compare them.
struct BulkCopy {
  mlir::Operation *op;
  mlir::Value map;
  llvm::SmallVector<Scalar, 2> coords;
  mlir::Value src; // tma_store source buffer
  int64_t stage = 0;
  int64_t parts = 1; // boxes side by side along the innermost dimension
};

/// A wgmma group in flight: its warpgroup_mma and the stages (buffer, stage
/// pointer) it is still reading.
struct MmaGroup {
  mlir::Operation *op;
  llvm::SmallVector<Stage *, 2> stages;
  /// This issue of `op` (its result carries the id as a constant, through
  /// loops and branches, until a wait retires it).
  int64_t id = 0;
};

/// What the threads that issue them have in flight: bulk async-groups of
/// tma_stores, cp.async groups and wgmma groups are per thread (per
/// warpgroup), so each consumer group has its own (the CTA's threads before
/// the split are consumer group 0's).
struct IssueQueues {
  // Bulk async-groups of tma_stores: the open one, the committed ones
  // (oldest first), and stores whose group was waited with `read` (sources
  // released, writes not complete).
  std::vector<BulkCopy> openGroup;
  std::deque<std::vector<BulkCopy>> committed;
  std::vector<BulkCopy> unfinished;

  // cp.async groups (the same in every thread): open, committed oldest first.
  std::vector<CpCopy> cpOpen;
  std::deque<std::vector<CpCopy>> cpCommitted;

  // wgmma groups in flight, oldest first.
  std::deque<MmaGroup> mmaGroups;

  // The consumer warpgroups' turns (kcc.warpgroup_turn): not started, the
  // turn passed on (a wait may take it), or held.
  enum class Turn { Unstarted, Passed, Held } turn = Turn::Unstarted;
  mlir::Operation *turnTaken = nullptr; // the wait that took a held turn
};

//===----------------------------------------------------------------------===//
// The typestate of the whole CTA, shared by the roles of kcc.warp_specialize
//===----------------------------------------------------------------------===//

struct CtaState {
  // mbarriers and shared stages, by the value of their allocation. Stages
  // live in std::vector, whose buffer survives the MapVector growing (an
  // smem_alloc while copies are in flight): CpCopy and MmaGroup point into
  // it. SmallVector's inline storage would move and leave them dangling.
  llvm::MapVector<mlir::Value, llvm::SmallVector<Barrier, 2>> barriers;
  llvm::MapVector<mlir::Value, std::vector<Stage>> stages;

  // Per consumer group (index 1: Consumer2; the CTA and the producer use
  // group 0's, the producer issuing none of them).
  std::array<IssueQueues, 2> queues;

  // tcgen05_mma ops issued and retired (issue numbers; they complete in
  // order), the last one issued, and the TMEM allocations (by the value
  // holding their address).
  int64_t tcIssued = 0, tcRetired = 0;
  mlir::Operation *lastTcMma = nullptr;
  kcc::TmemAllocTracker tmem;
  llvm::DenseMap<mlir::Value, unsigned> tmemIds;
  // TMEM allocations every thread read (kcc.tmem_load) since the last
  // cta_barrier: a tcgen05_mma (one thread) may not overwrite them yet.
  llvm::DenseMap<mlir::Value, mlir::Operation *> tmemReadUnsynced;
  llvm::DenseMap<mlir::Value, mlir::Operation *> tmemFreed;

  // kcc.warp_specialize, per role: its last kcc.cta_barrier (`synced`), its
  // last point where every warpgroup's leader had seen its own wgmma groups
  // retire (`wgSynced`: cta_barrier or per_warpgroup arrival), and what it
  // learned of the others' through waits.
  RoleTimes synced = kNoTimes, wgSynced = kNoTimes;
  std::array<Release, kRoles> learned;

  // Clusters: whether a kcc.cluster_barrier followed the barriers' fence
  // (the peers' barriers exist), and the last multicast copy or cluster
  // arrival since the last cluster barrier (the CTA must not end before
  // another one).
  bool clusterSynced = false;
  mlir::Operation *clusterUnsynced = nullptr;
};

} // namespace kcc::verify

#endif // KCC_PASSES_VERIFY_ASYNC_TYPESTATE_H
