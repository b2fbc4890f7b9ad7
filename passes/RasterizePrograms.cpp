//===- RasterizePrograms.cpp - launch a 2-D grid in grouped order ---------===//
//
// A kernel with `group(N)` (docs/language.md, "Grid") is written over a 2-D
// grid (gx, gy) and launched as a 1-D grid of gx * gy programs in grouped
// order, so that the programs that run together share rows and columns of
// their operands in L2. The frontend leaves the kernel in its 2-D form, with
// a kcc.program_grid %gx, %gy {group = N} marker at the top of the body:
// analyses of the tile IR see affine program ids and the 2-D kcc.grid.
// This pass makes the launch flat. From the one program id b of the 1-D
// launch:
//
//   g    = b / (N * gx)                      the group
//   size = min(gy - g * N, N)                its rows (fewer in the last)
//   program_id(1) = g * N + (b % (N * gx)) % size
//   program_id(0) = (b % (N * gx)) / size
//
// (signed i32 arithmetic, what bench/gemm/gemm.kc wrote by hand before), and
// num_programs(0) / num_programs(1) become %gx / %gy. program_id(2) and
// num_programs(2) stay: a 3-D grid's third axis (a batch) is launched along
// z as written, each batch's programs in grouped order.
// kcc.grid becomes ["((gx) < 0 || (gy) < 0 ? -1 : (gx) * (gy))", "1", gz]
// (a negative extent stays an error at launch) from the original C
// expressions, so the stubs, the manifest and the simulator launch the
// flat grid (kcc-difftest's interpreter leg, the reference, runs the
// kernel as written, over its 2-D grid). The marker is erased; kcc.raster_group
// is kept on the function as a record that the flat launch is grouped (it
// no longer drives anything). A function without a marker is untouched, so
// running the pass twice changes nothing.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCRASTERIZEPROGRAMS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Rewrites one function around its marker; reports and fails on IR the
/// frontend never makes (two markers, a program id the marker's extents do
/// not dominate, a malformed kcc.grid).
LogicalResult rasterize(func::FuncOp func, kcc::ProgramGridOp marker) {
  Block &entry = func.getBody().front();
  if (marker->getBlock() != &entry)
    return marker.emitError("kcc.program_grid must be in the entry block of "
                            "the kernel");
  auto grid = func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kGridAttr);
  if (!grid || grid.size() != 3)
    return marker.emitError("a kernel with kcc.program_grid needs a kcc.grid "
                            "of three C expressions");

  SmallVector<kcc::ProgramIdOp> ids;
  SmallVector<kcc::NumProgramsOp> counts;
  bool dominated = true;
  auto afterMarker = [&](Operation *op) {
    Operation *top = entry.findAncestorOpInBlock(*op);
    if (!top || !marker->isBeforeInBlock(top)) {
      op->emitError("program ids must be computed after kcc.program_grid, "
                    "whose extents they are rewritten to use");
      dominated = false;
    }
  };
  func.walk([&](kcc::ProgramIdOp op) {
    if (op.getAxis() < 2) {
      afterMarker(op);
      ids.push_back(op);
    }
  });
  func.walk([&](kcc::NumProgramsOp op) {
    if (op.getAxis() < 2) {
      afterMarker(op);
      counts.push_back(op);
    }
  });
  if (!dominated)
    return failure();

  // The grouped order, computed once where the extents are known.
  OpBuilder b(marker);
  b.setInsertionPointAfter(marker);
  Location loc = marker.getLoc();
  Value gx = marker.getGx(), gy = marker.getGy();
  Type i32 = b.getI32Type();
  Value n = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(int32_t(marker.getGroup())));
  Value flat = kcc::ProgramIdOp::create(b, loc, i32, uint32_t(0));
  Value inGroup = arith::MulIOp::create(b, loc, n, gx);
  Value group = arith::DivSIOp::create(b, loc, flat, inGroup);
  Value first = arith::MulIOp::create(b, loc, group, n);
  Value size = arith::MinSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, gy, first), n);
  Value inGroupIndex = arith::RemSIOp::create(b, loc, flat, inGroup);
  Value pid1 = arith::AddIOp::create(
      b, loc, first, arith::RemSIOp::create(b, loc, inGroupIndex, size));
  Value pid0 = arith::DivSIOp::create(b, loc, inGroupIndex, size);

  for (kcc::ProgramIdOp op : ids) {
    op.replaceAllUsesWith(op.getAxis() == 0 ? pid0 : pid1);
    op.erase();
  }
  for (kcc::NumProgramsOp op : counts) {
    op.replaceAllUsesWith(op.getAxis() == 0 ? gx : gy);
    op.erase();
  }

  // The launch: gx * gy programs along x. The stubs evaluate kcc.grid in
  // int64_t, so the product does not wrap where the factors fit.
  auto expr = [&](unsigned axis) {
    auto s = dyn_cast<StringAttr>(grid[axis]);
    return s && !s.getValue().empty() ? s.getValue().str() : "1";
  };
  // A negative extent stays negative (the launch refuses it, as it would
  // the 2-D grid) instead of two of them multiplying to a positive grid.
  std::string ex = "(" + expr(0) + ")", ey = "(" + expr(1) + ")";
  std::string flatGrid =
      "(" + ex + " < 0 || " + ey + " < 0 ? -1 : " + ex + " * " + ey + ")";
  // A third axis (a batch) keeps its extent and its program ids, along z.
  func->setAttr(kcc::KccDialect::kGridAttr,
                b.getStrArrayAttr({flatGrid, "1", expr(2)}));
  marker.erase();
  return success();
}

struct RasterizePrograms
    : kcc::impl::KccRasterizeProgramsBase<RasterizePrograms> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<kcc::ProgramGridOp> markers;
      func.walk([&](kcc::ProgramGridOp op) { markers.push_back(op); });
      if (markers.empty())
        continue;
      if (markers.size() > 1) {
        markers[1].emitError("a kernel has at most one kcc.program_grid");
        return signalPassFailure();
      }
      if (failed(rasterize(func, markers.front())))
        return signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<Pass> kcc::createRasterizePrograms() {
  return std::make_unique<RasterizePrograms>();
}
