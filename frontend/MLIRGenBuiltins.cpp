//===- MLIRGenBuiltins.cpp - builtin calls to kcc tile IR -----------------===//
//
// The builtin functions (program_id, arange, zeros, load, store, load_tile,
// store_tile, where, cast, the math functions, sum, dot, ...) with their
// argument checks, and tile shapes given as lists (MLIRGenEmitter.h).
//
//===----------------------------------------------------------------------===//
#include "frontend/MLIRGenEmitter.h"

#include "ir/ElementTypes.h"
#include "ir/TileCoords.h"

#include "llvm/Support/MathExtras.h"

using namespace kcc::frontend;
using namespace kcc::frontend::detail;
namespace math = mlir::math;

std::optional<llvm::SmallVector<int64_t>>
Gen::tileShape(const TV &arg, SMLoc at, StringRef what) {
  llvm::SmallVector<int64_t> shape;
  std::vector<TV> dims = arg.kind == TV::List ? arg.list : std::vector<TV>{arg};
  for (const TV &d : dims) {
    if (d.kind != TV::IntLit) {
      error(at, "the shape of " + what +
                    " must be a list of compile-time integer constants, e.g. "
                    "[BLOCK, 64]");
      return std::nullopt;
    }
    // Any positive extent: whether a target can lay a tile out is the
    // backend's to say (kcc-check-tile-extents), since tensor-core
    // accumulators and TMA stages take extents that are not powers of two.
    if (d.i <= 0) {
      error(at, "tile dimension " + std::to_string(d.i) +
                    " is not positive; tile dimensions are at least 1");
      return std::nullopt;
    }
    // As for arange; it also keeps element counts far from overflow.
    if (d.i > (1 << 20)) {
      error(at, "tile dimension " + std::to_string(d.i) +
                    " is larger than 2^20; use smaller tiles and loop over "
                    "the data");
      return std::nullopt;
    }
    shape.push_back(d.i);
  }
  if (shape.empty() || shape.size() > 2) {
    error(at, "tiles must have rank 1 or 2, got rank " +
                  std::to_string(shape.size()));
    return std::nullopt;
  }
  return shape;
}

TV Gen::genTileBuiltin(const Expr &e, const std::vector<const Expr *> &pos) {
  const std::string &name = e.name;
  mlir::Location l = loc(e.loc);
  // load_tile_at / store_tile_at: the same tile at element coordinates
  // (ir/TileCoords.h).
  bool elementCoords = name == "load_tile_at" || name == "store_tile_at";
  bool isLoad = name == "load_tile" || name == "load_tile_at";
  const char *forms =
      name == "dim" ? "dim(tensor, axis)"
      : name == "load_tile_at"
          ? "load_tile_at(tensor, [rows, cols], [row, col]), "
            "load_tile_at(tensor, [rows, cols], [row, col], other), "
            "load_tile_at(batched, [rows, cols], [b, row, col])"
      : name == "store_tile_at" ? "store_tile_at(tensor, [row, col], tile), "
                                  "store_tile_at(batched, [b, row, col], tile)"
      : isLoad                  ? "load_tile(tensor, [rows, cols], [i, j]), "
                                  "load_tile(tensor, [rows, cols], [i, j], other), "
                                  "load_tile(batched, [rows, cols], [b, i, j])"
                                : "store_tile(tensor, [i, j], tile), "
                                  "store_tile(batched, [b, i, j], tile)";
  size_t minArgs = name == "dim" ? 2 : 3;
  size_t maxArgs = isLoad ? 4 : minArgs;
  if (pos.size() < minArgs || pos.size() > maxArgs) {
    error(e.loc, "wrong number of arguments to '" + name + "' (got " +
                     std::to_string(pos.size()) + "); accepted forms: " + forms);
    return TV::poison();
  }
  TV t = gen(*pos[0]);
  if (!t.ok())
    return TV::poison();
  if (t.kind != TV::Tensor) {
    error(pos[0]->loc, "the first argument of " + name +
                           " must be a tensor parameter (declared as x: "
                           "tensor<T, 2>)");
    return TV::poison();
  }
  auto dims = [&] {
    llvm::SmallVector<Value> v;
    for (int64_t d = 0; d < t.rank; ++d)
      v.push_back(t.list[d].v);
    return v;
  };
  auto strides = [&] {
    llvm::SmallVector<Value> v;
    for (int64_t d = 0; d + 1 < t.rank; ++d)
      v.push_back(t.list[t.rank + d].v);
    return v;
  };
  Type elem = mlir::cast<kcc::PtrType>(t.v.getType()).getPointeeType();

  if (name == "dim") {
    auto axis = genConstInt(*pos[1], "the axis of dim");
    if (!axis)
      return TV::poison();
    if (*axis < 0 || *axis >= t.rank) {
      error(pos[1]->loc, "axis " + std::to_string(*axis) +
                             " is out of range for a tensor of rank " +
                             std::to_string(t.rank));
      return TV::poison();
    }
    return t.list[*axis];
  }

  // Block coordinates: one i32 per dimension.
  const Expr &coordExpr = *pos[isLoad ? 2 : 1];
  TV coordsTV = gen(coordExpr);
  if (!coordsTV.ok())
    return TV::poison();
  std::vector<TV> coordTVs = coordsTV.kind == TV::List
                                 ? coordsTV.list
                                 : std::vector<TV>{coordsTV};
  if (int64_t(coordTVs.size()) != t.rank) {
    error(coordExpr.loc,
          "a tensor of rank " + std::to_string(t.rank) + " takes " +
              std::to_string(t.rank) + " coordinates, got " +
              std::to_string(coordTVs.size()) +
              (t.rank == 3 ? " (the batch index, then the tile's two block "
                             "coordinates)"
                           : ""));
    return TV::poison();
  }
  llvm::SmallVector<Value> coords;
  for (const TV &c : coordTVs) {
    Value v = materialize(c, b.getI32Type());
    if (!v)
      return TV::poison();
    if (v.getType() != b.getI32Type()) {
      error(c.loc, std::string(elementCoords ? "element" : "block") +
                       " coordinates are i32 scalars, got " +
                       typeToString(v.getType()));
      return TV::poison();
    }
    coords.push_back(v);
  }

  if (isLoad) {
    TV shapeTV = gen(*pos[1]);
    if (!shapeTV.ok())
      return TV::poison();
    auto shape = tileShape(shapeTV, pos[1]->loc, name);
    if (!shape)
      return TV::poison();
    if (int64_t(shape->size()) != std::min<int64_t>(t.rank, 2)) {
      error(pos[1]->loc, "the tile of a rank-" + std::to_string(t.rank) +
                             " tensor has rank " +
                             std::to_string(std::min<int64_t>(t.rank, 2)) +
                             (t.rank == 3 ? " (one matrix of the batch)" : "") +
                             ", got shape " + shapeToString(*shape));
      return TV::poison();
    }
    Value other;
    if (pos.size() == 4) {
      TV o = gen(*pos[3]);
      if (!o.ok())
        return TV::poison();
      other = materialize(o, elem);
      if (!other)
        return TV::poison();
      if (other.getType() != elem) {
        error(pos[3]->loc, "'other' must be a scalar " + typeToString(elem) +
                               ", got " + typeToString(other.getType()));
        return TV::poison();
      }
    }
    auto load =
        kcc::LoadTileOp::create(b, l, mlir::RankedTensorType::get(*shape, elem),
                                t.v, dims(), strides(), coords, other);
    if (elementCoords)
      load->setAttr(kcc::kElementCoordsAttr, b.getUnitAttr());
    return TV::value(load);
  }

  TV valTV = gen(*pos[2]);
  if (!valTV.ok())
    return TV::poison();
  Value val = materialize(valTV, elem);
  if (!val)
    return TV::poison();
  auto tile = mlir::dyn_cast<mlir::RankedTensorType>(val.getType());
  if (!tile || tile.getRank() != std::min<int64_t>(t.rank, 2)) {
    error(pos[2]->loc, name + " stores a tile of rank " +
                           std::to_string(std::min<int64_t>(t.rank, 2)) +
                           " (its shape is the box written" +
                           (t.rank == 3 ? ", in one matrix of the batch" : "") +
                           "), got " + typeToString(val.getType()));
    return TV::poison();
  }
  if (tile.getElementType() != elem) {
    error(pos[2]->loc, "the stored tile has element type " +
                           typeToString(tile.getElementType()) +
                           " but the tensor holds " + typeToString(elem) +
                           "; convert it with cast(x, " + typeToString(elem) +
                           ")");
    return TV::poison();
  }
  auto store =
      kcc::StoreTileOp::create(b, l, val, t.v, dims(), strides(), coords);
  if (elementCoords)
    store->setAttr(kcc::kElementCoordsAttr, b.getUnitAttr());
  TV none;
  none.kind = TV::Void;
  none.loc = e.loc;
  return none;
}

