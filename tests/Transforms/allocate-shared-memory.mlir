// kcc-allocate-shared-memory: the scratch of relayouts and reductions (the
// largest one op needs) at offset 0, then the async buffers, the most
// aligned first and in program order within an alignment, each rounded up
// to its alignment (kcc.smem_offset); the kernel records the total and the
// alignment its buffers need (at least 16). A limit the total just fits is
// not an error.
// RUN: kcc-opt %s --kcc-allocate-shared-memory | FileCheck %s
// RUN: kcc-opt %s --kcc-allocate-shared-memory=max-shared-bytes=13468 | FileCheck %s
// RUN: kcc-opt %s "--kcc-allocate-shared-memory=vendor=amd max-shared-bytes=13468" | FileCheck %s

#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>

// A 1-D reduction's 256 bytes of scratch; then the 1024-aligned swizzled
// stage at 1024 (8192 bytes), the 128-aligned stages in program order (64
// bytes at 9216, 4096 bytes rounded up to 9344), the mbarriers (8-aligned)
// and the 4-byte slot of the TMEM address last.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: kcc.smem_alignment = 1024 : i64, kcc.smem_bytes = 13468 : i64
// CHECK: kcc.mbarrier_alloc {kcc.smem_offset = 13440 : i32} : <3>
// CHECK: kcc.tmem_alloc {kcc.smem_offset = 13464 : i32} : <32>
// CHECK: kcc.smem_alloc {kcc.smem_offset = 9216 : i32} : <[16], f32, stages = 1, swizzle = 0>
// CHECK: kcc.smem_alloc {kcc.smem_offset = 9344 : i32} : <[32, 32], f16, stages = 2, swizzle = 0>
// CHECK: kcc.smem_alloc {kcc.smem_offset = 1024 : i32} : <[64, 64], f16, stages = 1, swizzle = 128>
func.func @buffers(%p: !kcc.ptr<f32>, %f: f32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<3>
  %t = kcc.tmem_alloc : !kcc.tmem<32>
  %small = kcc.smem_alloc : !kcc.smem<[16], f32, stages = 1, swizzle = 0>
  %stages = kcc.smem_alloc : !kcc.smem<[32, 32], f16, stages = 2, swizzle = 0>
  %swizzled = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
  %x = kcc.splat %f : tensor<512xf32, #b>
  %s = kcc.reduce sum %x {axis = 0 : i32} : tensor<512xf32, #b> -> f32
  kcc.store %p, %s : !kcc.ptr<f32>
  return
}

// Scratch only: no buffer to align beyond the default 16 bytes.
// CHECK-LABEL: func.func @scratch_only
// CHECK-SAME: kcc.smem_alignment = 16 : i64, kcc.smem_bytes = 256 : i64
func.func @scratch_only(%p: !kcc.ptr<f32>, %f: f32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %x = kcc.splat %f : tensor<512xf32, #b>
  %s = kcc.reduce sum %x {axis = 0 : i32} : tensor<512xf32, #b> -> f32
  kcc.store %p, %s : !kcc.ptr<f32>
  return
}

// No shared memory: recorded as 0 bytes (allocated, nothing to create).
// CHECK-LABEL: func.func @none
// CHECK-SAME: kcc.smem_alignment = 16 : i64, kcc.smem_bytes = 0 : i64
func.func @none() attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  return
}
