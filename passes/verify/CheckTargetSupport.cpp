//===- CheckTargetSupport.cpp - refuse what the target cannot run ---------===//
//
// kcc-check-target-support (Passes.td). The dots it accepts are computed
// with the interpreter's numerics (docs/language.md, "Matrix products")
// whichever path takes them: a tensor-core path where one applies, else the
// CUDA-core FMA lowering (backends/gpu/DotToFMA.cpp).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "ir/TargetLookup.h"
#include "targets/TargetModel.h"

#include "ir/Dialect.h"
#include "ir/ElementTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCCHECKTARGETSUPPORT
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// The matrix-multiply input kind (the `a` of the target model's
/// [mma] shapes) a kcc element type maps to, or "" if none can.
llvm::SmallVector<llvm::StringRef, 2> mmaInputNames(Type elem) {
  if (elem.isF32())
    return {"tf32", "f32"}; // NVIDIA tensor cores take f32 as tf32
  if (elem.isF64())
    return {"f64"};
  if (llvm::StringRef name = kcc::mmaOperandName(elem); !name.empty())
    return {name};
  return {};
}

/// The bytes of a CUDA kernel's parameter space for arguments of `types`:
/// each at its natural alignment, a TMA tensor map 128 bytes aligned to 64
/// (a __grid_constant__ CUtensorMap).
int64_t paramBytes(TypeRange types, unsigned &maps) {
  int64_t bytes = 0;
  maps = 0;
  for (Type t : types) {
    int64_t size = 8, align = 8;
    if (isa<kcc::TensorMapType>(t)) {
      size = 128, align = 64;
      ++maps;
    } else if (t.isIntOrFloat()) {
      size = std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
      align = size;
    }
    bytes = llvm::alignTo(bytes, align) + size;
  }
  return bytes;
}

/// The parameter space ptxas accepts for an entry function: 4352 bytes up
/// to PTX ISA 8.0, 32764 from 8.1 (CUDA 12.1's large kernel parameters).
int64_t maxParamBytes(const kcc::TargetModel &target) {
  return target.ptxIsa >= 81 ? 32764 : 4352;
}

/// The 8-bit float type in `t` (a scalar, a tile, a pointer's elements).
Type float8In(Type t) {
  if (auto tile = dyn_cast<RankedTensorType>(t))
    t = tile.getElementType();
  if (auto ptr = dyn_cast<kcc::PtrType>(t))
    t = ptr.getPointeeType();
  return kcc::isFloat8(t) ? t : Type();
}

