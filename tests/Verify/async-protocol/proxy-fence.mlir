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

// -----

// The other direction: threads read a TMA stage (generic proxy) and a later
// TMA copy (async proxy) refills it. The barrier alone does not order the
// reads before the copy: kcc.fence_proxy_async must follow them (the race
// kcc-pipeline-tma-loads' refills had on an H200 before they were fenced).

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf2 = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar2 = !kcc.mbarrier<2>

func.func @refill_without_fence(%a: !map, %n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %buf = kcc.smem_alloc : !buf2
  %bars = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %bars[%c0], count 1 : !bar2
  kcc.mbarrier_init %bars[%c1], count 1 : !bar2
  kcc.fence_mbarrier_init
  scf.for %p = %c0 to %c2 step %c1 : i32 {
    %go = arith.cmpi slt, %p, %n : i32
    scf.if %go {
      %x = arith.muli %p, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%p], bytes 8192 : !bar2
      kcc.tma_load %a[%c0, %x] -> %buf[%p], %bars[%p] : !map, !buf2, !bar2
    }
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %bars[%s], parity %par : !bar2
    // expected-note@+1 {{the generic-proxy read}}
    %t = kcc.smem_load %buf[%s] : !buf2 -> tensor<64x64xf16>
    kcc.cta_barrier
    %kn = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %kn, %n : i32
    scf.if %more {
      %x = arith.muli %kn, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%s], bytes 8192 : !bar2
      // expected-error@+1 {{kcc.tma_load overwrites stage 0 through the async proxy, but the threads' kcc.smem_load of it (generic proxy) is not followed by kcc.fence_proxy_async}}
      kcc.tma_load %a[%c0, %x] -> %buf[%s], %bars[%s] : !map, !buf2, !bar2
    }
  }
  return
}
