// kcc.dot's CUDA-core lowering on AMD (vendor=amd, waves of 64): the same
// shared-memory staging and K loop as on NVIDIA (backends/nvidia/DotToFMA.cpp)
// with the workgroup barrier and a static LDS array; bf16 products are
// summed in f32 with fma. The ISA for gfx942 uses LDS reads and v_fma.
// RUN: kcc-opt %s -kcc-allocate-shared-memory=vendor=amd -kcc-convert-to-llvm=vendor=amd -canonicalize -cse | FileCheck %s
// RUN: kcc-opt %s "-kcc-lower-to-llvm=vendor=amd" | mlir-translate --mlir-to-llvmir | llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942 | FileCheck %s --check-prefix=ISA

#b = #kcc.blocked<vec = 8, threads = 128, warp = 64>
#c = #kcc.blocked<vec = 4, threads = 128, warp = 64>
module {
  // a: 32 rows of 64 + 2 bf16 (4224 bytes); b: 64 x 32 bf16 (4096 bytes).
  // CHECK: llvm.mlir.global internal @__kcc_smem_mm_bf16() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8320 x i8>
  // CHECK-LABEL: llvm.func @mm_bf16
  // CHECK: rocdl.barrier
  // CHECK: llvm.store %{{.*}} : bf16, !llvm.ptr<3>
  // CHECK: rocdl.barrier
  // CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> bf16
  // CHECK-NEXT: arith.extf %{{.*}} : bf16 to f32
  // CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
  // CHECK: scf.yield
  func.func @mm_bf16(%pa: !kcc.ptr<bf16>, %pc: !kcc.ptr<f32>) attributes {kcc.kernel, kcc.num_warps = 2 : i32} {
    %a = kcc.splat %pa : tensor<32x64x!kcc.ptr<bf16>, #b>
    %x = kcc.load %a : tensor<32x64x!kcc.ptr<bf16>, #b>
    %b = kcc.splat %pa : tensor<64x32x!kcc.ptr<bf16>, #b>
    %y = kcc.load %b : tensor<64x32x!kcc.ptr<bf16>, #b>
    %z = arith.constant dense<0.0> : tensor<32x32xf32, #c>
    %d = kcc.dot %x, %y, %z : tensor<32x64xbf16, #b>, tensor<64x32xbf16, #b> -> tensor<32x32xf32, #c>
    %cp = kcc.splat %pc : tensor<32x32x!kcc.ptr<f32>, #c>
    kcc.store %cp, %d : tensor<32x32x!kcc.ptr<f32>, #c>
    return
  }
}

// ISA-LABEL: mm_bf16:
// ISA: ds_write_b16
// ISA: s_barrier
// ISA: ds_read_u16
// ISA: v_fma{{c?}}_f32
// ISA: .group_segment_fixed_size: 8320
// ISA: .wavefront_size: 64
