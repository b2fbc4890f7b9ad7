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

def Kcc_ProgramGridOp : Kcc_Op<"program_grid"> {
  let summary = "the 2-D program grid extents of a kernel launched in "
                "grouped order; consumed by kcc-rasterize-programs";
  let description = [{
    Emitted by the frontend at the start of a kernel with a `group(N)`
    clause: `gx` and `gy` are its grid expressions (num_programs(0) and
    num_programs(1)) evaluated in the kernel, `gz` that of a third axis (a
    batch) if the grid has one, and `group` is N. Until
    kcc-rasterize-programs replaces program_id and num_programs with their
    grouped 1-D form and erases this op, the kernel is in its 2-D form:
    `kcc.grid` holds both extents. A persistent build runs the tiles of
    every batch from one tile loop, so it computes the batch from `gz`. No
    later stage accepts it.
  }];
  let arguments = (ins I32:$gx, I32:$gy, Optional<I32>:$gz,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$group);
  let assemblyFormat = "$gx `,` $gy (`,` $gz^)? attr-dict";
  let extraClassDeclaration = [{
    /// The function attribute holding N (an i32) of a kernel with group(N).
    static constexpr ::llvm::StringLiteral kRasterGroupAttr =
        "kcc.raster_group";
  }];
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

def Kcc_ReshapeOp : Kcc_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order under another shape";
  let description = [{
    Free in the blocked layout, which distributes a tile by its row-major
    element order: a tile and its reshape share an encoding.
  }];
  let arguments = (ins Kcc_Tile:$src);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Kcc_TransOp : Kcc_Op<"trans", [Pure]> {
  let summary = "transpose a 2-D tile";
  let description = [{
    `result[j][i] = src[i][j]`. In registers this is a relayout: the lowering
    moves the tile through shared memory.
  }];
  let arguments = (ins Kcc_Tile:$src);
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

def Kcc_AtomicRMWOp : Kcc_Op<"atomic_rmw", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value",
                   "::kcc::getPointeeLike($_self)">,
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kcc::getI1Like($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::kcc::getPointeeLike($_self)">]> {
  let summary = "atomic read-modify-write of global memory; returns the old values";
  let description = [{
    Per element of `ptr` whose mask is on, atomically replaces `*ptr` with
    `kind(*ptr, value)` and returns what it read (masked-off lanes return
    `value`). Each element is updated once per program however the tile is
    laid out; a scalar (uniform) operation is performed once per program.
    `min`/`max` take integers (signed) or floats (NaN-propagating, as the
    elementwise `min`/`max`); `add` takes integers and floats. Elements of
    one tile are not ordered among themselves.
  }];
  let arguments = (ins Kcc_AtomicKindAttr:$kind, Kcc_PtrLike:$ptr,
                       Kcc_ValueLike:$value, Optional<Kcc_BoolLike>:$mask,
                       Kcc_MemoryOrderAttr:$order, Kcc_MemoryScopeAttr:$scope);
  let results = (outs Kcc_ValueLike:$result);
  let assemblyFormat = [{
    $kind $order $scope $ptr `,` $value (`mask` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Kcc_AtomicCASOp : Kcc_Op<"atomic_cas", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"cmp is the pointee of ptr", "ptr", "cmp",
                   "::kcc::getPointeeLike($_self)">,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value",
                   "::kcc::getPointeeLike($_self)">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::kcc::getPointeeLike($_self)">,
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kcc::getI1Like($_self)",
                   "($_op.getOperands().size() <= 3) || std::equal_to<>()">,
    AllTypesMatch<["cmp", "value"]>]> {
  let summary = "atomic compare-and-swap of global memory; returns the old values";
  let description = [{
    Per element whose mask is on: if `*ptr == cmp`, writes `value`; returns
    what it read either way (masked-off lanes return `value`). Integers only
    (i32, i64); the update is once per element per program, as for
    kcc.atomic_rmw.
  }];
  let arguments = (ins Kcc_PtrLike:$ptr, Kcc_ValueLike:$cmp,
                       Kcc_ValueLike:$value, Optional<Kcc_BoolLike>:$mask,
                       Kcc_MemoryOrderAttr:$order, Kcc_MemoryScopeAttr:$scope);
  let results = (outs Kcc_ValueLike:$result);
  let assemblyFormat = [{
    $order $scope $ptr `,` $cmp `,` $value (`mask` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Kcc_HistogramOp : Kcc_Op<"histogram", [Pure]> {
  let summary = "count a program's integer values per bin in [0, bins)";
  let description = [{
    `result[b]` is the number of elements of `src` (where `mask` is on)
    equal to `b`, for 0 <= b < bins; values outside the range are not
    counted. Computed per program (CTA) in shared memory with atomics
    where the target has them: the privatized histogram that a global
    atomic_add of the result then merges.
  }];
  let arguments = (ins RankedTensorOf<[I32]>:$src,
                       Optional<RankedTensorOf<[I1]>>:$mask, I32Attr:$bins);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $src (`mask` $mask^)? attr-dict `:` type($src) (`,` type($mask)^)?
    `->` type($result)
  }];
  let hasVerifier = 1;
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
  let hasCanonicalizer = 1;
}

def Kcc_DotOp : Kcc_Op<"dot", [Pure, AllTypesMatch<["c", "result"]>]> {
  let summary = "matrix product with accumulation: a[MxK] * b[KxN] + c[MxN]";
  let description = [{
    On sm_90a, a dot whose operands are TMA-loaded tiles becomes
    kcc.warpgroup_mma (passes/MaterializeWarpgroupMma.cpp); any other dot is
    lowered to FMAs on the CUDA/SIMD cores.
  }];
  let arguments = (ins Kcc_Tile:$a, Kcc_Tile:$b, Kcc_Tile:$c);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kcc_LoadTileOp : Kcc_Op<"load_tile", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "load the tile at block coordinates of a strided tensor";
  let description = [{
    The tensor has base `base`, sizes `dims` (outermost first) and, for rank
    2, the row stride `strides` in elements (the innermost stride is 1). The
    result is the tile of shape S at block coordinates `coords`: element
    (i, j) is tensor element (coords[0] * S[0] + i, coords[1] * S[1] + j).
    Elements outside the tensor read `other` (0 if absent). Lowered to TMA
    where the target model allows it (passes/MaterializeAsyncCopies.cpp),
    otherwise to masked vector loads (passes/ExpandTileAccesses.cpp).
  }];
  let arguments = (ins Kcc_Ptr:$base, Variadic<I32>:$dims,
                       Variadic<I32>:$strides, Variadic<I32>:$coords,
                       Optional<Kcc_Scalar>:$other);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = [{
    $base `[` $dims `]` `strides` `[` $strides `]` `at` `[` $coords `]`
    (`other` $other^ `:` type($other))? attr-dict `:` type($base) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Kcc_StoreTileOp : Kcc_Op<"store_tile", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>]> {
  let summary = "store a tile at block coordinates of a strided tensor";
  let description = [{
    The inverse of load_tile: elements that fall outside the tensor are not
    written (the store is clipped at the tensor's edge).
  }];
  let arguments = (ins Kcc_Tile:$value, Kcc_Ptr:$base, Variadic<I32>:$dims,
                       Variadic<I32>:$strides, Variadic<I32>:$coords);
  let assemblyFormat = [{
    $value `,` $base `[` $dims `]` `strides` `[` $strides `]` `at` `[` $coords
    `]` attr-dict `:` type($value) `,` type($base)
  }];
  let hasVerifier = 1;
}

def Kcc_ConvertLayoutOp : Kcc_Op<"convert_layout", [Pure]> {
  let summary = "the same tile in another register layout";
  let description = [{
    Moves a tile between register layouts (through shared memory), e.g. a
    wgmma accumulator into the #kcc.blocked layout of the ops that use it.
  }];
  let arguments = (ins Kcc_Tile:$src);
  let results = (outs Kcc_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

include "ir/KccAsyncOps.td"

#endif // KCC_OPS_TD
