//===- Passes.td - NVIDIA target lowering passes -----------*- tablegen -*-===//
#ifndef KCC_NVIDIA_PASSES_TD
#define KCC_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

// Passes are added here, one file each (see backends/nvidia/*.cpp).

def ConvertKccToLLVM : Pass<"kcc-convert-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower layout-assigned kcc kernels to the LLVM dialect plus "
                "NVVM or ROCDL";
  let description = [{
    Every tile (ranked tensor with a `#kcc.blocked` encoding) becomes the
    per-thread registers of that layout (`vector<R x T>`; tiles of pointers
    become `vector<R x i64>` of addresses). `func.func` kernels become
    `llvm.func` with `nvvm.kernel` and `nvvm.maxntid` (NVIDIA) or
    `rocdl.kernel` and `rocdl.flat_work_group_size` (AMD). kcc ops are lowered to
    LLVM/NVVM; arith, math (except the ones lowered to NVVM approximations or
    libdevice calls here), scf stay on converted types and are lowered by the
    upstream passes of the `kcc-lower-to-llvm` pipeline.
  }];
  let options = [
    Option<"vendor", "vendor", "std::string", /*default=*/"\"nvidia\"",
           "Target vendor: nvidia (NVVM, 32-lane warps) or amd (ROCDL, "
           "64-lane waves)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // KCC_NVIDIA_PASSES_TD
