//===- AdoptLoopAnnotations.cpp - loop metadata onto llvm.br --------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace kcc::gpu {
#define GEN_PASS_DEF_ADOPTLOOPANNOTATIONS
#include "backends/gpu/Passes.h.inc"
} // namespace kcc::gpu

using namespace mlir;

namespace {
struct AdoptLoopAnnotations
    : kcc::gpu::impl::AdoptLoopAnnotationsBase<AdoptLoopAnnotations> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::BrOp br) {
      if (auto a = br->getDiscardableAttr("llvm.loop_annotation")) {
        br.setLoopAnnotationAttr(cast<LLVM::LoopAnnotationAttr>(a));
        br->removeDiscardableAttr("llvm.loop_annotation");
      }
    });
  }
};
} // namespace
