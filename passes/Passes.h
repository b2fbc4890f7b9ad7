//===- Passes.h - kcc tile IR and layout passes -------------------*- C++ -*-===//
//
// Every pass of this folder is declared in Passes.td (what it does, its
// options); this header only exposes what TableGen generates from it:
// createKcc<Name>(), createKcc<Name>(Kcc<Name>Options) and
// registerKccPasses(). pipeline/Pipeline.cpp orders them.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_PASSES_H
#define KCC_PASSES_PASSES_H

#include "ir/Dialect.h"
#include "mlir/Pass/Pass.h"

namespace kcc {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// registerKccPasses(): every pass of this folder (for kcc-opt).
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace kcc

#endif // KCC_PASSES_PASSES_H
