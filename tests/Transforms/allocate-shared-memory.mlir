// kcc-allocate-shared-memory: the async buffers, the most aligned first and
// in program order within an alignment, each rounded up to its alignment
// (kcc.smem_offset), and the scratch of relayouts and reductions (the
// largest one op needs) before them or after them at a 128-byte boundary
// (kcc.scratch_offset), whichever pads less; the kernel records the total and
// the alignment its buffers need (at least 16). A limit the total just fits
// is not an error.
// RUN: kcc-opt %s --kcc-allocate-shared-memory | FileCheck %s
// RUN: kcc-opt %s --kcc-allocate-shared-memory=max-shared-bytes=12800 | FileCheck %s
// RUN: kcc-opt %s "--kcc-allocate-shared-memory=vendor=amd max-shared-bytes=12800" | FileCheck %s

#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>

// The 1024-aligned swizzled stage at 0 (8192 bytes), the 128-aligned stages
// in program order (64 bytes at 8192, 4096 bytes rounded up to 8320), the
// mbarriers (8-aligned) and the 4-byte slot of the TMEM address; then a 1-D
// reduction's 256 bytes of scratch at the next 128-byte boundary (first, it
// would have cost 1024 bytes: 13468 in all).
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: kcc.scratch_offset = 12544 : i32, kcc.smem_alignment = 1024 : i64, kcc.smem_bytes = 12800 : i64
// CHECK: kcc.mbarrier_alloc {kcc.smem_offset = 12416 : i32} : <3>
// CHECK: kcc.tmem_alloc {kcc.smem_offset = 12440 : i32} : <32>
// CHECK: kcc.smem_alloc {kcc.smem_offset = 8192 : i32} : <[16], f32, stages = 1, swizzle = 0>
// CHECK: kcc.smem_alloc {kcc.smem_offset = 8320 : i32} : <[32, 32], f16, stages = 2, swizzle = 0>
// CHECK: kcc.smem_alloc {kcc.smem_offset = 0 : i32} : <[64, 64], f16, stages = 1, swizzle = 128>
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

// Buffers of small alignment: the scratch goes first (256 bytes, then the
// mbarriers at 256), no kcc.scratch_offset; after them it would start at 128.
// CHECK-LABEL: func.func @scratch_first
// CHECK-NOT: kcc.scratch_offset
// CHECK-SAME: kcc.smem_alignment = 16 : i64, kcc.smem_bytes = 280 : i64
// CHECK: kcc.mbarrier_alloc {kcc.smem_offset = 256 : i32} : <3>
func.func @scratch_first(%p: !kcc.ptr<f32>, %f: f32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<3>
  %x = kcc.splat %f : tensor<512xf32, #b>
  %s = kcc.reduce sum %x {axis = 0 : i32} : tensor<512xf32, #b> -> f32
  kcc.store %p, %s : !kcc.ptr<f32>
  return
}
