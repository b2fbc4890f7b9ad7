// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 6: mbarrier life cycle. Each section is the single-stage copy of
// valid.mlir with one mutation.

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the init (and its fence) are dropped.
func.func @use_before_init(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  // expected-note@+1 {{the barriers are allocated here, uninitialized}}
  %bars = kcc.mbarrier_alloc : !bar
  // expected-error@+1 {{uses barrier #0 before kcc.mbarrier_init; initialize it with kcc.mbarrier_init followed by kcc.fence_mbarrier_init before any other use}}
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the inval is moved before the wait.
func.func @use_after_inval(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{invalidated here}}
  kcc.mbarrier_inval %bars[%c0] : !bar
  // expected-error@+1 {{uses barrier #0 after kcc.mbarrier_inval ended its life}}
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the init is duplicated.
func.func @double_init(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  // expected-note@+1 {{first initialized here}}
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  // expected-error@+1 {{initializes barrier #0 twice without kcc.mbarrier_inval}}
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the fence_mbarrier_init is dropped.
func.func @missing_init_fence(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  // expected-note@+1 {{initialized here}}
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  // expected-error@+1 {{uses barrier #0 before kcc.fence_mbarrier_init made its initialization visible; add kcc.fence_mbarrier_init after the last kcc.mbarrier_init}}
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: re-initialization after inval without a new fence.
func.func @reinit_without_fence(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_inval %bars[%c0] : !bar
  // expected-note@+1 {{initialized here}}
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  // expected-error@+1 {{before kcc.fence_mbarrier_init made its initialization visible}}
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the inval comes before the wait, with the copy in flight.
func.func @inval_in_flight(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{the copy in flight}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{invalidates barrier #0 while a kcc.tma_load signaling it is still in flight}}
  kcc.mbarrier_inval %bars[%c0] : !bar
  return
}

// -----

!bar = !kcc.mbarrier<2>

// Mutation: an index past the end of the array.
func.func @index_out_of_range() attributes {kcc.kernel} {
  %c2 = arith.constant 2 : i32
  %bars = kcc.mbarrier_alloc : !bar
  // expected-error@+1 {{barrier index 2 is out of range for 2 barriers}}
  kcc.mbarrier_init %bars[%c2], count 1 : !bar
  return
}
