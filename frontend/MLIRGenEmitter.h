//===- MLIRGenEmitter.h - the emitter MLIRGen*.cpp share --------*- C++ -*-===//
//
// Internal to frontend/. One Gen emits one specialization of one kernel as a
// func.func, type checking as it goes; its pieces live in separate files by
// what they emit:
//   MLIRGen.cpp             the function, its arguments and attributes, the
//                           program grid of group(N); emitKernels()
//   MLIRGenStatements.cpp   blocks, let, assignments, if and for (scf.if and
//                           scf.for carrying the variables assigned inside)
//   MLIRGenExpressions.cpp  literals, names, unary and binary operators,
//                           indexing, compile-time integers
//   MLIRGenBuiltins.cpp     calls of the builtin functions
//
//===----------------------------------------------------------------------===//
#ifndef KCC_FRONTEND_MLIRGENEMITTER_H
#define KCC_FRONTEND_MLIRGENEMITTER_H

#include "frontend/MLIRGen.h"

#include "ir/Dialect.h"

#include "mlir/IR/Builders.h"

#include <cmath>
#include <deque>
#include <map>

namespace kcc::frontend::detail {

using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;
using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;
namespace scf = mlir::scf;

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

inline const char *kBuiltinNames[] = {
    "program_id",   "num_programs",  "arange",     "zeros",      "full",
    "load",         "store",         "load_tile",  "store_tile", "dim",
    "load_tile_at", "store_tile_at", "trans",      "where",      "cast",
    "exp",          "exp2",          "log",        "sqrt",       "rsqrt",
    "sigmoid",      "abs",           "min",        "max",        "sum",
    "fma",          "dot",           "cdiv",       "tanh",       "erf",
    "bitcast",      "atomic_add",    "atomic_min", "atomic_max", "atomic_xchg",
    "atomic_cas",   "histogram"};

inline bool isFloatTy(Type t) { return t && mlir::isa<mlir::FloatType>(t); }
inline bool isIntTy(Type t) { return t && mlir::isa<mlir::IntegerType>(t); }
inline bool isPtrTy(Type t) { return t && mlir::isa<kcc::PtrType>(t); }

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
  /// 8-bit floats are storage types (docs/language.md, "8-bit floats"):
  /// reports `what` on a value of element type `elem` at `at` where `elem` is
  /// one, and returns whether it did.
  bool refuseFloat8(Type elem, SMLoc at, const Twine &what) {
    if (!isFloat8Type(elem))
      return false;
    std::string name = typeToString(elem);
    error(at, what + " is not defined on " + name + ": " + name +
                  " values can be loaded, stored, cast and multiplied by "
                  "dot; cast to f32 to compute with them");
    return true;
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

  /// The source position of an op this Gen created (the inverse of loc()).
  SMLoc diagLoc(mlir::Location l) {
    auto flc = mlir::dyn_cast<mlir::FileLineColLoc>(l);
    llvm::SourceMgr &sm = diags.sourceMgr();
    for (unsigned id = 1; flc && id <= sm.getNumBuffers(); ++id)
      if (sm.getMemoryBuffer(id)->getBufferIdentifier() ==
          flc.getFilename().getValue())
        return sm.FindLocForLineAndColumn(id, flc.getLine(), flc.getColumn());
    return SMLoc();
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
      if (!floatFitsType(tv.f, t) && isFloat8Type(t)) {
        // The format's own largest value (448, 240, 57344: integers), from
        // APFloat.
        std::string largest = std::to_string(static_cast<int64_t>(
            llvm::APFloat::getLargest(
                mlir::cast<mlir::FloatType>(t).getFloatSemantics())
                .convertToDouble()));
        error(tv.loc, (std::isinf(tv.f) ? typeToString(t) + " has no infinity"
                                        : "float literal is out of range for " +
                                              typeToString(t)) +
                          " (its largest finite value is " + largest + ")");
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
  /// The pointer (or tile of pointers) argument of load, store and the
  /// atomics, and their i1 mask; null after an error at `at`.
  Value pointerArg(const TV &arg, const Expr &at, StringRef name,
                   StringRef where);
  Value maskArg(const TV &arg, const Expr &at, StringRef name);
  /// atomic_add/min/max/xchg/cas (docs/language.md, "Atomics").
  static bool isAtomicBuiltin(StringRef name);
  TV genAtomic(const Expr &e, const std::vector<const Expr *> &pos,
               const std::map<std::string, const CallArg *> &kw);
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
  void genWhile(const Stmt &s);
  void checkUniformCondition(mlir::scf::WhileOp whileOp);
  bool isLaunchValue(const Expr &e);
  bool isLaunchCondition(const Expr &e, unsigned &leaves);
  void markLaunchGuard(const Stmt &s, mlir::scf::IfOp ifOp);
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

} // namespace kcc::frontend::detail

#endif // KCC_FRONTEND_MLIRGENEMITTER_H
