// RUN: kcc-opt %s --kcc-defer-register-a-mma -split-input-file | FileCheck %s
// An unknown turns mode is an error.
// RUN: not kcc-opt %s --kcc-defer-register-a-mma=turns=sometimes -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD-MODE
// BAD-MODE: kcc-defer-register-a-mma: turns must be auto, on or off, got 'sometimes'

// Attention's loop reduced to its shape: S = Q K^T on wgmma, P computed from
// S, O = P V + O * e on the register-A form. The product moves one
// iteration later with the rescale that makes its accumulator operand: the
// loop issues S_i, then rescales O by the previous iteration's e (carried)
// and issues P_{i-1} V_{i-1} (its stage recomputed for i - 1), retires S
// with `wait 1` and the product with `wait 0` at the end; iteration 0 is
// peeled in front without its rescale and product, the last ones follow
// the loop.

!q = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
!p = tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>

// CHECK-LABEL: func.func @deferred
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %{{.*}}, %arg0 : i32
// CHECK: %[[R:.*]] = scf.if %[[RUNS]] -> (tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>) {
// CHECK: kcc.warpgroup_mma %{{.*}} {a_k_major = true, b_k_major = true}
// CHECK-NOT: arith.mulf
// CHECK-NOT: kcc.warpgroup_mma_reg_a
// CHECK: %[[L:.*]]:3 = scf.for %[[I:.*]] = %{{.*}} to %arg0 step %{{.*}} iter_args(%[[O:.*]] = %{{.*}}, %[[E:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}) -> (tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>, tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>, tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>)
// CHECK: %[[S:.*]] = kcc.warpgroup_mma {{.*}}pending = 1 : i32}
// CHECK: %[[PREV:.*]] = arith.subi %[[I]], %{{.*}} : i32
// CHECK: %[[X:.*]] = arith.mulf %[[O]], %[[E]]
// CHECK: %[[ST:.*]] = arith.remui %[[PREV]], %{{.*}} : i32
// CHECK: %[[OUT:.*]] = kcc.warpgroup_mma_reg_a %[[P]], %{{.*}}[%[[ST]]], %[[X]] {b_k_major = false, pending = 1 : i32}
// CHECK-NEXT: %[[SW:.*]] = kcc.warpgroup_mma_wait 1 %[[S]]
// CHECK-NEXT: %[[E2:.*]] = math.exp2 %[[SW]]
// CHECK-NEXT: %[[P2:.*]] = arith.truncf %[[E2]]
// CHECK-NEXT: %[[OW:.*]]:2 = kcc.warpgroup_mma_wait 0 %[[OUT]], %[[P]]
// CHECK-NEXT: scf.yield %[[OW]]#0, %[[E2]], %[[P2]]
// CHECK: %[[X2:.*]] = arith.mulf %[[L]]#0, %[[L]]#1
// CHECK: kcc.warpgroup_mma_reg_a %[[L]]#2, %{{.*}}, %[[X2]] {b_k_major = false}
// CHECK: scf.yield
// CHECK: } else {
// CHECK: return %[[R]]
func.func @deferred(%n: i32) -> !acc {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant 0.0 : f32
  %q = kcc.smem_alloc : !q
  %k = kcc.smem_alloc : !buf
  %v = kcc.smem_alloc : !buf
  %zero = kcc.splat %z : !acc
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zero) -> (!acc) : i32 {
    %st = arith.remui %i, %c2 : i32
    %s = kcc.warpgroup_mma %q[%c0], %k[%st], %zero {a_k_major = true, b_k_major = true} : !q, !buf, !acc -> !acc
    %e = math.exp2 %s : !acc
    %p = arith.truncf %e : !acc to !p
    %o2 = arith.mulf %o, %e : !acc
    %o3 = kcc.warpgroup_mma_reg_a %p, %v[%st], %o2 {b_k_major = false} : !p, !buf, !acc -> !acc
    scf.yield %o3 : !acc
  }
  return %r : !acc
}

