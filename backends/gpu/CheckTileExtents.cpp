//===- CheckTileExtents.cpp - tile shapes the lowering can lay out --------===//
//
// kcc-check-tile-extents (Passes.td). The language takes any tile extent;
// the register layouts do not: a thread-blocked layout maps an element's
// flat index to register, lane and warp bits, so its extents must be powers
// of two, while the tensor-core accumulators are tiled by their
// instruction's blocks (wgmma: 64 rows per warpgroup, 8 columns) and take
// any multiple of those. TMA stages take any box extent up to 256 and hold
// no registers. So a tile with an extent that is not a power of two is
// legal where it lives in an accumulator, in shared memory, or as an index
// computed from each register's coordinates (an arange broadcast into a
// wgmma accumulator), and refused elsewhere at its source location, before
// the lowering could compute wrong addresses.
//
//===----------------------------------------------------------------------===//

#include "backends/gpu/LoweringUtils.h"
#include "backends/gpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <string>

using namespace mlir;

namespace kcc::gpu {
#define GEN_PASS_DEF_CHECKTILEEXTENTS
#include "backends/gpu/Passes.h.inc"
} // namespace kcc::gpu

namespace {

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::interleave(
      shape, [&](int64_t d) { s += std::to_string(d); }, [&] { s += " x "; });
  return s;
}

/// Why an accumulator layout does not tile `shape` evenly; empty if it does.
std::string accumulatorMisfit(Attribute layout, ArrayRef<int64_t> shape) {
  int64_t rows = shape[0];
  if (auto wg = dyn_cast<kcc::WgmmaAccLayoutAttr>(layout)) {
    int64_t perBlock = 64 * wg.getWarpgroups();
    if (rows % perBlock)
      return std::to_string(rows) +
             " rows do not divide into 64-row blocks "
             "for each of its " +
             std::to_string(wg.getWarpgroups()) +
             " warpgroup(s) (a multiple of " + std::to_string(perBlock) +
             " rows would)";
    if (!kcc::isWgmmaRowSlice(shape) && shape[1] % 8)
      return std::to_string(shape[1]) +
             " columns are not a multiple of the "
             "8 that each register group of the accumulator covers";
    return "";
  }
  if (auto mfma = dyn_cast<kcc::MfmaAccLayoutAttr>(layout)) {
    int64_t perSlab = 16 * mfma.getWaves();
    if (rows % perSlab || shape.size() < 2 || shape[1] % 16)
      return "the MFMA accumulator holds 16 x 16 blocks, " +
             std::to_string(mfma.getWaves()) +
             " wave(s) deep: rows must be a multiple of " +
             std::to_string(perSlab) + " and columns of 16";
    return "";
  }
  if (auto tmem = dyn_cast<kcc::TmemAccLayoutAttr>(layout)) {
    int64_t perChunk = 32 * tmem.getWarpgroups();
    if (rows != 128 || shape.size() < 2 || shape[1] % perChunk)
      return "a tensor-memory accumulator read into registers has 128 rows "
             "and a multiple of " +
             std::to_string(perChunk) + " columns";
    return "";
  }
  return "";
}

/// An index tile the lowering never materializes: an arange (or its
/// expand_dims) whose every use is an expand_dims of the same kind or a
/// broadcast computed from each destination register's coordinates.
bool isCoordinateIndex(Value v) {
  Operation *def = v.getDefiningOp();
  if (!isa_and_nonnull<kcc::ArangeOp, kcc::ExpandDimsOp>(def))
    return false;
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    if (auto e = dyn_cast<kcc::ExpandDimsOp>(user))
      return isCoordinateIndex(e.getResult());
    auto b = dyn_cast<kcc::BroadcastOp>(user);
    return b && kcc::gpu::isArangeBroadcast(b) &&
           isa<kcc::WgmmaAccLayoutAttr>(b.getType().getEncoding());
  });
}

/// Why `v` cannot be laid out (empty if it can).
std::string refusal(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getEncoding())
    return "";
  ArrayRef<int64_t> shape = type.getShape();
  auto odd =
      llvm::find_if(shape, [](int64_t d) { return !llvm::isPowerOf2_64(d); });
  // Power-of-two tiles are what every layout was built for.
  if (odd == shape.end())
    return "";
  Attribute layout = type.getEncoding();
  if (kcc::gpu::isAccumulatorLayout(layout)) {
    std::string misfit = accumulatorMisfit(layout, shape);
    if (misfit.empty())
      return "";
    return "the " + shapeText(shape) +
           " tile here is held in a tensor-core accumulator whose blocks do "
           "not tile it: " +
           misfit + "; change the tile's extents";
  }
  if (isCoordinateIndex(v))
    return "";
  return "this " + shapeText(shape) + " tile has an extent (" +
         std::to_string(*odd) +
         ") that is not a power of two, and on this target it would be held "
         "in registers in a thread-blocked layout, which needs power-of-two "
         "extents; extents that are not powers of two are supported where "
         "the tile lives in TMA stages and tensor-core accumulators (wgmma "
         "on sm_90a; docs/language.md, \"Tiles\"): round it up to " +
         std::to_string(llvm::PowerOf2Ceil(*odd)) +
         " and mask the extra elements";
}

struct CheckTileExtents
    : kcc::gpu::impl::CheckTileExtentsBase<CheckTileExtents> {
  void runOnOperation() override {
    bool ok = true;
    // The first tile of each kernel that cannot be laid out: the ones
    // computed from it would repeat the same error.
    getOperation().walk([&](func::FuncOp func) {
      func.walk([&](Operation *op) {
        // A splat constant is the same value in every register (and the
        // canonicalizer's constants carry no source location): its users
        // are checked.
        if (auto c = dyn_cast<arith::ConstantOp>(op))
          if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
              dense && dense.isSplat())
            return WalkResult::advance();
        for (Value r : op->getResults())
          if (std::string why = refusal(r); !why.empty()) {
            Location loc = op->getLoc();
            emitError(isa<UnknownLoc>(loc) ? func.getLoc() : loc)
                << "kcc: " << why;
            ok = false;
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
