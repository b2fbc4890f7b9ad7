// What this version does not lower gives an error, not a crash.
// RUN: not kcc-opt %s -split-input-file -kcc-convert-to-llvm 2>&1 | FileCheck %s
#b = #kcc.blocked<vec = 1, threads = 32, warp = 32>
module {
  func.func @k(%p: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    // CHECK: error: kcc: non-splat constant tiles are not lowered in kcc 0.1
    %a = arith.constant dense<[1, 2]> : tensor<2xi32, #b>
    %r = kcc.reduce sum %a {axis = 0 : i32} : tensor<2xi32, #b> -> i32
    kcc.store %p, %r : !kcc.ptr<i32>
    return
  }
}
// -----
module {
  func.func @k(%p: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    // CHECK: error: kcc: tile type 'tensor<32xi32>' has no #kcc.blocked layout
    %a = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
    return
  }
}
