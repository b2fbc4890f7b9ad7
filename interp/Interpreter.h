//===- Interpreter.h - tile IR reference interpreter --------------*- C++
//-*-===//
//
// Executes one specialization (a `func.func` of the kcc tile IR, as the
// frontend emits it, before layout assignment) on the CPU for every program
// id of a grid: the semantic reference that GPU results are compared with
// (kcc-difftest, docs/difftest.md). Programs run one after the other, x
// fastest; a kernel whose programs depend on each other's writes is racy on
// a GPU and has no single reference result.
//
// Semantics follow the NVIDIA lowering (backends/nvidia):
// - masked-off load lanes take `other`, or zero when there is none;
//   masked-off store lanes write nothing and are not bounds-checked;
// - an access by an active lane outside its buffer is an error (buffer,
//   element offset, program id, the op's source location), never UB;
// - integer division/remainder by zero or MIN / -1, shifts by >= the bit
//   width, fptosi of NaN or an out-of-range value, and an scf.for induction
//   variable that would wrap are errors: LLVM makes them poison or UB;
// - floats are computed exactly and rounded once to the element type (round
//   to nearest even), which for + - * / sqrt fma gives the IEEE result; exp,
//   log, exp2, rsqrt are computed in double and rounded, so they may differ
//   from the GPU's approximations by a few ulps;
// - reductions accumulate in the element type, sequentially in index order;
//   the GPU reduces in a tree, so float sums may differ by reassociation
//   (kcc-difftest's tolerances account for it); max/min propagate NaN;
// - dot accumulates in the accumulator's type; 16-bit float inputs are
//   multiplied and summed in f32.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_INTERP_INTERPRETER_H
#define KCC_INTERP_INTERPRETER_H

#include "interp/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Location.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace kcc::interp {

/// One buffer of "global memory": a name (for messages) and its contents.
struct Buffer {
  std::string name;
  NpyArray array;
};

/// One kernel argument: a scalar, or a pointer to element `offset` of
/// buffers[`buffer`].
struct KernelArg {
  bool isPointer = false;
  int64_t intValue = 0;  // integer scalars (any width, sign-extended)
  double floatValue = 0; // float scalars (rounded to the parameter's type)
  unsigned buffer = 0;
  int64_t offset = 0;
};

using Grid = std::array<int64_t, 3>;

/// Why a run stopped: the message, where (the op's location; unknown for
/// argument errors) and in which program.
struct RunError {
  std::string message;
  mlir::Location loc;
  Grid programId = {0, 0, 0};
  bool budgetExhausted = false; // runKernel's maxSteps ran out
};

struct RunStats {
  uint64_t programs = 0;
  uint64_t ops = 0;      // operations executed
  uint64_t elements = 0; // tile elements they produced
};

/// Runs `func` over `grid` on `buffers`. Checks the arguments against the
/// signature first (count, scalar vs pointer, pointee type vs buffer dtype).
/// On error the buffers hold what the programs before it (and the failing
/// program up to the failing op) wrote. `maxSteps` (0: none) bounds the
/// operations the whole launch executes: past it the run stops with an
/// error at the op it reached (`budgetExhausted`), so a loop that never
/// ends is an error, not a hang.
std::optional<RunError> runKernel(mlir::func::FuncOp func,
                                  const std::vector<KernelArg> &args,
                                  std::vector<Buffer> &buffers,
                                  const Grid &grid, RunStats *stats = nullptr,
                                  uint64_t maxSteps = 0);

/// The launch grid of `func` (its `kcc.grid` C expressions) for the integer
/// scalar arguments `args` (by `kcc.arg_names`) on a device of `processors`
/// multiprocessors (num_multiprocessors()). Fails with a message on a
/// division by zero, a negative size, an unknown name or a malformed
/// expression.
bool evaluateGrid(mlir::func::FuncOp func, const std::vector<KernelArg> &args,
                  unsigned processors, Grid &grid, std::string &error);

/// What the runtime launches for `func` over `grid` on a device of
/// `processors` multiprocessors: its persistent build (kcc.persistent = P,
/// kcc.persistent_of = @func) over (processors * P, 1, 1) when it has one
/// and the grid has more than processors * P tiles (x * y * z, at most
/// INT32_MAX); otherwise `func` and `grid` as they are.
mlir::func::FuncOp launchedBuild(mlir::func::FuncOp func, unsigned processors,
                                 Grid &grid);

/// The require(...) clauses (`kcc.requires`) and coverage guards
/// (`kcc.coverage`, from kcc-prove-tile-coverage) of `func` for `args`:
/// false with a message if one is false, as the launch stubs refuse such a
/// launch.
bool checkCoverageGuards(mlir::func::FuncOp func,
                         const std::vector<KernelArg> &args,
                         unsigned processors, std::string &error);

/// `expr`, a C expression over the integer parameter names of `func` and
/// num_multiprocessors() (a grid size or launch guard, as the stubs compute
/// it), for `args`: its value, or false with a message.
bool evaluateLaunchExpr(mlir::func::FuncOp func, llvm::StringRef expr,
                        const std::vector<KernelArg> &args, unsigned processors,
                        int64_t &value, std::string &error);

/// The first file:line:col inside `loc` (through name, call-site and fused
/// locations), if any.
std::optional<mlir::FileLineColLoc> findFileLineCol(mlir::Location loc);

} // namespace kcc::interp

#endif
