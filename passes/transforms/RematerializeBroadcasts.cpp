//===- RematerializeBroadcasts.cpp - index math at the broadcast's shape --===//
//
// kcc-rematerialize-broadcasts (Passes.td). Tiles are laid out by element
// count, so broadcasting a row or column (`rows[:, None] * stride`,
// `cols[None, :] < n`) to a 2-D tile is a relayout through shared memory
// with two barriers, in every iteration of the loop that computes the
// addresses: the cliff of the pointer-tile formulations. Such a source is
// nearly always index math, cheap to compute again at the broadcast's shape.
// The broadcast is pushed through the elementwise ops (arith, kcc.addptr)
// down to the leaves: splats and constants become splats and constants of
// the full shape, and an arange becomes a broadcast of the arange itself,
// which the lowering computes from each element's coordinate without any
// data movement (TileOpsToLLVM.cpp, BroadcastLowering). A load in the
// source (GEMV's x[None, :]) is issued again at the full shape, each thread
// reading the elements it needs (from L1 after the first), in kernels
// without a dot and provided nothing between the load and the broadcast may
// write memory. A source that
// reduces or reads a block argument keeps its broadcast.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "ir/Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kcc;

namespace kcc {
#define GEN_PASS_DEF_KCCREMATERIALIZEBROADCASTS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Ops cloned per broadcast at most: index math is a handful of them.
constexpr unsigned kMaxOps = 32;

/// Whether `load` may be issued again at `at`, later in its block: no op in
/// between may write memory. Not in kernels with a dot: a row broadcast
/// into a dot's accumulator (a bias) has its own path from a small buffer
/// (broadcastToAccumulator), and a full-shape copy of it would cost a
/// relayout of the whole tile into the accumulator's layout.
bool loadMovable(LoadOp load, Operation *at, bool kernelHasDot) {
  if (kernelHasDot || load->getBlock() != at->getBlock())
    return false;
  for (Operation *op = load->getNextNode(); op && op != at;
       op = op->getNextNode())
    if (!isa<LoadOp>(op) && !isMemoryEffectFree(op))
      return false;
  return true;
}

bool isElementwise(Operation *op) {
  if (isa<AddPtrOp>(op))
    return true;
  return isa_and_nonnull<arith::ArithDialect>(op->getDialect()) &&
         op->getNumResults() == 1 && op->getNumRegions() == 0 &&
         !isa<arith::ConstantOp>(op) &&
         llvm::all_of(op->getOperandTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

/// Whether `v` (to be broadcast after inserting a unit dimension at
/// `expandAxis`, if not -1) can be computed again at the full shape, and
/// how many ops that clones.
bool rematerializable(Value v, int expandAxis, Operation *at, bool kernelHasDot,
                      unsigned &ops) {
  Operation *def = v.getDefiningOp();
  if (!def || ++ops > kMaxOps)
    return false;
  if (isa<SplatOp>(def))
    return true;
  if (auto c = dyn_cast<arith::ConstantOp>(def))
    return isa<SplatElementsAttr>(c.getValue());
  if (auto a = dyn_cast<ArangeOp>(def))
    return expandAxis >= 0;
  if (auto e = dyn_cast<ExpandDimsOp>(def))
    return expandAxis < 0 && e.getSrc().getType().getRank() == 1 &&
           rematerializable(e.getSrc(), e.getAxis(), at, kernelHasDot, ops);
  if (auto b = dyn_cast<BroadcastOp>(def))
    return expandAxis < 0 &&
           rematerializable(b.getSrc(), -1, at, kernelHasDot, ops);
  auto load = dyn_cast<LoadOp>(def);
  if (!isElementwise(def) && !(load && loadMovable(load, at, kernelHasDot)))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value o) {
    return rematerializable(o, expandAxis, at, kernelHasDot, ops);
  });
}

/// `v` expanded at `expandAxis` (if not -1) and broadcast to `shape`.
Value rematerialize(OpBuilder &b, Location loc, Value v, int expandAxis,
                    ArrayRef<int64_t> shape, Attribute encoding) {
  Operation *def = v.getDefiningOp();
  auto full = [&](Type elem) {
    return RankedTensorType::get(shape, elem, encoding);
  };
  Type elem = cast<RankedTensorType>(v.getType()).getElementType();
  if (auto s = dyn_cast<SplatOp>(def))
    return SplatOp::create(b, loc, full(elem), s.getSrc());
  if (auto c = dyn_cast<arith::ConstantOp>(def))
    return arith::ConstantOp::create(
        b, loc,
        SplatElementsAttr::get(
            full(elem),
            cast<SplatElementsAttr>(c.getValue()).getSplatValue<Attribute>()));
  if (isa<ArangeOp>(def)) {
    Value e = ExpandDimsOp::create(
        b, loc,
        RankedTensorType::get(expandAxis == 0
                                  ? SmallVector<int64_t>{1, shape[1]}
                                  : SmallVector<int64_t>{shape[0], 1},
                              elem),
        v, b.getI32IntegerAttr(expandAxis));
    return BroadcastOp::create(b, loc, full(elem), e);
  }
  if (auto e = dyn_cast<ExpandDimsOp>(def))
    return rematerialize(b, loc, e.getSrc(), e.getAxis(), shape, encoding);
  if (auto bc = dyn_cast<BroadcastOp>(def))
    return rematerialize(b, loc, bc.getSrc(), -1, shape, encoding);
  SmallVector<Value> operands;
  for (Value o : def->getOperands())
    operands.push_back(rematerialize(b, loc, o, expandAxis, shape, encoding));
  OperationState state(loc, def->getName(), operands,
                       TypeRange{full(getElementTypeOrSelf(def->getResult(0)))},
                       def->getAttrs());
  return b.create(state)->getResult(0);
}

struct RematerializeBroadcasts
    : kcc::impl::KccRematerializeBroadcastsBase<RematerializeBroadcasts> {
  void runOnOperation() override {
    SmallVector<BroadcastOp> broadcasts;
    getOperation().walk([&](func::FuncOp func) {
      // The tensor-core materializations run before this pass: their ops
      // are the kernel's dots too (a load broadcast into a product's row
      // scale, issued again at the full shape in the accumulator's layout,
      // would be a load kcc cannot lower there).
      bool hasDot = func.walk([](Operation *op) {
                          return isa<DotOp, WarpgroupMmaOp, WarpgroupMmaRegAOp,
                                     WarpMmaOp, Tcgen05MmaOp>(op)
                                     ? WalkResult::interrupt()
                                     : WalkResult::advance();
                        })
                        .wasInterrupted();
      func.walk([&](BroadcastOp op) {
        auto dst = op.getType();
        unsigned ops = 0;
        // Plain tiles, and the wgmma accumulator layout (a mask of
        // attention's scores: each register's coordinates are known).
        if (dst.getRank() == 2 &&
            (!dst.getEncoding() ||
             isa<WgmmaAccLayoutAttr>(dst.getEncoding())) &&
            op.getSrc().getType().getNumElements() > 1 &&
            !isLeafBroadcast(op) &&
            rematerializable(op.getSrc(), -1, op, hasDot, ops))
          broadcasts.push_back(op);
      });
    });
    for (BroadcastOp op : broadcasts) {
      OpBuilder b(op);
      Value v =
          rematerialize(b, op.getLoc(), op.getSrc(), -1,
                        op.getType().getShape(), op.getType().getEncoding());
      op.replaceAllUsesWith(v);
      op.erase();
    }
  }

  /// A broadcast of an expanded arange: what the pass leaves.
  static bool isLeafBroadcast(BroadcastOp op) {
    auto e = op.getSrc().getDefiningOp<ExpandDimsOp>();
    return e && e.getSrc().getDefiningOp<ArangeOp>();
  }
};

} // namespace
