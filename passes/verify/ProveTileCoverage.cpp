//===- ProveTileCoverage.cpp - isl proof that tile stores cover tensors ---===//
//
// Runs on the tile IR, before anything is lowered. For every tensor a kernel
// writes with `store_tile`, it builds with isl the set of elements each
// program writes: the boxes (tile shape x block coordinates) of every store,
// over the program grid (`kcc.grid`), the iterations of the enclosing loops
// and the branches taken, clipped to the tensor as the lowering clips them
// (a mask on the vector path, the tensor map's bounds on TMA). The sizes and
// integer parameters stay symbolic (isl parameters); `multiple_of` facts and
// the parameters' integer ranges are the context. It proves:
//
// - coverage: every element of the tensor is written. Where that holds only
//   for some sizes (e.g. `out` larger than the grid of `inp` covers), the
//   sizes for which it holds become a launch guard, a C expression over the
//   parameter names in `kcc.coverage`, which the stubs and the interpreter
//   check before launching. A tensor no non-empty size of which is covered
//   is an error with an uncovered element as the example.
// - exactly once: no element is written by two different programs (a race
//   whose result depends on scheduling). Any such sizes are an error, with
//   the two programs and the element.
// - nothing outside: the writes are the boxes intersected with the tensor,
//   so nothing lands outside it; the proof is over that intersection.
//
// It can only reason about quasi-affine code: tile coordinates, loop bounds
// and branch conditions built from program ids, loop variables, integer
// parameters and constants with + - and multiplication, division and
// remainder by constants, min/max and select. Anything else (a coordinate
// loaded from memory, a product of two sizes, a loop-carried value) makes
// the coverage of that tensor unprovable: an error at the store naming the
// value, or with `unproven=warning` a warning and no guard. Box origins
// (tile x coordinate) are computed in i32 by the code: sizes where one
// would wrap are not proven (they leave the guard). The coordinate
// expressions themselves are modelled as mathematical integers.
//
// The isl functions and sets of the tile IR's values are built by
// AffineBuilder (CoverageAffine.cpp); this file holds the pass, the proof
// per kernel and tensor, the guards it prints as C and its diagnostics.
//
//===----------------------------------------------------------------------===//

#include "ir/TileCoords.h"
#include "passes/Passes.h"
#include "passes/verify/CoverageAffine.h"
#include "passes/verify/Isl.h"

#include "ir/CExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace kcc {
#define GEN_PASS_DEF_KCCPROVETILECOVERAGE
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;
using namespace kcc;
using namespace kcc::coverage;

namespace {

//===----------------------------------------------------------------------===//
// Guards as C
//===----------------------------------------------------------------------===//

/// The C operator of an isl AST comparison, or null.
const char *comparison(isl_ast_expr_op_type type) {
  switch (type) {
  case isl_ast_expr_op_eq:
    return "==";
  case isl_ast_expr_op_le:
    return "<=";
  case isl_ast_expr_op_lt:
    return "<";
  case isl_ast_expr_op_ge:
    return ">=";
  case isl_ast_expr_op_gt:
    return ">";
  default:
    return nullptr;
  }
}

/// Prints an isl AST expression as C, in the subset ir/CExpr.h evaluates
/// (C's truncating division made flooring where isl floors). Returns false
/// on an operation kcc does not print.
bool printAst(isl_ast_expr *e, std::string &out) {
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_int: {
    isl::Val v(isl_ast_expr_get_val(e));
    long x = isl_val_get_num_si(v.get());
    out += x < 0 ? "(" + std::to_string(x) + ")" : std::to_string(x);
    return true;
  }
  case isl_ast_expr_id: {
    isl_id *id = isl_ast_expr_get_id(e);
    out += isl_id_get_name(id);
    isl_id_free(id);
    return true;
  }
  case isl_ast_expr_op:
    break;
  default:
    return false;
  }
  int n = isl_ast_expr_op_get_n_arg(e);
  std::vector<std::string> args(n);
  for (int i = 0; i < n; ++i) {
    isl::AstExpr a(isl_ast_expr_op_get_arg(e, i));
    if (!a || !printAst(a.get(), args[i]))
      return false;
  }
  auto infix = [&](const char *op) {
    std::string s = "(" + args[0];
    for (int i = 1; i < n; ++i)
      s += std::string(" ") + op + " " + args[i];
    out += s + ")";
    return true;
  };
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    return infix("&&");
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    return infix("||");
  case isl_ast_expr_op_max:
  case isl_ast_expr_op_min: {
    bool isMax = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_max;
    std::string acc = args[0];
    for (int i = 1; i < n; ++i)
      acc = "(" + acc + (isMax ? " > " : " < ") + args[i] + " ? " + acc +
            " : " + args[i] + ")";
    out += acc;
    return true;
  }
  case isl_ast_expr_op_minus:
    out += "(-" + args[0] + ")";
    return true;
  case isl_ast_expr_op_add:
    return infix("+");
  case isl_ast_expr_op_sub:
    return infix("-");
  case isl_ast_expr_op_mul:
    return infix("*");
  case isl_ast_expr_op_div:    // exact
  case isl_ast_expr_op_pdiv_q: // numerator known non-negative
    return infix("/");
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r: // only ever compared with 0
    return infix("%");
  case isl_ast_expr_op_fdiv_q: // the divisor is a positive constant
    out += "(" + args[0] + " < 0 ? -((-" + args[0] + " + " + args[1] +
           " - 1) / " + args[1] + ") : " + args[0] + " / " + args[1] + ")";
    return true;
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select:
    out += "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
    return true;
  default:
    if (const char *op = comparison(isl_ast_expr_op_get_type(e)))
      return infix(op);
    return false;
  }
}

