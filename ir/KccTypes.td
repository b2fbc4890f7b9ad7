//===- KccTypes.td - kcc types and attributes --------------*- tablegen -*-===//
#ifndef KCC_TYPES_TD
#define KCC_TYPES_TD

include "ir/KccDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Kcc_PtrType : TypeDef<Kcc_Dialect, "Ptr"> {
  let mnemonic = "ptr";
  let summary = "pointer to elements in global memory";
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"unsigned", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType), [{
      return $_get(pointeeType.getContext(), pointeeType, 1);
    }]>
  ];
  let skipDefaultBuilders = 0;
}

def Kcc_Ptr : Type<CPred<"::mlir::isa<::kcc::PtrType>($_self)">, "kcc pointer",
                   "::kcc::PtrType">;
def Kcc_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F8E4M3FNUZ, F8E5M2FNUZ, F16, BF16, F32, F64]>;
def Kcc_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Kcc_Scalar : AnyTypeOf<[Kcc_Float, Kcc_Int, Kcc_Ptr]>;
def Kcc_Tile : RankedTensorOf<[Kcc_Float, Kcc_Int, Kcc_Ptr]>;
def Kcc_PtrTile : RankedTensorOf<[Kcc_Ptr]>;
def Kcc_ScalarOrTile : AnyTypeOf<[Kcc_Scalar, Kcc_Tile]>;
def Kcc_PtrLike : AnyTypeOf<[Kcc_Ptr, Kcc_PtrTile]>;
def Kcc_IntLike : AnyTypeOf<[Kcc_Int, RankedTensorOf<[Kcc_Int]>]>;
def Kcc_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Kcc_ValueLike : AnyTypeOf<[Kcc_Float, Kcc_Int, RankedTensorOf<[Kcc_Float, Kcc_Int]>]>;


// Async (layout+effects) types. See KccAsyncOps.td for the protocol they
// take part in.

