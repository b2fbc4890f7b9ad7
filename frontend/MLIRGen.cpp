//===- MLIRGen.cpp - checked kernels to kcc tile IR -----------------------===//
//
// The kernel level of the emitter (MLIRGenEmitter.h): per specialization the
// func.func with its arguments (a tensor parameter adds its sizes and
// strides), their attributes and the specialization's, the scopes of the
// constant and runtime parameters and the program grid of group(N); and
// emitKernels(), which runs one Gen per specialization.
//
//===----------------------------------------------------------------------===//
#include "frontend/MLIRGen.h"
#include "frontend/MLIRGenEmitter.h"
#include "ir/SourceLocation.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Path.h"

static void foldAddIntoAccumulator(mlir::func::FuncOp func);

#include <functional>
#include <set>

using namespace kcc::frontend;
using namespace kcc::frontend::detail;

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
    } else if (isFloat8Type(t)) {
      // Launch stubs pass scalars by value in C types; an 8-bit float scalar
      // (a scale, a constant) is an f32 the kernel casts.
      error(p.type->loc, "scalar parameter '" + p.name + "' cannot be " +
                             typeToString(t) +
                             ": 8-bit floats are element types of ptr<> and "
                             "tensor<> parameters; pass an f32 and cast(x, " +
                             typeToString(t) + ") it in the kernel");
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
  std::vector<std::string>
  requires;
  if (!requiresToC(k, spec, ctx, diags, requires))
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
  if (!requires.empty() && requires.size() == k.requires.size()) {
    llvm::SmallVector<mlir::Attribute> list;
    for (size_t i = 0; i < requires.size(); ++i) {
      std::string at =
          kcc::sourceLocationText(loc(k.requireLocs[i]), /*baseName=*/true);
      list.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("guard", b.getStringAttr(requires[i])),
           b.getNamedAttr("when", b.getStringAttr(k.requireText[i])),
           b.getNamedAttr("at", b.getStringAttr(at))}));
    }
    func->setAttr(kcc::KccDialect::kRequiresAttr, b.getArrayAttr(list));
  }
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
  if (ok && k.hasStages) {
    std::optional<int64_t> n = clauseConstant(k, k.stages, spec);
    if (!n || *n < 2 || *n > 8) {
      error(k.stages->loc,
            "pipeline depth must be an integer from 2 to 8, but '" +
                k.stages->name + "' is " +
                (n ? std::to_string(*n) : "not an integer") +
                " in this specialization; give it a value from 2 to 8");
      ok = false;
    } else {
      func->setAttr(kcc::KccDialect::kPipelineStagesAttr,
                    b.getI32IntegerAttr(int32_t(*n)));
    }
  }
  if (ok)
    genBlock(k.body, /*newScope=*/true);
  b.setInsertionPointToEnd(entry);
  // Statements may have moved the insertion point into nested regions; the
  // return goes at the end of the entry block.
  mlir::func::ReturnOp::create(b, loc(k.bodyEndLoc));
  foldAddIntoAccumulator(func);
  (void)errorsBefore;
}

/// `x + dot(a, b)` (a zero accumulator) becomes `dot(a, b, x)` when x is
/// computed before the dot (`acc = acc * alpha + dot(p, v)` in attention,
/// `acc += dot(a, b)`), as Triton does: the tensor cores (or FMAs) add into
/// x, which then lives in the accumulator's registers on every target
/// instead of beside a second tile. The sum is rounded once less (integer
/// sums, i8 x i8 -> i32, are exact either way).
static void foldAddIntoAccumulator(mlir::func::FuncOp func) {
  mlir::DominanceInfo dom(func);
  llvm::SmallVector<kcc::DotOp> dots;
  func.walk([&](kcc::DotOp dot) { dots.push_back(dot); });
  for (kcc::DotOp dot : dots) {
    mlir::Value c = dot.getC();
    mlir::Operation *init = c.getDefiningOp();
    bool zero = false;
    auto isZero = [](mlir::Value v) {
      return mlir::matchPattern(v, mlir::m_AnyZeroFloat()) ||
             mlir::matchPattern(v, mlir::m_Zero());
    };
    if (auto splat = mlir::dyn_cast_or_null<kcc::SplatOp>(init))
      zero = isZero(splat.getOperand());
    else if (init)
      zero = isZero(c);
    if (!zero || !dot->hasOneUse())
      continue;
    mlir::Operation *add = *dot->getUsers().begin();
    if (!mlir::isa<mlir::arith::AddFOp, mlir::arith::AddIOp>(add))
      continue;
    mlir::Value lhs = add->getOperand(0), rhs = add->getOperand(1);
    mlir::Value x = lhs == dot.getResult() ? rhs : lhs;
    if (x == dot.getResult() || x.getType() != dot.getType() ||
        !dom.properlyDominates(x, dot))
      continue;
    dot.getCMutable().set(x);
    add->getResult(0).replaceAllUsesWith(dot.getResult());
    add->erase();
  }
}

bool Gen::genProgramGrid(mlir::func::FuncOp func) {
  std::optional<int64_t> n = clauseConstant(k, k.group, spec);
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
  // Variant groups: their launch names share the functions' namespace (one
  // stub function each), and each candidate records its groups.
  for (const CheckedKernel &ck : kernels) {
    std::map<size_t, llvm::SmallVector<mlir::NamedAttribute>> groupsOf;
    mlir::Builder b(module.getContext());
    for (const VariantGroup &g : ck.groups) {
      auto [it, inserted] = names.insert({g.name, ck.kernel});
      if (!inserted) {
        diags.error(g.loc, "this specialization's launch function would be "
                           "named '" +
                               g.name + "', which kernel '" + it->second->name +
                               "' already uses for a function; bind "
                               "another constant in it or rename a kernel");
        continue;
      }
      llvm::SmallVector<StringRef> open;
      for (size_t i : g.open)
        open.push_back(ck.kernel->constParams[i].name);
      for (size_t m : g.members)
        groupsOf[m].push_back(b.getNamedAttr(g.name, b.getStrArrayAttr(open)));
    }
    for (auto &[m, entries] : groupsOf) {
      auto func = module.lookupSymbol<mlir::func::FuncOp>(ck.funcName(m));
      if (!func)
        continue; // its body failed to compile (reported)
      func->setAttr(kcc::KccDialect::kVariantOfAttr,
                    b.getDictionaryAttr(entries));
      if (ck.specs[m].variantOnly)
        func->setAttr(kcc::KccDialect::kVariantOnlyAttr, b.getUnitAttr());
    }
  }
}
