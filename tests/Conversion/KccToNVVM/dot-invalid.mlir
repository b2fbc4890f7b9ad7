// kcc.dot's CUDA-core lowering stages a and b in shared memory: a dot whose
// operands do not fit in what one block may use is an error at the dot (and
// not also the kernel's total), with no crash.
// RUN: not kcc-opt %s -kcc-allocate-shared-memory=max-shared-bytes=8192 2>&1 | FileCheck %s
// RUN: kcc-opt %s -kcc-allocate-shared-memory=max-shared-bytes=8320 -kcc-convert-to-llvm | FileCheck %s --check-prefix=FITS
// a: 32 rows of 33 floats (4224 bytes); b: 32 x 32 floats (4096 bytes).
// CHECK: dot-invalid.mlir:[[@LINE+7]]:10: error: kcc: dot needs 8320 bytes of shared memory for a (32x32 f32) and b (32x32 f32), which its CUDA-core lowering stages there: more than the 8192 bytes one block may use on this target; use smaller tiles (e.g. a loop over K)
// CHECK-NOT: error:
// FITS: kcc.dynamic_smem_bytes = 8320
#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @mm(%p: !kcc.ptr<f32>) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %a = arith.constant dense<1.0> : tensor<32x32xf32, #b>
    %c = kcc.dot %a, %a, %a : tensor<32x32xf32, #b>, tensor<32x32xf32, #b> -> tensor<32x32xf32, #b>
    %s = kcc.splat %p : tensor<32x32x!kcc.ptr<f32>, #b>
    kcc.store %s, %c : tensor<32x32x!kcc.ptr<f32>, #b>
    return
  }
}
