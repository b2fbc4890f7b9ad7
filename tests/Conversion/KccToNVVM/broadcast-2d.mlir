// 2-D tile built from expand_dims + broadcast (through shared memory), a
// row vector broadcast along rows, masked per-element (access width 1) loads
// with `other`, and a 1-D tile broadcast from a 1x1 tile (register splat).
// RUN: kcc-opt %s -kcc-allocate-shared-memory -kcc-convert-to-llvm | FileCheck %s --check-prefix=CONV
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// 64 x i32 is the largest broadcast source: 256 bytes.
// CONV: llvm.mlir.global external @__kcc_smem_bias_add() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CONV-LABEL: llvm.func @bias_add
// CONV-SAME: kcc.dynamic_smem_bytes = 256 : i64
// CONV: nvvm.barrier0
// CONV: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CONV: nvvm.barrier0
// CONV: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CONV: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32

// PTX-LABEL: .entry bias_add(
// PTX: bar.sync 0;
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX: ld.shared.b32
// PTX: ld.global.b32
// PTX: st.global.v4.b32
#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @bias_add(%x: !kcc.ptr<f32>, %bias: !kcc.ptr<f32>, %out: !kcc.ptr<f32>, %m: i32, %ncols: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %pid = kcc.program_id(0) : i32
    %c64 = arith.constant 64 : i32
    %row0 = arith.muli %pid, %c64 : i32
    %r = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b>
    %row0s = kcc.splat %row0 : tensor<64xi32, #b>
    %rows = arith.addi %r, %row0s : tensor<64xi32, #b>
    %rows2 = kcc.expand_dims %rows {axis = 1 : i32} : tensor<64xi32, #b> -> tensor<64x1xi32, #b>
    %cols2 = kcc.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #b> -> tensor<1x64xi32, #b>
    %ns = kcc.splat %ncols : tensor<64x1xi32, #b>
    %rowoff = arith.muli %rows2, %ns : tensor<64x1xi32, #b>
    %rb = kcc.broadcast %rowoff : tensor<64x1xi32, #b> -> tensor<64x64xi32, #b>
    %cb = kcc.broadcast %cols2 : tensor<1x64xi32, #b> -> tensor<64x64xi32, #b>
    %off = arith.addi %rb, %cb : tensor<64x64xi32, #b>
    %ms = kcc.splat %m : tensor<64x1xi32, #b>
    %rmask = arith.cmpi slt, %rows2, %ms : tensor<64x1xi32, #b>
    %mask = kcc.broadcast %rmask : tensor<64x1xi1, #b> -> tensor<64x64xi1, #b>
    %xp = kcc.splat %x : tensor<64x64x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %off : tensor<64x64x!kcc.ptr<f32>, #b>, tensor<64x64xi32, #b>
    %neg = arith.constant dense<-1.0> : tensor<64x64xf32, #b>
    %xv = kcc.load %xa mask %mask other %neg : tensor<64x64x!kcc.ptr<f32>, #b>
    %bp = kcc.splat %bias : tensor<1x64x!kcc.ptr<f32>, #b>
    %ba = kcc.addptr %bp, %cols2 : tensor<1x64x!kcc.ptr<f32>, #b>, tensor<1x64xi32, #b>
    %bv = kcc.load %ba {kcc.access_width = 4 : i32} : tensor<1x64x!kcc.ptr<f32>, #b>
    %bb = kcc.broadcast %bv : tensor<1x64xf32, #b> -> tensor<64x64xf32, #b>
    %s = arith.addf %xv, %bb : tensor<64x64xf32, #b>
    // scalar -> 1x1 tile -> broadcast (register splat)
    %one = kcc.splat %row0 : tensor<1x1xi32, #b>
    %oneb = kcc.broadcast %one : tensor<1x1xi32, #b> -> tensor<64x64xi32, #b>
    %onef = arith.sitofp %oneb : tensor<64x64xi32, #b> to tensor<64x64xf32, #b>
    %s2 = arith.addf %s, %onef : tensor<64x64xf32, #b>
    %op = kcc.splat %out : tensor<64x64x!kcc.ptr<f32>, #b>
    %oa = kcc.addptr %op, %off : tensor<64x64x!kcc.ptr<f32>, #b>, tensor<64x64xi32, #b>
    kcc.store %oa, %s2 mask %mask {kcc.access_width = 4 : i32} : tensor<64x64x!kcc.ptr<f32>, #b>
    return
  }
}
