// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// A persistent kernel's warp-specialized pipeline (kcc --persistent): each
// role runs its own loop over the program's tiles (kcc.persistent_tiles,
// from the launch id by the launch's extent), carrying the stage counter
// `base` from one tile to the next, so the producer fills the next tile's
// stages while the consumer stores this one. The consumer releases the
// stage of a tile's last K iteration behind the loop, once its wait retired
// the last wgmma group. The verifier runs the tile loop as one program that
// runs every tile (at most 2 * 3 + 2 of them), for tile counts t and trip
// counts n of 0, 1, 2, ... and large.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// expected-no-diagnostics
func.func @persistent_ws(%a: !ma, %b: !ma, %c: !mc, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "n", "t"]} {
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
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  %trips = arith.maxsi %n, %c0 : i32
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it0 = arith.divui %k, %c1 : i32
        %it = arith.addi %base, %it0 : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi sge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
        kcc.tma_load %a[%row, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
        kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
      }
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  } consumer(warpgroups = 1, regs = 232) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %z = arith.constant 0.0 : f32
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      %acc0 = kcc.splat %z : !acc
      %go = arith.cmpi slt, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it0 = arith.divui %k, %c1 : i32
          %it = arith.addi %base, %it0 : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %fullA[%s], parity %p : !bar
          kcc.mbarrier_wait %fullB[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          %old = arith.cmpi sge, %it0, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        scf.yield %done : !acc
      } else {
        scf.yield %acc0 : !acc
      }
      // The last iteration's stage, released behind the loop's wait.
      %ran = arith.cmpi sgt, %trips, %c0 : i32
      scf.if %ran {
        %l0 = arith.addi %base, %trips : i32
        %l1 = arith.subi %l0, %c1 : i32
        %last = arith.remui %l1, %c3 : i32
        kcc.mbarrier_arrive %empty[%last] per_warpgroup : !bar
      }
      // The C stage is free once the previous tile's store has read it.
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
      kcc.smem_store %r, %C[%c0] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      kcc.tma_store %C[%c0] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
    kcc.bulk_wait_group 0 read
  }
  return
}

// -----

// The consumer forgets the stage of each tile's last K iteration: the next
// tile's producer waits for its release forever.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @persistent_no_last_release(%a: !ma, %b: !ma, %c: !mc, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "n", "t"]} {
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
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    // expected-note@+1 {{count 1 set here}}
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  %trips = arith.maxsi %n, %c0 : i32
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it0 = arith.divui %k, %c1 : i32
        %it = arith.addi %base, %it0 : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi sge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          // expected-error@+1 {{deadlock between the warp-specialized roles: the producer waits here for barrier #2 phase 0 (0 of 1 arrivals)}}
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
        kcc.tma_load %a[%row, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
        kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
      }
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  } consumer(warpgroups = 1, regs = 232) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %z = arith.constant 0.0 : f32
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      %acc0 = kcc.splat %z : !acc
      %go = arith.cmpi slt, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it0 = arith.divui %k, %c1 : i32
          %it = arith.addi %base, %it0 : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          // expected-note@+1 {{the consumer waits here}}
          kcc.mbarrier_wait %fullA[%s], parity %p : !bar
          kcc.mbarrier_wait %fullB[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          %old = arith.cmpi sge, %it0, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        scf.yield %done : !acc
      } else {
        scf.yield %acc0 : !acc
      }
      // The C stage is free once the previous tile's store has read it.
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
      kcc.smem_store %r, %C[%c0] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      kcc.tma_store %C[%c0] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
    kcc.bulk_wait_group 0 read
  }
  return
}

// -----

// The consumer restarts its stage counter every tile (the local iteration
// instead of base + it): it reads stages and phases the producer did not
// fill, and copies are left in flight.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @persistent_stage_restarts(%a: !ma, %b: !ma, %c: !mc, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "n", "t"]} {
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
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  %trips = arith.maxsi %n, %c0 : i32
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it0 = arith.divui %k, %c1 : i32
        %it = arith.addi %base, %it0 : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi sge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
        // expected-error@+1 {{the kernel ends while this kcc.tma_load into stage 1 is still in flight}}
        kcc.tma_load %a[%row, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
        kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
      }
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  } consumer(warpgroups = 1, regs = 232) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %z = arith.constant 0.0 : f32
    // expected-note@+1 {{the pipelined loop}}
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      %acc0 = kcc.splat %z : !acc
      %go = arith.cmpi slt, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it0 = arith.divui %k, %c1 : i32
          %it = arith.addi %base, %it0 : i32
          %s = arith.remui %it0, %c3 : i32
          %q = arith.divui %it0, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %fullA[%s], parity %p : !bar
          kcc.mbarrier_wait %fullB[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          %old = arith.cmpi sge, %it0, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        scf.yield %done : !acc
      } else {
        scf.yield %acc0 : !acc
      }
      // The last iteration's stage, released behind the loop's wait.
      %ran = arith.cmpi sgt, %trips, %c0 : i32
      scf.if %ran {
        %l0 = arith.addi %base, %trips : i32
        %l1 = arith.subi %l0, %c1 : i32
        %last = arith.remui %l1, %c3 : i32
        kcc.mbarrier_arrive %empty[%last] per_warpgroup : !bar
      }
      // The C stage is free once the previous tile's store has read it.
      kcc.bulk_wait_group 0 read
      kcc.cta_barrier
      kcc.smem_store %r, %C[%c0] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      kcc.tma_store %C[%c0] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
    kcc.bulk_wait_group 0 read
  // expected-note@+2 {{the kernel ends here}}
  }
  return
}