def Kcc_SmemType : TypeDef<Kcc_Dialect, "Smem"> {
  let mnemonic = "smem";
  let summary = "a shared-memory buffer of `stages` tiles";
  let description = [{
    `stages` tiles of `shape` x `elementType` in shared memory, each a
    resource with a state (empty, in flight, full, in use, released) that the
    async verifier tracks. `swizzle` is the TMA/wgmma swizzle span of the
    layout in bytes (0: none, 32, 64 or 128); a swizzled buffer is aligned to
    1024 bytes, any other to 128. `pad` bytes follow each row of a 2-D
    unswizzled tile (0: dense rows): padded rows keep the 8 rows an ldmatrix
    reads in distinct banks (kcc-pipeline-async-copies stages mma.sync
    operands this way).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType, "unsigned":$stages,
                        "unsigned":$swizzle,
                        DefaultValuedParameter<"unsigned", "0">:$pad);
  let assemblyFormat = [{
    `<` `[` $shape `]` `,` $elementType `,` `stages` `=` $stages `,`
        `swizzle` `=` $swizzle (`,` `pad` `=` $pad^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes from one stage to the next: one tile with its row padding,
    /// rounded up to 128 (where a TMA copy may write).
    int64_t getStageBytes() const;
    /// Bytes from one row of a stage to the next (2-D tiles).
    int64_t getRowBytes() const;
  }];
}

def Kcc_MBarrierType : TypeDef<Kcc_Dialect, "MBarrier"> {
  let mnemonic = "mbarrier";
  let summary = "`count` mbarriers in shared memory (one per pipeline stage)";
  let parameters = (ins "unsigned":$count);
  let assemblyFormat = "`<` $count `>`";
}

def Kcc_TensorMapType : TypeDef<Kcc_Dialect, "TensorMap"> {
  let mnemonic = "tensormap";
  let summary = "a TMA tensor map (CUtensorMap) passed as a grid constant";
  let description = [{
    The static parts of a tensor map encoded by the launch stub: the box the
    kernel moves per copy (outermost dimension first, like tile shapes), the element type and the shared-memory swizzle.
    The global address, sizes and strides are run-time values the stub
    checks before encoding.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$box,
                        "::mlir::Type":$elementType, "unsigned":$swizzle);
  let assemblyFormat = [{
    `<` `[` $box `]` `,` $elementType `,` `swizzle` `=` $swizzle `>`
  }];
  let extraClassDeclaration = [{
    /// Bytes one box copy moves (the full box, also where it crosses the
    /// tensor's edge: TMA fills or drops the outside but counts it).
    int64_t getBoxBytes() const;
  }];
}

def Kcc_TmemType : TypeDef<Kcc_Dialect, "Tmem"> {
  let mnemonic = "tmem";
  let summary = "a Blackwell tensor-memory (TMEM) allocation of the CTA";
  let description = [{
    `columns` 32-bit columns of all 128 TMEM lanes, allocated by
    kcc.tmem_alloc and freed by kcc.tmem_dealloc (sm_100a). The value is the
    allocation's base address (lane 0, first column); kcc.tcgen05_mma writes
    an accumulator there and kcc.tmem_load reads it back into registers.
  }];
  let parameters = (ins "unsigned":$columns);
  let assemblyFormat = "`<` $columns `>`";
  let genVerifyDecl = 1;
}

def Kcc_Smem : Type<CPred<"::mlir::isa<::kcc::SmemType>($_self)">,
                    "kcc shared-memory buffer", "::kcc::SmemType">;
def Kcc_MBarrier : Type<CPred<"::mlir::isa<::kcc::MBarrierType>($_self)">,
                        "kcc mbarrier array", "::kcc::MBarrierType">;
def Kcc_Tmem : Type<CPred<"::mlir::isa<::kcc::TmemType>($_self)">,
                    "kcc TMEM allocation", "::kcc::TmemType">;
def Kcc_TensorMap : Type<CPred<"::mlir::isa<::kcc::TensorMapType>($_self)">,
                         "kcc TMA tensor map", "::kcc::TensorMapType">;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Kcc_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::kcc";
  let genSpecializedAttr = 0;
}
def Kcc_ReduceKindAttr : EnumAttr<Kcc_Dialect, Kcc_ReduceKind, "reduce_kind">;

// Atomic read-modify-write operations of `.kc` (docs/language.md, "Atomics").
def Kcc_AtomicKind : I32EnumAttr<"AtomicKind", "atomic read-modify-write", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Min", 1, "min">,
    I32EnumAttrCase<"Max", 2, "max">,
    I32EnumAttrCase<"Xchg", 3, "xchg">]> {
  let cppNamespace = "::kcc";
  let genSpecializedAttr = 0;
}
def Kcc_AtomicKindAttr : EnumAttr<Kcc_Dialect, Kcc_AtomicKind, "atomic_kind">;

def Kcc_MemoryOrder : I32EnumAttr<"MemoryOrder", "memory order of an atomic", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::kcc";
  let genSpecializedAttr = 0;
}
def Kcc_MemoryOrderAttr : EnumAttr<Kcc_Dialect, Kcc_MemoryOrder, "memory_order">;

def Kcc_MemoryScope : I32EnumAttr<"MemoryScope",
    "threads an atomic is atomic and ordered with", [
    I32EnumAttrCase<"Cta", 0, "cta">,
    I32EnumAttrCase<"Gpu", 1, "gpu">,
    I32EnumAttrCase<"System", 2, "system">]> {
  let cppNamespace = "::kcc";
  let genSpecializedAttr = 0;
}
def Kcc_MemoryScopeAttr : EnumAttr<Kcc_Dialect, Kcc_MemoryScope, "memory_scope">;

def Kcc_WarpgroupTurnKind : I32EnumAttr<"WarpgroupTurnKind",
    "what kcc.warpgroup_turn does", [
    I32EnumAttrCase<"Wait", 0, "wait">,
    I32EnumAttrCase<"Pass", 1, "pass">,
    I32EnumAttrCase<"Start", 2, "start">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::kcc";
}
def Kcc_WarpgroupTurnKindAttr
    : EnumAttr<Kcc_Dialect, Kcc_WarpgroupTurnKind, "warpgroup_turn_kind">;

