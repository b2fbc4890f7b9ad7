// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 3: a stage overwritten before its consumers released it. Each
// section is the 2-stage pipeline of valid.mlir with one mutation.

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<2>

// Mutation: the cta_barrier between the read and the refill is dropped.
func.func @missing_cta_barrier(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
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
    kcc.mbarrier_wait %bars[%s], parity %par : !bar
    // expected-note@+1 {{the last read of the stage}}
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
    %kn = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %kn, %n : i32
    scf.if %more {
      %x = arith.muli %kn, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%s], bytes 8192 : !bar
      // expected-error@+1 {{overwriting a stage before its consumers released it: no kcc.cta_barrier after the last kcc.smem_load of stage 0 (loop iteration with induction variable 0) (with n = 3); add kcc.cta_barrier after the last read of the stage}}
      kcc.tma_load %a[%c0, %x] -> %buf[%s], %bars[%s] : !map, !buf, !bar
    }
  }
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<2>

// Mutation: the refill targets stage (k + 1) % 2, which is still in flight.
func.func @refill_in_flight_stage(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
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
      // expected-note@+1 {{the earlier copy into the stage}}
      kcc.tma_load %a[%c0, %x] -> %buf[%p], %bars[%p] : !map, !buf, !bar
    }
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %bars[%s], parity %par : !bar
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
    kcc.cta_barrier
    %kn = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %kn, %n : i32
    scf.if %more {
      %x = arith.muli %kn, %c64 : i32
      %k1 = arith.addi %k, %c1 : i32
      %s1 = arith.remsi %k1, %c2 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%s1], bytes 8192 : !bar
      // expected-error@+1 {{overwriting a stage before its consumers released it: stage 1 still has a kcc.tma_load in flight (no wait has completed barrier #1 phase 0) (loop iteration with induction variable 0) (with n = 3)}}
      kcc.tma_load %a[%c0, %x] -> %buf[%s1], %bars[%s1] : !map, !buf, !bar
    }
  }
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation (single-stage copy): the smem_store of the result follows the
// smem_load without the cta_barrier that releases the stage.
func.func @store_over_unreleased(%src: !map, %dst: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the last read of the stage}}
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  // expected-error@+1 {{overwriting a stage before its consumers released it}}
  kcc.smem_store %t, %buf[%c0] : tensor<32x64xf32>, !buf
  kcc.fence_proxy_async
  kcc.cta_barrier
  kcc.tma_store %buf[%c0] -> %dst[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the second load targets stage 0 again (loaded, never read).
func.func @overwrite_unread(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{the unread copy}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{overwriting a stage before its consumers released it: the data loaded into stage 0 was never read}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Not a bug: loaded data that nobody read, waited for by the threads that
// then store over it, is only discarded (kcc-materialize-tma-copies reuses
// attention's Q stage for the output this way when the loop over the keys
// does not run).
func.func @discard_landed(%src: !map, %dst: !map, %t: tensor<32x64xf32>) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  kcc.cta_barrier
  kcc.smem_store %t, %buf[%c0] : tensor<32x64xf32>, !buf
  kcc.fence_proxy_async
  kcc.cta_barrier
  kcc.tma_store %buf[%c0] -> %dst[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation of the above: the store does not wait for the copy to land.
func.func @discard_in_flight(%src: !map, %dst: !map, %t: tensor<32x64xf32>) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{the earlier copy into the stage}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.cta_barrier
  // expected-error@+1 {{overwriting a stage before its consumers released it: stage 0 still has a kcc.tma_load in flight}}
  kcc.smem_store %t, %buf[%c0] : tensor<32x64xf32>, !buf
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  return
}
