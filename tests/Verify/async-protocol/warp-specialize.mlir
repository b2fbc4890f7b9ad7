// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Correct warp-specialized protocols (kcc.warp_specialize): a producer role
// fills a 3-stage pipeline, waiting on per-stage "empty" barriers before it
// refills a stage; the consumer waits on the "full" barriers, multiplies
// with one wgmma group in flight and releases the stage of the previous
// iteration once that group has retired. The trip count `n` is a kernel
// argument: the verifier runs n = 0, 1, 2, ... and a large n, each with the
// producer and with the consumer starting first; none may fail.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!mc = !kcc.tensormap<[64, 64], f32, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<3>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// expected-no-diagnostics
func.func @gemm_ws(%a: !ma, %b: !ma, %c: !mc, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "b", "c", "n"]} {
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
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %d = arith.subi %k, %c0 : i32
      %it = arith.divsi %d, %c1 : i32
      %s = arith.remsi %it, %c3 : i32
      %reuse = arith.cmpi sge, %it, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %it, %c3 : i32
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
    %acc0 = kcc.splat %z : !acc
    %go = arith.cmpi slt, %c0, %n : i32
    %r = scf.if %go -> (!acc) {
      %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
        %d = arith.subi %k, %c0 : i32
        %it = arith.divsi %d, %c1 : i32
        %s = arith.remsi %it, %c3 : i32
        %q = arith.divsi %it, %c3 : i32
        %p = arith.andi %q, %c1 : i32
        kcc.mbarrier_wait %fullA[%s], parity %p : !bar
        kcc.mbarrier_wait %fullB[%s], parity %p : !bar
        %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !buf, !buf, !acc -> !acc
        // The group of iteration it - 1 has retired: release its stage.
        %old = arith.cmpi sge, %it, %c1 : i32
        scf.if %old {
          %i2 = arith.addi %it, %c2 : i32
          %prev = arith.remsi %i2, %c3 : i32
          kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
        }
        scf.yield %y : !acc
      }
      %done = kcc.warpgroup_mma_wait 0 %acc : !acc
      scf.yield %done : !acc
    } else {
      scf.yield %acc0 : !acc
    }
    kcc.smem_store %r, %C[%c0] : !acc, !cbuf
    kcc.fence_proxy_async
    kcc.cta_barrier
    kcc.tma_store %C[%c0] -> %c[%c0, %c0] : !cbuf, !mc
    kcc.bulk_commit_group
    kcc.bulk_wait_group 0 read
  }
  return
}

// -----

// Two consumer warpgroups (M = 128): each releases a stage once, so the
// empty barriers count 2 arrivals; the A box spans 2 x 64 rows. The loop
// starts at a symbolic lower bound too (k = lb .. ub).

!ma = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!mb = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!bufA = !kcc.smem<[128, 64], f16, stages = 3, swizzle = 128>
!bufB = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 128>
!bar = !kcc.mbarrier<3>
!acc = tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>

// expected-no-diagnostics
func.func @gemm_ws_two_warpgroups(%a: !ma, %b: !mb, %lb: i32, %ub: i32) attributes {kcc.kernel, kcc.num_warps = 8 : i32, kcc.arg_names = ["a", "b", "lb", "ub"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %pid = kcc.program_id(0) : i32
  %row = arith.muli %pid, %c64 : i32
  %A = kcc.smem_alloc : !bufA
  %fullA = kcc.mbarrier_alloc : !bar
  %B = kcc.smem_alloc : !bufB
  %fullB = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %fullA[%i], count 1 : !bar
    kcc.mbarrier_init %fullB[%i], count 1 : !bar
    kcc.mbarrier_init %empty[%i], count 2 : !bar
  }
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %row2 = arith.muli %pid, %c64 : i32
    scf.for %k = %lb to %ub step %c1 : i32 {
      %d = arith.subi %k, %lb : i32
      %it = arith.divsi %d, %c1 : i32
      %s = arith.remsi %it, %c3 : i32
      %reuse = arith.cmpi sge, %it, %c3 : i32
      scf.if %reuse {
        %round = arith.divsi %it, %c3 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %fullA[%s], bytes 16384 : !bar
      kcc.tma_load %a[%row2, %x] -> %A[%s], %fullA[%s] : !ma, !bufA, !bar
      kcc.mbarrier_arrive_expect_tx %fullB[%s], bytes 8192 : !bar
      kcc.tma_load %b[%x, %c0] -> %B[%s], %fullB[%s] : !mb, !bufB, !bar
    }
  } consumer(warpgroups = 2, regs = 232) {
    %z = arith.constant 0.0 : f32
    %acc0 = kcc.splat %z : !acc
    %go = arith.cmpi slt, %lb, %ub : i32
    %r = scf.if %go -> (!acc) {
      %acc = scf.for %k = %lb to %ub step %c1 iter_args(%x = %acc0) -> (!acc) : i32 {
        %d = arith.subi %k, %lb : i32
        %it = arith.divsi %d, %c1 : i32
        %s = arith.remsi %it, %c3 : i32
        %q = arith.divsi %it, %c3 : i32
        %p = arith.andi %q, %c1 : i32
        kcc.mbarrier_wait %fullA[%s], parity %p : !bar
        kcc.mbarrier_wait %fullB[%s], parity %p : !bar
        %y = kcc.warpgroup_mma %A[%s], %B[%s], %x {a_k_major = true, b_k_major = false, pending = 1 : i32} : !bufA, !bufB, !acc -> !acc
        %old = arith.cmpi sge, %it, %c1 : i32
        scf.if %old {
          %i2 = arith.addi %it, %c2 : i32
          %prev = arith.remsi %i2, %c3 : i32
          kcc.mbarrier_arrive %empty[%prev] per_warpgroup : !bar
        }
        scf.yield %y : !acc
      }
      %done = kcc.warpgroup_mma_wait 0 %acc : !acc
      scf.yield %done : !acc
    } else {
      scf.yield %acc0 : !acc
    }
    %t = kcc.convert_layout %r : !acc -> tensor<128x64xf32>
  }
  return
}

