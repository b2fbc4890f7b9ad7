//===- MLIRGenStatements.cpp - statements to kcc tile IR ------------------===//
//
// Blocks and their scopes, let and var declarations, assignments, and if and
// for as scf.if and scf.for that carry the mutable variables assigned inside
// them (MLIRGenEmitter.h).
//
//===----------------------------------------------------------------------===//
#include "frontend/MLIRGenEmitter.h"
#include "frontend/Sema.h"
#include "ir/SourceLocation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <set>

using namespace kcc::frontend;
using namespace kcc::frontend::detail;

void Gen::genBlock(const std::vector<StmtPtr> &stmts, bool newScope) {
  if (newScope)
    scopes.emplace_back();
  for (const StmtPtr &s : stmts)
    if (s)
      genStmt(*s);
  if (newScope)
    scopes.pop_back();
}

void Gen::genStmt(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Let:
    return genLet(s);
  case StmtKind::Assign:
    return genAssign(s);
  case StmtKind::ExprStmt:
    if (s.init->kind != ExprKind::Call) {
      error(s.init->loc, "expression result is unused; only calls such as "
                         "store(...) can be used as statements");
      return;
    }
    (void)gen(*s.init);
    return;
  case StmtKind::If:
    return genIf(s);
  case StmtKind::For:
    return genFor(s);
  case StmtKind::While:
    return genWhile(s);
  case StmtKind::Block:
    return genBlock(s.body);
  }
}

void Gen::genLet(const Stmt &s) {
  if (!s.init) { // syntax error earlier: declare poisoned
    declare(s.name, s.nameLoc, TV::poison(), s.isMutable);
    return;
  }
  TV val = gen(*s.init);
  Type annot;
  if (s.type) {
    annot = resolveType(*s.type, k, spec, ctx, diags);
    if (!annot)
      val = TV::poison();
  }
  if (val.ok()) {
    if (annot) {
      Value v = materialize(val, annot);
      if (v && elementType(v.getType()) != annot) {
        error(s.init->loc, "cannot initialize '" + s.name + "' of type " +
                               typeToString(annot) + " with a value of type " +
                               typeToString(v.getType()) +
                               (isPtrTy(annot) ? ""
                                               : "; convert it with cast(x, " +
                                                     typeToString(annot) + ")"));
        v = {};
      }
      val = v ? TV::value(v) : TV::poison();
    } else if (val.isLit() && !s.isMutable) {
      // immutable untyped literal: stays a (foldable, adoptable) constant
    } else {
      Value v = materialize(val);
      val = v ? TV::value(v) : TV::poison();
    }
  }
  declare(s.name, s.nameLoc, val, s.isMutable);
}

void Gen::genAssign(const Stmt &s) {
  Binding *bind = lookup(s.name);
  if (!bind) {
    std::string hint = closestName(s.name, visibleNames());
    error(s.nameLoc, "assignment to undeclared variable '" + s.name + "'" +
                         (hint.empty() ? "; declare it first with 'var " +
                                             s.name + " = ...'"
                                       : "; did you mean '" + hint + "'?"));
    return;
  }
  if (!bind->isMutable) {
    error(s.nameLoc, "cannot assign to '" + s.name +
                         "': it is immutable (declared with 'let' or a "
                         "parameter); declare it with 'var' to make it mutable");
    diags.note(bind->loc, "'" + s.name + "' is declared here");
    return;
  }
  TV rhs = gen(*s.init);
  if (!bind->val.ok() || !rhs.ok())
    return;
  if (s.isCompound)
    rhs = genBinary(s.compoundOp, bind->val, rhs, s.loc);
  if (!rhs.ok())
    return;
  Type varType = bind->val.getType();
  Value v = materialize(rhs, elementType(varType));
  if (!v)
    return;
  if (v.getType() != varType) {
    auto common = broadcastShapes(shapeOf(v.getType()), shapeOf(varType));
    if (elementType(v.getType()) == elementType(varType) && common &&
        llvm::ArrayRef<int64_t>(*common) == shapeOf(varType)) {
      v = broadcastTo(v, shapeOf(varType), loc(s.loc));
    } else {
      error(s.loc, "cannot assign a value of type " + typeToString(v.getType()) +
                       " to '" + s.name + "' of type " + typeToString(varType) +
                       "; a variable keeps the type of its declaration");
      return;
    }
  }
  bind->val = TV::value(v);
}

