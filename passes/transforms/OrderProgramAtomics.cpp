//===- OrderProgramAtomics.cpp - TMA traffic ordered around atomics -------===//
//
// kcc-order-program-atomics (Passes.td). A program-wide atomic with release
// order publishes everything the program wrote before it, and one with
// acquire order makes what others published visible to what the program
// does after it (docs/language.md, "Atomics"). TMA copies go through the
// async proxy, which neither the atomic nor the block barriers around it
// order: a TMA store is only issued when the atomic runs (its bulk group
// completes later), and a TMA load after an acquire may read global memory
// ahead of it. So where the kernel has TMA stores, a release atomic first
// waits for the program's bulk groups to complete (not only to be read) and
// fences the async proxy; where it has TMA loads, an acquire atomic is
// followed by the same fence. The last-program pattern (partial tiles
// stored, a ticket drawn, the last program reading them back) is what
// needs it: kcc-add-split-k-builds writes it, and so can a user.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCORDERPROGRAMATOMICS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// A program-wide atomic (a scalar one) and its order, or none.
std::optional<kcc::MemoryOrder> programOrder(Operation *op) {
  auto order = [](auto atomic) -> std::optional<kcc::MemoryOrder> {
    if (isa<RankedTensorType>(atomic.getValue().getType()))
      return std::nullopt; // each thread's own elements: no program order
    return atomic.getOrder();
  };
  if (auto rmw = dyn_cast<kcc::AtomicRMWOp>(op))
    return order(rmw);
  if (auto cas = dyn_cast<kcc::AtomicCASOp>(op))
    return order(cas);
  return std::nullopt;
}

struct OrderProgramAtomics
    : kcc::impl::KccOrderProgramAtomicsBase<OrderProgramAtomics> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      bool stores = false, loads = false;
      func.walk([&](Operation *op) {
        stores |= isa<kcc::TmaStoreOp>(op);
        loads |= isa<kcc::TmaLoadOp>(op);
      });
      if (!stores && !loads)
        return;
      func.walk([&](Operation *op) {
        std::optional<kcc::MemoryOrder> order = programOrder(op);
        if (!order)
          return;
        bool release = *order == kcc::MemoryOrder::Release ||
                       *order == kcc::MemoryOrder::AcqRel;
        bool acquire = *order == kcc::MemoryOrder::Acquire ||
                       *order == kcc::MemoryOrder::AcqRel;
        OpBuilder b(op);
        if (release && stores) {
          kcc::BulkWaitGroupOp::create(b, op->getLoc(), 0, /*read=*/false);
          kcc::FenceProxyAsyncOp::create(b, op->getLoc(), /*global=*/true);
        }
        if (acquire && loads) {
          b.setInsertionPointAfter(op);
          kcc::FenceProxyAsyncOp::create(b, op->getLoc(), /*global=*/true);
        }
      });
    });
  }
};

} // namespace
