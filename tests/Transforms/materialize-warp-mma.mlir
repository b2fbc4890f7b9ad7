// kcc-materialize-warp-mma: f16/bf16 dots with an f32 accumulator go to the
// warp-level matrix cores. On NVIDIA (mma.sync.m16n8k16) a dot of two
// row-padded cp.async stages (kcc-pipeline-async-copies) becomes
// kcc.warp_mma reading the stages (ldmatrix), any other such dot keeps its
// operands in registers; on AMD (v_mfma_f32_16x16x16f16) the dot stays a
// kcc.dot. The accumulator, the loop that carries it and its zero
// initialization take the matrix instruction's register layout, and
// kcc.convert_layout gives the other users the plain tile; the kernel gets
// its warps (4: one warpgroup, or 4 waves). Dots the instruction cannot
// take keep kcc.dot with the reason.
// RUN: kcc-opt %s --kcc-materialize-warp-mma=target=sm_80 | FileCheck %s --check-prefixes=CHECK,NV
// RUN: kcc-opt %s --kcc-materialize-warp-mma=target=sm_90a | FileCheck %s --check-prefixes=CHECK,NV
// RUN: kcc-opt %s --kcc-materialize-warp-mma=target=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: not kcc-opt %s --kcc-materialize-warp-mma=target=nope -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTARGET

// BADTARGET: error: kcc-materialize-warp-mma: unknown target 'nope'

!sa = !kcc.smem<[64, 32], f16, stages = 3, swizzle = 0, pad = 16>
!sb = !kcc.smem<[32, 64], f16, stages = 3, swizzle = 0, pad = 16>

// CHECK-LABEL: func.func @staged(
// CHECK-SAME: attributes {kcc.kernel, kcc.num_warps = 4 : i32}
// CHECK: %[[A:.*]] = kcc.smem_alloc
// CHECK: %[[B:.*]] = kcc.smem_alloc
// NV: %[[INIT:.*]] = kcc.splat %{{.*}} : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// AMD: %[[INIT:.*]] = kcc.splat %{{.*}} : tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>
// NV: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[SUM:.*]] = %[[INIT]]) -> (tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>)
// AMD: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[SUM:.*]] = %[[INIT]]) -> (tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>)
// CHECK: %[[S:.*]] = arith.remsi
// NV-NEXT: %[[D:.*]] = kcc.warp_mma %[[A]][%[[S]]], %[[B]][%[[S]]], %[[SUM]] {a_k_major = true, b_k_major = false, kcc.mma = "mma.sync.m16n8k16"} : <[64, 32], f16, stages = 3, swizzle = 0, pad = 16>, <[32, 64], f16, stages = 3, swizzle = 0, pad = 16>, tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// AMD-NEXT: %[[X:.*]] = kcc.smem_load %[[A]][%[[S]]]
// AMD-NEXT: %[[Y:.*]] = kcc.smem_load %[[B]][%[[S]]]
// AMD-NEXT: %[[D:.*]] = kcc.dot %[[X]], %[[Y]], %[[SUM]] {kcc.mma = "mfma.f32.16x16x16f16"} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>
// CHECK-NEXT: scf.yield %[[D]]
// NV: %[[C:.*]] = kcc.convert_layout %[[ACC]] : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x64xf32>
// AMD: %[[C:.*]] = kcc.convert_layout %[[ACC]] : tensor<64x64xf32, #kcc.mfma_acc<waves = 4>> -> tensor<64x64xf32>
// CHECK-NEXT: kcc.store_tile %[[C]]
func.func @staged(%c: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32, %k: i32) attributes {kcc.kernel} {
  %a = kcc.smem_alloc : !sa
  %b = kcc.smem_alloc : !sb
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %init) -> (tensor<64x64xf32>) : i32 {
    %st = arith.remsi %kk, %c3 : i32
    %x = kcc.smem_load %a[%st] : !sa -> tensor<64x32xf16>
    %y = kcc.smem_load %b[%st] : !sb -> tensor<32x64xf16>
    %d = kcc.dot %x, %y, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  kcc.store_tile %acc, %c[%m, %n] strides[%ld] at[%c0, %c0] : tensor<64x64xf32>, !kcc.ptr<f32>
  return
}

// Operands in registers.
// CHECK-LABEL: func.func @regs(
// CHECK-SAME: attributes {kcc.kernel, kcc.num_warps = 4 : i32}
// NV: %[[D:.*]] = kcc.dot %arg0, %arg1, %{{.*}} {kcc.mma = "mma.sync.m16n8k16"} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// AMD: %[[D:.*]] = kcc.dot %arg0, %arg1, %{{.*}} {kcc.mma = "mfma.f32.16x16x16f16"} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>
// CHECK-NEXT: %[[C:.*]] = kcc.convert_layout %[[D]]
// CHECK: kcc.store_tile %[[C]]
func.func @regs(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %p: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32) attributes {kcc.kernel} {
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<64x64xf32>
  %d = kcc.dot %a, %b, %init : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  kcc.store_tile %d, %p[%m, %n] strides[%ld] at[%c0, %c0] : tensor<64x64xf32>, !kcc.ptr<f32>
  return
}

// Refused: f32 inputs; a tile smaller than the instruction's blocks.
// CHECK-LABEL: func.func @f32(
// NV: kcc.dot %arg0, %arg1, %{{.*}} {kcc.mma_refused = "kcc runs mma.sync on f16 and bf16 inputs (and i8 with an i32 accumulator), not f32"} : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
// AMD: kcc.dot %arg0, %arg1, %{{.*}} {kcc.mma_refused = "kcc runs MFMA on f16 and bf16 inputs (and i8 with an i32 accumulator, f8e4m3fnuz and f8e5m2fnuz with f32), not f32"} : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
func.func @f32(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %p: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32) attributes {kcc.kernel} {
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<64x64xf32>
  %d = kcc.dot %a, %b, %init : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  kcc.store_tile %d, %p[%m, %n] strides[%ld] at[%c0, %c0] : tensor<64x64xf32>, !kcc.ptr<f32>
  return
}

// CHECK-LABEL: func.func @small(
// NV: kcc.dot %arg0, %arg1, %{{.*}} {kcc.mma_refused = "M = 16 is not a multiple of 64 (each of the kernel's 1 warpgroup(s) takes 64-row blocks, a warp 16 rows of each)"} : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
// AMD: kcc.dot %arg0, %arg1, %{{.*}} {kcc.mma_refused = "N = 8 is not a multiple of 16 (the instruction's N)"} : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
func.func @small(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>, %p: !kcc.ptr<f32> {kcc.tensor_rank = 2 : i32}, %m: i32, %n: i32, %ld: i32) attributes {kcc.kernel} {
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<16x8xf32>
  %d = kcc.dot %a, %b, %init : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  %c0 = arith.constant 0 : i32
  kcc.store_tile %d, %p[%m, %n] strides[%ld] at[%c0, %c0] : tensor<16x8xf32>, !kcc.ptr<f32>
  return
}
