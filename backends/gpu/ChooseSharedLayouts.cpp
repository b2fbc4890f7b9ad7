//===- ChooseSharedLayouts.cpp - pad shared buffers with the bank model ---===//
//
// kcc-choose-shared-layouts (Passes.td). A relayout (broadcast, expand_dims
// or reshape between layouts, trans) moves a tile through a shared-memory
// buffer: every thread stores its registers in the source layout and loads
// them back in the destination layout. Whether those accesses conflict
// depends on the buffer's layout and on the target's banks (NVIDIA shared
// memory, AMD LDS with its per-width lane phases), so each candidate is
// evaluated with the exact addresses the lowering will emit
// (SharedAccesses.cpp).
//
//===----------------------------------------------------------------------===//

#include "backends/gpu/LoweringUtils.h"
#include "backends/gpu/Passes.h"
#include "backends/gpu/SharedAccesses.h"

#include "ir/TargetLookup.h"
#include "targets/BankConflicts.h"

#include "llvm/Support/Error.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

namespace kcc::gpu {
#define GEN_PASS_DEF_CHOOSESHAREDLAYOUTS
#include "backends/gpu/Passes.h.inc"
} // namespace kcc::gpu

namespace {

/// Shared-memory cycles of `op`'s accesses with `padding`, or nullopt when
/// the model cannot evaluate one of them (then the candidate is not used).
std::optional<int64_t> wavefronts(Operation *op, const SmemPadding &padding,
                                  const BankGeometry &geometry) {
  int64_t total = 0;
  for (const SharedAccess &a : describeSharedAccesses(op, padding))
    for (const auto &lanes : a.warps) {
      llvm::Expected<BankConflictResult> r = analyzeBankConflicts(
          geometry, lanes, a.bytes,
          a.isStore ? SharedAccessKind::Store : SharedAccessKind::Load);
      if (!r) {
        llvm::consumeError(r.takeError());
        return std::nullopt;
      }
      total += r->wavefronts;
    }
  return total;
}

struct ChooseSharedLayouts
    : kcc::gpu::impl::ChooseSharedLayoutsBase<ChooseSharedLayouts> {
  using Base::Base;

  void runOnOperation() override {
    BankGeometry g;
    if (targetName.empty() && !vendor.empty()) {
      g = vendor == "amd" ? amdLdsGeometry() : nvidiaSharedGeometry();
    } else {
      // NVIDIA's geometry (the built-in sm_90a's) where nothing names one.
      const TargetModel *model =
          lookupTarget(getOperation(), targetName, getArgument(), "sm_90a");
      if (!model)
        return signalPassFailure();
      g = bankGeometry(*model);
    }
    getOperation().walk([&](Operation *op) {
      if (!isa<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp>(op) ||
          smemBytesFor(op) == 0)
        return;
      choose(op, g);
    });
  }

  void choose(Operation *op, const BankGeometry &g) {
    auto src = cast<RankedTensorType>(op->getOperand(0).getType());
    int64_t elemBytes = storageBytes(src.getElementType());
    int64_t n = src.getNumElements();
    // Row lengths to pad after: the source's rows (where a transposed read
    // walks down a column) and one sweep of all banks.
    SmallVector<int64_t> everys = {src.getShape().back(),
                                   g.banks * g.bankBytes / elemBytes};
    SmemPadding best; // none
    std::optional<int64_t> bestCost = wavefronts(op, best, g);
    if (!bestCost)
      return;
    int64_t bestElems = n;
    for (int64_t every : everys) {
      if (every <= 1 || every >= n)
        continue;
      // Pads of whole bank words up to 16 bytes keep every access aligned.
      for (int64_t padBytes : {4, 8, 16}) {
        if (padBytes < elemBytes || padBytes % elemBytes)
          continue;
        SmemPadding cand{every, padBytes / elemBytes};
        std::optional<int64_t> cost = wavefronts(op, cand, g);
        int64_t elems = cand.elements(n);
        if (cost && (*cost < *bestCost ||
                     (*cost == *bestCost && !best.none() && elems < bestElems))) {
          best = cand;
          bestCost = cost;
          bestElems = elems;
        }
      }
    }
    if (best.none())
      return;
    op->setAttr(KccDialect::kSmemPaddingAttr,
                DenseI32ArrayAttr::get(op->getContext(),
                                       {int32_t(best.every), int32_t(best.pad)}));
  }
};

} // namespace
