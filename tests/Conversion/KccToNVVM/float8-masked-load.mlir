// A masked load of 8-bit floats whose mask may change inside a 16-byte
// chunk (the per-element branch) with a splat `other`: the branch yields
// the registers' bytes (found by the pipeline fuzzer: it yielded f8 values,
// which LLVM has no type for).
// RUN: kcc-opt %s -kcc-convert-to-llvm | FileCheck %s
// RUN: kcc-opt %s -kcc-lower-to-llvm -o /dev/null
// CHECK-LABEL: llvm.func @s
// CHECK: llvm.load {{.*}} -> vector<16xi8>
// CHECK: llvm.load {{.*}} -> i8
// CHECK: nvvm.convert.f8x2.to.f16x2
// CHECK-NOT: xf8E4M3FN>
#b = #kcc.blocked<vec = 16, threads = 128, warp = 32>
module {
  func.func @s(%y: !kcc.ptr<f8E4M3FN> {kcc.align = 16 : i64}, %n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %cst = arith.constant 0.000000e+00 : f8E4M3FN
    %r = kcc.arange {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32, #b>
    %ns = kcc.splat %n : tensor<2048xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<2048xi32, #b>
    %yp = kcc.splat %y : tensor<2048x!kcc.ptr<f8E4M3FN>, #b>
    %ya = kcc.addptr %yp, %r : tensor<2048x!kcc.ptr<f8E4M3FN>, #b>, tensor<2048xi32, #b>
    %o = kcc.splat %cst : tensor<2048xf8E4M3FN, #b>
    %v = kcc.load %ya mask %m other %o {kcc.access_width = 16 : i32} : tensor<2048x!kcc.ptr<f8E4M3FN>, #b>
    %w = arith.extf %v : tensor<2048xf8E4M3FN, #b> to tensor<2048xf32, #b>
    %t = arith.truncf %w : tensor<2048xf32, #b> to tensor<2048xf8E4M3FN, #b>
    kcc.store %ya, %t mask %m {kcc.access_width = 16 : i32} : tensor<2048x!kcc.ptr<f8E4M3FN>, #b>
    return
  }
}
