// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 7: waits that name the wrong phase parity.

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation (single-stage copy): the first wait uses parity 1.
func.func @constant_wrong_parity(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-note@+1 {{the pending phase is armed here}}
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{wrong phase parity: waits for parity 1 but the pending phase 0 of barrier #0 has parity 0; parity 1 names the previous phase, so the wait returns immediately without waiting for this phase's arrivals and copies; wait with parity 0}}
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!bar = !kcc.mbarrier<1>

// Mutation: parity 1 on a barrier that has not completed any phase.
func.func @parity_one_first(%src: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-error@+1 {{wrong phase parity: waits for parity 1 of barrier #0, which has not completed any phase: the wait returns immediately without waiting for anything}}
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0>
!bar = !kcc.mbarrier<3>

// Mutation (3-stage pipeline): the parity is computed as k & 1 instead of
// (k / 3) & 1. Barrier 1 is first waited at k = 1, in its phase 0.
func.func @loop_parity_k_and_1(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %bars[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  scf.for %p = %c0 to %c3 step %c1 : i32 {
    %go = arith.cmpi slt, %p, %n : i32
    scf.if %go {
      %x = arith.muli %p, %c64 : i32
      // expected-note@+1 {{the pending phase is armed here}}
      kcc.mbarrier_arrive_expect_tx %bars[%p], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %buf[%p], %bars[%p] : !map, !buf, !bar
    }
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    %par = arith.andi %k, %c1 : i32
    // expected-error@+1 {{wrong phase parity: waits for parity 1 but the pending phase 0 of barrier #1 has parity 0; parity 1 names the previous phase, so the wait returns immediately without waiting for this phase's arrivals and copies (loop iteration with induction variable 1) (with n = 2)}}
    kcc.mbarrier_wait %bars[%s], parity %par : !bar
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
    kcc.cta_barrier
    %kn = arith.addi %k, %c3 : i32
    %more = arith.cmpi slt, %kn, %n : i32
    scf.if %more {
      %x = arith.muli %kn, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %buf[%s], %bars[%s] : !map, !buf, !bar
    }
  }
  return
}

// -----

!bar = !kcc.mbarrier<1>

// A parity that is neither 0 nor 1.
func.func @parity_two() attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive %bars[%c0] : !bar
  // expected-error@+1 {{waits for parity 2 of barrier #0; a parity is 0 or 1}}
  kcc.mbarrier_wait %bars[%c0], parity %c2 : !bar
  return
}
