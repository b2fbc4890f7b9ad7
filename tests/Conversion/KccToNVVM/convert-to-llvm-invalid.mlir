// What this version does not lower gives an error, not a crash.
// RUN: not kcc-opt %s -split-input-file -kcc-allocate-shared-memory -kcc-convert-to-llvm 2>&1 | FileCheck %s
// A kernel that needs shared memory (a reduction's scratch, stages) without
// kcc-allocate-shared-memory first is refused at the kernel.
// RUN: not kcc-opt %s -split-input-file -kcc-convert-to-llvm 2>&1 | FileCheck %s --check-prefix=NOALLOC
#b = #kcc.blocked<vec = 1, threads = 32, warp = 32>
module {
  // NOALLOC: convert-to-llvm-invalid.mlir:[[@LINE+1]]:3: error: kcc: kernel 'k' uses shared memory but has no kcc.smem_bytes / kcc.smem_alignment: run kcc-allocate-shared-memory first (kcc-lower-to-llvm runs it before kcc-convert-to-llvm)
  func.func @k(%p: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    // CHECK: error: kcc: non-splat constant tiles are not lowered in kcc 0.1
    %a = arith.constant dense<[1, 2]> : tensor<2xi32, #b>
    %r = kcc.reduce sum %a {axis = 0 : i32} : tensor<2xi32, #b> -> i32
    kcc.store %p, %r : !kcc.ptr<i32>
    return
  }
}
// -----
module {
  func.func @k(%p: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    // CHECK: error: kcc: tile type 'tensor<32xi32>' has no #kcc.blocked layout
    %a = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
    return
  }
}
// -----
// Stages and mbarriers (lowered once placed: no error in the first RUN).
module {
  // NOALLOC: convert-to-llvm-invalid.mlir:[[@LINE+1]]:3: error: kcc: kernel 'stages' uses shared memory but has no kcc.smem_bytes / kcc.smem_alignment: run kcc-allocate-shared-memory first (kcc-lower-to-llvm runs it before kcc-convert-to-llvm)
  func.func @stages() attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %s = kcc.smem_alloc : !kcc.smem<[32, 32], f16, stages = 2, swizzle = 0>
    %bars = kcc.mbarrier_alloc : !kcc.mbarrier<2>
    return
  }
}
// CHECK-NOT: error:
