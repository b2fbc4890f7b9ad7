// RUN: kcc-opt %s -split-input-file -verify-diagnostics
// The structural rules of kcc.warp_specialize and per_warpgroup arrivals.

func.func @regs_not_multiple_of_8() attributes {kcc.kernel} {
  // expected-error@+1 {{producer_regs = 44 is not a multiple of 8 from 24 to 256 (setmaxnreg's operand)}}
  kcc.warp_specialize producer(warps = 4, regs = 44) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 1, regs = 232) {
    %r1 = arith.constant 0 : i32
  }
  return
}

// -----

func.func @producer_takes_more() attributes {kcc.kernel} {
  // expected-error@+1 {{producer_regs must not exceed consumer_regs}}
  kcc.warp_specialize producer(warps = 4, regs = 240) {
    %r2 = arith.constant 0 : i32
  } consumer(warpgroups = 1, regs = 232) {
    %r3 = arith.constant 0 : i32
  }
  return
}

// -----

func.func @partial_warpgroup() attributes {kcc.kernel} {
  // expected-error@+1 {{producer_warps must be whole warpgroups (a multiple of 4)}}
  kcc.warp_specialize producer(warps = 2, regs = 40) {
    %r4 = arith.constant 0 : i32
  } consumer(warpgroups = 1, regs = 232) {
    %r5 = arith.constant 0 : i32
  }
  return
}

// -----

func.func @code_after_split(%x: i32) attributes {kcc.kernel} {
  // expected-error@+1 {{must be the last operation before its block's terminator: code after it would run on both roles}}
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %r6 = arith.constant 0 : i32
  } consumer(warpgroups = 1, regs = 232) {
    %r7 = arith.constant 0 : i32
  }
  %y = arith.addi %x, %x : i32
  return
}

// -----

func.func @per_warpgroup_in_producer() attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<1>
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    // expected-error@+1 {{per_warpgroup arrives only in the consumer region of kcc.warp_specialize, not in its producer}}
    kcc.mbarrier_arrive %bars[%c0] per_warpgroup : !kcc.mbarrier<1>
  } consumer(warpgroups = 1, regs = 232) {
    %r8 = arith.constant 0 : i32
  }
  return
}

// -----

func.func @per_warpgroup_outside(%bars: !kcc.mbarrier<1>) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{per_warpgroup arrives only inside the consumer region of kcc.warp_specialize}}
  kcc.mbarrier_arrive %bars[%c0] per_warpgroup : !kcc.mbarrier<1>
  return
}
