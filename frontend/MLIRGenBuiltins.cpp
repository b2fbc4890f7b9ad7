//===- MLIRGen.cpp - checked kernels to kcc tile IR -----------------------===//
#include "frontend/MLIRGen.h"

#include "ir/Dialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <set>

using namespace kcc::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;
using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;
namespace math = mlir::math;
namespace scf = mlir::scf;

namespace {

/// The result of an expression: an SSA value, an untyped literal (which
/// adopts the type of the other operand when used), a type (dtype), a list
/// (shape argument) or poison (an error was already reported).
struct TV {
  /// Tensor: a tensor parameter; `v` is its base pointer and `list` its
  /// sizes then strides (i32 values), `rank` its rank.
  enum Kind { Poison, Val, IntLit, FloatLit, TypeVal, List, Void, Tensor };
  Kind kind = Poison;
  int64_t rank = 0;
  Value v;
  int64_t i = 0;
  double f = 0;
  Type litDefault; // IntLit: i32, or i64 for an i64 constant parameter
  Type type;       // TypeVal
  std::vector<TV> list;
  SMLoc loc;

  static TV poison() { return TV(); }
  static TV value(Value v) {
    TV t;
    t.kind = Val;
    t.v = v;
    return t;
  }
  bool isLit() const { return kind == IntLit || kind == FloatLit; }
  bool ok() const { return kind != Poison; }
  Type getType() const { return v ? v.getType() : Type(); }
};

struct Binding {
  TV val;
  bool isMutable = false;
  SMLoc loc;
};

const char *kBuiltinNames[] = {
    "program_id", "num_programs", "arange", "zeros", "full", "load", "store",
    "load_tile", "store_tile", "dim", "trans",
    "where", "cast", "exp", "exp2", "log", "sqrt", "rsqrt", "abs", "min", "max",
    "sum", "fma", "dot", "cdiv"};

bool isFloatTy(Type t) { return t && mlir::isa<mlir::FloatType>(t); }
bool isIntTy(Type t) { return t && mlir::isa<mlir::IntegerType>(t); }
bool isPtrTy(Type t) { return t && mlir::isa<kcc::PtrType>(t); }

class Gen {
public:
  Gen(const CheckedKernel &ck, size_t specIdx, mlir::ModuleOp module,
      Diagnostics &diags)
      : ck(ck), k(*ck.kernel), spec(ck.specs[specIdx]), specIdx(specIdx),
        module(module), diags(diags), ctx(*module.getContext()), b(&ctx) {}

  void run();

private:
  // --- diagnostics and locations --------------------------------------------
  void error(SMLoc loc, const Twine &msg) {
    if (diags.error(loc, msg) && ck.specs.size() > 1 && !notedSpec) {
      notedSpec = true;
      std::string desc;
      for (size_t i = 0; i < k.constParams.size(); ++i)
        desc += (i ? ", " : "") + k.constParams[i].name + " = " +
                (spec.values[i].kind == ConstVal::Type
                     ? typeToString(spec.values[i].type)
                     : spec.values[i].kind == ConstVal::Bool
                           ? (spec.values[i].boolValue ? "true" : "false")
                           : std::to_string(spec.values[i].intValue));
      diags.note(k.loc, "while compiling specialization " +
                            ck.funcName(specIdx) + " (" + desc + ")");
    }
  }
  mlir::Location loc(SMLoc l) {
    llvm::SourceMgr &sm = diags.sourceMgr();
    if (!l.isValid())
      return b.getUnknownLoc();
    unsigned id = sm.FindBufferContainingLoc(l);
    if (!id)
      return b.getUnknownLoc();
    auto [line, col] = sm.getLineAndColumn(l, id);
    return mlir::FileLineColLoc::get(
        &ctx, sm.getMemoryBuffer(id)->getBufferIdentifier(), line, col);
  }

