//===- AxisInfo.cpp - contiguity / divisibility / constancy analysis ------===//
//
// Transfer functions keep each fact a power of two and only claim what holds
// for every execution; see AxisInfo.h for the meaning of the facts.
//
//===----------------------------------------------------------------------===//

#include "passes/analysis/AxisInfo.h"

#include "ir/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace kcc;

//===----------------------------------------------------------------------===//
// Lattice
//===----------------------------------------------------------------------===//

int64_t kcc::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  unsigned tz = llvm::countr_zero(static_cast<uint64_t>(value));
  return tz >= 30 ? kMaxDivisibility : int64_t(1) << tz;
}

static int64_t capDiv(int64_t v) {
  return std::clamp<int64_t>(v, 1, kMaxDivisibility);
}

AxisInfo::AxisInfo(DimVector contiguity, DimVector divisibility,
                   DimVector constancy, std::optional<int64_t> constantValue,
                   int64_t unit)
    : contiguity(std::move(contiguity)), divisibility(std::move(divisibility)),
      constancy(std::move(constancy)), constantValue(constantValue),
      unit(unit) {
  assert(this->contiguity.size() == this->divisibility.size() &&
         this->contiguity.size() == this->constancy.size());
}

AxisInfo AxisInfo::getPessimistic(unsigned rank, int64_t unit) {
  // Nothing proven: 1-byte aligned pointers, integers divisible by 1.
  // (`unit` only scales the divisibility of elements inside runs.)
  DimVector ones(rank, 1);
  return AxisInfo(ones, ones, ones, std::nullopt, unit);
}

AxisInfo AxisInfo::getConstant(ArrayRef<int64_t> shape, int64_t value) {
  DimVector dims(shape.begin(), shape.end());
  if (dims.empty())
    dims.push_back(1);
  return AxisInfo(DimVector(dims.size(), 1),
                  DimVector(dims.size(), highestPowerOf2Divisor(value)), dims,
                  value);
}

