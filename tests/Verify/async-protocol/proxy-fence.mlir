// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 5: generic-proxy writes (smem_store) read by the async proxy
// (tma_store) without fence_proxy_async + cta_barrier. Each section is the
// transpose epilogue of valid.mlir with one mutation.

!mapT = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!mapO = !kcc.tensormap<[64, 32], f32, swizzle = 0>
!buf1 = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bufO = !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
!bar1 = !kcc.mbarrier<1>

// Mutation: the fence_proxy_async is dropped.
func.func @missing_fence(%src: !mapT, %dst: !mapO) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %in = kcc.smem_alloc : !buf1
  %out = kcc.smem_alloc : !bufO
  %bars = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %bars[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar1
  kcc.tma_load %src[%c0, %c0] -> %in[%c0], %bars[%c0] : !mapT, !buf1, !bar1
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar1
  %t = kcc.smem_load %in[%c0] : !buf1 -> tensor<32x64xf32>
  kcc.cta_barrier
  %tt = kcc.trans %t : tensor<32x64xf32> -> tensor<64x32xf32>
  // expected-note@+1 {{the generic-proxy write}}
  kcc.smem_store %tt, %out[%c0] : tensor<64x32xf32>, !bufO
  kcc.cta_barrier
  // expected-error@+1 {{kcc.tma_store reads stage 0 through the async proxy, but the kcc.smem_store that wrote it (generic proxy) is not followed by kcc.fence_proxy_async; add kcc.fence_proxy_async and then kcc.cta_barrier between the kcc.smem_store and the kcc.tma_store}}
  kcc.tma_store %out[%c0] -> %dst[%c0, %c0] : !bufO, !mapO
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!mapT = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!mapO = !kcc.tensormap<[64, 32], f32, swizzle = 0>
!buf1 = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bufO = !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
!bar1 = !kcc.mbarrier<1>

// Mutation: the cta_barrier after the fence is dropped.
func.func @missing_barrier_after_fence(%src: !mapT, %dst: !mapO) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %in = kcc.smem_alloc : !buf1
  %out = kcc.smem_alloc : !bufO
  %bars = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %bars[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar1
  kcc.tma_load %src[%c0, %c0] -> %in[%c0], %bars[%c0] : !mapT, !buf1, !bar1
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar1
  %t = kcc.smem_load %in[%c0] : !buf1 -> tensor<32x64xf32>
  kcc.cta_barrier
  %tt = kcc.trans %t : tensor<32x64xf32> -> tensor<64x32xf32>
  // expected-note@+1 {{the generic-proxy write}}
  kcc.smem_store %tt, %out[%c0] : tensor<64x32xf32>, !bufO
  kcc.fence_proxy_async
  // expected-error@+1 {{no kcc.cta_barrier follows the kcc.fence_proxy_async after its kcc.smem_store}}
  kcc.tma_store %out[%c0] -> %dst[%c0, %c0] : !bufO, !mapO
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!mapT = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!mapO = !kcc.tensormap<[64, 32], f32, swizzle = 0>
!buf1 = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bufO = !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
!bar1 = !kcc.mbarrier<1>

// Mutation: fence and cta_barrier are swapped (the fence must come first so
// that the barrier publishes every thread's fenced writes).
func.func @fence_after_barrier(%src: !mapT, %dst: !mapO) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %in = kcc.smem_alloc : !buf1
  %out = kcc.smem_alloc : !bufO
  %bars = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %bars[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar1
  kcc.tma_load %src[%c0, %c0] -> %in[%c0], %bars[%c0] : !mapT, !buf1, !bar1
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar1
  %t = kcc.smem_load %in[%c0] : !buf1 -> tensor<32x64xf32>
  kcc.cta_barrier
  %tt = kcc.trans %t : tensor<32x64xf32> -> tensor<64x32xf32>
  // expected-note@+1 {{the generic-proxy write}}
  kcc.smem_store %tt, %out[%c0] : tensor<64x32xf32>, !bufO
  kcc.cta_barrier
  kcc.fence_proxy_async
  // expected-error@+1 {{no kcc.cta_barrier follows the kcc.fence_proxy_async}}
  kcc.tma_store %out[%c0] -> %dst[%c0, %c0] : !bufO, !mapO
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>

// Generic writes read back by other threads need a cta_barrier too.
func.func @read_back_without_barrier(%v: tensor<32x64xf32>) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  // expected-note@+1 {{the write}}
  kcc.smem_store %v, %buf[%c0] : tensor<32x64xf32>, !buf
  // expected-error@+1 {{reads stage 0 written by other threads' kcc.smem_store without a kcc.cta_barrier in between}}
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}
