//===- Interpreter.cpp - tile IR reference interpreter --------------------===//
//
// A tree-walking interpreter over the ops of one func.func. Every SSA value
// is materialized as a flat row-major array (a scalar has one element):
// floats as doubles exactly representable in their type, integers as
// sign-extended int64_t, pointers as (buffer, element offset) pairs.
//
//===----------------------------------------------------------------------===//
#include "interp/Interpreter.h"
#include "interp/Element.h"

#include "ir/Dialect.h"
#include "ir/TileCoords.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kcc;
using namespace kcc::interp;

namespace {

/// The element type of a value: a DType, or a pointer to one.
struct ElemInfo {
  DType dtype = DType::i32;
  bool isPtr = false;
};

std::optional<DType> dtypeOf(Type t) {
  if (t.isF16())
    return DType::f16;
  if (t.isBF16())
    return DType::bf16;
  if (t.isF32())
    return DType::f32;
  if (t.isF64())
    return DType::f64;
  if (isa<Float8E4M3FNType>(t))
    return DType::f8e4m3;
  if (isa<Float8E5M2Type>(t))
    return DType::f8e5m2;
  if (isa<Float8E4M3FNUZType>(t))
    return DType::f8e4m3fnuz;
  if (isa<Float8E5M2FNUZType>(t))
    return DType::f8e5m2fnuz;
  if (auto i = dyn_cast<IntegerType>(t)) {
    switch (i.getWidth()) {
    case 1:
      return DType::i1;
    case 8:
      return DType::i8;
    case 16:
      return DType::i16;
    case 32:
      return DType::i32;
    case 64:
      return DType::i64;
    default:
      break;
    }
  }
  return std::nullopt;
}

/// A runtime value: `size` elements of one kind, row-major.
struct Val {
  ElemInfo elem;
  int64_t size = 0;
  std::vector<int64_t> ints;  // integers; pointer offsets
  std::vector<double> floats; // floats
  std::vector<uint32_t> bufs; // pointer buffers
};

std::string formatPid(const Grid &pid) {
  return llvm::formatv("({0}, {1}, {2})", pid[0], pid[1], pid[2]).str();
}

std::string formatFloat(double v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.9g", v);
  return s;
}

class Interp {
public:
  Interp(std::vector<Buffer> &buffers, const Grid &grid, RunStats &stats,
         uint64_t maxSteps)
      : buffers(buffers), grid(grid), stats(stats), maxSteps(maxSteps) {
    // Buffers keep their sizes through a run; every access checks them.
    for (const Buffer &b : buffers)
      bufferElements.push_back(b.array.numElements());
  }

  std::optional<RunError> error;

  /// Runs one program of `func` with `args` already converted to values.
  bool runProgram(func::FuncOp func, const Grid &pid,
                  const std::vector<Val> &args) {
    this->pid = pid;
    values.clear();
    Block &entry = func.getBody().front();
    for (auto [arg, v] : llvm::zip(entry.getArguments(), args))
      values[arg] = v;
    SmallVector<Val> ignored;
    return runBlock(entry, ignored);
  }

private:
  std::vector<Buffer> &buffers;
  std::vector<int64_t> bufferElements; // per buffer
  const Grid &grid;
  RunStats &stats;
  uint64_t maxSteps = 0, steps = 0;
  Grid pid = {0, 0, 0};
  llvm::DenseMap<Value, Val> values;

  bool fail(Operation *op, const Twine &msg) {
    error = RunError{msg.str(), op->getLoc(), pid};
    return false;
  }

  const Val &get(Value v) { return values.find(v)->second; }

  /// A result value of type `t` with storage for all its elements.
  bool make(Operation *op, Type t, Val &out) {
    Type elem = getElementTypeOrSelf(t);
    out.size = getNumElements(t);
    if (auto p = dyn_cast<PtrType>(elem)) {
      std::optional<DType> d = dtypeOf(p.getPointeeType());
      if (!d)
        return fail(op, "unsupported pointee type in interpreter");
      out.elem = {*d, true};
      out.ints.assign(out.size, 0);
      out.bufs.assign(out.size, 0);
      return true;
    }
    std::optional<DType> d = dtypeOf(elem);
    if (!d) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << elem;
      return fail(op, "the interpreter does not support element type " + s);
    }
    out.elem = {*d, false};
    if (isFloat(*d))
      out.floats.assign(out.size, 0);
    else
      out.ints.assign(out.size, 0);
    return true;
  }

  void set(Value v, Val &&val) {
    stats.elements += val.size;
    values[v] = std::move(val);
  }

  bool runBlock(Block &block, SmallVectorImpl<Val> &terminatorOperands) {
    for (Operation &op : block) {
      ++stats.ops;
      if (maxSteps && ++steps > maxSteps) {
        fail(&op, "the interpreter's step budget ran out here: the launch "
                  "executed " +
                      Twine(maxSteps) +
                      " operations (a loop that does not end, or a case too "
                      "large for the budget)");
        error->budgetExhausted = true;
        return false;
      }
      if (isa<scf::YieldOp, scf::ConditionOp, func::ReturnOp>(op)) {
        terminatorOperands.clear();
        for (Value v : op.getOperands())
          terminatorOperands.push_back(get(v));
        return true;
      }
      if (!runOp(&op))
        return false;
    }
    return true;
  }

