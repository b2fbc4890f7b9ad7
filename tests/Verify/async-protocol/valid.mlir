// RUN: kcc-opt %s --kcc-verify-async-protocol -verify-diagnostics -o /dev/null

// Correct protocols: the verifier must accept every function of this file
// without a diagnostic.

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!mapT = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!mapO = !kcc.tensormap<[64, 32], f32, swizzle = 0>
!buf1 = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bufO = !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
!buf2 = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!buf3 = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0>
!bar1 = !kcc.mbarrier<1>
!bar2 = !kcc.mbarrier<2>
!bar3 = !kcc.mbarrier<3>

// The README example: one stage loaded, read, rewritten and stored back.
func.func @single_stage_copy(%src: !mapT, %dst: !mapT, %n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf1
  %bars = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %bars[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar1
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !mapT, !buf1, !bar1
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar1
  %t = kcc.smem_load %buf[%c0] : !buf1 -> tensor<32x64xf32>
  kcc.cta_barrier
  kcc.fence_proxy_async
  kcc.smem_store %t, %buf[%c0] : tensor<32x64xf32>, !buf1
  kcc.fence_proxy_async
  kcc.cta_barrier
  kcc.fence_proxy_async
  kcc.tma_store %buf[%c0] -> %dst[%c0, %c0] : !buf1, !mapT
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  kcc.mbarrier_inval %bars[%c0] : !bar1
  return
}

// Two stages, symbolic trip count, prologue guarded by the trip count.
func.func @pipeline2(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %buf = kcc.smem_alloc : !buf2
  %bars = kcc.mbarrier_alloc : !bar2
  kcc.mbarrier_init %bars[%c0], count 1 : !bar2
  kcc.mbarrier_init %bars[%c1], count 1 : !bar2
  kcc.fence_mbarrier_init
  scf.for %p = %c0 to %c2 step %c1 : i32 {
    %go = arith.cmpi slt, %p, %n : i32
    scf.if %go {
      %x = arith.muli %p, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%p], bytes 8192 : !bar2
      kcc.tma_load %a[%c0, %x] -> %buf[%p], %bars[%p] : !map, !buf2, !bar2
    }
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c2 : i32
    %q = arith.divsi %k, %c2 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %bars[%s], parity %par : !bar2
    %t = kcc.smem_load %buf[%s] : !buf2 -> tensor<64x64xf16>
    kcc.cta_barrier
    kcc.fence_proxy_async
    %kn = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %kn, %n : i32
    scf.if %more {
      %x = arith.muli %kn, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%s], bytes 8192 : !bar2
      kcc.tma_load %a[%c0, %x] -> %buf[%s], %bars[%s] : !map, !buf2, !bar2
    }
  }
  return
}

// Three stages of A and B tiles sharing one barrier per stage (expect_tx of
// both boxes), K given in elements (trip count ceil(K / 64)), coordinates
// offset by the program id, and an epilogue that stores the result.
func.func @pipeline3(%a: !map, %b: !map, %c: !map, %K: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "b", "c", "K"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %pid = kcc.program_id(0) : i32
  %row = arith.muli %pid, %c64 : i32
  %n = arith.ceildivsi %K, %c64 : i32
  %bufA = kcc.smem_alloc : !buf3
  %bufB = kcc.smem_alloc : !buf3
  %bufC = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>
  %bars = kcc.mbarrier_alloc : !bar3
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_init %bars[%i], count 1 : !bar3
  }
  kcc.fence_mbarrier_init
  scf.for %p = %c0 to %c3 step %c1 : i32 {
    %go = arith.cmpi slt, %p, %n : i32
    scf.if %go {
      %x = arith.muli %p, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%p], bytes 16384 : !bar3
      kcc.tma_load %a[%row, %x] -> %bufA[%p], %bars[%p] : !map, !buf3, !bar3
      kcc.tma_load %b[%x, %c0] -> %bufB[%p], %bars[%p] : !map, !buf3, !bar3
    }
  }
  %init = arith.constant dense<0.0> : tensor<64x64xf16>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %init) -> (tensor<64x64xf16>) : i32 {
    %s = arith.remui %k, %c3 : i32
    %q = arith.divui %k, %c3 : i32
    %par = arith.andi %q, %c1 : i32
    kcc.mbarrier_wait %bars[%s], parity %par : !bar3
    %ta = kcc.smem_load %bufA[%s] : !buf3 -> tensor<64x64xf16>
    %tb = kcc.smem_load %bufB[%s] : !buf3 -> tensor<64x64xf16>
    kcc.cta_barrier
    kcc.fence_proxy_async
    %kn = arith.addi %k, %c3 : i32
    %more = arith.cmpi slt, %kn, %n : i32
    scf.if %more {
      %x = arith.muli %kn, %c64 : i32
      kcc.mbarrier_arrive_expect_tx %bars[%s], bytes 16384 : !bar3
      kcc.tma_load %a[%row, %x] -> %bufA[%s], %bars[%s] : !map, !buf3, !bar3
      kcc.tma_load %b[%x, %c0] -> %bufB[%s], %bars[%s] : !map, !buf3, !bar3
    }
    %prod = arith.mulf %ta, %tb : tensor<64x64xf16>
    %next = arith.addf %acc0, %prod : tensor<64x64xf16>
    scf.yield %next : tensor<64x64xf16>
  }
  kcc.smem_store %acc, %bufC[%c0] : tensor<64x64xf16>, !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>
  kcc.fence_proxy_async
  kcc.cta_barrier
  kcc.tma_store %bufC[%c0] -> %c[%row, %c0] : !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    kcc.mbarrier_inval %bars[%i] : !bar3
  }
  return
}