AxisInfo AxisInfo::getFromValues(ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> values, unsigned bitWidth) {
  DimVector dims(shape.begin(), shape.end());
  if (dims.empty())
    dims.push_back(1);
  uint64_t mask = bitWidth >= 64 ? ~uint64_t(0) : (uint64_t(1) << bitWidth) - 1;
  auto eq = [&](int64_t a, int64_t b) {
    return ((static_cast<uint64_t>(a) ^ static_cast<uint64_t>(b)) & mask) == 0;
  };
  // The sign-extended value modulo 2^bitWidth decides divisibility.
  auto divOf = [&](int64_t v) {
    uint64_t bits = static_cast<uint64_t>(v) & mask;
    return bits == 0 ? kMaxDivisibility
                     : highestPowerOf2Divisor(static_cast<int64_t>(bits));
  };
  unsigned rank = dims.size();
  DimVector strides(rank, 1);
  for (int d = static_cast<int>(rank) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * dims[d + 1];
  int64_t n = values.size();

  AxisInfo info = getPessimistic(rank);
  bool allEqual = llvm::all_of(values, [&](int64_t v) { return eq(v, values[0]); });
  if (allEqual)
    info.constantValue = values.empty() ? 0 : values[0];
  for (unsigned d = 0; d < rank; ++d) {
    int64_t size = dims[d], stride = strides[d];
    auto coord = [&](int64_t flat) { return (flat / stride) % size; };
    // Largest run length (a power of two dividing the dimension) for which
    // `pred(value, runStartValue, offsetInRun)` holds everywhere.
    auto largestRun = [&](auto pred) {
      for (int64_t len = llvm::PowerOf2Ceil(size); len > 1; len /= 2) {
        if (size % len != 0)
          continue;
        bool ok = true;
        for (int64_t i = 0; i < n && ok; ++i) {
          int64_t off = coord(i) % len;
          ok = pred(values[i], values[i - off * stride], off);
        }
        if (ok)
          return len;
      }
      return int64_t(1);
    };
    info.constancy[d] =
        largestRun([&](int64_t v, int64_t start, int64_t) { return eq(v, start); });
    info.contiguity[d] = largestRun([&](int64_t v, int64_t start, int64_t off) {
      return eq(v, start + off);
    });
    int64_t div = kMaxDivisibility;
    for (int64_t i = 0; i < n; ++i)
      if (coord(i) % info.contiguity[d] == 0)
        div = std::min(div, divOf(values[i]));
    info.divisibility[d] = div;
  }
  return info;
}

int64_t AxisInfo::getDivisibilityAt(unsigned d, int64_t stride) const {
  if (stride % contiguity[d] == 0)
    return divisibility[d];
  // Elements x + m*stride inside a run.
  return std::gcd(divisibility[d], stride * unit);
}

int64_t AxisInfo::getElementDivisibility() const {
  int64_t best = 1;
  for (unsigned d = 0; d < getRank(); ++d)
    best = std::max(best, getDivisibilityAt(d, 1));
  return best;
}

AxisInfo AxisInfo::join(const AxisInfo &a, const AxisInfo &b) {
  if (!a.isInitialized())
    return b;
  if (!b.isInitialized())
    return a;
  assert(a.getRank() == b.getRank() && "joining facts of different shapes");
  AxisInfo r = getPessimistic(a.getRank(), a.unit);
  for (unsigned d = 0; d < a.getRank(); ++d) {
    r.contiguity[d] = std::min(a.contiguity[d], b.contiguity[d]);
    r.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
    r.divisibility[d] = std::gcd(a.getDivisibilityAt(d, r.contiguity[d]),
                                 b.getDivisibilityAt(d, r.contiguity[d]));
  }
  if (a.constantValue && b.constantValue && *a.constantValue == *b.constantValue)
    r.constantValue = a.constantValue;
  return r;
}

bool AxisInfo::operator==(const AxisInfo &other) const {
  return contiguity == other.contiguity && divisibility == other.divisibility &&
         constancy == other.constancy && constantValue == other.constantValue &&
         unit == other.unit;
}

void AxisInfo::print(raw_ostream &os) const {
  auto list = [&](const DimVector &v) {
    os << "[";
    llvm::interleaveComma(v, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity);
  os << ", divisibility = ";
  list(divisibility);
  os << ", constancy = ";
  list(constancy);
  if (constantValue)
    os << ", constant = " << *constantValue;
}

//===----------------------------------------------------------------------===//
// Helpers on types
//===----------------------------------------------------------------------===//

int64_t kcc::getElementBytes(Type type) {
  if (isa<PtrType>(type))
    return 8;
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 1;
}

static AxisInfo::DimVector getDims(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    if (tensor.getRank() > 0)
      return AxisInfo::DimVector(tensor.getShape().begin(),
                                 tensor.getShape().end());
  return {1};
}

/// Pointee size for pointer(-tile) types, 1 otherwise.
static int64_t getUnit(Type type) {
  if (auto ptr = dyn_cast<PtrType>(getElementTypeOrSelf(type)))
    return getElementBytes(ptr.getPointeeType());
  return 1;
}

static unsigned getBitWidth(Type type) {
  Type elem = getElementTypeOrSelf(type);
  if (elem.isIndex())
    return 64;
  if (elem.isInteger())
    return elem.getIntOrFloatBitWidth();
  return 64; // pointers
}

static bool isTracked(Type type) {
  Type elem = getElementTypeOrSelf(type);
  return elem.isIntOrIndex() || isa<PtrType>(elem);
}

/// Clamp facts to what the type can hold. A run of consecutive integers
/// longer than 2^(n-1) would cross the signed wrap point; capping contiguity
/// there keeps the extension rule (and signed comparisons) sound.
static AxisInfo normalize(AxisInfo info, Type type) {
  AxisInfo::DimVector dims = getDims(type);
  if (info.getRank() != dims.size())
    return AxisInfo::getPessimistic(dims.size(), getUnit(type));
  bool isInt = getElementTypeOrSelf(type).isIntOrIndex();
  unsigned bits = getBitWidth(type);
  int64_t maxRun =
      isInt ? (bits - 1 >= 62 ? int64_t(1) << 62 : int64_t(1) << (bits - 1))
            : int64_t(1) << 62;
  info.unit = getUnit(type);
  for (unsigned d = 0; d < dims.size(); ++d) {
    int64_t c = std::clamp<int64_t>(info.contiguity[d], 1,
                                    std::min(maxRun, dims[d]));
    // Shorter runs start at new places: re-derive their divisibility.
    info.divisibility[d] = info.getDivisibilityAt(d, c);
    info.contiguity[d] = c;
    info.constancy[d] = std::clamp<int64_t>(info.constancy[d], 1, dims[d]);
    info.divisibility[d] = capDiv(info.divisibility[d]);
  }
  if (!isInt)
    info.constantValue.reset();
  return info;
}

//===----------------------------------------------------------------------===//
// Analysis driver
//===----------------------------------------------------------------------===//

AxisInfoAnalysis::AxisInfoAnalysis(Operation *funcOp) {
  auto func = dyn_cast<func::FuncOp>(funcOp);
  if (!func || func.isExternal())
    return;
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    Type type = arg.getType();
    AxisInfo info = AxisInfo::getPessimistic(getDims(type).size(), getUnit(type));
    if (isa<PtrType>(type)) {
      // Without kcc.align we rely on the natural alignment of the pointee,
      // which the runtime checks at launch.
      int64_t align = getUnit(type);
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), KccDialect::kAlignAttr))
        align = std::max(align, highestPowerOf2Divisor(attr.getInt()));
      info.divisibility[0] = align;
    } else if (type.isIntOrIndex()) {
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), KccDialect::kDivisibilityAttr))
        info.divisibility[0] = highestPowerOf2Divisor(attr.getInt());
    }
    set(arg, normalize(info, type));
  }
  for (Block &block : func.getBody())
    visitBlock(block);
}