/// The same expression for people: a sum of signed terms, so that a
/// comparison prints with its negative terms moved across
/// (`d <= 128 * ceil(s / 128)`, not `d + 128 * floor(-s / 128) <= 0`).
struct Term {
  std::string text;
  bool negative = false;
};
using Sum = std::vector<Term>;

std::string sumText(const Sum &sum) {
  std::string out;
  for (const Term &t : sum)
    out += out.empty() ? (t.negative ? "-" : "") + t.text
                       : (t.negative ? " - " : " + ") + t.text;
  return out.empty() ? "0" : out;
}
/// A sum as one term (parenthesized if it has several).
Term asTerm(const Sum &sum) {
  if (sum.size() == 1)
    return sum.front();
  return {"(" + sumText(sum) + ")", false};
}

std::optional<Sum> humanAst(isl_ast_expr *e) {
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_int: {
    isl::Val v(isl_ast_expr_get_val(e));
    long x = isl_val_get_num_si(v.get());
    if (x == 0)
      return Sum{};
    return Sum{{std::to_string(x < 0 ? -x : x), x < 0}};
  }
  case isl_ast_expr_id: {
    isl_id *id = isl_ast_expr_get_id(e);
    Sum s{{isl_id_get_name(id), false}};
    isl_id_free(id);
    return s;
  }
  case isl_ast_expr_op:
    break;
  default:
    return std::nullopt;
  }
  int n = isl_ast_expr_op_get_n_arg(e);
  std::vector<Sum> args;
  for (int i = 0; i < n; ++i) {
    isl::AstExpr a(isl_ast_expr_op_get_arg(e, i));
    std::optional<Sum> s = a ? humanAst(a.get()) : std::nullopt;
    if (!s)
      return std::nullopt;
    args.push_back(std::move(*s));
  }
  auto negate = [](Sum s) {
    for (Term &t : s)
      t.negative = !t.negative;
    return s;
  };
  auto joined = [&](const char *op) {
    std::string out;
    for (const Sum &a : args)
      out += (out.empty() ? "" : std::string(" ") + op + " ") + sumText(a);
    return Sum{{"(" + out + ")", false}};
  };
  auto compare = [&](const char *op) {
    Sum lhs, rhs;
    for (const Term &t : args[0])
      (t.negative ? rhs : lhs).push_back({t.text, false});
    for (const Term &t : args[1])
      (t.negative ? lhs : rhs).push_back({t.text, false});
    return Sum{{sumText(lhs) + " " + op + " " + sumText(rhs), false}};
  };
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    return joined("and");
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    return joined("or");
  case isl_ast_expr_op_max:
  case isl_ast_expr_op_min: {
    bool isMax = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_max;
    std::string out;
    for (const Sum &a : args)
      out += (out.empty() ? "" : ", ") + sumText(a);
    return Sum{{std::string(isMax ? "max(" : "min(") + out + ")", false}};
  }
  case isl_ast_expr_op_minus:
    return negate(args[0]);
  case isl_ast_expr_op_add:
  case isl_ast_expr_op_sub: {
    Sum out = args[0];
    bool sub = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_sub;
    for (int i = 1; i < n; ++i) {
      Sum t = sub ? negate(args[i]) : args[i];
      out.insert(out.end(), t.begin(), t.end());
    }
    return out;
  }
  case isl_ast_expr_op_mul: {
    Term a = asTerm(args[0]), b = asTerm(args[1]);
    return Sum{{a.text + " * " + b.text, a.negative != b.negative}};
  }
  case isl_ast_expr_op_fdiv_q: {
    // floor(-x / k) = -ceil(x / k)
    Term a = asTerm(args[0]);
    return Sum{{std::string(a.negative ? "ceil(" : "floor(") + a.text + " / " +
                    sumText(args[1]) + ")",
                a.negative}};
  }
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_pdiv_q: {
    Term a = asTerm(args[0]);
    return Sum{{a.text + " / " + sumText(args[1]), a.negative}};
  }
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r:
    return Sum{{"(" + sumText(args[0]) + ") % " + sumText(args[1]), false}};
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select:
    return Sum{{"(" + sumText(args[0]) + " ? " + sumText(args[1]) + " : " +
                    sumText(args[2]) + ")",
                false}};
  default:
    if (const char *op = comparison(isl_ast_expr_op_get_type(e)))
      return compare(op);
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ProveTileCoverage
    : kcc::impl::KccProveTileCoverageBase<ProveTileCoverage> {
  using KccProveTileCoverageBase::KccProveTileCoverageBase;

  void runOnOperation() override {
    if (unproven != "error" && unproven != "warning") {
      getOperation().emitError("kcc-prove-tile-coverage: unproven must be "
                               "'error' or 'warning', got '")
          << unproven << "'";
      return signalPassFailure();
    }
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (f->hasAttr("kcc.kernel") && failed(proveKernel(f)))
        signalPassFailure();
  }

private:
  LogicalResult proveKernel(func::FuncOp f);
};