  // --- scopes ------------------------------------------------------------------
  Binding *lookup(const std::string &name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end())
        return &f->second;
    }
    return nullptr;
  }
  std::vector<std::string> visibleNames() {
    std::vector<std::string> names;
    for (auto &s : scopes)
      for (auto &[n, _] : s)
        names.push_back(n);
    return names;
  }
  void declare(const std::string &name, SMLoc l, TV val, bool isMutable) {
    auto &scope = scopes.back();
    auto it = scope.find(name);
    if (it != scope.end()) {
      error(l, "redeclaration of '" + name + "' in the same scope; use a new "
               "name, or assign with '" + name + " = ...' if it is a var");
      diags.note(it->second.loc, "previous declaration is here");
      return;
    }
    scope[name] = Binding{std::move(val), isMutable, l};
  }

  // --- values ------------------------------------------------------------------
  Value constant(Type elem, double fv, int64_t iv, bool isFloat,
                 mlir::Location l) {
    mlir::TypedAttr attr;
    if (isFloatTy(elem))
      attr = b.getFloatAttr(elem, isFloat ? fv : double(iv));
    else
      attr = b.getIntegerAttr(elem, iv);
    return arith::ConstantOp::create(b, l, attr);
  }
  /// A constant of `type` (scalar or tile via splat).
  Value constantLike(Type type, double fv, int64_t iv, bool isFloat,
                     mlir::Location l) {
    Value c = constant(elementType(type), fv, iv, isFloat, l);
    if (auto t = mlir::dyn_cast<mlir::RankedTensorType>(type))
      return kcc::SplatOp::create(b, l, t, c);
    return c;
  }
  /// Turns `tv` into an SSA value; untyped literals take `hint` (an element
  /// type) if given, else their default type.
  Value materialize(const TV &tv, Type hint = Type()) {
    switch (tv.kind) {
    case TV::Poison:
      return {};
    case TV::Val:
      return tv.v;
    case TV::IntLit: {
      Type t = hint ? hint : tv.litDefault;
      if (!t)
        t = b.getI32Type();
      if (isPtrTy(t))
        t = b.getI32Type();
      if (t.isInteger(1)) {
        error(tv.loc, "integer literal " + std::to_string(tv.i) +
                          " cannot be used as i1; use true or false");
        return {};
      }
      if (isIntTy(t) && !intFitsWidth(tv.i, t.getIntOrFloatBitWidth())) {
        error(tv.loc, "integer literal " + std::to_string(tv.i) +
                          " is out of range for " + typeToString(t));
        return {};
      }
      if (isFloatTy(t) && !floatFitsType(double(tv.i), t)) {
        error(tv.loc, "literal " + std::to_string(tv.i) +
                          " is out of range for " + typeToString(t));
        return {};
      }
      return constant(t, 0, tv.i, false, loc(tv.loc));
    }
    case TV::FloatLit: {
      Type t = hint ? hint : Type(b.getF32Type());
      if (!isFloatTy(t)) {
        error(tv.loc, "float literal cannot be used as " + typeToString(t) +
                          "; write an integer literal or use cast(x, " +
                          typeToString(t) + ")");
        return {};
      }
      if (!floatFitsType(tv.f, t)) {
        error(tv.loc, "float literal is out of range for " + typeToString(t) +
                          " (it would become inf); write inf, or use a wider "
                          "type such as " +
                          (t.isF32() ? "f64" : "f32"));
        return {};
      }
      return constant(t, tv.f, 0, true, loc(tv.loc));
    }
    case TV::TypeVal:
      error(tv.loc, "type '" + typeToString(tv.type) +
                        "' used where a value is expected");
      return {};
    case TV::List:
      error(tv.loc, "a list [...] is only allowed as the shape argument of "
                    "zeros/full");
      return {};
    case TV::Void:
      error(tv.loc, "store(...) has no value");
      return {};
    case TV::Tensor:
      error(tv.loc, "a tensor is not a value; use load_tile(x, [shape], "
                    "[coords]), store_tile(x, [coords], tile) or dim(x, axis)");
      return {};
    }
    return {};
  }
  Value broadcastTo(Value v, llvm::ArrayRef<int64_t> shape, mlir::Location l) {
    Type t = v.getType();
    if (shape.empty() || shapeOf(t) == shape)
      return v;
    Type elem = elementType(t);
    if (!mlir::isa<mlir::RankedTensorType>(t))
      return kcc::SplatOp::create(b, l, mlir::RankedTensorType::get(shape, elem),
                                  v);
    llvm::SmallVector<int64_t> cur(shapeOf(t));
    while (cur.size() < shape.size()) {
      cur.insert(cur.begin(), 1);
      v = kcc::ExpandDimsOp::create(b, l, mlir::RankedTensorType::get(cur, elem),
                                    v, uint32_t(0));
    }
    if (llvm::ArrayRef<int64_t>(cur) != shape)
      v = kcc::BroadcastOp::create(b, l, mlir::RankedTensorType::get(shape, elem),
                                   v);
    return v;
  }
  /// Broadcasts the shapes of several values; reports an error naming them.
  std::optional<llvm::SmallVector<int64_t>>
  commonShape(llvm::ArrayRef<Value> vals, SMLoc l, StringRef what) {
    llvm::SmallVector<int64_t> shape;
    for (Value v : vals) {
      if (!v)
        continue;
      auto s = broadcastShapes(shape, shapeOf(v.getType()));
      if (!s) {
        std::string shapes;
        for (Value w : vals)
          if (w)
            shapes += (shapes.empty() ? "" : " and ") +
                      shapeToString(shapeOf(w.getType()));
        error(l, "cannot broadcast shapes " + shapes + " in " + what +
                     "; dimensions must be equal or 1 (use t[:, None] or "
                     "t[None, :] to add a unit dimension)");
        return std::nullopt;
      }
      shape = *s;
    }
    if (shape.size() > 2) {
      error(l, "tiles of rank " + std::to_string(shape.size()) +
                   " are not supported (rank 1 or 2 in v0)");
      return std::nullopt;
    }
    return shape;
  }
  /// Picks the element type untyped literals among `tvs` should adopt.
  Type adoptedElem(llvm::ArrayRef<const TV *> tvs) {
    for (const TV *t : tvs)
      if (t->kind == TV::Val)
        return elementType(t->getType());
    for (const TV *t : tvs)
      if (t->kind == TV::FloatLit)
        return b.getF32Type();
    for (const TV *t : tvs)
      if (t->kind == TV::IntLit && t->litDefault)
        return t->litDefault;
    return b.getI32Type();
  }

  // --- expressions
  // ------------------------------------------------------------
  /// Every value carries the location of the expression that made it, so
  /// later checks (coordinates, operands) can point at it.
  TV gen(const Expr &e) {
    TV t = genExpr(e);
    if (!t.loc.isValid())
      t.loc = e.loc;
    return t;
  }
  TV genExpr(const Expr &e);
  TV genBinary(BinOp op, TV a, TV bv, SMLoc l);
  TV genUnary(const Expr &e);
  TV genCall(const Expr &e);
  /// load_tile, store_tile and dim on tensor parameters.
  TV genTileBuiltin(const Expr &e, const std::vector<const Expr *> &pos);
  /// A compile-time tile shape (a list of powers of two, rank 1 or 2).
  std::optional<llvm::SmallVector<int64_t>> tileShape(const TV &arg, SMLoc at,
                                                      StringRef what);
  TV genIndex(const Expr &e);
  std::optional<int64_t> genConstInt(const Expr &e, StringRef what);

  /// group(N): the func's kcc.raster_group and, at the top of the body, the
  /// grid extents and the kcc.program_grid marker that hands them to
  /// kcc-rasterize-programs.
  bool genProgramGrid(mlir::func::FuncOp func);

  // --- statements ----------------------------------------------------------------
  void genBlock(const std::vector<StmtPtr> &stmts, bool newScope = true);
  void genStmt(const Stmt &s);
  void genLet(const Stmt &s);
  void genAssign(const Stmt &s);
  void genIf(const Stmt &s);
  void genFor(const Stmt &s);
  std::vector<std::pair<std::string, Binding *>>
  carriedVars(const std::vector<const std::vector<StmtPtr> *> &bodies);
  void yieldInto(mlir::Block *block, llvm::ArrayRef<Value> vals,
                 mlir::Location l) {
    if (!block->empty() &&
        block->back().hasTrait<mlir::OpTrait::IsTerminator>())
      block->back().erase();
    b.setInsertionPointToEnd(block);
    scf::YieldOp::create(b, l, vals);
  }

  const CheckedKernel &ck;
  const Kernel &k;
  const Specialization &spec;
  size_t specIdx;
  mlir::ModuleOp module;
  Diagnostics &diags;
  mlir::MLIRContext &ctx;
  mlir::OpBuilder b;
  std::deque<std::map<std::string, Binding>> scopes;
  bool notedSpec = false;
};

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

