// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// tcgen05 pipelines (kcc-materialize-tcgen05-mma, sm_100a): a 2-stage TMA
// pipeline refilled one iteration late, each iteration's tcgen05_mma
// committed to a per-stage mbarrier and retired by a wait one iteration
// later; the accumulator read from TMEM after a last commit and wait. The
// first kernel is valid; each later one is the same with one mutation.

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

func.func @valid(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {
    kcc.tcgen05_commit %ready[%c0] : !bar1
    kcc.mbarrier_wait %ready[%c0], parity %c0 : !bar1
    %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
  }
  kcc.tmem_dealloc %tm : !tm
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: the wait that retires the previous iteration's tcgen05_mma is
// gone, so the refill overwrites a stage the tensor cores may still read.
func.func @refill_before_retire(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    // expected-note@+1 {{the tcgen05_mma reading the stage}}
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32

    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      // expected-error@+1 {{writing stage 0 while a kcc.tcgen05_mma may still read it: no wait has observed a kcc.tcgen05_commit issued after that mma (loop iteration with induction variable 1) (with n = 3); commit the tcgen05_mma to an mbarrier (kcc.tcgen05_commit) and wait on that phase before refilling the stage}}
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {
    kcc.tcgen05_commit %ready[%c0] : !bar1
    kcc.mbarrier_wait %ready[%c0], parity %c0 : !bar1
    %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
  }
  kcc.tmem_dealloc %tm : !tm
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: no commit and wait after the loop: the accumulator is read from
// TMEM while the last tcgen05_mma may still write it.
func.func @load_before_final_wait(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    // expected-note@+1 {{the tcgen05_mma in flight}}
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {

    // expected-error@+1 {{reads the TMEM accumulator while a kcc.tcgen05_mma may still be writing TMEM}}
    %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
  }
  kcc.tmem_dealloc %tm : !tm
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: the allocation is never freed.
func.func @leak(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {
    kcc.tcgen05_commit %ready[%c0] : !bar1
    kcc.mbarrier_wait %ready[%c0], parity %c0 : !bar1
    %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
  }
  // expected-error@+1 {{tmem-leak}}
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: the allocation is freed only when the loop ran.
func.func @leak_on_one_path(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {
    kcc.tcgen05_commit %ready[%c0] : !bar1
    kcc.mbarrier_wait %ready[%c0], parity %c0 : !bar1
    %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
    kcc.tmem_dealloc %tm : !tm
  }
  // expected-error@+1 {{tmem-leak}}
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: the accumulator is read after TMEM was freed.
func.func @use_after_free(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {
    kcc.tcgen05_commit %ready[%c0] : !bar1
    kcc.mbarrier_wait %ready[%c0], parity %c0 : !bar1

  }
  // expected-note@+1 {{freed here}}
  kcc.tmem_dealloc %tm : !tm
  // expected-error@+1 {{uses TMEM after kcc.tmem_dealloc freed it}}
  %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: TMEM freed while the loop's last tcgen05_mma may still run.
func.func @free_in_flight(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    // expected-note@+1 {{the tcgen05_mma in flight}}
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {


  }
  // expected-error@+1 {{frees TMEM while a kcc.tcgen05_mma may still be writing TMEM}}
  kcc.tmem_dealloc %tm : !tm
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: a second allocation after the first gave up the permit.
func.func @alloc_after_relinquish(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc relinquish : !tm
  // expected-error@+1 {{tmem-alloc-after-relinquish}}
  %extra = kcc.tmem_alloc : !kcc.tmem<32>
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {
    kcc.tcgen05_commit %ready[%c0] : !bar1
    kcc.mbarrier_wait %ready[%c0], parity %c0 : !bar1
    %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
  }
  kcc.tmem_dealloc %tm : !tm
  return
}

// -----

!map = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!bar2 = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>
!tm = !kcc.tmem<128>

// Mutation: a second allocation that TMEM cannot hold next to the first.
func.func @over_capacity(%map: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["map", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %tm = kcc.tmem_alloc : !tm
  // expected-error@+1 {{tmem-capacity}}
  %big = kcc.tmem_alloc : !kcc.tmem<512>
  %a = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %full[%c0], count 1 : !bar2
  kcc.mbarrier_init %full[%c1], count 1 : !bar2
  %done = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %done[%c0], count 1 : !bar2
  kcc.mbarrier_init %done[%c1], count 1 : !bar2
  %ready = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %ready[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c0] -> %a[%c0], %full[%c0] : !map, !buf, !bar2
  }
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.mbarrier_arrive_expect_tx %full[%c1], bytes 16384 : !bar2
    kcc.tma_load %map[%c0, %c1] -> %a[%c1], %full[%c1] : !map, !buf, !bar2
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %full[%s], parity %par : !bar2
    %acc = arith.cmpi ne, %k, %c0 : i32
    kcc.tcgen05_mma %a[%s], %a[%s], %tm, %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !tm
    kcc.tcgen05_commit %done[%s] : !bar2
    %after = arith.cmpi sge, %k, %c1 : i32
    scf.if %after {
      %prev = arith.subi %k, %c1 : i32
      %ps = arith.remsi %prev, %c2 : i32
      %pq = arith.divsi %prev, %c2 : i32
      %pp = arith.andi %pq, %c1 : i32
      kcc.mbarrier_wait %done[%ps], parity %pp : !bar2
    }
    kcc.cta_barrier
    %next = arith.addi %k, %c1 : i32
    %in = arith.cmpi slt, %next, %n : i32
    %more = arith.andi %in, %after : i1
    %rs = arith.remsi %next, %c2 : i32
    scf.if %more {
      kcc.mbarrier_arrive_expect_tx %full[%rs], bytes 16384 : !bar2
      kcc.tma_load %map[%c0, %next] -> %a[%rs], %full[%rs] : !map, !buf, !bar2
    }
  }
  %runs = arith.cmpi slt, %c0, %n : i32
  scf.if %runs {
    kcc.tcgen05_commit %ready[%c0] : !bar1
    kcc.mbarrier_wait %ready[%c0], parity %c0 : !bar1
    %t = kcc.tmem_load %tm : !tm -> tensor<128x128xf32>
  }
  kcc.tmem_dealloc %tm : !tm
  return
}
