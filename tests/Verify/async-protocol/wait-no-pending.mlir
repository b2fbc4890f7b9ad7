// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 1: a wait on a phase nothing arms (a hang). Each section is the
// single-stage copy of valid.mlir with one mutation.

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the wait is moved before the expect_tx that arms the phase.
func.func @wait_before_expect(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-error@+1 {{wait on a barrier with no pending arrival or expect: barrier #0 is in phase 0}}
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the expect_tx is dropped; the copy alone does not arm the phase.
func.func @copy_without_expect(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-note@+1 {{this copy signals barrier #0 but nothing expects its bytes}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{wait on a barrier with no pending arrival or expect}}
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: a second wait, for phase 1, which nothing ever arms.
func.func @wait_next_phase(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-error@+1 {{wait on a barrier with no pending arrival or expect: barrier #0 is in phase 1}}
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!bar = !kcc.mbarrier<1>

// Mutation: an arrival-only barrier of count 2 gets one arrival (a hang).
func.func @missing_arrival() attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %bars = kcc.mbarrier_alloc : !bar
  // expected-note@+1 {{count 2 set here}}
  kcc.mbarrier_init %bars[%c0], count 2 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive %bars[%c0] : !bar
  // expected-error@+1 {{the phase this wait waits for never completes (a hang): barrier #0 has 1 of 2 arrivals in phase 0}}
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  return
}
