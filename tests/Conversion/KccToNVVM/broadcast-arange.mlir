// Broadcasts of expanded aranges (what kcc-rematerialize-broadcasts leaves
// of index math): each element computes its own coordinate from the thread
// id and its register's offset (column: flat & 63, row: flat >> 6, plus the
// arange's start), with no shared memory and no barrier.
// RUN: kcc-opt %s -kcc-allocate-shared-memory -kcc-convert-to-llvm | FileCheck %s
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: llvm.func @coords
// CHECK-NOT: kcc.dynamic_smem_bytes
// CHECK-NOT: nvvm.barrier0
// CHECK-DAG: arith.andi %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK-DAG: arith.shrui %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-LABEL: .entry coords(
// PTX-NOT: bar.sync
// PTX-NOT: st.shared
// PTX: st.global
#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @coords(%out: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %c = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b>
    %r = kcc.arange {start = 16 : i32, end = 32 : i32} : tensor<16xi32, #b>
    %ce = kcc.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #b> -> tensor<1x64xi32, #b>
    %re = kcc.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #b> -> tensor<16x1xi32, #b>
    %cb = kcc.broadcast %ce : tensor<1x64xi32, #b> -> tensor<16x64xi32, #b>
    %rb = kcc.broadcast %re : tensor<16x1xi32, #b> -> tensor<16x64xi32, #b>
    %c64 = arith.constant dense<64> : tensor<16x64xi32, #b>
    %rs = arith.muli %rb, %c64 : tensor<16x64xi32, #b>
    %v = arith.addi %rs, %cb : tensor<16x64xi32, #b>
    %op = kcc.splat %out : tensor<16x64x!kcc.ptr<i32>, #b>
    %oa = kcc.addptr %op, %v : tensor<16x64x!kcc.ptr<i32>, #b>, tensor<16x64xi32, #b>
    kcc.store %oa, %v {kcc.access_width = 4 : i32} : tensor<16x64x!kcc.ptr<i32>, #b>
    return
  }
}