void Gen::run() {
  unsigned errorsBefore = diags.numErrors();
  llvm::SmallVector<Type> argTypes;
  bool ok = true;
  // Argument index of each parameter (a tensor adds its sizes and strides
  // after its base pointer), and every argument's name.
  std::vector<unsigned> firstArg;
  std::vector<std::string> names;
  for (const Param &p : k.params) {
    Type t = p.type ? resolveType(*p.type, k, spec, ctx, diags) : Type();
    if (!t) {
      ok = false;
      t = b.getI32Type();
    }
    firstArg.push_back(argTypes.size());
    argTypes.push_back(t);
    names.push_back(p.name);
    if (p.type && p.type->isTensor)
      for (std::string &part : tensorPartNames(p.name, p.type->rank)) {
        argTypes.push_back(b.getI32Type());
        names.push_back(std::move(part));
      }
  }
  llvm::SmallVector<StringRef> argNames(names.begin(), names.end());
  std::array<std::string, 3> grid;
  if (!gridToC(k, spec, ctx, diags, grid))
    ok = false;

  b.setInsertionPointToEnd(module.getBody());
  auto func = mlir::func::FuncOp::create(b, loc(k.loc), ck.funcName(specIdx),
                                         b.getFunctionType(argTypes, {}));
  func->setAttr(kcc::KccDialect::kKernelAttr, b.getUnitAttr());
  func->setAttr(kcc::KccDialect::kBaseNameAttr, b.getStringAttr(k.name));
  llvm::SmallVector<mlir::NamedAttribute> specAttrs;
  for (size_t i = 0; i < k.constParams.size(); ++i) {
    const ConstVal &v = spec.values[i];
    mlir::Attribute a;
    if (v.kind == ConstVal::Int)
      a = b.getIntegerAttr(k.constParams[i].kindName == "i64" ? b.getI64Type()
                                                              : b.getI32Type(),
                           v.intValue);
    else if (v.kind == ConstVal::Bool)
      a = b.getBoolAttr(v.boolValue);
    else
      a = mlir::TypeAttr::get(v.type);
    specAttrs.push_back(b.getNamedAttr(k.constParams[i].name, a));
  }
  func->setAttr(kcc::KccDialect::kSpecializationAttr,
                b.getDictionaryAttr(specAttrs));
  // Dictionaries sort their keys; stubs and manifests want source order.
  llvm::SmallVector<StringRef> constNames;
  for (const auto &c : k.constParams)
    constNames.push_back(c.name);
  func->setAttr(kcc::KccDialect::kConstantNamesAttr,
                b.getStrArrayAttr(constNames));
  func->setAttr(kcc::KccDialect::kGridAttr,
                b.getStrArrayAttr({grid[0], grid[1], grid[2]}));
  func->setAttr(kcc::KccDialect::kArgNamesAttr, b.getStrArrayAttr(argNames));
  for (size_t pi = 0; pi < k.params.size(); ++pi) {
    unsigned i = firstArg[pi];
    const Param &p = k.params[pi];
    if (p.type && p.type->isTensor && ok) {
      // The tensor contract (checked by the stub at launch; TMA requires it):
      // the base is 16-byte aligned and every stride is a multiple of 16
      // bytes, which also lets the fallback path use vector accesses.
      Type elem = mlir::cast<kcc::PtrType>(argTypes[i]).getPointeeType();
      int64_t elemBytes = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
      int64_t align = 16;
      for (const Fact &f : p.facts)
        if (f.kind == Fact::Align)
          align = std::max(align, f.value);
      func.setArgAttr(i, kcc::KccDialect::kAlignAttr,
                      b.getI64IntegerAttr(align));
      func.setArgAttr(i, kcc::KccDialect::kTensorRankAttr,
                      b.getI32IntegerAttr(p.type->rank));
      for (int64_t d = 0; d + 1 < p.type->rank; ++d)
        func.setArgAttr(i + p.type->rank + 1 + d,
                        kcc::KccDialect::kDivisibilityAttr,
                        b.getI64IntegerAttr(16 / elemBytes));
      continue;
    }
    for (const Fact &f : p.facts) {
      if (f.kind == Fact::Align && isPtrTy(argTypes[i]))
        func.setArgAttr(i, kcc::KccDialect::kAlignAttr,
                        b.getI64IntegerAttr(f.value));
      if (f.kind == Fact::MultipleOf && isIntTy(argTypes[i]) &&
          !argTypes[i].isInteger(1))
        func.setArgAttr(i, kcc::KccDialect::kDivisibilityAttr,
                        b.getI64IntegerAttr(f.value));
      else if (f.kind == Fact::MultipleOf && !isIntTy(argTypes[i]) && ok) {
        error(f.loc, "multiple_of applies to integer parameters, but '" +
                         p.name + "' has type " +
                         typeToString(argTypes[i]) + " here");
      }
    }
  }

  mlir::Block *entry = func.addEntryBlock();
  // Arguments point at their declarations, for errors about a parameter.
  for (size_t pi = 0; pi < k.params.size(); ++pi) {
    size_t end = pi + 1 < k.params.size() ? firstArg[pi + 1] : argTypes.size();
    for (size_t i = firstArg[pi]; i < end; ++i)
      entry->getArgument(i).setLoc(loc(k.params[pi].loc));
  }
  b.setInsertionPointToStart(entry);
  scopes.clear();
  scopes.emplace_back();
  for (size_t i = 0; i < k.constParams.size(); ++i) {
    const ConstParam &cp = k.constParams[i];
    const ConstVal &v = spec.values[i];
    TV tv;
    tv.loc = cp.loc;
    if (v.kind == ConstVal::Int) {
      tv.kind = TV::IntLit;
      tv.i = v.intValue;
      tv.litDefault = cp.kindName == "i64" ? b.getI64Type() : b.getI32Type();
    } else if (v.kind == ConstVal::Bool) {
      tv = TV::value(arith::ConstantOp::create(b, loc(cp.loc),
                                               b.getBoolAttr(v.boolValue)));
    } else {
      tv.kind = TV::TypeVal;
      tv.type = v.type;
    }
    scopes.back()[cp.name] = Binding{tv, false, cp.loc};
  }
  for (size_t pi = 0; pi < k.params.size(); ++pi) {
    const Param &p = k.params[pi];
    TV tv = TV::value(entry->getArgument(firstArg[pi]));
    if (p.type && p.type->isTensor) {
      tv.kind = TV::Tensor;
      tv.rank = p.type->rank;
      for (int64_t j = 0; j < 2 * p.type->rank - 1; ++j)
        tv.list.push_back(TV::value(entry->getArgument(firstArg[pi] + 1 + j)));
    }
    scopes.back()[p.name] = Binding{tv, false, p.loc};
  }
  if (ok && k.hasGroup)
    ok = genProgramGrid(func);
  if (ok)
    genBlock(k.body, /*newScope=*/true);
  b.setInsertionPointToEnd(entry);
  // Statements may have moved the insertion point into nested regions; the
  // return goes at the end of the entry block.
  mlir::func::ReturnOp::create(b, loc(k.bodyEndLoc));
  (void)errorsBefore;
}

