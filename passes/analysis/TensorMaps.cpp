//===- TensorMaps.cpp - which tile accesses can be TMA copies -------------===//
#include "passes/analysis/TensorMaps.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/analysis/PersistentTiles.h"

#include "ir/Dialect.h"
#include "targets/TargetModel.h"
#include "targets/TmaRules.h"

#include "ir/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

std::optional<int64_t> kcc::tmaDataType(Type elem) {
  // CUtensorMapDataType values (cuda.h).
  if (elem.isInteger(1) || elem.isInteger(8) || kcc::isFloat8(elem))
    return 0; // UINT8: the bytes are copied as they are (fp8 included)
  if (elem.isInteger(16))
    return 1; // UINT16
  if (elem.isInteger(32))
    return 3; // INT32
  if (elem.isInteger(64))
    return 4; // INT64
  if (elem.isF16())
    return 6;
  if (elem.isF32())
    return 7;
  if (elem.isF64())
    return 8;
  if (elem.isBF16())
    return 9;
  return std::nullopt;
}

std::string kcc::tmaStaticRefusal(const TargetModel &target,
                                  ArrayRef<int64_t> box, Type elem,
                                  unsigned swizzle) {
  std::optional<int64_t> dtype = tmaDataType(elem);
  if (!dtype)
    return "TMA has no data type for this element type";
  // A tensor exactly the size of the box, with rows padded to 16 bytes: every
  // rule that depends on run-time values passes, so what fails is the box,
  // the element type or the swizzle.
  TmaTensorMapParams p;
  p.dtype = *dtype;
  p.rank = box.size();
  p.swizzle = swizzle == 0 ? 0 : swizzle == 32 ? 1 : swizzle == 64 ? 2 : 3;
  int64_t bytes = (tmaElementBits(*dtype) + 7) / 8;
  int64_t stride = 0;
  for (unsigned i = 0; i < box.size(); ++i) {
    int64_t d = box[box.size() - 1 - i]; // cuda.h: innermost first
    p.globalDim.push_back(d);
    p.boxDim.push_back(d);
    p.elementStrides.push_back(1);
    stride = i == 0 ? llvm::alignTo(d * bytes, 16) : stride * d;
    if (i + 1 < box.size())
      p.globalStrides.push_back(stride);
  }
  TmaVerdict verdict = checkTmaTensorMap(target, p);
  if (verdict.legal())
    return "";
  const TmaRuleFailure &f = verdict.failures.front();
  return "the TMA rule '" + f.rule.str() + "' refuses the box: " + f.message;
}

llvm::ArrayRef<int64_t> kcc::tileShapeOf(Operation *op) {
  if (auto load = dyn_cast<LoadTileOp>(op))
    return load.getType().getShape();
  return cast<RankedTensorType>(cast<StoreTileOp>(op).getValue().getType())
      .getShape();
}

SmallVector<int64_t> kcc::withBatchDims(Operation *op,
                                        ArrayRef<int64_t> shape) {
  size_t rank = isa<LoadTileOp>(op) ? cast<LoadTileOp>(op).getDims().size()
                                    : cast<StoreTileOp>(op).getDims().size();
  SmallVector<int64_t> out(rank - std::min(rank, shape.size()), 1);
  out.append(shape.begin(), shape.end());
  return out;
}

/// The base, sizes and strides of the tile access `op`.
static std::tuple<Value, ValueRange, ValueRange> tensorOf(Operation *op) {
  using namespace kcc;
  if (auto load = dyn_cast<LoadTileOp>(op))
    return {load.getBase(), load.getDims(), load.getStrides()};
  auto store = cast<StoreTileOp>(op);
  return {store.getBase(), store.getDims(), store.getStrides()};
}

ArrayAttr kcc::liftedTensorShape(Operation *op) {
  if (!op->hasAttr(KccDialect::kLiftedAttr))
    return nullptr;
  auto func = op->getParentOfType<func::FuncOp>();
  auto [base, dims, strides] = tensorOf(op);
  auto arg = dyn_cast<BlockArgument>(base);
  if (!func || !arg || arg.getOwner() != &func.getBody().front())
    return nullptr;
  Builder b(op->getContext());
  SmallVector<Attribute> shape;
  for (Value v : llvm::concat<Value>(dims, strides)) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      shape.push_back(b.getI32IntegerAttr(c.getSExtValue()));
      continue;
    }
    auto a = dyn_cast<BlockArgument>(v);
    if (!a || a.getOwner() != arg.getOwner())
      return nullptr;
    shape.push_back(b.getIndexAttr(a.getArgNumber()));
  }
  return b.getArrayAttr(shape);
}

