//===- Passes.td - kcc tile IR and layout passes -----------*- tablegen -*-===//
#ifndef KCC_PASSES_TD
#define KCC_PASSES_TD

include "mlir/Pass/PassBase.td"

// Passes are added here, one file each (see passes/*.cpp).

#endif // KCC_PASSES_TD