bool Gen::genProgramGrid(mlir::func::FuncOp func) {
  std::optional<int64_t> n = groupSize(k, spec);
  if (!n || *n < 1 || *n > INT32_MAX) {
    error(k.group->loc, "group size must be a positive i32, but '" +
                            k.group->name + "' is " +
                            (n ? std::to_string(*n) : "not an integer") +
                            " in this specialization; give it a value >= 1");
    return false;
  }
  func->setAttr(kcc::ProgramGridOp::kRasterGroupAttr,
                b.getI32IntegerAttr(int32_t(*n)));
  // The extents are computed in the kernel like any body expression (grid
  // expressions only use integer parameters, dim, literals and + - * / %,
  // cdiv, min, max), as the i32 values num_programs returns. The host
  // evaluates them as untyped C (int64_t), so a grid may mix i32 and i64
  // parameters: here each integer parameter it names reads as i32.
  std::set<std::string> names;
  std::function<void(const Expr &)> collect = [&](const Expr &e) {
    if (e.kind == ExprKind::Ident)
      names.insert(e.name);
    for (const ExprPtr *sub : {&e.lhs, &e.rhs})
      if (*sub)
        collect(**sub);
    for (const CallArg &a : e.args)
      if (a.value)
        collect(*a.value);
  };
  // A third axis (a batch) too: a persistent build computes the batch of
  // each tile from it.
  unsigned axes = k.grid.size() > 2 && k.grid[2] ? 3 : 2;
  for (unsigned axis = 0; axis < axes; ++axis)
    collect(*k.grid[axis]);
  scopes.emplace_back();
  for (const std::string &name : names) {
    Binding *bound = lookup(name);
    Type t =
        bound && bound->val.kind == TV::Val ? bound->val.getType() : Type();
    if (!isIntTy(t) || t.isInteger(1) || t.isInteger(32))
      continue;
    mlir::Location l = loc(bound->loc);
    Value v =
        t.getIntOrFloatBitWidth() > 32
            ? Value(arith::TruncIOp::create(b, l, b.getI32Type(), bound->val.v))
            : Value(arith::ExtSIOp::create(b, l, b.getI32Type(), bound->val.v));
    scopes.back()[name] = Binding{TV::value(v), false, bound->loc};
  }
  Value extents[3];
  for (unsigned axis = 0; axis < axes; ++axis) {
    const Expr &e = *k.grid[axis];
    extents[axis] = materialize(gen(e), b.getI32Type());
    if (!extents[axis] || !extents[axis].getType().isInteger(32)) {
      if (extents[axis]) // gridToC accepted it: not expected
        error(e.loc, "grid expression has type " +
                         typeToString(extents[axis].getType()) +
                         "; group(N) needs an i32");
      scopes.pop_back();
      return false;
    }
  }
  scopes.pop_back();
  kcc::ProgramGridOp::create(b, loc(k.groupLoc), extents[0], extents[1],
                             extents[2], uint32_t(*n));
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Builtin calls
//===----------------------------------------------------------------------===//

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
    if (d.i <= 0 || !llvm::isPowerOf2_64(uint64_t(d.i))) {
      error(at, "tile dimension " + std::to_string(d.i) +
                    " is not a power of two");
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
  bool isLoad = name == "load_tile";
  const char *forms = name == "dim" ? "dim(tensor, axis)"
                      : isLoad
                          ? "load_tile(tensor, [rows, cols], [i, j]), "
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
      error(c.loc, "block coordinates are i32 scalars, got " +
                       typeToString(v.getType()));
      return TV::poison();
    }
    coords.push_back(v);
  }

  if (isLoad) {
    TV shapeTV = gen(*pos[1]);
    if (!shapeTV.ok())
      return TV::poison();
    auto shape = tileShape(shapeTV, pos[1]->loc, "load_tile");
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
    return TV::value(kcc::LoadTileOp::create(
        b, l, mlir::RankedTensorType::get(*shape, elem), t.v, dims(),
        strides(), coords, other));
  }

  TV valTV = gen(*pos[2]);
  if (!valTV.ok())
    return TV::poison();
  Value val = materialize(valTV, elem);
  if (!val)
    return TV::poison();
  auto tile = mlir::dyn_cast<mlir::RankedTensorType>(val.getType());
  if (!tile || tile.getRank() != std::min<int64_t>(t.rank, 2)) {
    error(pos[2]->loc, "store_tile stores a tile of rank " +
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
  kcc::StoreTileOp::create(b, l, val, t.v, dims(), strides(), coords);
  TV none;
  none.kind = TV::Void;
  none.loc = e.loc;
  return none;
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

  if (name == "load_tile" || name == "store_tile" || name == "dim")
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
    if (n <= 0 || !llvm::isPowerOf2_64(uint64_t(n)) || n > (1 << 20)) {
      error(e.loc, "arange(" + std::to_string(*start) + ", " +
                       std::to_string(*end) + ") has " + std::to_string(n) +
                       " elements; the size end - start must be a power of "
                       "two between 1 and 2^20 (round up, e.g. to " +
                       std::to_string(n > 0 && n <= (1 << 20)
                                          ? int64_t(llvm::PowerOf2Ceil(n))
                                          : int64_t(1024)) +
                       ", and mask the extra lanes)");
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
    Value p = materialize(args[0]);
    if (!p)
      return TV::poison();
    if (!isPtrTy(elementType(p.getType()))) {
      error(pos[0]->loc, "the first argument of " + name +
                             " must be a pointer or a tile of pointers, got " +
                             typeToString(p.getType()));
      return TV::poison();
    }
    Type pointee = mlir::cast<kcc::PtrType>(elementType(p.getType()))
                       .getPointeeType();
    size_t maskIdx = isLoad ? 1 : 2;
    Value mask, val;
    if (args.size() > maskIdx) {
      mask = materialize(args[maskIdx]);
      if (!mask)
        return TV::poison();
      if (!elementType(mask.getType()).isInteger(1)) {
        error(pos[maskIdx]->loc, "the mask of " + name +
                                     " must be i1 (e.g. offs < n), got " +
                                     typeToString(mask.getType()));
        return TV::poison();
      }
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
                         "(i1 i8 i16 i32 i64 f16 bf16 f32 f64 or a dtype "
                         "parameter)");
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

  if (name == "exp" || name == "exp2" || name == "log" || name == "sqrt" ||
      name == "rsqrt" || name == "abs") {
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
    for (auto &a : args)
      ptrs.push_back(&a);
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
    if (ta.getElementType() != tb.getElementType()) {
      error(e.loc, "dot operands have different element types " +
                       typeToString(ta.getElementType()) + " and " +
                       typeToString(tb.getElementType()));
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

  // Unknown function.
  std::vector<std::string> names(std::begin(kBuiltinNames),
                                 std::end(kBuiltinNames));
  std::string hint = closestName(name, names);
  error(e.loc, "unknown function '" + name + "'" +
                   (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  return TV::poison();
}

} // namespace

void kcc::frontend::emitKernels(const std::vector<CheckedKernel> &kernels,
                                mlir::ModuleOp module, Diagnostics &diags) {
  // Specialized names (k_1024_f32) can equal another kernel's name; two
  // functions of one name would make the module invalid.
  std::map<std::string, const Kernel *> names;
  for (const CheckedKernel &ck : kernels)
    for (size_t i = 0; i < ck.specs.size(); ++i) {
      std::string name = ck.funcName(i);
      auto [it, inserted] = names.insert({name, ck.kernel});
      if (!inserted) {
        const Kernel &other = *it->second;
        diags.error(ck.kernel->loc,
                    "kernel '" + ck.kernel->name +
                        "' compiles to a function "
                        "named '" +
                        name + "', which kernel '" + other.name +
                        "' already uses (a specialized kernel is named "
                        "<kernel>_<values>); rename one of the kernels");
        diags.note(other.loc, "kernel '" + other.name + "' is defined here");
        continue;
      }
      Gen g(ck, i, module, diags);
      g.run();
    }
}
