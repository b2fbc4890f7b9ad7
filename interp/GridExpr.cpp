//===- GridExpr.cpp - a launch's grid and coverage guards -----------------===//
//
// evaluateGrid and checkCoverageGuards (interp/Interpreter.h): the C
// expressions of kcc.grid and kcc.coverage, evaluated by ir/CExpr.h as the
// launch stubs evaluate them.
//
//===----------------------------------------------------------------------===//
#include "interp/Interpreter.h"

#include "ir/CExpr.h"
#include "ir/Dialect.h"

#include <algorithm>
#include <cstdint>

using namespace kcc::interp;

/// The value of integer parameter `name` of `func` in `args`, or of
/// num_multiprocessors(), if any.
static std::optional<int64_t> intArg(mlir::func::FuncOp func,
                                     const std::vector<KernelArg> &args,
                                     unsigned processors,
                                     std::string_view name) {
  if (name == kcc::kMultiprocessorsName)
    return int64_t(processors);
  auto names = func->getAttrOfType<mlir::ArrayAttr>("kcc.arg_names");
  mlir::ArrayRef<mlir::Type> inputs = func.getFunctionType().getInputs();
  for (size_t i = 0; names && i < names.size() && i < args.size(); ++i) {
    auto n = mlir::dyn_cast<mlir::StringAttr>(names[i]);
    if (n && n.getValue() == llvm::StringRef(name.data(), name.size()) &&
        !args[i].isPointer && i < inputs.size() && inputs[i].isInteger())
      return args[i].intValue;
  }
  return std::nullopt;
}

bool kcc::interp::checkCoverageGuards(mlir::func::FuncOp func,
                                      const std::vector<KernelArg> &args,
                                      unsigned processors, std::string &error) {
  // The kernel's require(...) clauses first, as the stubs check them.
  if (auto reqs = func->getAttrOfType<mlir::ArrayAttr>("kcc.requires"))
    for (auto entry : reqs.getAsRange<mlir::DictionaryAttr>()) {
      auto guard = entry.getAs<mlir::StringAttr>("guard");
      std::string when = entry.getAs<mlir::StringAttr>("when").str();
      int64_t holds = 0;
      if (!guard || !evaluateLaunchExpr(func, guard.getValue(), args,
                                        processors, holds, error)) {
        error = "require(" + when + "): " + error;
        return false;
      }
      if (!holds) {
        error = "require(" + when + ") (" +
                entry.getAs<mlir::StringAttr>("at").str() +
                ") is false for these arguments (the launch stubs refuse "
                "this launch)";
        return false;
      }
    }
  auto cov = func->getAttrOfType<mlir::ArrayAttr>("kcc.coverage");
  if (!cov)
    return true;
  for (auto entry : cov.getAsRange<mlir::DictionaryAttr>()) {
    auto guard = entry.getAs<mlir::StringAttr>("guard");
    if (!guard)
      continue;
    int64_t holds = 0;
    std::string tensor = entry.getAs<mlir::StringAttr>("tensor").str();
    if (!evaluateLaunchExpr(func, guard.getValue(), args, processors, holds,
                            error)) {
      error = "coverage guard of '" + tensor + "': " + error;
      return false;
    }
    if (!holds) {
      error = "the kernel's stores would leave part of tensor '" + tensor +
              "' unwritten with these sizes; kcc proved they cover it when " +
              entry.getAs<mlir::StringAttr>("when").str() +
              " (the launch stubs refuse this launch)";
      return false;
    }
  }
  return true;
}

bool kcc::interp::evaluateLaunchExpr(mlir::func::FuncOp func,
                                     llvm::StringRef expr,
                                     const std::vector<KernelArg> &args,
                                     unsigned processors, int64_t &value,
                                     std::string &error) {
  auto lookup = [&](std::string_view name) {
    return intArg(func, args, processors, name);
  };
  return evaluateCExpr(expr, lookup, value, error);
}

bool kcc::interp::evaluateGrid(mlir::func::FuncOp func,
                               const std::vector<KernelArg> &args,
                               unsigned processors, Grid &grid,
                               std::string &error) {
  auto exprs = func->getAttrOfType<mlir::ArrayAttr>("kcc.grid");
  auto names = func->getAttrOfType<mlir::ArrayAttr>("kcc.arg_names");
  if (!exprs || exprs.size() != 3 || !names) {
    error = "function '" + func.getSymName().str() +
            "' has no kcc.grid/kcc.arg_names (not a kcc kernel?)";
    return false;
  }
  for (unsigned d = 0; d < 3; ++d) {
    auto e = mlir::dyn_cast<mlir::StringAttr>(exprs[d]);
    std::string text = e ? e.str() : "";
    if (text.empty())
      text = "1";
    if (!evaluateLaunchExpr(func, text, args, processors, grid[d], error)) {
      error = "grid expression '" + text + "': " + error;
      return false;
    }
    if (grid[d] < 0) {
      error = "grid expression '" + text + "' is negative (" +
              std::to_string(grid[d]) + ")";
      return false;
    }
  }
  return true;
}

mlir::func::FuncOp kcc::interp::launchedBuild(mlir::func::FuncOp func,
                                              unsigned processors, Grid &grid) {
  mlir::func::FuncOp build = persistentBuildOf(func);
  auto perSm =
      build
          ? build->getAttrOfType<mlir::IntegerAttr>(KccDialect::kPersistentAttr)
          : mlir::IntegerAttr();
  if (!perSm)
    return func;
  int64_t ctas = int64_t(processors) * perSm.getInt();
  // Whole clusters, as the runtime launches a cluster kernel (it asks the
  // driver; the tile IR's kcc.cluster stands for that here, also on legs
  // whose target dropped it, where fewer CTAs only change the schedule).
  if (auto n =
          build->getAttrOfType<mlir::IntegerAttr>(KccDialect::kClusterAttr))
    ctas = std::max<int64_t>(ctas - ctas % n.getInt(), n.getInt());
  int64_t tiles = grid[0] * grid[1] * grid[2];
  if (tiles <= ctas || tiles > INT32_MAX)
    return func;
  grid = {ctas, 1, 1};
  return build;
}
