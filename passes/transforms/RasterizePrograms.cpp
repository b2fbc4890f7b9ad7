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
//   g    = b / max(N * gx, 1)                the group
//   size = max(min(gy - g * N, N), 1)        its rows (fewer in the last)
//   program_id(1) = g * N + (b % max(N * gx, 1)) % size
//   program_id(0) = (b % max(N * gx, 1)) / size
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
// Persistent launches (`persistent` = P > 0, kcc --persistent): the launch
// is one row of at most P CTAs per multiprocessor (the runtime launches
// min(x * z, processors * P) CTAs along x, z = 1), and each program runs
// tiles t = b, b + extent, ... < gx * gy * gz in an scf.for
// {kcc.persistent_tiles} whose body is the rest of the kernel: the batch
// (program_id(2)) is t / (gx * gy), and the program ids above are computed
// from t % (gx * gy); num_programs(2) becomes the marker's %gz. Tiles are
// numbered batch by batch so that the CTAs running together share few
// batches' operands in L2, as the one-program-per-tile launch's waves do.
// The loop is what lets kcc-pipeline-tma-loads carry a K
// loop's stage counter from one tile to the next, so that a producer
// warpgroup fills the next tile's stages while the consumers run this
// tile's epilogue. That build is a copy of the function, @<name>__persistent
// {kcc.persistent = P, kcc.persistent_of = @<name>}, next to the one-program-
// per-tile build: the launch runs it only when the grid has more than
// P x processors tiles. Where each CTA would run one tile the tile loop is
// pure cost (1.3-1.5 us at 1024^3 on an H200, docs/gemm.md), so the
// runtime launches the one-program-per-tile build there.
//
// Tiles whose loops run more trips the further along x they are (causal
// attention) would leave CTAs that take them in turn unevenly loaded: the
// persistent build pairs each tile with its mirror along x on one CTA
// (kcc.paired_tiles; docs/gemm.md, "Uneven tiles").
//
//===----------------------------------------------------------------------===//

