//===- CheckTargetSupport.cpp - refuse what the target cannot run ---------===//
//
// Runs before layout assignment: an operation the target has no instructions
// for (today: dot on element types without a matrix-multiply shape in the
// target model) is an error at its source location, not a failure deep in
// the lowering.
//
// dot is accepted on the element types the target's matrix-multiply
// instructions take, whichever path then computes it: a tensor-core path
// where one applies, else the CUDA-core FMA lowering
// (backends/nvidia/DotToFMA.cpp), which computes every accepted type with
// the interpreter's numerics (docs/language.md, "Matrix products"). It could
// compute other integer and float types too; they stay refused, so that
// whether a kernel compiles for a target does not depend on which path its
// dots take.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "targets/TargetModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace {

/// The matrix-multiply input kind (the `a` of the target model's
/// [mma] shapes) a kcc element type maps to, or "" if none can.
llvm::SmallVector<llvm::StringRef, 2> mmaInputNames(Type elem) {
  if (elem.isF16())
    return {"f16"};
  if (elem.isBF16())
    return {"bf16"};
  if (elem.isF32())
    return {"tf32", "f32"}; // NVIDIA tensor cores take f32 as tf32
  if (elem.isF64())
    return {"f64"};
  if (elem.isInteger(8))
    return {"s8"}; // kcc integers are signed
  return {};
}

/// Checks that every operation of the module can be compiled for the target
/// at all, before layouts are chosen: an error at the operation's source
/// location instead of a failure deep in the lowering.
struct CheckTargetSupport
    : PassWrapper<CheckTargetSupport, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckTargetSupport)

  explicit CheckTargetSupport(const kcc::TargetModel &target)
      : target(target) {}
  StringRef getArgument() const override { return "kcc-check-target-support"; }

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](kcc::DotOp dot) {
      Type elem = dot.getA().getType().getElementType();
      llvm::SmallVector<llvm::StringRef, 2> names = mmaInputNames(elem);
      if (llvm::any_of(target.mma.shapes, [&](const kcc::MmaShape &s) {
            return llvm::is_contained(names, s.a);
          }))
        return;
      ok = false;
      if (target.mma.shapes.empty()) {
        dot.emitError() << "target '" << target.name
                        << "' has no matrix-multiply instructions (its target "
                           "model lists no [mma] shapes), so dot cannot be "
                           "compiled for it; remove dot or pick another "
                           "--target";
        return;
      }
      // The kcc element types the target's shapes accept, for the hint.
      Builder b(&getContext());
      std::pair<const char *, Type> candidates[] = {{"f16", b.getF16Type()},
                                                    {"bf16", b.getBF16Type()},
                                                    {"f32", b.getF32Type()},
                                                    {"f64", b.getF64Type()},
                                                    {"i8", b.getI8Type()}};
      llvm::SmallVector<llvm::StringRef> usable;
      for (auto [name, type] : candidates) {
        llvm::SmallVector<llvm::StringRef, 2> n = mmaInputNames(type);
        if (llvm::any_of(target.mma.shapes, [&](const kcc::MmaShape &s) {
              return llvm::is_contained(n, s.a);
            }))
          usable.push_back(name);
      }
      std::string elemName;
      llvm::raw_string_ostream os(elemName);
      elem.print(os);
      InFlightDiagnostic diag = dot.emitError();
      diag << "target '" << target.name << "' has no matrix-multiply shape ("
           << (target.mma.instruction.empty() ? std::string("mma")
                                              : target.mma.instruction)
           << ") for " << elemName << " inputs";
      if (!usable.empty())
        diag << "; convert the operands to one of " << llvm::join(usable, ", ")
             << " (e.g. cast(a, " << usable.front() << "))";
    });
    if (!ok)
      signalPassFailure();
  }

  const kcc::TargetModel &target;
};

} // namespace

std::unique_ptr<Pass>
kcc::createCheckTargetSupport(const TargetModel &target) {
  return std::make_unique<CheckTargetSupport>(target);
}
