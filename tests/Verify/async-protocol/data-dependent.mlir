// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// scf.if marked kcc.data_dependent (its condition depends on program ids or
// sizes, as kcc-materialize-tma-copies' store guard does): the verifier
// checks both branches. Each function is the TMA transpose the pass emits,
// correct on one side and with one mutation on the other.

!map = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Both sides correct: accepted.
func.func @both_correct(%src: !map, %dst: !map, %pid: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
  kcc.tma_load %src[%pid, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<64x64xf32>
  %ok = kcc.program_id(0) : i32
  %c = arith.cmpi slt, %ok, %pid : i32
  scf.if %c {
    kcc.cta_barrier
    kcc.smem_store %t, %buf[%c0] : tensor<64x64xf32>, !buf
    kcc.fence_proxy_async
    kcc.cta_barrier
    kcc.tma_store %buf[%c0] -> %dst[%c0, %pid] : !buf, !map
    kcc.bulk_commit_group
  } else {
  } {kcc.data_dependent}
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation on the taken-when-true side only: the proxy fence is missing.
func.func @then_side_bug(%src: !map, %dst: !map, %pid: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
  kcc.tma_load %src[%pid, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<64x64xf32>
  %ok = kcc.program_id(0) : i32
  %c = arith.cmpi slt, %ok, %pid : i32
  scf.if %c {
    kcc.cta_barrier
    // expected-note@+1 {{the generic-proxy write}}
    kcc.smem_store %t, %buf[%c0] : tensor<64x64xf32>, !buf
    kcc.cta_barrier
    // expected-error@+1 {{fence_proxy_async}}
    kcc.tma_store %buf[%c0] -> %dst[%c0, %pid] : !buf, !map
    kcc.bulk_commit_group
  } else {
  } {kcc.data_dependent}
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Without the mark, a condition on program ids is decided like one on
// arguments (the ids are chosen like them): here a program that takes the
// branch stores a stage nothing filled.
func.func @unmarked(%src: !map, %dst: !map, %pid: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %ok = kcc.program_id(0) : i32
  %c = arith.cmpi slt, %ok, %pid : i32
  scf.if %c {
    // expected-error@+1 {{reads stage 0, which holds no data (nothing was loaded or stored into it) (with argument #2 = 1, program_id(0) = 0)}}
    kcc.tma_store %buf[%c0] -> %dst[%c0, %pid] : !buf, !map
    kcc.bulk_commit_group
  }
  kcc.bulk_wait_group 0 read
  return
}

// -----

!buf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>

// More data-dependent branches than the verifier explores (2^6 runs per
// argument choice): refused at the first one past the limit.
func.func @too_many_branches(%pid: i32) attributes {kcc.kernel} {
  %buf = kcc.smem_alloc : !buf
  %ok = kcc.program_id(0) : i32
  %c = arith.cmpi slt, %ok, %pid : i32
  scf.if %c {
  } {kcc.data_dependent}
  scf.if %c {
  } {kcc.data_dependent}
  scf.if %c {
  } {kcc.data_dependent}
  scf.if %c {
  } {kcc.data_dependent}
  scf.if %c {
  } {kcc.data_dependent}
  scf.if %c {
  } {kcc.data_dependent}
  // expected-error@+1 {{the verifier explores at most 6 data-dependent branches per kernel; split the kernel}}
  scf.if %c {
  } {kcc.data_dependent}
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// A loop bound chosen by a value read from memory (a grouped GEMM's program
// past the last tile runs no trip): both trip counts are verified. Copy and
// wait in the loop: accepted.
func.func @select_bound_ok(%src: !map, %p: !kcc.ptr<i32>, %n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  %g = kcc.load %p : !kcc.ptr<i32>
  %c = arith.cmpi slt, %g, %n : i32
  %ub = arith.select %c, %c1, %c0 : i32
  scf.for %i = %c0 to %ub step %c1 : i32 {
    kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
    kcc.tma_load %src[%i, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
    kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
    %t = kcc.smem_load %buf[%c0] : !buf -> tensor<64x64xf32>
  }
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// The copy is issued before the loop and waited for in it: with no trip
// (the side of the select the data can choose) it is never waited for.
func.func @select_bound_zero_trips(%src: !map, %p: !kcc.ptr<i32>, %n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  %g = kcc.load %p : !kcc.ptr<i32>
  %c = arith.cmpi slt, %g, %n : i32
  %ub = arith.select %c, %c1, %c0 : i32
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
  // expected-error@+1 {{is still in flight}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  scf.for %i = %c0 to %ub step %c1 : i32 {
    kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
    %t = kcc.smem_load %buf[%c0] : !buf -> tensor<64x64xf32>
  }
  // expected-note@+1 {{the kernel ends here}}
  return
}
