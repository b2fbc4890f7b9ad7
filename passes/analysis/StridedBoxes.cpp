//===- StridedBoxes.cpp - pointer tiles lifted to boxes of tensors --------===//
//
// The address of a tile of pointers is read as a sum of terms, each an index
// tile along one dimension of the tile (an "atom": the 1-D tile under an
// expand_dims, or the offset itself for a 1-D tile) times a scalar. An atom
// must be `start + arange(0, S)` with start a multiple of S (block
// coordinates); the innermost dimension's scale must be 1 and the outer
// one's a kernel argument or a constant (what a launch stub can encode).
// The mask must be a conjunction of `atom < bound`, one per dimension at
// most, over the same atoms; a dimension without one is unbounded.
//
//===----------------------------------------------------------------------===//
#include "passes/analysis/StridedBoxes.h"

#include "passes/analysis/AxisInfo.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace kcc;

namespace {

/// One term of an address offset: `atom * cst * factor` along tile
/// dimension `dim`, or the scalar `atom * cst * factor` (dim -1).
struct Term {
  int dim = -1;
  Value atom;   // 1-D index tile, or a scalar (null: the constant 1)
  int64_t cst = 1;
  Value factor; // a scalar, or null
};

/// The scalar every element of `v` equals (a splat or a splat constant).
std::optional<OpFoldResult> uniformOf(Value v) {
  if (!isa<RankedTensorType>(v.getType()))
    return OpFoldResult(v);
  if (auto splat = v.getDefiningOp<SplatOp>())
    return uniformOf(splat.getSrc());
  if (auto b = v.getDefiningOp<BroadcastOp>())
    return uniformOf(b.getSrc());
  if (auto e = v.getDefiningOp<ExpandDimsOp>())
    return uniformOf(e.getSrc());
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat() &&
      isa<IntegerType>(dense.getElementType()))
    return OpFoldResult(IntegerAttr::get(
        dense.getElementType(), dense.getSplatValue<APInt>().getSExtValue()));
  return std::nullopt;
}

