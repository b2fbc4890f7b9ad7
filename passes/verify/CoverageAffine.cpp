//===- CoverageAffine.cpp - isl sets of the coverage proof ----------------===//
//
// AffineBuilder (CoverageAffine.h): values of the tile IR (arith integer ops,
// program ids, num_programs through the grid's C expressions, selects) as isl
// piecewise quasi-affine functions, i1 values (signed comparisons and their
// and/or/xor) as isl sets, with the first reason a value is not one.
//
//===----------------------------------------------------------------------===//
#include "passes/verify/CoverageAffine.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::coverage;

namespace {

/// The set where `a <kind> b` holds (kind: a comparison of CExpr).
isl_set *compareSet(CExpr::Kind kind, isl_pw_aff *a, isl_pw_aff *b) {
  switch (kind) {
  case CExpr::Kind::Lt:
    return isl_pw_aff_lt_set(a, b);
  case CExpr::Kind::Le:
    return isl_pw_aff_le_set(a, b);
  case CExpr::Kind::Gt:
    return isl_pw_aff_gt_set(a, b);
  case CExpr::Kind::Ge:
    return isl_pw_aff_ge_set(a, b);
  case CExpr::Kind::Eq:
    return isl_pw_aff_eq_set(a, b);
  default:
    return isl_pw_aff_ne_set(a, b);
  }
}

} // namespace

FailureOr<isl::PwAff> AffineBuilder::divisor(Value v, Location loc,
                                             StringRef what) {
  FailureOr<isl::PwAff> d = value(v);
  if (failed(d))
    return failure();
  if (!isConstant(*d))
    return fail(loc, (what + " by a value that is not a constant").str());
  // A constant pw_aff may still be piecewise (different constants on
  // pieces); zero anywhere would be division by zero at run time.
  isl::Set zero(isl_pw_aff_zero_set(d->copy()));
  if (!zero || isl_set_is_empty(zero.get()) != isl_bool_true)
    return fail(loc, (what + " by zero").str());
  return d;
}

