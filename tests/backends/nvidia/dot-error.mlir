// kcc.dot is not lowered in this version: a clean error, no crash.
// RUN: not kcc-opt %s -kcc-lower-to-llvm 2>&1 | FileCheck %s
// CHECK: error: kcc.dot is parsed but its lowering to tensor cores is not implemented yet in kcc 0.1
#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @mm(%p: !kcc.ptr<f32>) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %a = arith.constant dense<1.0> : tensor<16x16xf32, #b>
    %c = kcc.dot %a, %a, %a : tensor<16x16xf32, #b>, tensor<16x16xf32, #b> -> tensor<16x16xf32, #b>
    return
  }
}