const AxisInfo &AxisInfoAnalysis::get(Value value) const {
  auto it = infos.find(value);
  if (it != infos.end())
    return it->second;
  auto &fallback = fallbacks[value];
  if (!fallback.isInitialized())
    fallback = AxisInfo::getPessimistic(getDims(value.getType()).size(),
                                        getUnit(value.getType()));
  return fallback;
}

void AxisInfoAnalysis::set(Value value, AxisInfo info) {
  infos[value] = normalize(std::move(info), value.getType());
}

void AxisInfoAnalysis::visitBlock(Block &block) {
  for (Operation &op : block)
    visitOperation(&op);
}

void AxisInfoAnalysis::setPessimisticDeep(Operation *op) {
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      for (BlockArgument arg : block.getArguments())
        set(arg, AxisInfo::getPessimistic(getDims(arg.getType()).size()));
      visitBlock(block);
    }
  for (Value result : op->getResults())
    set(result, AxisInfo::getPessimistic(getDims(result.getType()).size()));
}

void AxisInfoAnalysis::visitOperation(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return visitFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return visitIf(ifOp);
  if (op->getNumRegions() != 0 || op->getNumResults() != 1)
    return setPessimisticDeep(op);
  Value result = op->getResult(0);
  if (!isTracked(result.getType()))
    return set(result, AxisInfo::getPessimistic(getDims(result.getType()).size()));
  set(result, computeResult(op));
}

void AxisInfoAnalysis::visitFor(scf::ForOp forOp) {
  // The induction variable takes lb + k*step.
  int64_t ivDiv =
      std::gcd(get(forOp.getLowerBound()).getElementDivisibility(),
               get(forOp.getStep()).getElementDivisibility());
  Value iv = forOp.getInductionVar();
  set(iv, AxisInfo({1}, {ivDiv}, {1}));

  // Fixed point over the loop-carried values: start from the init facts and
  // weaken with what the body yields until nothing changes. join() never
  // strengthens a fact, and facts are bounded powers of two, so this ends.
  SmallVector<AxisInfo> args;
  for (Value init : forOp.getInitArgs())
    args.push_back(get(init));
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  bool converged = false;
  for (int iter = 0; iter < 64 && !converged; ++iter) {
    for (auto [arg, info] : llvm::zip(forOp.getRegionIterArgs(), args))
      set(arg, info);
    visitBlock(*forOp.getBody());
    converged = true;
    for (auto [i, yielded] : llvm::enumerate(yield.getOperands())) {
      AxisInfo joined = AxisInfo::join(get(forOp.getRegionIterArgs()[i]),
                                       get(yielded));
      joined = normalize(joined, yielded.getType());
      if (joined != get(forOp.getRegionIterArgs()[i]))
        converged = false;
      args[i] = joined;
    }
  }
  if (!converged) {
    // Unreachable in practice; stay sound regardless.
    for (auto [arg, info] : llvm::zip(forOp.getRegionIterArgs(), args))
      info = AxisInfo::getPessimistic(getDims(arg.getType()).size());
    for (auto [arg, info] : llvm::zip(forOp.getRegionIterArgs(), args))
      set(arg, info);
    visitBlock(*forOp.getBody());
  }
  for (auto [result, info] : llvm::zip(forOp.getResults(), args))
    set(result, info);
}