Value Gen::pointerArg(const TV &arg, const Expr &at, StringRef name,
                      StringRef where) {
  Value p = materialize(arg);
  if (p && !isPtrTy(elementType(p.getType()))) {
    error(at.loc, "the first argument of " + name.str() +
                      " must be a pointer or a tile of pointers" + where.str() +
                      ", got " + typeToString(p.getType()));
    return Value();
  }
  return p;
}

Value Gen::maskArg(const TV &arg, const Expr &at, StringRef name) {
  Value mask = materialize(arg);
  if (mask && !elementType(mask.getType()).isInteger(1)) {
    error(at.loc, "the mask of " + name.str() +
                      " must be i1 (e.g. offs < n), got " +
                      typeToString(mask.getType()));
    return Value();
  }
  return mask;
}

bool Gen::isAtomicBuiltin(StringRef name) {
  return name == "atomic_add" || name == "atomic_min" || name == "atomic_max" ||
         name == "atomic_xchg" || name == "atomic_cas";
}

/// atomic_add/min/max/xchg(ptr, value[, mask]) and atomic_cas(ptr, cmp,
/// value[, mask]), each with `order=` and `scope=` keywords (bare words).
TV Gen::genAtomic(const Expr &e, const std::vector<const Expr *> &pos,
                  const std::map<std::string, const CallArg *> &kw) {
  const std::string &name = e.name;
  mlir::Location l = loc(e.loc);
  bool cas = name == "atomic_cas";
  std::string forms =
      cas ? "atomic_cas(ptr, cmp, value), atomic_cas(ptr, cmp, value, mask)"
          : name + "(ptr, value), " + name + "(ptr, value, mask)";
  forms += ", with optional order=relaxed|acquire|release|acq_rel and "
           "scope=cta|gpu|system";
  size_t nValues = cas ? 2 : 1;
  if (pos.size() != nValues + 1 && pos.size() != nValues + 2) {
    error(e.loc, "wrong number of arguments to '" + name + "' (got " +
                     std::to_string(pos.size()) +
                     "); accepted forms: " + forms);
    return TV::poison();
  }
  // Keywords: bare words, not expressions.
  kcc::MemoryOrder order = kcc::MemoryOrder::AcqRel;
  kcc::MemoryScope scope = kcc::MemoryScope::Gpu;
  for (auto &[key, arg] : kw) {
    const Expr &v = *arg->value;
    std::string word = v.kind == ExprKind::Ident ? v.name : "";
    if (key == "order") {
      std::optional<kcc::MemoryOrder> o = kcc::symbolizeMemoryOrder(word);
      if (!o) {
        error(v.loc, "unknown memory order" +
                         (word.empty() ? std::string() : " '" + word + "'") +
                         " for '" + name +
                         "'; write order=relaxed, acquire, release or acq_rel "
                         "(the default)");
        return TV::poison();
      }
      order = *o;
    } else if (key == "scope") {
      std::optional<kcc::MemoryScope> sc = kcc::symbolizeMemoryScope(word);
      if (!sc) {
        error(v.loc, "unknown memory scope" +
                         (word.empty() ? std::string() : " '" + word + "'") +
                         " for '" + name +
                         "'; write scope=cta, gpu (the default) or system");
        return TV::poison();
      }
      scope = *sc;
    } else {
      error(arg->keywordLoc, "'" + name + "' does not take keyword argument '" +
                                 key + "'; it takes order= and scope=");
      return TV::poison();
    }
  }
  std::vector<TV> args;
  for (const Expr *p : pos) {
    args.push_back(gen(*p));
    if (!args.back().ok())
      return TV::poison();
  }
  Value p = pointerArg(args[0], *pos[0], name, " into global memory");
  if (!p)
    return TV::poison();
  Type pointee =
      mlir::cast<kcc::PtrType>(elementType(p.getType())).getPointeeType();
  std::optional<kcc::AtomicKind> kind;
  if (!cas)
    kind = name == "atomic_add"   ? kcc::AtomicKind::Add
           : name == "atomic_min" ? kcc::AtomicKind::Min
           : name == "atomic_max" ? kcc::AtomicKind::Max
                                  : kcc::AtomicKind::Xchg;
  bool word = pointee.isInteger(32) || pointee.isInteger(64);
  bool ok = cas ? word
            : *kind == kcc::AtomicKind::Add
                ? word || pointee.isF32() || pointee.isF16() || pointee.isBF16()
                : word || pointee.isF32();
  if (!ok) {
    const char *takes =
        cas ? "i32 and i64 (compare floats through bitcast(x, i32))"
        : *kind == kcc::AtomicKind::Add ? "i32, i64, f32, f16 and bf16"
                                        : "i32, i64 and f32";
    error(pos[0]->loc, "'" + name + "' on a pointer to " +
                           typeToString(pointee) + ": it takes " + takes);
    return TV::poison();
  }
  llvm::SmallVector<Value, 3> vals;
  for (size_t i = 1; i <= nValues; ++i) {
    Value v = materialize(args[i], pointee);
    if (!v)
      return TV::poison();
    if (elementType(v.getType()) != pointee) {
      error(pos[i]->loc,
            std::string(cas && i == 1 ? "the compared value" : "the value") +
                " of " + name + " has element type " +
                typeToString(elementType(v.getType())) +
                " but the pointer is " +
                typeToString(elementType(p.getType())) +
                "; convert it with cast(x, " + typeToString(pointee) + ")");
      return TV::poison();
    }
    vals.push_back(v);
  }
  Value mask;
  if (pos.size() == nValues + 2) {
    mask = maskArg(args.back(), *pos.back(), name);
    if (!mask)
      return TV::poison();
  }
  llvm::SmallVector<Value, 4> all{p};
  all.append(vals.begin(), vals.end());
  if (mask)
    all.push_back(mask);
  auto shape = commonShape(all, e.loc, name);
  if (!shape)
    return TV::poison();
  p = broadcastTo(p, *shape, l);
  for (Value &v : vals)
    v = broadcastTo(v, *shape, l);
  if (mask)
    mask = broadcastTo(mask, *shape, l);
  if (cas)
    return TV::value(kcc::AtomicCASOp::create(
        b, l, vals[0].getType(), p, vals[0], vals[1], mask, order, scope));
  return TV::value(kcc::AtomicRMWOp::create(b, l, vals[0].getType(), *kind, p,
                                            vals[0], mask, order, scope));
}