std::optional<int64_t> constantOf(OpFoldResult r) {
  if (auto a = dyn_cast<Attribute>(r))
    return cast<IntegerAttr>(a).getInt();
  APInt value;
  if (matchPattern(cast<Value>(r), m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// `v` as c * (product of `leaves`): muli trees of constants and values.
void flattenProduct(Value v, int64_t &c, SmallVectorImpl<Value> &leaves,
                    unsigned depth = 0) {
  if (std::optional<int64_t> k = constantOf(OpFoldResult(v))) {
    c *= *k;
    return;
  }
  if (auto mul = v.getDefiningOp<arith::MulIOp>(); mul && depth < 8) {
    flattenProduct(mul.getLhs(), c, leaves, depth + 1);
    flattenProduct(mul.getRhs(), c, leaves, depth + 1);
    return;
  }
  leaves.push_back(v);
}

bool sameFactors(SmallVector<Value, 2> a, SmallVector<Value, 2> b) {
  auto byAddress = [](Value x, Value y) {
    return x.getAsOpaquePointer() < y.getAsOpaquePointer();
  };
  llvm::sort(a, byAddress);
  llvm::sort(b, byAddress);
  return a == b;
}

/// The kernel argument's name or the constant `r` is; none for values
/// computed in the kernel.
std::optional<std::string> nameOf(func::FuncOp func, OpFoldResult r) {
  if (std::optional<int64_t> c = constantOf(r))
    return std::to_string(*c);
  auto arg = dyn_cast<BlockArgument>(cast<Value>(r));
  auto names = func->getAttrOfType<ArrayAttr>(KccDialect::kArgNamesAttr);
  if (arg && arg.getOwner() == &func.getBody().front() && names &&
      arg.getArgNumber() < names.size())
    return cast<StringAttr>(names[arg.getArgNumber()]).str();
  return std::nullopt;
}

class Lifter {
public:
  explicit Lifter(Operation *op)
      : op(op), func(op->getParentOfType<func::FuncOp>()) {}

  std::optional<StridedBox> lift(std::string &why);

private:
  /// `name` of a kernel argument, a constant's value, or a description.
  std::string text(OpFoldResult r) const {
    if (std::optional<int64_t> c = constantOf(r))
      return std::to_string(*c);
    if (std::optional<std::string> name = nameOf(func, r))
      return "`" + *name + "`";
    return "a value computed in the kernel";
  }

  BlockArgument kernelArg(Value v) const {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &func.getBody().front() ? arg
                                                             : BlockArgument();
  }

  /// A scalar a launch stub can compute: a kernel argument or a constant.
  bool encodable(OpFoldResult r) const {
    return constantOf(r) || kernelArg(cast<Value>(r));
  }

  bool collect(Value v, ArrayRef<int> dimOf, int64_t cst, Value factor,
               SmallVectorImpl<Term> &terms);
  bool collectMask(Value v, ArrayRef<int> dimOf,
                   SmallVectorImpl<std::pair<Value, Value>> &bounds);
  std::optional<OpFoldResult> blockCoordinate(Value atom, int64_t size);
  bool nonNegative(Value v, unsigned depth = 0) const;

  Operation *op;
  mutable func::FuncOp func;
  unsigned rank = 0;
  std::string why;
};

/// Multiplies a term's scale by the uniform `u`; false if it would take a
/// second scalar factor.
bool scaleBy(int64_t &cst, Value &factor, OpFoldResult u) {
  if (std::optional<int64_t> c = constantOf(u)) {
    cst *= *c;
    return true;
  }
  if (factor)
    return false;
  factor = cast<Value>(u);
  return true;
}

bool Lifter::collect(Value v, ArrayRef<int> dimOf, int64_t cst, Value factor,
                     SmallVectorImpl<Term> &terms) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return false;
  if (std::optional<OpFoldResult> u = uniformOf(v)) {
    Term t;
    t.cst = cst;
    t.factor = factor;
    if (std::optional<int64_t> c = constantOf(*u))
      t.cst *= *c;
    else if (!scaleBy(t.cst, t.factor, *u))
      return false;
    terms.push_back(t);
    return true;
  }
  Operation *def = v.getDefiningOp();
  if (auto b = dyn_cast_or_null<BroadcastOp>(def))
    return collect(b.getSrc(), dimOf, cst, factor, terms);
  if (auto e = dyn_cast_or_null<ExpandDimsOp>(def)) {
    SmallVector<int> inner(dimOf);
    inner.erase(inner.begin() + e.getAxis());
    return collect(e.getSrc(), inner, cst, factor, terms);
  }
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def);
      add && type.getRank() > 1)
    return collect(add.getLhs(), dimOf, cst, factor, terms) &&
           collect(add.getRhs(), dimOf, cst, factor, terms);
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(def)) {
    for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if (std::optional<OpFoldResult> u = uniformOf(y)) {
        int64_t c = cst;
        Value f = factor;
        return scaleBy(c, f, *u) && collect(x, dimOf, c, f, terms);
      }
    return false;
  }
  // A 1-D tile that is not a scaled one is an index along its dimension.
  if (type.getRank() != 1 || dimOf.size() != 1)
    return false;
  Term t;
  t.dim = dimOf.front();
  t.atom = v;
  t.cst = cst;
  t.factor = factor;
  terms.push_back(t);
  return true;
}

/// Collects `atom < bound` conjuncts as (atom, bound) per tile dimension.
bool Lifter::collectMask(Value v, ArrayRef<int> dimOf,
                         SmallVectorImpl<std::pair<Value, Value>> &bounds) {
  Operation *def = v.getDefiningOp();
  if (auto b = dyn_cast_or_null<BroadcastOp>(def))
    return collectMask(b.getSrc(), dimOf, bounds);
  if (auto e = dyn_cast_or_null<ExpandDimsOp>(def)) {
    SmallVector<int> inner(dimOf);
    inner.erase(inner.begin() + e.getAxis());
    return collectMask(e.getSrc(), inner, bounds);
  }
  if (auto a = dyn_cast_or_null<arith::AndIOp>(def))
    return collectMask(a.getLhs(), dimOf, bounds) &&
           collectMask(a.getRhs(), dimOf, bounds);
  auto cmp = dyn_cast_or_null<arith::CmpIOp>(def);
  if (!cmp)
    return false;
  Value index = cmp.getLhs(), bound = cmp.getRhs();
  if (cmp.getPredicate() == arith::CmpIPredicate::sgt)
    std::swap(index, bound);
  else if (cmp.getPredicate() != arith::CmpIPredicate::slt)
    return false;
  std::optional<OpFoldResult> u = uniformOf(bound);
  if (!u || !isa<Value>(*u) || uniformOf(index))
    return false;
  // The index side: an atom under broadcasts and expand_dims.
  SmallVector<int> dims(dimOf);
  while (true) {
    if (auto b = index.getDefiningOp<BroadcastOp>()) {
      index = b.getSrc();
    } else if (auto e = index.getDefiningOp<ExpandDimsOp>()) {
      dims.erase(dims.begin() + e.getAxis());
      index = e.getSrc();
    } else {
      break;
    }
  }
  if (cast<RankedTensorType>(index.getType()).getRank() != 1 ||
      dims.size() != 1)
    return false;
  if (bounds[dims.front()].first)
    return false; // two bounds on one dimension
  bounds[dims.front()] = {index, cast<Value>(*u)};
  return true;
}

