//===- KccDialect.td - the kcc tile IR dialect -------------*- tablegen -*-===//
//
// The tile IR: kernels over tiles (builtin ranked tensors) of scalars and
// pointers, with symbolic sizes and no layouts. Elementwise arithmetic, math
// and control flow reuse the upstream arith/math/scf dialects on tensors; this
// dialect adds what they lack: program ids, ranges, pointer arithmetic, masked
// memory access, broadcasting, reductions and matrix products. After layout
// assignment, tensor types carry a `#kcc.blocked` encoding.
//
//===----------------------------------------------------------------------===//

#ifndef KCC_DIALECT_TD
#define KCC_DIALECT_TD

include "mlir/IR/OpBase.td"

def Kcc_Dialect : Dialect {
  let name = "kcc";
  let cppNamespace = "::kcc";
  let summary = "kcc tile IR";
  let description = [{
    Tile-level kernels. A kernel is a `func.func` marked `kcc.kernel`; its
    arguments may carry facts (`kcc.align`, `kcc.divisibility`) that code
    generation may rely on and that the runtime checks at launch.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
    // The target models passes look up by name (ir/TargetLookup.h): the
    // built-in ones unless a tool sets its own, which must outlive the
    // passes it runs.
    const ::kcc::TargetRegistry &getTargetRegistry() const;
    void setTargetRegistry(const ::kcc::TargetRegistry *registry);
    // Discardable attribute names this dialect gives meaning to.
    static constexpr ::llvm::StringLiteral kKernelAttr = "kcc.kernel";
    static constexpr ::llvm::StringLiteral kGridAttr = "kcc.grid";
    // kcc-prove-tile-coverage's result: per stored tensor {tensor, stores,
    // [guard (C), when (text)]} or {tensor, unproven}.
    static constexpr ::llvm::StringLiteral kCoverageAttr = "kcc.coverage";
    static constexpr ::llvm::StringLiteral kAlignAttr = "kcc.align";
    static constexpr ::llvm::StringLiteral kDivisibilityAttr = "kcc.divisibility";
    static constexpr ::llvm::StringLiteral kSpecializationAttr = "kcc.specialization";
    static constexpr ::llvm::StringLiteral kBaseNameAttr = "kcc.base_name";
    static constexpr ::llvm::StringLiteral kNumWarpsAttr = "kcc.num_warps";
    static constexpr ::llvm::StringLiteral kTargetAttr = "kcc.target";
    static constexpr ::llvm::StringLiteral kArgNamesAttr = "kcc.arg_names";
    static constexpr ::llvm::StringLiteral kConstantNamesAttr = "kcc.constant_names";
    // A specialization that is a candidate of specialize clauses leaving
    // tunable constants (NAME: i32 in (...)) to the compiler: {launch name =
    // [the constants it chooses]}; kcc-select-variants keeps, per target,
    // one candidate of each.
    static constexpr ::llvm::StringLiteral kVariantOfAttr = "kcc.variant_of";
    // The kernel's require(...) clauses, an array of dictionaries: guard
    // (C over the integer parameters, as kcc.grid), when (the condition as
    // written), at (file:line:col). The stubs refuse a launch where a guard
    // is false.
    static constexpr ::llvm::StringLiteral kRequiresAttr = "kcc.requires";
    // Only a candidate: no launch function of its own (unit attr).
    static constexpr ::llvm::StringLiteral kVariantOnlyAttr = "kcc.variant_only";
    static constexpr ::llvm::StringLiteral kAccessWidthAttr = "kcc.access_width";
    static constexpr ::llvm::StringLiteral kMaskUniformAttr = "kcc.mask_uniform";
    // On a tile load whose mask is, in every access chunk, on for a
    // prefix or a suffix of it (bounds checks of a contiguous index): the
    // chunk is all on iff its first and last bits are.
    static constexpr ::llvm::StringLiteral kMaskMonotoneAttr = "kcc.mask_monotone";
    // On the scf.if of kcc-version-full-masks: its then region is the code
    // of its else region with the mask terms that the condition proves on
    // everywhere replaced by true (passes/transforms/VersionFullMasks.cpp).
    static constexpr ::llvm::StringLiteral kFullMasksAttr = "kcc.full_masks";
    // On the build of kcc-version-full-launches that keeps the masks the
    // launch decides (run where they are not all on): kcc-version-full-masks
    // does not copy code for those terms in it.
    static constexpr ::llvm::StringLiteral kMasksRaggedAttr = "kcc.masks_ragged";
    // On the ops of a GEMM epilogue copied once per column chunk of the
    // tile's TMA store (pipeliner/EpilogueChunks.h): the chunk's columns
    // [lo, hi), the only ones of the result read (the lowering's other
    // elements are dead code); the attribute also keeps CSE from merging
    // the copies back into one whole-tile epilogue.
    static constexpr ::llvm::StringLiteral kEpilogueChunkAttr = "kcc.epilogue_chunk";
    // On the base pointer argument of a tensor parameter: its rank; the
    // sizes and strides follow it as i32 arguments.
    static constexpr ::llvm::StringLiteral kTensorRankAttr = "kcc.tensor_rank";
    // On a !kcc.tensormap argument: the index of the base-pointer argument of
    // the tensor parameter it maps (the launch stub encodes it from that
    // tensor's base, sizes and strides).
    static constexpr ::llvm::StringLiteral kTensorMapOfAttr = "kcc.tensor_map_of";
    // On an op that moves a tile through shared memory: [every, pad], insert
    // `pad` elements after every `every` elements of the buffer (chosen with
    // the target's bank model: backends/nvidia/ChooseSharedLayouts.cpp).
    static constexpr ::llvm::StringLiteral kSmemPaddingAttr = "kcc.smem_padding";
    // On a 1-D reduce: the butterfly across the lanes of a warp/wave, one
    // {op = "<exchange>", mask = m} per step (partner lane = lane ^ m),
    // planned with the target model's exchange costs
    // (backends/nvidia/PlanLaneExchanges.cpp).
    static constexpr ::llvm::StringLiteral kButterflyAttr = "kcc.butterfly";
    // On a load/store expanded from load_tile/store_tile: why it is not a
    // TMA copy (for --report).
    static constexpr ::llvm::StringLiteral kTileAccessAttr = "kcc.tile_access";
    // On a load_tile/store_tile lifted from a tile of pointers
    // (kcc-synthesize-tile-accesses): the tensor it reads, for --report.
    static constexpr ::llvm::StringLiteral kLiftedAttr = "kcc.lifted";
    // On a load/store of a tile of pointers in a kernel with a dot: why it
    // was not lifted to a load_tile/store_tile.
    static constexpr ::llvm::StringLiteral kLiftRefusedAttr = "kcc.lift_refused";
    // On a !kcc.tensormap argument of a lifted access: its sizes then row
    // strides, each an argument number (index-typed) or a constant (i32),
    // from which the launch stub encodes it (absent: a tensor parameter's).
    static constexpr ::llvm::StringLiteral kTensorMapShapeAttr = "kcc.tensor_map_shape";
    // On a scalar-width tile load whose addresses repeat along the
    // innermost dimension in runs of N (a broadcast): one load per run.
    static constexpr ::llvm::StringLiteral kAccessUniformAttr = "kcc.access_uniform";
    // On a load_tile/store_tile left to kcc-expand-tile-accesses: why it is
    // not a TMA copy (passes/AddTensorMaps.cpp, MaterializeTmaCopies.cpp).
    static constexpr ::llvm::StringLiteral kTmaRefusedAttr = "kcc.tma_refused";
    // On smem_alloc / mbarrier_alloc / tmem_alloc after
    // kcc-allocate-shared-memory: the byte offset in the kernel's shared
    // memory (backends/gpu/AllocateSharedMemory.cpp), which the lowering
    // reads (backends/nvidia/AsyncToNVVM.cpp).
    static constexpr ::llvm::StringLiteral kSmemOffsetAttr = "kcc.smem_offset";
    // On a kernel after kcc-allocate-shared-memory, until
    // kcc-convert-to-llvm creates its buffer from them: the bytes of shared
    // memory it uses in all (scratch, stages, mbarriers, TMEM address slots)
    // and the alignment its buffers need.
    static constexpr ::llvm::StringLiteral kSmemBytesAttr = "kcc.smem_bytes";
    static constexpr ::llvm::StringLiteral kSmemAlignmentAttr = "kcc.smem_alignment";
    // On an NVIDIA kernel after kcc-convert-to-llvm: the bytes of dynamic
    // shared memory its launch must provide (its kcc.smem_bytes;
    // backends/gpu/ConvertKccToLLVM.cpp).
    static constexpr ::llvm::StringLiteral kDynamicSmemBytesAttr = "kcc.dynamic_smem_bytes";
    // On an scf.if whose condition depends on run-time data (program ids,
    // sizes): both branches are feasible, and the async verifier checks
    // each (passes/verify/VerifyAsyncProtocol.cpp).
    static constexpr ::llvm::StringLiteral kDataDependentAttr = "kcc.data_dependent";
    // On a load_tile whose tensor map is the 128-byte swizzled operand box
    // of a wgmma or tcgen05 dot, and on a store_tile of such a dot's
    // accumulator (its C tile leaves through 128-byte swizzled boxes:
    // kcc::storesMmaAccumulator) (passes/AddTensorMaps.cpp, MmaOperands.h).
    static constexpr ::llvm::StringLiteral kMmaOperandAttr = "kcc.mma_operand";
    // On an scf.for pipelined for wgmma / tcgen05 operands: its stages are
    // refilled one iteration after their use, so its warpgroup_mma may leave
    // one group in flight, its tcgen05_mma be retired one iteration late
    // (passes/PipelineTmaLoads.cpp).
    static constexpr ::llvm::StringLiteral kMmaOverlapAttr = "kcc.mma_overlap";
    // On a kcc.dot: the tensor-core instruction it is lowered to
    // ("mma.sync.m16n8k16", passes/MaterializeWarpMma.cpp), or why it stays
    // on the CUDA cores (kcc.mma_refused); both shown by --report.
    static constexpr ::llvm::StringLiteral kMmaAttr = "kcc.mma";
    static constexpr ::llvm::StringLiteral kMmaRefusedAttr = "kcc.mma_refused";
    // On a kcc.dot: per target whose main tensor-core instruction (wgmma,
    // tcgen05.mma) the dot cannot use, why (target name -> reason;
    // passes/AddTensorMaps.cpp); --report shows it.
    static constexpr ::llvm::StringLiteral kTensorCoreRefusedAttr =
        "kcc.tensor_core_refused";
    // On a kernel: warps beyond kcc.num_warps that run the producer role of
    // its kcc.warp_specialize (threads per block = (num_warps +
    // producer_warps) x warp size; kcc::blockWarps).
    static constexpr ::llvm::StringLiteral kProducerWarpsAttr = "kcc.producer_warps";
    // On a kernel whose kcc.warp_specialize has ping-pong consumer groups:
    // their number (2). Each group is kcc.num_warps warps, so threads per
    // block = (num_warps x groups + producer_warps) x warp size.
    static constexpr ::llvm::StringLiteral kConsumerGroupsAttr = "kcc.consumer_groups";
    // On a kernel after kcc-allocate-shared-memory when it has consumer
    // groups: the bytes of scratch each group has (group g's at g x that).
    static constexpr ::llvm::StringLiteral kScratchBytesAttr = "kcc.scratch_bytes";
    // On a kernel after kcc-allocate-shared-memory whose scratch does not
    // start at offset 0 (it follows the async buffers): that offset.
    static constexpr ::llvm::StringLiteral kScratchOffsetAttr = "kcc.scratch_offset";
    // On an scf.for that kcc-pipeline-tma-loads did not warp-specialize:
    // why (shown by --report).
    static constexpr ::llvm::StringLiteral kWarpSpecializeRefusedAttr = "kcc.warp_specialize_refused";
    // On a kcc.warp_specialize built without the ping-pong that
    // kcc --ping-pong asked for: why (shown by --report).
    static constexpr ::llvm::StringLiteral kPingPongRefusedAttr = "kcc.ping_pong_refused";
    // On a kcc.warpgroup_mma_reg_a that kcc-defer-register-a-mma left in its
    // iteration although its loop has the shape: why (shown by --report).
    static constexpr ::llvm::StringLiteral kDeferRefusedAttr = "kcc.defer_refused";
    // On a kcc.warpgroup_mma whose product kcc-defer-block-promotion
    // promotes one iteration late (shown by --report).
    static constexpr ::llvm::StringLiteral kPromotedLateAttr = "kcc.promoted_late";
    static constexpr ::llvm::StringLiteral kTurnsAttr = "kcc.turns";
    // On a kernel launched as a persistent grid (kcc --persistent): i32, the
    // CTAs per multiprocessor. The launch caps kcc.grid's x at
    // max(1, processors * N / grid z) programs, and each program runs the
    // tiles of its kcc.persistent_tiles loop (passes/RasterizePrograms.cpp).
    static constexpr ::llvm::StringLiteral kPersistentAttr = "kcc.persistent";
    // On a kernel launched as clusters of N CTAs along x (kcc --clusters):
    // i32 N. kcc-rasterize-programs pairs the programs so that the CTAs of
    // a cluster share their column of tiles; kcc-multicast-tma-loads makes
    // their common loads one multicast copy, and the lowering gives the
    // kernel nvvm.cluster_dim (PTX .reqnctapercluster: a plain launch runs
    // it as clusters). Where nothing is multicast the attribute is dropped.
    static constexpr ::llvm::StringLiteral kClusterAttr = "kcc.cluster";
    // On a kernel with a stages(S) clause: i32 S, the shared stages of its
    // K loops' pipelines (TMA and cp.async), over the passes' `stages`
    // option (kcc --pipeline-stages). A tunable S makes the depth one of
    // the candidates the launch weighs.
    static constexpr ::llvm::StringLiteral kPipelineStagesAttr = "kcc.pipeline_stages";
    // Why a kernel asked to run as clusters does not (shown by --report).
    static constexpr ::llvm::StringLiteral kClusterRefusedAttr = "kcc.cluster_refused";
    // On the persistent build of a kernel (kcc --persistent compiles both):
    // the symbol of its one-program-per-tile build, which the launch runs
    // instead when the grid has at most kcc.persistent x processors tiles
    // (each CTA would run one tile, and the tile loop only costs).
    static constexpr ::llvm::StringLiteral kPersistentOfAttr = "kcc.persistent_of";
    // On the fallback build of a kernel over tensor<> parameters: the symbol
    // of the build that assumes the tensor contract (bases 16-byte aligned,
    // row strides multiples of 16 bytes: TMA and 16-byte vector accesses).
    // The launch runs this one when the given tensors break the contract
    // (passes/transforms/AddFallbackBuilds.cpp).
    static constexpr ::llvm::StringLiteral kFallbackOfAttr = "kcc.fallback_of";
    // On the two split-K builds of a kernel (kcc-add-split-k-builds): the
    // symbol of the kernel, whose launch runs them instead when its grid is
    // too small for the GPU and its K loop long.
    static constexpr ::llvm::StringLiteral kSplitKOfAttr = "kcc.split_k_of";
    // On those builds: {role = "partial"|"reduce"}; the partial build's also
    // trips, rows and cols (C over the parameter names) for its launch.
    static constexpr ::llvm::StringLiteral kSplitKAttr = "kcc.split_k";
    // On a kernel with products that got no split-K builds: why (--report).
    static constexpr ::llvm::StringLiteral kSplitKRefusedAttr = "kcc.split_k_refused";
    // On an scf.if the frontend found uniform per launch (its condition
    // compares integer parameters, dim(x, k) and constants, as require(...)
    // may): {guard = C over the parameter names, when = the condition as
    // written, at = file:line:col}. kcc-version-launch-branches compiles the
    // kernel once per branch and the launch picks by the guard.
    static constexpr ::llvm::StringLiteral kLaunchGuardAttr = "kcc.launch_guard";
    // On the build of a kernel that runs the else branch of its versioned
    // kcc.launch_guard: the symbol of the build that runs the then branch,
    // whose launch runs this one instead when the guard is false
    // (passes/transforms/VersionLaunchBranches.cpp).
    static constexpr ::llvm::StringLiteral kVersionOfAttr = "kcc.version_of";
    // On that else build: the kcc.launch_guard dictionary it was split on.
    static constexpr ::llvm::StringLiteral kVersionGuardAttr = "kcc.version_guard";
    // On the scf.for over a persistent kernel's tiles (from its launch id to
    // the tile count, by the launch's extent): loops nested in it are
    // pipelined as if outermost, their stage counter carried across tiles.
    static constexpr ::llvm::StringLiteral kPersistentTilesAttr = "kcc.persistent_tiles";
    // On that scf.for when its tiles are paired (kcc-rasterize-programs): a
    // tile and its mirror along x run back to back, because the loop at
    // this source location (text) runs more trips the further the tile is
    // along x, or fewer; each pair then costs about the same.
    static constexpr ::llvm::StringLiteral kPairedTilesAttr = "kcc.paired_tiles";
    // On the scf.if the NVIDIA lowering splits a kcc.warp_specialize into:
    // the consumer threads (then: the producer warpgroup, else: consumers).
    static constexpr ::llvm::StringLiteral kRolesAttr = "kcc.roles";

  private:
    const ::kcc::TargetRegistry *targetRegistry = nullptr;
  }];
}

class Kcc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kcc_Dialect, mnemonic, traits>;

#endif // KCC_DIALECT_TD