  bool runOp(Operation *op) {
    return llvm::TypeSwitch<Operation *, bool>(op)
        // kcc
        .Case([&](ProgramIdOp o) { return scalarInt(o, pid[o.getAxis()]); })
        .Case([&](NumProgramsOp o) { return scalarInt(o, grid[o.getAxis()]); })
        .Case([&](ArangeOp o) { return arange(o); })
        .Case([&](SplatOp o) { return splat(o); })
        .Case([&](BroadcastOp o) { return broadcast(o); })
        .Case([&](TransOp o) { return trans(o); })
        .Case<ExpandDimsOp, ReshapeOp>([&](auto o) {
          Val r = get(o.getSrc()); // same elements in the same order
          set(o.getResult(), std::move(r));
          return true;
        })
        .Case([&](AddPtrOp o) { return addPtr(o); })
        .Case([&](LoadOp o) { return load(o); })
        .Case([&](StoreOp o) { return store(o); })
        .Case([&](AtomicRMWOp o) {
          return atomic(o, o.getKind(), o.getPtr(), Value(), o.getValue(),
                        o.getMask());
        })
        .Case([&](AtomicCASOp o) {
          return atomic(o, std::nullopt, o.getPtr(), o.getCmp(), o.getValue(),
                        o.getMask());
        })
        .Case([&](LoadTileOp o) { return loadTile(o); })
        .Case([&](StoreTileOp o) { return storeTile(o); })
        .Case([&](ReduceOp o) { return reduce(o); })
        .Case([&](HistogramOp o) { return histogram(o); })
        .Case([&](DotOp o) { return dot(o); })
        // scf
        .Case([&](scf::ForOp o) { return forOp(o); })
        .Case([&](scf::IfOp o) { return ifOp(o); })
        .Case([&](scf::WhileOp o) { return whileOp(o); })
        // arith
        .Case([&](arith::ConstantOp o) { return constant(o); })
        .Case([&](arith::AddFOp o) {
          return floatBinary(o, [](double a, double b) { return a + b; });
        })
        .Case([&](arith::SubFOp o) {
          return floatBinary(o, [](double a, double b) { return a - b; });
        })
        .Case([&](arith::MulFOp o) {
          return floatBinary(o, [](double a, double b) { return a * b; });
        })
        .Case([&](arith::DivFOp o) {
          return floatBinary(o, [](double a, double b) { return a / b; });
        })
        .Case([&](arith::RemFOp o) {
          return floatBinary(
              o, [](double a, double b) { return std::fmod(a, b); });
        })
        .Case([&](arith::MaximumFOp o) {
          return floatBinary(o,
                             [](double a, double b) { return fmaximum(a, b); });
        })
        .Case([&](arith::MinimumFOp o) {
          return floatBinary(o,
                             [](double a, double b) { return fminimum(a, b); });
        })
        .Case([&](arith::NegFOp o) {
          return floatUnary(o, [](double a) { return -a; });
        })
        .Case([&](arith::AddIOp o) {
          return intBinary(o, [](int64_t a, int64_t b) {
            return int64_t(uint64_t(a) + uint64_t(b));
          });
        })
        .Case([&](arith::SubIOp o) {
          return intBinary(o, [](int64_t a, int64_t b) {
            return int64_t(uint64_t(a) - uint64_t(b));
          });
        })
        .Case([&](arith::MulIOp o) {
          return intBinary(o, [](int64_t a, int64_t b) {
            return int64_t(uint64_t(a) * uint64_t(b));
          });
        })
        .Case([&](arith::AndIOp o) {
          return intBinary(o, [](int64_t a, int64_t b) { return a & b; });
        })
        .Case([&](arith::OrIOp o) {
          return intBinary(o, [](int64_t a, int64_t b) { return a | b; });
        })
        .Case([&](arith::XOrIOp o) {
          return intBinary(o, [](int64_t a, int64_t b) { return a ^ b; });
        })
        .Case([&](arith::MaxSIOp o) {
          return intBinary(o,
                           [](int64_t a, int64_t b) { return a > b ? a : b; });
        })
        .Case([&](arith::MinSIOp o) {
          return intBinary(o,
                           [](int64_t a, int64_t b) { return a < b ? a : b; });
        })
        .Case([&](arith::DivSIOp o) { return divRem(o, /*isRem=*/false); })
        .Case([&](arith::RemSIOp o) { return divRem(o, /*isRem=*/true); })
        .Case([&](arith::ShLIOp o) { return shift(o, /*left=*/true); })
        .Case([&](arith::ShRSIOp o) { return shift(o, /*left=*/false); })
        .Case([&](arith::CmpIOp o) { return cmpi(o); })
        .Case([&](arith::CmpFOp o) { return cmpf(o); })
        .Case([&](arith::SelectOp o) { return select(o); })
        .Case([&](arith::BitcastOp o) { return bitcast(o); })
        .Case([&](arith::ExtFOp o) { return floatToFloat(o); })
        .Case([&](arith::TruncFOp o) { return floatToFloat(o); })
        .Case([&](arith::ExtSIOp o) { return intToInt(o, /*zext=*/false); })
        .Case([&](arith::ExtUIOp o) { return intToInt(o, /*zext=*/true); })
        .Case([&](arith::TruncIOp o) { return intToInt(o, /*zext=*/false); })
        .Case([&](arith::SIToFPOp o) { return intToFloat(o, /*unsig=*/false); })
        .Case([&](arith::UIToFPOp o) { return intToFloat(o, /*unsig=*/true); })
        .Case([&](arith::FPToSIOp o) { return floatToInt(o); })
        // math
        .Case([&](math::AbsFOp o) {
          return floatUnary(o, [](double a) { return std::fabs(a); });
        })
        .Case([&](math::AbsIOp o) {
          return intUnary(o, [](int64_t a) {
            return a < 0 ? int64_t(0 - uint64_t(a)) : a;
          });
        })
        .Case([&](math::ExpOp o) {
          return floatUnary(o, [](double a) { return std::exp(a); });
        })
        .Case([&](math::Exp2Op o) {
          return floatUnary(o, [](double a) { return std::exp2(a); });
        })
        .Case([&](math::LogOp o) {
          return floatUnary(o, [](double a) { return std::log(a); });
        })
        .Case([&](math::SqrtOp o) {
          return floatUnary(o, [](double a) { return std::sqrt(a); });
        })
        .Case([&](math::RsqrtOp o) {
          return floatUnary(o, [](double a) { return 1.0 / std::sqrt(a); });
        })
        .Case([&](math::TanhOp o) {
          return floatUnary(o, [](double a) { return std::tanh(a); });
        })
        .Case([&](math::ErfOp o) {
          return floatUnary(o, [](double a) { return std::erf(a); });
        })
        .Case([&](math::FmaOp o) { return fma(o); })
        .Default([&](Operation *op) {
          return fail(op, "the interpreter does not support operation '" +
                              op->getName().getStringRef() + "'");
        });
  }