std::optional<unsigned> kcc::tensorParamOf(Operation *op, std::string &why) {
  auto [base, dims, strides] = tensorOf(op);
  auto arg = dyn_cast<BlockArgument>(base);
  auto func = op->getParentOfType<func::FuncOp>();
  // A lifted tile of pointers: the stub encodes its map from the scalars.
  if (op->hasAttr(KccDialect::kLiftedAttr)) {
    if (liftedTensorShape(op))
      return arg.getArgNumber();
    why = "the lifted tile's sizes or strides are not kernel arguments or "
          "constants";
    return std::nullopt;
  }
  auto rank = arg && func && arg.getOwner() == &func.getBody().front()
                  ? func.getArgAttrOfType<IntegerAttr>(
                        arg.getArgNumber(), KccDialect::kTensorRankAttr)
                  : nullptr;
  if (!rank || rank.getInt() != int64_t(dims.size())) {
    why = "the tile's base is not the base pointer of a tensor parameter";
    return std::nullopt;
  }
  unsigned i = arg.getArgNumber();
  auto isArg = [&](Value v, unsigned n) {
    auto a = dyn_cast<BlockArgument>(v);
    return a && a.getOwner() == arg.getOwner() && a.getArgNumber() == n;
  };
  for (auto [d, v] : llvm::enumerate(dims))
    if (!isArg(v, i + 1 + d)) {
      why = "the tile's sizes are not the tensor parameter's own";
      return std::nullopt;
    }
  for (auto [d, v] : llvm::enumerate(strides))
    if (!isArg(v, i + 1 + dims.size() + d)) {
      why = "the tile's strides are not the tensor parameter's own";
      return std::nullopt;
    }
  return i;
}

/// Whether `v` is a constant +0 (what TMA fills out-of-tensor elements with).
static bool isPositiveZero(Value v) {
  Attribute a;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    a = c.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getValue().isZero();
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValue().isPosZero();
  return false;
}

std::string kcc::tmaAccessRefusal(Operation *op) {
  // Loads directly in an scf.for body are kcc-pipeline-tma-loads' to take.
  if (enclosingLoop(op) &&
      !(isa<LoadTileOp>(op) && isa<scf::ForOp>(op->getParentOp())))
    return "the access is inside a loop; kcc's TMA pipeline takes only "
           "load_tile directly in a for loop's body (stores and nested "
           "accesses use vector accesses)";
  auto load = dyn_cast<LoadTileOp>(op);
  if (load && load.getOther() && !isPositiveZero(load.getOther()))
    return "load_tile's `other` is not zero, and TMA fills out-of-tensor "
           "elements with zeros";
  return "";
}

Value kcc::tensorMapFor(Operation *op, std::string &why) {
  std::optional<unsigned> base = tensorParamOf(op, why);
  if (!base)
    return Value();
  auto func = op->getParentOfType<func::FuncOp>();
  Type elem = getElementTypeOrSelf(isa<LoadTileOp>(op)
                                       ? op->getResult(0).getType()
                                       : op->getOperand(0).getType());
  // A wgmma operand's map has the 128-byte swizzled box of one span.
  Type want =
      op->hasAttr(KccDialect::kMmaOperandAttr)
          ? TensorMapType::get(
                op->getContext(),
                withBatchDims(op, mmaOperandBox(tileShapeOf(op), elem)), elem,
                kMmaSwizzleBytes)
          : TensorMapType::get(op->getContext(),
                               withBatchDims(op, tileShapeOf(op)), elem, 0);
  ArrayAttr shape = liftedTensorShape(op);
  for (BlockArgument arg : func.getArguments())
    if (auto of = func.getArgAttrOfType<IntegerAttr>(
            arg.getArgNumber(), KccDialect::kTensorMapOfAttr))
      if (unsigned(of.getInt()) == *base && arg.getType() == want &&
          func.getArgAttr(arg.getArgNumber(),
                          KccDialect::kTensorMapShapeAttr) == shape)
        return arg;
  why = "the kernel has no tensor map for this tensor and box";
  return Value();
}

int64_t kcc::tmaPartsOf(Operation *op, TensorMapType map) {
  return tileShapeOf(op).back() / map.getBox().back();
}
