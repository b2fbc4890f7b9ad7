//===- ExpandMathFunctions.cpp - tanh and erf as polynomials --------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kcc::gpu {
#define GEN_PASS_DEF_EXPANDMATHFUNCTIONS
#include "backends/gpu/Passes.h.inc"
} // namespace kcc::gpu

using namespace mlir;

namespace {
struct ExpandMathFunctions
    : kcc::gpu::impl::ExpandMathFunctionsBase<ExpandMathFunctions> {
  void runOnOperation() override {
    bool tiles = false;
    getOperation().walk([&](Operation *op) {
      if (isa<math::TanhOp, math::ErfOp>(op) &&
          isa<RankedTensorType>(op->getResult(0).getType()))
        tiles = true;
    });
    if (tiles) {
      getOperation().emitError("kcc: internal error: tanh/erf on a tile "
                               "reached kcc-expand-math-functions (it runs "
                               "after kcc-convert-to-llvm)");
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateTanhPattern(patterns);
    populatePolynomialApproximateErfPattern(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
