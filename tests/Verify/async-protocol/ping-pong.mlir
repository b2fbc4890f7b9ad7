// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Ping-pong (kcc.warp_specialize ... groups = 2): two consumer groups of one
// warpgroup each run the consumer region over alternate tiles (group g:
// tiles g, g + 2, ...), sharing the producer's 3-stage pipeline, which
// fills the stages for every tile in order (iteration it = t x n + k). A
// group counts the other group's iterations too, so its stage and parity
// follow the shared ring; it releases each stage once its wgmma group
// retired, the last one of a tile after the wait behind the loop, and
// stores its tile through its own C stage (stage g). The groups' K loops
// take turns (tile t's starts once tile t - 1's has waited for all its
// stages): `turn[g]` completes a phase when the other group's loop ends.
// Without the turns a group could wait for a stage's next round while the
// round before it is still pending, and a parity wait cannot tell the two
// apart. The verifier runs the
// consumer region once per group, each with its own values, wgmma and bulk
// groups and named barrier; tiles and n are kernel arguments (0, 1, 2, ...
// and a large value of each).

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// expected-no-diagnostics
func.func @gemm_ping_pong(%a: !ma, %b: !ma, %c: !mc, %tiles: i32, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "tiles", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %B = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %turn = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %full[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.mbarrier_init %turn[%c0], count 1 : !kcc.mbarrier<2>
  kcc.mbarrier_init %turn[%c1], count 1 : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %t = %c0 to %tiles step %c1 : i32 {
      %base = arith.muli %t, %n : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it = arith.addi %base, %k : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi uge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        %y = arith.muli %t, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %full[%s], bytes 16384 : !bar
        kcc.tma_load %a[%y, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %full[%s] : !ma, !buf, !bar
      }
    }
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
    %other = arith.subi %c1, %g : i32
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    scf.for %t = %g to %tiles step %c2 : i32 {
      // Tile t - 1's loop has ended: phase j - 1 + g of turn[g] for this
      // group's j-th tile.
      %later = arith.cmpi ugt, %t, %c0 : i32
      scf.if %later {
        %tg = arith.subi %t, %g : i32
        %j = arith.divui %tg, %c2 : i32
        %jg = arith.addi %j, %g : i32
        %phase = arith.subi %jg, %c1 : i32
        %tp = arith.andi %phase, %c1 : i32
        kcc.mbarrier_wait %turn[%g], parity %tp : !kcc.mbarrier<2>
      }
      %base = arith.muli %t, %n : i32
      %go = arith.cmpi ult, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it = arith.addi %base, %k : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %full[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          // The group of iteration it - 1 (of this tile) has retired.
          %old = arith.cmpi uge, %k, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        %e = arith.addi %base, %n : i32
        %last = arith.subi %e, %c1 : i32
        %ls = arith.remui %last, %c3 : i32
        kcc.mbarrier_arrive %empty[%ls] per_warpgroup : !bar
        scf.yield %done : !acc
      } else {
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        scf.yield %acc0 : !acc
      }
      kcc.smem_store %r, %C[%g] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      %row = arith.muli %t, %c64 : i32
      kcc.tma_store %C[%g] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
    }
  }
  return
}

// -----

// Planted bug: no turns. Group 1's first wait is for a stage's second round
// while its first is still pending: the parity names the phase before, and
// the wait returns at once.
!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @no_turns(%a: !ma, %b: !ma, %c: !mc, %tiles: i32, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "tiles", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %B = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %turn = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %full[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.mbarrier_init %turn[%c0], count 1 : !kcc.mbarrier<2>
  kcc.mbarrier_init %turn[%c1], count 1 : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %t = %c0 to %tiles step %c1 : i32 {
      %base = arith.muli %t, %n : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it = arith.addi %base, %k : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi uge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        %y = arith.muli %t, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %full[%s], bytes 16384 : !bar
        kcc.tma_load %a[%y, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %full[%s] : !ma, !buf, !bar
      }
    }
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
    %other = arith.subi %c1, %g : i32
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    scf.for %t = %g to %tiles step %c2 : i32 {
      // Tile t - 1's loop has ended: phase j - 1 + g of turn[g] for this
      // group's j-th tile.
      %later = arith.cmpi ugt, %t, %c0 : i32
      scf.if %later {
        %tg = arith.subi %t, %g : i32
        %j = arith.divui %tg, %c2 : i32
        %jg = arith.addi %j, %g : i32
        %phase = arith.subi %jg, %c1 : i32
        %tp = arith.andi %phase, %c1 : i32
      }
      %base = arith.muli %t, %n : i32
      %go = arith.cmpi ult, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it = arith.addi %base, %k : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          // expected-error @+1 {{wrong phase parity: waits for parity 1 of barrier #0, which has not completed any phase}}
          kcc.mbarrier_wait %full[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          // The group of iteration it - 1 (of this tile) has retired.
          %old = arith.cmpi uge, %k, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        %e = arith.addi %base, %n : i32
        %last = arith.subi %e, %c1 : i32
        %ls = arith.remui %last, %c3 : i32
        kcc.mbarrier_arrive %empty[%ls] per_warpgroup : !bar
        scf.yield %done : !acc
      } else {
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        scf.yield %acc0 : !acc
      }
      kcc.smem_store %r, %C[%g] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      %row = arith.muli %t, %c64 : i32
      kcc.tma_store %C[%g] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
    }
  }
  return
}