/// One kernel's parameters and grid, shared by its tensors' proofs.
class KernelProof {
public:
  KernelProof(func::FuncOp f, isl_ctx *ctx) : f(f), ctx(ctx) {}

  /// Reads the parameters and the grid; false with a diagnostic if the
  /// kernel is not one the frontend emitted.
  bool init(std::optional<Unprovable> &gridFailure);

  /// The elements of `tensor` each program writes: the set
  /// [p0, p1, p2, e...] (clipped to the tensor), or why it is unknown.
  /// Adds to `wrapSizes` the sizes where a box origin leaves i32.
  FailureOr<isl::Set> writes(ArrayRef<kcc::StoreTileOp> stores,
                             isl::Set &wrapSizes, Unprovable &why);

  /// 0 <= e_k < dims_k in [e...].
  isl::Set tensorDomain(kcc::StoreTileOp store);

  isl::Space setSpace(unsigned dims) const {
    return isl::Space(isl_space_add_dims(
        isl_space_set_from_params(paramSpace.copy()), isl_dim_set, dims));
  }

  /// "name = value, ..." for the parameters `s` involves, at point `pt`.
  std::string paramValues(const isl::Set &s, const isl::Point &pt) const;
  /// A point of `s`, with small parameter values where there is one.
  isl::Point sample(const isl::Set &s) const;

  func::FuncOp f;
  isl_ctx *ctx;
  std::vector<std::string> paramNameList;
  llvm::StringMap<unsigned> paramNames;
  llvm::DenseMap<Value, unsigned> params;
  llvm::SmallVector<std::string> argNames;
  isl::Space paramSpace;
  isl::Set context; // a parameter set
  std::array<std::unique_ptr<CExpr>, 3> grid;
};