/// Whether the scalar `v` is provably non-negative: program ids, constants,
/// induction variables of loops from a non-negative start with a positive
/// step, and sums and products of those.
bool Lifter::nonNegative(Value v, unsigned depth) const {
  if (depth > 8)
    return false;
  if (std::optional<int64_t> c = constantOf(v))
    return *c >= 0;
  if (v.getDefiningOp<ProgramIdOp>())
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (loop.getInductionVar() == v) {
        std::optional<int64_t> step = constantOf(loop.getStep());
        return step && *step > 0 && nonNegative(loop.getLowerBound(), depth + 1);
      }
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::MulIOp>(def))
    return nonNegative(def->getOperand(0), depth + 1) &&
           nonNegative(def->getOperand(1), depth + 1);
  // A non-negative index divided by a kernel argument (`h / group`, the
  // K/V head of a query head): a negative divisor would address before the
  // tensor in the pointer form already, so the box's coordinate is no
  // less defined.
  if (isa_and_nonnull<arith::DivSIOp, arith::DivUIOp>(def))
    return nonNegative(def->getOperand(0), depth + 1) &&
           (kernelArg(def->getOperand(1)) ||
            nonNegative(def->getOperand(1), depth + 1));
  return false;
}

/// The block coordinate q of an atom `q * size + arange(0, size)`.
std::optional<OpFoldResult> Lifter::blockCoordinate(Value atom, int64_t size) {
  OpFoldResult start;
  if (auto r = atom.getDefiningOp<ArangeOp>()) {
    start = IntegerAttr::get(IntegerType::get(atom.getContext(), 32),
                             r.getStart());
  } else if (auto add = atom.getDefiningOp<arith::AddIOp>()) {
    for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())})
      if (auto r = y.getDefiningOp<ArangeOp>(); r && r.getStart() == 0)
        if (std::optional<OpFoldResult> u = uniformOf(x))
          start = *u;
  }
  if (!start) {
    why = "an index along the tile is not `start + arange(0, size)`";
    return std::nullopt;
  }
  if (std::optional<int64_t> c = constantOf(start)) {
    if (*c < 0 || *c % size != 0) {
      why = "the tile starts at element " + std::to_string(*c) +
            ", not at a multiple of its size " + std::to_string(size);
      return std::nullopt;
    }
    return OpFoldResult(
        IntegerAttr::get(IntegerType::get(atom.getContext(), 32), *c / size));
  }
  Value s = cast<Value>(start);
  if (auto mul = s.getDefiningOp<arith::MulIOp>())
    for (auto [q, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if (constantOf(c) == size) {
        if (!nonNegative(q)) {
          why = "the tile's block coordinate is not provably non-negative "
                "(a program id, a loop index from 0, or sums and products "
                "of them)";
          return std::nullopt;
        }
        return OpFoldResult(q);
      }
  why = "the tile starts at an offset that is not a block coordinate times "
        "its size " +
        std::to_string(size) +
        " (tiles at element offsets take pointer accesses)";
  return std::nullopt;
}

std::optional<StridedBox> Lifter::lift(std::string &whyNot) {
  auto result = [&]() -> std::optional<StridedBox> {
    Value ptr = op->getOperand(0);
    auto tile = dyn_cast<RankedTensorType>(ptr.getType());
    if (!tile || tile.getRank() > 2) {
      why = "only 1-D and 2-D tiles are lifted";
      return std::nullopt;
    }
    rank = tile.getRank();
    ArrayRef<int64_t> shape = tile.getShape();
    // Pointer: splat(base) advanced by offsets.
    SmallVector<Term> terms;
    SmallVector<int> dimOf;
    for (unsigned d = 0; d < rank; ++d)
      dimOf.push_back(d);
    StridedBox box;
    Value p = ptr;
    while (!box.base) {
      Operation *def = p.getDefiningOp();
      if (auto b = dyn_cast_or_null<BroadcastOp>(def)) {
        p = b.getSrc();
      } else if (auto add = dyn_cast_or_null<AddPtrOp>(def)) {
        auto offType = dyn_cast<RankedTensorType>(add.getOffset().getType());
        if (!offType || !offType.getElementType().isInteger(32) ||
            !collect(add.getOffset(), ArrayRef<int>(dimOf).take_back(
                                          offType.getRank()),
                     1, Value(), terms)) {
          why = "its offsets are not sums of `index * stride` per dimension "
                "in i32";
          return std::nullopt;
        }
        p = add.getPtr();
      } else if (auto splat = dyn_cast_or_null<SplatOp>(def)) {
        // A parameter advanced by scalar offsets first (`q + h *
        // stride_qh`, a head's slice): each is a term the same for every
        // element, placed below.
        Value src = splat.getSrc();
        while (auto add = src.getDefiningOp<AddPtrOp>()) {
          if (!add.getOffset().getType().isInteger(32))
            break;
          Term t;
          t.factor = add.getOffset();
          terms.push_back(t);
          src = add.getPtr();
        }
        box.base = kernelArg(src);
        if (!box.base) {
          why = "its base is not a pointer parameter of the kernel";
          return std::nullopt;
        }
      } else {
        why = "its pointers are not a kernel parameter advanced by offsets";
        return std::nullopt;
      }
    }
    // Offsets: one index term per dimension; the uniform terms are placed
    // once the strides are known.
    SmallVector<Term *> along(rank, nullptr);
    SmallVector<Term *> uniform;
    for (Term &t : terms) {
      if (t.dim < 0) {
        if (t.factor || t.cst != 0)
          uniform.push_back(&t);
        continue;
      }
      if (along[t.dim]) {
        why = "its offsets have two index terms along dimension " +
              std::to_string(t.dim);
        return std::nullopt;
      }
      along[t.dim] = &t;
    }
    for (unsigned d = 0; d < rank; ++d)
      if (!along[d]) {
        why = "its address does not vary along dimension " +
              std::to_string(d) + " (a broadcast)";
        return std::nullopt;
      }
    const Term &inner = *along[rank - 1];
    if (inner.factor || inner.cst != 1) {
      why = "its innermost dimension is not contiguous (stride " +
            (inner.factor ? text(inner.factor) : std::to_string(inner.cst)) +
            ", not 1)";
      return std::nullopt;
    }
    Type elem = getElementTypeOrSelf(
        cast<PtrType>(tile.getElementType()).getPointeeType());
    int64_t elemBytes = getElementBytes(elem);
    auto align = func.getArgAttrOfType<IntegerAttr>(box.base.getArgNumber(),
                                                    KccDialect::kAlignAttr);
    if (!align || align.getInt() < 16)
      box.tmaRefusal = "its base " + text(box.base) +
                       " is not declared align(16), as a TMA tensor map's "
                       "base must be";
    for (unsigned d = 0; d + 1 < rank; ++d) {
      const Term &t = *along[d];
      if (t.factor && t.cst != 1) {
        why = "its row stride is computed in the kernel (" +
              std::to_string(t.cst) + " * " + text(t.factor) +
              "); the launch stub encodes strides that are kernel arguments "
              "or constants";
        return std::nullopt;
      }
      OpFoldResult stride =
          t.factor ? OpFoldResult(t.factor)
                   : OpFoldResult(IntegerAttr::get(
                         IntegerType::get(op->getContext(), 32), t.cst));
      if (!encodable(stride) ||
          (t.factor && !t.factor.getType().isInteger(32))) {
        why = "its row stride is " + text(stride) +
              "; the launch stub encodes strides that are i32 kernel "
              "arguments or constants";
        return std::nullopt;
      }
      int64_t divisibility = 0;
      if (std::optional<int64_t> c = constantOf(stride))
        divisibility = *c;
      else if (auto d = func.getArgAttrOfType<IntegerAttr>(
                   kernelArg(t.factor).getArgNumber(),
                   KccDialect::kDivisibilityAttr))
        divisibility = d.getInt();
      if (box.tmaRefusal.empty() &&
          (divisibility <= 0 || divisibility * elemBytes % 16 != 0))
        box.tmaRefusal =
            "its row stride " + text(stride) + " is not declared a multiple "
            "of " + std::to_string(16 / std::gcd<int64_t>(16, elemBytes)) +
            " (multiple_of), as a TMA tensor map's row pitch must be a "
            "multiple of 16 bytes";
      box.strides.push_back(stride);
    }
    // A uniform term moves the box along the dimension whose stride it is
    // a multiple of (the innermost, stride 1, takes what no other does), by
    // whole tiles: c * x * f... with x that dimension's stride argument.
    box.shifts.resize(rank);
    SmallVector<SmallVector<StridedBox::Shift, 1>> elementShifts(rank);
    // Terms along none of the tile's dimensions (`h * stride_qh`, the
    // slice of a head or a batch) become leading dimensions of extent 1 of
    // the tensor: their stride an i32 argument among the factors (TMA-legal
    // where declared multiple_of), their coordinate the other factors.
    struct Outer {
      OpFoldResult stride;
      int64_t cst;
      SmallVector<Value, 2> factors;
    };
    SmallVector<Outer> outer;
    for (Term *t : llvm::reverse(uniform)) {
      int64_t c = t->cst;
      SmallVector<Value, 2> leaves;
      if (t->factor)
        flattenProduct(t->factor, c, leaves);
      unsigned d = rank - 1;
      for (unsigned o = 0; o + 1 < rank; ++o)
        if (Value x = along[o]->factor; x && along[o]->cst == 1)
          if (auto it = llvm::find(leaves, x); it != leaves.end()) {
            leaves.erase(it);
            d = o;
            break;
          }
      bool nonNeg = c >= 0 && llvm::all_of(leaves, [&](Value v) {
                      return nonNegative(v);
                    });
      if (c == 0)
        continue;
      if (d == rank - 1 && c % shape[d] != 0 && c > 0) {
        Value x;
        for (Value leaf : leaves)
          if (kernelArg(leaf) && leaf.getType().isInteger(32) &&
              !llvm::is_contained(box.strides, OpFoldResult(leaf))) {
            x = leaf;
            break;
          }
        // The stride is the argument; the coordinate, the rest, must be
        // provably non-negative.
        if (x && llvm::all_of(leaves, [&](Value v) {
              return v == x || nonNegative(v);
            })) {
          leaves.erase(llvm::find(leaves, x));
          outer.insert(outer.begin(), {OpFoldResult(x), c, leaves});
          continue;
        }
      }
      if (c % shape[d] != 0 || !nonNeg) {
        why = "its offsets have a part that is the same for every element "
              "(a batch, a view's start, a pointer advanced by other than "
              "whole tiles from 0): the launch stub cannot move a tensor "
              "map by it";
        return std::nullopt;
      }
      box.shifts[d].push_back({c / shape[d], leaves});
      elementShifts[d].push_back({c, leaves});
    }
    // Coordinates from the atoms.
    for (unsigned d = 0; d < rank; ++d) {
      if (cast<RankedTensorType>(along[d]->atom.getType()).getShape()[0] !=
          shape[d]) {
        why = "an index tile is broadcast along its dimension";
        return std::nullopt;
      }
      std::optional<OpFoldResult> q =
          blockCoordinate(along[d]->atom, shape[d]);
      if (!q)
        return std::nullopt;
      box.coords.push_back(*q);
    }
    // Mask: bounds on the same atoms.
    Value mask = isa<LoadOp>(op) ? cast<LoadOp>(op).getMask()
                                 : cast<StoreOp>(op).getMask();
    SmallVector<std::pair<Value, Value>> bounds(rank);
    if (mask && !collectMask(mask, dimOf, bounds)) {
      why = "its mask is not a conjunction of `index < bound`, one per "
            "dimension";
      return std::nullopt;
    }
    for (unsigned d = 0; d < rank; ++d) {
      auto [atom, bound] = bounds[d];
      if (!atom) {
        box.sizes.push_back(IntegerAttr::get(
            IntegerType::get(op->getContext(), 32),
            std::numeric_limits<int32_t>::max()));
        continue;
      }
      if (atom != along[d]->atom &&
          blockCoordinate(atom, shape[d]) != box.coords[d]) {
        why = "its mask bounds an index other than its address's along "
              "dimension " +
              std::to_string(d);
        return std::nullopt;
      }
      // `index < bound - shift` where the address is advanced by `shift`
      // along d (Triton's `offs_k < K - k * BLOCK_K`).
      if (auto sub = bound.getDefiningOp<arith::SubIOp>();
          sub && elementShifts[d].size() == 1) {
        int64_t c = 1;
        SmallVector<Value, 2> leaves;
        flattenProduct(sub.getRhs(), c, leaves);
        if (c == elementShifts[d].front().blocks &&
            sameFactors(leaves, elementShifts[d].front().factors))
          bound = sub.getLhs();
      } else if (!elementShifts[d].empty()) {
        why = "its mask along dimension " + std::to_string(d) +
              " does not move with its address (mask a pointer advanced in "
              "a loop with `index < bound - advance`)";
        return std::nullopt;
      }
      if (!encodable(bound) || !bound.getType().isInteger(32)) {
        why = "its mask's bound along dimension " + std::to_string(d) +
              " is " + text(bound) +
              "; the launch stub encodes sizes that are i32 kernel "
              "arguments or constants";
        return std::nullopt;
      }
      box.sizes.push_back(bound);
    }
    if (auto load = dyn_cast<LoadOp>(op); load && load.getOther()) {
      std::optional<OpFoldResult> other = uniformOf(load.getOther());
      Value scalar;
      if (other && isa<Value>(*other))
        scalar = cast<Value>(*other);
      else if (auto splat = load.getOther().getDefiningOp<SplatOp>())
        scalar = splat.getSrc();
      if (!scalar) {
        why = "its `other` is not one value for every element";
        return std::nullopt;
      }
      box.other = scalar;
    }
    // The leading dimensions of the slices (outermost first: the pointer
    // was advanced by the innermost slice last).
    MLIRContext *ctx = op->getContext();
    for (const Outer &o : outer) {
      auto unbounded = IntegerAttr::get(IntegerType::get(ctx, 32),
                                        std::numeric_limits<int32_t>::max());
      box.sizes.insert(box.sizes.begin(), unbounded);
      box.strides.insert(box.strides.begin(), o.stride);
      box.coords.insert(box.coords.begin(),
                        IntegerAttr::get(IntegerType::get(ctx, 32), 0));
      box.shifts.insert(box.shifts.begin(),
                        SmallVector<StridedBox::Shift, 1>{{o.cst, o.factors}});
      auto d = func.getArgAttrOfType<IntegerAttr>(
          kernelArg(cast<Value>(o.stride)).getArgNumber(),
          KccDialect::kDivisibilityAttr);
      if (box.tmaRefusal.empty() && (!d || d.getInt() * elemBytes % 16 != 0))
        box.tmaRefusal = "its slice stride " + text(o.stride) +
                         " is not declared a multiple of " +
                         std::to_string(16 / std::gcd<int64_t>(16, elemBytes)) +
                         " (multiple_of), as a TMA tensor map's strides must "
                         "be multiples of 16 bytes";
    }
    return box;
  }();
  if (!result)
    whyNot = why.empty() ? "its address is not a strided box" : why;
  return result;
}

} // namespace

