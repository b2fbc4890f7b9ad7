//===- AddFallbackBuilds.cpp - builds for tensors outside the contract ----===//
//
// kcc-add-fallback-builds (Passes.td). A kernel over tensor<> parameters is
// compiled assuming the tensor contract (16-byte aligned bases, row strides
// that are non-negative multiples of 16 bytes): TMA needs it, and so do the
// 16-byte vector accesses of the other paths. A tensor that breaks it (a
// 1001 x 2999 f32 matrix, a view at an odd offset) is still a valid tensor,
// so the kernel gets a second build that assumes only what the user
// declared; the launch stub runs it when the given tensors break the
// contract. The copy carries no tensor maps (kcc-add-tensor-maps skips it),
// so every access in it takes the vector path with widths the analyses
// prove from the facts that are left.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/KernelBuilds.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCADDFALLBACKBUILDS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// The tensor base arguments of `func` (kcc.tensor_rank) with their rank.
SmallVector<std::pair<unsigned, int64_t>> tensorBases(func::FuncOp func) {
  SmallVector<std::pair<unsigned, int64_t>> bases;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto rank = func.getArgAttrOfType<IntegerAttr>(
            i, kcc::KccDialect::kTensorRankAttr))
      bases.push_back({i, rank.getInt()});
  return bases;
}

struct AddFallbackBuilds
    : kcc::impl::KccAddFallbackBuildsBase<AddFallbackBuilds> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The list is taken first: the copies are added as it goes.
    auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (!func->hasAttr(kcc::KccDialect::kKernelAttr) || func.isExternal() ||
          kcc::isLaunchedBuild(func))
        continue;
      auto bases = tensorBases(func);
      if (bases.empty())
        continue;
      FailureOr<func::FuncOp> built =
          kcc::cloneBuild(func, "__fallback", kcc::KccDialect::kFallbackOfAttr,
                          "a fallback build");
      if (failed(built))
        return signalPassFailure();
      func::FuncOp copy = *built;
      // Its errors are told apart from its kernel's by a tag on every
      // location (KernelBuilds.h); they print as the source location.
      kcc::tagBuildLocations(copy, kcc::kFallbackLocPrefix);
      for (auto [arg, rank] : bases) {
        // Only an alignment the user asked for beyond the contract's 16
        // bytes stays (an align(N) of the parameter); strides lose theirs.
        auto elem =
            cast<kcc::PtrType>(func.getArgumentTypes()[arg]).getPointeeType();
        int64_t elemBytes =
            std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
        auto align = copy.getArgAttrOfType<IntegerAttr>(
            arg, kcc::KccDialect::kAlignAttr);
        if (!align || align.getInt() <= 16)
          copy.setArgAttr(arg, kcc::KccDialect::kAlignAttr,
                          Builder(&getContext()).getI64IntegerAttr(elemBytes));
        for (int64_t d = 0; d + 1 < rank; ++d)
          copy.removeArgAttr(arg + rank + 1 + d,
                             kcc::KccDialect::kDivisibilityAttr);
      }
    }
  }
};

} // namespace
