//===- FullMasks.cpp - when a mask is on for a whole tile -----------------===//

#include "passes/analysis/FullMasks.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;

namespace kcc {

Value accessMask(Operation *op) {
  Value mask;
  if (auto load = dyn_cast<LoadOp>(op))
    mask = load.getMask();
  else if (auto store = dyn_cast<StoreOp>(op))
    mask = store.getMask();
  return mask && isa<RankedTensorType>(mask.getType()) ? mask : Value();
}

void collectMaskTerms(Value mask, SmallVectorImpl<Value> &terms) {
  if (auto conj = mask.getDefiningOp<arith::AndIOp>()) {
    collectMaskTerms(conj.getLhs(), terms);
    collectMaskTerms(conj.getRhs(), terms);
    return;
  }
  terms.push_back(mask);
}

namespace {

bool isShapeOnly(Operation *op) {
  return isa_and_nonnull<BroadcastOp, ExpandDimsOp, ReshapeOp>(op);
}

/// A splat constant factor of a product, small enough that products of
/// i32 values with it stay exact in 64 bits.
std::optional<int64_t> constantFactor(Value v) {
  APInt c;
  if (!matchPattern(v, m_ConstantInt(&c)) || c.getBitWidth() > 64)
    return std::nullopt;
  int64_t f = c.getSExtValue();
  if (f <= std::numeric_limits<int32_t>::min() ||
      f > std::numeric_limits<int32_t>::max())
    return std::nullopt;
  return f;
}

/// Whether the bounds of an i32 index tile can be computed.
bool indexDecidable(Value v, function_ref<bool(Value)> leafOk, unsigned depth) {
  auto tile = dyn_cast<RankedTensorType>(v.getType());
  if (depth > 16 || !tile || !tile.getElementType().isInteger(32))
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<ArangeOp>(def) || constantFactor(v))
    return true;
  if (auto splat = dyn_cast<SplatOp>(def))
    return leafOk(splat.getSrc());
  if (isShapeOnly(def))
    return indexDecidable(def->getOperand(0), leafOk, depth + 1);
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return indexDecidable(def->getOperand(0), leafOk, depth + 1) &&
           indexDecidable(def->getOperand(1), leafOk, depth + 1);
  if (isa<arith::MulIOp>(def))
    for (unsigned i = 0; i < 2; ++i)
      if (constantFactor(def->getOperand(i)))
        return indexDecidable(def->getOperand(1 - i), leafOk, depth + 1);
  return false;
}

/// Emits the full condition over values of type V: kcc IR (Value) or C
/// text (std::string). `E` provides constant, leaf, add, sub, mul, cmp
/// and conj.
template <typename E> class FullCondition {
public:
  using V = typename E::V;
  explicit FullCondition(E &e) : e(e) {}

  V term(Value t) {
    Operation *def = t.getDefiningOp();
    if (isShapeOnly(def))
      return term(def->getOperand(0));
    if (auto splat = dyn_cast<SplatOp>(def))
      return e.leaf(splat.getSrc());
    auto cmp = cast<arith::CmpIOp>(def);
    auto [xlo, xhi] = bounds(cmp.getLhs());
    auto [ylo, yhi] = bounds(cmp.getRhs());
    using P = arith::CmpIPredicate;
    P p = cmp.getPredicate();
    // Unsigned order is signed order on non-negative values.
    if (p == P::ult || p == P::ule || p == P::ugt || p == P::uge) {
      checks.push_back(e.cmp(P::sge, xlo, e.constant(0)));
      checks.push_back(e.cmp(P::sge, ylo, e.constant(0)));
      p = p == P::ult   ? P::slt
          : p == P::ule ? P::sle
          : p == P::ugt ? P::sgt
                        : P::sge;
    }
    if (p == P::slt || p == P::sle)
      return e.cmp(p, xhi, ylo);
    return e.cmp(p, xlo, yhi);
  }

  V all(ArrayRef<Value> terms) {
    std::optional<V> cond;
    SmallVector<V> seen; // the same term twice (two equal masks): once
    auto conj = [&](V v) {
      if (llvm::is_contained(seen, v))
        return;
      seen.push_back(v);
      cond = cond ? e.conj(*cond, v) : v;
    };
    for (Value t : terms)
      conj(term(t));
    for (V c : checks)
      conj(c);
    return *cond;
  }

private:
  std::pair<V, V> bounds(Value v) {
    Operation *def = v.getDefiningOp();
    if (std::optional<int64_t> c = constantFactor(v)) {
      V k = e.constant(*c);
      return {k, k};
    }
    if (auto range = dyn_cast<ArangeOp>(def))
      return {e.constant(range.getStart()),
              e.constant(int64_t(range.getEnd()) - 1)};
    if (auto splat = dyn_cast<SplatOp>(def)) {
      V s = e.leaf(splat.getSrc());
      return {s, s};
    }
    if (isShapeOnly(def))
      return bounds(def->getOperand(0));
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      auto [alo, ahi] = bounds(def->getOperand(0));
      auto [blo, bhi] = bounds(def->getOperand(1));
      return isa<arith::AddIOp>(def) ? noWrap(e.add(alo, blo), e.add(ahi, bhi))
                                     : noWrap(e.sub(alo, bhi), e.sub(ahi, blo));
    }
    unsigned which = constantFactor(def->getOperand(0)) ? 0 : 1;
    int64_t f = *constantFactor(def->getOperand(which));
    auto [lo, hi] = bounds(def->getOperand(1 - which));
    return f < 0 ? noWrap(e.mul(hi, f), e.mul(lo, f))
                 : noWrap(e.mul(lo, f), e.mul(hi, f));
  }