std::optional<OpFoldResult> kcc::uniformScalarOf(Value v) {
  return uniformOf(v);
}

std::string kcc::describeStridedBox(const StridedBox &box) {
  auto func = cast<func::FuncOp>(box.base.getOwner()->getParentOp());
  auto text = [&](OpFoldResult r) -> std::string {
    std::optional<std::string> name = nameOf(func, r);
    if (name && *name == std::to_string(std::numeric_limits<int32_t>::max()))
      return "unbounded";
    return name ? *name : "?";
  };
  std::string sizes, strides;
  for (OpFoldResult s : box.sizes)
    sizes += (sizes.empty() ? "" : ", ") + text(s);
  for (OpFoldResult s : box.strides)
    strides += (strides.empty() ? "" : ", ") + text(s);
  std::string out = "the tile of pointers is a box of the tensor at " +
                    text(box.base) + " with sizes [" + sizes + "]";
  if (!strides.empty())
    out += " and row stride " + strides;
  return out;
}

std::optional<StridedBox> kcc::liftStridedBox(Operation *op,
                                              std::string &why) {
  if (!isa<LoadOp, StoreOp>(op) || !op->getParentOfType<func::FuncOp>()) {
    why = "not a load or store of a tile of pointers";
    return std::nullopt;
  }
  return Lifter(op).lift(why);
}
