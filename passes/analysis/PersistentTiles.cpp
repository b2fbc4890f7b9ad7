//===- PersistentTiles.cpp - the tile loop of a persistent kernel ---------===//
#include "passes/analysis/PersistentTiles.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;

bool kcc::isPersistentTileLoop(Operation *op) {
  return op && op->hasAttr(KccDialect::kPersistentTilesAttr);
}

Operation *kcc::persistentTileLoopOf(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isPersistentTileLoop(p))
      return p;
  return nullptr;
}

Value kcc::persistentTileOrdinal(Operation *loop) {
  return cast<scf::ForOp>(loop).getRegionIterArgs().front();
}

Operation *kcc::enclosingLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p) && !isPersistentTileLoop(p))
      return p;
  return nullptr;
}
