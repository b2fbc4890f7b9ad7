// Reductions: 1-D to scalar (registers, shfl.sync.bfly, shared memory across
// warps) inside a loop, 2-D along both axes, f16 max, plus broadcasts
// through shared memory and f32 exp (ex2.approx).
// RUN: kcc-opt %s -kcc-allocate-shared-memory -kcc-convert-to-llvm | FileCheck %s --check-prefix=CONV
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// Scratch in dynamic shared memory; the launch provides the recorded bytes.
// CONV: llvm.mlir.global external @__kcc_smem_rowsum() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CONV-LABEL: llvm.func @rowsum
// CONV-SAME: kcc.dynamic_smem_bytes = 512 : i64
// CONV: scf.for
// CONV: nvvm.shfl.sync bfly %{{.*}} : f32 -> f32
// CONV: nvvm.barrier0
// CONV: arith.maximumf
// CONV: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CONV: arith.minimumf
// CONV: arith.extf %{{.*}} : f16 to f32

// PTX: .extern .shared .align 1024 .b8 __kcc_smem_rowsum[];
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX-DAG: bar.sync 0;
// PTX-DAG: max.NaN.f32
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: min.NaN.f32
// PTX-DAG: ld.global.v2.b16

#b1 = #kcc.blocked<vec = 4, threads = 128, warp = 32>
#b2 = #kcc.blocked<vec = 1, threads = 128, warp = 32>
#b3 = #kcc.blocked<vec = 2, threads = 128, warp = 32>
module {
  func.func @rowsum(%x: !kcc.ptr<f32>, %out: !kcc.ptr<f32>, %mx: !kcc.ptr<f16>, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b1>
    %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f32>, #b1>
    %xa = kcc.addptr %xp, %r : tensor<1024x!kcc.ptr<f32>, #b1>, tensor<1024xi32, #b1>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %f0 = arith.constant 0.0 : f32
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %f0) -> (f32) : i32 {
      %v = kcc.load %xa {kcc.access_width = 4 : i32} : tensor<1024x!kcc.ptr<f32>, #b1>
      %s = kcc.reduce sum %v {axis = 0 : i32} : tensor<1024xf32, #b1> -> f32
      %m = kcc.reduce max %v {axis = 0 : i32} : tensor<1024xf32, #b1> -> f32
      %t = arith.addf %s, %m : f32
      %a2 = arith.addf %a, %t : f32
      scf.yield %a2 : f32
    }
    kcc.store %out, %acc : !kcc.ptr<f32>
    // 2-D: 32x32 tile, reduce along both axes.
    %r32 = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b1>
    %row = kcc.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32, #b1> -> tensor<32x1xi32, #b1>
    %col = kcc.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32, #b1> -> tensor<1x32xi32, #b1>
    %c32 = arith.constant dense<32> : tensor<32x1xi32, #b1>
    %rs = arith.muli %row, %c32 : tensor<32x1xi32, #b1>
    %rb = kcc.broadcast %rs : tensor<32x1xi32, #b1> -> tensor<32x32xi32, #b1>
    %cb = kcc.broadcast %col : tensor<1x32xi32, #b1> -> tensor<32x32xi32, #b1>
    %off = arith.addi %rb, %cb : tensor<32x32xi32, #b1>
    %xp2 = kcc.splat %x : tensor<32x32x!kcc.ptr<f32>, #b1>
    %xa2 = kcc.addptr %xp2, %off : tensor<32x32x!kcc.ptr<f32>, #b1>, tensor<32x32xi32, #b1>
    %v2 = kcc.load %xa2 {kcc.access_width = 4 : i32} : tensor<32x32x!kcc.ptr<f32>, #b1>
    %e = math.exp %v2 : tensor<32x32xf32, #b1>
    %s1 = kcc.reduce sum %e {axis = 1 : i32} : tensor<32x32xf32, #b1> -> tensor<32xf32, #b1>
    %s0 = kcc.reduce min %v2 {axis = 0 : i32} : tensor<32x32xf32, #b1> -> tensor<32xf32, #b1>
    %s = arith.addf %s1, %s0 : tensor<32xf32, #b1>
    %op = kcc.splat %out : tensor<32x!kcc.ptr<f32>, #b1>
    %oa = kcc.addptr %op, %r32 : tensor<32x!kcc.ptr<f32>, #b1>, tensor<32xi32, #b1>
    kcc.store %oa, %s : tensor<32x!kcc.ptr<f32>, #b1>
    // f16 max over a 256-tile (vec 2) with NaN propagation.
    %r256 = kcc.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #b3>
    %hp = kcc.splat %mx : tensor<256x!kcc.ptr<f16>, #b3>
    %ha = kcc.addptr %hp, %r256 : tensor<256x!kcc.ptr<f16>, #b3>, tensor<256xi32, #b3>
    %hv = kcc.load %ha {kcc.access_width = 2 : i32} : tensor<256x!kcc.ptr<f16>, #b3>
    %hm = kcc.reduce max %hv {axis = 0 : i32} : tensor<256xf16, #b3> -> f16
    kcc.store %mx, %hm : !kcc.ptr<f16>
    return
  }
}
