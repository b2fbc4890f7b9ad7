//===- HostExpr.cpp - a kernel's i32 values as C over its parameters ------===//

#include "passes/analysis/HostExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace {
std::string print(Value v, ArrayAttr names, int depth) {
  if (depth > 32)
    return "";
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (!isa<func::FuncOp>(arg.getOwner()->getParentOp()) || !names ||
        arg.getArgNumber() >= names.size() || !arg.getType().isInteger(32))
      return "";
    auto name = dyn_cast<StringAttr>(names[arg.getArgNumber()]);
    return name ? name.str() : "";
  }
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto i = dyn_cast<IntegerAttr>(c.getValue());
    return i && i.getType().isInteger(32) ? std::to_string(i.getInt()) : "";
  }
  const char *infix = llvm::TypeSwitch<Operation *, const char *>(op)
                          .Case([](arith::AddIOp) { return "+"; })
                          .Case([](arith::SubIOp) { return "-"; })
                          .Case([](arith::MulIOp) { return "*"; })
                          .Case([](arith::DivSIOp) { return "/"; })
                          .Case([](arith::RemSIOp) { return "%"; })
                          .Default([](Operation *) { return nullptr; });
  bool isMin = isa<arith::MinSIOp>(op), isMax = isa<arith::MaxSIOp>(op);
  if ((!infix && !isMin && !isMax) || op->getNumOperands() != 2)
    return "";
  std::string l = print(op->getOperand(0), names, depth + 1);
  std::string r = print(op->getOperand(1), names, depth + 1);
  if (l.empty() || r.empty())
    return "";
  if (infix)
    return "(" + l + " " + infix + " " + r + ")";
  return llvm::formatv("(({0}) {1} ({2}) ? ({0}) : ({2}))", l,
                       isMin ? "<" : ">", r)
      .str();
}
} // namespace

std::string kcc::hostExpr(Value v, ArrayAttr names) {
  return print(v, names, 0);
}
