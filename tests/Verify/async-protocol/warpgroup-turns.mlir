// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Consumer warpgroups taking turns (kcc.warpgroup_turn, attention's
// ping-pong): every warpgroup runs `start`, then `wait` and `pass`
// alternately. Planted bugs: a wait before any start, a missing pass in
// the loop (the next wait never returns), a pass without the turn, and a
// kernel ending while a warpgroup holds the turn.

// The protocol kcc-defer-register-a-mma emits: no diagnostic.
func.func @turns(%n: i32) attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    kcc.warpgroup_turn start barrier 3
    scf.for %i = %c0 to %n step %c1 : i32 {
      kcc.warpgroup_turn wait barrier 3
      kcc.warpgroup_turn pass barrier 3
    }
  }
  return
}

// -----

func.func @wait_unstarted(%n: i32) attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-error@+1 {{deadlock: a warpgroup waits for its turn, but no warpgroup has started the turns, so every warpgroup waits forever}}
      kcc.warpgroup_turn wait barrier 3
      kcc.warpgroup_turn pass barrier 3
    }
  }
  return
}

// -----

// Mutation: the pass is missing from the loop body.
func.func @missing_pass(%n: i32) attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    kcc.warpgroup_turn start barrier 3
    scf.for %i = %c0 to %c2 step %c1 : i32 {
      // expected-error@+2 {{deadlock: a warpgroup waits for its turn again without passing on the one it holds, so the next warpgroup never gets it}}
      // expected-note@+1 {{the turn was taken here}}
      kcc.warpgroup_turn wait barrier 3
    }
  }
  return
}

// -----

func.func @pass_without_turn() attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    kcc.warpgroup_turn start barrier 3
    // expected-error@+1 {{a warpgroup passes on a turn it does not hold: the next warpgroup would start its turn while another holds one}}
    kcc.warpgroup_turn pass barrier 3
  }
  return
}

// -----

func.func @ends_holding() attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    kcc.warpgroup_turn start barrier 3
    // expected-error@+1 {{deadlock: a warpgroup ends holding the turn it took here, so the next warpgroup waits for it forever}}
    kcc.warpgroup_turn wait barrier 3
  }
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

// A persistent kernel (kcc --persistent) starts the turns once, before its
// tile loop: each tile's warpgroups wait and pass alternately, and the last
// pass of a tile starts the next tile's turns.
func.func @persistent_turns(%n: i32, %t: i32) attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    kcc.warpgroup_turn start barrier 3
    %end = scf.for %tile = %first to %t step %extent iter_args(%ord = %c0) -> (i32) : i32 {
      scf.for %i = %c1 to %n step %c1 : i32 {
        kcc.warpgroup_turn wait barrier 3
        kcc.warpgroup_turn pass barrier 3
      }
      %next = arith.addi %ord, %c1 : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  }
  return
}

// -----

// Mutation: the turns start on every tile (one pass too many from the
// second tile on).
func.func @persistent_turns_per_tile(%n: i32, %t: i32) attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%ord = %c0) -> (i32) : i32 {
      // expected-error@+1 {{the warpgroups' turns are started twice}}
      kcc.warpgroup_turn start barrier 3
      scf.for %i = %c1 to %n step %c1 : i32 {
        kcc.warpgroup_turn wait barrier 3
        kcc.warpgroup_turn pass barrier 3
      }
      %next = arith.addi %ord, %c1 : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  }
  return
}
