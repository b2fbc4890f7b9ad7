//===- KccAsyncOps.td - layout+effects IR: async copies ----*- tablegen -*-===//
//
// The explicit asynchronous protocol of a kernel after async materialization
// (passes/MaterializeAsync*.cpp): shared-memory stages, mbarriers with their
// phases and transaction bytes, TMA bulk tensor copies, bulk async-groups and
// proxy fences. Every op is executed by the whole CTA in program order, as
// the tile IR is; the lowering picks the thread that issues a one-thread
// operation (TMA, expect_tx, init). The typestate verifier
// (passes/verify/VerifyAsyncProtocol.cpp) proves the protocol before code
// emission:
//
//   mbarrier:  uninitialized -init-> initialized(phase 0)
//              a phase completes when its arrivals reach the init count and
//              its transaction bytes (raised by expect_tx, lowered by the TMA
//              copies that signal it) reach zero; a wait names the parity of
//              the phase it waits for; inval ends its life.
//   stage:     empty -tma_load-> in flight -wait-> full -smem_load-> in use
//              -cta_barrier-> empty (released: every thread has read it)
//              empty -smem_store-> written -fence_proxy_async-> visible to
//              the async proxy -tma_store + commit-> being read
//              -bulk_wait_group-> empty
//
//===----------------------------------------------------------------------===//
#ifndef KCC_ASYNC_OPS_TD
#define KCC_ASYNC_OPS_TD