#include "ir/SourceLocation.h"
#include "passes/Passes.h"
#include "passes/analysis/ReadOnlyMemory.h"
#include "passes/analysis/TileWork.h"
#include "passes/transforms/KernelBuilds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCRASTERIZEPROGRAMS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// Why a tile of `func` may not run twice, or "": a build that runs some
/// tile again (the last cluster's second CTA with an odd number of tile
/// rows) must give the same result: no atomics, and no load from memory
/// the kernel writes (a second run would read the first one's output).
std::string rerunRefusal(func::FuncOp func) {
  std::string why;
  kcc::ReadOnlyMemory readOnly(func);
  func.walk([&](Operation *op) {
    Value read;
    if (isa<kcc::AtomicRMWOp, kcc::AtomicCASOp>(op))
      why = "it has atomics";
    else if (auto load = dyn_cast<kcc::LoadOp>(op))
      read = load.getPtr();
    else if (auto tile = dyn_cast<kcc::LoadTileOp>(op))
      read = tile.getBase();
    if (read && !readOnly.isReadOnly(read))
      why = "it reads memory it writes";
    return why.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return why;
}

/// group(1)'s order is the grid's own (x fastest, then y): without
/// clusters the one-CTA-per-tile build keeps its 2-D launch and program ids
/// (measured faster on causal attention, H200); only a persistent build
/// numbers the tiles.
bool keepsGrid(kcc::ProgramGridOp marker, unsigned cluster) {
  return marker.getGroup() == 1 && cluster < 2;
}

/// Rewrites one function around its marker; reports and fails on IR the
/// frontend never makes (two markers, a program id the marker's extents do
/// not dominate, a malformed kcc.grid). `cluster` > 1 launches it as
/// clusters of that many CTAs (kcc.cluster) where rerunRefusal allows.
LogicalResult rasterize(func::FuncOp func, kcc::ProgramGridOp marker,
                        unsigned persistent, unsigned cluster = 0) {
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
  // A persistent build runs every batch's tiles from its one tile loop: it
  // computes the batch (program_id(2)) from the tile, and num_programs(2)
  // is the marker's gz.
  Value gz = marker.getGz();
  unsigned axes = persistent && gz ? 3 : 2;
  func.walk([&](kcc::ProgramIdOp op) {
    if (op.getAxis() < axes) {
      afterMarker(op);
      ids.push_back(op);
    }
  });
  func.walk([&](kcc::NumProgramsOp op) {
    if (op.getAxis() < axes) {
      afterMarker(op);
      counts.push_back(op);
    }
  });
  if (!dominated)
    return failure();
  auto zExpr = dyn_cast<StringAttr>(grid[2]);
  if (persistent && !gz && zExpr && !zExpr.getValue().empty() &&
      zExpr.getValue() != "1")
    return marker.emitError("the persistent build of a kernel with a third "
                            "grid axis needs its extent: kcc.program_grid "
                            "%gx, %gy, %gz");

  // The grouped order, computed once where the extents are known.
  OpBuilder b(marker);
  b.setInsertionPointAfter(marker);
  Location loc = marker.getLoc();
  Value gx = marker.getGx(), gy = marker.getGy();
  Type i32 = b.getI32Type();
  Value n = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(int32_t(marker.getGroup())));
  Value flat = kcc::ProgramIdOp::create(b, loc, i32, uint32_t(0));
  Value batch;
  // Clusters of `pair` CTAs along x: the grouped order runs over clusters
  // (flat / pair, whose tile rows are pair rows high), and CTA rank =
  // flat % pair takes one row of its cluster's (kcc-multicast-tma-loads
  // shares the loads they make alike).
  unsigned pair = 0;
  Value rank, rows = gy, pairSize;
  if (cluster > 1) {
    if (std::string why = rerunRefusal(func); !why.empty()) {
      func->setAttr(
          kcc::KccDialect::kClusterRefusedAttr,
          b.getStringAttr(why + ": with an odd number of tile rows the last "
                                "cluster's second CTA computes its partner's "
                                "tile again, which must give the same result"));
    } else {
      pair = cluster;
      pairSize =
          arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(pair)));
      Value size = pairSize;
      rank = arith::RemSIOp::create(b, loc, flat, size);
      flat = arith::DivSIOp::create(b, loc, flat, size);
      Value below = arith::ConstantOp::create(
          b, loc, b.getI32IntegerAttr(int32_t(pair - 1)));
      rows = arith::DivSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, gy, below), size);
      n = arith::ConstantOp::create(
          b, loc,
          b.getI32IntegerAttr(
              int32_t(std::max<int64_t>(marker.getGroup() / pair, 1))));
      func->setAttr(kcc::KccDialect::kClusterAttr,
                    b.getI32IntegerAttr(int32_t(pair)));
    }
  }
  // Paired tiles (persistent builds without clusters): where the trip
  // counts grow or shrink along x alone, pair slot s runs x = i and its
  // mirror x = gx - 1 - i (i < gx / 2), the longer one first, on the same
  // CTA back to back, so every CTA's pairs cost about the same. An odd
  // gx's middle column has no mirror: its tiles come after the pairs'.
  kcc::TileWork work;
  if (persistent && !pair) {
    work = kcc::tileWorkAlongX(func);
    if (work.kind != kcc::TileWork::Grows &&
        work.kind != kcc::TileWork::Shrinks)
      work = kcc::TileWork();
  }
  bool paired = work.loop != nullptr;
  Value gxOrder = gx, pairs, isPair, second;
  if (persistent) {
    // The tiles of this program: the rest of the body runs once per tile.
    // Tiles are numbered batch by batch, so the CTAs that run together work
    // on neighbouring tiles of few batches, as a one-CTA-per-tile launch's
    // waves do (a CTA per batch slice would spread them over every batch,
    // and the batches' operands would compete for L2).
    // Clusters: the tile loop runs over the clusters' tiles (pairs of
    // rows), each cluster's CTAs taking the same ones.
    Value extent = kcc::NumProgramsOp::create(b, loc, i32, uint32_t(0));
    if (pair)
      extent = arith::DivSIOp::create(b, loc, extent, pairSize);
    Value perBatch = arith::MulIOp::create(b, loc, gx, rows);
    Value tiles =
        gz ? arith::MulIOp::create(b, loc, perBatch, gz).getResult() : perBatch;
    Value pairsPerBatch;
    if (paired) {
      Value two = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(2));
      pairsPerBatch = arith::MulIOp::create(
          b, loc, arith::DivSIOp::create(b, loc, gx, two), rows);
      pairs = gz ? arith::MulIOp::create(b, loc, pairsPerBatch, gz).getResult()
                 : pairsPerBatch;
    }
    // Its one iter_arg counts the program's tiles (0, 1, ...): the phase of
    // a once-per-tile barrier (kcc-materialize-tma-copies) comes from it.
    Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    auto loop = scf::ForOp::create(
        b, loc, flat, tiles, extent, ValueRange{zero},
        [&](OpBuilder &lb, Location l, Value, ValueRange iter) {
          Value one = arith::ConstantOp::create(lb, l, lb.getI32IntegerAttr(1));
          scf::YieldOp::create(
              lb, l,
              ValueRange{arith::AddIOp::create(lb, l, iter.front(), one)});
        });
    loop->setAttr(kcc::KccDialect::kPersistentTilesAttr, b.getUnitAttr());
    if (paired)
      loop->setAttr(kcc::KccDialect::kPairedTilesAttr,
                    b.getStringAttr(kcc::sourceLocationText(
                        work.loop->getLoc(), /*baseName=*/true)));
    Block *body = loop.getBody();
    body->getOperations().splice(
        std::prev(body->end(), 3), entry.getOperations(),
        std::next(loop->getIterator()), entry.getTerminator()->getIterator());
    func->setAttr(kcc::KccDialect::kPersistentAttr,
                  b.getI32IntegerAttr(int32_t(persistent)));
    b.setInsertionPointToStart(body);
    flat = loop.getInductionVar();
    if (paired) {
      // The pairs' tiles first: blocks of 2 x extent tiles hold `extent`
      // pair slots (fewer in the last, `width` of them), the first `width`
      // tiles of a block its slots' first tiles, the rest their mirrors, so
      // CTA b takes both tiles of slot b. Then the middle column's tiles,
      // one each, as the grouped order of a grid one column wide.
      Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
      Value two = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(2));
      Value pairTiles = arith::AddIOp::create(b, loc, pairs, pairs);
      isPair = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, flat,
                                     pairTiles);
      Value twice = arith::MaxSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, extent, extent), one);
      Value base = arith::MulIOp::create(
          b, loc, arith::DivSIOp::create(b, loc, flat, twice), extent);
      Value width = arith::MinSIOp::create(
          b, loc, extent, arith::SubIOp::create(b, loc, pairs, base));
      Value inBlock = arith::SubIOp::create(
          b, loc, arith::SubIOp::create(b, loc, flat, base), base);
      second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, inBlock,
                                     width);
      Value slot = arith::AddIOp::create(
          b, loc, base,
          arith::SelectOp::create(b, loc, second,
                                  arith::SubIOp::create(b, loc, inBlock, width),
                                  inBlock));
      flat = arith::SelectOp::create(
          b, loc, isPair, slot, arith::SubIOp::create(b, loc, flat, pairTiles));
      gxOrder = arith::SelectOp::create(
          b, loc, isPair, arith::DivSIOp::create(b, loc, gx, two), one);
      perBatch = arith::MaxSIOp::create(
          b, loc, arith::MulIOp::create(b, loc, gxOrder, rows), one);
    }
    if (gz) {
      batch = arith::DivSIOp::create(b, loc, flat, perBatch);
      flat = arith::RemSIOp::create(b, loc, flat, perBatch);
    }
  }
  // Both divisors are clamped to 1: a no-op for every program of a launch
  // (gx >= 1, b < gx * gy), but it keeps the ids defined for any b and gx,
  // which the async verifier chooses apart from the grid (a causal
  // attention loop's bound reads program_id(0)).
  Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
  Value inGroup = arith::MaxSIOp::create(
      b, loc, arith::MulIOp::create(b, loc, n, gxOrder), one);
  Value group = arith::DivSIOp::create(b, loc, flat, inGroup);
  Value first = arith::MulIOp::create(b, loc, group, n);
  Value size = arith::MaxSIOp::create(
      b, loc,
      arith::MinSIOp::create(b, loc, arith::SubIOp::create(b, loc, rows, first),
                             n),
      one);
  Value inGroupIndex = arith::RemSIOp::create(b, loc, flat, inGroup);
  Value pid1 = arith::AddIOp::create(
      b, loc, first, arith::RemSIOp::create(b, loc, inGroupIndex, size));
  Value pid0 = arith::DivSIOp::create(b, loc, inGroupIndex, size);
  if (paired) {
    // A slot's first tile is the longer one; the middle column is gx / 2.
    Value mirror = arith::SubIOp::create(
        b, loc, arith::SubIOp::create(b, loc, gx, one), pid0);
    bool grows = work.kind == kcc::TileWork::Grows;
    Value inPair = arith::SelectOp::create(
        b, loc, second, grows ? pid0 : mirror, grows ? mirror : pid0);
    Value middle = arith::DivSIOp::create(
        b, loc, gx, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(2)));
    pid0 = arith::SelectOp::create(b, loc, isPair, inPair, middle);
  }
  if (pair) {
    Value size = pairSize;
    Value last = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, gy, one),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    pid1 = arith::MinSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, pid1, size),
                              rank),
        last);
  }

  Value pids[] = {pid0, pid1, batch}, extents[] = {gx, gy, gz};
  for (kcc::ProgramIdOp op : ids) {
    op.replaceAllUsesWith(pids[op.getAxis()]);
    op.erase();
  }
  for (kcc::NumProgramsOp op : counts) {
    op.replaceAllUsesWith(extents[op.getAxis()]);
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
  // Clusters: whole clusters of rows (the launch's x extent is a multiple
  // of the cluster's, as a cluster launch needs).
  std::string rowsExpr = pair ? "((" + ey + " + " + std::to_string(pair - 1) +
                                    ") / " + std::to_string(pair) + " * " +
                                    std::to_string(pair) + ")"
                              : ey;
  std::string flatGrid =
      "(" + ex + " < 0 || " + ey + " < 0 ? -1 : " + ex + " * " + rowsExpr + ")";
  // A third axis (a batch) keeps its extent and its program ids, along z.
  // The persistent build of a group(1) kernel without clusters launches
  // like its one-CTA-per-tile build, which keeps the 2-D grid (its tiles
  // are the grid's programs: the runtime counts x * y * z of either).
  if (!(persistent && keepsGrid(marker, cluster)))
    func->setAttr(kcc::KccDialect::kGridAttr,
                  b.getStrArrayAttr({flatGrid, "1", expr(2)}));
  marker.erase();
  return success();
}