// -----

!q = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
!p = tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>

// Left alone: the product's A operand does not come from S (nothing to
// overlap), and a loop that reads O for something else than the product's
// accumulator operand (it would read O before the deferred product).
// CHECK-LABEL: func.func @not_from_first
// CHECK: scf.for
// CHECK-NOT: pending
// CHECK: kcc.warpgroup_mma_reg_a
// CHECK-LABEL: func.func @acc_read_elsewhere
// CHECK: scf.for
// CHECK-NOT: pending
// CHECK: kcc.warpgroup_mma_reg_a
func.func @not_from_first(%n: i32, %a: !p) -> !acc {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %q = kcc.smem_alloc : !q
  %k = kcc.smem_alloc : !buf
  %zero = kcc.splat %z : !acc
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zero) -> (!acc) : i32 {
    %s = kcc.warpgroup_mma %q[%c0], %k[%c0], %zero {a_k_major = true, b_k_major = true} : !q, !buf, !acc -> !acc
    %o2 = arith.addf %o, %s : !acc
    %o3 = kcc.warpgroup_mma_reg_a %a, %k[%c1], %o2 {b_k_major = false} : !p, !buf, !acc -> !acc
    scf.yield %o3 : !acc
  }
  return %r : !acc
}
func.func @acc_read_elsewhere(%n: i32) -> (!acc, !acc) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %q = kcc.smem_alloc : !q
  %k = kcc.smem_alloc : !buf
  %zero = kcc.splat %z : !acc
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zero, %t = %zero) -> (!acc, !acc) : i32 {
    %s = kcc.warpgroup_mma %q[%c0], %k[%c0], %zero {a_k_major = true, b_k_major = true} : !q, !buf, !acc -> !acc
    %p = arith.truncf %s : !acc to !p
    %t2 = arith.addf %o, %t : !acc
    %o3 = kcc.warpgroup_mma_reg_a %p, %k[%c1], %o {b_k_major = false} : !p, !buf, !acc -> !acc
    scf.yield %o3, %t2 : !acc, !acc
  }
  return %r#0, %r#1 : !acc, !acc
}

// -----

!q = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!vbuf = !kcc.smem<[128, 256], f16, stages = 2, swizzle = 128>
!s = tensor<64x128xf32, #kcc.wgmma_acc<warpgroups = 1>>
!acc = tensor<64x256xf32, #kcc.wgmma_acc<warpgroups = 1>>
!p = tensor<64x128xf16, #kcc.wgmma_acc<warpgroups = 1>>

// Left in its iteration, with the reason for --report: a 64 x 256
// accumulator (128 registers a thread), S (64) and P (32) would be live
// together, 224 registers of tiles, more than the 207 a thread has for
// them (255 less 48).
// CHECK-LABEL: func.func @too_many_registers
// CHECK: scf.for
// CHECK: kcc.warpgroup_mma_reg_a {{.*}}kcc.defer_refused = "issued in its iteration: deferred, it would keep 224 registers a thread of tiles live together (its accumulator, the first product's and its A operand), more than the 207 the consumer has for them"
func.func @too_many_registers(%n: i32) -> !acc {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %q = kcc.smem_alloc : !q
  %k = kcc.smem_alloc : !buf
  %v = kcc.smem_alloc : !vbuf
  %zs = kcc.splat %z : !s
  %zero = kcc.splat %z : !acc
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zero) -> (!acc) : i32 {
    %s = kcc.warpgroup_mma %q[%c0], %k[%c0], %zs {a_k_major = true, b_k_major = true} : !q, !buf, !s -> !s
    %p = arith.truncf %s : !s to !p
    %o3 = kcc.warpgroup_mma_reg_a %p, %v[%c0], %o {b_k_major = false} : !p, !vbuf, !acc -> !acc
    scf.yield %o3 : !acc
  }
  return %r : !acc
}
