//===- AddTensorMaps.cpp - the tensor maps a kernel receives --------------===//
//
// kcc-add-tensor-maps (Passes.td). The argument list must be the same for
// every NVIDIA target of a fatbin because one launch stub serves them all:
// hence one pass over the shared tile IR, judging each box on every target,
// and maps declared by images that do not use them (an unused grid-constant
// parameter costs nothing).
//
//===----------------------------------------------------------------------===//

#include "passes/analysis/AxisInfo.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/Passes.h"
#include "passes/analysis/TensorMaps.h"

#include "ir/TargetLookup.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCADDTENSORMAPS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

struct AddTensorMaps : kcc::impl::KccAddTensorMapsBase<AddTensorMaps> {
  using Base::Base;

  void runOnOperation() override {
    targets.clear();
    for (const std::string &name : targetNames) {
      const kcc::TargetModel *t =
          kcc::lookupTarget(getOperation(), name, getArgument());
      if (!t)
        return signalPassFailure();
      targets.push_back(t);
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal() &&
          !func->hasAttr(kcc::KccDialect::kFallbackOfAttr))
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    auto names =
        func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kArgNamesAttr);
    // (base argument, box type) -> whether a map was added; in first-use
    // order, so the argument list is deterministic.
    llvm::MapVector<std::tuple<unsigned, Type, Attribute>, bool> maps;
    // A dot takes both operands from TMA stages or neither: a lifted
    // operand whose facts refuse TMA keeps its partner off TMA too.
    func.walk([&](kcc::DotOp dot) {
      auto tileOf = [](Value v) {
        if (auto trans = v.getDefiningOp<kcc::TransOp>())
          v = trans.getSrc();
        return v.getDefiningOp<kcc::LoadTileOp>();
      };
      kcc::LoadTileOp a = tileOf(dot.getA()), b = tileOf(dot.getB());
      if (!a || !b)
        return;
      for (auto [refused, other] : {std::pair(a, b), std::pair(b, a)}) {
        auto why = refused->getAttrOfType<StringAttr>(
            kcc::KccDialect::kTmaRefusedAttr);
        if (why && !other->hasAttr(kcc::KccDialect::kTmaRefusedAttr))
          other->setAttr(kcc::KccDialect::kTmaRefusedAttr,
                         StringAttr::get(ctx, "the other operand of its dot "
                                              "is not a TMA copy (" +
                                                  why.str() + ")"));
      }
    });
    func.walk([&](Operation *op) {
      if (!isa<kcc::LoadTileOp, kcc::StoreTileOp>(op))
        return;
      std::string why;
      std::optional<unsigned> base = kcc::tensorParamOf(op, why);
      ArrayRef<int64_t> shape = kcc::tileShapeOf(op);
      Type elem = getElementTypeOrSelf(
          isa<kcc::LoadTileOp>(op) ? op->getResult(0).getType()
                                   : op->getOperand(0).getType());
      if (base)
        why = kcc::tmaAccessRefusal(op);
      // Descriptor synthesis found the declared facts short of TMA's rules.
      if (auto refused =
              op->getAttrOfType<StringAttr>(kcc::KccDialect::kTmaRefusedAttr);
          base && why.empty() && refused)
        why = refused.str();
      if (base && why.empty() && targets.empty())
        why = "no target with TMA was requested";
      // An operand of dots that some target runs as wgmma gets the 128-byte
      // swizzled box wgmma reads (the other targets then use vector loads).
      SmallVector<int64_t> box = kcc::withBatchDims(op, shape);
      unsigned swizzle = 0;
      if (auto load = dyn_cast<kcc::LoadTileOp>(op); load && why.empty())
        for (const kcc::TargetModel *t : targets)
          if (kcc::mmaOperandRefusal(load, *t).empty()) {
            box = kcc::withBatchDims(op, kcc::mmaOperandBox(shape, elem));
            swizzle = kcc::kMmaSwizzleBytes;
            op->setAttr(kcc::KccDialect::kMmaOperandAttr, UnitAttr::get(ctx));
            break;
          }
      // A GEMM's C tile leaves from the accumulator registers, row pieces
      // of 8 or more rows at once: in 128-byte swizzled boxes those rows
      // fall in different banks (an unswizzled 128-byte-multiple row pitch
      // puts them all in the same ones).
      if (auto store = dyn_cast<kcc::StoreTileOp>(op);
          store && why.empty() && shape.size() == 2 &&
          shape.back() * kcc::getElementBytes(elem) % kcc::kMmaSwizzleBytes ==
              0 &&
          kcc::storesMmaAccumulator(store, targets)) {
        box = kcc::withBatchDims(op, kcc::mmaOperandBox(shape, elem));
        swizzle = kcc::kMmaSwizzleBytes;
        op->setAttr(kcc::KccDialect::kMmaOperandAttr, UnitAttr::get(ctx));
      }
      for (const kcc::TargetModel *t :
           why.empty() ? targets : decltype(targets)()) {
        std::string refusal = kcc::tmaStaticRefusal(*t, box, elem, swizzle);
        if (!refusal.empty()) {
          why = "on " + t->name + ", " + refusal;
          break;
        }
      }
      if (!why.empty()) {
        op->removeAttr(kcc::KccDialect::kMmaOperandAttr);
        op->setAttr(kcc::KccDialect::kTmaRefusedAttr, StringAttr::get(ctx, why));
        return;
      }
      maps.insert({{*base, kcc::TensorMapType::get(ctx, box, elem, swizzle),
                    kcc::liftedTensorShape(op)},
                   true});
    });
    // Why each dot misses the main tensor-core instruction of a target
    // that has one (--report explains the fallback with it).
    func.walk([&](kcc::DotOp dot) {
      SmallVector<NamedAttribute> refused;
      for (const kcc::TargetModel *t : targets) {
        if (!kcc::hasStagedMma(*t))
          continue;
        std::string why = kcc::stagedMmaRefusal(dot, *t);
        if (!why.empty())
          refused.push_back(NamedAttribute(StringAttr::get(ctx, t->name),
                                           StringAttr::get(ctx, why)));
      }
      if (!refused.empty())
        dot->setAttr(kcc::KccDialect::kTensorCoreRefusedAttr,
                     DictionaryAttr::get(ctx, refused));
    });
    SmallVector<Attribute> newNames(names ? names.getValue()
                                          : ArrayRef<Attribute>());
    for (auto &[key, added] : maps) {
      auto [base, type, shape] = key;
      unsigned index = func.getNumArguments();
      SmallVector<NamedAttribute> argAttrs = {
          NamedAttribute(StringAttr::get(ctx, kcc::KccDialect::kTensorMapOfAttr),
                         IntegerAttr::get(IntegerType::get(ctx, 32), base))};
      if (shape)
        argAttrs.push_back(NamedAttribute(
            StringAttr::get(ctx, kcc::KccDialect::kTensorMapShapeAttr), shape));
      auto attrs = DictionaryAttr::get(ctx, argAttrs);
      if (failed(func.insertArgument(index, type, attrs, func.getLoc())))
        return signalPassFailure();
      std::string name = "tma_map";
      if (names && base < names.size())
        name = cast<StringAttr>(names[base]).str() + "_map";
      for (int64_t d : cast<kcc::TensorMapType>(type).getBox())
        name += "_" + std::to_string(d);
      // Two views of one pointer with the same box (lifted tiles).
      std::string unique = name;
      for (unsigned n = 2; llvm::any_of(newNames, [&](Attribute a) {
             return cast<StringAttr>(a).getValue() == unique;
           });
           ++n)
        unique = name + "_" + std::to_string(n);
      newNames.push_back(StringAttr::get(ctx, unique));
    }
    if (names)
      func->setAttr(kcc::KccDialect::kArgNamesAttr,
                    ArrayAttr::get(ctx, newNames));
  }

  /// The models `targets` names, in its order.
  std::vector<const kcc::TargetModel *> targets;
};

} // namespace
