// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 4: a stage read before the barrier phase of its copy completed.

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation (single-stage copy): the wait is dropped.
func.func @missing_wait(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{the copy into the stage}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{reading a stage before its barrier phase completed: stage 0 is filled by a kcc.tma_load that signals barrier #0 in phase 0, and no kcc.mbarrier_wait has observed that phase; add kcc.mbarrier_wait on barrier #0, parity 0 before the read}}
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<2>

// Mutation (two stages, two barriers): the wait before reading stage 0
// names barrier 1.
func.func @wait_wrong_barrier(%a: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.mbarrier_init %bars[%c1], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{the copy into the stage}}
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_arrive_expect_tx %bars[%c1], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c64] -> %buf[%c1], %bars[%c1] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c1], parity %c0 : !bar
  // expected-error@+1 {{reading a stage before its barrier phase completed: stage 0 is filled by a kcc.tma_load that signals barrier #0 in phase 0}}
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<64x64xf16>
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %u = kcc.smem_load %buf[%c1] : !buf -> tensor<64x64xf16>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<2>

// Mutation (2-stage pipeline): the loop waits on barrier (k + 1) % 2 instead
// of k % 2. With n = 1 that barrier is never armed (a hang); with n >= 2 the
// read of stage 0 would come before its phase completed.
func.func @pipeline_wait_wrong_barrier(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.mbarrier_init %bars[%c1], count 1 : !bar
  kcc.fence_mbarrier_init
  scf.for %p = %c0 to %c2 step %c1 : i32 {
    %go = arith.cmpi slt, %p, %n : i32
    scf.if %go {
      %x = arith.muli %p, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%p], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %buf[%p], %bars[%p] : !map, !buf, !bar
    }
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    %k1 = arith.addi %k, %c1 : i32
    %w = arith.remsi %k1, %c2 : i32
    // expected-error@+1 {{wait on a barrier with no pending arrival or expect: barrier #1 is in phase 0 and nothing has arrived on it, so the wait never returns (a hang) (loop iteration with induction variable 0) (with n = 1)}}
    kcc.mbarrier_wait %bars[%w], parity %par : !bar
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
    kcc.cta_barrier
    %kn = arith.addi %k, %c2 : i32
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

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation (a copy out through shared memory): the tma_store of the stage
// comes before the wait for its load.
func.func @store_in_flight(%src: !map, %dst: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{the copy into the stage}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{reading a stage before its barrier phase completed}}
  kcc.tma_store %buf[%c0] -> %dst[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  return
}

// -----

!buf = !kcc.smem<[32, 64], f32, stages = 2, swizzle = 0>

// A read of a stage nothing was loaded or stored into.
func.func @read_never_written() attributes {kcc.kernel} {
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  // expected-error@+1 {{reads stage 1, which holds no data (nothing was loaded or stored into it)}}
  %t = kcc.smem_load %buf[%c1] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!buf = !kcc.smem<[32, 64], f32, stages = 2, swizzle = 0>

// A stage index past the end of the buffer.
func.func @stage_out_of_range(%v: tensor<32x64xf32>) attributes {kcc.kernel} {
  %c2 = arith.constant 2 : i32
  %buf = kcc.smem_alloc : !buf
  // expected-error@+1 {{stage index 2 is out of range for 2 stages}}
  kcc.smem_store %v, %buf[%c2] : tensor<32x64xf32>, !buf
  return
}
