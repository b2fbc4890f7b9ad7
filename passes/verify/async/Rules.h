//===- Rules.h - transfer rules of the async verifier -----------*- C++ -*-===//
//
// One transfer rule per async op: it checks the op against the typestate
// (Typestate.h) and advances it, or records a diagnostic (Interpreter::fail)
// and returns false. The rules are grouped by protocol, one file each:
//   MbarrierRules.cpp   mbarrier life cycle, arrivals, phases, waits
//   StageRules.cpp      shared stages: reads, writes, tma_load, cta_barrier
//   BulkGroupRules.cpp  tma_store and its bulk async-groups
//   ProxyRules.cpp      generic-proxy writes read through the async proxy
//   CpAsyncRules.cpp    cp.async copies and their groups
//   WgmmaRules.cpp      warpgroup_mma groups and their accumulator
//   Tcgen05Rules.cpp    tcgen05_mma, its commits and the TMEM allocations
//   ClusterRules.cpp    a cluster's barriers, multicast copies, arrivals
// Rules.cpp dispatches an op to its rule and runs the kernel-exit checks.
//
//===----------------------------------------------------------------------===//

#ifndef KCC_PASSES_VERIFY_ASYNC_RULES_H
#define KCC_PASSES_VERIFY_ASYNC_RULES_H

#include "passes/verify/async/Typestate.h"

#include "ir/Dialect.h"