// -----

// A consumer that reads the stages with kcc.smem_load (every thread):
// kcc.cta_barrier (the consumers' named barrier) before the plain arrival
// that releases the stage. The whole CTA loads and waits for one tile
// before the split (the consumer may read it); the consumer loads another
// with its own barrier before its loop.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!one = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<2>
!bar1 = !kcc.mbarrier<1>

// expected-no-diagnostics
func.func @smem_load_ws(%a: !ma, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.arg_names = ["a", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %A = kcc.smem_alloc : !buf
  %full = kcc.mbarrier_alloc : !bar
  %empty = kcc.mbarrier_alloc : !bar
  %S = kcc.smem_alloc : !one
  %T = kcc.smem_alloc : !one
  %sb = kcc.mbarrier_alloc : !bar1
  %tb = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %full[%c0], count 1 : !bar
  kcc.mbarrier_init %full[%c1], count 1 : !bar
  kcc.mbarrier_init %empty[%c0], count 1 : !bar
  kcc.mbarrier_init %empty[%c1], count 1 : !bar
  kcc.mbarrier_init %sb[%c0], count 1 : !bar1
  kcc.mbarrier_init %tb[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %sb[%c0], bytes 8192 : !bar1
  kcc.tma_load %a[%c64, %c0] -> %S[%c0], %sb[%c0] : !ma, !one, !bar1
  kcc.mbarrier_wait %sb[%c0], parity %c0 : !bar1
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c2 : i32
      %reuse = arith.cmpi sge, %k, %c2 : i32
      scf.if %reuse {
        %round = arith.divsi %k, %c2 : i32
        %r1 = arith.subi %round, %c1 : i32
        %ph = arith.andi %r1, %c1 : i32
        kcc.mbarrier_wait %empty[%s], parity %ph : !bar
      }
      %x = arith.muli %k, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %full[%s], bytes 8192 : !bar
      kcc.tma_load %a[%c0, %x] -> %A[%s], %full[%s] : !ma, !buf, !bar
    }
  } consumer(warpgroups = 1, regs = 232) {
    kcc.mbarrier_arrive_expect_tx %tb[%c0], bytes 8192 : !bar1
    kcc.tma_load %a[%c64, %c64] -> %T[%c0], %tb[%c0] : !ma, !one, !bar1
    kcc.mbarrier_wait %tb[%c0], parity %c0 : !bar1
    %t0 = kcc.smem_load %T[%c0] : !one -> tensor<64x64xf16>
    %s0 = kcc.smem_load %S[%c0] : !one -> tensor<64x64xf16>
    scf.for %k = %c0 to %n step %c1 : i32 {
      %s = arith.remsi %k, %c2 : i32
      %q = arith.divsi %k, %c2 : i32
      %p = arith.andi %q, %c1 : i32
      kcc.mbarrier_wait %full[%s], parity %p : !bar
      %t = kcc.smem_load %A[%s] : !buf -> tensor<64x64xf16>
      kcc.cta_barrier
      kcc.fence_proxy_async
      kcc.mbarrier_arrive %empty[%s] : !bar
    }
  }
  return
}
