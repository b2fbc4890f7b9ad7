// Vector add, f32, access width 4, mask uniform per chunk (n multiple of 4):
// one 16-byte vector access per chunk, guarded by the chunk's first mask bit.
// RUN: kcc-opt %s -kcc-convert-to-llvm | FileCheck %s --check-prefix=CONV
// RUN: kcc-opt %s -kcc-lower-to-llvm | FileCheck %s
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// CONV-LABEL: llvm.func @vadd(%{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64}, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
// CONV-SAME: nvvm.kernel
// CONV-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CONV: nvvm.read.ptx.sreg.ctaid.x
// CONV: nvvm.read.ptx.sreg.tid.x
// CONV: dense<[0, 1, 2, 3, 512, 513, 514, 515]> : vector<8xi32>
// CONV: scf.if
// CONV: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CONV: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CONV: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CONV-NOT: kcc.

// CHECK-LABEL: llvm.func @vadd
// CHECK-NOT: arith.
// CHECK-NOT: scf.
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: arith.

// llc (22) prints untyped b32 for f32 vector accesses (older releases: .f32).
// PTX: .entry vadd(
// PTX: .maxntid 128, 1, 1
// PTX: ld.global.v4.{{[bf]}}32
// PTX: ld.global.v4.{{[bf]}}32
// PTX: st.global.v4.{{[bf]}}32
// PTX: st.global.v4.{{[bf]}}32
// PTX-NOT: st.global

#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @vadd(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %y: !kcc.ptr<f32>, %out: !kcc.ptr<f32>, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %pid = kcc.program_id(0) : i32
    %c1024 = arith.constant 1024 : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b>
    %bs = kcc.splat %base : tensor<1024xi32, #b>
    %offs = arith.addi %bs, %r : tensor<1024xi32, #b>
    %ns = kcc.splat %n : tensor<1024xi32, #b>
    %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #b>
    %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %offs : tensor<1024x!kcc.ptr<f32>, #b>, tensor<1024xi32, #b>
    %yp = kcc.splat %y : tensor<1024x!kcc.ptr<f32>, #b>
    %ya = kcc.addptr %yp, %offs : tensor<1024x!kcc.ptr<f32>, #b>, tensor<1024xi32, #b>
    %zero = arith.constant dense<0.0> : tensor<1024xf32, #b>
    %xv = kcc.load %xa mask %m other %zero {kcc.access_width = 4 : i32, kcc.mask_uniform} : tensor<1024x!kcc.ptr<f32>, #b>
    %yv = kcc.load %ya mask %m {kcc.access_width = 4 : i32, kcc.mask_uniform} : tensor<1024x!kcc.ptr<f32>, #b>
    %s = arith.addf %xv, %yv : tensor<1024xf32, #b>
    %op = kcc.splat %out : tensor<1024x!kcc.ptr<f32>, #b>
    %oa = kcc.addptr %op, %offs : tensor<1024x!kcc.ptr<f32>, #b>, tensor<1024xi32, #b>
    kcc.store %oa, %s mask %m {kcc.access_width = 4 : i32, kcc.mask_uniform} : tensor<1024x!kcc.ptr<f32>, #b>
    return
  }
}
