// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 9: a pipeline whose trip count is smaller than its depth.

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0>
!bar = !kcc.mbarrier<3>

// Mutation (3-stage pipeline): the prologue loads its three stages without
// the scf.if on the trip count. With n = 0 nothing waits for them.
func.func @unguarded_prologue(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
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
    %x = arith.muli %p, %c64 : i32
    kcc.mbarrier_arrive_expect_tx %bars[%p], bytes 8192 : !bar
    // expected-error@+1 {{the kernel ends while this kcc.tma_load into stage 0 is still in flight: no wait completes barrier #0 phase 0; the loop runs 0 iteration(s), fewer than the pipeline depth 3 (with n = 0); guard each prologue load (and its expect_tx) with scf.if on the trip count}}
    kcc.tma_load %a[%c0, %x] -> %buf[%p], %bars[%p] : !map, !buf, !bar
  }
  // expected-note@+1 {{the pipelined loop}}
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    %q = arith.divsi %k, %c3 : i32
    %par = arith.andi %q, %c1 : i32
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
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0>
!bar = !kcc.mbarrier<3>

// The same bug written out without a prologue loop, with a trip count of
// ceil(K / 64): with K = 0 (no iteration) stages 1 and 2 stay in flight.
func.func @unguarded_prologue_k(%a: !map, %K: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "K"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %n = arith.ceildivsi %K, %c64 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.mbarrier_init %bars[%c1], count 1 : !bar
  kcc.mbarrier_init %bars[%c2], count 1 : !bar
  kcc.fence_mbarrier_init
  %pos = arith.cmpi sgt, %n, %c0 : i32
  scf.if %pos {
    kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
    kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  }
  kcc.mbarrier_arrive_expect_tx %bars[%c1], bytes 8192 : !bar
  // expected-error@+1 {{the kernel ends while this kcc.tma_load into stage 1 is still in flight: no wait completes barrier #1 phase 0; the loop runs 0 iteration(s), fewer than the pipeline depth 3 (with K = 0)}}
  kcc.tma_load %a[%c0, %c64] -> %buf[%c1], %bars[%c1] : !map, !buf, !bar
  kcc.mbarrier_arrive_expect_tx %bars[%c2], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c128] -> %buf[%c2], %bars[%c2] : !map, !buf, !bar
  // expected-note@+1 {{the pipelined loop}}
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    %q = arith.divsi %k, %c3 : i32
    %par = arith.andi %q, %c1 : i32
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
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<2>

// An epilogue that drains the last two stages unconditionally: with n = 1
// it waits on a stage that was never issued.
func.func @epilogue_waits_unissued(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.mbarrier_init %bars[%c1], count 1 : !bar
  kcc.fence_mbarrier_init
  // Loads of boxes 0 .. n-1, at least one; reads of all but the last two.
  %nl = arith.maxsi %n, %c2 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    %ge = arith.cmpi sge, %k, %c2 : i32
    scf.if %ge {
      %pq = arith.subi %q, %c1 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %bars[%s], parity %pp : !bar
      %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
      kcc.cta_barrier
    }
    %x = arith.muli %k, %c64 : i32
    kcc.mbarrier_arrive_expect_tx %bars[%s], bytes 8192 : !bar
    kcc.tma_load %a[%c0, %x] -> %buf[%s], %bars[%s] : !map, !buf, !bar
  }
  // Epilogue: the last two boxes, assuming n >= 2.
  %l0 = arith.subi %nl, %c2 : i32
  %l1 = arith.subi %nl, %c1 : i32
  scf.for %k = %l0 to %nl step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    // expected-error@+1 {{wait on a barrier with no pending arrival or expect: barrier #0 is in phase 0 and nothing has arrived on it, so the wait never returns (a hang) (loop iteration with induction variable 0) (with n = 0)}}
    kcc.mbarrier_wait %bars[%s], parity %par : !bar
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
    kcc.cta_barrier
  }
  return
}
