// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Planted bugs in the warp-specialized pipeline of warp-specialize.mlir (3
// stages, one consumer warpgroup unless said otherwise), one per case. The
// trip count n is a kernel argument: each diagnostic names the first value
// that exposes the bug.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// a. The producer never waits on the empty barrier: iteration 3 refills
// stage 0 before the consumer has even waited for its first copy.
func.func @a_no_empty_wait(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      // expected-error@+2 {{overwriting a stage before its consumers released it: stage 0 still has a kcc.tma_load in flight (no wait has completed barrier #0 phase 0) (loop iteration with induction variable 3) (with n = 4); in the consumer, arrive on a barrier once its reads of the stage have completed}}
      // expected-note@+1 {{the earlier copy into the stage}}
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// b. The consumer releases the stage of the current iteration right after
// its warpgroup_mma with pending = 1: the released producer refills it while
// the wgmma group still reads it.
func.func @b_release_current(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      // expected-error@+1 {{writing stage 0 while a kcc.warpgroup_mma group still reads it (its wgmma group has not been retired) (loop iteration with induction variable 3) (with n = 4); release the stage to the producer only after the group reading it has retired}}
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      // expected-note@+1 {{the warpgroup_mma reading the stage}}
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      kcc.mbarrier_arrive %empty[%s] per_warpgroup : !bar
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// c. The empty barriers count 2 arrivals but the one consumer warpgroup
// arrives once per stage: the producer never gets stage 0 back.
func.func @c_count_two(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    // expected-note@+1 {{count 2 set here}}
    kcc.mbarrier_init %empty[%i], count 2 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        // expected-error@+1 {{deadlock between the warp-specialized roles: the producer waits here for barrier #0 phase 0 (1 of 2 arrivals) and the consumer waits for barrier #0 phase 1 (0 of 1 arrivals) (loop iteration with induction variable 3) (with n = 4); arrive on the barrier as many times per phase as its kcc.mbarrier_init count, from the role that does not wait on it (a per_warpgroup arrival counts consumer_warpgroups = 1), or change the count}}
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      // expected-note@+1 {{the consumer waits here (loop iteration with induction variable 3)}}
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// d. The producer waits on the empty barrier with the parity of the
// round it fills, (k / 3) & 1, instead of the round it reuses.
func.func @d_empty_parity(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %round, %c1 : i32
        // expected-error@+1 {{wrong phase parity: waits for parity 1 of barrier #0, which has not completed any phase: the wait returns immediately without waiting for anything (loop iteration with induction variable 3) (with n = 4)}}
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// e. The consumer does not wait on the B stage's full barrier.
func.func @e_no_full_wait(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      // expected-note@+1 {{the copy into the stage}}
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      // expected-error@+1 {{reading a stage before its barrier phase completed: stage 0 is filled by a kcc.tma_load that signals barrier #0 in phase 0, and no kcc.mbarrier_wait of the consumer has observed that phase (loop iteration with induction variable 0) (with n = 1); add kcc.mbarrier_wait on barrier #0, parity 0 before the read}}
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// f. A kcc.cta_barrier in the producer region.
func.func @f_producer_cta_barrier(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  // expected-note@+1 {{the roles split here}}
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      // expected-error@+1 {{kcc.cta_barrier in the producer region waits for threads that never reach it (one producer thread executes the region, the consumers synchronize among themselves): a deadlock; synchronize with the consumers through mbarriers}}
      kcc.cta_barrier
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// g. The producer expects 4096 bytes for the B box of 8192.
func.func @g_expect_tx(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      // expected-note@+1 {{expects 4096 bytes here}}
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 4096 : !bar
      // expected-note@+1 {{this copy brings 8192 bytes}}
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      // expected-error@+1 {{expect_tx 4096 bytes but the copies signaling this barrier bring 8192 (barrier #0, phase 0): the phase may complete before every copy has landed (reads of data not yet written) (loop iteration with induction variable 0) (with n = 1)}}
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// h. The consumer waits on the full barriers with the parity of the next
// round.
func.func @h_full_parity(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      // expected-note@+1 {{the pending phase is armed here}}
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %q1 = arith.addi %q, %c1 : i32
      %p = arith.andi %q1, %c1 : i32
      // expected-error@+1 {{wrong phase parity: waits for parity 1 but the pending phase 0 of barrier #0 has parity 0; parity 1 names the previous phase, so the wait returns immediately without waiting for this phase's arrivals and copies (loop iteration with induction variable 0) (with n = 1)}}
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// i. The producer expects 16384 bytes for the B box of 8192: the consumer
// waits for bytes that never come.
func.func @i_expect_tx_more(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      // expected-note@+1 {{expects 16384 bytes here}}
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 16384 : !bar
      // expected-note@+1 {{this copy brings 8192 bytes}}
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      // expected-error@+1 {{deadlock between the warp-specialized roles: the consumer waits here for barrier #0 phase 0 (expect_tx 16384 bytes, the copies bring 8192) and the producer has finished (loop iteration with induction variable 0) (with n = 1); make the kcc.mbarrier_arrive_expect_tx bytes equal the box bytes}}
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!ma2 = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!bufA = !kcc.smem<[128, 64], f16, stages = 3, swizzle = 128>
!acc = tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>

// j. Two consumer warpgroups release a stage with a plain arrival (one
// thread) on a count-1 barrier: the other warpgroup's wgmma group may still
// read the stage.
func.func @j_plain_arrive_two_warpgroups(%a: !ma2, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 8 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !bufA
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 16384 : !bar
      // expected-error@+1 {{overwriting a stage before its consumers released it: the consumer arrived on a barrier the producer waited for after its last read of stage 0, but a plain kcc.mbarrier_arrive is made by one thread, and the kcc.warpgroup_mma groups of the other warpgroups may still read the stage (loop iteration with induction variable 3) (with n = 4); arrive with per_warpgroup}}
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma2, !bufA, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 2, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      // expected-note@+1 {{the last read of the stage}}
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !bufA, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<128x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// k. The consumer reads the stages with kcc.smem_load (every thread) and
// releases them with a per_warpgroup arrival but no kcc.cta_barrier: the
// leader arrives while other threads may still be reading.
func.func @k_smem_load_no_barrier(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      // expected-error@+1 {{overwriting a stage before its consumers released it: the consumer arrived on a barrier the producer waited for after its last kcc.smem_load of stage 0, but only one thread (per warpgroup) arrives, while the others may still be reading the stage (loop iteration with induction variable 3) (with n = 4); add kcc.cta_barrier before the arrival}}
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      // expected-note@+1 {{the last read of the stage}}
      %ta = kcc.smem_load %A[%s] : !buf -> tensor<64x64xf16>
      %tb = kcc.smem_load %B[%s] : !buf -> tensor<64x64xf16>
      kcc.mbarrier_arrive %empty[%s] per_warpgroup : !bar
      scf.yield %x : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// k2. The same with the kcc.cta_barrier before the arrival but no
// kcc.fence_proxy_async after the reads: the producer's TMA refill (async
// proxy) is not ordered after the consumers' ordinary loads.
func.func @k2_smem_load_no_proxy_fence(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      // expected-error@+1 {{kcc.tma_load overwrites stage 0 through the async proxy, but the threads' kcc.smem_load of it (generic proxy) is not followed by kcc.fence_proxy_async (loop iteration with induction variable 3) (with n = 4); add kcc.fence_proxy_async after the last read of the stage, before the barrier or arrival that releases it}}
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      // expected-note@+1 {{the generic-proxy read}}
      %ta = kcc.smem_load %A[%s] : !buf -> tensor<64x64xf16>
      %tb = kcc.smem_load %B[%s] : !buf -> tensor<64x64xf16>
      kcc.cta_barrier
      kcc.mbarrier_arrive %empty[%s] per_warpgroup : !bar
      scf.yield %x : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// l. A barrier initialized inside the consumer region.
func.func @l_init_in_role(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  // expected-note@+1 {{the roles split here}}
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    // expected-error@+1 {{'kcc.mbarrier_init' in the consumer region: barriers are initialized by the whole CTA before kcc.warp_specialize}}
    kcc.mbarrier_init %empty[%c0], count 1 : !bar
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// m. A proxy fence in the producer region.
func.func @m_producer_fence(%a: !ma, %b: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !buf
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  // expected-note@+1 {{the roles split here}}
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c3 : i32
      %reuse = arith.cmpi sge, %k, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      // expected-error@+1 {{'kcc.fence_proxy_async' in the producer region: the producer issues copies and waits on barriers only; move 'kcc.fence_proxy_async' to the consumer region}}
      kcc.fence_proxy_async
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
      %s = arith.remsi %k, %c3 : i32
      %q = arith.divsi %k, %c3 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %fullA[%s], parity %p : !bar
      kcc.mbarrier_wait %fullB[%s], parity %p : !bar
      %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
      %old = arith.cmpi sge, %k, %c1 : i32
      scf.if %old {
        %k2 = arith.addi %k, %c2 : i32
        %prev = arith.remsi %k2, %c3 : i32
        kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
      }
      scf.yield %y : !acc
    }
    %done = kcc.warpgroup_mma_wait 0 %acc : !acc
    %t = kcc.convert_layout %done : !acc -> tensor<64x64xf32>
  }
  return
}
