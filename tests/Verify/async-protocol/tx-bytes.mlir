// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 2: expect_tx bytes differ from the bytes of the copies that
// signal the barrier in that phase.

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!half = !kcc.tensormap<[16, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Too many expected: 16384 for one 8192-byte box (a hang).
func.func @expect_too_many(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-note@+1 {{expects 16384 bytes here}}
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
  // expected-note@+1 {{this copy brings 8192 bytes}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{expect_tx 16384 bytes but the copies signaling this barrier bring 8192 (barrier #0, phase 0): the phase never completes (a hang)}}
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  kcc.fence_proxy_async
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Too few expected: 4096 for an 8192-byte box (reads of data not landed).
func.func @expect_too_few(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-note@+1 {{expects 4096 bytes here}}
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 4096 : !bar
  // expected-note@+1 {{this copy brings 8192 bytes}}
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{expect_tx 4096 bytes but the copies signaling this barrier bring 8192 (barrier #0, phase 0): the phase may complete before every copy has landed}}
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  kcc.fence_proxy_async
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Two buffers on one barrier, but the expect_tx counts only one box.
func.func @expect_one_of_two(%a: !map, %b: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  // expected-note@+1 {{expects 8192 bytes here}}
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{this copy brings 8192 bytes}}
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-note@+1 {{this copy brings 8192 bytes}}
  kcc.tma_load %b[%c0, %c0] -> %buf[%c1], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{expect_tx 8192 bytes but the copies signaling this barrier bring 16384}}
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<64x64xf16>
  %u = kcc.smem_load %buf[%c1] : !buf -> tensor<64x64xf16>
  kcc.cta_barrier
  kcc.fence_proxy_async
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<2>

// In a 2-stage pipeline: the refill in the loop expects half a box.
func.func @pipeline_refill_bytes(%a: !map, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["a", "n"]} {
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
    // expected-error@+1 {{expect_tx 4096 bytes but the copies signaling this barrier bring 8192 (barrier #0, phase 1): the phase may complete before every copy has landed (reads of data not yet written) (loop iteration with induction variable 2) (with n = 3)}}
    kcc.mbarrier_wait %bars[%s], parity %par : !bar
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
    kcc.cta_barrier
    kcc.fence_proxy_async
    %kn = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %kn, %n : i32
    scf.if %more {
      %x = arith.muli %kn, %c64 : i32
      // expected-note@+1 {{expects 4096 bytes here}}
      kcc.mbarrier_arrive_expect_tx %bars[%s], bytes 4096 : !bar
      // expected-note@+1 {{this copy brings 8192 bytes}}
      kcc.tma_load %a[%c0, %x] -> %buf[%s], %bars[%s] : !map, !buf, !bar
    }
  }
  return
}

// -----

!map = !kcc.tensormap<[32, 64], f32, swizzle = 0>
!buf = !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation (single-stage copy, too many expected): a second arrival tries to
// make up the difference, beyond the init count.
func.func @extra_arrival(%src: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  // expected-note@+1 {{count 1 set here}}
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
  kcc.tma_load %src[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  // expected-error@+1 {{arrives on barrier #0 whose phase 0 already has all 1 arrivals and still waits for transaction bytes (expect_tx 16384 bytes, the copies bring 8192)}}
  kcc.mbarrier_arrive %bars[%c0] : !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %t = kcc.smem_load %buf[%c0] : !buf -> tensor<32x64xf32>
  kcc.cta_barrier
  kcc.fence_proxy_async
  return
}
