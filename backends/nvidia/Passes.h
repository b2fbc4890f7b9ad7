//===- Passes.h - NVIDIA target lowering passes -------------------*- C++ -*-===//
#ifndef KCC_BACKENDS_NVIDIA_PASSES_H
#define KCC_BACKENDS_NVIDIA_PASSES_H

#include "ir/Dialect.h"
#include "mlir/Pass/Pass.h"

namespace kcc::nvidia {
#define GEN_PASS_DECL
#include "backends/nvidia/Passes.h.inc"

/// registerKccNVIDIAPasses(): every pass of this folder (for kcc-opt).
#define GEN_PASS_REGISTRATION
#include "backends/nvidia/Passes.h.inc"
} // namespace kcc::nvidia

#endif // KCC_BACKENDS_NVIDIA_PASSES_H