void AxisInfoAnalysis::visitIf(scf::IfOp ifOp) {
  visitBlock(ifOp.getThenRegion().front());
  if (ifOp.getElseRegion().empty())
    return;
  visitBlock(ifOp.getElseRegion().front());
  for (auto [i, result] : llvm::enumerate(ifOp.getResults()))
    set(result, AxisInfo::join(get(ifOp.thenYield().getOperand(i)),
                               get(ifOp.elseYield().getOperand(i))));
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

/// Folds a binary integer op on two known constants, if it is one we know.
static std::optional<int64_t> foldBinary(Operation *op, int64_t a, int64_t b,
                                         unsigned bits) {
  APInt x(bits, static_cast<uint64_t>(a), /*isSigned=*/true, /*implicitTrunc=*/true);
  APInt y(bits, static_cast<uint64_t>(b), /*isSigned=*/true, /*implicitTrunc=*/true);
  std::optional<APInt> r;
  if (isa<arith::AddIOp>(op))
    r = x + y;
  else if (isa<arith::SubIOp>(op))
    r = x - y;
  else if (isa<arith::MulIOp>(op))
    r = x * y;
  else if (isa<arith::AndIOp>(op))
    r = x & y;
  else if (isa<arith::OrIOp>(op))
    r = x | y;
  else if (isa<arith::XOrIOp>(op))
    r = x ^ y;
  else if (isa<arith::ShLIOp>(op) && y.ult(bits))
    r = x.shl(y);
  else if (isa<arith::ShRUIOp>(op) && y.ult(bits))
    r = x.lshr(y);
  else if (isa<arith::ShRSIOp>(op) && y.ult(bits))
    r = x.ashr(y);
  else if (isa<arith::DivUIOp>(op) && !y.isZero())
    r = x.udiv(y);
  else if (isa<arith::RemUIOp>(op) && !y.isZero())
    r = x.urem(y);
  else if (isa<arith::DivSIOp>(op) && !y.isZero() &&
           !(x.isMinSignedValue() && y.isAllOnes()))
    r = x.sdiv(y);
  else if (isa<arith::RemSIOp>(op) && !y.isZero() && !y.isAllOnes())
    r = x.srem(y);
  if (!r)
    return std::nullopt;
  return bits == 1 ? static_cast<int64_t>(r->getZExtValue()) : r->getSExtValue();
}

/// Runs of `len` consecutive values starting at multiples of `len` (len a
/// power of two, start divisible by len) never cross 2^(n-1) or 2^n, so they
/// are consecutive as signed and as unsigned numbers and behave like one
/// block under division by multiples of len.
static int64_t alignedRun(const AxisInfo &x, unsigned d) {
  return std::gcd(x.getContiguity(d), x.getDivisibility(d));
}

AxisInfo AxisInfoAnalysis::computeResult(Operation *op) {
  Type type = op->getResult(0).getType();
  AxisInfo::DimVector dims = getDims(type);
  unsigned rank = dims.size();
  unsigned bits = getBitWidth(type);
  AxisInfo pess = AxisInfo::getPessimistic(rank, getUnit(type));

  // arith.constant: exact facts (scalars, splats, small dense tiles).
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    if (auto intAttr = dyn_cast<IntegerAttr>(cst.getValue()))
      return AxisInfo::getConstant({}, bits == 1 ? intAttr.getValue().getZExtValue()
                                                 : intAttr.getValue().getSExtValue());
    if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue())) {
      if (dense.isSplat()) {
        APInt v = dense.getSplatValue<APInt>();
        return AxisInfo::getConstant(dims, bits == 1 ? v.getZExtValue()
                                                     : v.getSExtValue());
      }
      if (dense.getNumElements() <= (1 << 16)) {
        SmallVector<int64_t> values;
        for (const APInt &v : dense.getValues<APInt>())
          values.push_back(v.getSExtValue());
        return AxisInfo::getFromValues(dims, values, bits);
      }
    }
    return pess;
  }

  if (isa<ProgramIdOp, NumProgramsOp>(op))
    return pess;

  if (auto arange = dyn_cast<ArangeOp>(op))
    return AxisInfo({dims[0]}, {highestPowerOf2Divisor(arange.getStart())},
                    {1});

  if (auto splat = dyn_cast<SplatOp>(op)) {
    const AxisInfo &src = get(splat.getSrc());
    return AxisInfo(AxisInfo::DimVector(rank, 1),
                    AxisInfo::DimVector(rank, src.getElementDivisibility()),
                    dims, src.getConstantValue());
  }

  if (auto bcast = dyn_cast<BroadcastOp>(op)) {
    AxisInfo src = get(bcast.getSrc());
    ArrayRef<int64_t> srcShape = bcast.getSrc().getType().getShape();
    for (unsigned d = 0; d < rank; ++d)
      if (srcShape[d] == 1 && dims[d] != 1) {
        // Contiguity 1 on a unit dimension: the divisibility covers every
        // element, and every element is repeated along the new extent.
        src.contiguity[d] = 1;
        src.constancy[d] = dims[d];
      }
    return src;
  }

  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    const AxisInfo &src = get(expand.getSrc());
    AxisInfo r = src;
    unsigned axis = expand.getAxis();
    r.contiguity.insert(r.contiguity.begin() + axis, 1);
    r.constancy.insert(r.constancy.begin() + axis, 1);
    r.divisibility.insert(r.divisibility.begin() + axis,
                          src.getElementDivisibility());
    return r;
  }

  if (auto addptr = dyn_cast<AddPtrOp>(op)) {
    const AxisInfo &ptr = get(addptr.getPtr());
    AxisInfo off = get(addptr.getOffset());
    int64_t unit = getUnit(type);
    // Offsets narrower than 64 bits are sign-extended: a run of consecutive
    // offsets stays consecutive only if it does not cross the sign boundary.
    if (getBitWidth(addptr.getOffset().getType()) < 64)
      for (unsigned d = 0; d < rank; ++d)
        off.contiguity[d] = alignedRun(off, d);
    AxisInfo r = AxisInfo::getPessimistic(rank, unit);
    for (unsigned d = 0; d < rank; ++d) {
      r.contiguity[d] =
          std::max(std::gcd(ptr.getContiguity(d), off.getConstancy(d)),
                   std::gcd(ptr.getConstancy(d), off.getContiguity(d)));
      int64_t c = r.contiguity[d];
      int64_t offDiv = off.getDivisibilityAt(d, c);
      r.divisibility[d] = std::gcd(ptr.getDivisibilityAt(d, c),
                                   capDiv(offDiv * unit));
      r.constancy[d] = std::gcd(ptr.getConstancy(d), off.getConstancy(d));
    }
    return r;
  }

  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    const AxisInfo &a = get(select.getTrueValue());
    const AxisInfo &b = get(select.getFalseValue());
    const AxisInfo &cond = get(select.getCondition());
    bool scalarCond = !isa<RankedTensorType>(select.getCondition().getType());
    AxisInfo r = pess;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t k = scalarCond ? dims[d] : cond.getConstancy(d);
      r.contiguity[d] =
          std::gcd(k, std::min(a.getContiguity(d), b.getContiguity(d)));
      r.divisibility[d] = std::gcd(a.getDivisibilityAt(d, r.contiguity[d]),
                                   b.getDivisibilityAt(d, r.contiguity[d]));
      r.constancy[d] =
          std::gcd(k, std::gcd(a.getConstancy(d), b.getConstancy(d)));
    }
    if (a.getConstantValue() && a.getConstantValue() == b.getConstantValue())
      r.constantValue = a.getConstantValue();
    return r;
  }

  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    const AxisInfo &lhs = get(cmp.getLhs());
    const AxisInfo &rhs = get(cmp.getRhs());
    unsigned opBits = getBitWidth(cmp.getLhs().getType());
    if (lhs.getConstantValue() && rhs.getConstantValue()) {
      APInt x(opBits, *lhs.getConstantValue(), true, true);
      APInt y(opBits, *rhs.getConstantValue(), true, true);
      return AxisInfo::getConstant(
          isa<RankedTensorType>(type) ? ArrayRef<int64_t>(dims)
                                      : ArrayRef<int64_t>(),
          arith::applyCmpPredicate(cmp.getPredicate(), x, y) ? 1 : 0);
    }
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    // x < r and x >= r are constant over an aligned run [y, y+k) of x when r
    // is a multiple of k (y is one too). x <= r and x > r are not (y == r).
    bool lhsRun = pred == P::slt || pred == P::ult || pred == P::sge ||
                  pred == P::uge;
    bool rhsRun = pred == P::sgt || pred == P::ugt || pred == P::sle ||
                  pred == P::ule;
    AxisInfo r = pess;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t k = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
      auto runAgainst = [&](const AxisInfo &run, const AxisInfo &bound) {
        int64_t len = std::gcd(alignedRun(run, d), bound.getConstancy(d));
        return std::gcd(len, bound.getDivisibilityAt(d, 1));
      };
      if (lhsRun)
        k = std::max(k, runAgainst(lhs, rhs));
      if (rhsRun)
        k = std::max(k, runAgainst(rhs, lhs));
      r.constancy[d] = k;
    }
    return r;
  }

  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp,
          arith::IndexCastUIOp, arith::TruncIOp>(op)) {
    Value src = op->getOperand(0);
    AxisInfo r = get(src);
    unsigned srcBits = getBitWidth(src.getType());
    if (bits > srcBits) {
      // Widening: runs must not cross the wrap point of the narrow type.
      for (unsigned d = 0; d < rank; ++d) {
        int64_t c = alignedRun(r, d);
        r.divisibility[d] = r.getDivisibilityAt(d, c);
        r.contiguity[d] = c;
      }
      if (r.constantValue && srcBits < 64) {
        APInt v(srcBits, *r.constantValue, true, true);
        r.constantValue = isa<arith::ExtUIOp, arith::IndexCastUIOp>(op)
                              ? static_cast<int64_t>(v.getZExtValue())
                              : v.getSExtValue();
      }
    } else if (bits < srcBits && r.constantValue) {
      // Truncation keeps the low bits: divisibility and (modular) runs hold.
      APInt v(srcBits, *r.constantValue, true, true);
      APInt t = v.trunc(bits);
      r.constantValue =
          bits == 1 ? static_cast<int64_t>(t.getZExtValue()) : t.getSExtValue();
    }
    return r;
  }

  // Binary integer arithmetic.
  if (op->getNumOperands() == 2 &&
      isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ShLIOp,
          arith::ShRUIOp, arith::ShRSIOp, arith::DivUIOp, arith::DivSIOp,
          arith::RemUIOp, arith::RemSIOp, arith::AndIOp, arith::OrIOp,
          arith::XOrIOp>(op)) {
    const AxisInfo &lhs = get(op->getOperand(0));
    const AxisInfo &rhs = get(op->getOperand(1));
    std::optional<int64_t> lc = lhs.getConstantValue(),
                           rc = rhs.getConstantValue();
    if (lc && rc)
      if (std::optional<int64_t> v = foldBinary(op, *lc, *rc, bits))
        return AxisInfo::getConstant(
            isa<RankedTensorType>(type) ? ArrayRef<int64_t>(dims)
                                        : ArrayRef<int64_t>(),
            *v);
    AxisInfo r = pess;
    for (unsigned d = 0; d < rank; ++d)
      r.constancy[d] = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
    // Power-of-two constant right-hand side: shift amount, or log2.
    std::optional<unsigned> rhsLog2;
    if (rc && *rc > 0 && llvm::isPowerOf2_64(*rc))
      rhsLog2 = llvm::Log2_64(*rc);

    if (isa<arith::AddIOp, arith::SubIOp>(op)) {
      bool isAdd = isa<arith::AddIOp>(op);
      for (unsigned d = 0; d < rank; ++d) {
        // run + constant (and constant + run for addition) is a run.
        int64_t c = std::gcd(lhs.getContiguity(d), rhs.getConstancy(d));
        if (isAdd)
          c = std::max(c, std::gcd(lhs.getConstancy(d), rhs.getContiguity(d)));
        r.contiguity[d] = c;
        r.divisibility[d] = std::gcd(lhs.getDivisibilityAt(d, c),
                                     rhs.getDivisibilityAt(d, c));
      }
    } else if (isa<arith::MulIOp>(op)) {
      for (unsigned d = 0; d < rank; ++d) {
        if (rc && *rc == 1) {
          r.contiguity[d] = lhs.getContiguity(d);
          r.divisibility[d] = lhs.getDivisibility(d);
        } else if (lc && *lc == 1) {
          r.contiguity[d] = rhs.getContiguity(d);
          r.divisibility[d] = rhs.getDivisibility(d);
        } else {
          // Low zero bits add up under multiplication (also modulo 2^n).
          r.divisibility[d] = capDiv(lhs.getDivisibilityAt(d, 1) *
                                     rhs.getDivisibilityAt(d, 1));
        }
      }
    } else if (isa<arith::ShLIOp>(op)) {
      if (rc && *rc >= 0 && *rc < bits)
        for (unsigned d = 0; d < rank; ++d) {
          if (*rc == 0) {
            r.contiguity[d] = lhs.getContiguity(d);
            r.divisibility[d] = lhs.getDivisibility(d);
          } else {
            r.divisibility[d] = capDiv(
                lhs.getDivisibilityAt(d, 1) << std::min<int64_t>(*rc, 31));
          }
        }
    } else if (isa<arith::ShRUIOp, arith::ShRSIOp, arith::DivUIOp>(op)) {
      // Shifts (logical or arithmetic = floor division) and unsigned division
      // by 2^s: an aligned run of length k | 2^s lies in one block of 2^s.
      std::optional<int64_t> shift;
      if (isa<arith::DivUIOp>(op)) {
        if (rhsLog2)
          shift = *rhsLog2;
      } else if (rc && *rc >= 0 && *rc < bits) {
        shift = *rc;
      }
      if (shift)
        for (unsigned d = 0; d < rank; ++d) {
          int64_t block = int64_t(1) << std::min<int64_t>(*shift, 40);
          r.constancy[d] = std::max(
              r.constancy[d], std::gcd(alignedRun(lhs, d), block));
          if (*shift == 0) {
            r.contiguity[d] = lhs.getContiguity(d);
            r.divisibility[d] = lhs.getDivisibility(d);
          } else {
            r.divisibility[d] =
                std::max<int64_t>(1, lhs.getDivisibilityAt(d, 1) >> *shift);
          }
        }
    } else if (isa<arith::DivSIOp>(op)) {
      // Truncating division is not a floor for negative values, so runs do
      // not give constancy; exact division keeps the excess low zero bits.
      if (rhsLog2)
        for (unsigned d = 0; d < rank; ++d) {
          int64_t div = lhs.getDivisibilityAt(d, 1);
          r.divisibility[d] = std::max<int64_t>(1, div >> *rhsLog2);
          if (*rhsLog2 == 0) {
            r.contiguity[d] = lhs.getContiguity(d);
            r.divisibility[d] = lhs.getDivisibility(d);
          }
        }
    } else if (isa<arith::RemUIOp>(op)) {
      // An aligned run of length k | 2^s stays a run modulo 2^s.
      if (rhsLog2)
        for (unsigned d = 0; d < rank; ++d) {
          int64_t m = int64_t(1) << std::min<unsigned>(*rhsLog2, 40);
          int64_t c = std::gcd(alignedRun(lhs, d), m);
          r.contiguity[d] = c;
          r.divisibility[d] = std::gcd(lhs.getDivisibilityAt(d, c), m);
          r.constancy[d] = std::max(r.constancy[d], lhs.getConstancy(d));
        }
    } else if (isa<arith::RemSIOp>(op)) {
      // x - q*m with m divisible by 2^t keeps gcd(div(x), 2^t) zero bits.
      if (rc && *rc != 0)
        for (unsigned d = 0; d < rank; ++d)
          r.divisibility[d] = std::gcd(lhs.getDivisibilityAt(d, 1),
                                       highestPowerOf2Divisor(*rc));
    } else if (isa<arith::AndIOp>(op)) {
      // Clearing bits keeps the zero low bits of either operand.
      for (unsigned d = 0; d < rank; ++d)
        r.divisibility[d] = std::max(lhs.getDivisibilityAt(d, 1),
                                     rhs.getDivisibilityAt(d, 1));
    } else {
      // or / xor: low bits zero in both stay zero.
      for (unsigned d = 0; d < rank; ++d)
        r.divisibility[d] = std::gcd(lhs.getDivisibilityAt(d, 1),
                                     rhs.getDivisibilityAt(d, 1));
    }
    return r;
  }

  // Any other elementwise op is a function of its operands: equal inputs
  // give equal outputs.
  if (op->hasTrait<OpTrait::Elementwise>() && op->getNumOperands() > 0 &&
      llvm::all_of(op->getOperandTypes(), [&](Type t) {
        return getDims(t) == dims;
      })) {
    AxisInfo r = pess;
    r.constancy = dims;
    for (Value operand : op->getOperands())
      for (unsigned d = 0; d < rank; ++d)
        r.constancy[d] = std::gcd(r.constancy[d], get(operand).getConstancy(d));
    return r;
  }
  return pess;
}
