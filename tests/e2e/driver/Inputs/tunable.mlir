// scale.kc (tests/e2e/driver/tunable.test) as tile IR, its candidates
// marked with the targets that chose them (TestHostStubs.cpp).
module {
  func.func @scale_64(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64}, %arg1: i32) attributes {kcc.arg_names = ["x", "n"], kcc.base_name = "scale", kcc.constant_names = ["B"], kcc.grid = ["(((n) + (64) - 1) / (64))", "1", "1"], kcc.kernel, kcc.specialization = {B = 64 : i32}, kcc.variant_of = {scale = ["B"]}, kcc.variant_only, test.chosen_for = ["sm_80"]} {
    %0 = kcc.program_id(0) : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = kcc.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %3 = kcc.splat %1 : tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = kcc.splat %arg0 : tensor<64x!kcc.ptr<f32>>
    %6 = kcc.addptr %5, %4 : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
    %7 = kcc.splat %arg0 : tensor<64x!kcc.ptr<f32>>
    %8 = kcc.addptr %7, %4 : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
    %9 = kcc.splat %arg1 : tensor<64xi32>
    %10 = arith.cmpi slt, %4, %9 : tensor<64xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %11 = kcc.splat %cst : tensor<64xf32>
    %12 = kcc.load %8 mask %10 other %11 : tensor<64x!kcc.ptr<f32>>
    %cst_0 = arith.constant 2.000000e+00 : f32
    %13 = kcc.splat %cst_0 : tensor<64xf32>
    %14 = arith.mulf %12, %13 : tensor<64xf32>
    %15 = kcc.splat %arg1 : tensor<64xi32>
    %16 = arith.cmpi slt, %4, %15 : tensor<64xi32>
    kcc.store %6, %14 mask %16 : tensor<64x!kcc.ptr<f32>>
    return
  }
  func.func @scale_128(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64}, %arg1: i32) attributes {kcc.arg_names = ["x", "n"], kcc.base_name = "scale", kcc.constant_names = ["B"], kcc.grid = ["(((n) + (128) - 1) / (128))", "1", "1"], kcc.kernel, kcc.specialization = {B = 128 : i32}, kcc.variant_of = {scale = ["B"]}, kcc.variant_only, test.chosen_for = ["sm_90a", "sm_100a"]} {
    %0 = kcc.program_id(0) : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = arith.muli %0, %c128_i32 : i32
    %2 = kcc.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %3 = kcc.splat %1 : tensor<128xi32>
    %4 = arith.addi %3, %2 : tensor<128xi32>
    %5 = kcc.splat %arg0 : tensor<128x!kcc.ptr<f32>>
    %6 = kcc.addptr %5, %4 : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
    %7 = kcc.splat %arg0 : tensor<128x!kcc.ptr<f32>>
    %8 = kcc.addptr %7, %4 : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
    %9 = kcc.splat %arg1 : tensor<128xi32>
    %10 = arith.cmpi slt, %4, %9 : tensor<128xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %11 = kcc.splat %cst : tensor<128xf32>
    %12 = kcc.load %8 mask %10 other %11 : tensor<128x!kcc.ptr<f32>>
    %cst_0 = arith.constant 2.000000e+00 : f32
    %13 = kcc.splat %cst_0 : tensor<128xf32>
    %14 = arith.mulf %12, %13 : tensor<128xf32>
    %15 = kcc.splat %arg1 : tensor<128xi32>
    %16 = arith.cmpi slt, %4, %15 : tensor<128xi32>
    kcc.store %6, %14 mask %16 : tensor<128x!kcc.ptr<f32>>
    return
  }
}

