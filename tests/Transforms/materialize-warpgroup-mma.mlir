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

// Attention's two products in one loop refilled one iteration late: S = Q
// K^T is read in its iteration (pending = 0); P @ V takes A from registers
// (kcc.warpgroup_mma_reg_a) and, its accumulator rescaled before it,
// retires in its iteration too: only a dot whose accumulator goes straight
// back into itself stays in flight. P (the cast of S) and the rescaled
// accumulator stay in the accumulator layout: no relayout either way.
!sq = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!sk = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
// CHECK-LABEL: func.func @register_a(
// CHECK-SAME: kcc.num_warps = 4
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>)
// CHECK: %[[S:.*]] = kcc.warpgroup_mma %{{.*}}, %{{.*}}, %{{.*}} {a_k_major = true, b_k_major = true} :
// CHECK-NEXT: %[[P:.*]] = arith.truncf %[[S]] : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> to tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK-NEXT: %[[H:.*]] = kcc.splat %{{.*}} : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK-NEXT: %[[R:.*]] = arith.mulf %{{.*}}, %[[H]] : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK-NEXT: %[[O:.*]] = kcc.warpgroup_mma_reg_a %[[P]], %{{.*}}[%{{.*}}], %[[R]] {b_k_major = false} : tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>, <[64, 64], f16, stages = 2, swizzle = 128>, tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK-NEXT: scf.yield %[[O]]
// CHECK-NEXT: } {kcc.mma_overlap}
// CHECK-NOT: kcc.warpgroup_mma_wait
func.func @register_a(%c: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32, %k: i32) attributes {kcc.kernel} {
  %q = kcc.smem_alloc : !sq
  %kb = kcc.smem_alloc : !sk
  %vb = kcc.smem_alloc : !sk
  %zero = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %init = kcc.splat %zero : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %qt = kcc.smem_load %q[%c0] : !sq -> tensor<64x64xf16>
  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%o = %init) -> (tensor<64x64xf32>) : i32 {
    %st = arith.remsi %kk, %c2 : i32
    %kt = kcc.smem_load %kb[%st] : !sk -> tensor<64x64xf16>
    %ktt = kcc.trans %kt : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = kcc.dot %qt, %ktt, %init : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %hs = kcc.splat %half : tensor<64x64xf32>
    %r = arith.mulf %o, %hs : tensor<64x64xf32>
    %vt = kcc.smem_load %vb[%st] : !sk -> tensor<64x64xf16>
    %d = kcc.dot %p, %vt, %r : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  } {kcc.mma_overlap}
  kcc.store_tile %acc, %c[%m, %n] strides[%ld] at[%c0, %c0] : tensor<64x64xf32>, !kcc.ptr<f32>
  return
}

// One operand staged and the other computed in registers as B (wgmma has
// no register-B form): the dot stays a kcc.dot, reading the stage like any
// tile (the generic path).
!sx = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
// CHECK-LABEL: func.func @register_b(
// CHECK: %[[X:.*]] = kcc.smem_load
// CHECK: kcc.dot %[[X]], %arg0, %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
// CHECK-NOT: kcc.warpgroup_mma
func.func @register_b(%y: tensor<64x64xf16>, %c: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.000000e+00 : f32
  %a = kcc.smem_alloc : !sx
  %x = kcc.smem_load %a[%c0] : !sx -> tensor<64x64xf16>
  %init = kcc.splat %zero : tensor<64x64xf32>
  %d = kcc.dot %x, %y, %init : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  kcc.store_tile %d, %c[%m, %n] strides[%ld] at[%c0, %c0] : tensor<64x64xf32>, !kcc.ptr<f32>
  return
}

// FP8 block scales: each K block's product is scaled per row and added to
// the running sum. The row scale (index math and a load of memory the kernel
// never writes) is computed again in the accumulator's row slice, at the top
// of the loop body: each thread loads the rows its registers lie in, and
// the broadcast moves no data (before, it went through shared memory every
// K block). The scalar weight scale's load moves with it.
!s8 = !kcc.smem<[128, 128], f8E4M3FN, stages = 3, swizzle = 128>

// CHECK-LABEL: func.func @block_scales(
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>)
// CHECK-NEXT: kcc.splat %arg0 : tensor<128x1x!kcc.ptr<f32>, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: %[[ROWS:.*]] = kcc.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: %[[RE:.*]] = kcc.expand_dims %[[ROWS]] {axis = 1 : i32} : tensor<128xi32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x1xi32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK: %[[P:.*]] = kcc.addptr {{.*}} : tensor<128x1x!kcc.ptr<f32>, #kcc.wgmma_acc<warpgroups = 2>>, tensor<128x1xi32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: %[[SA:.*]] = kcc.load %[[P]] : tensor<128x1x!kcc.ptr<f32>, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: %[[BP:.*]] = kcc.addptr %arg1, %[[K]] : !kcc.ptr<f32>, i32
// CHECK-NEXT: %[[SB:.*]] = kcc.load %[[BP]] : !kcc.ptr<f32>
// CHECK-NEXT: %[[SBS:.*]] = kcc.splat %[[SB]] : tensor<128x1xf32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[SA]], %[[SBS]] : tensor<128x1xf32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK: %[[D:.*]] = kcc.warpgroup_mma
// CHECK-NOT: kcc.load
// CHECK: %[[B:.*]] = kcc.broadcast %[[S]] : tensor<128x1xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[D]], %[[B]]
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[SUM]], %[[T]]
// CHECK-NEXT: scf.yield %[[N]]
func.func @block_scales(%sa: !kcc.ptr<f32>, %sb: !kcc.ptr<f32>, %stride: i32, %k: i32) attributes {kcc.kernel} {
  %a = kcc.smem_alloc : !s8
  %b = kcc.smem_alloc : !s8
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %rows = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %init) -> (tensor<128x128xf32>) : i32 {
    %st = arith.remsi %kk, %c3 : i32
    %x = kcc.smem_load %a[%st] : !s8 -> tensor<128x128xf8E4M3FN>
    %y = kcc.smem_load %b[%st] : !s8 -> tensor<128x128xf8E4M3FN>
    %yt = kcc.trans %y : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %z = kcc.splat %zero : tensor<128x128xf32>
    %p = kcc.dot %x, %yt, %z : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    %re = kcc.expand_dims %rows {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %strides = kcc.splat %stride : tensor<128x1xi32>
    %off = arith.muli %re, %strides : tensor<128x1xi32>
    %kks = kcc.splat %kk : tensor<128x1xi32>
    %off2 = arith.addi %off, %kks : tensor<128x1xi32>
    %base = kcc.splat %sa : tensor<128x1x!kcc.ptr<f32>>
    %ptrs = kcc.addptr %base, %off2 : tensor<128x1x!kcc.ptr<f32>>, tensor<128x1xi32>
    %sav = kcc.load %ptrs : tensor<128x1x!kcc.ptr<f32>>
    %bp = kcc.addptr %sb, %kk : !kcc.ptr<f32>, i32
    %sbv = kcc.load %bp : !kcc.ptr<f32>
    %sbs = kcc.splat %sbv : tensor<128x1xf32>
    %scale = arith.mulf %sav, %sbs : tensor<128x1xf32>
    %sc = kcc.broadcast %scale : tensor<128x1xf32> -> tensor<128x128xf32>
    %t = arith.mulf %p, %sc : tensor<128x128xf32>
    %n = arith.addf %s, %t : tensor<128x128xf32>
    scf.yield %n : tensor<128x128xf32>
  }
  return
}
