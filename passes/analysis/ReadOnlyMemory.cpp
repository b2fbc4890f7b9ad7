//===- ReadOnlyMemory.cpp - the memory a kernel never writes --------------===//
#include "passes/analysis/ReadOnlyMemory.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

Value kcc::pointerBase(Value p) {
  while (Operation *def = p.getDefiningOp()) {
    if (!isa<AddPtrOp, SplatOp, BroadcastOp, ExpandDimsOp>(def))
      return Value();
    p = def->getOperand(0);
  }
  // A kernel argument, not a value a loop carries (which may alias any).
  auto arg = cast<BlockArgument>(p);
  return isa<FunctionOpInterface>(arg.getOwner()->getParentOp()) ? p : Value();
}

static bool isPointerLike(Type t) {
  return isa<kcc::PtrType>(getElementTypeOrSelf(t));
}

kcc::ReadOnlyMemory::ReadOnlyMemory(func::FuncOp func) {
  func.walk([&](Operation *w) {
    // A TMA store writes the tensor its map was encoded from.
    if (auto store = dyn_cast<TmaStoreOp>(w)) {
      auto map = dyn_cast<BlockArgument>(store.getMap());
      auto of = map ? func.getArgAttrOfType<IntegerAttr>(
                          map.getArgNumber(), KccDialect::kTensorMapOfAttr)
                    : IntegerAttr();
      if (!of)
        untraced = true;
      else
        written.insert(func.getArgument(of.getInt()));
      return;
    }
    if (!isa<StoreOp, StoreTileOp, AtomicRMWOp, AtomicCASOp>(w))
      return;
    for (Value o : w->getOperands())
      if (isPointerLike(o.getType())) {
        if (Value base = pointerBase(o))
          written.insert(base);
        else
          untraced = true;
      }
  });
}

bool kcc::ReadOnlyMemory::isReadOnly(Value ptr) const {
  Value base = pointerBase(ptr);
  return !untraced && base && !written.contains(base);
}

bool kcc::ReadOnlyMemory::isReadOnlyLoad(Operation *op) const {
  auto load = dyn_cast<LoadOp>(op);
  return load && isReadOnly(load.getPtr());
}