  /// The i32 results of the tile's arithmetic did not wrap.
  std::pair<V, V> noWrap(V lo, V hi) {
    using P = arith::CmpIPredicate;
    checks.push_back(
        e.cmp(P::sge, lo, e.constant(std::numeric_limits<int32_t>::min())));
    checks.push_back(
        e.cmp(P::sle, hi, e.constant(std::numeric_limits<int32_t>::max())));
    return {lo, hi};
  }

  E &e;
  SmallVector<V> checks;
};

struct IrEmitter {
  using V = Value;
  OpBuilder &b;
  Location loc;
  V constant(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  V leaf(Value s) {
    if (s.getType().isInteger(1))
      return s;
    return arith::ExtSIOp::create(b, loc, b.getI64Type(), s);
  }
  V add(V x, V y) { return arith::AddIOp::create(b, loc, x, y); }
  V sub(V x, V y) { return arith::SubIOp::create(b, loc, x, y); }
  V mul(V x, int64_t f) {
    return arith::MulIOp::create(b, loc, x, constant(f));
  }
  V cmp(arith::CmpIPredicate p, V x, V y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  V conj(V x, V y) { return arith::AndIOp::create(b, loc, x, y); }
};

struct CEmitter {
  using V = std::string;
  function_ref<std::string(Value)> nameOf;
  V constant(int64_t v) {
    return v < 0 ? "(-" + std::to_string(-(v + 1)) + " - 1)"
                 : std::to_string(v);
  }
  V leaf(Value s) { return nameOf(s); }
  V add(V x, V y) { return "(" + x + " + " + y + ")"; }
  V sub(V x, V y) { return "(" + x + " - " + y + ")"; }
  V mul(V x, int64_t f) { return "(" + x + " * " + constant(f) + ")"; }
  V cmp(arith::CmpIPredicate p, V x, V y) {
    using P = arith::CmpIPredicate;
    const char *op = p == P::slt   ? " < "
                     : p == P::sle ? " <= "
                     : p == P::sgt ? " > "
                                   : " >= ";
    return "(" + x + op + y + ")";
  }
  V conj(V x, V y) { return x + " && " + y; }
};

/// Whether every element of an i1 value is on.
bool allOn(Value v) {
  if (matchPattern(v, m_One()))
    return true;
  Operation *def = v.getDefiningOp();
  if (auto conj = dyn_cast_or_null<arith::AndIOp>(def))
    return allOn(conj.getLhs()) && allOn(conj.getRhs());
  if (isShapeOnly(def))
    return allOn(def->getOperand(0));
  return false;
}

} // namespace

bool fullTermDecidable(Value term, function_ref<bool(Value)> leafOk) {
  Operation *def = term.getDefiningOp();
  if (!def || matchPattern(term, m_One()))
    return false;
  if (isShapeOnly(def))
    return fullTermDecidable(def->getOperand(0), leafOk);
  if (auto splat = dyn_cast<SplatOp>(def))
    return splat.getSrc().getType().isInteger(1) && leafOk(splat.getSrc());
  auto cmp = dyn_cast<arith::CmpIOp>(def);
  if (!cmp || cmp.getPredicate() == arith::CmpIPredicate::eq ||
      cmp.getPredicate() == arith::CmpIPredicate::ne)
    return false;
  return indexDecidable(cmp.getLhs(), leafOk, 0) &&
         indexDecidable(cmp.getRhs(), leafOk, 0);
}

Value buildFullCondition(OpBuilder &b, Location loc, ArrayRef<Value> terms) {
  IrEmitter e{b, loc};
  FullCondition<IrEmitter> full(e);
  return full.all(terms);
}

std::string fullConditionC(ArrayRef<Value> terms,
                           function_ref<std::string(Value)> nameOf) {
  CEmitter e{nameOf};
  FullCondition<CEmitter> full(e);
  return full.all(terms);
}

void assumeTermsOn(Region &region, ArrayRef<Value> terms) {
  OpBuilder b(region.getContext());
  b.setInsertionPointToStart(&region.front());
  for (Value term : terms) {
    auto type = cast<RankedTensorType>(term.getType());
    Value on = arith::ConstantOp::create(b, term.getLoc(),
                                         DenseElementsAttr::get(type, true));
    term.replaceUsesWithIf(on, [&](OpOperand &use) {
      return region.isAncestor(use.getOwner()->getParentRegion());
    });
  }
  SmallVector<Operation *> accesses;
  region.walk([&](Operation *op) {
    if (Value mask = accessMask(op); mask && allOn(mask))
      accesses.push_back(op);
  });
  for (Operation *op : accesses) {
    b.setInsertionPoint(op);
    Operation *plain;
    if (auto load = dyn_cast<LoadOp>(op)) {
      plain = LoadOp::create(b, load.getLoc(), load.getType(), load.getPtr(),
                             Value(), Value());
      load.replaceAllUsesWith(plain->getResult(0));
    } else {
      auto store = cast<StoreOp>(op);
      plain = StoreOp::create(b, store.getLoc(), store.getPtr(),
                              store.getValue(), Value());
    }
    plain->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    op->erase();
  }
}

} // namespace kcc
