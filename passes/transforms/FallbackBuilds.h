//===- FallbackBuilds.h - how fallback builds are told apart ----*- C++ -*-===//
//
// kcc-add-fallback-builds (Passes.td) tags every location of a fallback
// build: a FusedLoc around the original location whose metadata is this
// prefix followed by the build's symbol. Diagnostics print the original
// location; the driver reads the tag to tell which fallback build a target
// refused (tools/kcc/Driver.cpp), and compiles the rest without it.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_TRANSFORMS_FALLBACKBUILDS_H
#define KCC_PASSES_TRANSFORMS_FALLBACKBUILDS_H

#include "llvm/ADT/StringRef.h"

namespace kcc {
inline constexpr llvm::StringLiteral kFallbackLocPrefix = "kcc.fallback:";
} // namespace kcc

#endif // KCC_PASSES_TRANSFORMS_FALLBACKBUILDS_H
