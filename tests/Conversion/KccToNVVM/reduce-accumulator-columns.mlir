// Column reductions of an mma.sync / wgmma accumulator (#kcc.wgmma_acc,
// ReduceToLLVM.cpp): a decode step's softmax along its keys, which lie along
// M. Each thread combines its registers of each of its N / 4 columns, a
// butterfly over lane bits 4, 8, 16 combines the warp's rows (lane bits 1
// and 2 pick columns and do not take part), lanes 0-3 write one f32 partial
// per column and warp, and each thread reads its result registers' columns
// from every warp: 4 warps x 16 columns x 4 bytes of scratch.
// RUN: kcc-opt %s -kcc-allocate-shared-memory -kcc-convert-to-llvm | FileCheck %s
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: llvm.func @cols
// CHECK-SAME: kcc.dynamic_smem_bytes = 256 : i64
// CHECK-NOT: scf.for
// CHECK: nvvm.shfl.sync bfly {{.*}}
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3>

// The rows of a 128 x 16 tile (two 64-row blocks per thread), max.
// PTX-LABEL: .entry cols(
// PTX-NOT: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX-NOT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX-DAG: bar.sync 0;
// PTX: max.NaN.f32
// PTX: ret;

#acc = #kcc.wgmma_acc<warpgroups = 1>
#b = #kcc.blocked<vec = 1, threads = 128, warp = 32>
module {
  func.func @cols(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %out: !kcc.ptr<f32> {kcc.align = 16 : i64}) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #b>
    %re = kcc.expand_dims %r {axis = 1 : i32} : tensor<128xi32, #b> -> tensor<128x1xi32, #b>
    %rows = kcc.broadcast %re : tensor<128x1xi32, #b> -> tensor<128x16xi32, #acc>
    %xp = kcc.splat %x : tensor<128x16x!kcc.ptr<f32>, #acc>
    %xa = kcc.addptr %xp, %rows : tensor<128x16x!kcc.ptr<f32>, #acc>, tensor<128x16xi32, #acc>
    %a = kcc.load %xa {kcc.access_width = 1 : i32} : tensor<128x16x!kcc.ptr<f32>, #acc>
    %s = kcc.reduce max %a {axis = 0 : i32} : tensor<128x16xf32, #acc> -> tensor<16xf32, #b>
    %o = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #b>
    %op = kcc.splat %out : tensor<16x!kcc.ptr<f32>, #b>
    %oa = kcc.addptr %op, %o : tensor<16x!kcc.ptr<f32>, #b>, tensor<16xi32, #b>
    kcc.store %oa, %s {kcc.access_width = 1 : i32} : tensor<16x!kcc.ptr<f32>, #b>
    return
  }
}