FailureOr<isl::PwAff> AffineBuilder::compute(Value v) {
  if (auto it = dims.find(v); it != dims.end())
    return var(isl_dim_set, it->second);
  if (auto it = params.find(v); it != params.end())
    return var(isl_dim_param, it->second);
  Location loc = v.getLoc();
  Operation *op = v.getDefiningOp();
  if (!op || isa<scf::ForOp>(op))
    return fail(loc, "it depends on a loop-carried value");
  if (isa<scf::IfOp>(op))
    return fail(loc, "it depends on a value chosen by a branch; use select "
                     "(where) on affine values instead");
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return constant(c.getSExtValue());
  if (auto pid = dyn_cast<kcc::ProgramIdOp>(op))
    return var(isl_dim_set, pid.getAxis());
  if (auto n = dyn_cast<kcc::NumProgramsOp>(op))
    return cexpr(*grid[n.getAxis()], loc);
  if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return value(op->getOperand(0));
  auto binary = [&](auto combine) -> FailureOr<isl::PwAff> {
    FailureOr<isl::PwAff> a = value(op->getOperand(0));
    if (failed(a))
      return failure();
    FailureOr<isl::PwAff> b = value(op->getOperand(1));
    if (failed(b))
      return failure();
    return wrap(combine(a->take(), b->take()));
  };
  if (isa<arith::AddIOp>(op))
    return binary(isl_pw_aff_add);
  if (isa<arith::SubIOp>(op))
    return binary(isl_pw_aff_sub);
  if (isa<arith::MinSIOp>(op))
    return binary(isl_pw_aff_min);
  if (isa<arith::MaxSIOp>(op))
    return binary(isl_pw_aff_max);
  if (isa<arith::MulIOp>(op)) {
    FailureOr<isl::PwAff> a = value(op->getOperand(0));
    FailureOr<isl::PwAff> b = succeeded(a) ? value(op->getOperand(1)) : a;
    if (failed(b))
      return failure();
    if (!isConstant(*a) && !isConstant(*b))
      return fail(loc, "it multiplies two values that are not constants");
    return wrap(isl_pw_aff_mul(a->take(), b->take()));
  }
  if (isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp,
          arith::CeilDivSIOp>(op)) {
    FailureOr<isl::PwAff> a = value(op->getOperand(0));
    if (failed(a))
      return failure();
    FailureOr<isl::PwAff> d = divisor(
        op->getOperand(1), loc,
        isa<arith::RemSIOp>(op) ? "it takes a remainder" : "it divides");
    if (failed(d))
      return failure();
    // arith's signed division truncates toward zero, as C does.
    if (isa<arith::DivSIOp>(op))
      return wrap(isl_pw_aff_tdiv_q(a->take(), d->take()));
    if (isa<arith::RemSIOp>(op))
      return wrap(isl_pw_aff_tdiv_r(a->take(), d->take()));
    isl_pw_aff *q = isl_pw_aff_div(a->take(), d->take());
    return wrap(isa<arith::FloorDivSIOp>(op) ? isl_pw_aff_floor(q)
                                             : isl_pw_aff_ceil(q));
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    FailureOr<isl::Set> c = condition(sel.getCondition());
    FailureOr<isl::PwAff> a = succeeded(c) ? value(sel.getTrueValue())
                                           : FailureOr<isl::PwAff>(failure());
    FailureOr<isl::PwAff> b = succeeded(a) ? value(sel.getFalseValue()) : a;
    if (failed(b))
      return failure();
    return wrap(isl_pw_aff_cond(isl_set_indicator_function(c->take()),
                                a->take(), b->take()));
  }
  return fail(loc, "it uses the result of '" +
                       op->getName().getStringRef().str() +
                       "', which is not an affine function of program ids, "
                       "loop variables and integer parameters");
}

FailureOr<isl::Set> AffineBuilder::condition(Value v) {
  Location loc = v.getLoc();
  Operation *op = v.getDefiningOp();
  if (!op) {
    (void)fail(loc, "a condition is a loop-carried value");
    return failure();
  }
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero() ? isl::Set(isl_set_empty(space.copy())) : universe();
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    FailureOr<isl::PwAff> a = value(cmp.getLhs());
    FailureOr<isl::PwAff> b = succeeded(a) ? value(cmp.getRhs()) : a;
    if (failed(b))
      return failure();
    using P = arith::CmpIPredicate;
    static const std::pair<P, CExpr::Kind> kinds[] = {
        {P::slt, CExpr::Kind::Lt}, {P::sle, CExpr::Kind::Le},
        {P::sgt, CExpr::Kind::Gt}, {P::sge, CExpr::Kind::Ge},
        {P::eq, CExpr::Kind::Eq},  {P::ne, CExpr::Kind::Ne}};
    for (auto [pred, kind] : kinds)
      if (cmp.getPredicate() == pred)
        return isl::Set(compareSet(kind, a->take(), b->take()));
    (void)fail(loc, "it compares without sign");
    return failure();
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    FailureOr<isl::Set> a = condition(op->getOperand(0));
    FailureOr<isl::Set> b = succeeded(a) ? condition(op->getOperand(1)) : a;
    if (failed(b))
      return failure();
    if (isa<arith::AndIOp>(op))
      return isl::Set(isl_set_intersect(a->take(), b->take()));
    if (isa<arith::OrIOp>(op))
      return isl::Set(isl_set_union(a->take(), b->take()));
    // a != b: (a \ b) u (b \ a).
    return isl::Set(isl_set_union(isl_set_subtract(a->copy(), b->copy()),
                                  isl_set_subtract(b->take(), a->take())));
  }
  (void)fail(loc, "a condition computed by '" +
                      op->getName().getStringRef().str() +
                      "', which is not an affine comparison");
  return failure();
}

