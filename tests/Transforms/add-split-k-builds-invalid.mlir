// kcc-add-split-k-builds: a kernel whose split-K build's name is taken is
// an error at the kernel (the stub would never find a renamed build).
// RUN: kcc-opt %s --kcc-add-split-k-builds --verify-diagnostics

// expected-error @+1 {{kernel 'gemm' has a split-K build, @gemm__splitk, but that symbol is taken; rename the kernel}}
func.func @gemm(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}, %n: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "n"], kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %zero = kcc.splat %cst : tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x16xf32>) : i32 {
    %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c0] : <f32> -> tensor<16x16xf32>
    %d = kcc.dot %x, %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  kcc.store_tile %acc, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<16x16xf32>, <f32>
  return
}

func.func @gemm__splitk() {
  return
}
