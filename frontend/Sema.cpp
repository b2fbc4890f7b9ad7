//===- Sema.cpp - kernel checking and specialization ----------------------===//
#include "frontend/Sema.h"
#include "ir/ElementTypes.h"

#include "ir/CExpr.h"

#include "ir/Dialect.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace kcc::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

mlir::Type kcc::frontend::parseElementType(StringRef name,
                                           mlir::MLIRContext &ctx) {
  mlir::Builder b(&ctx);
  return llvm::StringSwitch<mlir::Type>(name)
      .Cases({"i1", "bool"}, b.getI1Type())
      .Case("i8", b.getI8Type())
      .Case("i16", b.getI16Type())
      .Case("i32", b.getI32Type())
      .Case("i64", b.getI64Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("f32", b.getF32Type())
      .Case("f64", b.getF64Type())
      .Case("f8e4m3", b.getType<mlir::Float8E4M3FNType>())
      .Case("f8e5m2", b.getType<mlir::Float8E5M2Type>())
      .Case("f8e4m3fnuz", b.getType<mlir::Float8E4M3FNUZType>())
      .Case("f8e5m2fnuz", b.getType<mlir::Float8E5M2FNUZType>())
      .Default(mlir::Type());
}

bool kcc::frontend::isFloat8Type(mlir::Type type) {
  return type && kcc::isFloat8(type);
}

static std::string scalarToString(mlir::Type t) {
  if (auto p = mlir::dyn_cast<kcc::PtrType>(t))
    return "ptr<" + scalarToString(p.getPointeeType()) + ">";
  // The language's names, not MLIR's (f8E4M3FN): they name specializations.
  return kcc::elementTypeName(t);
}

std::string kcc::frontend::shapeToString(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string kcc::frontend::typeToString(mlir::Type type) {
  if (!type)
    return "<error>";
  if (auto t = mlir::dyn_cast<mlir::RankedTensorType>(type))
    return scalarToString(t.getElementType()) + shapeToString(t.getShape());
  return scalarToString(type);
}

mlir::Type kcc::frontend::elementType(mlir::Type type) {
  if (auto t = mlir::dyn_cast_or_null<mlir::RankedTensorType>(type))
    return t.getElementType();
  return type;
}

llvm::ArrayRef<int64_t> kcc::frontend::shapeOf(mlir::Type type) {
  if (auto t = mlir::dyn_cast_or_null<mlir::RankedTensorType>(type))
    return t.getShape();
  return {};
}

mlir::Type kcc::frontend::withShape(mlir::Type elem,
                                    llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return elem;
  return mlir::RankedTensorType::get(shape, elem);
}

std::optional<llvm::SmallVector<int64_t>>
kcc::frontend::broadcastShapes(llvm::ArrayRef<int64_t> a,
                               llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  llvm::SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    // align trailing dimensions
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool kcc::frontend::intFitsWidth(int64_t value, unsigned width) {
  if (width >= 64)
    return true;
  int64_t lo = -(int64_t(1) << (width - 1));
  int64_t hi = (int64_t(1) << (width - 1)) - 1;
  return value >= lo && value <= hi;
}

bool kcc::frontend::floatFitsType(double value, mlir::Type type) {
  auto ft = mlir::dyn_cast<mlir::FloatType>(type);
  if (!ft || std::isnan(value))
    return true;
  // f8e4m3 has no infinities.
  if (std::isinf(value))
    return llvm::APFloat::semanticsHasInf(ft.getFloatSemantics());
  llvm::APFloat f(value);
  bool lost = false;
  // A format without infinities (f8e4m3) overflows to NaN: the status says.
  llvm::APFloat::opStatus status = f.convert(
      ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return !f.isInfinity() && !(status & llvm::APFloat::opOverflow);
}

std::string kcc::frontend::closestName(StringRef name,
                                       llvm::ArrayRef<std::string> candidates) {
  std::string best;
  unsigned bestDist = 3;
  for (const std::string &c : candidates) {
    unsigned d = name.edit_distance(c, true, 2);
    if (d >= 1 && d <= 2 && d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Constant values
//===----------------------------------------------------------------------===//

std::string ConstVal::str() const {
  switch (kind) {
  case Int:
    // 0 - x in uint64_t: the magnitude, also of INT64_MIN (a -D value).
    return intValue < 0 ? "m" + std::to_string(0 - uint64_t(intValue))
                        : std::to_string(intValue);
  case Bool:
    return boolValue ? "true" : "false";
  case Type:
    return typeToString(type);
  }
  return "";
}

std::string CheckedKernel::funcName(size_t i) const {
  if (specs.size() == 1)
    return kernel->name;
  std::string name = kernel->name;
  for (const ConstVal &v : specs[i].values)
    name += "_" + v.str();
  return name;
}

static const char *expectedFor(StringRef kind) {
  if (kind == "bool")
    return "true or false";
  if (kind == "dtype")
    return "an element type (i1 i8 i16 i32 i64 f16 bf16 f32 f64 f8e4m3 "
           "f8e5m2 f8e4m3fnuz f8e5m2fnuz)";
  return "an integer";
}

/// Checks a written value against a constant parameter's kind.
static std::optional<ConstVal> convertConst(const ConstValue &v,
                                            const ConstParam &cp,
                                            mlir::MLIRContext &ctx,
                                            Diagnostics &diags) {
  if (!v.valid)
    return std::nullopt;
  ConstVal out;
  StringRef kind = cp.kindName;
  auto bad = [&](const std::string &what) -> std::optional<ConstVal> {
    diags.error(v.loc, "value " + what + " does not fit constant parameter '" +
                           cp.name + "' of type " + kind + "; expected " +
                           expectedFor(kind));
    return std::nullopt;
  };
  if (kind == "i32" || kind == "i64") {
    if (v.kind != ConstValue::Int)
      return bad(v.kind == ConstValue::Bool ? (v.boolValue ? "'true'" : "'false'")
                                            : "'" + v.typeName + "'");
    if (!intFitsWidth(v.intValue, kind == "i32" ? 32 : 64)) {
      diags.error(v.loc, "value " + std::to_string(v.intValue) +
                             " is out of range for constant parameter '" +
                             cp.name +
                             "' of type i32 (-2147483648 to "
                             "2147483647)");
      return std::nullopt;
    }
    out.kind = ConstVal::Int;
    out.intValue = v.intValue;
    return out;
  }
  if (kind == "bool") {
    if (v.kind != ConstValue::Bool)
      return bad(v.kind == ConstValue::Int ? std::to_string(v.intValue)
                                           : "'" + v.typeName + "'");
    out.kind = ConstVal::Bool;
    out.boolValue = v.boolValue;
    return out;
  }
  // dtype
  if (v.kind != ConstValue::Type)
    return bad(v.kind == ConstValue::Int ? std::to_string(v.intValue)
                                         : (v.boolValue ? "'true'" : "'false'"));
  out.kind = ConstVal::Type;
  out.type = parseElementType(v.typeName, ctx);
  if (!out.type) {
    diags.error(v.loc, "unknown element type '" + v.typeName +
                           "' for constant parameter '" + cp.name +
                           "'; expected one of " + kElementTypeList);
    return std::nullopt;
  }
  return out;
}

/// Parses the text of a -D value for a constant parameter.
static std::optional<ConstVal> parseDefine(const Define &d,
                                           const ConstParam &cp,
                                           mlir::MLIRContext &ctx,
                                           Diagnostics &diags) {
  StringRef text = StringRef(d.value).trim();
  StringRef kind = cp.kindName;
  ConstVal out;
  auto bad = [&]() -> std::optional<ConstVal> {
    diags.error(SMLoc(), "invalid value '" + d.value + "' in -D " + d.name +
                             "=" + d.value + ": constant parameter '" +
                             cp.name + "' has type " + kind + "; expected " +
                             expectedFor(kind));
    return std::nullopt;
  };
  if (kind == "i32" || kind == "i64") {
    int64_t v = 0;
    if (text.getAsInteger(0, v))
      return bad();
    if (!intFitsWidth(v, kind == "i32" ? 32 : 64))
      return bad();
    out.kind = ConstVal::Int;
    out.intValue = v;
    return out;
  }
  if (kind == "bool") {
    out.kind = ConstVal::Bool;
    if (text == "true" || text == "1")
      out.boolValue = true;
    else if (text == "false" || text == "0")
      out.boolValue = false;
    else
      return bad();
    return out;
  }
  out.kind = ConstVal::Type;
  out.type = parseElementType(text, ctx);
  if (!out.type) {
    std::vector<std::string> names = {
        "i1",   "bool", "i8",  "i16",    "i32",    "i64",        "f16",
        "bf16", "f32",  "f64", "f8e4m3", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz"};
    std::string hint = closestName(text, names);
    diags.error(SMLoc(),
                "invalid value '" + d.value + "' in -D " + d.name + "=" +
                    d.value + ": '" + text + "' is not an element type" +
                    (hint.empty()
                         ? std::string("; expected one of ") + kElementTypeList
                         : "; did you mean '" + hint + "'?"));
    return std::nullopt;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Kernel checks
//===----------------------------------------------------------------------===//

/// The ranks kcc's tensors have (a larger one is an error at its `rank`, and
/// the tensor's size/stride parameters are never enumerated). Rank 3 is a
/// batch of matrices: its tiles are rank 2 at one batch index.
static bool validTensorRank(int64_t rank) { return rank >= 1 && rank <= 3; }

std::vector<std::string>
kcc::frontend::tensorPartNames(llvm::StringRef name, int64_t rank) {
  std::vector<std::string> out;
  for (int64_t d = 0; d < rank; ++d)
    out.push_back((name + "_dim" + Twine(d)).str());
  for (int64_t d = 0; d + 1 < rank; ++d)
    out.push_back((name + "_stride" + Twine(d)).str());
  return out;
}

mlir::Type kcc::frontend::resolveType(const TypeRef &ref, const Kernel &kernel,
                                      const Specialization &spec,
                                      mlir::MLIRContext &ctx,
                                      Diagnostics &diags) {
  if (ref.isPtr || ref.isTensor) {
    if (!ref.pointee)
      return {};
    if (ref.pointee->isPtr || ref.pointee->isTensor) {
      diags.error(ref.pointee->loc,
                  ref.isPtr ? "pointers to pointers are not supported"
                            : "a tensor holds elements (e.g. tensor<f32, 2>), "
                              "not pointers or tensors");
      return {};
    }
    if (ref.isTensor && !validTensorRank(ref.rank)) {
      diags.error(ref.rankLoc, "tensor rank must be 1, 2 or 3, got " +
                                   std::to_string(ref.rank));
      return {};
    }
    mlir::Type pointee = resolveType(*ref.pointee, kernel, spec, ctx, diags);
    if (!pointee)
      return {};
    // A tensor parameter's own value is its base pointer; MLIRGen adds its
    // sizes and strides as further arguments (tensorPartNames()).
    return kcc::PtrType::get(pointee);
  }
  if (mlir::Type t = parseElementType(ref.name, ctx))
    return t;
  for (size_t i = 0; i < kernel.constParams.size(); ++i) {
    const ConstParam &cp = kernel.constParams[i];
    if (cp.name != ref.name)
      continue;
    if (cp.kindName != "dtype") {
      diags.error(ref.loc, "'" + ref.name + "' is a constant of type " +
                               cp.kindName + ", not a dtype; it cannot be used "
                               "as a type");
      return {};
    }
    if (i < spec.values.size() && spec.values[i].type)
      return spec.values[i].type;
    return {};
  }
  std::vector<std::string> names = {
      "i1",         "bool",       "i8",  "i16",   "i32",    "i64",
      "f16",        "bf16",       "f32", "f64",   "f8e4m3", "f8e5m2",
      "f8e4m3fnuz", "f8e5m2fnuz", "ptr", "tensor"};
  for (const ConstParam &cp : kernel.constParams)
    if (cp.kindName == "dtype")
      names.push_back(cp.name);
  std::string hint = closestName(ref.name, names);
  diags.error(ref.loc, "unknown type '" + ref.name + "'" +
                           (hint.empty() ? "; expected an element type (" +
                                               std::string(kElementTypeList) +
                                               "), ptr<T> or a dtype parameter"
                                         : "; did you mean '" + hint + "'?"));
  return {};
}

/// What a clause taking one constant (group(N), stages(S)) accepts: an
/// integer literal in [lo, hi] or an integer constant parameter's name
/// (whose value clauseConstant() gives per specialization, to be range
/// checked there). `noun` names the value in messages ("group size"),
/// `range` the accepted values ("a positive i32"), `example` the clause.
struct ClauseConstant {
  const char *noun, *range, *example;
  int64_t lo, hi;
};
static constexpr ClauseConstant kGroupSize{"group size", "a positive i32",
                                           "group(8)", 1, INT32_MAX};
static constexpr ClauseConstant kStages{
    "pipeline depth", "an integer from 2 to 8", "stages(4)", 2, 8};

static bool checkClauseConstant(const Kernel &k, const ExprPtr &value,
                                const ClauseConstant &c, Diagnostics &diags) {
  if (!value)
    return false; // a syntax error, reported
  const Expr &e = *value;
  std::string hint =
      std::string("; write ") +
      (c.lo == 1 ? "a positive integer literal"
                 : "an integer literal from " + std::to_string(c.lo) + " to " +
                       std::to_string(c.hi)) +
      " or an integer constant parameter, e.g. " + c.example;
  std::string must = std::string(c.noun) + " must be " + c.range + ", got ";
  if (e.kind == ExprKind::IntLit) {
    if (e.intTooLarge || int64_t(e.intValue) < c.lo ||
        int64_t(e.intValue) > c.hi) {
      diags.error(e.loc, must +
                             (e.intTooLarge ? std::string("a literal past 2^63")
                                            : std::to_string(e.intValue)) +
                             hint);
      return false;
    }
    return true;
  }
  if (e.kind == ExprKind::Unary && e.unOp == UnOp::Neg && e.lhs &&
      e.lhs->kind == ExprKind::IntLit) {
    diags.error(e.loc, must + "-" + std::to_string(e.lhs->intValue) + hint);
    return false;
  }
  if (e.kind == ExprKind::Ident) {
    for (const ConstParam &cp : k.constParams)
      if (cp.name == e.name) {
        if (cp.kindName == "i32" || cp.kindName == "i64")
          return true;
        diags.error(e.loc, std::string(c.noun) + " must be an integer, but '" +
                               e.name + "' is a " + cp.kindName + " constant" +
                               hint);
        return false;
      }
    bool isParam = llvm::any_of(
        k.params, [&](const Param &p) { return p.name == e.name; });
    diags.error(e.loc, std::string(c.noun) +
                           " must be a compile-time constant, but '" + e.name +
                           "' is " +
                           (isParam ? "a kernel parameter (known only at "
                                      "launch)"
                                    : "not a constant parameter") +
                           hint);
    return false;
  }
  diags.error(e.loc, std::string(c.noun) +
                         " must be a literal or a constant parameter's name, "
                         "not an expression" +
                         hint);
  return false;
}

/// The form of a group(N) clause: a 2-D grid (or a 3-D one, whose third
/// axis, a batch, keeps its order), N as checkClauseConstant takes it.
static bool checkGroup(const Kernel &k, Diagnostics &diags) {
  bool ok = true;
  // A grid of 0 or more than 3 expressions is an error of its own.
  if (k.hasGrid && k.grid.size() == 1) {
    diags.error(k.groupLoc,
                "group(N) rasterizes the first two axes of a grid, but the "
                "grid of kernel '" +
                    k.name +
                    "' has 1 expression; write grid(gx, gy) and index the "
                    "programs with program_id(0) and program_id(1), or "
                    "remove group");
    ok = false;
  }
  return checkClauseConstant(k, k.group, kGroupSize, diags) && ok;
}

std::optional<int64_t>
kcc::frontend::clauseConstant(const Kernel &kernel, const ExprPtr &value,
                              const Specialization &spec) {
  if (!value)
    return std::nullopt;
  const Expr &e = *value;
  if (e.kind == ExprKind::IntLit)
    return int64_t(e.intValue);
  for (size_t i = 0; i < kernel.constParams.size(); ++i)
    if (e.kind == ExprKind::Ident && kernel.constParams[i].name == e.name &&
        spec.values[i].kind == ConstVal::Int)
      return spec.values[i].intValue;
  return std::nullopt;
}

/// Signature checks that do not depend on a specialization.
static bool checkSignature(const Kernel &k, mlir::MLIRContext &ctx,
                           Diagnostics &diags) {
  bool ok = true;
  std::map<std::string, SMLoc> names;
  auto declare = [&](const std::string &name, SMLoc loc) {
    auto [it, inserted] = names.insert({name, loc});
    if (!inserted) {
      diags.error(loc, "parameter '" + name + "' is declared twice in kernel '" +
                           k.name + "'; rename one of them");
      diags.note(it->second, "previous declaration is here");
      ok = false;
    }
  };
  for (const ConstParam &cp : k.constParams) {
    declare(cp.name, cp.loc);
    if (cp.kindName != "i32" && cp.kindName != "i64" && cp.kindName != "bool" &&
        cp.kindName != "dtype") {
      diags.error(cp.kindLoc, "constant parameter '" + cp.name +
                                  "' has kind '" + cp.kindName +
                                  "'; expected i32, i64, bool or dtype");
      ok = false;
    }
  }
  for (const Param &p : k.params) {
    declare(p.name, p.loc);
    if (!p.type)
      continue;
    // A tensor's sizes and strides are arguments too; their names must not
    // collide with another parameter's.
    if (p.type->isTensor && !validTensorRank(p.type->rank)) {
      // Checked here, before anything enumerates the tensor's sizes and
      // strides: the kernel is not emitted.
      diags.error(p.type->rankLoc, "tensor rank must be 1, 2 or 3, got " +
                                       std::to_string(p.type->rank));
      ok = false;
      continue;
    }
    if (p.type->isTensor)
      for (const std::string &part : tensorPartNames(p.name, p.type->rank))
        declare(part, p.loc);
    // Element kind of the declared type (dtype parameters resolve later).
    bool isPtr = p.type->isPtr || p.type->isTensor;
    bool isInt = false;
    bool known = true;
    unsigned intWidth = 0;
    if (!isPtr) {
      mlir::Type t = parseElementType(p.type->name, ctx);
      if (t)
        isInt = t.isInteger() && !t.isInteger(1);
      else
        known = false; // dtype parameter: could be anything
      if (isInt)
        intWidth = t.getIntOrFloatBitWidth();
    }
    std::optional<int64_t> align, multiple;
    for (const Fact &f : p.facts) {
      if (f.kind == Fact::Align) {
        if (!isPtr) {
          diags.error(f.loc, "align(" + std::to_string(f.value) +
                                 ") applies to pointer parameters, but '" +
                                 p.name + "' is not a pointer; use "
                                 "multiple_of(N) for integers");
          ok = false;
          continue;
        }
        if (f.value <= 0 || !llvm::isPowerOf2_64(uint64_t(f.value))) {
          diags.error(f.loc, "align(" + std::to_string(f.value) +
                                 ") is not a power of two; alignment is in "
                                 "bytes, e.g. align(16)");
          ok = false;
          continue;
        }
        if (align && *align != f.value) {
          diags.error(f.loc, "contradictory facts: '" + p.name +
                                 "' is already align(" +
                                 std::to_string(*align) +
                                 "); give one "
                                 "align(N), the largest that holds");
          ok = false;
          continue;
        }
        align = f.value;
      } else {
        if (isPtr || (known && !isInt)) {
          diags.error(f.loc, "multiple_of(" + std::to_string(f.value) +
                                 ") applies to integer parameters, but '" +
                                 p.name + "' is not an integer" +
                                 (isPtr ? "; use align(N) for pointers and "
                                          "tensors (a tensor's strides are "
                                          "always multiples of 16 bytes)"
                                        : ""));
          ok = false;
          continue;
        }
        if (f.value <= 0) {
          diags.error(f.loc, "multiple_of(" + std::to_string(f.value) +
                                 ") must be positive");
          ok = false;
          continue;
        }
        // Only 0 is a multiple of a number larger than the type can hold:
        // the fact contradicts the type.
        if (intWidth && intWidth < 64 &&
            f.value > (int64_t(1) << (intWidth - 1))) {
          diags.error(f.loc,
                      "multiple_of(" + std::to_string(f.value) +
                          ") cannot hold for '" + p.name + "' of type " +
                          p.type->name + " (whose largest value is " +
                          std::to_string((int64_t(1) << (intWidth - 1)) - 1) +
                          "); use a smaller N or a wider type");
          ok = false;
          continue;
        }
        if (multiple && *multiple != f.value) {
          diags.error(f.loc, "contradictory facts: '" + p.name +
                                 "' is already multiple_of(" +
                                 std::to_string(*multiple) +
                                 "); give one "
                                 "multiple_of(N), the largest that holds");
          ok = false;
          continue;
        }
        multiple = f.value;
      }
    }
  }
  if (!k.hasGrid) {
    diags.error(k.loc, "kernel '" + k.name + "' has no grid clause; add "
                       "grid(...) after the parameters, e.g. grid(cdiv(n, BLOCK))");
    ok = false;
  } else if (k.grid.empty() || k.grid.size() > 3) {
    diags.error(k.gridLoc, "grid takes 1 to 3 expressions, got " +
                               std::to_string(k.grid.size()));
    ok = false;
  }
  if (k.hasGroup)
    ok &= checkGroup(k, diags);
  if (k.hasStages)
    ok &= checkClauseConstant(k, k.stages, kStages, diags);
  return ok;
}

std::vector<CheckedKernel>
kcc::frontend::checkModule(const Module &module, const Options &options,
                           mlir::MLIRContext &ctx, Diagnostics &diags) {
  std::vector<CheckedKernel> result;
  // -D names must name a constant parameter of some kernel.
  for (const Define &d : options.defines) {
    bool found = false;
    std::vector<std::string> all;
    for (const auto &k : module.kernels)
      for (const ConstParam &cp : k->constParams) {
        all.push_back(cp.name);
        found |= cp.name == d.name;
      }
    if (!found) {
      std::string hint = closestName(d.name, all);
      diags.error(SMLoc(), "-D " + d.name + "=" + d.value +
                               ": no kernel has a constant parameter named '" +
                               d.name + "'" +
                               (hint.empty() ? ""
                                             : "; did you mean '" + hint + "'?"));
    }
  }

  std::map<std::string, SMLoc> kernelNames;
  for (const auto &kp : module.kernels) {
    const Kernel &k = *kp;
    auto [it, inserted] = kernelNames.insert({k.name, k.loc});
    if (!inserted) {
      diags.error(k.loc, "kernel '" + k.name + "' is defined twice; rename one");
      diags.note(it->second, "previous definition is here");
      continue;
    }
    bool ok = checkSignature(k, ctx, diags);

    // Base values: defaults, then defines.
    size_t n = k.constParams.size();
    std::vector<std::optional<ConstVal>> base(n);
    // valueFailed: a default or -D value was given and reported as invalid;
    // "has no value" would only repeat that.
    std::vector<bool> fromDefine(n, false), valueFailed(n, false);
    for (size_t i = 0; i < n; ++i)
      if (k.constParams[i].hasDefault) {
        base[i] = convertConst(k.constParams[i].defaultValue, k.constParams[i],
                               ctx, diags);
        if (!base[i]) {
          ok = false;
          valueFailed[i] = true;
        }
      }
    for (const Define &d : options.defines)
      for (size_t i = 0; i < n; ++i)
        if (k.constParams[i].name == d.name) {
          if (auto v = parseDefine(d, k.constParams[i], ctx, diags)) {
            base[i] = v;
            fromDefine[i] = true;
            valueFailed[i] = false;
          } else {
            ok = false;
            valueFailed[i] = true;
          }
        }

    // The candidates of tunable constants, checked once.
    std::vector<std::vector<ConstVal>> candidates(n);
    for (size_t i = 0; i < n; ++i)
      for (const ConstValue &c : k.constParams[i].candidates) {
        std::optional<ConstVal> v =
            convertConst(c, k.constParams[i], ctx, diags);
        if (!v) {
          ok = false;
          valueFailed[i] = !fromDefine[i];
          continue;
        }
        if (llvm::is_contained(candidates[i], *v)) {
          diags.error(c.loc, "candidate " + v->str() + " of '" +
                                 k.constParams[i].name + "' is listed twice");
          ok = false;
          continue;
        }
        candidates[i].push_back(*v);
      }

    CheckedKernel ck;
    ck.kernel = &k;
    // Adds (or finds) the specialization of `vals`; returns its index.
    auto addValues = [&](std::vector<ConstVal> values,
                         bool variantOnly) -> size_t {
      for (size_t s = 0; s < ck.specs.size(); ++s)
        if (ck.specs[s].values == values) {
          // Duplicate specializations collapse; one a clause binds fully
          // gets its launch function.
          ck.specs[s].variantOnly &= variantOnly;
          return s;
        }
      ck.specs.push_back({std::move(values), variantOnly});
      return ck.specs.size() - 1;
    };
    auto addSpec = [&](std::vector<std::optional<ConstVal>> vals,
                       SMLoc clauseLoc) {
      // Tunables left unbound: every combination of their candidates.
      std::vector<size_t> open;
      for (size_t i = 0; i < n; ++i) {
        if (!vals[i] && valueFailed[i]) {
          ok = false; // the bad value was reported already
          return;
        }
        if (!vals[i] && !k.constParams[i].candidates.empty()) {
          open.push_back(i);
          continue;
        }
        if (!vals[i]) {
          const ConstParam &cp = k.constParams[i];
          diags.error(clauseLoc.isValid() ? clauseLoc : cp.loc,
                      "constant parameter '" + cp.name +
                          "' has no value; add specialize(" + cp.name +
                          " = ...), pass -D " + cp.name +
                          "=... or declare candidates (" + cp.name + ": " +
                          cp.kindName +
                          " in (...)) for the compiler to "
                          "choose from");
          ok = false;
          return;
        }
      }
      if (open.empty()) {
        std::vector<ConstVal> values;
        for (size_t i = 0; i < n; ++i)
          values.push_back(*vals[i]);
        addValues(std::move(values), /*variantOnly=*/false);
        return;
      }
      VariantGroup group;
      group.loc = clauseLoc.isValid() ? clauseLoc : k.loc;
      group.open = open;
      group.name = k.name;
      for (size_t i = 0; i < n; ++i)
        if (vals[i])
          group.name += "_" + vals[i]->str();
      std::vector<size_t> pick(open.size(), 0);
      while (true) {
        std::vector<ConstVal> values;
        for (size_t i = 0, o = 0; i < n; ++i)
          if (o < open.size() && open[o] == i)
            values.push_back(candidates[i][pick[o++]]);
          else
            values.push_back(*vals[i]);
        group.members.push_back(addValues(std::move(values), true));
        // Next combination, the last open constant fastest.
        size_t d = open.size();
        while (d > 0 && ++pick[d - 1] == candidates[open[d - 1]].size())
          pick[--d] = 0;
        if (d == 0)
          break;
      }
      for (const VariantGroup &g : ck.groups)
        if (g.name == group.name && g.open == group.open)
          return; // the same clause twice
      ck.groups.push_back(std::move(group));
    };

    if (k.specializations.empty()) {
      addSpec(base, SMLoc());
    } else {
      for (const SpecializeClause &clause : k.specializations) {
        auto vals = base;
        std::vector<bool> set(n, false);
        bool clauseOk = true;
        for (const SpecBinding &b : clause.bindings) {
          size_t idx = n;
          for (size_t i = 0; i < n; ++i)
            if (k.constParams[i].name == b.name)
              idx = i;
          if (idx == n) {
            std::vector<std::string> names;
            for (const ConstParam &cp : k.constParams)
              names.push_back(cp.name);
            std::string hint = closestName(b.name, names);
            diags.error(b.loc, "'" + b.name +
                                   "' is not a constant parameter of kernel '" +
                                   k.name + "'" +
                                   (hint.empty() ? "; declare it in <...>"
                                                 : "; did you mean '" + hint +
                                                       "'?"));
            clauseOk = false;
            continue;
          }
          if (set[idx]) {
            diags.error(b.loc, "'" + b.name +
                                   "' is given twice in this specialization");
            clauseOk = false;
            continue;
          }
          set[idx] = true;
          if (fromDefine[idx])
            continue; // -D overrides the clause
          auto v = convertConst(b.value, k.constParams[idx], ctx, diags);
          if (!v) {
            clauseOk = false;
            continue;
          }
          vals[idx] = v;
        }
        if (clauseOk)
          addSpec(vals, clause.loc);
        else
          ok = false;
      }
    }
    // A lone candidate named as its group would be (a kernel whose only
    // constants are tunables with one candidate each) is just the kernel.
    if (ck.groups.size() == 1 && ck.specs.size() == 1 &&
        ck.funcName(0) == ck.groups[0].name) {
      ck.specs[0].variantOnly = false;
      ck.groups.clear();
    }
    if (ok && !ck.specs.empty())
      result.push_back(std::move(ck));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Grid expressions
//===----------------------------------------------------------------------===//

namespace {
struct GridEmitter {
  const Kernel &k;
  const Specialization &spec;
  mlir::MLIRContext &ctx;
  Diagnostics &diags;
  /// The clause, in messages: "grid" or "require".
  std::string what = "grid";

  /// min, max and cdiv repeat their operands in C, so nesting them doubles
  /// the text each time: refuse what no launch needs instead of spending
  /// minutes and gigabytes on it.
  static constexpr size_t kMaxGridChars = 4096;
  bool tooLargeReported = false;

  std::optional<std::string> emit(const Expr &e) {
    std::optional<std::string> c = emitUnchecked(e);
    if (c && c->size() > kMaxGridChars) {
      if (!tooLargeReported)
        diags.error(e.loc, what + " expression is too large (more than " +
                               Twine(kMaxGridChars) +
                               " characters of C); nest fewer min, max and "
                               "cdiv calls, or compute the grid size in a "
                               "host parameter");
      tooLargeReported = true;
      return std::nullopt;
    }
    return c;
  }

  /// dim(x, k) of a tensor parameter: its size argument x_dimK.
  std::optional<std::string> emitDim(const Expr &e) {
    if (e.args.size() != 2 || !e.args[0].keyword.empty() ||
        !e.args[1].keyword.empty() ||
        e.args[0].value->kind != ExprKind::Ident ||
        e.args[1].value->kind != ExprKind::IntLit) {
      diags.error(e.loc, "dim in " + what +
                             " takes a tensor parameter and a literal "
                             "axis: dim(x, 0)");
      return std::nullopt;
    }
    const std::string &name = e.args[0].value->name;
    for (const Param &p : k.params) {
      if (p.name != name)
        continue;
      if (!p.type || !p.type->isTensor) {
        diags.error(e.args[0].value->loc,
                    "dim takes a tensor parameter, but '" + name +
                        "' is not a tensor");
        return std::nullopt;
      }
      int64_t axis = int64_t(e.args[1].value->intValue);
      if (e.args[1].value->intTooLarge || axis >= p.type->rank) {
        diags.error(e.args[1].value->loc,
                    "axis " + std::to_string(axis) + " is out of range for '" +
                        name + "' of rank " + std::to_string(p.type->rank));
        return std::nullopt;
      }
      return tensorPartNames(name, p.type->rank)[axis];
    }
    diags.error(e.args[0].value->loc,
                "use of undeclared name '" + name + "' in " + what);
    return std::nullopt;
  }

  std::optional<std::string> emitUnchecked(const Expr &e) {
    switch (e.kind) {
    case ExprKind::IntLit:
      if (e.intTooLarge) {
        diags.error(e.loc, "integer literal is too large");
        return std::nullopt;
      }
      return std::to_string(e.intValue);
    case ExprKind::Ident: {
      for (size_t i = 0; i < k.constParams.size(); ++i) {
        if (k.constParams[i].name != e.name)
          continue;
        const ConstVal &v = spec.values[i];
        if (v.kind != ConstVal::Int) {
          diags.error(e.loc, what + " expressions must be integers, but '" +
                                 e.name + "' is a " +
                                 k.constParams[i].kindName + " constant");
          return std::nullopt;
        }
        return v.intValue < 0 ? "(" + std::to_string(v.intValue) + ")"
                              : std::to_string(v.intValue);
      }
      for (const Param &p : k.params) {
        if (p.name != e.name)
          continue;
        mlir::Type t =
            p.type ? resolveType(*p.type, k, spec, ctx, diags) : mlir::Type();
        if (!t)
          return std::nullopt;
        if (!t.isInteger() || t.isInteger(1)) {
          diags.error(e.loc, what +
                                 " expressions may only use scalar integer "
                                 "parameters, but '" +
                                 e.name + "' has type " + typeToString(t));
          return std::nullopt;
        }
        return e.name;
      }
      diags.error(e.loc, "use of undeclared name '" + e.name + "' in " + what +
                             "; " + what +
                             " expressions may use the kernel's "
                             "integer parameters and constants");
      return std::nullopt;
    }
    case ExprKind::Unary: {
      if (e.unOp != UnOp::Neg) {
        diags.error(e.loc, "only '-' is allowed as a unary operator in " +
                               what + (what == "grid" ? "" : "'s integers"));
        return std::nullopt;
      }
      auto a = emit(*e.lhs);
      if (!a)
        return std::nullopt;
      return "(-" + *a + ")";
    }
    case ExprKind::Binary: {
      BinOp op = e.binOp;
      if (op != BinOp::Add && op != BinOp::Sub && op != BinOp::Mul &&
          op != BinOp::Div && op != BinOp::Rem) {
        diags.error(e.loc, Twine("operator '") + binOpSpelling(op) +
                               "' is not allowed in " + what +
                               (what == "grid" ? "" : "'s integers") +
                               "; use + - * / %, cdiv, min or max" +
                               (what == "grid" ? ""
                                               : " (and compare them with "
                                                 "== != < <= > >=, joined "
                                                 "by && || !)"));
        return std::nullopt;
      }
      auto a = emit(*e.lhs);
      auto b = emit(*e.rhs);
      if (!a || !b)
        return std::nullopt;
      if (!divisorOk(op == BinOp::Div || op == BinOp::Rem, *b, e.loc))
        return std::nullopt;
      return "(" + *a + " " + binOpSpelling(op) + " " + *b + ")";
    }
    case ExprKind::Call: {
      if (e.name == "dim")
        return emitDim(e);
      if (e.name == "num_multiprocessors") {
        // The stub reads the device's count at launch (kcc::rt::
        // multiprocessorCount) into this name; kcc-difftest gives its own.
        if (what != "grid") {
          diags.error(e.loc, "num_multiprocessors() can be used in grid(...) "
                             "only, not in " +
                                 what);
          return std::nullopt;
        }
        if (!e.args.empty()) {
          diags.error(e.loc, "num_multiprocessors() takes no arguments");
          return std::nullopt;
        }
        return std::string(kcc::kMultiprocessorsName);
      }
      if (e.name != "cdiv" && e.name != "min" && e.name != "max") {
        diags.error(e.loc, "function '" + e.name + "' cannot be used in " +
                               what + "; " + what +
                               " expressions "
                               "are computed on the host from scalar integer "
                               "parameters (allowed: cdiv, min, max, dim" +
                               (what == "grid" ? ", num_multiprocessors" : "") +
                               ")");
        return std::nullopt;
      }
      if (e.args.size() != 2 || !e.args[0].keyword.empty() ||
          !e.args[1].keyword.empty()) {
        diags.error(e.loc, e.name + " in " + what +
                               " takes two arguments: " + e.name + "(a, b)");
        return std::nullopt;
      }
      auto a = emit(*e.args[0].value);
      auto b = emit(*e.args[1].value);
      if (!a || !b)
        return std::nullopt;
      if (e.name == "cdiv" && !divisorOk(true, *b, e.loc))
        return std::nullopt;
      if (e.name == "cdiv")
        return "(((" + *a + ") + (" + *b + ") - 1) / (" + *b + "))";
      const char *cmp = e.name == "min" ? "<" : ">";
      return "((" + *a + ") " + cmp + " (" + *b + ") ? (" + *a + ") : (" +
             *b + "))";
    }
    case ExprKind::FloatLit:
      diags.error(e.loc, what + " expressions must be integers, not floats");
      return std::nullopt;
    case ExprKind::BoolLit:
      diags.error(e.loc, what + " expressions must be integers, not booleans");
      return std::nullopt;
    case ExprKind::Index:
    case ExprKind::List:
      diags.error(e.loc, what + " expressions may only use scalar integer "
                                "parameters, constants and integer literals, "
                                "not tiles");
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// A require(...) condition is evaluated on the host before any other
  /// check: it divides only by nonzero constants, so it cannot trap.
  bool divisorOk(bool divides, const std::string &divisor, SMLoc at) {
    if (!divides || what == "grid")
      return true;
    bool literal = !divisor.empty() &&
                   llvm::all_of(divisor, [](char c) { return isdigit(c); });
    if (literal && divisor.find_first_not_of('0') != std::string::npos)
      return true;
    diags.error(at, "require divides only by nonzero constants (a division "
                    "by a parameter could trap on the host); compare "
                    "products instead, e.g. n == k * group");
    return false;
  }

  /// A require(...) condition: comparisons of integer expressions, joined
  /// by && || and !.
  std::optional<std::string> emitCondition(const Expr &e) {
    if (e.kind == ExprKind::Unary && e.unOp == UnOp::Not) {
      auto a = emitCondition(*e.lhs);
      return a ? std::optional<std::string>("(!" + *a + ")") : std::nullopt;
    }
    if (e.kind == ExprKind::Binary) {
      BinOp op = e.binOp;
      bool logical = op == BinOp::AndAnd || op == BinOp::OrOr;
      bool compare = op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt ||
                     op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge;
      if (logical || compare) {
        auto a = logical ? emitCondition(*e.lhs) : emit(*e.lhs);
        auto b = logical ? emitCondition(*e.rhs) : emit(*e.rhs);
        if (!a || !b)
          return std::nullopt;
        return "(" + *a + " " + binOpSpelling(op) + " " + *b + ")";
      }
    }
    diags.error(e.loc, "require takes a condition: integer expressions "
                       "compared with == != < <= > >=, joined by && || !");
    return std::nullopt;
  }
};
} // namespace

bool kcc::frontend::gridToC(const Kernel &kernel, const Specialization &spec,
                            mlir::MLIRContext &ctx, Diagnostics &diags,
                            std::array<std::string, 3> &out) {
  GridEmitter g{kernel, spec, ctx, diags};
  bool ok = true;
  out = {"1", "1", "1"};
  for (size_t i = 0; i < kernel.grid.size() && i < 3; ++i) {
    if (auto s = g.emit(*kernel.grid[i]))
      out[i] = *s;
    else
      ok = false;
  }
  return ok;
}

bool kcc::frontend::requiresToC(const Kernel &kernel,
                                const Specialization &spec,
                                mlir::MLIRContext &ctx, Diagnostics &diags,
                                std::vector<std::string> &out) {
  GridEmitter g{kernel, spec, ctx, diags};
  g.what = "require";
  bool ok = true;
  for (const ExprPtr &e : kernel.requires) {
    if (auto c = g.emitCondition(*e))
      out.push_back(*c);
    else
      ok = false;
  }
  return ok;
}

std::optional<std::string>
kcc::frontend::conditionToC(const Kernel &kernel, const Specialization &spec,
                            mlir::MLIRContext &ctx, Diagnostics &diags,
                            const Expr &cond) {
  GridEmitter g{kernel, spec, ctx, diags};
  g.what = "if";
  return g.emitCondition(cond);
}
