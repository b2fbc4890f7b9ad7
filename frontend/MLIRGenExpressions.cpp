//===- MLIRGenExpressions.cpp - expressions to kcc tile IR ----------------===//
//
// Literals, names, unary and binary operators (with the broadcasting and the
// literal typing rules, folding of literal operands) and indexing, and
// compile-time integer expressions (MLIRGenEmitter.h). Calls are in
// MLIRGenBuiltins.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontend/MLIRGenEmitter.h"

#include <cmath>

using namespace kcc::frontend;
using namespace kcc::frontend::detail;

TV Gen::genExpr(const Expr &e) {
  switch (e.kind) {
  case ExprKind::IntLit: {
    if (e.intTooLarge) {
      error(e.loc, "integer literal is too large (the maximum is 2^63-1)");
      return TV::poison();
    }
    TV t;
    t.kind = TV::IntLit;
    t.i = int64_t(e.intValue);
    t.loc = e.loc;
    return t;
  }
  case ExprKind::FloatLit: {
    TV t;
    t.kind = TV::FloatLit;
    t.f = e.floatValue;
    t.loc = e.loc;
    return t;
  }
  case ExprKind::BoolLit:
    return TV::value(
        arith::ConstantOp::create(b, loc(e.loc), b.getBoolAttr(e.boolValue)));
  case ExprKind::Ident: {
    if (Binding *bind = lookup(e.name)) {
      TV t = bind->val;
      t.loc = e.loc;
      return t;
    }
    if (Type t = parseElementType(e.name, ctx)) {
      TV tv;
      tv.kind = TV::TypeVal;
      tv.type = t;
      tv.loc = e.loc;
      return tv;
    }
    for (const char *n : kBuiltinNames)
      if (e.name == n) {
        error(e.loc, "'" + e.name + "' is a builtin function; call it as " +
                         e.name + "(...)");
        return TV::poison();
      }
    std::string hint = closestName(e.name, visibleNames());
    error(e.loc, "use of undeclared name '" + e.name + "'" +
                     (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    return TV::poison();
  }
  case ExprKind::Unary:
    return genUnary(e);
  case ExprKind::Binary: {
    TV a = gen(*e.lhs);
    TV c = gen(*e.rhs);
    return genBinary(e.binOp, a, c, e.loc);
  }
  case ExprKind::Call:
    return genCall(e);
  case ExprKind::Index:
    return genIndex(e);
  case ExprKind::List: {
    TV t;
    t.kind = TV::List;
    t.loc = e.loc;
    for (const ExprPtr &el : e.elements) {
      t.list.push_back(gen(*el));
      if (!t.list.back().ok())
        return TV::poison();
    }
    return t;
  }
  }
  return TV::poison();
}

TV Gen::genUnary(const Expr &e) {
  TV a = gen(*e.lhs);
  if (!a.ok())
    return a;
  mlir::Location l = loc(e.loc);
  if (e.unOp == UnOp::Neg) {
    if (a.kind == TV::IntLit) {
      if (a.i == INT64_MIN) {
        error(e.loc, "constant expression -(" + std::to_string(a.i) +
                         ") overflows 64-bit integers; constant arithmetic "
                         "is exact, so keep its results in [-2^63, 2^63)");
        return TV::poison();
      }
      a.i = -a.i;
      a.loc = e.loc;
      return a;
    }
    if (a.kind == TV::FloatLit) {
      a.f = -a.f;
      a.loc = e.loc;
      return a;
    }
  }
  Value v = materialize(a);
  if (!v)
    return TV::poison();
  Type t = v.getType(), elem = elementType(t);
  if (refuseFloat8(elem, e.loc,
                   e.unOp == UnOp::Neg   ? "unary '-'"
                   : e.unOp == UnOp::Not ? "'!'"
                                         : "'~'"))
    return TV::poison();
  switch (e.unOp) {
  case UnOp::Neg:
    if (isFloatTy(elem))
      return TV::value(arith::NegFOp::create(b, l, v));
    if (isIntTy(elem) && !elem.isInteger(1))
      return TV::value(
          arith::SubIOp::create(b, l, constantLike(t, 0, 0, false, l), v));
    error(e.loc, "unary '-' needs a number, got " + typeToString(t));
    return TV::poison();
  case UnOp::Not:
    if (elem.isInteger(1))
      return TV::value(
          arith::XOrIOp::create(b, l, v, constantLike(t, 0, 1, false, l)));
    error(e.loc, "'!' needs an i1 operand (a comparison), got " +
                     typeToString(t) +
                     (isIntTy(elem) ? "; use '~' for bitwise not or x == 0" : ""));
    return TV::poison();
  case UnOp::BitNot:
    if (isIntTy(elem))
      return TV::value(
          arith::XOrIOp::create(b, l, v, constantLike(t, 0, -1, false, l)));
    error(e.loc, "'~' needs an integer operand, got " + typeToString(t));
    return TV::poison();
  }
  return TV::poison();
}

static bool isComparison(BinOp op) {
  return op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt ||
         op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge;
}

TV Gen::genBinary(BinOp op, TV a, TV c, SMLoc sl) {
  if (!a.ok() || !c.ok())
    return TV::poison();
  mlir::Location l = loc(sl);
  std::string opName = std::string("'") + binOpSpelling(op) + "'";

  // Both untyped literals: fold.
  if (a.isLit() && c.isLit() && op != BinOp::AndAnd && op != BinOp::OrOr) {
    TV r;
    r.loc = sl;
    if (a.kind == TV::IntLit && c.kind == TV::IntLit) {
      int64_t x = a.i, y = c.i;
      r.kind = TV::IntLit;
      r.litDefault = (a.litDefault && a.litDefault.isInteger(64)) ||
                             (c.litDefault && c.litDefault.isInteger(64))
                         ? Type(b.getI64Type())
                         : Type();
      if ((op == BinOp::Div || op == BinOp::Rem) && y == 0) {
        error(sl, "division by zero in constant expression");
        return TV::poison();
      }
      bool cmp = false, cmpRes = false, overflow = false;
      switch (op) {
      case BinOp::Add:
        overflow = llvm::AddOverflow(x, y, r.i);
        break;
      case BinOp::Sub:
        overflow = llvm::SubOverflow(x, y, r.i);
        break;
      case BinOp::Mul:
        overflow = llvm::MulOverflow(x, y, r.i);
        break;
      // INT64_MIN / -1 does not fit (and traps on x86); its remainder is 0.
      case BinOp::Div:
        overflow = x == INT64_MIN && y == -1;
        r.i = overflow ? 0 : x / y;
        break;
      case BinOp::Rem:
        r.i = y == -1 ? 0 : x % y;
        break;
      case BinOp::And: r.i = x & y; break;
      case BinOp::Or: r.i = x | y; break;
      case BinOp::Xor: r.i = x ^ y; break;
      // Shifting by the width or more has no value (arith.shli gives
      // poison): an error, like C's undefined behavior made visible.
      case BinOp::Shl:
      case BinOp::Shr:
        if (y < 0 || y > 63) {
          error(sl, "shift amount " + std::to_string(y) +
                        " is out of range for a 64-bit constant; shift by 0 "
                        "to 63");
          return TV::poison();
        }
        r.i = op == BinOp::Shl ? int64_t(uint64_t(x) << y) : x >> y;
        break;
      case BinOp::Eq: cmp = true; cmpRes = x == y; break;
      case BinOp::Ne: cmp = true; cmpRes = x != y; break;
      case BinOp::Lt: cmp = true; cmpRes = x < y; break;
      case BinOp::Le: cmp = true; cmpRes = x <= y; break;
      case BinOp::Gt: cmp = true; cmpRes = x > y; break;
      case BinOp::Ge: cmp = true; cmpRes = x >= y; break;
      default: break;
      }
      if (overflow) {
        error(sl, "constant expression " + std::to_string(x) + " " +
                      binOpSpelling(op) + " " + std::to_string(y) +
                      " overflows 64-bit integers; constant arithmetic is "
                      "exact, so keep its results in [-2^63, 2^63)");
        return TV::poison();
      }
      if (cmp)
        return TV::value(arith::ConstantOp::create(b, l, b.getBoolAttr(cmpRes)));
      return r;
    }
    double x = a.kind == TV::IntLit ? double(a.i) : a.f;
    double y = c.kind == TV::IntLit ? double(c.i) : c.f;
    r.kind = TV::FloatLit;
    bool cmp = false, cmpRes = false;
    switch (op) {
    case BinOp::Add: r.f = x + y; break;
    case BinOp::Sub: r.f = x - y; break;
    case BinOp::Mul: r.f = x * y; break;
    case BinOp::Div: r.f = x / y; break;
    case BinOp::Rem: r.f = std::fmod(x, y); break;
    case BinOp::Eq: cmp = true; cmpRes = x == y; break;
    case BinOp::Ne: cmp = true; cmpRes = x != y; break;
    case BinOp::Lt: cmp = true; cmpRes = x < y; break;
    case BinOp::Le: cmp = true; cmpRes = x <= y; break;
    case BinOp::Gt: cmp = true; cmpRes = x > y; break;
    case BinOp::Ge: cmp = true; cmpRes = x >= y; break;
    default:
      error(sl, "operator " + opName + " needs integer operands, not floats");
      return TV::poison();
    }
    if (cmp)
      return TV::value(arith::ConstantOp::create(b, l, b.getBoolAttr(cmpRes)));
    return r;
  }

  // Pointer arithmetic.
  Type ea = a.kind == TV::Val ? elementType(a.getType()) : Type();
  Type ec = c.kind == TV::Val ? elementType(c.getType()) : Type();
  if (isPtrTy(ea) || isPtrTy(ec)) {
    bool ptrLeft = isPtrTy(ea);
    if (isPtrTy(ea) && isPtrTy(ec)) {
      error(sl, "operator " + opName + " cannot combine two pointers; only "
                "pointer + integer and pointer - integer are allowed");
      return TV::poison();
    }
    if (op != BinOp::Add && !(op == BinOp::Sub && ptrLeft)) {
      error(sl, "operator " + opName + " is not defined for pointers; only "
                "pointer + integer, integer + pointer and pointer - integer "
                "are allowed");
      return TV::poison();
    }
    Value p = ptrLeft ? a.v : c.v;
    const TV &offTv = ptrLeft ? c : a;
    if (offTv.kind == TV::FloatLit) {
      error(offTv.loc, "pointer offset must be an integer, not a float literal");
      return TV::poison();
    }
    Value off = materialize(offTv, b.getI32Type());
    if (!off)
      return TV::poison();
    Type eo = elementType(off.getType());
    if (!isIntTy(eo) || eo.isInteger(1)) {
      error(sl, "pointer offset must be an integer (i8..i64), got " +
                    typeToString(off.getType()));
      return TV::poison();
    }
    auto shape = commonShape({p, off}, sl, "pointer arithmetic");
    if (!shape)
      return TV::poison();
    p = broadcastTo(p, *shape, l);
    off = broadcastTo(off, *shape, l);
    if (op == BinOp::Sub)
      off = arith::SubIOp::create(
          b, l, constantLike(off.getType(), 0, 0, false, l), off);
    return TV::value(kcc::AddPtrOp::create(b, l, p.getType(), p, off));
  }

  // 8-bit floats are converted, not computed with.
  if (refuseFloat8(isFloat8Type(ea) ? ea : ec, sl, "operator " + opName))
    return TV::poison();

  // Typed operands; literals adopt the other side's element type.
  auto notValue = [](const TV &t) {
    return t.kind == TV::TypeVal || t.kind == TV::Void ||
           t.kind == TV::List || t.kind == TV::Tensor;
  };
  if (notValue(a) || notValue(c)) {
    const TV &bad = notValue(a) ? a : c;
    materialize(bad); // reports
    return TV::poison();
  }
  Type elem = adoptedElem({&a, &c});
  Value x = materialize(a, elem);
  Value y = materialize(c, elem);
  if (!x || !y)
    return TV::poison();
  Type tx = elementType(x.getType()), ty = elementType(y.getType());
  if (tx != ty) {
    std::string target = isFloatTy(tx) ? typeToString(tx)
                         : isFloatTy(ty) ? typeToString(ty)
                         : typeToString(tx.getIntOrFloatBitWidth() >
                                                ty.getIntOrFloatBitWidth()
                                            ? tx
                                            : ty);
    error(sl, "mismatched element types " + typeToString(tx) + " and " +
                  typeToString(ty) + " for operator " + opName +
                  "; there are no implicit conversions: convert one side "
                  "explicitly, e.g. cast(x, " + target + ")");
    return TV::poison();
  }
  auto shape = commonShape({x, y}, sl, "operator " + opName);
  if (!shape)
    return TV::poison();
  x = broadcastTo(x, *shape, l);
  y = broadcastTo(y, *shape, l);
  bool isF = isFloatTy(tx);
  bool isI1 = tx.isInteger(1);

  if (op == BinOp::AndAnd || op == BinOp::OrOr) {
    if (!isI1) {
      error(sl, "operator " + opName + " needs i1 operands (comparisons), got " +
                    typeToString(x.getType()) +
                    (isIntTy(tx) ? "; use '&'/'|' for bitwise operations" : ""));
      return TV::poison();
    }
    if (op == BinOp::AndAnd)
      return TV::value(arith::AndIOp::create(b, l, x, y));
    return TV::value(arith::OrIOp::create(b, l, x, y));
  }
  if (isComparison(op)) {
    if (isF) {
      arith::CmpFPredicate p = arith::CmpFPredicate::OEQ;
      switch (op) {
      case BinOp::Eq: p = arith::CmpFPredicate::OEQ; break;
      case BinOp::Ne: p = arith::CmpFPredicate::UNE; break;
      case BinOp::Lt: p = arith::CmpFPredicate::OLT; break;
      case BinOp::Le: p = arith::CmpFPredicate::OLE; break;
      case BinOp::Gt: p = arith::CmpFPredicate::OGT; break;
      default: p = arith::CmpFPredicate::OGE; break;
      }
      return TV::value(arith::CmpFOp::create(b, l, p, x, y));
    }
    arith::CmpIPredicate p = arith::CmpIPredicate::eq;
    switch (op) {
    case BinOp::Eq: p = arith::CmpIPredicate::eq; break;
    case BinOp::Ne: p = arith::CmpIPredicate::ne; break;
    case BinOp::Lt: p = arith::CmpIPredicate::slt; break;
    case BinOp::Le: p = arith::CmpIPredicate::sle; break;
    case BinOp::Gt: p = arith::CmpIPredicate::sgt; break;
    default: p = arith::CmpIPredicate::sge; break;
    }
    return TV::value(arith::CmpIOp::create(b, l, p, x, y));
  }
  if (op == BinOp::And || op == BinOp::Or || op == BinOp::Xor ||
      op == BinOp::Shl || op == BinOp::Shr) {
    bool shift = op == BinOp::Shl || op == BinOp::Shr;
    if (isF || (shift && isI1)) {
      error(sl, "operator " + opName + " needs integer operands, got " +
                    typeToString(x.getType()));
      return TV::poison();
    }
    switch (op) {
    case BinOp::And: return TV::value(arith::AndIOp::create(b, l, x, y));
    case BinOp::Or: return TV::value(arith::OrIOp::create(b, l, x, y));
    case BinOp::Xor: return TV::value(arith::XOrIOp::create(b, l, x, y));
    case BinOp::Shl: return TV::value(arith::ShLIOp::create(b, l, x, y));
    default: return TV::value(arith::ShRSIOp::create(b, l, x, y));
    }
  }
  // + - * / %
  if (isI1) {
    error(sl, "arithmetic operator " + opName + " is not defined on i1; "
              "convert with cast(x, i32) or use && || ^");
    return TV::poison();
  }
  switch (op) {
  case BinOp::Add:
    return TV::value(isF ? Value(arith::AddFOp::create(b, l, x, y))
                         : Value(arith::AddIOp::create(b, l, x, y)));
  case BinOp::Sub:
    return TV::value(isF ? Value(arith::SubFOp::create(b, l, x, y))
                         : Value(arith::SubIOp::create(b, l, x, y)));
  case BinOp::Mul:
    return TV::value(isF ? Value(arith::MulFOp::create(b, l, x, y))
                         : Value(arith::MulIOp::create(b, l, x, y)));
  case BinOp::Div:
    return TV::value(isF ? Value(arith::DivFOp::create(b, l, x, y))
                         : Value(arith::DivSIOp::create(b, l, x, y)));
  default:
    return TV::value(isF ? Value(arith::RemFOp::create(b, l, x, y))
                         : Value(arith::RemSIOp::create(b, l, x, y)));
  }
}

TV Gen::genIndex(const Expr &e) {
  TV t = gen(*e.lhs);
  if (!t.ok())
    return t;
  Value v = materialize(t);
  if (!v)
    return TV::poison();
  auto tt = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
  if (!tt) {
    error(e.loc, "only tiles can be indexed, but the value has type " +
                     typeToString(v.getType()));
    return TV::poison();
  }
  int64_t colons = llvm::count(e.indexIsNone, false);
  if (colons != tt.getRank()) {
    error(e.loc, "index has " + std::to_string(colons) + " ':' but the tile " +
                     typeToString(tt) + " has rank " +
                     std::to_string(tt.getRank()) +
                     "; write one ':' per dimension and None for each new "
                     "unit dimension");
    return TV::poison();
  }
  if (e.indexIsNone.size() > 2) {
    error(e.loc, "indexing would give a tile of rank " +
                     std::to_string(e.indexIsNone.size()) +
                     "; only rank 1 and 2 are supported in v0");
    return TV::poison();
  }
  mlir::Location l = loc(e.loc);
  llvm::SmallVector<int64_t> shape(tt.getShape());
  for (size_t i = 0; i < e.indexIsNone.size(); ++i) {
    if (!e.indexIsNone[i])
      continue;
    shape.insert(shape.begin() + i, 1);
    v = kcc::ExpandDimsOp::create(
        b, l, mlir::RankedTensorType::get(shape, tt.getElementType()), v,
        uint32_t(i));
  }
  return TV::value(v);
}

std::optional<int64_t> Gen::genConstInt(const Expr &e, StringRef what) {
  TV t = gen(e);
  if (!t.ok())
    return std::nullopt;
  if (t.kind != TV::IntLit) {
    error(e.loc, what + " must be a compile-time integer constant (literals, "
                        "integer constant parameters and + - * / % of them)");
    return std::nullopt;
  }
  return t.i;
}
