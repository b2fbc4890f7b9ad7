//===- ROCDLLowering.h - the AMD part of kcc-convert-to-llvm ------*- C++ -*-===//
//
// ROCDL target ops (wave64, DPP / ds_swizzle / ds_bpermute exchanges) and
// MFMA, over the vendor-neutral lowering of backends/gpu.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_AMD_ROCDLLOWERING_H
#define KCC_BACKENDS_AMD_ROCDLLOWERING_H

#include "backends/gpu/LoweringUtils.h"

namespace kcc::amd {
using gpu::KccTypeConverter;
using gpu::TargetOps;

/// Registers the "amd" vendor of kcc-convert-to-llvm (idempotent).
void registerROCDLLowering();

/// ROCDL (wave64): workitem.id.x, s_barrier with workgroup fences,
/// ds_swizzle / ds_bpermute, amdgpu_kernel with flat work-group size.
std::unique_ptr<TargetOps> createROCDLTargetOps();

/// Casts to and from the FNUZ 8-bit floats, and 8-bit float constants
/// (Float8ToROCDL.cpp).
void populateFloat8Patterns(KccTypeConverter &tc,
                            mlir::RewritePatternSet &patterns,
                            mlir::ConversionTarget &target);

/// kcc.dot with an MFMA accumulator (DotToMfma.cpp).
void populateDotMfmaPatterns(KccTypeConverter &tc,
                             mlir::RewritePatternSet &patterns);
} // namespace kcc::amd

#endif // KCC_BACKENDS_AMD_ROCDLLOWERING_H