/// Mutable variables declared outside `bodies` and assigned inside them.
std::vector<std::pair<std::string, Binding *>>
Gen::carriedVars(const std::vector<const std::vector<StmtPtr> *> &bodies) {
  llvm::SetVector<std::string, std::vector<std::string>, std::set<std::string>> assigned;
  std::vector<std::set<std::string>> locals;
  std::function<void(const std::vector<StmtPtr> &)> walk =
      [&](const std::vector<StmtPtr> &stmts) {
        locals.emplace_back();
        for (const StmtPtr &s : stmts) {
          if (!s)
            continue;
          switch (s->kind) {
          case StmtKind::Let:
            locals.back().insert(s->name);
            break;
          case StmtKind::Assign: {
            bool local = false;
            for (auto &l : locals)
              local |= l.count(s->name) > 0;
            if (!local)
              assigned.insert(s->name);
            break;
          }
          case StmtKind::If:
            walk(s->body);
            walk(s->elseBody);
            break;
          case StmtKind::For:
            locals.push_back({s->name});
            walk(s->body);
            locals.pop_back();
            break;
          case StmtKind::While:
            walk(s->body);
            break;
          case StmtKind::Block:
            walk(s->body);
            break;
          case StmtKind::ExprStmt:
            break;
          }
        }
        locals.pop_back();
      };
  for (auto *body : bodies)
    walk(*body);
  std::vector<std::pair<std::string, Binding *>> out;
  for (const std::string &name : assigned) {
    Binding *bind = lookup(name);
    if (bind && bind->isMutable && bind->val.kind == TV::Val)
      out.push_back({name, bind});
  }
  return out;
}

void Gen::genIf(const Stmt &s) {
  if (!s.cond) { // a syntax error, reported; still check the branches
    genBlock(s.body);
    genBlock(s.elseBody);
    return;
  }
  TV c = gen(*s.cond);
  Value cond = materialize(c);
  if (!cond) {
    // still check the branches
    genBlock(s.body);
    genBlock(s.elseBody);
    return;
  }
  if (cond.getType() != b.getI1Type()) {
    error(s.cond->loc, "if condition must be a scalar i1 (a comparison), got " +
                           typeToString(cond.getType()) +
                           (mlir::isa<mlir::RankedTensorType>(cond.getType())
                                ? "; use where(cond, a, b) for tiles"
                                : "; compare it, e.g. x != 0"));
    return;
  }
  auto carried = carriedVars({&s.body, &s.elseBody});
  llvm::SmallVector<Type> types;
  llvm::SmallVector<Value> initial;
  for (auto &[name, bind] : carried) {
    types.push_back(bind->val.getType());
    initial.push_back(bind->val.v);
  }
  mlir::Location l = loc(s.loc);
  auto ifOp = scf::IfOp::create(b, l, types, cond, /*withElseRegion=*/true);
  auto genBranch = [&](mlir::Block *block, const std::vector<StmtPtr> &body) {
    for (size_t i = 0; i < carried.size(); ++i)
      carried[i].second->val = TV::value(initial[i]);
    b.setInsertionPointToStart(block);
    genBlock(body);
    llvm::SmallVector<Value> results;
    for (size_t i = 0; i < carried.size(); ++i) {
      Value v = carried[i].second->val.v;
      results.push_back(v && v.getType() == types[i] ? v : initial[i]);
    }
    yieldInto(block, results, l);
  };
  genBranch(&ifOp.getThenRegion().front(), s.body);
  genBranch(&ifOp.getElseRegion().front(), s.elseBody);
  b.setInsertionPointAfter(ifOp);
  for (size_t i = 0; i < carried.size(); ++i)
    carried[i].second->val = TV::value(ifOp.getResult(i));
  // A condition known at compile time (a constant parameter: `if CAUSAL ==
  // 1`) keeps only the branch it takes, as `if constexpr` would: both were
  // checked above, and the passes see straight-line code.
  mlir::BoolAttr known;
  if (!mlir::matchPattern(cond, mlir::m_Constant(&known))) {
    markLaunchGuard(s, ifOp);
    return;
  }
  mlir::Block *taken = known.getValue() ? &ifOp.getThenRegion().front()
                                        : &ifOp.getElseRegion().front();
  mlir::Operation *yield = taken->getTerminator();
  for (size_t i = 0; i < carried.size(); ++i) {
    ifOp.getResult(i).replaceAllUsesWith(yield->getOperand(i));
    carried[i].second->val = TV::value(yield->getOperand(i));
  }
  yield->erase();
  mlir::Block *block = ifOp->getBlock();
  auto next = std::next(ifOp->getIterator());
  block->getOperations().splice(ifOp->getIterator(), taken->getOperations());
  ifOp->erase();
  b.setInsertionPoint(block, next);
}

