//===- ExpandTileAccesses.cpp - load_tile/store_tile as masked accesses ---===//
//
// Rewrites block-coordinate tile accesses of a strided tensor into the tile
// IR's pointer arithmetic and masked load/store on the tile's elements in
// row-major order (reshaped from/to the tile): element (i, j) of the tile at
// block (bi, bj) is base + (bi*S0 + i) * stride0 + (bj*S1 + j), present where
// both indices are inside the tensor; a batched (rank-3) tensor adds
// batch * stride0 and checks the batch index too. The comparisons are unsigned,
// so a negative block coordinate reads `other` and writes nothing, as TMA does;
// a negative size is an empty dimension. Offsets are 64-bit, and a negative
// stride walks backwards.
// Layout assignment then vectorizes along the innermost dimension (the tensor
// contract makes the base 16-byte aligned and the strides multiples of 16
// bytes), and a ragged edge costs only the chunks that straddle it.
//
// This is the path for every target without TMA, and for accesses the TMA
// materialization does not take; each generated access records why in
// kcc.tile_access, which --report shows.
//
//===----------------------------------------------------------------------===//

#include "ir/TileCoords.h"
#include "passes/Passes.h"
#include "passes/analysis/TensorMaps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCEXPANDTILEACCESSES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Pointers and in-bounds mask of the tile `shape` at block `coords`, as 1-D
/// tiles of its elements in row-major order (the caller reshapes). Flat
/// indices keep the computation in the tile's own layout: a 2-D index grid
/// built with expand_dims + broadcast would move the row and column indices
/// through shared memory.
struct TileAddresses {
  Value ptrs;
  Value mask;
};

Value splatI32(OpBuilder &b, Location loc, Value scalar, int64_t n) {
  return kcc::SplatOp::create(
      b, loc, RankedTensorType::get({n}, b.getI32Type()), scalar);
}

Value constI32(OpBuilder &b, Location loc, int64_t v, int64_t n) {
  auto t = RankedTensorType::get({n}, b.getI32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(t, b.getI32IntegerAttr(int32_t(v))));
}

TileAddresses addressesOf(OpBuilder &b, Location loc, Value base,
                          ValueRange dims, ValueRange strides,
                          ValueRange coords, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> scale) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  auto flatT = RankedTensorType::get({n}, b.getI32Type());
  auto i64T = RankedTensorType::get({n}, b.getI64Type());
  Value flat = kcc::ArangeOp::create(b, loc, flatT, 0u, uint32_t(n));
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value offset, mask;
  // The tensor's dimensions before the tile's (a batch) are indexed by one
  // element: a scalar index, bound check and offset shared by the tile.
  unsigned lead = dims.size() - shape.size();
  Value batchInside, batchOffset;
  for (unsigned d = 0; d < lead; ++d) {
    Value size = arith::MaxSIOp::create(b, loc, dims[d], zero);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         coords[d], size);
    batchInside = batchInside
                      ? arith::AndIOp::create(b, loc, batchInside, inside)
                      : inside;
    Value wide = arith::MulIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), coords[d]),
        arith::ExtSIOp::create(b, loc, b.getI64Type(), strides[d]));
    batchOffset =
        batchOffset ? arith::AddIOp::create(b, loc, batchOffset, wide) : wide;
  }
  // Index along tile dimension d of flat element f: (f / inner) % shape[d],
  // where inner is the product of the dimensions after d (powers of two).
  int64_t inner = n;
  for (unsigned d = 0; d < shape.size(); ++d) {
    unsigned td = lead + d; // the tensor's dimension
    inner /= shape[d];
    Value local = flat;
    if (inner > 1)
      local = arith::DivUIOp::create(b, loc, local, constI32(b, loc, inner, n));
    if (d > 0)
      local =
          arith::RemUIOp::create(b, loc, local, constI32(b, loc, shape[d], n));
    // Block coordinates count tiles, element ones (load_tile_at) elements.
    Value start =
        scale[d] == 1
            ? coords[td]
            : arith::MulIOp::create(
                  b, loc, coords[td],
                  arith::ConstantOp::create(
                      b, loc, b.getI32IntegerAttr(int32_t(scale[d]))));
    Value idx =
        arith::AddIOp::create(b, loc, splatI32(b, loc, start, n), local);
    // A negative size is an empty dimension (not a huge unsigned one).
    Value size = arith::MaxSIOp::create(b, loc, dims[td], zero);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         idx, splatI32(b, loc, size, n));
    mask = mask ? arith::AndIOp::create(b, loc, mask, inside) : inside;
    // Row-major: the offset of index (i, j) is i * stride0 + j, in 64 bits
    // (a tensor may hold more than 2^31 elements). Inside the mask the
    // indices are non-negative.
    Value wide = arith::ExtUIOp::create(b, loc, i64T, idx);
    if (td + 1 < dims.size()) {
      Value stride =
          arith::ExtSIOp::create(b, loc, b.getI64Type(), strides[td]);
      wide = arith::MulIOp::create(
          b, loc, wide, kcc::SplatOp::create(b, loc, i64T, stride));
    }
    offset = offset ? arith::AddIOp::create(b, loc, offset, wide) : wide;
  }
  if (batchInside) {
    mask = arith::AndIOp::create(
        b, loc, mask,
        kcc::SplatOp::create(b, loc, RankedTensorType::get({n}, b.getI1Type()),
                             batchInside));
    offset = arith::AddIOp::create(
        b, loc, offset, kcc::SplatOp::create(b, loc, i64T, batchOffset));
  }
  auto ptrT = RankedTensorType::get({n}, base.getType());
  Value ptrs = kcc::SplatOp::create(b, loc, ptrT, base);
  ptrs = kcc::AddPtrOp::create(b, loc, ptrT, ptrs, offset);
  return {ptrs, mask};
}

