//===- AST.h - syntax tree of the kcc kernel language -------------*- C++ -*-===//
#ifndef KCC_FRONTEND_AST_H
#define KCC_FRONTEND_AST_H

#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kcc::frontend {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind { IntLit, FloatLit, BoolLit, Ident, Unary, Binary, Call, Index, List };

enum class BinOp {
  OrOr, AndAnd, Or, Xor, And, Eq, Ne, Lt, Le, Gt, Ge, Shl, Shr, Add, Sub, Mul,
  Div, Rem
};
enum class UnOp { Neg, Not, BitNot };

const char *binOpSpelling(BinOp op);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct CallArg {
  std::string keyword; // empty for positional arguments
  llvm::SMLoc keywordLoc;
  ExprPtr value;
};

/// One expression node; which fields are meaningful depends on `kind`.
struct Expr {
  ExprKind kind;
  llvm::SMLoc loc;        // operator / callee / literal location
  std::string name;       // Ident: the name; Call: the callee
  uint64_t intValue = 0;  // IntLit (magnitude; negative values via Unary Neg)
  bool intTooLarge = false;
  double floatValue = 0;  // FloatLit
  bool boolValue = false; // BoolLit
  BinOp binOp = BinOp::Add;
  UnOp unOp = UnOp::Neg;
  ExprPtr lhs, rhs;          // Binary (lhs, rhs), Unary (lhs), Index (lhs)
  std::vector<CallArg> args; // Call
  std::vector<ExprPtr> elements; // List
  std::vector<bool> indexIsNone; // Index: true for None, false for ':'

  Expr(ExprKind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
};

//===----------------------------------------------------------------------===//
// Types as written
//===----------------------------------------------------------------------===//

/// `f32`, `T` (a dtype constant), `ptr<...>` or `tensor<T, R>`.
struct TypeRef {
  llvm::SMLoc loc;
  std::string name;               // element type or dtype parameter name
  bool isPtr = false;
  /// tensor<T, R>: a strided rank-R tensor of T in global memory (a base
  /// pointer, R sizes and R-1 strides), accessed by block coordinates.
  bool isTensor = false;
  int64_t rank = 0;
  llvm::SMLoc rankLoc;
  std::unique_ptr<TypeRef> pointee; // for ptr<...> and tensor<...>
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind { Let, Assign, ExprStmt, If, For, While, Block };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind;
  llvm::SMLoc loc;
  // Let: `let`/`var` name [: type] = init. init may be null after a syntax
  // error (the name is then declared as poisoned to avoid follow-on errors).
  bool isMutable = false;
  std::string name;
  llvm::SMLoc nameLoc;
  std::unique_ptr<TypeRef> type;
  ExprPtr init;
  // Assign: name op= value. compoundOp valid if isCompound.
  bool isCompound = false;
  BinOp compoundOp = BinOp::Add;
  // ExprStmt: init holds the expression.
  // If: cond, thenBody, elseBody (may be null; an `else if` is a nested If).
  // While: cond, body.
  ExprPtr cond;
  std::string condText;          // If: the condition as written, on one line
  std::vector<StmtPtr> body;     // If then-branch, For body, Block contents
  std::vector<StmtPtr> elseBody; // If else-branch
  bool hasElse = false;
  // For: name in range(rangeArgs...)
  std::vector<ExprPtr> rangeArgs;

  Stmt(StmtKind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// A compile-time value as written: an integer, a boolean or a type name.
struct ConstValue {
  enum Kind { Int, Bool, Type } kind = Int;
  int64_t intValue = 0;
  bool boolValue = false;
  std::string typeName;
  llvm::SMLoc loc;
  bool valid = true;
};

struct ConstParam {
  std::string name;
  llvm::SMLoc loc;
  std::string kindName; // i32 | i64 | bool | dtype
  llvm::SMLoc kindLoc;
  bool hasDefault = false;
  ConstValue defaultValue;
  /// `NAME: i32 in (64, 128)`: a tunable constant. A specialize clause that
  /// leaves it unbound compiles every candidate and lets the compiler keep,
  /// per target, the one it ranks best (pipeline/SelectVariants.h).
  std::vector<ConstValue> candidates;
  llvm::SMLoc candidatesLoc;
};

struct Fact {
  enum Kind { Align, MultipleOf } kind;
  llvm::SMLoc loc;
  int64_t value = 0;
};

struct Param {
  std::string name;
  llvm::SMLoc loc;
  std::unique_ptr<TypeRef> type;
  std::vector<Fact> facts;
};

struct SpecBinding {
  std::string name;
  llvm::SMLoc loc;
  ConstValue value;
};

struct SpecializeClause {
  llvm::SMLoc loc;
  std::vector<SpecBinding> bindings;
};

struct Kernel {
  std::string name;
  llvm::SMLoc loc;
  std::vector<ConstParam> constParams;
  std::vector<Param> params;
  bool hasGrid = false;
  llvm::SMLoc gridLoc;
  std::vector<ExprPtr> grid;
  /// group(N): launch the 2-D grid as a 1-D grid in grouped order (N
  /// consecutive values of program_id(1) per group). `group` is N as
  /// written: an integer literal or a constant parameter's name.
  bool hasGroup = false;
  llvm::SMLoc groupLoc;
  ExprPtr group;
  /// stages(S): the K loops' pipeline depth (shared stages) for this
  /// kernel, over kcc --pipeline-stages; S as written, like group's N.
  bool hasStages = false;
  llvm::SMLoc stagesLoc;
  ExprPtr stages;
  std::vector<SpecializeClause> specializations;
  /// require(cond): launch preconditions the stubs check (`requireText` as
  /// written, for messages).
  std::vector<ExprPtr>
  requires;
  std::vector<std::string> requireText;
  std::vector<llvm::SMLoc> requireLocs; // where each condition starts
  std::vector<StmtPtr> body;
  llvm::SMLoc bodyEndLoc;
};

struct Module {
  std::vector<std::unique_ptr<Kernel>> kernels;
};

} // namespace kcc::frontend

#endif
