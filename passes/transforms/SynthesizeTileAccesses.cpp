//===- SynthesizeTileAccesses.cpp - pointer tiles to tensor accesses ------===//
//
// kcc-synthesize-tile-accesses (Passes.td): descriptor synthesis. A kernel
// written with tiles of pointers, as Triton's tutorials teach, says the same
// as one written with tensor<> and load_tile whenever its addresses are a
// strided box and its masks the box's bounds; lifting it to load_tile gives
// its dots everything the tensor form gets (TMA pipelines into swizzled
// shared memory and wgmma on sm_90a, cp.async stages on sm_80), with tensor
// maps the launch stub encodes from the kernel's own scalar arguments. The
// reading of the address is passes/analysis/StridedBoxes.cpp.
//
// Only kernels with a dot are lifted: a memory-bound kernel reads each
// element once into registers, where vector loads already move it at the
// rate of the memory.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/StridedBoxes.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kcc;

namespace kcc {
#define GEN_PASS_DEF_KCCSYNTHESIZETILEACCESSES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

Value materialize(OpBuilder &b, Location loc, OpFoldResult r) {
  if (auto v = dyn_cast<Value>(r))
    return v;
  return b.create<arith::ConstantIntOp>(
      loc, cast<IntegerAttr>(cast<Attribute>(r)).getInt(), 32);
}

/// `m`, `2147483647` or `?` for --report.
std::string text(func::FuncOp func, OpFoldResult r) {
  if (auto a = dyn_cast<Attribute>(r))
    return std::to_string(cast<IntegerAttr>(a).getInt());
  APInt c;
  if (matchPattern(cast<Value>(r), m_ConstantInt(&c)))
    return std::to_string(c.getSExtValue());
  auto names = func->getAttrOfType<ArrayAttr>(KccDialect::kArgNamesAttr);
  auto arg = dyn_cast<BlockArgument>(cast<Value>(r));
  if (names && arg && arg.getArgNumber() < names.size())
    return cast<StringAttr>(names[arg.getArgNumber()]).str();
  return "?";
}

std::string describe(func::FuncOp func, const StridedBox &box) {
  std::string sizes, strides;
  for (OpFoldResult s : box.sizes) {
    std::string t = text(func, s);
    sizes += (sizes.empty() ? "" : ", ") +
             (t == "2147483647" ? std::string("unbounded") : t);
  }
  for (OpFoldResult s : box.strides)
    strides += (strides.empty() ? "" : ", ") + text(func, s);
  std::string out = "the tile of pointers is a box of the tensor at " +
                    text(func, box.base) + " with sizes [" + sizes + "]";
  if (!strides.empty())
    out += " and row stride " + strides;
  return out;
}

struct SynthesizeTileAccesses
    : kcc::impl::KccSynthesizeTileAccessesBase<SynthesizeTileAccesses> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(KccDialect::kKernelAttr) && !func.isExternal())
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    bool hasDot = func.walk([](DotOp) { return WalkResult::interrupt(); })
                      .wasInterrupted();
    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (isa<LoadOp, StoreOp>(op) &&
          isa<RankedTensorType>(op->getOperand(0).getType()))
        accesses.push_back(op);
    });
    SetVector<Operation *> maybeDead;
    for (Operation *op : accesses) {
      if (!hasDot) {
        op->setAttr(KccDialect::kLiftRefusedAttr,
                    StringAttr::get(ctx, "the kernel has no dot: kcc lifts "
                                         "tiles of pointers to tensor maps "
                                         "for dots and their epilogues"));
        continue;
      }
      std::string why;
      std::optional<StridedBox> box = liftStridedBox(op, why);
      if (!box) {
        op->setAttr(KccDialect::kLiftRefusedAttr, StringAttr::get(ctx, why));
        continue;
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> sizes, strides, coords;
      for (OpFoldResult r : box->sizes)
        sizes.push_back(materialize(b, loc, r));
      for (OpFoldResult r : box->strides)
        strides.push_back(materialize(b, loc, r));
      for (OpFoldResult r : box->coords)
        coords.push_back(materialize(b, loc, r));
      Operation *lifted;
      if (auto load = dyn_cast<LoadOp>(op)) {
        auto tile = b.create<LoadTileOp>(loc, load.getType(), box->base, sizes,
                                         strides, coords, box->other);
        load.replaceAllUsesWith(tile.getResult());
        lifted = tile;
      } else {
        lifted = b.create<StoreTileOp>(loc, cast<StoreOp>(op).getValue(),
                                       box->base, sizes, strides, coords);
      }
      lifted->setAttr(KccDialect::kLiftedAttr,
                      StringAttr::get(ctx, describe(func, *box)));
      if (!box->tmaRefusal.empty())
        lifted->setAttr(KccDialect::kTmaRefusedAttr,
                        StringAttr::get(ctx, box->tmaRefusal));
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp())
          maybeDead.insert(def);
      op->erase();
    }
    // The address and mask arithmetic the lifted accesses no longer use.
    while (!maybeDead.empty()) {
      Operation *op = maybeDead.pop_back_val();
      if (!isOpTriviallyDead(op))
        continue;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp())
          maybeDead.insert(def);
      op->erase();
    }
  }
};

} // namespace