/// `v` as a 1-D tile (or `type` from a 1-D tile), free in the layout.
Value reshapeTo(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  if (v.getType() == type)
    return v;
  return kcc::ReshapeOp::create(b, loc, type, v);
}

struct ExpandTileAccesses
    : kcc::impl::KccExpandTileAccessesBase<ExpandTileAccesses> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](kcc::LoadTileOp op) {
      OpBuilder b(op);
      auto type = cast<RankedTensorType>(op.getType());
      TileAddresses a =
          addressesOf(b, op.getLoc(), op.getBase(), op.getDims(),
                      op.getStrides(), op.getCoords(), type.getShape(),
                      kcc::tileCoordScale(op, type.getShape()));
      Value other = op.getOther();
      Type elem = type.getElementType();
      auto flatT = RankedTensorType::get({type.getNumElements()}, elem);
      if (!other)
        other = arith::ConstantOp::create(b, op.getLoc(), b.getZeroAttr(elem));
      other = kcc::SplatOp::create(b, op.getLoc(), flatT, other);
      auto load =
          kcc::LoadOp::create(b, op.getLoc(), flatT, a.ptrs, a.mask, other);
      mark(load, op);
      Value flat = load;
      op.replaceAllUsesWith(reshapeTo(b, op.getLoc(), flat, type));
      op.erase();
    });
    getOperation().walk([&](kcc::StoreTileOp op) {
      OpBuilder b(op);
      auto type = cast<RankedTensorType>(op.getValue().getType());
      TileAddresses a =
          addressesOf(b, op.getLoc(), op.getBase(), op.getDims(),
                      op.getStrides(), op.getCoords(), type.getShape(),
                      kcc::tileCoordScale(op, type.getShape()));
      auto flatT = RankedTensorType::get({type.getNumElements()},
                                         type.getElementType());
      mark(kcc::StoreOp::create(b, op.getLoc(), a.ptrs,
                                reshapeTo(b, op.getLoc(), op.getValue(), flatT),
                                a.mask),
           op);
      op.erase();
    });
  }

  /// Records on the generated access why it is not a TMA copy, for
  /// --report: the TMA passes' reason on the tile access, else the pass
  /// option (set by the pipeline from the target model).
  void mark(Operation *access, Operation *tileAccess) {
    auto why = tileAccess->getAttrOfType<StringAttr>(kcc::KccDialect::kTmaRefusedAttr);
    access->setAttr(kcc::KccDialect::kTileAccessAttr,
                    why ? why : StringAttr::get(access->getContext(), tmaReason));
  }
};

} // namespace
