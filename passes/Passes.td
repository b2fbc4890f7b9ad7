//===- Passes.td - kcc tile IR and layout passes -----------*- tablegen -*-===//
#ifndef KCC_PASSES_TD
#define KCC_PASSES_TD

include "mlir/Pass/PassBase.td"

// Passes are added here, one file each (see passes/*.cpp).

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
  }];
  let options = [
    Option<"persistent", "persistent", "unsigned", /*default=*/"0",
           "CTAs per multiprocessor of a persistent launch (0: one program "
           "per tile)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
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
  }];
}

def KccPlanLaneExchanges : Pass<"kcc-plan-lane-exchanges", "mlir::ModuleOp"> {
  let summary = "Choose the cross-lane exchanges of wave-reduction "
                "butterflies from the target model's costs";
  let description = [{
    Layout IR -> layout IR. Plans the butterfly across the lanes of a warp
    or wave with the cheapest exchange instruction per step and the cheapest
    order of the lane bits (targets/LaneExchange.h), and records it on every
    1-D `kcc.reduce` as `kcc.butterfly`. kcc uses the compiled target's
    model; from kcc-opt, `target` names a built-in one.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "Built-in target model whose exchanges and costs to use">
  ];
}

#endif // KCC_PASSES_TD
