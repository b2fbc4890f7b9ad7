//===- KccOps.td - kcc tile IR operations ------------------*- tablegen -*-===//
#ifndef KCC_OPS_TD
#define KCC_OPS_TD

include "ir/KccDialect.td"
include "ir/KccTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Kcc_ProgramIdOp : Kcc_Op<"program_id", [Pure]> {
  let summary = "index of this program (CTA) along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "`(` $axis `)` attr-dict `:` type($result)";
}

def Kcc_NumProgramsOp : Kcc_Op<"num_programs", [Pure]> {
  let summary = "number of programs (CTAs) along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "`(` $axis `)` attr-dict `:` type($result)";
}

def Kcc_ArangeOp : Kcc_Op<"arange", [Pure]> {
  let summary = "the 1-D tile [start, start+1, ..., end-1]";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kcc_SplatOp : Kcc_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the scalar", "result", "src",
                   "::mlir::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "a tile with every element equal to a scalar";
  let arguments = (ins Kcc_Scalar:$src);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

def Kcc_BroadcastOp : Kcc_Op<"broadcast", [Pure]> {
  let summary = "stretch dimensions of size 1 to a larger shape";
  let arguments = (ins Kcc_Tile:$src);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Kcc_ExpandDimsOp : Kcc_Op<"expand_dims", [Pure]> {
  let summary = "insert a dimension of size 1 at `axis`";
  let arguments = (ins Kcc_Tile:$src, I32Attr:$axis);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Kcc_AddPtrOp : Kcc_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by element offsets";
  let description = [{
    `result = ptr + offset * sizeof(pointee)`, elementwise on tiles. The
    offset is signed; i64 offsets address tensors larger than 2^31 elements.
  }];
  let arguments = (ins Kcc_PtrLike:$ptr, Kcc_IntLike:$offset);
  let results = (outs Kcc_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
}

def Kcc_LoadOp : Kcc_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::kcc::getPointeeLike($_self)">,
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kcc::getI1Like($_self)",
                   "($_op.getOperands().size() <= 1) || std::equal_to<>()">,
    TypesMatchWith<"other matches the result", "ptr", "other",
                   "::kcc::getPointeeLike($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let summary = "masked load; masked-off lanes take `other` (or are undefined)";
  let arguments = (ins Kcc_PtrLike:$ptr, Optional<Kcc_BoolLike>:$mask,
                       Optional<Kcc_ValueLike>:$other);
  let results = (outs Kcc_ValueLike:$result);
  let assemblyFormat = [{
    $ptr (`mask` $mask^)? (`other` $other^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Kcc_StoreOp : Kcc_Op<"store", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value",
                   "::kcc::getPointeeLike($_self)">,
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kcc::getI1Like($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let summary = "masked store; masked-off lanes write nothing";
  let arguments = (ins Kcc_PtrLike:$ptr, Kcc_ValueLike:$value,
                       Optional<Kcc_BoolLike>:$mask);
  let assemblyFormat = "$ptr `,` $value (`mask` $mask^)? attr-dict `:` type($ptr)";
}

def Kcc_ReduceOp : Kcc_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis with sum, max or min";
  let description = [{
    Reducing a 1-D tile gives a scalar; otherwise the axis is removed. `max`
    and `min` on floats propagate NaN.
  }];
  let arguments = (ins Kcc_ReduceKindAttr:$kind, Kcc_Tile:$src, I32Attr:$axis);
  let results = (outs Kcc_ValueLike:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Kcc_DotOp : Kcc_Op<"dot", [Pure, AllTypesMatch<["c", "result"]>]> {
  let summary = "matrix product with accumulation: a[MxK] * b[KxN] + c[MxN]";
  let description = [{
    Parsed and verified in v0; lowering to tensor cores arrives with the GEMM
    work. Code generation reports an error for it.
  }];
  let arguments = (ins Kcc_Tile:$a, Kcc_Tile:$b, Kcc_Tile:$c);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // KCC_OPS_TD
