// kcc-convert-to-llvm with vendor=amd: ROCDL special registers, wave64
// butterflies, the workgroup barrier, kernel attributes; the grid size comes
// from the HSA dispatch packet (no device library); the reduction's scratch
// is a static LDS array of the bytes kcc-allocate-shared-memory recorded.
// RUN: kcc-opt %s -kcc-allocate-shared-memory=vendor=amd -kcc-convert-to-llvm=vendor=amd | FileCheck %s --implicit-check-not=kcc.smem_
// RUN: kcc-opt %s "-kcc-lower-to-llvm=vendor=amd" | mlir-translate --mlir-to-llvmir | llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942 | FileCheck %s --check-prefix=ISA
// ISA-LABEL: row_sum:
// The grid size y of the dispatch packet (offset 16) for num_programs(1).
// ISA: s_load_dword {{s[0-9]+}}, {{s\[[0-9]+:[0-9]+\]}}, 0x10
// ISA: ds_bpermute_b32
// ISA: ds_swizzle_b32 {{v[0-9]+}}, {{v[0-9]+}} offset:swizzle(SWAP,16)
// ISA: s_barrier

#b = #kcc.blocked<vec = 1, threads = 128, warp = 64>
module {
  func.func @row_sum(%p: !kcc.ptr<f32>, %out: !kcc.ptr<f32>) attributes {kcc.kernel, kcc.num_warps = 2 : i32} {
    %r = kcc.program_id(0) : i32
    %n = kcc.num_programs(1) : i32
    %i = kcc.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b>
    %s = kcc.splat %p : tensor<128x!kcc.ptr<f32>, #b>
    %a = kcc.addptr %s, %i : tensor<128x!kcc.ptr<f32>, #b>, tensor<128xi32, #b>
    %x = kcc.load %a {kcc.access_width = 1 : i32} : tensor<128x!kcc.ptr<f32>, #b>
    %t = kcc.reduce sum %x {axis = 0 : i32} : tensor<128xf32, #b> -> f32
    %o = kcc.addptr %out, %n : !kcc.ptr<f32>, i32
    kcc.store %o, %t : !kcc.ptr<f32>
    return
  }
}
// CHECK: llvm.mlir.global internal @__kcc_smem_row_sum() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i8>
// CHECK-LABEL: llvm.func @row_sum
// CHECK-SAME: rocdl.flat_work_group_size = "128,128"
// CHECK-SAME: rocdl.kernel
// CHECK-SAME: rocdl.reqd_work_group_size = array<i32: 128, 1, 1>
// CHECK: rocdl.workgroup.id.x
// CHECK: llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
// CHECK: rocdl.workitem.id.x
// CHECK: rocdl.mbcnt.lo
// CHECK: rocdl.mbcnt.hi
// CHECK: rocdl.ds_bpermute
// CHECK-COUNT-5: rocdl.ds_swizzle
// CHECK: rocdl.barrier