/// Whether `e` names what the host knows at launch, the same in every
/// program: an integer literal, an integer constant or scalar integer
/// parameter not shadowed by a local, or dim(x, k) of a tensor parameter.
bool Gen::isLaunchValue(const Expr &e) {
  auto isParam = [&](const std::string &name) {
    auto it = scopes.front().find(name);
    return it != scopes.front().end() && lookup(name) == &it->second;
  };
  switch (e.kind) {
  case ExprKind::IntLit:
    return !e.intTooLarge;
  case ExprKind::Ident: {
    if (!isParam(e.name))
      return false;
    const TV &v = lookup(e.name)->val;
    if (v.kind == TV::IntLit)
      return true;
    Type t = v.kind == TV::Val ? v.getType() : Type();
    return isIntTy(t) && !t.isInteger(1) && mlir::isa<mlir::BlockArgument>(v.v);
  }
  case ExprKind::Call:
    if (e.name != "dim" || e.args.size() != 2 || !e.args[0].keyword.empty() ||
        !e.args[1].keyword.empty() ||
        e.args[0].value->kind != ExprKind::Ident ||
        e.args[1].value->kind != ExprKind::IntLit ||
        !isParam(e.args[0].value->name))
      return false;
    return lookup(e.args[0].value->name)->val.kind == TV::Tensor &&
           !e.args[1].value->intTooLarge &&
           int64_t(e.args[1].value->intValue) <
               lookup(e.args[0].value->name)->val.rank;
  default:
    return false;
  }
}

/// Whether `e` is a condition the host can evaluate at launch exactly as
/// the kernel does: launch values compared, joined by && || !. Arithmetic
/// is left out (32-bit in the kernel, 64-bit in C). `leaves` bounds it.
bool Gen::isLaunchCondition(const Expr &e, unsigned &leaves) {
  if (e.kind == ExprKind::Unary && e.unOp == UnOp::Not)
    return isLaunchCondition(*e.lhs, leaves);
  if (e.kind != ExprKind::Binary)
    return false;
  switch (e.binOp) {
  case BinOp::AndAnd:
  case BinOp::OrOr:
    return isLaunchCondition(*e.lhs, leaves) &&
           isLaunchCondition(*e.rhs, leaves);
  case BinOp::Eq:
  case BinOp::Ne:
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge:
    leaves += 2;
    return leaves <= 16 && isLaunchValue(*e.lhs) && isLaunchValue(*e.rhs);
  default:
    return false;
  }
}

