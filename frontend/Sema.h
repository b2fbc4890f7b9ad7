//===- Sema.h - kernel checking and specialization ----------------*- C++ -*-===//
//
// Semantic analysis that does not depend on MLIR values: element and
// parameter types, facts, constant parameters and their specializations
// (clauses, defaults and -D defines), grid expressions (to C), and the typing
// rules (broadcasting, literal adoption) that MLIRGen applies to each
// expression of each specialization.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_FRONTEND_SEMA_H
#define KCC_FRONTEND_SEMA_H

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Frontend.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <optional>

namespace kcc::frontend {

/// The value of one constant parameter in one specialization.
struct ConstVal {
  enum Kind { Int, Bool, Type } kind = Int;
  int64_t intValue = 0;
  bool boolValue = false;
  mlir::Type type;
  bool operator==(const ConstVal &o) const {
    return kind == o.kind && intValue == o.intValue &&
           boolValue == o.boolValue && type == o.type;
  }
  /// How the value appears in a specialized function name (1024, f32, true).
  std::string str() const;
};

struct Specialization {
  std::vector<ConstVal> values; // one per Kernel::constParams, in order
  /// Only a candidate of variant groups: no clause binds all its constants,
  /// so it gets no launch function of its own.
  bool variantOnly = false;
};

/// A specialize clause that leaves tunable constants (`NAME: i32 in (...)`)
/// unbound, or a kernel with tunables and no clause: one launch function,
/// `name` (the kernel's name and the bound values), that runs on each target
/// the candidate the compiler keeps there.
struct VariantGroup {
  std::string name;
  llvm::SMLoc loc;
  std::vector<size_t> open;    // Kernel::constParams the compiler chooses
  std::vector<size_t> members; // indices into CheckedKernel::specs
};

struct CheckedKernel {
  const Kernel *kernel = nullptr;
  std::vector<Specialization> specs;
  std::vector<VariantGroup> groups;
  /// Name of the func.func for spec i: `name` or `name_v1_v2...`.
  std::string funcName(size_t i) const;
};

/// The element types, as messages list them.
inline constexpr const char *kElementTypeList =
    "i1 i8 i16 i32 i64 f16 bf16 f32 f64 f8e4m3 f8e5m2 f8e4m3fnuz f8e5m2fnuz";
/// i1 (bool) i8 i16 i32 i64 f16 bf16 f32 f64 f8e4m3 f8e5m2 f8e4m3fnuz
/// f8e5m2fnuz -> MLIR type (the 8-bit floats are Float8E4M3FN, Float8E5M2,
/// Float8E4M3FNUZ and Float8E5M2FNUZ); null otherwise.
mlir::Type parseElementType(llvm::StringRef name, mlir::MLIRContext &ctx);
/// f8e4m3, f8e5m2, f8e4m3fnuz or f8e5m2fnuz: storage types that are loaded,
/// stored, cast and multiplied by dot, and nothing else (docs/language.md,
/// "8-bit floats").
bool isFloat8Type(mlir::Type type);
/// "f32", "ptr<f16>", "f32[128, 64]" (tiles), for messages.
std::string typeToString(mlir::Type type);
/// "[128, 64]" or "scalar".
std::string shapeToString(llvm::ArrayRef<int64_t> shape);
/// The element type of a tile, or the type itself.
mlir::Type elementType(mlir::Type type);
/// Shape of a tile; empty for scalars.
llvm::ArrayRef<int64_t> shapeOf(mlir::Type type);
/// numpy-style broadcast of two shapes (scalars are rank 0).
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);
/// Same element type with the given shape (scalar if empty).
mlir::Type withShape(mlir::Type elem, llvm::ArrayRef<int64_t> shape);
/// Whether an integer fits a signed integer type of `width` bits.
bool intFitsWidth(int64_t value, unsigned width);
/// Whether a float literal is representable (finite stays finite) in `type`.
bool floatFitsType(double value, mlir::Type type);
/// Closest name among candidates within edit distance 1..2, or "".
std::string closestName(llvm::StringRef name,
                        llvm::ArrayRef<std::string> candidates);

/// Checks kernel signatures and facts, expands specializations (clauses,
/// defaults, defines). Reports errors; kernels with errors in their
/// signature are dropped from the result.
std::vector<CheckedKernel> checkModule(const Module &module,
                                       const Options &options,
                                       mlir::MLIRContext &ctx,
                                       Diagnostics &diags);

/// The arguments a tensor parameter `name` of rank `rank` adds after its base
/// pointer: its sizes `name_dim0..` (i32, outermost first), then the strides
/// of all but the innermost dimension `name_stride0..` (i32, in elements;
/// the innermost stride is 1).
std::vector<std::string> tensorPartNames(llvm::StringRef name, int64_t rank);

/// Resolves a written type in a specialization (dtype constants substituted).
/// Reports and returns null on error.
mlir::Type resolveType(const TypeRef &ref, const Kernel &kernel,
                       const Specialization &spec, mlir::MLIRContext &ctx,
                       Diagnostics &diags);

/// The value of a clause's constant (group(N)'s N, stages(S)'s S) in one
/// specialization (not range checked: a constant parameter may be out of
/// range there), or nullopt if there is none. checkModule has checked the
/// clause's form.
std::optional<int64_t> clauseConstant(const Kernel &kernel,
                                      const ExprPtr &value,
                                      const Specialization &spec);

/// Converts a kernel's grid clause to three C expressions for one
/// specialization. Returns false (after reporting) on error.
bool gridToC(const Kernel &kernel, const Specialization &spec,
             mlir::MLIRContext &ctx, Diagnostics &diags,
             std::array<std::string, 3> &out);
/// The C condition of each require(...) clause (over the integer parameter
/// names, tensors' sizes as x_dimK, constants substituted), in order.
/// Returns false (after reporting) on error.
bool requiresToC(const Kernel &kernel, const Specialization &spec,
                 mlir::MLIRContext &ctx, Diagnostics &diags,
                 std::vector<std::string> &out);
/// The C condition of an `if` in the kernel body that reads only what the
/// host knows at launch (as a require(...) clause), or nullopt (after
/// reporting) if it reads anything else.
std::optional<std::string> conditionToC(const Kernel &kernel,
                                        const Specialization &spec,
                                        mlir::MLIRContext &ctx,
                                        Diagnostics &diags, const Expr &cond);

} // namespace kcc::frontend

#endif