def Kcc_BlockedLayoutAttr : AttrDef<Kcc_Dialect, "BlockedLayout"> {
  let mnemonic = "blocked";
  let summary = "distributed register layout of a tile over the threads of a CTA";
  let description = [{
    The tile's elements, flattened in row-major order, are cut into chunks of
    `vec` consecutive elements; chunk c goes to thread `c mod threads`, and a
    thread's chunks are stacked in its registers in increasing c. A tile with
    fewer than `threads * vec` elements is replicated: thread t holds the chunk
    `t mod (elements / vec)`, and only the first owner of a chunk writes it to
    memory. `warp` is the number of lanes per warp (32 on NVIDIA, 64 on AMD
    wave64); it decides which threads combine with shuffles in reductions.
    Reshapes that keep the element count (expand_dims) are free in this layout.
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$threads, "unsigned":$warp);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Registers (elements) each thread holds for a tile of `numElements`.
    unsigned getElemsPerThread(int64_t numElements) const;
    /// Vector width actually usable for a tile of `numElements`.
    unsigned getEffectiveVec(int64_t numElements) const;
  }];
}

def Kcc_WgmmaAccLayoutAttr : AttrDef<Kcc_Dialect, "WgmmaAccLayout"> {
  let mnemonic = "wgmma_acc";
  let summary = "register layout of a Hopper wgmma accumulator tile";
  let description = [{
    The layout `wgmma.mma_async` leaves an M x N accumulator in: the CTA's
    `warpgroups` warpgroups of 128 threads take the tile's 64-row blocks in
    turn (block b goes to warpgroup b mod warpgroups). In a block, register i
    (0 <= i < N/2) of lane l of warp w of the warpgroup holds element
      row = 16 w + l / 4 + 8 ((i / 2) mod 2),  col = 8 (i / 4) + 2 (l mod 4) + i mod 2
    (PTX ISA, "wgmma .m64nNk16 register fragment D"), and a thread stacks the
    blocks it owns in increasing b. The same registers are the D fragments
    of mma.sync.m16n8k16 when warp w computes its 16 rows of each block over
    all N columns, so a kcc.dot that runs as mma.sync
    (passes/MaterializeWarpMma.cpp) uses this layout too. Only
    kcc.warpgroup_mma, such dots, the loop that carries the accumulator,
    splats, elementwise ops and kcc.convert_layout see it.
  }];
  let parameters = (ins "unsigned":$warpgroups);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Registers each thread holds for an M x N tile.
    unsigned getElemsPerThread(llvm::ArrayRef<int64_t> shape) const;
  }];
}

def Kcc_MfmaAccLayoutAttr : AttrDef<Kcc_Dialect, "MfmaAccLayout"> {
  let mnemonic = "mfma_acc";
  let summary = "register layout of an AMD MFMA 16x16x16 accumulator tile";
  let description = [{
    The layout `v_mfma_f32_16x16x16{f16,bf16}` leaves an M x N accumulator
    in, over the CTA's `waves` waves of 64 lanes: the tile's 16-row slabs go
    to the waves in turn (slab s to wave s mod waves), and a wave stacks its
    slabs in increasing s. In a slab, register 4 j + i (0 <= i < 4) of lane
    l holds element
      row = 4 (l / 16) + i,  col = 16 j + l mod 16
    (AMD's matrix instruction calculator, "D[i][j]: lane j + 16 (i / 4),
    item i mod 4"). Only kcc.dot, the loop that carries it, splats,
    elementwise ops and kcc.convert_layout see this layout.
  }];
  let parameters = (ins "unsigned":$waves);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Registers each thread holds for an M x N tile.
    unsigned getElemsPerThread(llvm::ArrayRef<int64_t> shape) const;
  }];
}

def Kcc_TmemAccLayoutAttr : AttrDef<Kcc_Dialect, "TmemAccLayout"> {
  let mnemonic = "tmem_acc";
  let summary = "register layout of a tcgen05 accumulator read from TMEM";
  let description = [{
    The layout `tcgen05.ld.32x32b` leaves a 128 x N f32 accumulator in when
    the CTA's `warpgroups` warpgroups read it: warp w of a warpgroup may only
    reach TMEM lanes 32 (w mod 4) .. 32 (w mod 4) + 31, so lane l of warp w
    holds row 32 (w mod 4) + l; warpgroup g takes the 32-column chunks
    g, g + warpgroups, ... of that row, and register i holds column
      32 (g + warpgroups (i / 32)) + i mod 32.
    Only kcc.tmem_load, splats, elementwise ops, kcc.convert_layout and the
    epilogue's kcc.smem_store see this layout.
  }];
  let parameters = (ins "unsigned":$warpgroups);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Registers each thread holds for a 128 x N tile.
    unsigned getElemsPerThread(llvm::ArrayRef<int64_t> shape) const;
  }];
}

#endif // KCC_TYPES_TD
