// kcc-allocate-shared-memory's errors: a kernel whose shared memory does not
// fit what one block may use is refused at the kernel, with both numbers and
// the target's name (the module's kcc.target, else "this target"); the limit
// is max-shared-bytes, else the vendor's built-in model's (gfx942: 64 KiB).
// A dot whose staging alone does not fit: tests/Conversion/KccToNVVM/dot-invalid.mlir.
// RUN: not kcc-opt %s -split-input-file --kcc-allocate-shared-memory=max-shared-bytes=4096 -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not kcc-opt %s -split-input-file --kcc-allocate-shared-memory=vendor=amd -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMD --implicit-check-not=error:
// RUN: not kcc-opt %s -split-input-file --kcc-allocate-shared-memory=vendor=intel -o /dev/null 2>&1 | FileCheck %s --check-prefix=VENDOR

// VENDOR: error: kcc-allocate-shared-memory: unknown vendor 'intel'; valid vendors are nvidia and amd

#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  // CHECK: allocate-shared-memory-invalid.mlir:[[@LINE+1]]:3: error: kcc: kernel needs 4360 bytes of shared memory (256 for layout conversions and reductions, 4104 for TMA stages and mbarriers), more than the 4096 bytes one block may use on this target
  func.func @stages(%p: !kcc.ptr<f32>, %f: f32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %stages = kcc.smem_alloc : !kcc.smem<[32, 32], f16, stages = 2, swizzle = 0>
    %bars = kcc.mbarrier_alloc : !kcc.mbarrier<1>
    %x = kcc.splat %f : tensor<512xf32, #b>
    %s = kcc.reduce sum %x {axis = 0 : i32} : tensor<512xf32, #b> -> f32
    kcc.store %p, %s : !kcc.ptr<f32>
    return
  }
}

// -----

#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module attributes {kcc.target = "sm_80"} {
  // CHECK: allocate-shared-memory-invalid.mlir:[[@LINE+1]]:3: error: kcc: kernel needs 8192 bytes of shared memory (8192 for layout conversions and reductions), more than the 4096 bytes one block may use on sm_80
  func.func @scratch(%f: f32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %x = kcc.splat %f : tensor<64x32xf32, #b>
    %t = kcc.trans %x : tensor<64x32xf32, #b> -> tensor<32x64xf32, #b>
    return
  }
}

// -----

module {
  // CHECK: allocate-shared-memory-invalid.mlir:[[@LINE+2]]:3: error: kcc: kernel needs 131072 bytes of shared memory (0 for layout conversions and reductions, 131072 for TMA stages and mbarriers), more than the 4096 bytes one block may use on this target
  // AMD: allocate-shared-memory-invalid.mlir:[[@LINE+1]]:3: error: kcc: kernel needs 131072 bytes of shared memory (0 for layout conversions and reductions, 131072 for TMA stages and mbarriers), more than the 65536 bytes one block may use on this target
  func.func @big() attributes {kcc.kernel} {
    %b = kcc.smem_alloc : !kcc.smem<[128, 128], f32, stages = 2, swizzle = 0>
    return
  }
}
