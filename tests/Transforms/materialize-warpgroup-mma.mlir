// kcc-materialize-warpgroup-mma: a kcc.dot whose operands are smem_loads of
// 128-byte swizzled stages (the wgmma operand boxes kcc-pipeline-tma-loads
// fills) becomes kcc.warpgroup_mma reading the stages. The accumulator, the
// loop that carries it and its zero initialization take the #kcc.wgmma_acc
// layout (two warpgroups for M = 128: kcc.num_warps = 8), and
// kcc.convert_layout gives its other users the plain tile. In a loop marked
// kcc.mma_overlap (stages refilled one iteration late) one wgmma group stays
// in flight (pending = 1), retired by a kcc.warpgroup_mma_wait after the
// loop where the loop runs at all. Other dots are left alone.
// RUN: kcc-opt %s --kcc-materialize-warpgroup-mma | FileCheck %s

!sa = !kcc.smem<[128, 64], f16, stages = 4, swizzle = 128>
!sb = !kcc.smem<[64, 64], f16, stages = 4, swizzle = 128>

// CHECK-LABEL: func.func @mm(
// CHECK-SAME: attributes {kcc.kernel, kcc.num_warps = 8 : i32}
// CHECK: %[[A:.*]] = kcc.smem_alloc : <[128, 64], f16, stages = 4, swizzle = 128>
// CHECK: %[[B:.*]] = kcc.smem_alloc : <[64, 64], f16, stages = 4, swizzle = 128>
// CHECK: %[[INIT:.*]] = kcc.splat %{{.*}} : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[SUM:.*]] = %[[INIT]]) -> (tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>)
// CHECK-NEXT: %[[S:.*]] = arith.remsi
// CHECK-NEXT: %[[D:.*]] = kcc.warpgroup_mma %[[A]][%[[S]]], %[[B]][%[[S]]], %[[SUM]] {a_k_major = true, b_k_major = false} : <[128, 64], f16, stages = 4, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.*]] = kcc.convert_layout %[[ACC]] : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32>
// CHECK-NEXT: kcc.store_tile %[[C]]
func.func @mm(%c: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32, %k: i32) attributes {kcc.kernel} {
  %a = kcc.smem_alloc : !sa
  %b = kcc.smem_alloc : !sb
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %init) -> (tensor<128x64xf32>) : i32 {
    %st = arith.remsi %kk, %c4 : i32
    %x = kcc.smem_load %a[%st] : !sa -> tensor<128x64xf16>
    %y = kcc.smem_load %b[%st] : !sb -> tensor<64x64xf16>
    %d = kcc.dot %x, %y, %s : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  kcc.store_tile %acc, %c[%m, %n] strides[%ld] at[%c0, %c0] : tensor<128x64xf32>, !kcc.ptr<f32>
  return
}

// CHECK-LABEL: func.func @overlap(
// CHECK: %[[A:.*]] = kcc.smem_alloc
// CHECK: %[[B:.*]] = kcc.smem_alloc
// CHECK: %[[INIT:.*]] = kcc.splat %{{.*}} : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %{{.*}}, %arg4 : i32
// CHECK-NEXT: %[[R:.*]] = scf.if %[[RUNS]] -> (tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>) {
// CHECK-NEXT: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[SUM:.*]] = %[[INIT]])
// CHECK-NEXT: %[[S:.*]] = arith.remsi
// CHECK-NEXT: %[[D:.*]] = kcc.warpgroup_mma %[[A]][%[[S]]], %[[B]][%[[S]]], %[[SUM]] {a_k_major = true, b_k_major = false, pending = 1 : i32}
// CHECK-NEXT: scf.yield %[[D]]
// CHECK-NEXT: } {kcc.mma_overlap}
// CHECK-NEXT: %[[W:.*]] = kcc.warpgroup_mma_wait 0 %[[ACC]] : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: scf.yield %[[W]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[INIT]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.*]] = kcc.convert_layout %[[R]]
// CHECK-NEXT: kcc.store_tile %[[C]]
func.func @overlap(%c: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32, %k: i32) attributes {kcc.kernel} {
  %a = kcc.smem_alloc : !sa
  %b = kcc.smem_alloc : !sb
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %init) -> (tensor<128x64xf32>) : i32 {
    %st = arith.remsi %kk, %c4 : i32
    %x = kcc.smem_load %a[%st] : !sa -> tensor<128x64xf16>
    %y = kcc.smem_load %b[%st] : !sb -> tensor<64x64xf16>
    %d = kcc.dot %x, %y, %s : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  } {kcc.mma_overlap}
  kcc.store_tile %acc, %c[%m, %n] strides[%ld] at[%c0, %c0] : tensor<128x64xf32>, !kcc.ptr<f32>
  return
}

// Operands in registers: not a wgmma.
// CHECK-LABEL: func.func @regs(
// CHECK: kcc.dot %arg0, %arg1, %{{.*}} : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// CHECK-NOT: kcc.warpgroup_mma
// CHECK: return
func.func @regs(%x: tensor<128x64xf16>, %y: tensor<64x64xf16>, %c: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32) attributes {kcc.kernel} {
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<128x64xf32>
  %d = kcc.dot %x, %y, %init : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  kcc.store_tile %d, %c[%m, %n] strides[%ld] at[%c0, %c0] : tensor<128x64xf32>, !kcc.ptr<f32>
  return
}