bool KernelProof::init(std::optional<Unprovable> &gridFailure) {
  auto names = f->getAttrOfType<ArrayAttr>("kcc.arg_names");
  auto gridAttr = f->getAttrOfType<ArrayAttr>("kcc.grid");
  if (!names || !gridAttr || gridAttr.size() != 3 ||
      names.size() != f.getNumArguments()) {
    f.emitError("kernel '") << f.getSymName()
                            << "' has no kcc.grid/kcc.arg_names; it was not "
                               "emitted by the kcc frontend";
    return false;
  }
  for (Attribute a : names)
    argNames.push_back(cast<StringAttr>(a).str());
  for (BlockArgument arg : f.getArguments())
    if (arg.getType().isSignlessInteger() &&
        arg.getType().getIntOrFloatBitWidth() > 1) {
      params[arg] = paramNameList.size();
      paramNames[argNames[arg.getArgNumber()]] = paramNameList.size();
      paramNameList.push_back(argNames[arg.getArgNumber()]);
    }
  // num_multiprocessors() in the grid: one more parameter, in [1, 65535].
  bool usesProcessors = llvm::any_of(gridAttr, [](Attribute a) {
    return cast<StringAttr>(a).getValue().contains(kMultiprocessorsName);
  });
  if (usesProcessors) {
    paramNames[kMultiprocessorsName] = paramNameList.size();
    paramNameList.push_back(kMultiprocessorsName);
  }
  isl_space *sp = isl_space_params_alloc(ctx, paramNameList.size());
  for (unsigned i = 0; i < paramNameList.size(); ++i)
    sp = isl_space_set_dim_id(
        sp, isl_dim_param, i,
        isl_id_alloc(ctx, paramNameList[i].c_str(), nullptr));
  paramSpace = isl::Space(sp);

  // The context: each parameter in its type's range, multiple_of facts.
  llvm::DenseMap<Value, unsigned> noDims;
  AffineBuilder b(setSpace(0), params, paramNames, noDims, grid);
  isl::Set ctxSet = b.universe();
  for (auto [arg, index] : params) {
    unsigned bits = arg.getType().getIntOrFloatBitWidth();
    isl::PwAff p = b.var(isl_dim_param, index);
    if (bits <= 32) {
      int64_t lo = -(int64_t(1) << (bits - 1)), hi = -lo - 1;
      ctxSet = isl::Set(isl_set_intersect(
          ctxSet.take(), isl_pw_aff_ge_set(p.copy(), b.constant(lo).take())));
      ctxSet = isl::Set(isl_set_intersect(
          ctxSet.take(), isl_pw_aff_le_set(p.copy(), b.constant(hi).take())));
    }
    auto arg0 = cast<BlockArgument>(arg);
    if (auto d = f.getArgAttrOfType<IntegerAttr>(arg0.getArgNumber(),
                                                 "kcc.divisibility");
        d && d.getInt() > 1) {
      isl_pw_aff *m =
          isl_pw_aff_mod_val(p.copy(), isl_val_int_from_si(ctx, d.getInt()));
      ctxSet =
          isl::Set(isl_set_intersect(ctxSet.take(), isl_pw_aff_zero_set(m)));
    }
  }
  if (usesProcessors) {
    isl::PwAff p = b.var(isl_dim_param, paramNames[kMultiprocessorsName]);
    ctxSet = isl::Set(isl_set_intersect(
        ctxSet.take(), isl_pw_aff_ge_set(p.copy(), b.constant(1).take())));
    ctxSet = isl::Set(isl_set_intersect(
        ctxSet.take(), isl_pw_aff_le_set(p.copy(), b.constant(65535).take())));
  }
  context = isl::Set(isl_set_params(ctxSet.take()));
  // The kernel's require(...) clauses hold in every launch (the stubs
  // refuse the others): sizes they exclude need no proof.
  if (auto requires =
          f->getAttrOfType<ArrayAttr>(kcc::KccDialect::kRequiresAttr))
    for (Attribute r : requires) {
      auto guard =
          dyn_cast_or_null<StringAttr>(cast<DictionaryAttr>(r).get("guard"));
      std::string error;
      std::unique_ptr<CExpr> e =
          guard ? parseCExpr(guard.getValue(), error) : nullptr;
      if (!e)
        continue;
      FailureOr<isl::PwAff> holds = b.cexpr(*e, f.getLoc());
      if (failed(holds))
        continue;
      context = isl::Set(isl_set_intersect(
          context.take(),
          isl_set_params(isl_pw_aff_non_zero_set(holds->take()))));
    }

  for (unsigned d = 0; d < 3; ++d) {
    std::string error;
    std::string text = cast<StringAttr>(gridAttr[d]).str();
    grid[d] = parseCExpr(text.empty() ? "1" : text, error);
    if (!grid[d] && !gridFailure)
      gridFailure = Unprovable{f.getLoc(), "the grid expression '" + text +
                                               "' does not parse: " + error};
  }
  return true;
}