  static double fmaximum(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<double>::quiet_NaN();
    if (a == 0 && b == 0) // +0 > -0
      return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
  static double fminimum(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<double>::quiet_NaN();
    if (a == 0 && b == 0)
      return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }

  bool scalarInt(Operation *op, int64_t v) {
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    r.ints[0] = wrapInt(v, intWidth(r.elem.dtype));
    set(op->getResult(0), std::move(r));
    return true;
  }

  bool arange(ArangeOp o) {
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    int64_t start = o.getStart();
    for (int64_t i = 0; i < r.size; ++i)
      r.ints[i] = wrapInt(start + i, 32);
    set(o.getResult(), std::move(r));
    return true;
  }

  bool splat(SplatOp o) {
    const Val &s = get(o.getSrc());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    if (!r.ints.empty())
      std::fill(r.ints.begin(), r.ints.end(), s.ints[0]);
    if (!r.floats.empty())
      std::fill(r.floats.begin(), r.floats.end(), s.floats[0]);
    if (!r.bufs.empty())
      std::fill(r.bufs.begin(), r.bufs.end(), s.bufs[0]);
    set(o.getResult(), std::move(r));
    return true;
  }

  /// Copies element `from` of `s` to element `to` of `r` (same kind).
  static void copyElem(const Val &s, int64_t from, Val &r, int64_t to) {
    if (!r.ints.empty())
      r.ints[to] = s.ints[from];
    if (!r.floats.empty())
      r.floats[to] = s.floats[from];
    if (!r.bufs.empty())
      r.bufs[to] = s.bufs[from];
  }

  bool trans(TransOp o) {
    const Val &s = get(o.getSrc());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    int64_t rows = o.getSrc().getType().getDimSize(0);
    int64_t cols = o.getSrc().getType().getDimSize(1);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        copyElem(s, i * cols + j, r, j * rows + i);
    set(o.getResult(), std::move(r));
    return true;
  }

  bool broadcast(BroadcastOp o) {
    const Val &s = get(o.getSrc());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    ArrayRef<int64_t> in = o.getSrc().getType().getShape();
    ArrayRef<int64_t> out = o.getType().getShape();
    if (in.size() != out.size() || out.size() > 2)
      return fail(o, "broadcast between tiles of different rank");
    int64_t rows = out.size() == 2 ? out[0] : 1;
    int64_t cols = out.back();
    int64_t inRows = in.size() == 2 ? in[0] : 1;
    int64_t inCols = in.back();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        copyElem(s, (inRows == 1 ? 0 : i) * inCols + (inCols == 1 ? 0 : j), r,
                 i * cols + j);
    set(o.getResult(), std::move(r));
    return true;
  }

  bool addPtr(AddPtrOp o) {
    const Val &p = get(o.getPtr());
    const Val &off = get(o.getOffset());
    Val r = p;
    for (int64_t i = 0; i < r.size; ++i)
      r.ints[i] += off.ints[off.size == 1 ? 0 : i];
    set(o.getResult(), std::move(r));
    return true;
  }

  /// The index into buffers[buf] of element `i` of pointer value `p`, or an
  /// error for an access outside the buffer.
  bool checkAccess(Operation *op, const Val &p, int64_t i, const char *what) {
    int64_t n = bufferElements[p.bufs[i]];
    int64_t off = p.ints[i];
    if (off >= 0 && off < n) [[likely]]
      return true;
    const Buffer &b = buffers[p.bufs[i]];
    std::string lane =
        p.size > 1 ? llvm::formatv(" (lane {0} of the tile)", i).str() : "";
    return fail(op,
                llvm::formatv("out-of-bounds {0} of buffer '{1}' at element "
                              "offset {2}{3}; the buffer has {4} elements "
                              "(program id {5})",
                              what, b.name, off, lane, n, formatPid(pid))
                    .str());
  }

  /// Reads the element behind pointer i of `p` into r[i] where `on(i)`;
  /// calls `off(i)` for the others. Out-of-bounds reads are located errors.
  bool gather(Operation *o, const Val &p, llvm::function_ref<bool(int64_t)> on,
              llvm::function_ref<void(int64_t)> off, Val &r,
              const char *what) {
    bool f = isFloat(r.elem.dtype);
    for (int64_t i = 0; i < r.size; ++i) {
      if (!on(i)) {
        off(i);
        continue;
      }
      if (!checkAccess(o, p, i, what))
        return false;
      const Buffer &b = buffers[p.bufs[i]];
      const uint8_t *base = b.array.data.data();
      if (f)
        r.floats[i] = loadFloatElement(base, b.array.dtype, p.ints[i]);
      else
        r.ints[i] = loadIntElement(base, b.array.dtype, p.ints[i]);
    }
    return true;
  }

  /// Writes v[i] behind pointer i of `p` where `on(i)`.
  bool scatter(Operation *o, const Val &p, llvm::function_ref<bool(int64_t)> on,
               const Val &v, const char *what) {
    bool f = isFloat(v.elem.dtype);
    for (int64_t i = 0; i < p.size; ++i) {
      if (!on(i))
        continue;
      if (!checkAccess(o, p, i, what))
        return false;
      Buffer &b = buffers[p.bufs[i]];
      uint8_t *base = b.array.data.data();
      if (f)
        storeFloatElement(base, b.array.dtype, p.ints[i], v.floats[i]);
      else
        storeIntElement(base, b.array.dtype, p.ints[i], v.ints[i]);
    }
    return true;
  }

  bool load(LoadOp o) {
    const Val &p = get(o.getPtr());
    const Val *mask = o.getMask() ? &get(o.getMask()) : nullptr;
    const Val *other = o.getOther() ? &get(o.getOther()) : nullptr;
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    // Masked-off lanes: `other`, else zero (what the lowering uses).
    if (!gather(
            o, p, [&](int64_t i) { return !mask || mask->ints[i] != 0; },
            [&](int64_t i) {
              if (other)
                copyElem(*other, i, r, i);
            },
            r, "load"))
      return false;
    set(o.getResult(), std::move(r));
    return true;
  }

  bool store(StoreOp o) {
    const Val *mask = o.getMask() ? &get(o.getMask()) : nullptr;
    return scatter(
        o, get(o.getPtr()),
        [&](int64_t i) { return !mask || mask->ints[i] != 0; },
        get(o.getValue()), "store");
  }

  /// An atomic read-modify-write (`kind`) or, without one, a
  /// compare-and-swap of `cmp` for `value`. The interpreter's order is the
  /// documented one (docs/language.md, "Atomics"): programs in grid order
  /// (x fastest), a tile's elements in row-major order, each update applied
  /// whole before the next; masked-off lanes return `value`.
  bool atomic(Operation *o, std::optional<AtomicKind> kind, Value ptr,
              Value cmpV, Value valueV, Value maskV) {
    const Val &p = get(ptr), &v = get(valueV);
    const Val *cmp = cmpV ? &get(cmpV) : nullptr;
    const Val *mask = maskV ? &get(maskV) : nullptr;
    Val r;
    if (!make(o, o->getResult(0).getType(), r))
      return false;
    bool f = isFloat(r.elem.dtype);
    for (int64_t i = 0; i < r.size; ++i) {
      if (mask && mask->ints[mask->size == 1 ? 0 : i] == 0) {
        copyElem(v, i, r, i);
        continue;
      }
      if (!checkAccess(o, p, i, "atomic"))
        return false;
      Buffer &b = buffers[p.bufs[i]];
      uint8_t *base = b.array.data.data();
      DType t = b.array.dtype;
      if (f) {
        double old = loadFloatElement(base, t, p.ints[i]), x = v.floats[i];
        double next = x; // xchg
        if (*kind == AtomicKind::Add)
          next = roundToFloat(old + x, t);
        else if (*kind == AtomicKind::Max)
          next = fmaximum(old, x);
        else if (*kind == AtomicKind::Min)
          next = fminimum(old, x);
        storeFloatElement(base, t, p.ints[i], next);
        r.floats[i] = old;
        continue;
      }
      unsigned width = intWidth(t);
      int64_t old = loadIntElement(base, t, p.ints[i]), x = v.ints[i];
      int64_t next = x;
      if (!kind)
        next = old == cmp->ints[i] ? x : old;
      else if (*kind == AtomicKind::Add)
        next = wrapInt(int64_t(uint64_t(old) + uint64_t(x)), width);
      else if (*kind == AtomicKind::Min)
        next = std::min(old, x);
      else if (*kind == AtomicKind::Max)
        next = std::max(old, x);
      storeIntElement(base, t, p.ints[i], next);
      r.ints[i] = old;
    }
    set(o->getResult(0), std::move(r));
    return true;
  }

  /// Pointers to the elements of the tile `shape` at block `coords` of a
  /// strided tensor, in row-major tile order, and which of them lie inside
  /// the tensor (unsigned index < size; a negative size is empty). Written
  /// directly from load_tile's definition, independently of the compiler's
  /// expansion (passes/ExpandTileAccesses.cpp).
  bool tileAddresses(Operation *o, Value base, ValueRange dims,
                     ValueRange strides, ValueRange coords,
                     ArrayRef<int64_t> shape, Val &ptrs,
                     std::vector<bool> &inside) {
    const Val &b = get(base);
    if (!make(o, RankedTensorType::get(shape, base.getType()), ptrs))
      return false;
    auto scalar = [&](Value v) { return get(v).ints[0]; };
    // The tensor's leading dimensions beyond the tile's rank (a batch) are
    // indexed by element, the tile's own by block.
    size_t rank = dims.size(), lead = rank - shape.size();
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    inside.assign(n, false);
    // The operands once, not per element: each is a map lookup.
    bool elementCoords = hasElementCoords(o);
    SmallVector<int64_t, 6> first(rank), extent(rank), stride(rank);
    for (size_t d = 0; d < rank; ++d) {
      first[d] = scalar(coords[d]);
      extent[d] = scalar(dims[d]);
      stride[d] = d + 1 < rank ? scalar(strides[d]) : 1;
      // load_tile_at counts elements, load_tile blocks.
      if (d >= lead && !elementCoords)
        first[d] *= shape[d - lead];
    }
    for (int64_t k = 0; k < n; ++k) {
      bool in = true;
      int64_t offset = 0, rest = k, inner = n;
      for (size_t d = 0; d < rank; ++d) {
        int64_t idx = first[d];
        if (d >= lead) {
          inner /= shape[d - lead];
          idx += rest / inner;
          rest %= inner;
        }
        in = in && idx >= 0 && idx < extent[d];
        offset += idx * stride[d];
      }
      inside[k] = in;
      ptrs.bufs[k] = b.bufs[0];
      ptrs.ints[k] = b.ints[0] + (in ? offset : 0);
    }
    return true;
  }

  bool loadTile(LoadTileOp o) {
    auto type = cast<RankedTensorType>(o.getType());
    Val p, r;
    std::vector<bool> inside;
    if (!tileAddresses(o, o.getBase(), o.getDims(), o.getStrides(),
                       o.getCoords(), type.getShape(), p, inside) ||
        !make(o, type, r))
      return false;
    const Val *other = o.getOther() ? &get(o.getOther()) : nullptr;
    if (!gather(
            o, p, [&](int64_t i) { return bool(inside[i]); },
            [&](int64_t i) {
              if (other)
                copyElem(*other, 0, r, i);
            },
            r, "load_tile"))
      return false;
    set(o.getResult(), std::move(r));
    return true;
  }

  bool storeTile(StoreTileOp o) {
    auto type = cast<RankedTensorType>(o.getValue().getType());
    Val p;
    std::vector<bool> inside;
    if (!tileAddresses(o, o.getBase(), o.getDims(), o.getStrides(),
                       o.getCoords(), type.getShape(), p, inside))
      return false;
    return scatter(
        o, p, [&](int64_t i) { return bool(inside[i]); }, get(o.getValue()),
        "store_tile");
  }

  /// Counts per bin; values outside [0, bins) and masked-off ones are not
  /// counted.
  bool histogram(HistogramOp o) {
    const Val &src = get(o.getSrc());
    const Val *mask = o.getMask() ? &get(o.getMask()) : nullptr;
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    int64_t bins = o.getBins();
    std::fill(r.ints.begin(), r.ints.end(), 0);
    for (int64_t i = 0; i < src.size; ++i) {
      int64_t v = src.ints[i];
      if ((!mask || mask->ints[i] != 0) && v >= 0 && v < bins)
        ++r.ints[v];
    }
    set(o.getResult(), std::move(r));
    return true;
  }

  bool reduce(ReduceOp o) {
    const Val &s = get(o.getSrc());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    ArrayRef<int64_t> shape = o.getSrc().getType().getShape();
    int64_t rows = shape.size() == 2 ? shape[0] : 1;
    int64_t cols = shape.back();
    bool alongRows = shape.size() == 2 && o.getAxis() == 0;
    int64_t outer = alongRows ? cols : rows; // one result per outer index
    int64_t len = alongRows ? rows : cols;   // elements combined into it
    auto index = [&](int64_t k, int64_t j) {
      return alongRows ? j * cols + k : k * cols + j;
    };
    DType t = s.elem.dtype;
    ReduceKind kind = o.getKind();
    for (int64_t k = 0; k < outer; ++k) {
      if (isFloat(t)) {
        double acc = s.floats[index(k, 0)];
        for (int64_t j = 1; j < len; ++j) {
          double x = s.floats[index(k, j)];
          acc = kind == ReduceKind::Sum   ? roundToFloat(acc + x, t)
                : kind == ReduceKind::Max ? fmaximum(acc, x)
                                          : fminimum(acc, x);
        }
        r.floats[k] = acc;
      } else {
        unsigned w = intWidth(t);
        int64_t acc = s.ints[index(k, 0)];
        for (int64_t j = 1; j < len; ++j) {
          int64_t x = s.ints[index(k, j)];
          acc = kind == ReduceKind::Sum
                    ? wrapInt(int64_t(uint64_t(acc) + uint64_t(x)), w)
                : kind == ReduceKind::Max ? std::max(acc, x)
                                          : std::min(acc, x);
        }
        r.ints[k] = acc;
      }
    }
    set(o.getResult(), std::move(r));
    return true;
  }

  bool dot(DotOp o) {
    const Val &a = get(o.getA()), &b = get(o.getB()), &c = get(o.getC());
    Val r = c;
    int64_t m = o.getA().getType().getDimSize(0);
    int64_t kk = o.getA().getType().getDimSize(1);
    int64_t n = o.getB().getType().getDimSize(1);
    DType acc = r.elem.dtype;
    // 16-bit float inputs are multiplied and accumulated in f32 at least.
    DType work = acc == DType::f16 || acc == DType::bf16 ? DType::f32 : acc;
    // The operands may differ only as 8-bit floats do (e4m3 x e5m2); their
    // products are exact in f32.
    bool floatOperands = isFloat(a.elem.dtype) && isFloat(b.elem.dtype);
    if (isFloat(acc) && floatOperands) {
      // Each element still sums over k in order; k outside j makes the
      // row's sums independent chains over contiguous rows of b.
      for (int64_t i = 0; i < m; ++i) {
        double *s = &r.floats[i * n];
        for (int64_t k = 0; k < kk; ++k) {
          double x = a.floats[i * kk + k];
          const double *bk = &b.floats[k * n];
          if (work == DType::f32) // roundToFloat's f32 step, spelled out
            for (int64_t j = 0; j < n; ++j)
              s[j] = double(float(s[j] + double(float(x * bk[j]))));
          else
            for (int64_t j = 0; j < n; ++j)
              s[j] = roundToFloat(s[j] + roundToFloat(x * bk[j], work), work);
        }
        for (int64_t j = 0; j < n; ++j)
          s[j] = roundToFloat(s[j], acc);
      }
      set(o.getResult(), std::move(r));
      return true;
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (isFloat(acc)) {
          double s = r.floats[i * n + j];
          for (int64_t k = 0; k < kk; ++k)
            s = roundToFloat(s + 0.0, work); // products of non-floats: 0
          r.floats[i * n + j] = roundToFloat(s, acc);
        } else {
          unsigned w = intWidth(acc);
          int64_t s = r.ints[i * n + j];
          for (int64_t k = 0; k < kk; ++k)
            s = wrapInt(int64_t(uint64_t(s) + uint64_t(a.ints[i * kk + k]) *
                                                  uint64_t(b.ints[k * n + j])),
                        w);
          r.ints[i * n + j] = s;
        }
      }
    set(o.getResult(), std::move(r));
    return true;
  }

  bool forOp(scf::ForOp o) {
    int64_t lb = get(o.getLowerBound()).ints[0];
    int64_t ub = get(o.getUpperBound()).ints[0];
    int64_t step = get(o.getStep()).ints[0];
    if (step <= 0)
      return fail(o, "scf.for step " + Twine(step) + " is not positive");
    unsigned width = getElementTypeOrSelf(o.getInductionVar().getType())
                         .getIntOrFloatBitWidth();
    SmallVector<Val> carried;
    for (Value init : o.getInitArgs())
      carried.push_back(get(init));
    Block &body = *o.getBody();
    for (int64_t iv = lb; iv < ub;) {
      Val ivVal;
      if (!make(o, o.getInductionVar().getType(), ivVal))
        return false;
      ivVal.ints[0] = iv;
      values[o.getInductionVar()] = std::move(ivVal);
      for (auto [arg, v] : llvm::zip(o.getRegionIterArgs(), carried))
        values[arg] = std::move(v);
      if (!runBlock(body, carried))
        return false;
      // The lowering adds in the induction variable's type: a sum that wraps
      // comes back negative, below the bound, and the GPU loop goes on.
      int64_t next;
      if (__builtin_add_overflow(iv, step, &next) ||
          wrapInt(next, width) != next)
        return fail(o, "the loop's induction variable overflows i" +
                           Twine(width) + " after " + Twine(iv) +
                           " (the compiled loop would not end there)");
      iv = next;
    }
    for (auto [res, v] : llvm::zip(o.getResults(), carried))
      set(res, std::move(v));
    return true;
  }

  /// A `while` loop. It runs at most kMaxWhileIterations times: a loop that
  /// waits for a later program (which the interpreter runs after this one,
  /// in grid order) would never end here.
  static constexpr uint64_t kMaxWhileIterations = uint64_t(1) << 26;
  bool whileOp(scf::WhileOp o) {
    SmallVector<Val> carried, term;
    for (Value init : o.getInits())
      carried.push_back(get(init));
    Block &before = o.getBefore().front(), &after = o.getAfter().front();
    for (uint64_t trip = 0;; ++trip) {
      if (trip == kMaxWhileIterations)
        return fail(o, "this while loop ran " + Twine(kMaxWhileIterations) +
                           " times without ending; the interpreter runs "
                           "programs one after another in grid order, so a "
                           "program cannot wait here for a later one");
      for (auto [arg, v] : llvm::zip(before.getArguments(), carried))
        values[arg] = std::move(v);
      if (!runBlock(before, term))
        return false;
      bool go = term.front().ints[0] != 0;
      carried.assign(std::make_move_iterator(term.begin() + 1),
                     std::make_move_iterator(term.end()));
      if (!go)
        break;
      for (auto [arg, v] : llvm::zip(after.getArguments(), carried))
        values[arg] = std::move(v);
      if (!runBlock(after, carried))
        return false;
    }
    for (auto [res, v] : llvm::zip(o.getResults(), carried))
      set(res, std::move(v));
    return true;
  }

  bool ifOp(scf::IfOp o) {
    bool cond = get(o.getCondition()).ints[0] != 0;
    Region &region = cond ? o.getThenRegion() : o.getElseRegion();
    SmallVector<Val> results;
    if (!region.empty() && !runBlock(region.front(), results))
      return false;
    for (auto [res, v] : llvm::zip(o.getResults(), results))
      set(res, std::move(v));
    return true;
  }

  bool constant(arith::ConstantOp o) {
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    Attribute attr = o.getValue();
    auto put = [&](int64_t i, Attribute a) {
      if (auto f = dyn_cast<FloatAttr>(a))
        r.floats[i] = f.getValueAsDouble();
      else if (auto n = dyn_cast<IntegerAttr>(a))
        r.ints[i] =
            wrapInt(n.getValue().getSExtValue(), intWidth(r.elem.dtype));
    };
    if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
      auto vals = dense.getValues<Attribute>();
      for (int64_t i = 0; i < r.size; ++i)
        put(i, dense.isSplat() ? dense.getSplatValue<Attribute>() : vals[i]);
    } else if (isa<FloatAttr, IntegerAttr>(attr)) {
      put(0, attr);
    } else {
      return fail(o, "the interpreter does not support this constant");
    }
    set(o.getResult(), std::move(r));
    return true;
  }

