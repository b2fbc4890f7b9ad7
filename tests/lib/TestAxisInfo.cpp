//===- TestAxisInfo.cpp - print AxisInfo facts as remarks -----------------===//
//
// kcc-test-print-axis-info: lit tests check the analysis through these
// remarks (with -verify-diagnostics).
//
//===----------------------------------------------------------------------===//

#include "passes/analysis/AxisInfo.h"
#include "tests/lib/TestPasses.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kcc::test {
#define GEN_PASS_DEF_KCCTESTPRINTAXISINFO
#include "tests/lib/TestPasses.h.inc"
} // namespace kcc::test

namespace {
bool isTracked(Type type) {
  Type elem = getElementTypeOrSelf(type);
  return elem.isIntOrIndex() || isa<kcc::PtrType>(elem);
}

struct TestPrintAxisInfo
    : kcc::test::impl::KccTestPrintAxisInfoBase<TestPrintAxisInfo> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (func.isExternal())
        return;
      kcc::AxisInfoAnalysis analysis(func);
      auto remark = [&](Operation *op, StringRef prefix, Value v) {
        if (!isTracked(v.getType()))
          return;
        std::string text;
        llvm::raw_string_ostream os(text);
        os << prefix;
        analysis.get(v).print(os);
        op->emitRemark(text);
      };
      func.walk([&](Operation *op) {
        if (auto forOp = dyn_cast<scf::ForOp>(op)) {
          remark(op, "iv: ", forOp.getInductionVar());
          for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs()))
            remark(op, ("arg #" + Twine(i) + ": ").str(), arg);
        }
        for (OpResult result : op->getResults())
          remark(op,
                 op->getNumResults() > 1
                     ? ("result #" + Twine(result.getResultNumber()) + ": ").str()
                     : "",
                 result);
      });
    });
  }
};
} // namespace
