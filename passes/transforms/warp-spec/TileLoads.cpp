//===- TileLoads.cpp - once-per-tile loads issued by the producer ---------===//
//
// See TileLoads.h.
//
//===----------------------------------------------------------------------===//
#include "passes/transforms/warp-spec/TileLoads.h"

#include "passes/transforms/pipeliner/LoopPipelining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kcc::pipelining;
using namespace kcc::warpspec;

namespace {

constexpr const char *kPrefetched =
    "; issued by the producer warpgroup a tile ahead, once the consumers' K "
    "loop of the tile before is done with the stage";

} // namespace

std::string kcc::warpspec::planTileLoads(scf::ForOp tiles, scf::ForOp loop,
                                         SmallVectorImpl<TileLoad> &loads,
                                         SmallVectorImpl<Value> &needed,
                                         int64_t &extraBytes) {
  Block *body = tiles.getBody();
  extraBytes = 0;
  std::string why;
  for (Operation &op : *body) {
    auto copy = dyn_cast<kcc::TmaLoadOp>(&op);
    if (!copy)
      continue;
    TileLoad t;
    t.copy = copy;
    Value buffer = copy.getDst();
    auto type = cast<kcc::SmemType>(buffer.getType());
    for (Operation *p = copy->getPrevNode(); p && !t.arm; p = p->getPrevNode())
      if (auto arm = dyn_cast<kcc::MBarrierArriveExpectTxOp>(p))
        if (arm.getBars() == copy.getBars() &&
            arm.getIndex() == copy.getIndex())
          t.arm = arm;
    Operation *before = t.arm ? t.arm->getPrevNode() : nullptr;
    if (isa_and_nonnull<kcc::FenceProxyAsyncOp>(before)) {
      t.proxyFence = before;
      before = before->getPrevNode();
    }
    if (!t.arm || type.getStages() != 1 ||
        !isa_and_nonnull<kcc::CtaBarrierOp>(before))
      return "the tile's load is not a single-stage copy behind the "
             "consumers' barrier";
    t.ctaBarrier = before;
    bool written = false, copied = false;
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (user == copy)
        continue;
      if (!tiles->isAncestor(user))
        return "the stage of a once-per-tile load is used outside the tile "
               "loop";
      if (auto read = dyn_cast<kcc::SmemLoadOp>(user)) {
        // Read (by the loop's products) before the loop ends, so that the
        // consumers can release it there.
        for (Operation *reader : read->getUsers()) {
          Operation *a = body->findAncestorOpInBlock(*reader);
          if (a != loop && !(a && a->isBeforeInBlock(loop)))
            return "the tile's query block is read after the key loop (the "
                   "consumers release it where that loop ends)";
        }
        continue;
      }
      if (auto store = dyn_cast<kcc::SmemStoreOp>(user)) {
        written = true;
        t.reusers.push_back(store);
        continue;
      }
      if (auto store = dyn_cast<kcc::TmaStoreOp>(user)) {
        copied = true;
        t.reusers.push_back(store);
        continue;
      }
      return "'" + user->getName().getStringRef().str() +
             "' uses the stage of a once-per-tile load";
    }
    if (copied && !written)
      return "the epilogue stores the loaded tile itself";
    if (!t.reusers.empty()) {
      extraBytes += llvm::alignTo(type.getStageBytes(),
                                  kcc::stageAlignment(type.getSwizzle()));
      if (auto wait = dyn_cast_or_null<kcc::BulkWaitGroupOp>(
              t.ctaBarrier->getPrevNode()))
        t.bulkWait = wait;
    }
    loads.push_back(t);
  }
  if (loads.empty())
    return kNoTileLoad;
  for (TileLoad &t : loads) {
    needed.append(t.arm->operand_begin(), t.arm->operand_end());
    needed.append(t.copy->operand_begin(), t.copy->operand_end());
  }
  return "";
}

Value kcc::warpspec::allocateTileLoads(OpBuilder &eb, ArrayRef<TileLoad> loads,
                                       unsigned consumerWarpgroups) {
  MLIRContext *ctx = eb.getContext();
  for (const TileLoad &t : loads) {
    if (t.reusers.empty())
      continue;
    Value old = kcc::TmaLoadOp(t.copy).getDst();
    Value own = kcc::SmemAllocOp::create(eb, old.getLoc(),
                                         cast<kcc::SmemType>(old.getType()));
    for (Operation *user : t.reusers)
      user->replaceUsesOfWith(old, own);
  }
  Location loc = loads.front().copy->getLoc();
  Value empty =
      kcc::MBarrierAllocOp::create(eb, loc, kcc::MBarrierType::get(ctx, 1));
  kcc::MBarrierInitOp::create(eb, loc, empty, constI32(eb, loc, 0),
                              consumerWarpgroups);
  return empty;
}

void kcc::warpspec::issueTileLoads(OpBuilder &b, Location loc,
                                   ArrayRef<TileLoad> loads, Value empty,
                                   Value ordinal, const IRMapping &mapping) {
  // The stage of tile j was released in phase j of `empty`; the first tile
  // finds it free.
  Value later = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                      ordinal, constI32(b, loc, 0));
  auto wait = scf::IfOp::create(b, loc, later, /*withElseRegion=*/false);
  {
    OpBuilder wb = OpBuilder::atBlockBegin(wait.thenBlock());
    Value parity = arith::AndIOp::create(
        wb, loc, arith::SubIOp::create(wb, loc, ordinal, constI32(wb, loc, 1)),
        constI32(wb, loc, 1));
    kcc::MBarrierWaitOp::create(wb, loc, empty, constI32(wb, loc, 0), parity);
  }
  for (const TileLoad &t : loads) {
    IRMapping m = mapping;
    b.clone(*t.arm, m);
    Operation *copy = b.clone(*t.copy, m);
    if (auto text =
            copy->getAttrOfType<StringAttr>(kcc::KccDialect::kTileAccessAttr))
      copy->setAttr(kcc::KccDialect::kTileAccessAttr,
                    b.getStringAttr(text.getValue() + kPrefetched));
  }
}

void kcc::warpspec::noteTileLoadsRefused(scf::ForOp tiles, StringRef why) {
  for (auto copy : tiles.getBody()->getOps<kcc::TmaLoadOp>())
    if (auto text =
            copy->getAttrOfType<StringAttr>(kcc::KccDialect::kTileAccessAttr))
      copy->setAttr(kcc::KccDialect::kTileAccessAttr,
                    StringAttr::get(copy->getContext(),
                                    text.getValue() +
                                        "; loaded by the consumers at each "
                                        "tile's start, not a tile ahead: " +
                                        why));
}

void kcc::warpspec::releaseTileLoads(ArrayRef<TileLoad> loads, Value empty,
                                     Operation *after) {
  OpBuilder b(after->getContext());
  b.setInsertionPointAfter(after);
  Location loc = after->getLoc();
  kcc::MBarrierArriveOp::create(b, loc, empty, constI32(b, loc, 0),
                                /*per_warpgroup=*/true);
  // Loads of one tile may share the barrier before them.
  llvm::SetVector<Operation *> dead;
  for (const TileLoad &t : loads) {
    dead.insert(t.copy);
    dead.insert(t.arm);
    dead.insert(t.ctaBarrier);
    if (t.proxyFence)
      dead.insert(t.proxyFence);
    if (t.bulkWait)
      dead.insert(t.bulkWait);
  }
  for (Operation *op : dead)
    op->erase();
}
