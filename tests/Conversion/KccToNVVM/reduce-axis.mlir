// Reductions of 2-D tiles along either axis (AxisReductionPlan): registers
// that differ only along the axis combine in the thread, lanes that do with
// a butterfly over exactly those lane bits, warps through one f32 partial
// per output element and warp slot in shared memory; no serial loop.
// RUN: kcc-opt %s -kcc-allocate-shared-memory -kcc-convert-to-llvm | FileCheck %s
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// GEMV's [32, 128] along its rows, 8 elements per chunk, 256 threads: a row
// is 16 lanes of one warp (lane bits 1, 2, 4, 8), each thread holds two rows
// (registers 0-7 and 8-15): 8 + 8 combines, then 2 x 4 exchanges; one slot,
// 32 partials of 4 bytes.
// CHECK-LABEL: llvm.func @rows
// CHECK-SAME: kcc.dynamic_smem_bytes = 128 : i64
// CHECK-NOT: scf.for
// CHECK-COUNT-7: arith.addf
// CHECK: nvvm.shfl.sync bfly {{.*}}
// CHECK-NOT: scf.for
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-LABEL: llvm.func @cols
// 4096 elements / 256 threads: [64, 64] along the columns; lanes 8 and 16
// and warps (8 slots) are along the axis: 8 x 64 x 4 bytes.
// CHECK-SAME: kcc.dynamic_smem_bytes = 2048 : i64
// CHECK-NOT: scf.for

// PTX-LABEL: .entry rows(
// PTX-NOT: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX-DAG: bar.sync 0;
// PTX-LABEL: .entry cols(
// PTX-NOT: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;

#b = #kcc.blocked<vec = 8, threads = 256, warp = 32>
module {
  func.func @rows(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %out: !kcc.ptr<f32> {kcc.align = 16 : i64}) attributes {kcc.kernel, kcc.num_warps = 8 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 4096 : i32} : tensor<4096xi32, #b>
    %xp = kcc.splat %x : tensor<4096x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %r : tensor<4096x!kcc.ptr<f32>, #b>, tensor<4096xi32, #b>
    %v = kcc.load %xa {kcc.access_width = 4 : i32} : tensor<4096x!kcc.ptr<f32>, #b>
    %t = kcc.reshape %v : tensor<4096xf32, #b> -> tensor<32x128xf32, #b>
    %s = kcc.reduce sum %t {axis = 1 : i32} : tensor<32x128xf32, #b> -> tensor<32xf32, #b>
    %o = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b>
    %op = kcc.splat %out : tensor<32x!kcc.ptr<f32>, #b>
    %oa = kcc.addptr %op, %o : tensor<32x!kcc.ptr<f32>, #b>, tensor<32xi32, #b>
    kcc.store %oa, %s {kcc.access_width = 4 : i32} : tensor<32x!kcc.ptr<f32>, #b>
    return
  }
  func.func @cols(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %out: !kcc.ptr<f32> {kcc.align = 16 : i64}) attributes {kcc.kernel, kcc.num_warps = 8 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 4096 : i32} : tensor<4096xi32, #b>
    %xp = kcc.splat %x : tensor<4096x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %r : tensor<4096x!kcc.ptr<f32>, #b>, tensor<4096xi32, #b>
    %v = kcc.load %xa {kcc.access_width = 4 : i32} : tensor<4096x!kcc.ptr<f32>, #b>
    %t = kcc.reshape %v : tensor<4096xf32, #b> -> tensor<64x64xf32, #b>
    %s = kcc.reduce sum %t {axis = 0 : i32} : tensor<64x64xf32, #b> -> tensor<64xf32, #b>
    %o = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b>
    %op = kcc.splat %out : tensor<64x!kcc.ptr<f32>, #b>
    %oa = kcc.addptr %op, %o : tensor<64x!kcc.ptr<f32>, #b>, tensor<64xi32, #b>
    kcc.store %oa, %s {kcc.access_width = 4 : i32} : tensor<64x!kcc.ptr<f32>, #b>
    return
  }
}
