// RUN: kcc-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// kcc.tcgen05_mma on 8-bit floats (kind::f8f6f4): e4m3 and e5m2 operands,
// mixed allowed, both K-major, 32 K a step, M = 128.

// CHECK-LABEL: func.func @mixed
// CHECK: kcc.tcgen05_mma {{.*}} : <[128, 64], f8E5M2, {{.*}}>, <[256, 64], f8E4M3FN, {{.*}}>, <256>
!a = !kcc.smem<[128, 64], f8E5M2, stages = 2, swizzle = 128>
!b = !kcc.smem<[256, 64], f8E4M3FN, stages = 2, swizzle = 128>
func.func @mixed(%t: !kcc.tmem<256>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !a
  %b = kcc.smem_alloc : !b
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = true} : !a, !b, !kcc.tmem<256>
  return
}

// -----

!a = !kcc.smem<[128, 64], f8E4M3FN, stages = 2, swizzle = 128>
!b = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
func.func @f8_by_f16(%t: !kcc.tmem<64>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !a
  %b = kcc.smem_alloc : !b
  // expected-error@+1 {{takes f16, bf16 or i8 operands of one type, or f8E4M3FN/f8E5M2 ones}}
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = true} : !a, !b, !kcc.tmem<64>
  return
}

// -----

!a = !kcc.smem<[128, 128], f8E4M3FN, stages = 2, swizzle = 128>
func.func @f8_mn_major(%t: !kcc.tmem<128>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !a
  // expected-error@+1 {{8-bit float operands must both be K-major}}
  kcc.tcgen05_mma %a[%c0], %a[%c0], %t, %go {a_k_major = true, b_k_major = false} : !a, !a, !kcc.tmem<128>
  return
}

// -----

!a = !kcc.smem<[128, 48], f8E4M3FN, stages = 2, swizzle = 128>
!b = !kcc.smem<[64, 48], f8E4M3FN, stages = 2, swizzle = 128>
func.func @f8_k(%t: !kcc.tmem<64>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !a
  %b = kcc.smem_alloc : !b
  // expected-error@+1 {{K = 48 is not a multiple of 32}}
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = true} : !a, !b, !kcc.tmem<64>
  return
}
