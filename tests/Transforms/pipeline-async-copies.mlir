// kcc-pipeline-async-copies: the loads of a K loop that feed a dot and that
// TMA does not take become a cp.async pipeline: per operand a buffer of
// row-padded stages (16 bytes after each row, so that the 8 rows an
// ldmatrix reads fall in distinct banks), a prologue that issues the first
// `stages` - 1 iterations, one commit group each; in the loop a wait that
// leaves `stages` - 2 groups in flight, a CTA barrier, the refill of the
// stage the previous iteration read, and the stage reads. The input is
//   kernel mm(c: tensor<f32, 2>, a: tensor<f16, 2>, b: tensor<f16, 2>, k: i32) grid(1) {
//     var acc = zeros([64, 64], f32);
//     for kk in range(0, k) {
//       acc = dot(load_tile(a, [64, 32], [0, kk]), load_tile(b, [32, 64], [kk, 0]), acc);
//     }
//     store_tile(c, [0, 0], acc);
//   }
// from kcc --emit=tile-ir.
// RUN: kcc-opt %s --kcc-pipeline-async-copies=target=sm_80 | FileCheck %s --implicit-check-not=kcc.load_tile
// RUN: kcc-opt %s --kcc-pipeline-async-copies="target=sm_80 stages=4" | FileCheck %s --check-prefix=FOUR
// RUN: kcc-opt %s --kcc-pipeline-async-copies=target=gfx942 | FileCheck %s --check-prefix=AMD --implicit-check-not=kcc.cp_async
// RUN: not kcc-opt %s --kcc-pipeline-async-copies=target=sm_99z -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTARGET

// CHECK-LABEL: func.func @mm(
// CHECK: %[[A:.*]] = kcc.smem_alloc : <[64, 32], f16, stages = 3, swizzle = 0, pad = 16>
// CHECK-NEXT: %[[B:.*]] = kcc.smem_alloc : <[32, 64], f16, stages = 3, swizzle = 0, pad = 16>
// The prologue: iterations 0 and 1 into stages 0 and 1, where they exist.
// CHECK: %[[I0:.*]] = arith.addi
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi slt, %[[I0]], %arg12 : i32
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK: kcc.cp_async %arg4[%arg5, %arg6] strides[%arg7] at[%{{.*}}, %[[I0]]] -> %[[A]][%[[S0:.*]]] {kcc.tile_access = "cp.async 16-byte chunks, 3-stage pipeline (rows padded by 16 bytes for ldmatrix)"}
// CHECK: kcc.cp_async %arg8[%arg9, %arg10] strides[%arg11] at[%[[I0]], %{{.*}}] -> %[[B]][%[[S0]]]
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: kcc.cp_async_commit_group
// CHECK: scf.if
// CHECK-COUNT-2: kcc.cp_async
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: kcc.cp_async_commit_group
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %arg12 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x64xf32>)
// CHECK: %[[I:.*]] = arith.divsi
// CHECK: %[[S:.*]] = arith.remsi %[[I]], %c3_i32
// Iteration k's group has landed (one younger group may be in flight) and
// every thread sees it; the stage read in iteration k - 1 is free again.
// CHECK-NEXT: kcc.cp_async_wait_group 1
// CHECK-NEXT: kcc.cta_barrier
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %c2_i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %arg12 : i32
// CHECK: %[[R:.*]] = arith.addi %[[I]], %c2_i32
// CHECK: %[[RS:.*]] = arith.remsi %[[R]], %c3_i32
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: kcc.cp_async %arg4{{.*}} -> %[[A]][%[[RS]]]
// CHECK: kcc.cp_async %arg8{{.*}} -> %[[B]][%[[RS]]]
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: kcc.cp_async_commit_group
// CHECK: %[[TA:.*]] = kcc.smem_load %[[A]][%[[S]]] : <[64, 32], f16, stages = 3, swizzle = 0, pad = 16> -> tensor<64x32xf16>
// CHECK: %[[TB:.*]] = kcc.smem_load %[[B]][%[[S]]] : <[32, 64], f16, stages = 3, swizzle = 0, pad = 16> -> tensor<32x64xf16>
// CHECK-NEXT: %[[D:.*]] = kcc.dot %[[TA]], %[[TB]], %[[ACC]]
// CHECK-NEXT: scf.yield %[[D]] : tensor<64x64xf32>

// FOUR: kcc.smem_alloc : <[64, 32], f16, stages = 4, swizzle = 0, pad = 16>
// FOUR-COUNT-3: kcc.cp_async_commit_group
// FOUR-NEXT: scf.for
// FOUR: kcc.cp_async_wait_group 2

// gfx942 has no cp.async: the loads stay.
// AMD: scf.for
// AMD-NEXT: kcc.load_tile
// AMD-NEXT: kcc.load_tile
// AMD-NEXT: kcc.dot

// BADTARGET: error: kcc-pipeline-async-copies: unknown target 'sm_99z'

func.func @mm(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
              %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64},
              %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64}, %arg12: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "a", "a_dim0", "a_dim1", "a_stride0", "b", "b_dim0", "b_dim1", "b_stride0", "k"],
                kcc.base_name = "mm", kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %kk = %c0 to %arg12 step %c1 iter_args(%a = %init) -> (tensor<64x64xf32>) : i32 {
    %x = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %kk] : !kcc.ptr<f16> -> tensor<64x32xf16>
    %y = kcc.load_tile %arg8[%arg9, %arg10] strides[%arg11] at[%kk, %c0] : !kcc.ptr<f16> -> tensor<32x64xf16>
    %d = kcc.dot %x, %y, %a : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  kcc.store_tile %acc, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<64x64xf32>, !kcc.ptr<f32>
  return
}