FailureOr<isl::PwAff> AffineBuilder::cexpr(const CExpr &e, Location loc) {
  using K = CExpr::Kind;
  switch (e.kind) {
  case K::Int:
    return constant(e.value);
  case K::Name: {
    auto it = paramNames.find(e.name);
    if (it == paramNames.end())
      return fail(loc, "the grid uses '" + e.name +
                           "', which is not an integer parameter");
    return var(isl_dim_param, it->second);
  }
  case K::Neg: {
    FailureOr<isl::PwAff> a = cexpr(*e.operands[0], loc);
    if (failed(a))
      return failure();
    return wrap(isl_pw_aff_neg(a->take()));
  }
  case K::Add:
  case K::Sub:
  case K::Mul:
  case K::Div:
  case K::Rem: {
    FailureOr<isl::PwAff> a = cexpr(*e.operands[0], loc);
    FailureOr<isl::PwAff> b = succeeded(a) ? cexpr(*e.operands[1], loc) : a;
    if (failed(b))
      return failure();
    if (e.kind == K::Add)
      return wrap(isl_pw_aff_add(a->take(), b->take()));
    if (e.kind == K::Sub)
      return wrap(isl_pw_aff_sub(a->take(), b->take()));
    bool constB = isConstant(*b);
    if (e.kind == K::Mul) {
      if (!isConstant(*a) && !constB)
        return fail(loc, "the grid multiplies two values that are not "
                         "constants");
      return wrap(isl_pw_aff_mul(a->take(), b->take()));
    }
    isl::Set zero(isl_pw_aff_zero_set(b->copy()));
    if (!constB || !zero || isl_set_is_empty(zero.get()) != isl_bool_true)
      return fail(loc, "the grid divides by a value that is not a nonzero "
                       "constant");
    return wrap(e.kind == K::Div ? isl_pw_aff_tdiv_q(a->take(), b->take())
                                 : isl_pw_aff_tdiv_r(a->take(), b->take()));
  }
  case K::Select: {
    FailureOr<isl::PwAff> c = cexpr(*e.operands[0], loc);
    FailureOr<isl::PwAff> a = succeeded(c) ? cexpr(*e.operands[1], loc) : c;
    FailureOr<isl::PwAff> b = succeeded(a) ? cexpr(*e.operands[2], loc) : a;
    if (failed(b))
      return failure();
    return wrap(isl_pw_aff_cond(c->take(), a->take(), b->take()));
  }
  case K::Lt:
  case K::Le:
  case K::Gt:
  case K::Ge:
  case K::Eq:
  case K::Ne: {
    FailureOr<isl::PwAff> a = cexpr(*e.operands[0], loc);
    FailureOr<isl::PwAff> b = succeeded(a) ? cexpr(*e.operands[1], loc) : a;
    if (failed(b))
      return failure();
    isl_set *s = compareSet(e.kind, a->take(), b->take());
    return wrap(isl_set_indicator_function(s));
  }
  case K::Not:
  case K::And:
  case K::Or: {
    // Logical operators of conditions (a require(...) guard): the
    // indicator of where the operands are nonzero, combined.
    SmallVector<isl_set *, 2> sets;
    for (const std::unique_ptr<CExpr> &o : e.operands) {
      FailureOr<isl::PwAff> a = cexpr(*o, loc);
      if (failed(a)) {
        for (isl_set *s : sets)
          isl_set_free(s);
        return failure();
      }
      sets.push_back(isl_pw_aff_non_zero_set(a->take()));
    }
    isl_set *s = e.kind == K::Not   ? isl_set_complement(sets[0])
                 : e.kind == K::And ? isl_set_intersect(sets[0], sets[1])
                                    : isl_set_union(sets[0], sets[1]);
    return wrap(isl_set_indicator_function(s));
  }
  }
  return fail(loc, "the grid uses an operator the proof does not model");
}