// -----

// No wait for the previous tile's TMA store before the C stage is
// rewritten.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

func.func @persistent_c_stage_in_use(%a: !ma, %b: !ma, %c: !mc, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "n", "t"]} {
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
  %C = kcc.smem_alloc : !cbuf
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 1 : !bar
  }
  kcc.fence_mbarrier_init
  %trips = arith.maxsi %n, %c0 : i32
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %it0 = arith.divui %k, %c1 : i32
        %it = arith.addi %base, %it0 : i32
        %s = arith.remui %it, %c3 : i32
        %reuse = arith.cmpi sge, %it, %c3 : i32
        scf.if %reuse {
          %round = arith.divui %it, %c3 : i32
          %r1 = arith.subi %round, %c1 : i32
          %ph = arith.andi %r1, %c1 : i32
          kcc.mbarrier_wait %empty[%s], parity %ph : !bar
        }
        %x = arith.muli %k, %c64 : i32
        kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 8192 : !bar
        kcc.tma_load %a[%row, %x] -> %A[%s], %fullA[%s] : !ma, !buf, !bar
        kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
        kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !ma, !buf, !bar
      }
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  } consumer(warpgroups = 1, regs = 232) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %z = arith.constant 0.0 : f32
    %end = scf.for %tile = %first to %t step %extent iter_args(%base = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      %acc0 = kcc.splat %z : !acc
      %go = arith.cmpi slt, %c0, %n : i32
      %r = scf.if %go -> (!acc) {
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
          %it0 = arith.divui %k, %c1 : i32
          %it = arith.addi %base, %it0 : i32
          %s = arith.remui %it, %c3 : i32
          %q = arith.divui %it, %c3 : i32
          %p = arith.andi %q, %c1 : i32
          kcc.mbarrier_wait %fullA[%s], parity %p : !bar
          kcc.mbarrier_wait %fullB[%s], parity %p : !bar
          %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
          %old = arith.cmpi sge, %it0, %c1 : i32
          scf.if %old {
            %i2 = arith.addi %it, %c2 : i32
            %prev = arith.remui %i2, %c3 : i32
            kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
          }
          scf.yield %y : !acc
        }
        %done = kcc.warpgroup_mma_wait 0 %acc : !acc
        scf.yield %done : !acc
      } else {
        scf.yield %acc0 : !acc
      }
      // The last iteration's stage, released behind the loop's wait.
      %ran = arith.cmpi sgt, %trips, %c0 : i32
      scf.if %ran {
        %l0 = arith.addi %base, %trips : i32
        %l1 = arith.subi %l0, %c1 : i32
        %last = arith.remui %l1, %c3 : i32
        kcc.mbarrier_arrive %empty[%last] per_warpgroup : !bar
      }
      // The C stage is free once the previous tile's store has read it.
      kcc.cta_barrier
      // expected-error@+1 {{writing stage 0 while a kcc.tma_store is still reading it (its bulk async-group has not been waited) (loop iteration with induction variable 1)}}
      kcc.smem_store %r, %C[%c0] : !acc, !cbuf
      kcc.fence_proxy_async
      kcc.cta_barrier
      // expected-note@+1 {{the tma_store reading the stage}}
      kcc.tma_store %C[%c0] -> %c[%row, %c0] : !cbuf, !mc
      kcc.bulk_commit_group
      %next = arith.addi %base, %trips : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
    kcc.bulk_wait_group 0 read
  }
  return
}

// -----

// A once-per-tile copy (attention's query block, loaded before its key
// loop): where the tile's loop does not run (n = 0) the copy is waited for
// and never read, and the next tile's copy overwrites it. That only
// discards it: its stage is not chosen by a pipeline's counter, so no stage
// is skipped. A pipelined stage left unread is still refused (the
// overwrite-stage tests).

