//===- Passes.td - NVIDIA target lowering passes -----------*- tablegen -*-===//
#ifndef KCC_NVIDIA_PASSES_TD
#define KCC_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

// Passes are added here, one file each (see backends/nvidia/*.cpp).

#endif // KCC_NVIDIA_PASSES_TD
