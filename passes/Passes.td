//===- Passes.td - kcc tile IR and layout passes -----------*- tablegen -*-===//
#ifndef KCC_PASSES_TD
#define KCC_PASSES_TD

include "mlir/Pass/PassBase.td"

// Passes are added here, one file each (see passes/*.cpp).

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

def KccTestPrintAxisInfo : Pass<"kcc-test-print-axis-info", "mlir::ModuleOp"> {
  let summary = "Test pass: emit AxisInfo facts as remarks";
  let description = [{
    For every integer or pointer result of every op in every function, emits
    a remark `contiguity = [...], divisibility = [...], constancy = [...]`
    (plus `, constant = N` when known). scf.for induction variables and
    iter_args are reported on the loop with an `iv: ` / `arg #i: ` prefix;
    multi-result ops prefix `result #i: `.
  }];
}

#endif // KCC_PASSES_TD
