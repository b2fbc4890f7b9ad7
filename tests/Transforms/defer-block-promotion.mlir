// RUN: kcc-opt %s --kcc-defer-block-promotion -split-input-file | FileCheck %s

// FP8 block scales reduced to their shape: P = A_k B_k^T from zeros, then
// acc += P * s[:, None] with s a row vector in the accumulator's row layout.
// Iteration 0 runs in front of the loop (its product retired there: wait 0
// in the op); the loop runs two iterations per trip from 1 to
// 1 + 2 * ((n - 1) / 2), each issuing its product (pending 1), retiring the
// previous one (`wait 1`) and promoting it with the row vector carried from
// its iteration; an even trip count's last iteration follows in the
// epilogue's `then` branch, and the last product is retired (`wait 0`) and
// promoted in both branches.

!buf = !kcc.smem<[128, 128], f8E4M3FN, stages = 3, swizzle = 128>
!acc = tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
!row = tensor<128x1xf32, #kcc.wgmma_acc<warpgroups = 2>>
!rowp = tensor<128x1x!kcc.ptr<f32>, #kcc.wgmma_acc<warpgroups = 2>>
!rowi = tensor<128x1xi32, #kcc.wgmma_acc<warpgroups = 2>>

// CHECK-LABEL: func.func @promoted
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %{{.*}}, %arg1 : i32
// CHECK: %[[R:.*]] = scf.if %[[RUNS]] -> (tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>) {
// CHECK: %[[S0:.*]] = kcc.load
// CHECK: %[[P0:.*]] = kcc.warpgroup_mma %{{.*}} {a_k_major = true, b_k_major = true, kcc.promoted_late} :
// CHECK-NOT: arith.mulf
// CHECK: %[[REST:.*]] = arith.subi %{{.*}}, %c1
// CHECK: %[[PAIRS:.*]] = arith.divui %[[REST]], %c2
// CHECK: %[[L:.*]]:3 = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c2{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}, %[[PREV:.*]] = %[[P0]], %[[SPREV:.*]] = %[[S0]])
// CHECK: %[[SA:.*]] = kcc.load
// CHECK-NEXT: %[[PA:.*]] = kcc.warpgroup_mma {{.*}}pending = 1 : i32}
// CHECK-NEXT: %[[DONE:.*]] = kcc.warpgroup_mma_wait 1 %[[PREV]]
// CHECK-NEXT: %[[B:.*]] = kcc.broadcast %[[SPREV]]
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[DONE]], %[[B]]
// CHECK-NEXT: %[[SUM1:.*]] = arith.addf %[[SUM]], %[[T]]
// CHECK-NEXT: %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : i32
// CHECK: %[[SB:.*]] = kcc.load
// CHECK-NEXT: %[[PB:.*]] = kcc.warpgroup_mma {{.*}}pending = 1 : i32}
// CHECK-NEXT: %[[DONEA:.*]] = kcc.warpgroup_mma_wait 1 %[[PA]]
// CHECK-NEXT: %[[BA:.*]] = kcc.broadcast %[[SA]]
// CHECK-NEXT: %[[TA:.*]] = arith.mulf %[[DONEA]], %[[BA]]
// CHECK-NEXT: %[[SUM2:.*]] = arith.addf %[[SUM1]], %[[TA]]
// CHECK-NEXT: scf.yield %[[SUM2]], %[[PB]], %[[SB]]
// CHECK: %[[ODD:.*]] = arith.cmpi ne
// CHECK: scf.if %[[ODD]]
// CHECK: %[[SL:.*]] = kcc.load
// CHECK-NEXT: %[[PL:.*]] = kcc.warpgroup_mma {{.*}}pending = 1 : i32}
// CHECK-NEXT: kcc.warpgroup_mma_wait 1 %[[L]]#1
// CHECK-NEXT: kcc.broadcast %[[L]]#2
// CHECK: %[[DL:.*]] = kcc.warpgroup_mma_wait 0 %[[PL]]
// CHECK-NEXT: kcc.broadcast %[[SL]]
// CHECK: } else {
// CHECK-NEXT: kcc.warpgroup_mma_wait 0 %[[L]]#1
// CHECK-NEXT: kcc.broadcast %[[L]]#2
// CHECK: return %[[R]]
func.func @promoted(%sa: !kcc.ptr<f32>, %n: i32) -> !acc {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !buf
  %b = kcc.smem_alloc : !buf
  %zero = kcc.splat %z : !acc
  %base = kcc.splat %sa : !rowp
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%sum = %zero) -> (!acc) : i32 {
    %st = arith.remui %k, %c3 : i32
    %off = kcc.splat %k : !rowi
    %ptr = kcc.addptr %base, %off : !rowp, !rowi
    %s = kcc.load %ptr : !rowp
    %p = kcc.warpgroup_mma %a[%st], %b[%st], %zero {a_k_major = true, b_k_major = true} : !buf, !buf, !acc -> !acc
    %sb = kcc.broadcast %s : !row -> !acc
    %t = arith.mulf %p, %sb : !acc
    %sum2 = arith.addf %sum, %t : !acc
    scf.yield %sum2 : !acc
  }
  return %r : !acc
}

