//===- Passes.td - kcc tile IR and layout passes -----------*- tablegen -*-===//
#ifndef KCC_PASSES_TD
#define KCC_PASSES_TD

include "mlir/Pass/PassBase.td"

// Passes are added here, one file each (see passes/*.cpp). A pass that needs
// a target model takes it by name: its `target` option, else the module's
// kcc.target, looked up in the kcc dialect's registry (ir/TargetLookup.h).

def KccSynthesizeTileAccesses
    : Pass<"kcc-synthesize-tile-accesses", "mlir::ModuleOp"> {
  let summary = "Lift tiles of pointers that address a strided box to "
                "load_tile/store_tile (descriptor synthesis)";
  let description = [{
    Tile IR -> tile IR, before kcc-rasterize-programs. In a kernel with a
    `kcc.dot`, a `kcc.load`/`kcc.store` of a 1-D or 2-D tile of pointers
    whose address is `base + sum_d (q_d * S_d + arange(0, S_d)) * stride_d`
    (S_d the tile's size, innermost stride 1, `base` a pointer parameter,
    the outer strides i32 kernel arguments or constants, q_d provably
    non-negative) and whose mask is a conjunction of `index_d < bound_d` over
    the same indices (bounds i32 kernel arguments or constants; a dimension
    without one is unbounded) becomes the `kcc.load_tile`/`kcc.store_tile`
    of the tensor (base, sizes = bounds, strides) at block coordinates q_d,
    with the load's `other`. It gets `kcc.lifted` (what it reads, for
    --report) and, where the declared facts do not make a TMA tensor map
    legal for every launch (align(16) base, row pitch a multiple of 16
    bytes), `kcc.tma_refused`. What does not lift gets `kcc.lift_refused`
    (why, in .kc terms). The address ops left unused are erased.
  }];
}