/// The persistent build of `func` (kcc --persistent): a copy named
/// <name>__persistent after it, recording which build it stands in for.
FailureOr<func::FuncOp> clonePersistent(func::FuncOp func) {
  FailureOr<func::FuncOp> copy =
      kcc::cloneBuild(func, "__persistent", kcc::KccDialect::kPersistentOfAttr,
                      "a persistent build", /*ranked=*/true);
  // A target that cannot compile it (shared memory, registers) drops it:
  // the launch then runs one program per tile there (tools/kcc/Driver.cpp).
  if (succeeded(copy))
    kcc::tagBuildLocations(*copy, kcc::kPersistentLocPrefix);
  return copy;
}

struct RasterizePrograms
    : kcc::impl::KccRasterizeProgramsBase<RasterizePrograms> {
  using KccRasterizeProgramsBase::KccRasterizeProgramsBase;
  void runOnOperation() override {
    llvm::StringSet<> warned;
    // The list is taken first: persistent builds are added as it goes.
    auto funcs = llvm::to_vector(getOperation().getOps<func::FuncOp>());
    for (auto func : funcs) {
      SmallVector<kcc::ProgramGridOp> markers;
      func.walk([&](kcc::ProgramGridOp op) { markers.push_back(op); });
      if (markers.empty()) {
        // Once per kernel, not per specialization.
        auto base =
            func->getAttrOfType<StringAttr>(kcc::KccDialect::kBaseNameAttr);
        StringRef name = base ? base.getValue() : func.getSymName();
        if (persistent && func->hasAttr(kcc::KccDialect::kKernelAttr) &&
            warned.insert(name).second)
          func.emitWarning("kernel '")
              << name
              << "' has no group(N) clause: --persistent launches only "
                 "group(N) kernels persistently; this one keeps one CTA per "
                 "program";
        continue;
      }
      if (markers.size() > 1) {
        markers[1].emitError("a kernel has at most one kcc.program_grid");
        return signalPassFailure();
      }
      // Both builds: the launch picks the persistent one only when CTAs
      // would run more than one tile each.
      if (persistent) {
        FailureOr<func::FuncOp> copy = clonePersistent(func);
        kcc::ProgramGridOp marker;
        if (succeeded(copy))
          copy->walk([&](kcc::ProgramGridOp op) { marker = op; });
        if (failed(copy) ||
            failed(rasterize(*copy, marker, persistent, cluster)))
          return signalPassFailure();
      }
      if (keepsGrid(markers.front(), cluster)) {
        markers.front().erase();
        continue;
      }
      if (failed(rasterize(func, markers.front(), /*persistent=*/0, cluster)))
        return signalPassFailure();
    }
  }
};

} // namespace