// -----

!buf = !kcc.smem<[128, 128], f8E4M3FN, stages = 3, swizzle = 128>
!acc = tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>

// Left alone: a GEMM's accumulation (the product accumulates into the
// loop's value itself), and a sum that the loop reads elsewhere too (it
// would read it before the late promotion).
// CHECK-LABEL: func.func @accumulating
// CHECK: scf.for
// CHECK-NOT: pending
// CHECK-NOT: kcc.warpgroup_mma_wait
// CHECK: return
// CHECK-LABEL: func.func @sum_read_elsewhere
// CHECK: scf.for
// CHECK-NOT: pending
// CHECK-NOT: kcc.warpgroup_mma_wait
// CHECK: return
func.func @accumulating(%n: i32) -> !acc {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !buf
  %b = kcc.smem_alloc : !buf
  %zero = kcc.splat %z : !acc
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
    %p = kcc.warpgroup_mma %a[%c0], %b[%c0], %acc {a_k_major = true, b_k_major = true} : !buf, !buf, !acc -> !acc
    scf.yield %p : !acc
  }
  return %r : !acc
}
func.func @sum_read_elsewhere(%n: i32, %out: !acc) -> !acc {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !buf
  %b = kcc.smem_alloc : !buf
  %zero = kcc.splat %z : !acc
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%sum = %zero, %seen = %zero) -> (!acc, !acc) : i32 {
    %p = kcc.warpgroup_mma %a[%c0], %b[%c0], %zero {a_k_major = true, b_k_major = true} : !buf, !buf, !acc -> !acc
    %sum2 = arith.addf %sum, %p : !acc
    %seen2 = arith.maximumf %seen, %sum : !acc
    scf.yield %sum2, %seen2 : !acc, !acc
  }
  return %r#0 : !acc
}

// -----

!bufa = !kcc.smem<[128, 128], f8E4M3FN, stages = 3, swizzle = 128>
!bufb = !kcc.smem<[256, 128], f8E4M3FN, stages = 3, swizzle = 128>
!acc = tensor<128x256xf32, #kcc.wgmma_acc<warpgroups = 1>>

// Refused with the reason: a 128 x 256 sum on one warpgroup and two
// products (768 registers a thread) exceed the consumer's budget.
// CHECK-LABEL: func.func @too_large
// CHECK: kcc.warpgroup_mma {{.*}}kcc.defer_refused = "promoted in its iteration: promoted one iteration late, it would keep 768 registers a thread of tiles live together (the sum and two products), more than the 207 the consumer has for them"
func.func @too_large(%n: i32) -> !acc {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %a = kcc.smem_alloc : !bufa
  %b = kcc.smem_alloc : !bufb
  %zero = kcc.splat %z : !acc
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%sum = %zero) -> (!acc) : i32 {
    %p = kcc.warpgroup_mma %a[%c0], %b[%c0], %zero {a_k_major = true, b_k_major = true} : !bufa, !bufb, !acc -> !acc
    %sum2 = arith.addf %sum, %p : !acc
    scf.yield %sum2 : !acc
  }
  return %r : !acc
}