FailureOr<isl::Set> KernelProof::writes(ArrayRef<kcc::StoreTileOp> stores,
                                        isl::Set &wrapSizes, Unprovable &why) {
  isl::Set all;
  for (kcc::StoreTileOp store : stores) {
    auto tile = cast<RankedTensorType>(store.getValue().getType());
    unsigned rank = store.getDims().size();
    // A batched tensor's leading coordinates index single elements (a box
    // extent of 1).
    unsigned lead = rank - tile.getRank();
    // What the tile's coordinates count: boxes, or elements (store_tile_at).
    SmallVector<int64_t> coordScale = tileCoordScale(store, tile.getShape());
    // The statement's surroundings, outermost first.
    SmallVector<Operation *> chain;
    for (Operation *p = store->getParentOp(); p && p != f.getOperation();
         p = p->getParentOp())
      chain.push_back(p);
    std::reverse(chain.begin(), chain.end());
    llvm::DenseMap<Value, unsigned> dims;
    unsigned loops = 0;
    for (Operation *p : chain) {
      if (auto loop = dyn_cast<scf::ForOp>(p))
        dims[loop.getInductionVar()] = 3 + loops++;
      else if (!isa<scf::IfOp>(p)) {
        why = {p->getLoc(),
               isa<scf::WhileOp>(p)
                   ? std::string("the store is inside a while loop, whose "
                                 "trips kcc cannot count")
                   : "the store is inside '" +
                         p->getName().getStringRef().str() + "'"};
        return failure();
      }
    }
    AffineBuilder b(setSpace(3 + loops + rank), params, paramNames, dims, grid);
    auto bail = [&]() -> FailureOr<isl::Set> {
      why = *b.reason;
      return failure();
    };
    isl::Set s = b.universe();
    auto meet = [&](isl_set *c) {
      s = isl::Set(isl_set_intersect(s.take(), c));
    };
    for (unsigned d = 0; d < 3; ++d) {
      if (!grid[d]) {
        why = {f.getLoc(), "the grid expression does not parse"};
        return failure();
      }
      FailureOr<isl::PwAff> g = b.cexpr(*grid[d], f.getLoc());
      if (failed(g))
        return bail();
      isl::PwAff pid = b.var(isl_dim_set, d);
      meet(isl_pw_aff_ge_set(pid.copy(), b.constant(0).take()));
      meet(isl_pw_aff_lt_set(pid.copy(), g->take()));
    }
    for (Operation *p : chain) {
      if (auto loop = dyn_cast<scf::ForOp>(p)) {
        FailureOr<isl::PwAff> lb = b.value(loop.getLowerBound());
        FailureOr<isl::PwAff> ub =
            succeeded(lb) ? b.value(loop.getUpperBound()) : lb;
        if (failed(ub))
          return bail();
        APInt step;
        if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
            !step.isStrictlyPositive()) {
          why = {loop.getStep().getLoc(),
                 "a loop step is not a positive constant"};
          return failure();
        }
        isl::PwAff iv = b.var(isl_dim_set, dims[loop.getInductionVar()]);
        meet(isl_pw_aff_ge_set(iv.copy(), lb->copy()));
        meet(isl_pw_aff_lt_set(iv.copy(), ub->take()));
        if (!step.isOne())
          meet(isl_pw_aff_zero_set(isl_pw_aff_mod_val(
              isl_pw_aff_sub(iv.copy(), lb->take()),
              isl_val_int_from_si(ctx, step.getSExtValue()))));
        continue;
      }
      auto branch = cast<scf::IfOp>(p);
      FailureOr<isl::Set> c = b.condition(branch.getCondition());
      if (failed(c))
        return bail();
      bool inThen = branch.getThenRegion().isAncestor(store->getParentRegion());
      meet(inThen ? c->take() : isl_set_complement(c->take()));
    }
    // The executions (before any element is chosen) whose box origin,
    // tile * coordinate in i32, would wrap: there the code computes other
    // indices than this model, so those sizes are not proven.
    isl::Set instances = s;
    for (unsigned k = 0; k < rank; ++k) {
      FailureOr<isl::PwAff> c = b.value(store.getCoords()[k]);
      FailureOr<isl::PwAff> dim =
          succeeded(c) ? b.value(store.getDims()[k]) : c;
      if (failed(dim))
        return bail();
      int64_t box = k < lead ? 1 : tile.getDimSize(k - lead);
      int64_t scale = k < lead ? 1 : coordScale[k - lead];
      isl::PwAff e = b.var(isl_dim_set, 3 + loops + k);
      isl::PwAff origin(
          isl_pw_aff_scale_val(c->take(), isl_val_int_from_si(ctx, scale)));
      isl::Set wraps(isl_set_intersect(
          instances.copy(),
          isl_set_union(isl_pw_aff_gt_set(origin.copy(),
                                          b.constant(INT32_MAX).take()),
                        isl_pw_aff_lt_set(origin.copy(),
                                          b.constant(INT32_MIN).take()))));
      wrapSizes = isl::Set(
          isl_set_union(wrapSizes.take(), isl_set_params(wraps.take())));
      meet(isl_pw_aff_ge_set(e.copy(), origin.copy()));
      meet(isl_pw_aff_lt_set(
          e.copy(), isl_pw_aff_add(origin.take(), b.constant(box).take())));
      meet(isl_pw_aff_ge_set(e.copy(), b.constant(0).take()));
      meet(isl_pw_aff_lt_set(e.copy(), dim->take()));
    }
    s = isl::Set(isl_set_project_out(s.take(), isl_dim_set, 3, loops));
    all = all ? isl::Set(isl_set_union(all.take(), s.take())) : s;
    if (!all) {
      why = {store.getLoc(), "the proof ran out of its operation budget"};
      return failure();
    }
  }
  return all;
}