// Load, transpose in registers, store through a second buffer: smem_store,
// fence_proxy_async, cta_barrier, tma_store, commit, wait.
func.func @transpose_epilogue(%src: !mapT, %dst: !mapO) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pid = kcc.program_id(0) : i32
  %x = arith.muli %pid, %c32 : i32
  %in = kcc.smem_alloc : !buf1
  %out = kcc.smem_alloc : !bufO
  %bars = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %bars[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar1
  kcc.tma_load %src[%x, %c0] -> %in[%c0], %bars[%c0] : !mapT, !buf1, !bar1
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar1
  %t = kcc.smem_load %in[%c0] : !buf1 -> tensor<32x64xf32>
  kcc.cta_barrier
  kcc.fence_proxy_async
  %tt = kcc.trans %t : tensor<32x64xf32> -> tensor<64x32xf32>
  kcc.smem_store %tt, %out[%c0] : tensor<64x32xf32>, !bufO
  kcc.fence_proxy_async
  kcc.cta_barrier
  kcc.tma_store %out[%c0] -> %dst[%c0, %x] : !bufO, !mapO
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// Several barriers: a tx barrier per buffer, an arrival-only barrier with
// count 2, re-initialization after inval, two stores of one group to
// disjoint boxes, and a load of a stored box after a full (non-read) wait.
func.func @multi_barrier(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %pid = kcc.program_id(1) : i32
  %y = arith.muli %pid, %c64 : i32
  %y1 = arith.addi %y, %c64 : i32
  %buf = kcc.smem_alloc : !buf2
  %bars = kcc.mbarrier_alloc : !bar3
  kcc.mbarrier_init %bars[%c0], count 1 : !bar3
  kcc.mbarrier_init %bars[%c1], count 1 : !bar3
  kcc.mbarrier_init %bars[%c2], count 2 : !bar3
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar3
  kcc.tma_load %m[%y, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf2, !bar3
  kcc.mbarrier_arrive_expect_tx %bars[%c1], bytes 8192 : !bar3
  kcc.tma_load %m[%y1, %c0] -> %buf[%c1], %bars[%c1] : !map, !buf2, !bar3
  kcc.mbarrier_wait %bars[%c1], parity %c0 : !bar3
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar3
  // Waiting again for the phase that just completed returns at once.
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar3
  kcc.mbarrier_arrive %bars[%c2] : !bar3
  kcc.mbarrier_arrive %bars[%c2] : !bar3
  kcc.mbarrier_wait %bars[%c2], parity %c0 : !bar3
  kcc.tma_store %buf[%c0] -> %o[%y, %c0] : !buf2, !map
  kcc.tma_store %buf[%c1] -> %o[%y1, %c0] : !buf2, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0
  kcc.mbarrier_inval %bars[%c0] : !bar3
  kcc.mbarrier_init %bars[%c0], count 1 : !bar3
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar3
  kcc.tma_load %o[%y, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf2, !bar3
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar3
  %t = kcc.smem_load %buf[%c0] : !buf2 -> tensor<64x64xf16>
  kcc.cta_barrier
  kcc.fence_proxy_async
  return
}

// A constant trip count (100 iterations) with one barrier reused in every
// iteration: its parity alternates.
func.func @constant_loop(%a: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c100 = arith.constant 100 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>
  %bars = kcc.mbarrier_alloc : !bar1
  kcc.mbarrier_init %bars[%c0], count 1 : !bar1
  kcc.fence_mbarrier_init
  scf.for %k = %c0 to %c100 step %c1 : i32 {
    %x = arith.muli %k, %c64 : i32
    %par = arith.andi %k, %c1 : i32
    kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar1
    kcc.tma_load %a[%c0, %x] -> %buf[%c0], %bars[%c0] : !map, !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>, !bar1
    kcc.mbarrier_wait %bars[%c0], parity %par : !bar1
    %t = kcc.smem_load %buf[%c0] : !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0> -> tensor<64x64xf16>
    kcc.cta_barrier
    kcc.fence_proxy_async
  }
  return
}