!mq = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!qbuf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!qbar = !kcc.mbarrier<1>

// expected-no-diagnostics
func.func @once_per_tile_unread(%q: !mq, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["q", "n", "t"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %Q = kcc.smem_alloc : !qbuf
  %full = kcc.mbarrier_alloc : !qbar
  kcc.mbarrier_init %full[%c0], count 1 : !qbar
  kcc.fence_mbarrier_init
  %first = kcc.program_id(0) : i32
  %extent = kcc.num_programs(0) : i32
  %end = scf.for %tile = %first to %t step %extent iter_args(%ord = %c0) -> (i32) : i32 {
    %row = arith.muli %tile, %c64 : i32
    kcc.cta_barrier
    kcc.fence_proxy_async
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 8192 : !qbar
    kcc.tma_load %q[%row, %c0] -> %Q[%c0], %full[%c0] : !mq, !qbuf, !qbar
    %p = arith.andi %ord, %c1 : i32
    kcc.mbarrier_wait %full[%c0], parity %p : !qbar
    scf.for %k = %c0 to %n step %c1 : i32 {
      %x = kcc.smem_load %Q[%c0] : !qbuf -> tensor<64x64xf16>
    }
    %next = arith.addi %ord, %c1 : i32
    scf.yield %next : i32
  } {kcc.persistent_tiles}
  return
}

// -----

// The same copy without its wait where the loop does not run: refused
// (for one tile the kernel ends with the copy in flight; for more the next
// tile's copy would overwrite data still landing).

!mq = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!qbuf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!qbar = !kcc.mbarrier<1>

func.func @once_per_tile_unwaited(%q: !mq, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["q", "n", "t"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %Q = kcc.smem_alloc : !qbuf
  %full = kcc.mbarrier_alloc : !qbar
  kcc.mbarrier_init %full[%c0], count 1 : !qbar
  kcc.fence_mbarrier_init
  %first = kcc.program_id(0) : i32
  %extent = kcc.num_programs(0) : i32
  %end = scf.for %tile = %first to %t step %extent iter_args(%ord = %c0) -> (i32) : i32 {
    %row = arith.muli %tile, %c64 : i32
    kcc.cta_barrier
    kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 8192 : !qbar
    // expected-error@+1 {{the kernel ends while this kcc.tma_load into stage 0 is still in flight}}
    kcc.tma_load %q[%row, %c0] -> %Q[%c0], %full[%c0] : !mq, !qbuf, !qbar
    %p = arith.andi %ord, %c1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      kcc.mbarrier_wait %full[%c0], parity %p : !qbar
      %x = kcc.smem_load %Q[%c0] : !qbuf -> tensor<64x64xf16>
    }
    %next = arith.addi %ord, %c1 : i32
    scf.yield %next : i32
  } {kcc.persistent_tiles}
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

// The producer issues the once-per-tile copy a tile ahead (kcc
// --prefetch-tile-loads): before tile j's copy it waits for phase j - 1 of
// `qempty`, which the consumer arrives on once its loop is done with the
// stage. Where the loop does not run (n = 0) the copy is waited for by the
// consumer and never read; the producer learns through the consumer's
// arrival that it landed, so its next copy only discards it.

!mq = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!qbuf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!qbar = !kcc.mbarrier<1>

// expected-no-diagnostics
func.func @producer_tile_load(%q: !mq, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["q", "n", "t"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %Q = kcc.smem_alloc : !qbuf
  %full = kcc.mbarrier_alloc : !qbar
  %qempty = kcc.mbarrier_alloc : !qbar
  kcc.mbarrier_init %full[%c0], count 1 : !qbar
  kcc.mbarrier_init %qempty[%c0], count 1 : !qbar
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %pend = scf.for %tile = %first to %t step %extent iter_args(%pbase = %c0) -> (i32) : i32 {
      %d = arith.subi %tile, %first : i32
      %ord = arith.divui %d, %extent : i32
      %later = arith.cmpi ugt, %ord, %c0 : i32
      scf.if %later {
        %o1 = arith.subi %ord, %c1 : i32
        %ph = arith.andi %o1, %c1 : i32
        kcc.mbarrier_wait %qempty[%c0], parity %ph : !qbar
      }
      %row = arith.muli %tile, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 8192 : !qbar
      kcc.tma_load %q[%row, %c0] -> %Q[%c0], %full[%c0] : !mq, !qbuf, !qbar
      scf.yield %pbase : i32
    } {kcc.persistent_tiles}
  } consumer(warpgroups = 1, regs = 232) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%ord = %c0) -> (i32) : i32 {
      %p = arith.andi %ord, %c1 : i32
      kcc.mbarrier_wait %full[%c0], parity %p : !qbar
      scf.for %k = %c0 to %n step %c1 : i32 {
        %x = kcc.smem_load %Q[%c0] : !qbuf -> tensor<64x64xf16>
      }
      kcc.cta_barrier
      kcc.fence_proxy_async
      kcc.mbarrier_arrive %qempty[%c0] per_warpgroup : !qbar
      %next = arith.addi %ord, %c1 : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  }
  return
}

// -----

// Planted bug: the producer does not wait for the consumer's release
// before the next tile's copy.

!mq = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!qbuf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!qbar = !kcc.mbarrier<1>

func.func @producer_tile_load_no_wait(%q: !mq, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["q", "n", "t"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %Q = kcc.smem_alloc : !qbuf
  %full = kcc.mbarrier_alloc : !qbar
  %qempty = kcc.mbarrier_alloc : !qbar
  kcc.mbarrier_init %full[%c0], count 1 : !qbar
  kcc.mbarrier_init %qempty[%c0], count 1 : !qbar
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %pend = scf.for %tile = %first to %t step %extent iter_args(%pbase = %c0) -> (i32) : i32 {
      %row = arith.muli %tile, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 8192 : !qbar
      // expected-error@+2 {{overwriting a stage before its consumers released it}}
      // expected-note@+1 {{the earlier copy into the stage}}
      kcc.tma_load %q[%row, %c0] -> %Q[%c0], %full[%c0] : !mq, !qbuf, !qbar
      scf.yield %pbase : i32
    } {kcc.persistent_tiles}
  } consumer(warpgroups = 1, regs = 232) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%ord = %c0) -> (i32) : i32 {
      %p = arith.andi %ord, %c1 : i32
      kcc.mbarrier_wait %full[%c0], parity %p : !qbar
      scf.for %k = %c0 to %n step %c1 : i32 {
        %x = kcc.smem_load %Q[%c0] : !qbuf -> tensor<64x64xf16>
      }
      kcc.cta_barrier
      kcc.fence_proxy_async
      kcc.mbarrier_arrive %qempty[%c0] per_warpgroup : !qbar
      %next = arith.addi %ord, %c1 : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  }
  return
}