isl::Set KernelProof::tensorDomain(kcc::StoreTileOp store) {
  unsigned rank = store.getDims().size();
  llvm::DenseMap<Value, unsigned> noDims;
  AffineBuilder b(setSpace(rank), params, paramNames, noDims, grid);
  isl::Set s = b.universe();
  for (unsigned k = 0; k < rank; ++k) {
    FailureOr<isl::PwAff> dim = b.value(store.getDims()[k]);
    if (failed(dim))
      return isl::Set();
    isl::PwAff e = b.var(isl_dim_set, k);
    s = isl::Set(isl_set_intersect(
        s.take(), isl_pw_aff_ge_set(e.copy(), b.constant(0).take())));
    s = isl::Set(
        isl_set_intersect(s.take(), isl_pw_aff_lt_set(e.copy(), dim->take())));
  }
  return s;
}

isl::Point KernelProof::sample(const isl::Set &s) const {
  // Prefer small sizes: every parameter in [-1, 4096] if that leaves any.
  isl::Set small = s;
  for (unsigned i = 0; i < paramNameList.size(); ++i) {
    small =
        isl::Set(isl_set_lower_bound_si(small.take(), isl_dim_param, i, -1));
    small =
        isl::Set(isl_set_upper_bound_si(small.take(), isl_dim_param, i, 4096));
  }
  isl::Point pt(isl_set_sample_point(small.take()));
  if (pt && isl_point_is_void(pt.get()) != isl_bool_true)
    return pt;
  return isl::Point(isl_set_sample_point(s.copy()));
}

std::string KernelProof::paramValues(const isl::Set &s,
                                     const isl::Point &pt) const {
  std::string out;
  // The parameters the set constrains beyond what the context says.
  isl::Set own(isl_set_gist_params(s.copy(), context.copy()));
  for (unsigned i = 0; i < paramNameList.size(); ++i) {
    if (isl_set_involves_dims(own.get(), isl_dim_param, i, 1) != isl_bool_true)
      continue;
    isl::Val v(isl_point_get_coordinate_val(pt.get(), isl_dim_param, i));
    out += (out.empty() ? "" : ", ") + paramNameList[i] + " = " +
           std::to_string(isl_val_get_num_si(v.get()));
  }
  return out;
}

