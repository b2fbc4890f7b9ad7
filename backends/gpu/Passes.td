//===- Passes.td - vendor-neutral lowering passes ----------*- tablegen -*-===//
#ifndef KCC_GPU_PASSES_TD
#define KCC_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of the lowering to the LLVM dialect, one file each; the vendor
// patterns come from backends/nvidia and backends/amd.

def AllocateSharedMemory : Pass<"kcc-allocate-shared-memory",
                                 "mlir::ModuleOp"> {
  let summary = "Place each kernel's shared memory and check it against what "
                "one block may use";
  let description = [{
    Layout IR -> layout IR, right before kcc-convert-to-llvm. Per kernel:
    the scratch of relayouts, reductions and dot operand staging (the largest
    one op needs, at offset 0), then each `smem_alloc`, `mbarrier_alloc` and
    `tmem_alloc` (the slot of its TMEM address) in its own region after it,
    the most aligned first, in program order within an alignment (128-byte
    stages, 1024 with a swizzle; 8 bytes per mbarrier; 4 per slot), recorded
    on the op as `kcc.smem_offset`. The kernel gets `kcc.smem_bytes` (the
    total) and `kcc.smem_alignment` (what its buffers need, at least 16),
    from which kcc-convert-to-llvm creates the buffer.

    A dot whose staging alone does not fit is an error at the dot; a kernel
    whose total does not fit, an error at the kernel naming both numbers and
    the module's `kcc.target`. The limit is `max-shared-bytes` (kcc passes
    the target model's `shared_memory.bytes_per_block`), else that of the
    `vendor`'s built-in model (sm_90a or gfx942).
  }];
  let options = [
    Option<"vendor", "vendor", "std::string", /*default=*/"\"nvidia\"",
           "Target vendor whose built-in model gives the limit when "
           "max-shared-bytes is 0: nvidia (sm_90a) or amd (gfx942)">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", /*default=*/"0",
           "Shared memory one block may use, in bytes (the target model's "
           "shared_memory.bytes_per_block); 0: that of the built-in sm_90a "
           "(nvidia) or gfx942 (amd) model">
  ];
}

def ConvertKccToLLVM : Pass<"kcc-convert-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower layout-assigned kcc kernels to the LLVM dialect plus "
                "NVVM or ROCDL";
  let description = [{
    Every tile (ranked tensor with a `#kcc.blocked` encoding) becomes the
    per-thread registers of that layout (`vector<R x T>`; tiles of pointers
    become `vector<R x i64>` of addresses). `func.func` kernels become
    `llvm.func` with `nvvm.kernel` and `nvvm.maxntid` (NVIDIA) or
    `rocdl.kernel` and `rocdl.flat_work_group_size` (AMD). kcc ops are lowered to
    LLVM/NVVM; arith, math (except the ones lowered to NVVM approximations or
    libdevice calls here), scf stay on converted types and are lowered by the
    upstream passes of the `kcc-lower-to-llvm` pipeline.

    Shared memory, as kcc-allocate-shared-memory placed it (a kernel that
    needs some without its `kcc.smem_bytes` is an error): on NVIDIA a
    kernel's scratch, TMA stages and mbarriers live in dynamic shared memory
    (an external zero-sized addrspace(3) array, 1024-byte aligned: CUDA's
    `extern __shared__`); the byte count is recorded on the kernel as
    `kcc.dynamic_smem_bytes` for the launch. On AMD they are a static LDS
    array of `kcc.smem_bytes` with `kcc.smem_alignment`.
  }];
  let options = [
    Option<"vendor", "vendor", "std::string", /*default=*/"\"nvidia\"",
           "Target vendor: nvidia (NVVM, 32-lane warps) or amd (ROCDL, "
           "64-lane waves)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def ChooseSharedLayouts : Pass<"kcc-choose-shared-layouts", "mlir::ModuleOp"> {
  let summary = "Pad the shared-memory buffers of relayouts with the target's "
                "bank model";
  let description = [{
    Layout IR -> layout IR. For each op that moves a tile through shared
    memory (broadcast, expand_dims, reshape between layouts, trans), tries
    paddings of 4, 8 and 16 bytes after every source row or every bank sweep,
    counts the shared-memory wavefronts of the lowering's accesses under the
    bank model (targets/BankConflicts.h), and records the cheapest in
    `kcc.smem_padding` (nothing when no padding helps; ties: no padding, then
    the smallest buffer), which the lowering and --report read. The geometry
    is the target model's: `target`, else the module's kcc.target. From
    kcc-opt, `vendor` instead picks the built-in NVIDIA (sm_90a) or AMD
    (gfx942 LDS) geometry; without either option or kcc.target, NVIDIA's.
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target model whose bank geometry to use, by name (empty: the "
           "module's kcc.target)">,
    Option<"vendor", "vendor", "std::string", /*default=*/"\"\"",
           "Built-in bank geometry when no target is given: nvidia or amd">
  ];
}

def CheckTileExtents : Pass<"kcc-check-tile-extents", "mlir::ModuleOp"> {
  let summary = "Refuse tiles whose extents the register layouts cannot hold, "
                "at their source location";
  let description = [{
    Layout IR, last in the layout pipeline. Tile extents need not be powers
    of two (docs/language.md, "Tiles"), but a thread-blocked layout's
    lowering computes an element's coordinates from bit fields of its flat
    index, so only power-of-two extents can live there. A tile with another
    extent is accepted in a tensor-core accumulator that its instruction's
    blocks tile evenly (#kcc.wgmma_acc: rows a multiple of 64 per
    warpgroup, columns of 8; #kcc.mfma_acc: 16 x 16 blocks per wave;
    #kcc.tmem_acc: 128 rows, 32-column chunks per warpgroup), and as an
    arange (or its expand_dims) used only by broadcasts into a wgmma
    accumulator, which are computed from each register's coordinates.
    Anything else is an error at the first such tile of the kernel, which
    the variant selection reports as the reason a candidate was pruned.
  }];
}

def AdoptLoopAnnotations : Pass<"kcc-adopt-loop-annotations", "mlir::ModuleOp"> {
  let summary = "Move the loop annotations scf-to-cf left as discardable "
                "attributes into llvm.br's own loop_annotation";
  let description = [{
    scf-to-cf tags a loop's back edge with the discardable attribute
    `llvm.loop_annotation`, and cf-to-llvm copies it onto llvm.br as such,
    where translation ignores it: this moves it into llvm.br's own
    `loop_annotation`, which becomes !llvm.loop metadata (the unroll
    requests of the serial reduction loops).
  }];
}

def ExpandMathFunctions : Pass<"kcc-expand-math-functions", "mlir::ModuleOp"> {
  let summary = "Expand f32 tanh and erf into MLIR's polynomial "
                "approximations (arith and fma)";
  let description = [{
    After kcc-convert-to-llvm has split tiles into each thread's scalars
    and vectors, replaces f32 `math.tanh` and `math.erf` with upstream
    MLIR's polynomial approximations (populatePolynomialApproximateTanh/
    ErfPattern: arith, `math.fma`, `math.absf`, a few ulp on the f32
    range), which every vendor lowers and the simulators execute: no
    libdevice or ocml call. The frontend computes f16/bf16 tanh and erf in
    f32.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // KCC_GPU_PASSES_TD
