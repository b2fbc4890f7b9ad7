// kcc-convert-to-llvm creates each kernel's shared memory from what
// kcc-allocate-shared-memory recorded (kcc.smem_bytes, kcc.smem_alignment)
// and drops both: on NVIDIA an external zero-sized array, 1024-byte aligned,
// with the bytes in kcc.dynamic_smem_bytes for the launch; on AMD a static
// LDS array of that size and alignment. A kernel of 0 bytes gets none.
// RUN: kcc-opt %s -kcc-convert-to-llvm | FileCheck %s --check-prefix=NV --implicit-check-not=kcc.smem_ --implicit-check-not=llvm.mlir.global
// RUN: kcc-opt %s -kcc-convert-to-llvm=vendor=amd | FileCheck %s --check-prefix=AMD --implicit-check-not=kcc.smem_ --implicit-check-not=llvm.mlir.global --implicit-check-not=kcc.dynamic_smem_bytes

// NV: llvm.mlir.global external @__kcc_smem_k() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// NV-LABEL: llvm.func @k()
// NV-SAME: kcc.dynamic_smem_bytes = 4100 : i64
// NV-LABEL: llvm.func @none()
// AMD: llvm.mlir.global internal @__kcc_smem_k() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4100 x i8>
// AMD-LABEL: llvm.func @k()
// AMD-LABEL: llvm.func @none()
module {
  func.func @k() attributes {kcc.kernel, kcc.num_warps = 1 : i32, kcc.smem_alignment = 128 : i64, kcc.smem_bytes = 4100 : i64} {
    return
  }
  func.func @none() attributes {kcc.kernel, kcc.num_warps = 1 : i32, kcc.smem_alignment = 16 : i64, kcc.smem_bytes = 0 : i64} {
    return
  }
}