struct CheckTargetSupport
    : kcc::impl::KccCheckTargetSupportBase<CheckTargetSupport> {
  using Base::Base;

  /// 8-bit floats need the target's conversions ([float8] of its model):
  /// one error per kernel, at its first value of an unsupported format.
  bool checkFloat8(const kcc::TargetModel &target) {
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      auto refuse = [&](Location loc, Type f8) {
        std::string name = kcc::elementTypeName(f8);
        InFlightDiagnostic diag = emitError(loc);
        diag << name << " values cannot be compiled for '" << target.name
             << "': ";
        if (target.float8.empty()) {
          diag << "it has no 8-bit float conversions or tensor-core "
                  "products (NVIDIA has them from sm_89, as f8e4m3 and "
                  "f8e5m2: compile for sm_90a or sm_100a; AMD from gfx942, "
                  "as f8e4m3fnuz and f8e5m2fnuz)";
        } else {
          // The two families: OCP (NVIDIA) and FNUZ (MI300).
          bool fnuz = kcc::isFnuzFloat8(f8);
          diag << "its 8-bit floats are "
               << (fnuz ? "the OCP formats f8e4m3 and f8e5m2 (NVIDIA's)"
                        : "MI300's FNUZ formats f8e4m3fnuz and f8e5m2fnuz "
                          "(exponent bias one more, no infinities, no -0, "
                          "NaN 0x80, largest 240 / 57344)")
               << ", not " << (fnuz ? "MI300's " : "the OCP ") << name
               << "; declare the tensors "
               << (fnuz ? "f8e4m3 / f8e5m2" : "f8e4m3fnuz / f8e5m2fnuz")
               << " for this target (a cast converts the values)";
        }
        diag << ", or use bf16 or f16";
        ok = false;
      };
      auto supported = [&](Type f8) {
        return llvm::is_contained(target.float8, kcc::mmaOperandName(f8));
      };
      bool refused = false;
      for (BlockArgument arg : func.getArguments())
        if (Type f8 = float8In(arg.getType()); f8 && !supported(f8)) {
          refuse(arg.getLoc(), f8);
          refused = true;
          break;
        }
      if (refused)
        continue;
      func.walk([&](Operation *op) {
        for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                               op->getResultTypes()))
          if (Type f8 = float8In(t); f8 && !supported(f8)) {
            refuse(op->getLoc(), f8);
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
    }
    return ok;
  }

  void runOnOperation() override {
    const kcc::TargetModel *model =
        kcc::lookupTarget(getOperation(), targetName, getArgument());
    if (!model)
      return signalPassFailure();
    const kcc::TargetModel &target = *model;
    bool ok = true;
    getOperation().walk([&](kcc::DotOp dot) {
      Type elem = dot.getA().getType().getElementType();
      // checkFloat8 explains 8-bit floats the target cannot hold at all.
      if (kcc::isFloat8(elem) &&
          !llvm::is_contained(target.float8, kcc::mmaOperandName(elem)))
        return;
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
      std::string elemName = kcc::elementTypeName(elem);
      InFlightDiagnostic diag = dot.emitError();
      diag << "target '" << target.name << "' has no matrix-multiply shape ("
           << (target.mma.instruction.empty() ? std::string("mma")
                                              : target.mma.instruction)
           << ") for " << elemName << " inputs";
      if (!usable.empty())
        diag << "; convert the operands to one of " << llvm::join(usable, ", ")
             << " (e.g. cast(a, " << usable.front() << "))";
    });
    ok &= checkFloat8(target);
    // LLVM 22's NVPTX backend emits every atomicrmw gpu-scoped
    // (backends/nvidia/NVVMTargetOps.cpp): a system-scoped one would be
    // silently weaker than asked.
    getOperation().walk([&](Operation *op) {
      std::optional<kcc::MemoryScope> scope;
      if (auto rmw = dyn_cast<kcc::AtomicRMWOp>(op))
        scope = rmw.getScope();
      else if (auto cas = dyn_cast<kcc::AtomicCASOp>(op))
        scope = cas.getScope();
      if (scope != kcc::MemoryScope::System ||
          target.vendor != kcc::Vendor::NVIDIA)
        return;
      ok = false;
      op->emitError() << "scope=system atomics are not supported on '"
                      << target.name
                      << "' by kcc 0.1 (its LLVM 22 backend emits only "
                         "gpu-scoped atomics there); use scope=gpu";
    });
    // Launch parameters beyond what ptxas accepts for the target (tensors
    // with TMA maps add 128 bytes each): refused here, at the kernel,
    // rather than by ptxas.
    if (target.vendor == kcc::Vendor::NVIDIA)
      for (auto func : getOperation().getOps<func::FuncOp>()) {
        if (!func->hasAttr(kcc::KccDialect::kKernelAttr))
          continue;
        unsigned maps = 0;
        int64_t bytes = paramBytes(func.getArgumentTypes(), maps);
        if (bytes <= maxParamBytes(target))
          continue;
        ok = false;
        InFlightDiagnostic diag = func.emitError();
        diag << "kernel '" << func.getSymName() << "' takes " << bytes
             << " bytes of launch parameters (" << func.getNumArguments() - maps
             << " arguments";
        if (maps)
          diag << " and " << maps
               << " TMA tensor maps of 128 bytes, one per tensor and tile "
                  "shape it copies";
        diag << "), more than the " << maxParamBytes(target) << " bytes "
             << target.name << " allows (PTX ISA " << target.ptxIsa / 10 << "."
             << target.ptxIsa % 10
             << "); pass fewer parameters (several matrices as one rank-3 "
                "tensor, sizes that are equal as one)";
      }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