// -----

// Planted bug: both groups store through C stage 0. A group's barrier does
// not order the other group's reads (one named barrier per group): group 1
// overwrites the stage group 0's tma_store may still read.
!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @shared_c_stage(%a: !ma, %b: !ma, %c: !mc, %tiles: i32, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "tiles", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %B = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %turn = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %full[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.mbarrier_init %turn[%c0], count 1 : !kcc.mbarrier<2>
  kcc.mbarrier_init %turn[%c1], count 1 : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %t = %c0 to %tiles step %c1 : i32 {
      %base = arith.muli %t, %n : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it = arith.addi %base, %k : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi uge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        %y = arith.muli %t, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %full[%s], bytes 16384 : !bar
        kcc.tma_load %a[%y, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %full[%s] : !ma, !buf, !bar
      }
    }
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
    %other = arith.subi %c1, %g : i32
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    scf.for %t = %g to %tiles step %c2 : i32 {
      // Tile t - 1's loop has ended: phase j - 1 + g of turn[g] for this
      // group's j-th tile.
      %later = arith.cmpi ugt, %t, %c0 : i32
      scf.if %later {
        %tg = arith.subi %t, %g : i32
        %j = arith.divui %tg, %c2 : i32
        %jg = arith.addi %j, %g : i32
        %phase = arith.subi %jg, %c1 : i32
        %tp = arith.andi %phase, %c1 : i32
        kcc.mbarrier_wait %turn[%g], parity %tp : !kcc.mbarrier<2>
      }
      %base = arith.muli %t, %n : i32
      %go = arith.cmpi ult, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it = arith.addi %base, %k : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %full[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          // The group of iteration it - 1 (of this tile) has retired.
          %old = arith.cmpi uge, %k, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        %e = arith.addi %base, %n : i32
        %last = arith.subi %e, %c1 : i32
        %ls = arith.remui %last, %c3 : i32
        kcc.mbarrier_arrive %empty[%ls] per_warpgroup : !bar
        scf.yield %done : !acc
      } else {
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        scf.yield %acc0 : !acc
      }
      // expected-error @+1 {{overwriting a stage before its consumers released it: no kcc.mbarrier_wait of the consumer group 1 has observed an arrival the consumer made}}
      kcc.smem_store %r, %C[%c0] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      %row = arith.muli %t, %c64 : i32
      // expected-note @+1 {{the last read of the stage}}
      kcc.tma_store %C[%c0] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
    }
  }
  return
}

// -----

// Planted bug: a group that skips its K loop (n = 0) does not hand the turn
// on: the other group waits forever.
!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @missing_turn_arrive(%a: !ma, %b: !ma, %c: !mc, %tiles: i32, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "tiles", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %B = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %turn = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %full[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.mbarrier_init %turn[%c0], count 1 : !kcc.mbarrier<2>
  // expected-note @+1 {{count 1 set here}}
  kcc.mbarrier_init %turn[%c1], count 1 : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %t = %c0 to %tiles step %c1 : i32 {
      %base = arith.muli %t, %n : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it = arith.addi %base, %k : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi uge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        %y = arith.muli %t, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %full[%s], bytes 16384 : !bar
        kcc.tma_load %a[%y, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %full[%s] : !ma, !buf, !bar
      }
    }
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
    %other = arith.subi %c1, %g : i32
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    scf.for %t = %g to %tiles step %c2 : i32 {
      // Tile t - 1's loop has ended: phase j - 1 + g of turn[g] for this
      // group's j-th tile.
      %later = arith.cmpi ugt, %t, %c0 : i32
      scf.if %later {
        %tg = arith.subi %t, %g : i32
        %j = arith.divui %tg, %c2 : i32
        %jg = arith.addi %j, %g : i32
        %phase = arith.subi %jg, %c1 : i32
        %tp = arith.andi %phase, %c1 : i32
        // expected-error @+1 {{deadlock between the warp-specialized roles: the consumer group 1 waits here for barrier #1 phase 0 (0 of 1 arrivals) and the producer has finished and the consumer has finished}}
        kcc.mbarrier_wait %turn[%g], parity %tp : !kcc.mbarrier<2>
      }
      %base = arith.muli %t, %n : i32
      %go = arith.cmpi ult, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it = arith.addi %base, %k : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %full[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          // The group of iteration it - 1 (of this tile) has retired.
          %old = arith.cmpi uge, %k, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        %e = arith.addi %base, %n : i32
        %last = arith.subi %e, %c1 : i32
        %ls = arith.remui %last, %c3 : i32
        kcc.mbarrier_arrive %empty[%ls] per_warpgroup : !bar
        scf.yield %done : !acc
      } else {
        scf.yield %acc0 : !acc
      }
      kcc.smem_store %r, %C[%g] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      %row = arith.muli %t, %c64 : i32
      kcc.tma_store %C[%g] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
    }
  }
  return
}