TV Gen::genCall(const Expr &e) {
  const std::string &name = e.name;
  mlir::Location l = loc(e.loc);
  std::vector<const Expr *> pos;
  std::map<std::string, const CallArg *> kw;
  for (const CallArg &a : e.args) {
    if (a.keyword.empty()) {
      if (!kw.empty()) {
        error(a.value->loc, "positional argument after keyword argument");
        return TV::poison();
      }
      pos.push_back(a.value.get());
    } else {
      kw[a.keyword] = &a;
    }
  }
  bool isReduction = (name == "sum") ||
                     ((name == "min" || name == "max") && pos.size() == 1);
  if (isAtomicBuiltin(name))
    return genAtomic(e, pos, kw);
  for (auto &[key, arg] : kw) {
    if (key != "axis" || !isReduction) {
      error(arg->keywordLoc, "'" + name + "' does not take keyword argument '" +
                                 key + "'" +
                                 (key == "axis" ? "; only reductions sum(t, "
                                                  "axis=K), max(t, axis=K) and "
                                                  "min(t, axis=K) do"
                                                : ""));
      return TV::poison();
    }
  }
  auto arity = [&](const char *forms) {
    error(e.loc, "wrong number of arguments to '" + name + "' (got " +
                     std::to_string(pos.size()) + "); accepted forms: " + forms);
    return TV::poison();
  };
  auto genVals = [&](size_t n, std::vector<TV> &out) {
    for (size_t i = 0; i < n; ++i) {
      out.push_back(gen(*pos[i]));
      if (!out.back().ok())
        return false;
    }
    return true;
  };

  if (name == "load_tile" || name == "load_tile_at" || name == "store_tile" ||
      name == "store_tile_at" || name == "dim")
    return genTileBuiltin(e, pos);

  if (name == "program_id" || name == "num_programs") {
    if (pos.size() != 1)
      return arity(name == "program_id" ? "program_id(axis)"
                                        : "num_programs(axis)");
    auto axis = genConstInt(*pos[0], "the axis of " + name);
    if (!axis)
      return TV::poison();
    if (*axis < 0 || *axis > 2) {
      error(pos[0]->loc, "grid axis must be 0, 1 or 2, got " +
                             std::to_string(*axis));
      return TV::poison();
    }
    if (name == "program_id")
      return TV::value(kcc::ProgramIdOp::create(b, l, b.getI32Type(),
                                                uint32_t(*axis)));
    return TV::value(
        kcc::NumProgramsOp::create(b, l, b.getI32Type(), uint32_t(*axis)));
  }

  if (name == "arange") {
    if (pos.size() != 2)
      return arity("arange(start, end)");
    auto start = genConstInt(*pos[0], "the start of arange");
    auto end = genConstInt(*pos[1], "the end of arange");
    if (!start || !end)
      return TV::poison();
    if (*start < 0 || *end < 0 || *start > INT32_MAX || *end > INT32_MAX) {
      error(e.loc, "arange bounds must lie in [0, 2^31), got arange(" +
                       std::to_string(*start) + ", " + std::to_string(*end) + ")");
      return TV::poison();
    }
    int64_t n = *end - *start; // both in [0, 2^31): cannot overflow
    if (n <= 0 || n > (1 << 20)) {
      error(e.loc, "arange(" + std::to_string(*start) + ", " +
                       std::to_string(*end) + ") has " + std::to_string(n) +
                       " elements; the size end - start must be between 1 "
                       "and 2^20 (loop over larger ranges)");
      return TV::poison();
    }
    return TV::value(kcc::ArangeOp::create(
        b, l, mlir::RankedTensorType::get({n}, b.getI32Type()),
        uint32_t(*start), uint32_t(*end)));
  }

  if (name == "zeros" || name == "full") {
    bool isFull = name == "full";
    if (pos.size() != (isFull ? 3u : 2u))
      return arity(isFull ? "full([d0, d1], value, dtype)"
                          : "zeros([d0, d1], dtype)");
    std::vector<TV> args;
    if (!genVals(pos.size(), args))
      return TV::poison();
    std::optional<llvm::SmallVector<int64_t>> shapeOr =
        tileShape(args[0], pos[0]->loc, name);
    if (!shapeOr)
      return TV::poison();
    llvm::SmallVector<int64_t> shape = *shapeOr;
    const TV &dt = args.back();
    if (dt.kind != TV::TypeVal) {
      error(pos.back()->loc, "the last argument of " + name +
                                 " must be an element type such as f32");
      return TV::poison();
    }
    Type tileTy = mlir::RankedTensorType::get(shape, dt.type);
    if (!isFull) {
      if (isPtrTy(dt.type)) {
        error(pos.back()->loc, "zeros cannot create pointer tiles");
        return TV::poison();
      }
      return TV::value(constantLike(tileTy, 0, 0, isFloatTy(dt.type), l));
    }
    Value v = materialize(args[1], dt.type);
    if (!v)
      return TV::poison();
    if (v.getType() != dt.type) {
      error(pos[1]->loc, "the value of full must be a scalar of type " +
                             typeToString(dt.type) + ", got " +
                             typeToString(v.getType()));
      return TV::poison();
    }
    return TV::value(kcc::SplatOp::create(b, l, tileTy, v));
  }

  if (name == "load" || name == "store") {
    bool isLoad = name == "load";
    const char *forms = isLoad ? "load(ptr), load(ptr, mask), "
                                 "load(ptr, mask, other)"
                               : "store(ptr, value), store(ptr, value, mask)";
    if (pos.empty() || pos.size() > 3 || (!isLoad && pos.size() < 2))
      return arity(forms);
    std::vector<TV> args;
    if (!genVals(pos.size(), args))
      return TV::poison();
    Value p = pointerArg(args[0], *pos[0], name, "");
    if (!p)
      return TV::poison();
    Type pointee = mlir::cast<kcc::PtrType>(elementType(p.getType()))
                       .getPointeeType();
    size_t maskIdx = isLoad ? 1 : 2;
    Value mask, val;
    if (args.size() > maskIdx) {
      mask = maskArg(args[maskIdx], *pos[maskIdx], name);
      if (!mask)
        return TV::poison();
    }
    size_t valIdx = isLoad ? 2 : 1;
    if (args.size() > valIdx) {
      val = materialize(args[valIdx], pointee);
      if (!val)
        return TV::poison();
      if (elementType(val.getType()) != pointee) {
        error(pos[valIdx]->loc,
              std::string(isLoad ? "'other'" : "the stored value") +
                  " has element type " +
                  typeToString(elementType(val.getType())) +
                  " but the pointer is " + typeToString(elementType(p.getType())) +
                  "; convert it with cast(x, " + typeToString(pointee) + ")");
        return TV::poison();
      }
    }
    auto shape = commonShape({p, mask, val}, e.loc, name);
    if (!shape)
      return TV::poison();
    p = broadcastTo(p, *shape, l);
    if (mask)
      mask = broadcastTo(mask, *shape, l);
    if (val)
      val = broadcastTo(val, *shape, l);
    if (isLoad)
      return TV::value(kcc::LoadOp::create(
          b, l, kcc::getPointeeLike(p.getType()), p, mask, val));
    kcc::StoreOp::create(b, l, p, val, mask);
    TV none;
    none.kind = TV::Void;
    none.loc = e.loc;
    return none;
  }

  if (name == "where") {
    if (pos.size() != 3)
      return arity("where(cond, a, b)");
    std::vector<TV> args;
    if (!genVals(3, args))
      return TV::poison();
    Value c = materialize(args[0]);
    if (!c)
      return TV::poison();
    if (!elementType(c.getType()).isInteger(1)) {
      error(pos[0]->loc, "the condition of where must be i1, got " +
                             typeToString(c.getType()));
      return TV::poison();
    }
    Type elem = adoptedElem({&args[1], &args[2]});
    Value x = materialize(args[1], elem), y = materialize(args[2], elem);
    if (!x || !y)
      return TV::poison();
    if (refuseFloat8(elementType(x.getType()), pos[1]->loc, "where") ||
        refuseFloat8(elementType(y.getType()), pos[2]->loc, "where"))
      return TV::poison();
    if (elementType(x.getType()) != elementType(y.getType())) {
      error(e.loc, "where: mismatched element types " +
                       typeToString(elementType(x.getType())) + " and " +
                       typeToString(elementType(y.getType())) +
                       "; convert one with cast(x, ...)");
      return TV::poison();
    }
    auto shape = commonShape({c, x, y}, e.loc, "where");
    if (!shape)
      return TV::poison();
    c = broadcastTo(c, *shape, l);
    x = broadcastTo(x, *shape, l);
    y = broadcastTo(y, *shape, l);
    return TV::value(arith::SelectOp::create(b, l, c, x, y));
  }

  if (name == "trans") {
    if (pos.size() != 1)
      return arity("trans(tile)");
    std::vector<TV> args;
    if (!genVals(1, args))
      return TV::poison();
    Value x = materialize(args[0]);
    if (!x)
      return TV::poison();
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(x.getType());
    if (!t || t.getRank() != 2) {
      error(pos[0]->loc, "trans takes a 2-D tile, got " +
                             typeToString(x.getType()));
      return TV::poison();
    }
    return TV::value(kcc::TransOp::create(
        b, l,
        mlir::RankedTensorType::get({t.getDimSize(1), t.getDimSize(0)},
                                    t.getElementType()),
        x));
  }

  if (name == "cast") {
    if (pos.size() != 2)
      return arity("cast(x, dtype)");
    std::vector<TV> args;
    if (!genVals(2, args))
      return TV::poison();
    if (args[1].kind != TV::TypeVal || isPtrTy(args[1].type)) {
      error(pos[1]->loc, "the second argument of cast must be an element type "
                         "(" +
                             std::string(kElementTypeList) +
                             " or a dtype parameter)");
      return TV::poison();
    }
    Type to = args[1].type;
    Type hint;
    if (args[0].kind == TV::IntLit && !to.isInteger(1))
      hint = to;
    if (args[0].kind == TV::FloatLit && isFloatTy(to))
      hint = to;
    Value x = materialize(args[0], hint);
    if (!x)
      return TV::poison();
    Type from = elementType(x.getType());
    if (isPtrTy(from)) {
      error(pos[0]->loc, "cannot cast pointers; a pointer only takes integer "
                         "offsets (p + offs)");
      return TV::poison();
    }
    if (from == to)
      return TV::value(x);
    Type resTy = withShape(to, shapeOf(x.getType()));
    if (isFloat8Type(from) || isFloat8Type(to)) {
      Type f8 = isFloat8Type(from) ? from : to, other = f8 == from ? to : from;
      if (!isFloatTy(other)) {
        error(e.loc, "cast between " + typeToString(from) + " and " +
                         typeToString(to) +
                         " is not supported: " + typeToString(f8) +
                         " converts to and from f16, bf16, f32 and f64 only; "
                         "cast through f32");
        return TV::poison();
      }
      // kcc's arith.truncf to an 8-bit float means round to nearest even
      // with saturation (PTX cvt.rn.satfinite): values beyond the largest
      // finite one, infinities included, become it; NaN stays NaN. MLIR's
      // truncf has no saturating mode; the backends and the interpreter
      // implement this one. Every conversion emitted here is between an
      // 8-bit float and f16, bf16 or f32 (those the hardware converts):
      // f64 and the other 8-bit float go through f32, so f64 -> f8 rounds
      // twice, as the GPU would.
      Type f32 = withShape(b.getF32Type(), shapeOf(x.getType()));
      if (isFloat8Type(from) && (to.isF64() || isFloat8Type(to))) {
        Value m = arith::ExtFOp::create(b, l, f32, x);
        if (to.isF64())
          return TV::value(arith::ExtFOp::create(b, l, resTy, m));
        return TV::value(arith::TruncFOp::create(b, l, resTy, m));
      }
      if (from.isF64())
        x = arith::TruncFOp::create(b, l, f32, x);
      if (isFloat8Type(to))
        return TV::value(arith::TruncFOp::create(b, l, resTy, x));
      return TV::value(arith::ExtFOp::create(b, l, resTy, x));
    }
    if (to.isInteger(1)) {
      if (isFloatTy(from))
        return TV::value(arith::CmpFOp::create(
            b, l, arith::CmpFPredicate::UNE, x,
            constantLike(x.getType(), 0, 0, true, l)));
      return TV::value(
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x,
                                constantLike(x.getType(), 0, 0, false, l)));
    }
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (isIntTy(from) && isIntTy(to)) {
      if (from.isInteger(1))
        return TV::value(arith::ExtUIOp::create(b, l, resTy, x));
      if (fw < tw)
        return TV::value(arith::ExtSIOp::create(b, l, resTy, x));
      return TV::value(arith::TruncIOp::create(b, l, resTy, x));
    }
    if (isIntTy(from) && isFloatTy(to)) {
      if (from.isInteger(1))
        return TV::value(arith::UIToFPOp::create(b, l, resTy, x));
      return TV::value(arith::SIToFPOp::create(b, l, resTy, x));
    }
    if (isFloatTy(from) && isIntTy(to))
      return TV::value(arith::FPToSIOp::create(b, l, resTy, x));
    // float -> float
    if (fw == tw) { // f16 <-> bf16 via f32
      Type mid = withShape(b.getF32Type(), shapeOf(x.getType()));
      Value m = arith::ExtFOp::create(b, l, mid, x);
      return TV::value(arith::TruncFOp::create(b, l, resTy, m));
    }
    if (fw < tw)
      return TV::value(arith::ExtFOp::create(b, l, resTy, x));
    return TV::value(arith::TruncFOp::create(b, l, resTy, x));
  }

  if (name == "histogram") {
    if (pos.size() != 2 && pos.size() != 3)
      return arity("histogram(x, bins), histogram(x, bins, mask)");
    TV a = gen(*pos[0]);
    if (!a.ok())
      return a;
    std::optional<int64_t> bins =
        genConstInt(*pos[1], "the number of bins of histogram");
    if (!bins)
      return TV::poison();
    if (*bins < 1 || *bins > kcc::kMaxHistogramBins) {
      error(pos[1]->loc, "histogram counts 1 to " +
                             std::to_string(kcc::kMaxHistogramBins) +
                             " bins (its counters live in shared memory), "
                             "got " +
                             std::to_string(*bins));
      return TV::poison();
    }
    Value x = a.kind == TV::Val ? a.v : Value();
    if (!x || !mlir::isa<mlir::RankedTensorType>(x.getType()) ||
        !elementType(x.getType()).isInteger(32)) {
      error(pos[0]->loc,
            "histogram counts the values of an i32 tile, got " +
                (x ? typeToString(x.getType()) : std::string("a literal")) +
                (x && isIntTy(elementType(x.getType()))
                     ? "; convert it with cast(x, i32)"
                     : ""));
      return TV::poison();
    }
    Value mask;
    if (pos.size() == 3) {
      TV m = gen(*pos[2]);
      if (!m.ok())
        return m;
      mask = maskArg(m, *pos[2], name);
      if (!mask)
        return TV::poison();
      auto shape = commonShape({x, mask}, e.loc, name);
      if (!shape)
        return TV::poison();
      x = broadcastTo(x, *shape, l);
      mask = broadcastTo(mask, *shape, l);
    }
    return TV::value(kcc::HistogramOp::create(
        b, l, mlir::RankedTensorType::get({*bins}, b.getI32Type()), x, mask,
        uint32_t(*bins)));
  }

  if (name == "bitcast") {
    if (pos.size() != 2)
      return arity("bitcast(x, dtype)");
    std::vector<TV> args;
    if (!genVals(2, args))
      return TV::poison();
    if (args[1].kind != TV::TypeVal || isPtrTy(args[1].type)) {
      error(pos[1]->loc, "the second argument of bitcast must be an element "
                         "type of the same width (i16 f16 bf16, i32 f32, i64 "
                         "f64, or a dtype parameter)");
      return TV::poison();
    }
    Value x = args[0].kind == TV::Val ? args[0].v : Value();
    if (!x) {
      error(pos[0]->loc, "bitcast needs a typed value (a literal has no "
                         "width); write bitcast(cast(1.0, f32), i32)");
      return TV::poison();
    }
    Type from = elementType(x.getType()), to = args[1].type;
    if (refuseFloat8(from, pos[0]->loc, "bitcast") ||
        refuseFloat8(to, pos[1]->loc, "bitcast"))
      return TV::poison();
    if (isPtrTy(from) || from.isInteger(1) || to.isInteger(1) ||
        from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth()) {
      error(pos[0]->loc,
            "bitcast reinterprets the bits of a value as another type of the "
            "same width, but " +
                typeToString(from) + " and " + typeToString(to) +
                (isPtrTy(from) || from.isInteger(1) || to.isInteger(1)
                     ? " are not numbers of 8 bits or more"
                     : " differ in width") +
                "; use cast(x, T) to convert values");
      return TV::poison();
    }
    if (from == to)
      return TV::value(x);
    return TV::value(
        arith::BitcastOp::create(b, l, withShape(to, shapeOf(x.getType())), x));
  }

  if (name == "tanh" || name == "erf") {
    if (pos.size() != 1)
      return arity((name + "(x)").c_str());
    TV a = gen(*pos[0]);
    if (!a.ok())
      return a;
    Value x = a.kind == TV::Val ? a.v : materialize(a, b.getF32Type());
    if (!x)
      return TV::poison();
    Type elem = elementType(x.getType());
    if (refuseFloat8(elem, pos[0]->loc, "'" + name + "'"))
      return TV::poison();
    if (!isFloatTy(elem) || elem.isF64()) {
      error(pos[0]->loc, name + " takes f16, bf16 or f32, got " +
                             typeToString(x.getType()) +
                             (elem.isF64() ? "; compute it in f32 with "
                                             "cast(x, f32)"
                                           : "; convert it with cast(x, f32)"));
      return TV::poison();
    }
    // Polynomial approximations in f32 (kcc-expand-math-functions); 16-bit
    // floats go through f32 and back.
    Type f32 = withShape(b.getF32Type(), shapeOf(x.getType()));
    Value wide = elem.isF32() ? x : arith::ExtFOp::create(b, l, f32, x);
    Value r = name == "tanh" ? Value(math::TanhOp::create(b, l, wide))
                             : Value(math::ErfOp::create(b, l, wide));
    return TV::value(
        elem.isF32()
            ? r
            : arith::TruncFOp::create(b, l, x.getType(), r).getResult());
  }

  if (name == "exp" || name == "exp2" || name == "log" || name == "sqrt" ||
      name == "rsqrt" || name == "sigmoid" || name == "abs") {
    if (pos.size() != 1)
      return arity((name + "(x)").c_str());
    TV a = gen(*pos[0]);
    if (!a.ok())
      return a;
    Value x = materialize(a, name == "abs" && a.kind == TV::IntLit
                                 ? Type()
                                 : Type(b.getF32Type()));
    if (a.kind == TV::Val)
      x = a.v;
    if (!x)
      return TV::poison();
    Type elem = elementType(x.getType());
    if (refuseFloat8(elem, pos[0]->loc, "'" + name + "'"))
      return TV::poison();
    if (name == "abs") {
      if (isFloatTy(elem))
        return TV::value(math::AbsFOp::create(b, l, x));
      if (isIntTy(elem) && !elem.isInteger(1))
        return TV::value(math::AbsIOp::create(b, l, x));
      error(pos[0]->loc, "abs needs a number, got " + typeToString(x.getType()));
      return TV::poison();
    }
    if (!isFloatTy(elem)) {
      error(pos[0]->loc, name + " needs a float argument, got " +
                             typeToString(x.getType()) +
                             "; convert it with cast(x, f32)");
      return TV::poison();
    }
    if (name == "exp")
      return TV::value(math::ExpOp::create(b, l, x));
    if (name == "exp2")
      return TV::value(math::Exp2Op::create(b, l, x));
    if (name == "log")
      return TV::value(math::LogOp::create(b, l, x));
    if (name == "sqrt")
      return TV::value(math::SqrtOp::create(b, l, x));
    if (name == "sigmoid") {
      // 1 / (1 + exp(-x)), the exp and the reciprocal marked approximate
      // (`afn`): each lowers to one hardware instruction (ex2/rcp.approx.ftz,
      // v_exp/v_rcp) instead of an IEEE division, which in a GEMM epilogue
      // costs more than the rest of the activation.
      Value one = constantLike(x.getType(), 1.0, 0, true, l);
      Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x),
                                    arith::FastMathFlags::afn);
      Value d = arith::AddFOp::create(b, l, one, e);
      return TV::value(
          arith::DivFOp::create(b, l, one, d, arith::FastMathFlags::afn));
    }
    return TV::value(math::RsqrtOp::create(b, l, x));
  }

  if (isReduction) {
    const char *forms = name == "sum" ? "sum(t), sum(t, axis=K)"
                        : name == "max"
                            ? "max(t), max(t, axis=K) (reduction), max(a, b) "
                              "(elementwise)"
                            : "min(t), min(t, axis=K) (reduction), min(a, b) "
                              "(elementwise)";
    if (pos.size() != 1)
      return arity(forms);
    TV a = gen(*pos[0]);
    if (!a.ok())
      return a;
    Value t = a.kind == TV::Val ? a.v : Value();
    auto tt = t ? mlir::dyn_cast<mlir::RankedTensorType>(t.getType())
                : mlir::RankedTensorType();
    if (!tt) {
      error(pos[0]->loc, name + " reduces a tile, but the argument is " +
                             (t ? typeToString(t.getType())
                                : std::string("not a tile")) +
                             "; accepted forms: " + forms);
      return TV::poison();
    }
    Type elem = tt.getElementType();
    if (refuseFloat8(elem, pos[0]->loc, "'" + name + "'"))
      return TV::poison();
    if (!isFloatTy(elem) && !(isIntTy(elem) && !elem.isInteger(1))) {
      error(pos[0]->loc, name + " needs a tile of numbers, got " +
                             typeToString(tt));
      return TV::poison();
    }
    int64_t axis = 0;
    if (kw.count("axis")) {
      auto ax = genConstInt(*kw["axis"]->value, "the axis of " + name);
      if (!ax)
        return TV::poison();
      axis = *ax;
      if (axis < 0 || axis >= tt.getRank()) {
        error(kw["axis"]->value->loc,
              "axis " + std::to_string(axis) + " is out of range for a tile of rank " +
                  std::to_string(tt.getRank()));
        return TV::poison();
      }
    } else if (tt.getRank() > 1) {
      error(e.loc, name + " of a rank-" + std::to_string(tt.getRank()) +
                       " tile needs an axis: " + name + "(t, axis=0) or " +
                       name + "(t, axis=1)");
      return TV::poison();
    }
    llvm::SmallVector<int64_t> shape(tt.getShape());
    shape.erase(shape.begin() + axis);
    kcc::ReduceKind kind = name == "sum"   ? kcc::ReduceKind::Sum
                           : name == "max" ? kcc::ReduceKind::Max
                                           : kcc::ReduceKind::Min;
    return TV::value(kcc::ReduceOp::create(
        b, l, withShape(elem, shape), kcc::ReduceKindAttr::get(&ctx, kind), t,
        b.getI32IntegerAttr(int32_t(axis))));
  }

  if (name == "min" || name == "max" || name == "fma" || name == "cdiv") {
    size_t n = name == "fma" ? 3 : 2;
    if (pos.size() != n)
      return arity(name == "fma" ? "fma(a, b, c)"
                   : name == "cdiv"
                       ? "cdiv(a, b)"
                       : (name + "(a, b) (elementwise), " + name + "(t), " +
                          name + "(t, axis=K) (reduction)")
                             .c_str());
    std::vector<TV> args;
    if (!genVals(n, args))
      return TV::poison();
    // Constant folding on integer literals (usable in constant expressions).
    if (name != "fma" && args[0].kind == TV::IntLit &&
        args[1].kind == TV::IntLit) {
      TV r = args[0];
      r.loc = e.loc;
      int64_t x = args[0].i, y = args[1].i;
      if (name == "cdiv") {
        if (y == 0) {
          error(e.loc, "division by zero in cdiv");
          return TV::poison();
        }
        // (x + y - 1) / y without overflowing where the result fits.
        int64_t sum = 0;
        if (y == INT64_MIN || llvm::AddOverflow(x, y - 1, sum) ||
            (sum == INT64_MIN && y == -1)) {
          error(e.loc, "cdiv(" + std::to_string(x) + ", " + std::to_string(y) +
                           ") overflows 64-bit integers; keep constant "
                           "results in [-2^63, 2^63)");
          return TV::poison();
        }
        r.i = sum / y;
      } else {
        r.i = name == "min" ? std::min(x, y) : std::max(x, y);
      }
      return r;
    }
    std::vector<const TV *> ptrs;
    for (size_t i = 0; i < n; ++i) {
      if (args[i].kind == TV::Val &&
          refuseFloat8(elementType(args[i].getType()), pos[i]->loc,
                       "'" + name + "'"))
        return TV::poison();
      ptrs.push_back(&args[i]);
    }
    Type elem = adoptedElem(ptrs);
    std::vector<Value> vals;
    for (size_t i = 0; i < n; ++i) {
      Value v = materialize(args[i], elem);
      if (!v)
        return TV::poison();
      if (elementType(v.getType()) != elem) {
        error(e.loc, name + ": mismatched element types " +
                         typeToString(elem) + " and " +
                         typeToString(elementType(v.getType())) +
                         "; convert with cast(x, " + typeToString(elem) + ")");
        return TV::poison();
      }
      vals.push_back(v);
    }
    if (name == "cdiv") {
      if (!isIntTy(elem) || elem.isInteger(1) ||
          mlir::isa<mlir::RankedTensorType>(vals[0].getType()) ||
          mlir::isa<mlir::RankedTensorType>(vals[1].getType())) {
        error(e.loc, "cdiv needs scalar integer arguments: cdiv(a, b)");
        return TV::poison();
      }
      Value one = constant(elem, 0, 1, false, l);
      Value sum = arith::AddIOp::create(b, l, vals[0], vals[1]);
      Value num = arith::SubIOp::create(b, l, sum, one);
      return TV::value(arith::DivSIOp::create(b, l, num, vals[1]));
    }
    if (!isFloatTy(elem) && (name == "fma" || !isIntTy(elem) ||
                             elem.isInteger(1))) {
      error(e.loc, name + " needs " +
                       (name == "fma" ? "float" : "numeric") +
                       " arguments, got " + typeToString(elem));
      return TV::poison();
    }
    std::vector<Value> vs(vals.begin(), vals.end());
    auto shape = commonShape(vs, e.loc, name);
    if (!shape)
      return TV::poison();
    for (Value &v : vals)
      v = broadcastTo(v, *shape, l);
    if (name == "fma")
      return TV::value(math::FmaOp::create(b, l, vals[0], vals[1], vals[2]));
    bool isF = isFloatTy(elem);
    if (name == "min")
      return TV::value(isF ? Value(arith::MinimumFOp::create(b, l, vals[0], vals[1]))
                           : Value(arith::MinSIOp::create(b, l, vals[0], vals[1])));
    return TV::value(isF ? Value(arith::MaximumFOp::create(b, l, vals[0], vals[1]))
                         : Value(arith::MaxSIOp::create(b, l, vals[0], vals[1])));
  }

  if (name == "dot") {
    if (pos.size() != 2 && pos.size() != 3)
      return arity("dot(a, b), dot(a, b, acc)");
    std::vector<TV> args;
    if (!genVals(pos.size(), args))
      return TV::poison();
    Value x = materialize(args[0]), y = materialize(args[1]);
    if (!x || !y)
      return TV::poison();
    auto ta = mlir::dyn_cast<mlir::RankedTensorType>(x.getType());
    auto tb = mlir::dyn_cast<mlir::RankedTensorType>(y.getType());
    if (!ta || !tb || ta.getRank() != 2 || tb.getRank() != 2) {
      error(e.loc, "dot needs 2-D tiles, got " + typeToString(x.getType()) +
                       " and " + typeToString(y.getType()));
      return TV::poison();
    }
    // One element type, except that the two 8-bit floats mix (wgmma and
    // tcgen05 take e4m3 x e5m2).
    bool float8 =
        isFloat8Type(ta.getElementType()) && isFloat8Type(tb.getElementType());
    // NVIDIA's OCP formats and MI300's FNUZ ones never meet in one product:
    // no target has both.
    if (float8 && kcc::isFnuzFloat8(ta.getElementType()) !=
                      kcc::isFnuzFloat8(tb.getElementType())) {
      error(e.loc, "dot operands mix " + typeToString(ta.getElementType()) +
                       " and " + typeToString(tb.getElementType()) +
                       ": the OCP formats (f8e4m3, f8e5m2; NVIDIA) and the "
                       "FNUZ ones (f8e4m3fnuz, f8e5m2fnuz; AMD MI300) do not "
                       "mix; cast one operand to the other's family");
      return TV::poison();
    }
    if (ta.getElementType() != tb.getElementType() && !float8) {
      bool either8 = isFloat8Type(ta.getElementType()) ||
                     isFloat8Type(tb.getElementType());
      error(e.loc,
            "dot operands have different element types " +
                typeToString(ta.getElementType()) + " and " +
                typeToString(tb.getElementType()) +
                (either8 ? "; an 8-bit float multiplies an 8-bit float "
                           "of its family (f8e4m3 or f8e5m2; "
                           "f8e4m3fnuz or f8e5m2fnuz): cast the other "
                           "operand with cast(x, " +
                               typeToString(isFloat8Type(ta.getElementType())
                                                ? ta.getElementType()
                                                : tb.getElementType()) +
                               "), or both to f16"
                         : ""));
      return TV::poison();
    }
    if (ta.getDimSize(1) != tb.getDimSize(0)) {
      error(e.loc, "dot shapes " + shapeToString(ta.getShape()) + " and " +
                       shapeToString(tb.getShape()) +
                       " do not form a matrix product (inner dimensions differ)");
      return TV::poison();
    }
    Type accElem = isFloatTy(ta.getElementType()) ? Type(b.getF32Type())
                                                  : Type(b.getI32Type());
    llvm::SmallVector<int64_t> cshape = {ta.getDimSize(0), tb.getDimSize(1)};
    Value acc;
    if (args.size() == 3) {
      Type hint = args[2].kind == TV::Val ? Type() : accElem;
      acc = materialize(args[2], hint);
      if (!acc)
        return TV::poison();
      auto shape = commonShape({acc}, e.loc, "dot");
      if (!shape)
        return TV::poison();
      auto bc = broadcastShapes(shapeOf(acc.getType()), cshape);
      if (!bc || llvm::ArrayRef<int64_t>(*bc) != llvm::ArrayRef<int64_t>(cshape)) {
        error(pos[2]->loc, "dot accumulator has shape " +
                               shapeToString(shapeOf(acc.getType())) +
                               ", expected " + shapeToString(cshape));
        return TV::poison();
      }
      // The accumulator is of the operands' kind: the product of floats is
      // not summed into integers, nor the reverse.
      Type given = mlir::getElementTypeOrSelf(acc.getType());
      // 8-bit products accumulate in f32 (the f16 accumulators of wgmma's
      // 8-bit forms lose too much for kcc to offer them).
      if (float8 && !given.isF32()) {
        error(pos[2]->loc, "dot of " + typeToString(ta.getElementType()) +
                               " operands accumulates in f32, but the "
                               "accumulator is " +
                               typeToString(given) +
                               "; pass an f32 tile (cast the result "
                               "afterwards)");
        return TV::poison();
      }
      if (isFloatTy(given) != isFloatTy(ta.getElementType())) {
        error(pos[2]->loc, "dot accumulator has element type " +
                               typeToString(given) + ", expected " +
                               (isFloatTy(accElem) ? "a float" : "an integer") +
                               " type like the operands' " +
                               typeToString(ta.getElementType()));
        return TV::poison();
      }
      acc = broadcastTo(acc, cshape, l);
    } else {
      acc = constantLike(mlir::RankedTensorType::get(cshape, accElem), 0, 0,
                         isFloatTy(accElem), l);
    }
    return TV::value(kcc::DotOp::create(b, l, acc.getType(), x, y, acc));
  }

  if (name == "num_multiprocessors") {
    error(e.loc, "num_multiprocessors() can be used in grid(...) only (the "
                 "launch stub reads it from the device); in the kernel, "
                 "num_programs(axis) is the grid size it chose");
    return TV::poison();
  }
  // Unknown function.
  std::vector<std::string> names(std::begin(kBuiltinNames),
                                 std::end(kBuiltinNames));
  std::string hint = closestName(name, names);
  error(e.loc, "unknown function '" + name + "'" +
                   (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  return TV::poison();
}
