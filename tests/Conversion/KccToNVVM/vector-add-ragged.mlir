// Vector add, f32, access width 4, mask NOT provably uniform (n has no
// divisibility fact): each chunk tests its 4 mask bits at run time; all on ->
// one 16-byte access, else per-element masked accesses (the ragged tail).
// RUN: kcc-opt %s -kcc-convert-to-llvm | FileCheck %s --check-prefix=CONV
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// CONV-LABEL: llvm.func @vadd_ragged
// CONV: %[[A:.*]] = arith.andi
// CONV: %[[B:.*]] = arith.andi %[[A]]
// CONV: %[[ALL:.*]] = arith.andi %[[B]]
// CONV: scf.if %[[ALL]] -> (f32, f32, f32, f32)
// CONV: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CONV: } else {
// CONV-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CONV: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CONV: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>

// kcc.mask_monotone (kcc-assign-layouts: the mask is a bounds check of an
// index counting up along the chunk): only the chunk's first and last bits
// decide the vector access.
// CONV-LABEL: llvm.func @vadd_ragged_monotone
// CONV: %[[M:.*]] = arith.cmpi slt
// CONV-NOT: arith.andi
// CONV: %[[ENDS:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CONV-NEXT: scf.if %[[ENDS]] -> (f32, f32, f32, f32)
// CONV: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>

// PTX: .entry vadd_ragged(
// PTX-DAG: ld.global.v4.{{[bf]}}32
// PTX-DAG: ld.global.{{[bf]}}32
// PTX-DAG: st.global.v4.{{[bf]}}32
// PTX-DAG: st.global.{{[bf]}}32

#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @vadd_ragged(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %out: !kcc.ptr<f32> {kcc.align = 16 : i64}, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %pid = kcc.program_id(0) : i32
    %c512 = arith.constant 512 : i32
    %base = arith.muli %pid, %c512 : i32
    %r = kcc.arange {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
    %bs = kcc.splat %base : tensor<512xi32, #b>
    %offs = arith.addi %bs, %r : tensor<512xi32, #b>
    %ns = kcc.splat %n : tensor<512xi32, #b>
    %m = arith.cmpi slt, %offs, %ns : tensor<512xi32, #b>
    %xp = kcc.splat %x : tensor<512x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %offs : tensor<512x!kcc.ptr<f32>, #b>, tensor<512xi32, #b>
    %xv = kcc.load %xa mask %m {kcc.access_width = 4 : i32} : tensor<512x!kcc.ptr<f32>, #b>
    %op = kcc.splat %out : tensor<512x!kcc.ptr<f32>, #b>
    %oa = kcc.addptr %op, %offs : tensor<512x!kcc.ptr<f32>, #b>, tensor<512xi32, #b>
    kcc.store %oa, %xv mask %m {kcc.access_width = 4 : i32} : tensor<512x!kcc.ptr<f32>, #b>
    return
  }
  func.func @vadd_ragged_monotone(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %out: !kcc.ptr<f32> {kcc.align = 16 : i64}, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %pid = kcc.program_id(0) : i32
    %c512 = arith.constant 512 : i32
    %base = arith.muli %pid, %c512 : i32
    %r = kcc.arange {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
    %bs = kcc.splat %base : tensor<512xi32, #b>
    %offs = arith.addi %bs, %r : tensor<512xi32, #b>
    %ns = kcc.splat %n : tensor<512xi32, #b>
    %m = arith.cmpi slt, %offs, %ns : tensor<512xi32, #b>
    %xp = kcc.splat %x : tensor<512x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %offs : tensor<512x!kcc.ptr<f32>, #b>, tensor<512xi32, #b>
    %xv = kcc.load %xa mask %m {kcc.access_width = 4 : i32, kcc.mask_monotone} : tensor<512x!kcc.ptr<f32>, #b>
    %op = kcc.splat %out : tensor<512x!kcc.ptr<f32>, #b>
    %oa = kcc.addptr %op, %offs : tensor<512x!kcc.ptr<f32>, #b>, tensor<512xi32, #b>
    kcc.store %oa, %xv mask %m {kcc.access_width = 4 : i32} : tensor<512x!kcc.ptr<f32>, #b>
    return
  }
}