  template <typename F> bool floatUnary(Operation *op, F f) {
    const Val &a = get(op->getOperand(0));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    DType t = r.elem.dtype;
    for (int64_t i = 0; i < r.size; ++i)
      r.floats[i] = roundToFloat(f(a.floats[i]), t);
    set(op->getResult(0), std::move(r));
    return true;
  }

  /// arith.bitcast: each element's bytes reread as the other type.
  bool bitcast(Operation *op) {
    const Val &a = get(op->getOperand(0));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    for (int64_t i = 0; i < r.size; ++i) {
      uint8_t bytes[8] = {};
      if (isFloat(a.elem.dtype))
        storeFloatElement(bytes, a.elem.dtype, 0, a.floats[i]);
      else
        storeIntElement(bytes, a.elem.dtype, 0, a.ints[i]);
      if (isFloat(r.elem.dtype))
        r.floats[i] = loadFloatElement(bytes, r.elem.dtype, 0);
      else
        r.ints[i] = loadIntElement(bytes, r.elem.dtype, 0);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }

  template <typename F> bool floatBinary(Operation *op, F f) {
    const Val &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    DType t = r.elem.dtype;
    for (int64_t i = 0; i < r.size; ++i)
      r.floats[i] = roundToFloat(f(a.floats[i], b.floats[i]), t);
    set(op->getResult(0), std::move(r));
    return true;
  }

  template <typename F> bool intUnary(Operation *op, F f) {
    const Val &a = get(op->getOperand(0));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    unsigned w = intWidth(r.elem.dtype);
    for (int64_t i = 0; i < r.size; ++i)
      r.ints[i] = wrapInt(f(a.ints[i]), w);
    set(op->getResult(0), std::move(r));
    return true;
  }

  template <typename F> bool intBinary(Operation *op, F f) {
    const Val &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    unsigned w = intWidth(r.elem.dtype);
    for (int64_t i = 0; i < r.size; ++i)
      r.ints[i] = wrapInt(f(a.ints[i], b.ints[i]), w);
    set(op->getResult(0), std::move(r));
    return true;
  }

  bool divRem(Operation *op, bool isRem) {
    const Val &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    unsigned w = intWidth(r.elem.dtype);
    int64_t minVal = wrapInt(int64_t(uint64_t(1) << (w - 1)), w);
    const char *what = isRem ? "remainder" : "division";
    for (int64_t i = 0; i < r.size; ++i) {
      int64_t x = a.ints[i], y = b.ints[i];
      std::string lane = r.size > 1 ? " in lane " + std::to_string(i) : "";
      if (y == 0)
        return fail(op, llvm::formatv("integer {0} by zero{1} (program id {2})",
                                      what, lane, formatPid(pid))
                            .str());
      if (w > 1 && x == minVal && y == -1)
        return fail(op, llvm::formatv("integer {0} overflow: {1} / -1 in i{2}"
                                      "{3} (program id {4})",
                                      what, x, w, lane, formatPid(pid))
                            .str());
      r.ints[i] = wrapInt(isRem ? x % y : x / y, w);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }

  bool shift(Operation *op, bool left) {
    const Val &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    unsigned w = intWidth(r.elem.dtype);
    for (int64_t i = 0; i < r.size; ++i) {
      uint64_t s = asUnsigned(b.ints[i], w);
      if (s >= w)
        return fail(op, llvm::formatv("shift by {0} is not less than the bit "
                                      "width {1} (program id {2})",
                                      b.ints[i], w, formatPid(pid))
                            .str());
      r.ints[i] =
          wrapInt(left ? int64_t(uint64_t(a.ints[i]) << s) : a.ints[i] >> s, w);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }

  bool cmpi(arith::CmpIOp o) {
    const Val &a = get(o.getLhs()), &b = get(o.getRhs());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    unsigned w = a.elem.isPtr ? 64 : intWidth(a.elem.dtype);
    using P = arith::CmpIPredicate;
    P p = o.getPredicate();
    for (int64_t i = 0; i < r.size; ++i) {
      int64_t x = a.ints[i], y = b.ints[i];
      uint64_t ux = asUnsigned(x, w), uy = asUnsigned(y, w);
      bool v = false;
      switch (p) {
      case P::eq:
        v = x == y;
        break;
      case P::ne:
        v = x != y;
        break;
      case P::slt:
        v = x < y;
        break;
      case P::sle:
        v = x <= y;
        break;
      case P::sgt:
        v = x > y;
        break;
      case P::sge:
        v = x >= y;
        break;
      case P::ult:
        v = ux < uy;
        break;
      case P::ule:
        v = ux <= uy;
        break;
      case P::ugt:
        v = ux > uy;
        break;
      case P::uge:
        v = ux >= uy;
        break;
      }
      r.ints[i] = v ? -1 : 0;
    }
    set(o.getResult(), std::move(r));
    return true;
  }

  bool cmpf(arith::CmpFOp o) {
    const Val &a = get(o.getLhs()), &b = get(o.getRhs());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    using P = arith::CmpFPredicate;
    P p = o.getPredicate();
    for (int64_t i = 0; i < r.size; ++i) {
      double x = a.floats[i], y = b.floats[i];
      bool uno = std::isnan(x) || std::isnan(y);
      bool v = false;
      switch (p) {
      case P::AlwaysFalse:
        v = false;
        break;
      case P::OEQ:
        v = !uno && x == y;
        break;
      case P::OGT:
        v = !uno && x > y;
        break;
      case P::OGE:
        v = !uno && x >= y;
        break;
      case P::OLT:
        v = !uno && x < y;
        break;
      case P::OLE:
        v = !uno && x <= y;
        break;
      case P::ONE:
        v = !uno && x != y;
        break;
      case P::ORD:
        v = !uno;
        break;
      case P::UEQ:
        v = uno || x == y;
        break;
      case P::UGT:
        v = uno || x > y;
        break;
      case P::UGE:
        v = uno || x >= y;
        break;
      case P::ULT:
        v = uno || x < y;
        break;
      case P::ULE:
        v = uno || x <= y;
        break;
      case P::UNE:
        v = uno || x != y;
        break;
      case P::UNO:
        v = uno;
        break;
      case P::AlwaysTrue:
        v = true;
        break;
      }
      r.ints[i] = v ? -1 : 0;
    }
    set(o.getResult(), std::move(r));
    return true;
  }

  bool select(arith::SelectOp o) {
    const Val &c = get(o.getCondition());
    const Val &a = get(o.getTrueValue()), &b = get(o.getFalseValue());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    for (int64_t i = 0; i < r.size; ++i)
      copyElem(c.ints[c.size == 1 ? 0 : i] != 0 ? a : b, i, r, i);
    set(o.getResult(), std::move(r));
    return true;
  }

  bool floatToFloat(Operation *op) {
    // kcc's truncf to an 8-bit float is cvt.rn.satfinite: infinities
    // saturate too (docs/language.md, "8-bit floats").
    DType to = *dtypeOf(getElementTypeOrSelf(op->getResult(0).getType()));
    if (isFloat8(to))
      return floatUnary(op, [to](double a) { return saturateToFloat8(a, to); });
    return floatUnary(op, [](double a) { return a; });
  }

  bool intToInt(Operation *op, bool zext) {
    const Val &a = get(op->getOperand(0));
    unsigned srcWidth = intWidth(a.elem.dtype);
    return intUnary(op, [&](int64_t v) {
      return zext ? int64_t(asUnsigned(v, srcWidth)) : v;
    });
  }

  bool intToFloat(Operation *op, bool unsig) {
    const Val &a = get(op->getOperand(0));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    unsigned w = intWidth(a.elem.dtype);
    DType t = r.elem.dtype;
    for (int64_t i = 0; i < r.size; ++i) {
      int64_t v = a.ints[i];
      // f32: the C++ conversion rounds once; otherwise the detour through
      // double is exact below 2^53, far beyond f16's range.
      if (unsig) {
        uint64_t u = asUnsigned(v, w);
        r.floats[i] =
            t == DType::f32 ? double(float(u)) : roundToFloat(double(u), t);
      } else {
        r.floats[i] =
            t == DType::f32 ? double(float(v)) : roundToFloat(double(v), t);
      }
    }
    set(op->getResult(0), std::move(r));
    return true;
  }

  bool floatToInt(Operation *op) {
    const Val &a = get(op->getOperand(0));
    Val r;
    if (!make(op, op->getResult(0).getType(), r))
      return false;
    unsigned w = intWidth(r.elem.dtype);
    double lo = -std::ldexp(1.0, w - 1), hi = std::ldexp(1.0, w - 1);
    for (int64_t i = 0; i < r.size; ++i) {
      double x = std::trunc(a.floats[i]);
      if (!(x >= lo && x < hi))
        return fail(op, "fptosi: " + formatFloat(a.floats[i]) +
                            " does not fit in i" + Twine(w) + " (program id " +
                            formatPid(pid) + ")");
      r.ints[i] = wrapInt(static_cast<int64_t>(x), w);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }

  bool fma(math::FmaOp o) {
    const Val &a = get(o.getA()), &b = get(o.getB()), &c = get(o.getC());
    Val r;
    if (!make(o, o.getType(), r))
      return false;
    DType t = r.elem.dtype;
    for (int64_t i = 0; i < r.size; ++i) {
      double x = a.floats[i], y = b.floats[i], z = c.floats[i];
      // One rounding: fmaf for f32; the product of two 16-bit floats is
      // exact in double.
      r.floats[i] = t == DType::f32
                        ? double(std::fmaf(float(x), float(y), float(z)))
                    : t == DType::f64 ? std::fma(x, y, z)
                                      : roundToFloat(std::fma(x, y, z), t);
    }
    set(o.getResult(), std::move(r));
    return true;
  }
};

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// Converts the arguments to values, checking them against the signature.
std::optional<RunError> bindArgs(func::FuncOp func,
                                 const std::vector<KernelArg> &args,
                                 const std::vector<Buffer> &buffers,
                                 std::vector<Val> &out) {
  auto argError = [&](const Twine &msg) {
    return RunError{msg.str(), func.getLoc(), {0, 0, 0}};
  };
  ArrayRef<Type> inputs = func.getFunctionType().getInputs();
  if (inputs.size() != args.size())
    return argError("kernel '" + func.getSymName() + "' takes " +
                    Twine(inputs.size()) + " arguments, got " +
                    Twine(args.size()));
  auto names = func->getAttrOfType<ArrayAttr>("kcc.arg_names");
  for (auto [i, type] : llvm::enumerate(inputs)) {
    std::string name = names && i < names.size()
                           ? cast<StringAttr>(names[i]).str()
                           : "#" + std::to_string(i);
    const KernelArg &arg = args[i];
    Val v;
    v.size = 1;
    if (auto p = dyn_cast<PtrType>(type)) {
      std::optional<DType> d = dtypeOf(p.getPointeeType());
      if (!arg.isPointer)
        return argError("parameter '" + name + "' is a pointer (" +
                        typeString(type) + "), got a scalar");
      if (!d || arg.buffer >= buffers.size())
        return argError("parameter '" + name + "': no such buffer");
      const Buffer &b = buffers[arg.buffer];
      if (b.array.dtype != *d)
        return argError("parameter '" + name + "' is " + typeString(type) +
                        " but buffer '" + b.name + "' holds " +
                        dtypeName(b.array.dtype));
      v.elem = {*d, true};
      v.ints = {arg.offset};
      v.bufs = {arg.buffer};
    } else {
      std::optional<DType> d = dtypeOf(type);
      if (!d)
        return argError("parameter '" + name +
                        "' has a type the interpreter "
                        "does not support: " +
                        typeString(type));
      if (arg.isPointer)
        return argError("parameter '" + name + "' is a scalar (" +
                        typeString(type) + "), got a buffer");
      v.elem = {*d, false};
      if (isFloat(*d))
        v.floats = {roundToFloat(arg.floatValue, *d)};
      else
        v.ints = {wrapInt(arg.intValue, intWidth(*d))};
    }
    out.push_back(std::move(v));
  }
  return std::nullopt;
}

} // namespace

std::optional<RunError>
kcc::interp::runKernel(func::FuncOp func, const std::vector<KernelArg> &args,
                       std::vector<Buffer> &buffers, const Grid &grid,
                       RunStats *stats, uint64_t maxSteps) {
  if (func.getBody().empty() || !func.getBody().hasOneBlock())
    return RunError{"the interpreter needs a function with one block",
                    func.getLoc(),
                    {0, 0, 0}};
  std::vector<Val> vals;
  if (std::optional<RunError> e = bindArgs(func, args, buffers, vals))
    return e;
  for (int64_t g : grid)
    if (g < 0)
      return RunError{"negative grid size", func.getLoc(), {0, 0, 0}};
  RunStats local;
  Interp interp(buffers, grid, stats ? *stats : local, maxSteps);
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        ++(stats ? *stats : local).programs;
        if (!interp.runProgram(func, {x, y, z}, vals))
          return interp.error;
      }
  return std::nullopt;
}

std::optional<FileLineColLoc> kcc::interp::findFileLineCol(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      found = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}