std::string coords(const isl::Point &pt, unsigned first, unsigned n) {
  std::string out;
  for (unsigned k = 0; k < n; ++k) {
    isl::Val v(isl_point_get_coordinate_val(pt.get(), isl_dim_set, first + k));
    out += (k ? ", " : "") + std::to_string(isl_val_get_num_si(v.get()));
  }
  return out;
}

LogicalResult ProveTileCoverage::proveKernel(func::FuncOp f) {
  // Tensors by base pointer, in order of first store.
  llvm::MapVector<Value, SmallVector<kcc::StoreTileOp>> tensors;
  f.walk([&](kcc::StoreTileOp s) { tensors[s.getBase()].push_back(s); });
  if (tensors.empty())
    return success();

  isl::Ctx ctx(maxOperations);
  KernelProof kp(f, ctx.get());
  std::optional<Unprovable> gridFailure;
  if (!kp.init(gridFailure))
    return failure();

  bool ok = true;
  bool asError = unproven == "error";
  Builder attrs(f.getContext());
  SmallVector<Attribute> entries;
  for (auto &[base, stores] : tensors) {
    kcc::StoreTileOp first = stores.front();
    auto arg = dyn_cast<BlockArgument>(base);
    std::string name = arg && arg.getOwner()->isEntryBlock()
                           ? kp.argNames[arg.getArgNumber()]
                           : "?";
    SmallVector<NamedAttribute> entry{
        attrs.getNamedAttr("tensor", attrs.getStringAttr(name))};
    auto unprovable = [&](Unprovable u) {
      // A failed isl operation (the budget ran out) shows up as a null
      // result wherever it happened; say so instead of what it looked like.
      if (ctx.failed())
        u = {first.getLoc(), "the proof ran out of its operation budget"};
      InFlightDiagnostic d =
          (asError ? first.emitError() : first.emitWarning())
          << "cannot prove that the stores cover tensor '" << name
          << "' exactly (" << u.why
          << "); write the tile coordinates, loop bounds and conditions as "
             "affine functions of program_id, loop variables and integer "
             "parameters"
          << (asError ? ", or pass --unproven-coverage=warning to compile "
                        "without the proof"
                      : "");
      if (u.loc != first.getLoc())
        d.attachNote(u.loc) << "this is not affine";
      ok &= !asError;
      entry.push_back(
          attrs.getNamedAttr("unproven", attrs.getStringAttr(u.why)));
      entries.push_back(attrs.getDictionaryAttr(entry));
    };

    Unprovable why{first.getLoc(), ""};
    bool usedElsewhere = llvm::any_of(base.getUsers(), [](Operation *u) {
      return !isa<kcc::StoreTileOp, kcc::LoadTileOp>(u);
    });
    if (!arg || usedElsewhere) {
      unprovable({first.getLoc(), "the tensor is also accessed through its "
                                  "pointer"});
      continue;
    }
    if (gridFailure) {
      unprovable(*gridFailure);
      continue;
    }
    isl::Set wrapSizes(isl_set_empty(kp.paramSpace.copy()));
    FailureOr<isl::Set> written = kp.writes(stores, wrapSizes, why);
    if (failed(written)) {
      unprovable(why);
      continue;
    }
    unsigned rank = first.getDims().size();
    isl::Set domain = kp.tensorDomain(first);

    // Exactly once: two different programs writing one element.
    isl::Map byProgram(isl_map_move_dims(isl_map_from_range(written->copy()),
                                         isl_dim_in, 0, isl_dim_out, 0, 3));
    isl::Map shared(isl_map_apply_range(byProgram.copy(),
                                        isl_map_reverse(byProgram.copy())));
    isl::Map twoPrograms(isl_map_intersect_params(
        isl_map_subtract(shared.take(), isl_map_identity(isl_space_map_from_set(
                                            kp.setSpace(3).take()))),
        isl_set_subtract(kp.context.copy(), wrapSizes.copy())));
    // Uncovered elements.
    isl::Set uncovered(isl_set_intersect_params(
        isl_set_subtract(domain.copy(), isl_set_project_out(written->copy(),
                                                            isl_dim_set, 0, 3)),
        kp.context.copy()));
    isl::Set badSizes(isl_set_intersect(
        isl_set_union(isl_set_params(uncovered.copy()), wrapSizes.copy()),
        kp.context.copy()));
    isl::Set goodSizes(isl_set_subtract(kp.context.copy(), badSizes.copy()));
    isl::Set nonEmpty(isl_set_params(domain.copy()));
    isl::Set coveredNonEmpty(
        isl_set_intersect(goodSizes.copy(), nonEmpty.copy()));
    if (!twoPrograms || !uncovered || !coveredNonEmpty || ctx.failed()) {
      unprovable({first.getLoc(), "the proof ran out of its operation budget"});
      continue;
    }

    if (isl_map_is_empty(twoPrograms.get()) != isl_bool_true) {
      // Programs p and q, then an element both write.
      isl::Set pairs(isl_map_wrap(twoPrograms.copy()));
      isl::Point pt = kp.sample(pairs);
      isl::Set onePair(isl_set_from_point(pt.copy()));
      isl::Map pq(isl_set_unwrap(onePair.take()));
      isl::Set p(isl_map_domain(pq.copy())), q(isl_map_range(pq.take()));
      isl::Set elems(
          isl_set_intersect(isl_set_apply(p.copy(), byProgram.copy()),
                            isl_set_apply(q.copy(), byProgram.copy())));
      isl::Point e(isl_set_sample_point(elems.take()));
      first.emitError() << "programs (" << coords(pt, 0, 3) << ") and ("
                        << coords(pt, 3, 3) << ") both write element ["
                        << (e ? coords(e, 0, rank) : "?") << "] of tensor '"
                        << name << "'"
                        << (kp.paramValues(pairs, pt).empty()
                                ? ""
                                : " when " + kp.paramValues(pairs, pt))
                        << "; the result would depend on which runs last. "
                           "Give each program its own tiles";
      ok = false;
      continue;
    }
    if (isl_set_is_empty(coveredNonEmpty.get()) == isl_bool_true &&
        isl_set_is_empty(uncovered.get()) == isl_bool_true) {
      first.emitError() << "the box origins (tile size x coordinate) of "
                           "tensor '"
                        << name
                        << "' overflow i32 for every size that has elements; "
                           "check the tile coordinates";
      ok = false;
      continue;
    }
    if (isl_set_is_empty(coveredNonEmpty.get()) == isl_bool_true) {
      isl::Point pt = kp.sample(uncovered);
      first.emitError() << "the stores never cover tensor '" << name
                        << "': element [" << coords(pt, 0, rank)
                        << "] is written by no program when "
                        << kp.paramValues(uncovered, pt)
                        << "; check the grid and the tile coordinates";
      ok = false;
      continue;
    }
    entry.push_back(attrs.getNamedAttr(
        "stores", attrs.getI32IntegerAttr(int32_t(stores.size()))));
    if (isl_set_is_empty(badSizes.get()) != isl_bool_true) {
      // The sizes that are covered, as C, simplified knowing the context.
      isl::Set guard(isl_set_gist(goodSizes.copy(), kp.context.copy()));
      isl_ast_build *build = isl_ast_build_from_context(kp.context.copy());
      isl::AstExpr expr(isl_ast_build_expr_from_set(build, guard.take()));
      isl_ast_build_free(build);
      std::string c;
      std::optional<Sum> text = expr ? humanAst(expr.get()) : std::nullopt;
      if (!expr || !printAst(expr.get(), c) || !text) {
        unprovable({first.getLoc(), "the sizes it covers have no C form"});
        continue;
      }
      entry.push_back(attrs.getNamedAttr("guard", attrs.getStringAttr(c)));
      entry.push_back(
          attrs.getNamedAttr("when", attrs.getStringAttr(sumText(*text))));
    }
    entries.push_back(attrs.getDictionaryAttr(entry));
  }
  f->setAttr(kcc::KccDialect::kCoverageAttr, attrs.getArrayAttr(entries));
  return success(ok);
}

} // namespace