namespace kcc::verify {

class Interpreter;

//===----------------------------------------------------------------------===//
// Dispatch (Rules.cpp)
//===----------------------------------------------------------------------===//

/// Whether `op` is an async op (one that has a transfer rule).
bool isAsyncOp(mlir::Operation *op);
/// Whether an op nested in `root` is an async op.
bool containsAsyncOp(mlir::Operation *root);
/// Applies the transfer rule of async op `op`.
bool transfer(Interpreter &in, mlir::Operation *op);
/// The kernel ends: nothing may be left in flight.
bool checkExit(Interpreter &in);

//===----------------------------------------------------------------------===//
// mbarriers (MbarrierRules.cpp)
//===----------------------------------------------------------------------===//

/// The barrier `bars[index]` of `op`, or null after reporting an error.
Barrier *barrierAt(Interpreter &in, mlir::Operation *op, mlir::Value bars,
                   mlir::Value index);
int64_t barrierIndex(Interpreter &in, mlir::Value bars, const Barrier *b);
/// Checks that `b` is initialized, alive and (if `needFence`) fenced.
bool usable(Interpreter &in, mlir::Operation *op, mlir::Value bars, Barrier *b,
            bool needFence);
/// One arrival on `bars[index]` expecting `bytes` more transaction bytes.
bool arrive(Interpreter &in, mlir::Operation *op, mlir::Value bars,
            mlir::Value index, int64_t bytes, bool perWarpgroup = false);
/// Notes naming the expect_tx and the copies of the pending phase of `b`.
void addTxNotes(Diag &d, const Barrier &b);
/// The barrier whose pending phase `w` waits for (its parity), or null
/// when `w` names another phase or cannot be evaluated yet.
Barrier *pendingBarrier(Interpreter &in, kcc::MBarrierWaitOp w);
/// Whether wait `w` in a role blocks: its phase cannot complete yet.
bool waitBlocks(Interpreter &in, kcc::MBarrierWaitOp w);
/// "barrier #i phase P (what it still lacks)" for a blocked wait.
std::string pendingText(Interpreter &in, kcc::MBarrierWaitOp w);

bool mbarrierAlloc(Interpreter &in, kcc::MBarrierAllocOp op);
bool mbarrierInit(Interpreter &in, kcc::MBarrierInitOp op);
bool fenceMBarrierInit(Interpreter &in);
bool mbarrierArriveExpectTx(Interpreter &in, kcc::MBarrierArriveExpectTxOp op);
bool mbarrierArrive(Interpreter &in, kcc::MBarrierArriveOp op);
bool mbarrierWait(Interpreter &in, kcc::MBarrierWaitOp op);
bool mbarrierInval(Interpreter &in, kcc::MBarrierInvalOp op);

//===----------------------------------------------------------------------===//
// Shared stages (StageRules.cpp)
//===----------------------------------------------------------------------===//

/// The stage `buf[index]` of `op`, or null after reporting an error.
Stage *stageAt(Interpreter &in, mlir::Operation *op, mlir::Value buf,
               mlir::Value index);
int64_t stageIndex(Interpreter &in, mlir::Value buf, const Stage *s);
/// A copy into `s` has landed for role `r` once a wait of that role or of
/// the whole CTA observed its phase; for r = -1, once any wait did.
bool landed(Interpreter &in, Stage &s, int r = -1);
/// Records a read of `s` by `op` in the running role.
void noteRead(Interpreter &in, Stage &s, mlir::Operation *op);
/// Checks that stage `s` may be overwritten by `op`.
bool writable(Interpreter &in, mlir::Operation *op, mlir::Value buf, Stage &s);
/// Checks that `op` may read stage `s` (smem_load or tma_store).
bool readable(Interpreter &in, mlir::Operation *op, mlir::Value buf, Stage &s);
/// A generic- or async-proxy read of a stage by the whole CTA.
bool readStage(Interpreter &in, mlir::Operation *op, mlir::Value buf,
               mlir::Value stage);

bool smemAlloc(Interpreter &in, kcc::SmemAllocOp op);
bool tmaLoad(Interpreter &in, kcc::TmaLoadOp op);
bool smemLoad(Interpreter &in, kcc::SmemLoadOp op);
bool smemStore(Interpreter &in, kcc::SmemStoreOp op);
bool warpMma(Interpreter &in, kcc::WarpMmaOp op);
bool ctaBarrier(Interpreter &in);
/// No tma_load may be in flight at the kernel's end.
bool loadsLandedAtExit(Interpreter &in);

//===----------------------------------------------------------------------===//
// Bulk async-groups (BulkGroupRules.cpp)
//===----------------------------------------------------------------------===//

BulkCopy bulkCopy(Interpreter &in, mlir::Operation *op, mlir::Value map,
                  mlir::ValueRange coords);
/// A tma_load may not read a box an un-completed tma_store writes.
bool loadAfterStores(Interpreter &in, const BulkCopy &load);

bool tmaStore(Interpreter &in, kcc::TmaStoreOp op);
bool bulkCommitGroup(Interpreter &in);
bool bulkWaitGroup(Interpreter &in, kcc::BulkWaitGroupOp op);
/// Every tma_store is committed and waited at the kernel's end.
bool bulkGroupsAtExit(Interpreter &in);

//===----------------------------------------------------------------------===//
// Proxies (ProxyRules.cpp)
//===----------------------------------------------------------------------===//

bool fenceProxyAsync(Interpreter &in);
/// A TMA copy into a stage that threads read: their reads were fenced.
bool asyncProxyWritable(Interpreter &in, kcc::TmaLoadOp op, Stage &s);
/// A tma_store (async proxy) may read generic-proxy writes to `s` only
/// after a fence and a cta_barrier.
bool asyncProxyReadable(Interpreter &in, kcc::TmaStoreOp op, Stage &s);

//===----------------------------------------------------------------------===//
// cp.async groups (CpAsyncRules.cpp)
//===----------------------------------------------------------------------===//

/// A kcc.cp_async or kcc.cp_async_gather into stage `stage` of `dst`.
bool cpAsync(Interpreter &in, mlir::Operation *op, mlir::Value dst,
             mlir::Value stage);
bool cpAsyncCommitGroup(Interpreter &in);
bool cpAsyncWaitGroup(Interpreter &in, kcc::CpAsyncWaitGroupOp op);
/// No cp.async may be in flight at the kernel's end.
bool cpAsyncAtExit(Interpreter &in);

//===----------------------------------------------------------------------===//
// wgmma groups (WgmmaRules.cpp)
//===----------------------------------------------------------------------===//

bool warpgroupMma(Interpreter &in, kcc::WarpgroupMmaOp op);
/// The register-A form: reads the B stage only.
bool warpgroupMmaRegA(Interpreter &in, kcc::WarpgroupMmaRegAOp op);
bool warpgroupMmaWait(Interpreter &in, kcc::WarpgroupMmaWaitOp op);
/// `op` (convert_layout, smem_store) may read a wgmma accumulator only once
/// every group has retired.
bool accumulatorRead(Interpreter &in, mlir::Operation *op);
/// `op` reads no accumulator a wgmma group in flight still writes (a
/// product may feed the next one's accumulator, pass through loops and
/// branches, and be retired by a wait).
bool accumulatorsRetired(Interpreter &in, mlir::Operation *op);
/// No wgmma group may be in flight at the kernel's end.
bool wgmmaAtExit(Interpreter &in);

// TurnRules.cpp: consumer warpgroups taking turns.
bool warpgroupTurn(Interpreter &in, kcc::WarpgroupTurnOp op);
bool turnsAtExit(Interpreter &in);

//===----------------------------------------------------------------------===//
// tcgen05 and TMEM (Tcgen05Rules.cpp)
//===----------------------------------------------------------------------===//

/// A wait saw a tcgen05_commit's phase complete: the tcgen05_mma ops up to
/// issue number `covered` have finished.
void retireTcgen05(Interpreter &in, int64_t covered);

bool tmemAlloc(Interpreter &in, kcc::TmemAllocOp op);
bool tmemDealloc(Interpreter &in, kcc::TmemDeallocOp op);
bool tcgen05Mma(Interpreter &in, kcc::Tcgen05MmaOp op);
bool tcgen05Commit(Interpreter &in, kcc::Tcgen05CommitOp op);
bool tmemLoad(Interpreter &in, kcc::TmemLoadOp op);
/// No tcgen05_mma may run and every TMEM allocation must be freed at the
/// kernel's end.
bool tcgen05AtExit(Interpreter &in);

//===----------------------------------------------------------------------===//
// Clusters (ClusterRules.cpp)
//===----------------------------------------------------------------------===//

/// kcc.cluster_barrier: every CTA of the cluster is past it.
bool clusterBarrier(Interpreter &in);
/// A multicast copy or a cluster-wide arrival reaches the peers' shared
/// memory: only after a cluster barrier that follows their barriers'
/// initialization, and a cluster barrier must follow before the kernel
/// ends.
bool clusterAccess(Interpreter &in, mlir::Operation *op);
/// The kernel ends after its last cluster access's cluster barrier.
bool clusterAtExit(Interpreter &in);

} // namespace kcc::verify

#endif // KCC_PASSES_VERIFY_ASYNC_RULES_H