def KccRasterizePrograms : Pass<"kcc-rasterize-programs", "mlir::ModuleOp"> {
  let summary = "Launch the 2-D grid of a group(N) kernel as a 1-D grid in "
                "grouped order";
  let description = [{
    Tile IR -> tile IR, right after the frontend. In each function with a
    `kcc.program_grid %gx, %gy {group = N}` marker (a kernel with
    group(N)), program b of a 1-D launch of gx * gy programs runs the 2-D
    program g = b / (N*gx), size = min(gy - g*N, N),
    program_id(1) = g*N + (b % (N*gx)) % size,
    program_id(0) = (b % (N*gx)) / size: program_id(0)/(1) and
    num_programs(0)/(1) (%gx, %gy) are replaced, kcc.grid becomes
    ["((gx) * (gy))", "1", "1"] and the marker is erased (kcc.raster_group
    stays on the function). Functions without a marker are untouched.
    With `persistent=N` (N > 0) each such function also gets a persistent
    build, @<name>__persistent {kcc.persistent = N, kcc.persistent_of =
    @<name>}, placed after it: its program ids are computed from the
    induction variable t of an scf.for {kcc.persistent_tiles} that runs the
    rest of the body for t = launch id, launch id + launch extent, ...
    < gx * gy (the launch caps its x extent at N CTAs per multiprocessor,
    and runs it instead of @<name> when the grid has more tiles than that).
    With `cluster=2` the one-program-per-tile build (not the persistent one)
    of a kernel that reads no memory it writes and has no atomics is
    launched as 2-CTA clusters {kcc.cluster = 2}: cluster c = b / 2 runs the
    grouped order over (gx, cdiv(gy, 2)) with group max(N / 2, 1), and
    its CTA r = b % 2 takes program_id(1) = min(2 * row + r, gy - 1) (an odd
    gy's last CTA computes its partner's tile again, and stores the same
    values), program_id(0) the cluster's column; kcc.grid counts gx *
    2 * cdiv(gy, 2) programs. kcc-multicast-tma-loads then shares what the
    two CTAs load alike. A kernel that does not qualify gets
    `kcc.cluster_refused` (why) instead.
    Paired tiles: where the trip counts of the kernel's loops grow or shrink
    along x alone (kcc::tileWorkAlongX) and a tile may run twice, the
    persistent build's loop runs t < 2 * cdiv(gx, 2) * gy: blocks of
    2 * extent tiles hold `extent` slots, a slot's two tiles are x = i and
    its mirror gx - 1 - i (the longer first), and CTA b runs both tiles of
    slot b of each block; the loop gets kcc.paired_tiles (the source
    location of the loop that made the tiles uneven).
  }];
  let options = [
    Option<"persistent", "persistent", "unsigned", /*default=*/"0",
           "CTAs per multiprocessor of a persistent launch (0: one program "
           "per tile)">,
    Option<"cluster", "cluster", "unsigned", /*default=*/"0",
           "CTAs per cluster of the one-program-per-tile build (0 or 1: no "
           "clusters; 2: pairs along the grid's second axis)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def KccVersionLaunchBranches
    : Pass<"kcc-version-launch-branches", "mlir::ModuleOp"> {
  let summary = "Compile a kernel once per branch of an if the launch "
                "decides";
  let description = [{
    Tile IR -> tile IR, before kcc-rasterize-programs. The frontend marks an
    scf.if at the top of a kernel body with kcc.launch_guard when its
    condition compares only integer parameters, dim(x, k) and constants
    (what the host evaluates exactly as the kernel does) and both branches
    hold tile operations or loops. For the first such if of each kernel, the
    kernel gets a copy, @<name>__else {kcc.version_of = @<name>,
    kcc.version_guard = the mark}, placed after it, that keeps the else
    branch; the kernel keeps the then branch. Every later pass treats the
    copy as a kernel of its own (persistent and fallback builds included);
    the launch stub runs it when the guard is false, with the same
    arguments, so neither build pays the other branch's registers. Other
    marks are dropped.
  }];
}

def KccVersionFullLaunches
    : Pass<"kcc-version-full-launches", "mlir::ModuleOp"> {
  let summary = "Compile a kernel without the masks its launch decides, and "
                "with them for the launches that need them";
  let description = [{
    Tile IR -> tile IR, after kcc-version-launch-branches, before
    kcc-rasterize-programs. The conjunction terms of a kernel's
    kcc.load/kcc.store masks that compare index tiles built from aranges,
    constants and splats of i32 parameters (passes/analysis/FullMasks.h)
    are on everywhere for a whole launch or not, by a condition in C over
    the parameters. The kernel gets a copy, @<name>__ragged {kcc.version_of
    = @<name>, kcc.version_guard = {guard = the condition (and the guard of
    the kernel's own else-branch build, which now versions the copy), when,
    at, masks}, kcc.masks_ragged}, placed after it, that keeps the masks;
    in the kernel the terms are true and the masks they make all on are
    dropped. The launch stub runs the copy where the condition is false.
  }];
}

def KccAddFallbackBuilds : Pass<"kcc-add-fallback-builds", "mlir::ModuleOp"> {
  let summary = "Give kernels over tensor<> parameters a build for tensors "
                "outside the tensor contract";
  let description = [{
    Tile IR -> tile IR, after kcc-rasterize-programs. Each kernel with
    tensor<> parameters (arguments with kcc.tensor_rank) gets a copy,
    @<name>__fallback {kcc.fallback_of = @<name>}, placed after it, in which
    the tensor contract's facts are gone: a tensor base keeps a kcc.align
    only above 16 (one the user declared), else the element's size; the
    strides lose kcc.divisibility. kcc.variant_of/kcc.variant_only are
    dropped from the copy (it is launched by its kernel's launch, never
    ranked). Persistent builds get no copy of their own. kcc-add-tensor-maps
    leaves the copies without tensor maps, so their accesses take the vector
    path; the launch stub runs a copy when the given tensors break the
    contract (a base not 16-byte aligned, a row stride that is negative or
    not a multiple of 16 bytes).
  }];
}

def KccAddSplitKBuilds : Pass<"kcc-add-split-k-builds", "mlir::ModuleOp"> {
  let summary = "Give GEMM-shaped kernels split-K builds for grids too small "
                "to fill the GPU";
  let description = [{
    Tile IR -> tile IR, after kcc-add-fallback-builds. A kernel (not a
    persistent or fallback build) whose entry block holds one scf.for with
    products, carrying one 2-D f32 accumulator that starts at zeros and is
    updated by kcc.dot chains alone (other iter_args only feeding their own
    next value, results unused), with bounds computed from i32
    parameters and constants and a positive constant step, that writes
    memory only with one kcc.store_tile of a tile of the accumulator's shape
    after the loop (its position known before the loop), and whose grid
    has no third axis, gets two copies placed after it, both
    {kcc.split_k_of = @<name>} with the arguments kcc_ws (a tensor<f32, 2>:
    kcc_ws_dim0, kcc_ws_dim1, kcc_ws_stride0) and kcc_splits appended:
    @<name>__splitk {kcc.split_k = {role = "partial", trips, rows, cols,
    store}}
    runs on grid z = kcc_splits, split z iterating [z*c, min(T, z*c + c))
    of the T iterations (c = ceil(T / S)) and storing its accumulator to
    the workspace tile (z * ceil(rows / BM) + row, col) in place of the
    epilogue; @<name>__splitk_reduce {kcc.split_k = {role = "reduce"}}
    replaces the loop by the sum, split 0 first, of those S tiles and keeps
    the epilogue. `trips` (T), `rows` (the output's rows rounded up to a
    whole tile) and `cols` are C over the parameter names and `store` the
    bytes of an f32 partial tile over those the loop's loads read per
    iteration, for the launch stub, which runs the pair instead of the kernel when the grid is too
    small for the GPU and sizes the workspace S * rows x cols. Other
    kernels with products get kcc.split_k_refused (why). Every location of
    a copy is tagged (KernelBuilds.h): a target that cannot compile it
    drops the pair.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def KccVersionFullMasks : Pass<"kcc-version-full-masks", "mlir::ModuleOp"> {
  let summary = "Run code whose mask terms are all on without the masks";
  let description = [{
    Tile IR -> tile IR, after kcc-expand-tile-accesses and
    kcc-rematerialize-broadcasts, before layout assignment. In each block of
    a kernel (loop bodies first) whose ops are memory-bound tile code (no
    dot, no async copy, barrier or pipeline), the conjunction terms of the
    kcc.load/kcc.store masks that compare index tiles (aranges, splats of
    i32 scalars, +, - and * by constants, through broadcasts) or splat an
    i1 scalar are decided for the whole tile: a comparison of the index's
    largest or smallest element, computed in i64 together with checks that
    the tile's i32 arithmetic did not wrap. The code from the last input of
    those terms to the end of the block becomes scf.if {kcc.full_masks}
    (all terms on) { a copy with the terms replaced by true and all-on masks
    dropped } else { the code as written }. The condition is uniform, so
    neither copy diverges; the block's terminator takes the if's results.
  }];
}

def KccRematerializeBroadcasts
    : Pass<"kcc-rematerialize-broadcasts", "mlir::ModuleOp"> {
  let summary = "Compute broadcast index math at the broadcast's shape "
                "instead of moving it through shared memory";
  let description = [{
    Tile IR -> tile IR, before layout assignment. A 2-D `kcc.broadcast` of a
    row or column computed from splats, splat constants, aranges and
    elementwise ops (arith, kcc.addptr) through expand_dims is replaced by
    the same ops at the full shape, down to the leaves: splats and constants
    of the full shape, and `kcc.broadcast(kcc.expand_dims(kcc.arange))`,
    which the lowering computes per element from its coordinate. A
    `kcc.load` in the source is issued again at the full shape when no op
    between it and the broadcast may write memory, in kernels without a
    `kcc.dot` (a bias broadcast into an accumulator has its own path). Other broadcasts (of
    reductions, loop-carried values) are kept; so is a source of more than
    32 ops.
  }];
}

def KccAssignLayouts : Pass<"kcc-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tile of a kernel a #kcc.blocked layout and "
                "annotate vectorizable loads and stores";
  let description = [{
    Tile IR -> layout IR. In each `kcc.kernel` function every ranked tensor
    gets `#kcc.blocked<vec = V, threads = T, warp = W>`: T = num_warps * W is
    shared by the kernel, and tiles with the same number of elements share one
    encoding (tiles linked by kcc.reduce too, as its verifier requires). V is
    the widest access width proven (AxisInfo) for the loads/stores of that
    element-count class, at least 1. Each tile load/store gets
    `kcc.access_width = K` (i32): K consecutive elements per vector memory
    instruction. The function gets `kcc.num_warps` (kept if already present).
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"0",
           "Warps per CTA (0: choose from the largest tile)">,
    Option<"warpSize", "warp-size", "unsigned", /*default=*/"32",
           "Lanes per warp of the target (32 or 64)">,
    Option<"maxVectorBytes", "max-vector-bytes", "unsigned", /*default=*/"16",
           "Widest vector memory access of the target, in bytes">,
    Option<"maxThreadsPerBlock", "max-threads-per-block", "unsigned",
           /*default=*/"1024", "Most threads a CTA / workgroup may have">,
    Option<"maxElemsPerThread", "max-elems-per-thread", "unsigned",
           /*default=*/"128",
           "Most elements of one tile a thread may hold in registers">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per tile load/store explaining its access width">,
  ];
}

def KccProveTileCoverage : Pass<"kcc-prove-tile-coverage", "mlir::ModuleOp"> {
  let summary = "Prove with isl that each tensor's store_tile boxes cover it "
                "exactly once; record the launch guards where they do only "
                "for some sizes";
  let description = [{
    Tile IR, before lowering. For each tensor a kernel writes with
    store_tile: the union over programs, loop iterations and branches of the
    stores' boxes, clipped to the tensor, must be the whole tensor (else the
    sizes for which it is become `guard`, a C expression the stubs check at
    launch, or it is an error if no non-empty size is covered), and no
    element may be written by two programs (an error). The result is the
    kernel attribute `kcc.coverage`: one dictionary per tensor with
    `tensor`, `stores` and, where coverage depends on the sizes, `guard` (C)
    and `when` (the same for people); or `unproven` with the reason when the
    code is not quasi-affine and `unproven=warning`.
  }];
  let options = [
    Option<"unproven", "unproven", "std::string", /*default=*/"\"error\"",
           "What a tensor whose coverage cannot be proven is: error or "
           "warning">,
    Option<"maxOperations", "max-operations", "unsigned long",
           /*default=*/"2000000",
           "isl's operation budget per kernel (then: unproven)">,
  ];
}

def KccAddTensorMaps : Pass<"kcc-add-tensor-maps", "mlir::ModuleOp"> {
  let summary = "Give kernels one !kcc.tensormap argument per (tensor, box) "
                "that load_tile/store_tile can copy with TMA on every given "
                "target";
  let description = [{
    Tile IR -> tile IR, once per input on the tile IR that a fatbin's NVIDIA
    targets with TMA share, before any per-target pass (so before kcc.target
    is set: `targets` names the models). Appends to each kernel (but the
    fallback builds of kcc-add-fallback-builds, kcc.fallback_of) one
    !kcc.tensormap argument per (tensor parameter, box, element type) that a
    load_tile/store_tile could copy with TMA on every given target, judged on
    the compile-time half of the TMA rules (passes/analysis/TensorMaps.h);
    each carries `kcc.tensor_map_of`, the index of its tensor's base-pointer
    argument. The launch stubs encode the maps from the tensors' bases, sizes
    and strides and pass them after the user's parameters, so the argument
    list is the same for every target of the fatbin. Loads feeding a dot that
    some target runs from 128-byte swizzled stages (wgmma, tcgen05), and the
    store of such a dot's C tile, get that box and `kcc.mma_operand`.
    Accesses that get no map carry `kcc.tma_refused` with the reason, and
    dots that miss a target's main tensor-core instruction
    `kcc.tensor_core_refused` (target -> reason); --report shows both.
  }];
  let options = [
    ListOption<"targetNames", "targets", "std::string",
               "Target models the maps must suit, by name (kcc passes its "
               "NVIDIA targets with TMA; none: no maps)">,
  ];
}

def KccCheckTargetSupport : Pass<"kcc-check-target-support", "mlir::ModuleOp"> {
  let summary = "Refuse operations the target cannot compile, at their "
                "source location";
  let description = [{
    Per target, first in the layout pipeline. An operation the target has
    no instructions for is an error at its source location instead of a
    failure deep in the lowering. Today that is a dot on an element type that
    none of the target model's [mma] shapes takes (f32 counts as tf32 on
    NVIDIA tensor cores, i8 as s8); the error names the element types that
    would work. Such a dot is refused even though the CUDA-core FMA lowering
    could compute it, so that whether a kernel compiles for a target does not
    depend on which path its dots take. Also refused: scope=system atomics
    on NVIDIA targets, which LLVM 22's NVPTX backend cannot emit; and on
    NVIDIA targets a kernel whose launch parameters (each at its natural
    alignment, a !kcc.tensormap 128 bytes aligned to 64) exceed what ptxas
    accepts: 4352 bytes up to PTX ISA 8.0, 32764 from 8.1 (the model's
    ptx_isa).
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model by name (empty: the module's kcc.target)">,
  ];
}

def KccMaterializeTmaCopies : Pass<"kcc-materialize-tma-copies", "mlir::ModuleOp"> {
  let summary = "Rewrite load_tile/store_tile with a tensor map into TMA "
                "copies, mbarriers and shared-memory stages";
  let description = [{
    Per target, in the layout pipeline after kcc-check-target-support. Each
    tile access outside loops that has a tensor-map argument
    (kcc-add-tensor-maps) becomes a TMA copy in the async IR
    (ir/KccAsyncOps.td):

      load_tile  -> expect_tx(full box bytes) + tma_load into a shared
                    stage, then, right before the first use,
                    mbarrier_wait + smem_load
      store_tile -> smem_store into a stage, fence_proxy_async,
                    cta_barrier, tma_store + bulk_commit_group;
                    bulk_wait_group 0 (read) before the kernel returns

    Each load has its own mbarrier, initialized once at kernel entry.
    Accesses the pass does not take keep `kcc.tma_refused` with the reason
    (--report shows it) and become vector accesses in
    kcc-expand-tile-accesses: every access on a target without TMA, loads
    whose `other` is not zero (TMA fills with zeros), stores in loops and
    accesses nested deeper than a for loop's body, accesses in a branch of a
    persistent kernel's tile loop, swizzled MMA operand tiles whose dot does
    not use the tensor cores on this target, and accesses without a tensor
    map. Loads directly in an scf.for body are left to
    kcc-pipeline-tma-loads. kcc-verify-async-protocol proves the result.
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model by name (empty: the module's kcc.target, or sm_90a "
           "if it has none)">,
  ];
}

def KccPipelineTmaLoads : Pass<"kcc-pipeline-tma-loads", "mlir::ModuleOp"> {
  let summary = "Software-pipeline the TMA loads of scf.for bodies over N "
                "shared stages";
  let description = [{
    Per target with TMA, in the layout pipeline after
    kcc-materialize-tma-copies. The load_tile ops directly in an scf.for
    body that have a tensor map become TMA copies over S shared stages with
    one mbarrier each, S - 1 copies in flight while an iteration computes;
    kcc-verify-async-protocol proves the protocol. S is `stages`, lowered
    (not below 2) until the stages fit the target model's shared memory per
    block less the kernel's other TMA buffers and a reserve for its
    relayout/reduction scratch; a loop whose two stages do not fit keeps
    vector loads. Loops qualify when their bounds are computed from
    constants, the kernel's integer arguments, program ids and a persistent
    kernel's tile index (a causal bound), the step is a positive
    constant and the loads' coordinates come from the induction variable and
    loop-invariant values; others keep vector loads, with the reason in
    `kcc.tma_refused`.

    With `warp-specialize`, a loop whose loads feed wgmma on a target with
    [warp_specialization] gets a producer warpgroup that issues the copies
    while consumer warpgroups compute (`kcc.warp_specialize_refused` on the
    loop says why not). With `chunk-epilogues`, an MMA accumulator's TMA
    store goes out in column chunks when its whole-tile stage would cost the
    loop a pipeline stage (pipeliner/EpilogueChunks.h).
  }];
  let options = [
    Option<"stages", "stages", "unsigned", /*default=*/"3",
           "Pipeline depth (shared stages)">,
    Option<"streamBytes", "stream-bytes", "unsigned", /*default=*/"32768",
           "Bytes a streaming loop (tiles read by threads, no tensor-core "
           "operand) keeps in flight: more stages than `stages`, at most 8, "
           "for stages of 4 KiB or more (0: `stages`)">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"true",
           "Split loops whose loads feed wgmma into a producer warpgroup and "
           "consumer warpgroups where the target model has "
           "[warp_specialization]">,
    Option<"pingPong", "ping-pong", "bool", /*default=*/"false",
           "Warp-specialized persistent kernels whose tile's accumulator fits "
           "one warpgroup run two consumer groups on alternate tiles, one's "
           "epilogue beside the other's K loop">,
    Option<"prefetchTileLoads", "prefetch-tile-loads", "bool",
           /*default=*/"true",
           "In a warp-specialized persistent kernel the producer issues the "
           "once-per-tile loads (attention's query block) a tile ahead">,
    Option<"chunkEpilogues", "chunk-epilogues", "bool", /*default=*/"true",
           "Copy an MMA accumulator's TMA store out in column chunks when its "
           "whole-tile stage would cost the loop a pipeline stage">,
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model whose shared memory bounds the stages, by name "
           "(empty: the module's kcc.target, or sm_90a if it has none)">,
  ];
}

def KccOrderProgramAtomics : Pass<"kcc-order-program-atomics", "mlir::ModuleOp"> {
  let summary = "Order TMA copies around program-wide atomics (async proxy)";
  let description = [{
    After the TMA passes. A program-wide (scalar) atomic with release order
    in a kernel with TMA stores is preceded by kcc.bulk_wait_group 0 (the
    stores complete, not only read) and kcc.fence_proxy_async global; one
    with acquire order in a kernel with TMA loads is followed by
    kcc.fence_proxy_async global. Without them the async proxy's traffic
    is not ordered by the atomic: the last-program pattern (partials
    stored by TMA, a ticket drawn, the last program loading them by TMA)
    could read stale partials.
  }];
}

def KccPipelineAsyncCopies : Pass<"kcc-pipeline-async-copies", "mlir::ModuleOp"> {
  let summary = "Software-pipeline the dot operand loads of scf.for bodies "
                "over N shared stages with cp.async";
  let description = [{
    Per target, in the layout pipeline after the TMA passes; a no-op on
    targets without cp.async. The load_tile ops of an scf.for body that
    feed dots (directly or through trans), on sm_80 all of them and on
    sm_90a/sm_100a those the TMA passes left, are copied with cp.async into
    S shared stages whose rows are padded by 16 bytes (so ldmatrix reads
    them without bank conflicts), S - 1 iterations' copies in flight while
    one computes; each thread's cp.async groups are the protocol, which
    kcc-verify-async-protocol proves. Elements outside the tensor land as
    zeros, so ragged edges need no other code. S is `stages`, lowered (not
    below 2) until the stages fit the target model's shared memory per
    block next to the kernel's other buffers and scratch. Loads that do not
    qualify keep vector loads, the reason added to `kcc.tma_refused`
    (--report shows it).
  }];
  let options = [
    Option<"stages", "stages", "unsigned", /*default=*/"3",
           "Pipeline depth (shared stages)">,
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model whose shared memory bounds the stages, by name "
           "(empty: the module's kcc.target, or sm_80 if it has none)">,
  ];
}

def KccMaterializeWarpMma : Pass<"kcc-materialize-warp-mma", "mlir::ModuleOp"> {
  let summary = "Put f16/bf16 dots with an f32 accumulator on mma.sync "
                "(NVIDIA) or MFMA (AMD) matrix cores";
  let description = [{
    Per target, in the layout pipeline after kcc-expand-tile-accesses and
    before kcc-assign-layouts. Puts dots on the warp/wave-level matrix
    instructions whose operands are registers: mma.sync.m16n8k16 on sm_80,
    whose [mma] instruction it is, and on later targets that list it as
    `mma_sync` (the dots their main instruction did not take);
    v_mfma_f32_16x16x16{f16,bf16} on gfx90a and gfx942 ([mma] mfma). A
    qualifying dot keeps its register operands, and its accumulator web (the
    dot's accumulator and result, the scf.for links that carry it, its splat
    initialization, a lone elementwise epilogue) gets #kcc.wgmma_acc
    (mma.sync) or #kcc.mfma_acc (MFMA). Each dot is marked `kcc.mma` with the instruction, or
    `kcc.mma_refused` with why it stays on the CUDA/SIMD cores (--report
    shows both). The accumulator is laid out over the kernel's
    kcc.num_warps if it has one, else over `num-warps` if given, else over
    the warpgroups (waves) the dots' rows call for. A no-op on other
    targets.
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model by name (empty: the module's kcc.target, or sm_80 "
           "if it has none)">,
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"0",
           "Warps per CTA when a kernel has no kcc.num_warps (kcc "
           "--num-warps; 0: chosen from the accumulator)">,
  ];
}

def KccExpandTileAccesses : Pass<"kcc-expand-tile-accesses", "mlir::ModuleOp"> {
  let summary = "Rewrite load_tile/store_tile into masked pointer accesses";
  let description = [{
    Tile IR -> tile IR. Each block-coordinate access of a strided tensor
    becomes addptr + a masked load (out-of-tensor elements read `other`, or
    0) or a masked store (clipped at the tensor's edge).
  }];
  let options = [
    Option<"tmaReason", "tma-reason", "std::string",
           /*default=*/"\"the pass was run directly\"",
           "Why the access is not a TMA copy (kept in kcc.tile_access)">,
  ];
}

def KccMaterializeWarpgroupMma : Pass<"kcc-materialize-warpgroup-mma", "mlir::ModuleOp"> {
  let summary = "Turn dots whose operands sit in 128-byte swizzled TMA "
                "stages into kcc.warpgroup_mma (Hopper wgmma)";
  let description = [{
    Runs after the TMA passes. A kcc.dot whose operands are smem_loads (or
    their transposes) of stages that kcc-add-tensor-maps gave the wgmma
    operand box becomes kcc.warpgroup_mma reading the stages directly. The
    accumulator, the loop that carries it and its zero initialization get
    the #kcc.wgmma_acc layout; kcc.convert_layout moves it into the
    #kcc.blocked layout where other ops use it. The kernel gets
    kcc.num_warps = 4 per warpgroup (two warpgroups when M >= 128).
  }];
}

def KccMulticastTmaLoads : Pass<"kcc-multicast-tma-loads", "mlir::ModuleOp"> {
  let summary = "Share the TMA loads that a cluster's CTAs make alike through "
                "one multicast copy";
  let description = [{
    Runs after the wgmma materialization on targets with TMA multicast
    (sm_90a), on kernels that kcc-rasterize-programs launched as clusters
    (kcc.cluster = N). In a kcc.warp_specialize whose pipeline runs under
    control flow the cluster's CTAs take alike, a producer's kcc.tma_load
    whose coordinates are equal in every CTA of the cluster (computed from
    arguments, constants, loop counters and the cluster's index, not from
    the CTA's rank) gets `multicast = N`: the CTAs copy its parts for each
    other. The barriers the producer waits on before refilling a stage
    (the stage-empty barriers) then count the releases of every CTA's
    consumers (init counts times N, `kcc.mbarrier_arrive ... cluster`),
    since a peer's copy overwrites this CTA's stage. A kcc.cluster_barrier
    after the barrier initialization makes them visible to the peers, and
    one at the end keeps every CTA's shared memory alive until its peers
    are done. A kernel where nothing qualifies keeps its paired order and
    loses kcc.cluster, with the reason in `kcc.cluster_refused`.
    kcc-verify-async-protocol proves the result.
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model name">,
  ];
}

def KccDeferBlockPromotion
    : Pass<"kcc-defer-block-promotion", "mlir::ModuleOp"> {
  let summary = "Promote a K block's wgmma product into the running sum one "
                "iteration late, with the next product in flight";
  let description = [{
    Runs after kcc-materialize-warpgroup-mma (sm_90a). In an scf.for whose
    body issues one kcc.warpgroup_mma P from an accumulator defined outside
    the loop, and only adds P (through elementwise ops: a scale) into one
    loop-carried sum nothing else reads (FP8 block scales: `acc = acc +
    dot(a, b) * s`), P_k is promoted in iteration k + 1 after P_{k+1} is
    issued, so the tensor cores run one product while the promotion of the
    one before runs. The loop runs two iterations per trip (the two
    products alternate between two register sets; only the second is
    carried in flight), with an even trip count's first iteration run as it
    was, the first product issued before the loop and the last promoted
    after it; `kcc.warpgroup_mma_wait` retires each product before its
    promotion, and kcc-verify-async-protocol proves that no stage is
    refilled while a product reads it. What the promotion reads besides
    (the row scale) is carried from its iteration. Not done where the sum
    and two products would exceed the consumer's registers less 48 (the
    product's `kcc.defer_refused` attribute says so), nor where the row
    scale is relaid through shared memory; other loops are left as they
    are. kcc runs it with `--late-promotion` only: on an H200 it measured
    within 5 % of promoting in the iteration, either way (the loop is then
    bound by its TMA loads; docs/gemm.md "FP8").
  }];
}

def KccDeferRegisterAMma : Pass<"kcc-defer-register-a-mma", "mlir::ModuleOp"> {
  let summary = "Issue a loop's register-A wgmma one iteration late, beside "
                "the next iteration's row-wise work";
  let description = [{
    Runs after kcc-materialize-warpgroup-mma (sm_90a). In an scf.for whose
    body issues a kcc.warpgroup_mma S and then a kcc.warpgroup_mma_reg_a R
    whose register A operand is computed from S (attention: S = Q K^T, the
    softmax, O += P V), R moves one iteration later: iteration j issues
    S_j, then R_{j-1} (its A operand and accumulator carried by the loop,
    its B stage the previous iteration's), and runs the work between S and
    R (the softmax of S_j) while the tensor cores compute R_{j-1}
    (FlashAttention-3's intra-warpgroup overlap). The first iteration's
    work before R is peeled in front of the loop, the last R after it; the
    waits retire S before its first reader and R before its accumulator's
    (`kcc.warpgroup_mma_wait`), and kcc-verify-async-protocol proves that
    no stage is refilled while R reads it. Not done where the tiles the
    deferral keeps live together (R's accumulator, S, one P) would exceed
    the consumer's registers less 48. Loops of any other shape are left as
    they are.

    When two consumer warpgroups share the loop (a 128-row accumulator,
    one group), they may take turns issuing S_j and R_{j-1}
    (kcc.warpgroup_turn: named barriers), so the tensor cores run one
    warpgroup's products while the other runs its softmax
    (FlashAttention-3's ping-pong). `turns`: `auto` (the default) takes
    turns where S has at least 128 columns (measured faster there on an
    H200, slower with 64: docs/attention.md), `on` / `off` always / never.
    The register-A product's `kcc.turns` attribute says which and why.
  }];
  let options = [
    Option<"turns", "turns", "std::string", /*default=*/"\"auto\"",
           "Whether two consumer warpgroups sharing a deferred loop take "
           "turns issuing its products: auto, on or off">,
  ];
}

def KccMaterializeTcgen05Mma : Pass<"kcc-materialize-tcgen05-mma", "mlir::ModuleOp"> {
  let summary = "Turn dots whose operands sit in 128-byte swizzled TMA "
                "stages into kcc.tcgen05_mma with a TMEM accumulator "
                "(Blackwell)";
  let description = [{
    Runs after the TMA passes on targets whose tensor-core instruction is
    tcgen05.mma. The K loop's accumulator moves into a TMEM allocation
    (kcc.tmem_alloc at entry, kcc.tmem_dealloc at the end): each iteration
    issues kcc.tcgen05_mma and commits it to a per-stage mbarrier, and waits
    for the previous iteration's commit before the pipeliner refills that
    stage; after the loop a last commit and wait make the accumulator
    complete and kcc.tmem_load reads it into the #kcc.tmem_acc layout. The
    kernel gets kcc.num_warps = 4 per warpgroup (two when N >= 128).
  }];
}

def KccVerifyAsyncProtocol : Pass<"kcc-verify-async-protocol", "mlir::ModuleOp"> {
  let summary = "Prove the async protocol (mbarriers, tx bytes, stages, "
                "bulk groups, proxy fences) of every kernel before code emission";
  let description = [{
    Typestate verification of the layout+effects IR (ir/KccAsyncOps.td):
    mbarrier life cycle, phases, parities and transaction bytes; stage
    states (in flight, full, in use, released); proxy fences between
    smem_store and tma_store; bulk async-groups; and what is still pending
    when the kernel ends. Each function with async ops is executed in
    program order with exact integer arithmetic; integer arguments that
    steer loops, branches, indices or parities are tried over
    representative values and a failure names the value ("with n = 1").
    Each violation is an error at the offending op's source location, with
    notes at the ops it conflicts with and a sentence saying what to change.
    What the verifier cannot evaluate is a "cannot prove" error, never a
    silent accept. See VerifyAsyncProtocol.cpp for the rules and limits.
    With `generated` (kcc's own pipeline: the protocol is what kcc built
    from a .kc kernel, which has no async ops), a failure is reported as
    kcc's, in the kernel's terms: the ops are described, not named, and the
    advice is how to compile the kernel without the asynchronous pipeline.
  }];
  let options = [
    Option<"generated", "generated", "bool", /*default=*/"false",
           "The protocol was generated by kcc from a .kc kernel">,
  ];
}

def KccPlanLaneExchanges : Pass<"kcc-plan-lane-exchanges", "mlir::ModuleOp"> {
  let summary = "Choose the cross-lane exchanges of wave-reduction "
                "butterflies from the target model's costs";
  let description = [{
    Layout IR -> layout IR, last pass of the layout pipeline. Plans the
    butterfly across the lanes of a warp or wave with the cheapest exchange
    instruction per step and the cheapest order of the lane bits (the target
    model's [lane_exchange] costs: targets/LaneExchange.h), and records it
    on every 1-D `kcc.reduce` as `kcc.butterfly`, which the lowering emits
    and --report shows. A model that lacks the exchanges a butterfly needs
    is an error only for kernels that reduce.
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model whose exchanges and costs to use, by name (empty: "
           "the module's kcc.target, or sm_90a if it has none)">
  ];
}

#endif // KCC_PASSES_TD
