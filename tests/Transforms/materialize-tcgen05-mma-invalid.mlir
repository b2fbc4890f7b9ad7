// RUN: kcc-opt %s --kcc-materialize-tcgen05-mma -split-input-file -verify-diagnostics

// kcc-materialize-tcgen05-mma's errors on IR it cannot take. kcc's own
// pipeline does not produce these (MmaOperands.cpp keeps such dots off the
// swizzled stages); the pass still refuses them with a located error.

!a = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!b128 = !kcc.smem<[64, 128], f16, stages = 2, swizzle = 128>
func.func @not_overlapped(%n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !a
  %b128 = kcc.smem_alloc : !b128
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  %i0 = kcc.splat %z : tensor<128x128xf32>
  %r:1 = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %i0) -> (tensor<128x128xf32>) : i32 {
    %x = kcc.smem_load %a[%c0] : !a -> tensor<128x64xf16>
    %y128 = kcc.smem_load %b128[%c0] : !b128 -> tensor<64x128xf16>
    // expected-error@+1 {{kcc: this dot's operands reached tcgen05 stages, but it is not the only reader and writer of an accumulator carried by a TMA-pipelined loop (kcc.mma_overlap)}}
    %d0 = kcc.dot %x, %y128, %acc0 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d0 : tensor<128x128xf32>
  }
  return
}

// -----

!a = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!b256 = !kcc.smem<[64, 256], f16, stages = 2, swizzle = 128>
// expected-error@+1 {{kcc: this kernel's tcgen05 accumulators are read by 8 warps (2 warpgroups), but it asks for 4}}
func.func @warps(%n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !a
  %b256 = kcc.smem_alloc : !b256
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  %i0 = kcc.splat %z : tensor<128x256xf32>
  %r:1 = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %i0) -> (tensor<128x256xf32>) : i32 {
    %x = kcc.smem_load %a[%c0] : !a -> tensor<128x64xf16>
    %y256 = kcc.smem_load %b256[%c0] : !b256 -> tensor<64x256xf16>
    %d0 = kcc.dot %x, %y256, %acc0 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    scf.yield %d0 : tensor<128x256xf32>
  } {kcc.mma_overlap}
  return
}

// -----

!a = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!b256 = !kcc.smem<[64, 256], f16, stages = 2, swizzle = 128>
// expected-error@+1 {{kcc: the kernel's tcgen05 accumulators need 768 TMEM columns; TMEM has 512 per CTA (use smaller N tiles)}}
func.func @columns(%n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !a
  %b256 = kcc.smem_alloc : !b256
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  %i0 = kcc.splat %z : tensor<128x256xf32>
  %i1 = kcc.splat %z : tensor<128x256xf32>
  %i2 = kcc.splat %z : tensor<128x256xf32>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %i0, %acc1 = %i1, %acc2 = %i2) -> (tensor<128x256xf32>, tensor<128x256xf32>, tensor<128x256xf32>) : i32 {
    %x = kcc.smem_load %a[%c0] : !a -> tensor<128x64xf16>
    %y256 = kcc.smem_load %b256[%c0] : !b256 -> tensor<64x256xf16>
    %d0 = kcc.dot %x, %y256, %acc0 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    %d1 = kcc.dot %x, %y256, %acc1 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    %d2 = kcc.dot %x, %y256, %acc2 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    scf.yield %d0, %d1, %d2 : tensor<128x256xf32>, tensor<128x256xf32>, tensor<128x256xf32>
  } {kcc.mma_overlap}
  return
}

// -----

!a = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!b32 = !kcc.smem<[64, 32], f16, stages = 2, swizzle = 128>
!b256 = !kcc.smem<[64, 256], f16, stages = 2, swizzle = 128>
func.func @chunks(%n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !a
  %b32 = kcc.smem_alloc : !b32
  %b256 = kcc.smem_alloc : !b256
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  %i0 = kcc.splat %z : tensor<128x256xf32>
  %i1 = kcc.splat %z : tensor<128x32xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %i0, %acc1 = %i1) -> (tensor<128x256xf32>, tensor<128x32xf32>) : i32 {
    %x = kcc.smem_load %a[%c0] : !a -> tensor<128x64xf16>
    %y32 = kcc.smem_load %b32[%c0] : !b32 -> tensor<64x32xf16>
    %y256 = kcc.smem_load %b256[%c0] : !b256 -> tensor<64x256xf16>
    %d0 = kcc.dot %x, %y256, %acc0 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    // expected-error@+1 {{kcc: this dot's N is not a multiple of 64, the columns the kernel's 2 warpgroups read from TMEM per chunk}}
    %d1 = kcc.dot %x, %y32, %acc1 : tensor<128x64xf16>, tensor<64x32xf16> -> tensor<128x32xf32>
    scf.yield %d0, %d1 : tensor<128x256xf32>, tensor<128x32xf32>
  } {kcc.mma_overlap}
  return
}

// -----

!a = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!b128 = !kcc.smem<[64, 128], f16, stages = 2, swizzle = 128>
// expected-error@+1 {{kcc: internal error: a tcgen05 pipeline without its mbarrier setup}}
func.func @no_setup(%n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !a
  %b128 = kcc.smem_alloc : !b128
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %i0 = kcc.splat %z : tensor<128x128xf32>
  %r:1 = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %i0) -> (tensor<128x128xf32>) : i32 {
    %x = kcc.smem_load %a[%c0] : !a -> tensor<128x64xf16>
    %y128 = kcc.smem_load %b128[%c0] : !b128 -> tensor<64x128xf16>
    %d0 = kcc.dot %x, %y128, %acc0 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d0 : tensor<128x128xf32>
  } {kcc.mma_overlap}
  return
}