// -----

// Planted bug: a group counts only its own tiles' iterations (base = j x n
// for its j-th tile), not the ring's: its stages and parities fall behind
// the producer's and copies are left unconsumed.
!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @own_count(%a: !ma, %b: !ma, %c: !mc, %tiles: i32, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "tiles", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %B = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %turn = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %full[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.mbarrier_init %turn[%c0], count 1 : !kcc.mbarrier<2>
  kcc.mbarrier_init %turn[%c1], count 1 : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %t = %c0 to %tiles step %c1 : i32 {
      %base = arith.muli %t, %n : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it = arith.addi %base, %k : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi uge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        %y = arith.muli %t, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %full[%s], bytes 16384 : !bar
        // expected-error @+1 {{the kernel ends while this kcc.tma_load into stage 1 is still in flight}}
        kcc.tma_load %a[%y, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %full[%s] : !ma, !buf, !bar
      }
    }
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
    %other = arith.subi %c1, %g : i32
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    // expected-note @+1 {{the pipelined loop}}
    scf.for %t = %g to %tiles step %c2 : i32 {
      // Tile t - 1's loop has ended: phase j - 1 + g of turn[g] for this
      // group's j-th tile.
      %later = arith.cmpi ugt, %t, %c0 : i32
      scf.if %later {
        %tg = arith.subi %t, %g : i32
        %j = arith.divui %tg, %c2 : i32
        %jg = arith.addi %j, %g : i32
        %phase = arith.subi %jg, %c1 : i32
        %tp = arith.andi %phase, %c1 : i32
        kcc.mbarrier_wait %turn[%g], parity %tp : !kcc.mbarrier<2>
      }
      %tg0 = arith.subi %t, %g : i32
      %own = arith.divui %tg0, %c2 : i32
      %base = arith.muli %own, %n : i32
      %go = arith.cmpi ult, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it = arith.addi %base, %k : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %full[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          // The group of iteration it - 1 (of this tile) has retired.
          %old = arith.cmpi uge, %k, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        %e = arith.addi %base, %n : i32
        %last = arith.subi %e, %c1 : i32
        %ls = arith.remui %last, %c3 : i32
        kcc.mbarrier_arrive %empty[%ls] per_warpgroup : !bar
        scf.yield %done : !acc
      } else {
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        scf.yield %acc0 : !acc
      }
      kcc.smem_store %r, %C[%g] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      %row = arith.muli %t, %c64 : i32
      kcc.tma_store %C[%g] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
    }
  }
  // expected-note @+1 {{the kernel ends here}}
  return
}

// -----

