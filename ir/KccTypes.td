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
def Kcc_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def Kcc_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Kcc_Scalar : AnyTypeOf<[Kcc_Float, Kcc_Int, Kcc_Ptr]>;
def Kcc_Tile : RankedTensorOf<[Kcc_Float, Kcc_Int, Kcc_Ptr]>;
def Kcc_PtrTile : RankedTensorOf<[Kcc_Ptr]>;
def Kcc_ScalarOrTile : AnyTypeOf<[Kcc_Scalar, Kcc_Tile]>;
def Kcc_PtrLike : AnyTypeOf<[Kcc_Ptr, Kcc_PtrTile]>;
def Kcc_IntLike : AnyTypeOf<[Kcc_Int, RankedTensorOf<[Kcc_Int]>]>;
def Kcc_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Kcc_ValueLike : AnyTypeOf<[Kcc_Float, Kcc_Int, RankedTensorOf<[Kcc_Float, Kcc_Int]>]>;

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

#endif // KCC_TYPES_TD
