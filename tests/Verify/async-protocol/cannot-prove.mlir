// RUN: kcc-opt %s --allow-unregistered-dialect --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// What the verifier cannot evaluate is an error, never a silent accept.

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// A stage index that comes from the program id.
func.func @stage_from_program_id(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %pid = kcc.program_id(0) : i32
  %s = arith.remsi %pid, %c2 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{cannot prove the async protocol: the stage index is not computable from constants, loop induction variables and the kernel's integer arguments}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%s], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// A trip count loaded at run time.
func.func @trip_count_from_op(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = "kcc_test.load_scalar"() : () -> i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-error@+1 {{cannot prove the async protocol: the upper bound of this loop is not computable}}
  scf.for %k = %c0 to %n step %c1 : i32 {
    %par = arith.andi %k, %c1 : i32
    kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
    kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
    kcc.mbarrier_wait %bars[%c0], parity %par : !bar
    %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
    kcc.cta_barrier
  }
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Two stores of one group whose boxes differ by a value the verifier cannot
// bound (two program ids).
func.func @unknown_overlap(%src: !map, %dst: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %p0 = kcc.program_id(0) : i32
  %p1 = kcc.program_id(1) : i32
  %y0 = arith.muli %p0, %c32 : i32
  %y1 = arith.muli %p1, %c32 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.tma_load %src[%c32, %c0] -> %buf[%c1], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the earlier tma_store}}
  kcc.tma_store %buf[%c0] -> %dst[%y0, %c0] : !buf, !map
  // expected-error@+1 {{cannot prove the async protocol: the boxes of this copy and an un-completed kcc.tma_store to the same tensor map may overlap}}
  kcc.tma_store %buf[%c1] -> %dst[%y1, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!bar = !kcc.mbarrier<1>

// Async ops inside a region op the verifier does not follow.
func.func @while_loop(%n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-error@+1 {{cannot prove the async protocol inside a while loop (its trip count is not known); move the TMA-staged tiles out of the while loop, or write it as a for loop over a bound}}
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%i: i32):
    kcc.mbarrier_arrive %bars[%c0] : !bar
    kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
    scf.yield %i : i32
  }
  return
}

// -----

!bar = !kcc.mbarrier<1>

// A constant trip count too large to execute.
func.func @too_many_iterations() attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %big = arith.constant 100000000 : i32
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-error@+1 {{cannot prove the async protocol: the verifier executes at most 1048576 operations per kernel and this one needs more}}
  scf.for %k = %c0 to %big step %c1 : i32 {
    %par = arith.andi %k, %c1 : i32
    kcc.mbarrier_arrive %bars[%c0] : !bar
    kcc.mbarrier_wait %bars[%c0], parity %par : !bar
  }
  return
}

// -----

!bar = !kcc.mbarrier<1>

// Barriers passed in rather than allocated here.
func.func @barrier_argument(%bars: !bar) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{cannot prove the async protocol: this mbarrier array does not come from a kcc.mbarrier_alloc executed before}}
  kcc.mbarrier_arrive %bars[%c0] : !bar
  return
}

// -----

!bar = !kcc.mbarrier<1>

// A loop step taken from an argument: 0 is one of the values it may have.
func.func @step_argument(%step: i32) attributes {kcc.kernel, kcc.arg_names = ["step"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-error@+1 {{cannot prove the async protocol: the loop step 0 is not positive (with step = 0)}}
  scf.for %k = %c0 to %c8 step %step : i32 {
    kcc.cta_barrier
  }
  return
}