include "ir/KccDialect.td"
include "ir/KccTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Kcc_SmemAllocOp : Kcc_Op<"smem_alloc"> {
  let summary = "allocate a multi-stage shared-memory buffer";
  let results = (outs Kcc_Smem:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Kcc_MBarrierAllocOp : Kcc_Op<"mbarrier_alloc"> {
  let summary = "allocate mbarriers in shared memory (uninitialized)";
  let results = (outs Kcc_MBarrier:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Kcc_MBarrierInitOp : Kcc_Op<"mbarrier_init"> {
  let summary = "initialize one mbarrier: `count` arrivals complete a phase";
  let arguments = (ins Kcc_MBarrier:$bars, I32:$index,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$count);
  let assemblyFormat = [{
    $bars `[` $index `]` `,` `count` $count attr-dict `:` type($bars)
  }];
}

def Kcc_FenceMBarrierInitOp : Kcc_Op<"fence_mbarrier_init"> {
  let summary = "make barrier initialization visible before other threads use it";
  let description = [{
    `fence.mbarrier_init.release.cluster` followed by a CTA barrier: the
    initializing thread's writes are visible to every thread (and to the
    async proxy) before any of them arrives, waits or issues a copy.
  }];
  let assemblyFormat = "attr-dict";
}

def Kcc_MBarrierArriveExpectTxOp : Kcc_Op<"mbarrier_arrive_expect_tx"> {
  let summary = "arrive once and expect `bytes` more transaction bytes";
  let arguments = (ins Kcc_MBarrier:$bars, I32:$index,
                       ConfinedAttr<I64Attr, [IntMinValue<0>]>:$bytes);
  let assemblyFormat = [{
    $bars `[` $index `]` `,` `bytes` $bytes attr-dict `:` type($bars)
  }];
}

def Kcc_MBarrierArriveOp : Kcc_Op<"mbarrier_arrive"> {
  let summary = "arrive once on an mbarrier (no transaction bytes)";
  let description = [{
    With `per_warpgroup` (only in the consumer region of
    kcc.warp_specialize): every consumer warpgroup arrives once, each after
    its own earlier operations (its first thread arrives once the warpgroup's
    wgmma groups it waited for have retired), so the phase counts
    `consumer_warpgroups` arrivals. This is how consumers release a stage to
    the producer without a barrier across all of them.

    With `cluster` (in a kernel launched as clusters, kcc.cluster): the
    arrival happens on the barrier at the same offset in every CTA of the
    cluster (`mapa` + `mbarrier.arrive.release.cluster`), so each CTA's
    phase counts the arrivals of all of them. This is how consumers release
    a stage that their peers' multicast copies write.
  }];
  let arguments = (ins Kcc_MBarrier:$bars, I32:$index,
                       UnitAttr:$per_warpgroup, UnitAttr:$cluster);
  let assemblyFormat = [{
    $bars `[` $index `]` (`per_warpgroup` $per_warpgroup^)?
    (`cluster` $cluster^)? attr-dict `:` type($bars)
  }];
  let hasVerifier = 1;
}

def Kcc_MBarrierWaitOp : Kcc_Op<"mbarrier_wait"> {
  let summary = "wait until the phase of the given parity completes";
  let description = [{
    Every thread waits until the barrier's phase with parity `parity` (0 or
    1, an i32) has completed (`mbarrier.try_wait.parity` in a loop).
  }];
  let arguments = (ins Kcc_MBarrier:$bars, I32:$index, I32:$parity);
  let assemblyFormat = [{
    $bars `[` $index `]` `,` `parity` $parity attr-dict `:` type($bars)
  }];
}

def Kcc_MBarrierInvalOp : Kcc_Op<"mbarrier_inval"> {
  let summary = "end an mbarrier's life (its storage may be reused)";
  let arguments = (ins Kcc_MBarrier:$bars, I32:$index);
  let assemblyFormat = "$bars `[` $index `]` attr-dict `:` type($bars)";
}

def Kcc_TmaLoadOp : Kcc_Op<"tma_load"> {
  let summary = "bulk tensor copy global -> shared stage, completing tx bytes";
  let description = [{
    Copies the box of `map` at element coordinates `coords` (outermost
    first, like tile shapes; the lowering reverses them for TMA) into stage `stage` of `dst`; the copy lowers
    the transaction count of barrier `bars[index]` by the box's bytes when it
    lands. Elements outside the tensor are filled with zeros and still count.
    With `parts` = P > 1 the stage's tile is P boxes side by side along the
    innermost dimension (a swizzled operand wider than one swizzle span):
    box p is copied from inner coordinate + p * box width into the stage's
    p-th box-sized block, and the barrier counts all P boxes.

    With `multicast` = N (a kernel launched as N-CTA clusters, kcc.cluster):
    the box lands at the same stage in every CTA of the cluster, and each
    CTA's barrier at the same offset counts its bytes. The CTAs share the
    work: where N divides P, CTA r of the cluster copies parts r * P / N ..
    (r + 1) * P / N - 1 for all of them; otherwise CTA 0 copies the whole
    box. Every CTA issues the op with the same coordinates (the pass that
    sets it proves they are equal across the cluster).
  }];
  let extraClassDeclaration = [{
    /// Bytes the copy brings (all parts).
    int64_t getBytes() { return getParts() * getMap().getType().getBoxBytes(); }
  }];
  let arguments = (ins Kcc_TensorMap:$map, Variadic<I32>:$coords,
                       Kcc_Smem:$dst, I32:$stage, Kcc_MBarrier:$bars,
                       I32:$index,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<1>]>, "1">:$parts,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$multicast);
  let assemblyFormat = [{
    $map `[` $coords `]` `->` $dst `[` $stage `]` `,` $bars `[` $index `]`
    attr-dict `:` type($map) `,` type($dst) `,` type($bars)
  }];
  let hasVerifier = 1;
}

def Kcc_TmaStoreOp : Kcc_Op<"tma_store"> {
  let summary = "bulk tensor copy shared stage -> global (clipped at the edge)";
  let description = [{
    Joins the current bulk async-group; its source must not be written until
    a `bulk_wait_group` (read) covering the group. Elements outside the
    tensor are not written. With `parts` = P > 1 the stage's tile is P boxes
    side by side along the innermost dimension (a swizzled tile wider than
    one swizzle span, like kcc.tma_load's): box p of the stage goes to
    inner coordinate + p * box width.
  }];
  let arguments = (ins Kcc_Smem:$src, I32:$stage, Kcc_TensorMap:$map,
                       Variadic<I32>:$coords,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<1>]>, "1">:$parts);
  let assemblyFormat = [{
    $src `[` $stage `]` `->` $map `[` $coords `]` attr-dict `:` type($src)
    `,` type($map)
  }];
  let hasVerifier = 1;
}