/// Marks an `if` at the top of the kernel body whose condition the host can
/// evaluate (kcc.launch_guard): kcc-version-launch-branches compiles each
/// branch of the first one worth it as its own build, and the launch picks.
void Gen::markLaunchGuard(const Stmt &s, scf::IfOp ifOp) {
  unsigned leaves = 0;
  if (!s.cond || !mlir::isa<mlir::func::FuncOp>(ifOp->getParentOp()) ||
      !isLaunchCondition(*s.cond, leaves))
    return;
  std::optional<std::string> guard = conditionToC(k, spec, ctx, diags, *s.cond);
  if (!guard)
    return;
  std::string at = kcc::sourceLocationText(loc(s.loc), /*baseName=*/true);
  ifOp->setAttr(
      kcc::KccDialect::kLaunchGuardAttr,
      b.getDictionaryAttr({b.getNamedAttr("guard", b.getStringAttr(*guard)),
                           b.getNamedAttr("when", b.getStringAttr(s.condText)),
                           b.getNamedAttr("at", b.getStringAttr(at))}));
}

void Gen::genFor(const Stmt &s) {
  std::vector<TV> args;
  for (const ExprPtr &a : s.rangeArgs)
    args.push_back(gen(*a));
  std::vector<const TV *> ptrs;
  for (const TV &a : args) {
    if (!a.ok())
      return;
    ptrs.push_back(&a);
  }
  if (args.size() == 3 && args[2].kind == TV::IntLit && args[2].i <= 0) {
    error(args[2].loc, "range step must be positive, got " +
                           std::to_string(args[2].i));
    return;
  }
  Type elem = adoptedElem(ptrs);
  llvm::SmallVector<Value> vals;
  for (size_t i = 0; i < args.size(); ++i) {
    Value v = materialize(args[i], elem);
    if (!v)
      return;
    if (v.getType() != elem || !isIntTy(elem) || elem.isInteger(1)) {
      error(s.rangeArgs[i]->loc,
            "range bounds must be scalar integers of one type; got " +
                typeToString(v.getType()) +
                (isIntTy(elem) ? " where " + typeToString(elem) +
                                     " was expected; use cast(x, " +
                                     typeToString(elem) + ")"
                               : ""));
      return;
    }
    vals.push_back(v);
  }
  mlir::Location l = loc(s.loc);
  Value step = vals.size() == 3 ? vals[2] : constant(elem, 0, 1, false, l);
  auto carried = carriedVars({&s.body});
  llvm::SmallVector<Value> initial;
  for (auto &[name, bind] : carried)
    initial.push_back(bind->val.v);
  auto forOp = scf::ForOp::create(b, l, vals[0], vals[1], step, initial);
  mlir::Block *body = forOp.getBody();
  for (size_t i = 0; i < carried.size(); ++i)
    carried[i].second->val = TV::value(forOp.getRegionIterArgs()[i]);
  b.setInsertionPointToStart(body);
  scopes.emplace_back();
  scopes.back()[s.name] =
      Binding{TV::value(forOp.getInductionVar()), false, s.nameLoc};
  genBlock(s.body, /*newScope=*/true);
  scopes.pop_back();
  llvm::SmallVector<Value> results;
  for (size_t i = 0; i < carried.size(); ++i) {
    Value v = carried[i].second->val.v;
    results.push_back(v && v.getType() == initial[i].getType()
                          ? v
                          : Value(forOp.getRegionIterArgs()[i]));
  }
  yieldInto(body, results, l);
  b.setInsertionPointAfter(forOp);
  for (size_t i = 0; i < carried.size(); ++i)
    carried[i].second->val = TV::value(forOp.getResult(i));
}