// Tiles whose trip counts differ (tile t runs n + t iterations, as a
// causal loop grows with its tile): the producer fills tile t's stages from
// iteration sum_{i<t} (n + i) = t x n + t (t - 1) / 2 on, and so must each
// consumer group count them, the other group's tiles included
// (kcc-pipeline-tma-loads computes their trip counts again from their
// tiles; docs/gemm.md "Uneven tiles").

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// expected-no-diagnostics
func.func @uneven_ping_pong(%a: !ma, %b: !ma, %c: !mc, %tiles: i32, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "tiles", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %B = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %turn = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %full[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.mbarrier_init %turn[%c0], count 1 : !kcc.mbarrier<2>
  kcc.mbarrier_init %turn[%c1], count 1 : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %t = %c0 to %tiles step %c1 : i32 {
      %nt = arith.addi %n, %t : i32
      %tn = arith.muli %t, %n : i32
      %t1 = arith.subi %t, %c1 : i32
      %tt = arith.muli %t, %t1 : i32
      %tri = arith.divsi %tt, %c2 : i32
      %base = arith.addi %tn, %tri : i32
      scf.for %k = %c0 to %nt step %c1 : i32 {
        %it = arith.addi %base, %k : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi uge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        %y = arith.muli %t, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %full[%s], bytes 16384 : !bar
        kcc.tma_load %a[%y, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %full[%s] : !ma, !buf, !bar
      }
    }
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
    %other = arith.subi %c1, %g : i32
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    scf.for %t = %g to %tiles step %c2 : i32 {
      // Tile t - 1's loop has ended: phase j - 1 + g of turn[g] for this
      // group's j-th tile.
      %later = arith.cmpi ugt, %t, %c0 : i32
      scf.if %later {
        %tg = arith.subi %t, %g : i32
        %j = arith.divui %tg, %c2 : i32
        %jg = arith.addi %j, %g : i32
        %phase = arith.subi %jg, %c1 : i32
        %tp = arith.andi %phase, %c1 : i32
        kcc.mbarrier_wait %turn[%g], parity %tp : !kcc.mbarrier<2>
      }
      %nt = arith.addi %n, %t : i32
      %tn = arith.muli %t, %n : i32
      %t1 = arith.subi %t, %c1 : i32
      %tt = arith.muli %t, %t1 : i32
      %tri = arith.divsi %tt, %c2 : i32
      %base = arith.addi %tn, %tri : i32
      %go = arith.cmpi ult, %c0, %nt : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %nt step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it = arith.addi %base, %k : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %full[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          // The group of iteration it - 1 (of this tile) has retired.
          %old = arith.cmpi uge, %k, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        %e = arith.addi %base, %nt : i32
        %last = arith.subi %e, %c1 : i32
        %ls = arith.remui %last, %c3 : i32
        kcc.mbarrier_arrive %empty[%ls] per_warpgroup : !bar
        scf.yield %done : !acc
      } else {
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        scf.yield %acc0 : !acc
      }
      kcc.smem_store %r, %C[%g] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      %row = arith.muli %t, %c64 : i32
      kcc.tma_store %C[%g] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
    }
  }
  return
}


// -----

// The bug it would be to count a tile's first stage as its ordinal times
// its own trip count (right only where every tile runs the same number):
// group 1's first tile starts at iteration n, not n + 1, and waits for a
// stage the producer fills for the tile before.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @uneven_ping_pong_own_count(%a: !ma, %b: !ma, %c: !mc, %tiles: i32, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "tiles", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %B = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %turn = kcc.mbarrier_alloc : !kcc.mbarrier<2>
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    // expected-note @+1 {{count 1 set here}}
    kcc.mbarrier_init %full[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.mbarrier_init %turn[%c0], count 1 : !kcc.mbarrier<2>
  kcc.mbarrier_init %turn[%c1], count 1 : !kcc.mbarrier<2>
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %t = %c0 to %tiles step %c1 : i32 {
      %nt = arith.addi %n, %t : i32
      %tn = arith.muli %t, %n : i32
      %t1 = arith.subi %t, %c1 : i32
      %tt = arith.muli %t, %t1 : i32
      %tri = arith.divsi %tt, %c2 : i32
      %base = arith.addi %tn, %tri : i32
      scf.for %k = %c0 to %nt step %c1 : i32 {
        %it = arith.addi %base, %k : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi uge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        %y = arith.muli %t, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %full[%s], bytes 16384 : !bar
        kcc.tma_load %a[%y, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %full[%s] : !ma, !buf, !bar
      }
    }
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
    %other = arith.subi %c1, %g : i32
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    scf.for %t = %g to %tiles step %c2 : i32 {
      // Tile t - 1's loop has ended: phase j - 1 + g of turn[g] for this
      // group's j-th tile.
      %later = arith.cmpi ugt, %t, %c0 : i32
      scf.if %later {
        %tg = arith.subi %t, %g : i32
        %j = arith.divui %tg, %c2 : i32
        %jg = arith.addi %j, %g : i32
        %phase = arith.subi %jg, %c1 : i32
        %tp = arith.andi %phase, %c1 : i32
        kcc.mbarrier_wait %turn[%g], parity %tp : !kcc.mbarrier<2>
      }
      %nt = arith.addi %n, %t : i32
      %base = arith.muli %t, %nt : i32
      %go = arith.cmpi ult, %c0, %nt : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %nt step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it = arith.addi %base, %k : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          // expected-error @+1 {{deadlock between the warp-specialized roles: the consumer group 1 waits here for barrier #1 phase 0}}
          kcc.mbarrier_wait %full[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          // The group of iteration it - 1 (of this tile) has retired.
          %old = arith.cmpi uge, %k, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        %e = arith.addi %base, %nt : i32
        %last = arith.subi %e, %c1 : i32
        %ls = arith.remui %last, %c3 : i32
        kcc.mbarrier_arrive %empty[%ls] per_warpgroup : !bar
        scf.yield %done : !acc
      } else {
        kcc.mbarrier_arrive %turn[%other] per_warpgroup : !kcc.mbarrier<2>
        scf.yield %acc0 : !acc
      }
      kcc.smem_store %r, %C[%g] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      %row = arith.muli %t, %c64 : i32
      kcc.tma_store %C[%g] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
    }
  }
  return
}