def Kcc_BulkCommitGroupOp : Kcc_Op<"bulk_commit_group"> {
  let summary = "close the current bulk async-group";
  let assemblyFormat = "attr-dict";
}

def Kcc_BulkWaitGroupOp : Kcc_Op<"bulk_wait_group"> {
  let summary = "wait until at most `pending` bulk async-groups are in flight";
  let description = [{
    With `read`, waits only until the groups' sources have been read (their
    shared memory may be reused), not until their writes are visible.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$pending,
                       UnitAttr:$read);
  let assemblyFormat = "$pending (`read` $read^)? attr-dict";
}

def Kcc_CpAsyncOp : Kcc_Op<"cp_async", [AttrSizedOperandSegments]> {
  let summary = "copy a tile of a strided tensor into a stage, per thread (cp.async)";
  let description = [{
    The tile of the stage's shape at block coordinates `coords` of the
    tensor (`base`, `dims`, row stride `strides`; the operands of
    kcc.load_tile; a batched tensor's leading coordinate is the batch index)
    is copied into stage `stage` of `dst` in 16-byte chunks,
    each by one thread with `cp.async.cg`. Elements outside the tensor are
    written as zeros. The copies join the issuing thread's open cp.async
    group; they land only when a kcc.cp_async_wait_group retires the group,
    and other threads may read them only after a kcc.cta_barrier that
    follows that wait.
  }];
  let arguments = (ins Kcc_Ptr:$base, Variadic<I32>:$dims,
                       Variadic<I32>:$strides, Variadic<I32>:$coords,
                       Kcc_Smem:$dst, I32:$stage);
  let assemblyFormat = [{
    $base `[` $dims `]` `strides` `[` $strides `]` `at` `[` $coords `]` `->`
    $dst `[` $stage `]` attr-dict `:` type($base) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kcc_CpAsyncGatherOp : Kcc_Op<"cp_async_gather"> {
  let summary = "copy a tile of pointers' elements into a stage, per thread (cp.async)";
  let description = [{
    Element (r, c) of stage `stage` of `dst` receives `*ptrs[r, c]`, in
    16-byte chunks: each chunk of consecutive elements of the pointer tile's
    blocked layout is copied by the thread that holds it, with
    `cp.async.cg`, and a chunk whose `mask` is off is written as zeros (no
    memory is read). The pass that creates it proves what the copy needs:
    every chunk's addresses consecutive and 16-byte aligned, its mask uniform
    (kcc-pipeline-async-copies: a gathered tile, rows from a block table).
    Groups, waits and barriers are kcc.cp_async's.
  }];
  let arguments = (ins AnyRankedTensor:$ptrs, Optional<AnyRankedTensor>:$mask,
                       Kcc_Smem:$dst, I32:$stage);
  let assemblyFormat = [{
    $ptrs (`mask` $mask^ `:` type($mask))? `->` $dst `[` $stage `]` attr-dict
    `:` type($ptrs) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kcc_CpAsyncCommitGroupOp : Kcc_Op<"cp_async_commit_group"> {
  let summary = "close each thread's open cp.async group (possibly empty)";
  let assemblyFormat = "attr-dict";
}

def Kcc_CpAsyncWaitGroupOp : Kcc_Op<"cp_async_wait_group"> {
  let summary = "wait until at most `pending` of the thread's cp.async groups are in flight";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Kcc_WarpMmaOp : Kcc_Op<"warp_mma"> {
  let summary = "acc + A x B with warp-level MMAs, operands in padded shared stages";
  let description = [{
    `result = a x b + acc` where A (M x K) is stage `a_stage` of `a` and B
    (K x N) is stage `b_stage` of `b`, both row-padded unswizzled stages
    (written by kcc.cp_async). `a_k_major` says the stage holds A as M x K
    rather than K x M; `b_k_major` that it holds B as N x K rather than
    K x N. Lowered to ldmatrix (.trans where the stage's rows run along M or
    N) and mma.sync.m16n8k16 per warp; the accumulator has the
    #kcc.wgmma_acc layout. Every thread reads the stages: a kcc.cta_barrier
    must separate this op from the next write of either stage.
  }];
  let arguments = (ins Kcc_Smem:$a, I32:$a_stage, Kcc_Smem:$b, I32:$b_stage,
                       Kcc_Tile:$acc, BoolAttr:$a_k_major,
                       BoolAttr:$b_k_major);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = [{
    $a `[` $a_stage `]` `,` $b `[` $b_stage `]` `,` $acc attr-dict `:`
    type($a) `,` type($b) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kcc_FenceProxyAsyncOp : Kcc_Op<"fence_proxy_async"> {
  let summary = "order generic-proxy shared-memory writes before async-proxy reads";
  let description = [{
    Without `global`: the CTA's shared memory (a stage written by threads,
    then read by a TMA store or wgmma). With `global`: global memory, both
    ways (TMA stores before the generic accesses that follow, generic
    accesses before the TMA loads that follow), as a program-wide atomic
    that publishes or acquires a TMA-written tile needs.
  }];
  let arguments = (ins UnitAttr:$global);
  let assemblyFormat = "(`global` $global^)? attr-dict";
}

def Kcc_ClusterBarrierOp : Kcc_Op<"cluster_barrier"> {
  let summary = "every thread of every CTA of the cluster reaches this point";
  let description = [{
    `barrier.cluster.arrive.release` then `barrier.cluster.wait.acquire`
    (threads that exited count as arrived). In a kernel launched as
    clusters it orders the mbarrier initialization of every CTA before any
    peer's multicast copy or remote arrival, and keeps every CTA alive
    (its shared memory and barriers) until its peers are done with them.
  }];
  let assemblyFormat = "attr-dict";
}

def Kcc_CtaBarrierOp : Kcc_Op<"cta_barrier"> {
  let summary = "every thread of the CTA reaches this point (bar.sync 0)";
  let assemblyFormat = "attr-dict";
}

def Kcc_SmemLoadOp : Kcc_Op<"smem_load"> {
  let summary = "read a stage into registers (generic proxy, every thread)";
  let description = [{
    The result has the stage's shape, or, for a [1, N] stage, [N, 1]: the
    same elements in the same order, as a column (in an accumulator's row
    layout each thread reads the rows it holds).
  }];
  let arguments = (ins Kcc_Smem:$src, I32:$stage);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = [{
    $src `[` $stage `]` attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kcc_SmemStoreOp : Kcc_Op<"smem_store"> {
  let summary = "write a tile from registers into a stage (generic proxy)";
  let description = [{
    Writes `value` into stage `stage` of `dst`. With `window` (one offset
    per dimension), the stage holds only the part of `value` that starts at
    those offsets and is as large as the stage: a GEMM epilogue copies a
    wide accumulator out through a smaller stage, a column chunk at a time
    (kcc-pipeline-tma-loads, docs/gemm.md).
  }];
  let arguments = (ins Kcc_Tile:$value, Kcc_Smem:$dst, I32:$stage,
                       OptionalAttr<DenseI64ArrayAttr>:$window);
  let assemblyFormat = [{
    $value `,` $dst `[` $stage `]` (`window` $window^)? attr-dict `:`
    type($value) `,` type($dst)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$value, "::mlir::Value":$dst, "::mlir::Value":$stage), [{
      build($_builder, $_state, value, dst, stage, ::mlir::DenseI64ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Kcc_WarpgroupMmaOp : Kcc_Op<"warpgroup_mma"> {
  let summary = "acc + A x B on Hopper tensor cores, operands in shared stages";
  let description = [{
    `result = a x b + acc` where A (M x K) is stage `a_stage` of `a` and B
    (K x N) is stage `b_stage` of `b`, both loaded by TMA with a 128-byte
    swizzle (their tiles are stored as blocks of 128-byte rows, one block per
    swizzle span along the innermost dimension). `a_k_major` says the stage
    holds A as M x K (K innermost) rather than K x M; `b_k_major` that it
    holds B as N x K rather than K x N. Lowered to wgmma.mma_async with
    shared-memory descriptors: `wgmma.fence`, the instructions, then
    `commit_group` closes one wgmma group and `wait_group pending` waits
    until at most `pending` groups are in flight. With `pending` = 0 both
    stages have been read and the result is ready when the op returns; with
    `pending` = 1 this op's group keeps reading its stages (and writing the
    accumulator) until a later warpgroup_mma or warpgroup_mma_wait retires
    it, so the tensor cores overlap the next iteration's issue. The
    accumulator has the #kcc.wgmma_acc layout.
  }];
  let arguments = (ins Kcc_Smem:$a, I32:$a_stage, Kcc_Smem:$b, I32:$b_stage,
                       Kcc_Tile:$acc, BoolAttr:$a_k_major,
                       BoolAttr:$b_k_major,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<0>]>, "0">:$pending);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = [{
    $a `[` $a_stage `]` `,` $b `[` $b_stage `]` `,` $acc attr-dict `:`
    type($a) `,` type($b) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kcc_WarpgroupMmaRegAOp : Kcc_Op<"warpgroup_mma_reg_a"> {
  let summary = "acc + A x B on Hopper tensor cores, A in registers";
  let description = [{
    wgmma's register-A form: `result = a x b + acc` where A (M x K, f16 or
    bf16) is a tile in the #kcc.wgmma_acc layout of the accumulator's
    warpgroups (for 16-bit elements the accumulator's register mapping is
    the A fragment: each pair of neighbouring registers is one f16x2 / bf16x2
    operand register, 4 per 16-column K step), and B (K x N) is stage
    `b_stage` of `b`, loaded by TMA with the 128-byte swizzle; `b_k_major`
    says the stage holds B as N x K rather than K x N. What a product of a
    tile computed in registers (attention's P @ V) needs: no shared-memory
    round trip for A. `pending` as for kcc.warpgroup_mma; the A registers
    must not change while the group is in flight.
  }];
  let arguments = (ins Kcc_Tile:$a, Kcc_Smem:$b, I32:$b_stage,
                       Kcc_Tile:$acc, BoolAttr:$b_k_major,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<0>]>, "0">:$pending);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `[` $b_stage `]` `,` $acc attr-dict `:`
    type($a) `,` type($b) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kcc_WarpgroupMmaWaitOp : Kcc_Op<"warpgroup_mma_wait",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait until at most `pending` wgmma groups are in flight";
  let description = [{
    Retires the older groups of kcc.warpgroup_mma: their stages have been
    read and their accumulators written. The accumulators those groups write
    pass through the op (`results` are `values`), so every later reader
    depends on the wait: nothing can be scheduled between the tensor cores
    and the retirement (ptxas serializes the wgmma pipeline when a non-wgmma
    instruction touches an accumulator in flight).
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$pending,
                       Variadic<Kcc_Tile>:$values);
  let results = (outs Variadic<Kcc_Tile>:$results);
  let assemblyFormat = [{
    $pending ($values^ `:` type($values))? attr-dict
  }];
}

def Kcc_WarpgroupTurnOp : Kcc_Op<"warpgroup_turn"> {
  let summary = "the consumer warpgroups take turns issuing their products";
  let description = [{
    In the consumer region of a `kcc.warp_specialize` with two or more
    consumer warpgroups sharing the work (one group): the warpgroups take
    turns, in order, through named barriers (one per warpgroup, from
    `barrier` up). `wait`: warpgroup w waits until the warpgroup before it
    (w - 1, cyclically) has passed it the turn (bar.sync barrier + w, 256).
    `pass`: warpgroup w passes the turn on to warpgroup w + 1 without
    waiting (bar.arrive barrier + (w + 1) mod W, 256). `start`: the last
    warpgroup passes the turn to warpgroup 0 (once, before the first
    `wait`). Between its `wait` and its `pass` a warpgroup holds the turn:
    attention's consumers issue their wgmma products there, so the tensor
    cores run one warpgroup's products while the other runs its softmax
    (FlashAttention-3's ping-pong). kcc-verify-async-protocol checks that
    every `wait` is preceded by a `start` or a `pass` and followed by a
    `pass` before the next `wait` or the end.
  }];
  let arguments = (ins Kcc_WarpgroupTurnKindAttr:$kind,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$barrier);
  let assemblyFormat = "$kind `barrier` $barrier attr-dict";
  let hasVerifier = 1;
}

def Kcc_ConsumerGroupOp : Kcc_Op<"consumer_group", [Pure]> {
  let summary = "the consumer group executing a ping-pong consumer region";
  let description = [{
    In the consumer region of a `kcc.warp_specialize` with `groups = G`:
    which of the G consumer groups executes it (0 .. G - 1); 0 with one
    group. Each group picks its own tiles and private buffers by it.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kcc_WarpSpecializeOp : Kcc_Op<"warp_specialize",
    [NoTerminator, RecursiveMemoryEffects]> {
  let summary = "split the CTA into a producer warpgroup and consumer warps";
  let description = [{
    The CTA's threads split into two roles that run concurrently and meet
    only through mbarriers:
      * `producer`: `producer_warps` extra warps (one warpgroup) after the
        kernel's `kcc.num_warps`; they lower their register budget to
        `producer_regs` (setmaxnreg.dec) and one thread of them executes
        the region: it issues the TMA copies of a pipeline, waiting for
        "empty" barriers before it refills a stage.
      * `consumer`: the kernel's `kcc.num_warps` warps (threads 0 .. N-1,
        so tile layouts are unchanged), `consumer_warpgroups` warpgroups
        that raise their budget to `consumer_regs` (setmaxnreg.inc) and
        execute the region as the whole CTA executed the code before: one-
        thread operations are issued by thread 0 and `kcc.cta_barrier`
        synchronizes the consumer threads only (a named barrier).
    With `groups = G` (ping-pong; default 1) the consumer region is
    executed by G consumer groups of `consumer_warpgroups` warpgroups each,
    concurrently (group g: threads g x C .. (g + 1) x C - 1 for C consumer
    threads per group). Each group executes the region as one group would:
    thread ids and `kcc.cta_barrier` are the group's own (one named barrier
    per group), and `kcc.consumer_group` says which group runs; the groups
    share the producer, its stages and the barriers, and meet only through
    mbarriers, like the roles.
    The op is executed by every thread once the barriers it uses are
    initialized (kcc.fence_mbarrier_init before it). Nothing follows it in
    its block but the terminator: the kernel ends when both roles have.
    kcc-verify-async-protocol runs the regions as concurrent roles (the
    consumer region once per group).
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<1>]>:$producer_warps,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$consumer_warpgroups,
                       I32Attr:$producer_regs, I32Attr:$consumer_regs,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2>]>>:$consumer_groups);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = [{
    `producer` `(` `warps` `=` $producer_warps `,` `regs` `=` $producer_regs
    `)` $producer `consumer` `(` `warpgroups` `=` $consumer_warpgroups `,`
    `regs` `=` $consumer_regs (`,` `groups` `=` $consumer_groups^)? `)`
    $consumer attr-dict
  }];
  let extraClassDeclaration = [{
    /// Consumer groups executing the consumer region (1 without ping-pong).
    unsigned getNumConsumerGroups() {
      return getConsumerGroups() ? *getConsumerGroups() : 1;
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Blackwell tensor memory and tcgen05 (sm_100a)
//===----------------------------------------------------------------------===//

def Kcc_TmemAllocOp : Kcc_Op<"tmem_alloc"> {
  let summary = "allocate TMEM columns for the CTA";
  let description = [{
    Warp 0 allocates `columns` columns of all 128 TMEM lanes
    (tcgen05.alloc.cta_group::1, a power of two in [32, 512]); with
    `relinquish` it then gives up the CTA's permit to allocate more
    (tcgen05.relinquish_alloc_permit: the kernel's last allocation). The
    address reaches every thread through shared memory and a CTA barrier.
    Executed by every thread, once, before any tcgen05 op; every path to the
    kernel's end must free it with kcc.tmem_dealloc
    (kcc-verify-async-protocol checks both).
  }];
  let arguments = (ins UnitAttr:$relinquish);
  let results = (outs Kcc_Tmem:$tmem);
  let assemblyFormat = "(`relinquish` $relinquish^)? attr-dict `:` type($tmem)";
}

def Kcc_TmemDeallocOp : Kcc_Op<"tmem_dealloc"> {
  let summary = "free a TMEM allocation";
  let description = [{
    Executed by every thread: a CTA barrier (every tcgen05.ld of the
    allocation has completed), then warp 0 frees it
    (tcgen05.dealloc.cta_group::1). No tcgen05.mma writing it may be in
    flight.
  }];
  let arguments = (ins Kcc_Tmem:$tmem);
  let assemblyFormat = "$tmem attr-dict `:` type($tmem)";
}

def Kcc_Tcgen05MmaOp : Kcc_Op<"tcgen05_mma"> {
  let summary = "D (in TMEM) = A x B (+ D) on Blackwell tensor cores";
  let description = [{
    `d = a x b + (accumulate ? d : 0)` where A (128 x K) is stage `a_stage`
    of `a` and B (K x N) is stage `b_stage` of `b`, both landed by TMA with
    the 128-byte swizzle (the stages kcc.warpgroup_mma reads; `a_k_major` and
    `b_k_major` as there), and D is the 128 x N accumulator at the start
    of `tmem` (lane r holds row r, column c of the allocation column c): f32
    for f16/bf16 operands, i32 for i8 ones (both K-major). One thread issues
    one tcgen05.mma.cta_group::1 per 32 bytes of K (kind::f16: 16 elements,
    kind::i8: 32); the first uses `accumulate`, the rest accumulate. The op is
    asynchronous: it reads both stages and writes D until a later
    kcc.tcgen05_commit's mbarrier phase completes, and a wait observing that
    phase retires it (and everything issued before it).
  }];
  let arguments = (ins Kcc_Smem:$a, I32:$a_stage, Kcc_Smem:$b, I32:$b_stage,
                       Kcc_Tmem:$tmem, I1:$accumulate, BoolAttr:$a_k_major,
                       BoolAttr:$b_k_major);
  let assemblyFormat = [{
    $a `[` $a_stage `]` `,` $b `[` $b_stage `]` `,` $tmem `,` $accumulate
    attr-dict `:` type($a) `,` type($b) `,` type($tmem)
  }];
  let hasVerifier = 1;
}

def Kcc_Tcgen05CommitOp : Kcc_Op<"tcgen05_commit"> {
  let summary = "arrive on an mbarrier once the issued tcgen05.mma complete";
  let description = [{
    The thread that issued the kcc.tcgen05_mma ops makes one arrival on
    mbarrier `index` of `bars` when every tcgen05.mma it issued before has
    completed (tcgen05.commit.cta_group::1.mbarrier::arrive::one): a wait
    observing that phase may then reuse their stages and read D.
  }];
  let arguments = (ins Kcc_MBarrier:$bars, I32:$index);
  let assemblyFormat = "$bars `[` $index `]` attr-dict `:` type($bars)";
}

def Kcc_TmemLoadOp : Kcc_Op<"tmem_load"> {
  let summary = "read a tcgen05 accumulator from TMEM into registers";
  let description = [{
    Every thread reads its row of the 128 x N f32 or i32 accumulator at the start
    of `tmem` into the #kcc.tmem_acc layout (tcgen05.ld.sync.aligned.32x32b,
    32 columns per instruction, then tcgen05.wait::ld). Each warp's address
    names its own quarter of the lanes and is the same in all its threads;
    the verifier checks the layout keeps every warp inside its quarter.
  }];
  let arguments = (ins Kcc_Tmem:$tmem);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = "$tmem attr-dict `:` type($tmem) `->` type($result)";
  let hasVerifier = 1;
}

#endif // KCC_ASYNC_OPS_TD
