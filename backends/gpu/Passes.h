//===- Passes.h - vendor-neutral lowering passes ------------------*- C++ -*-===//
#ifndef KCC_BACKENDS_GPU_PASSES_H
#define KCC_BACKENDS_GPU_PASSES_H

#include "ir/Dialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Pass/Pass.h"

namespace kcc::gpu {
#define GEN_PASS_DECL
#include "backends/gpu/Passes.h.inc"

/// registerKccGPUPasses(): every pass of this folder (for kcc-opt).
#define GEN_PASS_REGISTRATION
#include "backends/gpu/Passes.h.inc"
} // namespace kcc::gpu

#endif // KCC_BACKENDS_GPU_PASSES_H