/// `while cond { body }` as scf.while: the condition is computed in the
/// before region from the variables the body assigns, the body in the after
/// region. Every thread of a program runs the loop the same number of times
/// only if they all see the same condition, so it must not read memory
/// other programs write with a plain load (threads may see different
/// values); a scalar atomic is the program's (docs/language.md, Atomics).
void Gen::genWhile(const Stmt &s) {
  if (!s.cond) // a syntax error, reported
    return;
  mlir::Location l = loc(s.loc);
  auto carried = carriedVars({&s.body});
  llvm::SmallVector<Type> types;
  llvm::SmallVector<Value> initial;
  for (auto &[name, bind] : carried) {
    if (mlir::isa<mlir::RankedTensorType>(bind->val.getType())) {
      error(s.loc, "a while loop may carry scalars only, but '" + name +
                       "' is a tile of type " +
                       typeToString(bind->val.getType()) +
                       "; use a for loop over a bound, or keep the tile's "
                       "update outside the loop");
      return;
    }
    types.push_back(bind->val.getType());
    initial.push_back(bind->val.v);
  }
  llvm::SmallVector<mlir::Location> locs(types.size(), l);
  auto whileOp = scf::WhileOp::create(b, l, types, initial);
  mlir::Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
  for (size_t i = 0; i < carried.size(); ++i)
    carried[i].second->val = TV::value(before->getArgument(i));
  b.setInsertionPointToStart(before);
  Value cond = materialize(gen(*s.cond));
  if (cond && cond.getType() != b.getI1Type()) {
    error(s.cond->loc,
          "while condition must be a scalar i1 (a comparison), got " +
              typeToString(cond.getType()) +
              (mlir::isa<mlir::RankedTensorType>(cond.getType())
                   ? "; reduce the tile first, e.g. max(t) > 0"
                   : "; compare it, e.g. x != 0"));
    cond = Value();
  }
  if (!cond)
    cond = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
  scf::ConditionOp::create(b, l, cond, before->getArguments());
  mlir::Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
  for (size_t i = 0; i < carried.size(); ++i)
    carried[i].second->val = TV::value(after->getArgument(i));
  b.setInsertionPointToStart(after);
  genBlock(s.body, /*newScope=*/true);
  llvm::SmallVector<Value> results;
  for (size_t i = 0; i < carried.size(); ++i) {
    Value v = carried[i].second->val.v;
    results.push_back(
        v && v.getType() == types[i] ? v : Value(after->getArgument(i)));
  }
  yieldInto(after, results, l);
  b.setInsertionPointAfter(whileOp);
  for (size_t i = 0; i < carried.size(); ++i)
    carried[i].second->val = TV::value(whileOp.getResult(i));
  checkUniformCondition(whileOp);
}

/// Refuses a while loop whose condition depends on a plain scalar load made
/// inside the loop (through the values the loop carries).
void Gen::checkUniformCondition(scf::WhileOp whileOp) {
  mlir::Block &before = whileOp.getBefore().front();
  mlir::Block &after = whileOp.getAfter().front();
  llvm::SmallVector<Value> work{whileOp.getConditionOp().getCondition()};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(v)) {
      // Carried values: the before block's come from the body's yield, the
      // body's from the condition's forwarded values.
      if (arg.getOwner() == &before)
        work.push_back(after.getTerminator()->getOperand(arg.getArgNumber()));
      else if (arg.getOwner() == &after)
        work.push_back(whileOp.getConditionOp().getArgs()[arg.getArgNumber()]);
      continue;
    }
    mlir::Operation *def = v.getDefiningOp();
    if (!def || !whileOp->isProperAncestor(def))
      continue;
    if (auto load = mlir::dyn_cast<kcc::LoadOp>(def);
        load && !mlir::isa<mlir::RankedTensorType>(load.getType())) {
      error(diagLoc(load.getLoc()),
            "this load decides when the while loop ends, but the threads of "
            "a program may read different values of memory that other "
            "programs write, and leave the loop at different times; read it "
            "with a scalar atomic, which is the program's: atomic_add(p, 0, "
            "order=acquire)");
      return;
    }
    for (Value operand : def->getOperands())
      work.push_back(operand);
    for (mlir::Region &r : def->getRegions())
      r.walk([&](mlir::Operation *inner) {
        if (mlir::isa<scf::YieldOp>(inner))
          for (Value operand : inner->getOperands())
            work.push_back(operand);
      });
  }
}