// -----

// Planted bug: the consumer waits for the copy only inside its loop, so
// where the loop does not run nobody waits for the copy (the last tile's
// is still in flight when the kernel ends, an earlier tile's may still be
// landing when the producer's next copy overwrites it).

!mq = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!qbuf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!qbar = !kcc.mbarrier<1>

func.func @producer_tile_load_unobserved(%q: !mq, %n: i32, %t: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["q", "n", "t"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %Q = kcc.smem_alloc : !qbuf
  %full = kcc.mbarrier_alloc : !qbar
  %qempty = kcc.mbarrier_alloc : !qbar
  kcc.mbarrier_init %full[%c0], count 1 : !qbar
  kcc.mbarrier_init %qempty[%c0], count 1 : !qbar
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %pend = scf.for %tile = %first to %t step %extent iter_args(%pbase = %c0) -> (i32) : i32 {
      %d = arith.subi %tile, %first : i32
      %ord = arith.divui %d, %extent : i32
      %later = arith.cmpi ugt, %ord, %c0 : i32
      scf.if %later {
        %o1 = arith.subi %ord, %c1 : i32
        %ph = arith.andi %o1, %c1 : i32
        kcc.mbarrier_wait %qempty[%c0], parity %ph : !qbar
      }
      %row = arith.muli %tile, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %full[%c0], bytes 8192 : !qbar
      // expected-error@+1 {{the kernel ends while this kcc.tma_load into stage 0 is still in flight}}
      kcc.tma_load %q[%row, %c0] -> %Q[%c0], %full[%c0] : !mq, !qbuf, !qbar
      scf.yield %pbase : i32
    } {kcc.persistent_tiles}
  } consumer(warpgroups = 1, regs = 232) {
    %first = kcc.program_id(0) : i32
    %extent = kcc.num_programs(0) : i32
    %end = scf.for %tile = %first to %t step %extent iter_args(%ord = %c0) -> (i32) : i32 {
      %p = arith.andi %ord, %c1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        kcc.mbarrier_wait %full[%c0], parity %p : !qbar
        %x = kcc.smem_load %Q[%c0] : !qbuf -> tensor<64x64xf16>
      }
      kcc.cta_barrier
      kcc.fence_proxy_async
      kcc.mbarrier_arrive %qempty[%c0] per_warpgroup : !qbar
      %next = arith.addi %ord, %c1 : i32
      scf.yield %next : i32
    } {kcc.persistent_tiles}
  }
  // expected-note@+1 {{the kernel ends here}}
  return
}
