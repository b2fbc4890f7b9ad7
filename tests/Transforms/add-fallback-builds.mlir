// kcc-add-fallback-builds: a kernel over tensor<> parameters gets a copy
// without the tensor contract's facts, which the launch runs for tensors
// that break it. The tile IR is what `kcc --emit=tile-ir` gives.
// RUN: kcc-opt %s --split-input-file --kcc-add-fallback-builds | FileCheck %s
// RUN: kcc-opt %s --split-input-file --kcc-add-fallback-builds --kcc-add-tensor-maps=targets=sm_90a | FileCheck %s --check-prefix=MAPS

// kernel scale(dst: tensor<f32, 2>, src: tensor<f16, 2> align(64), s: f32)
// The build keeps its facts; the copy after it keeps only src's align(64)
// (the user's, above the contract's 16), dst's base aligned to its element
// (4 bytes), no divisibility on the strides, and loses the variant marks.
// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}
// CHECK-SAME: %arg4: !kcc.ptr<f16> {kcc.align = 64 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64}
// CHECK-SAME: kcc.variant_of
// CHECK-LABEL: func.func @scale__fallback(
// CHECK-SAME: %arg0: !kcc.ptr<f32> {kcc.align = 4 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32,
// CHECK-SAME: %arg4: !kcc.ptr<f16> {kcc.align = 64 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32,
// CHECK-SAME: kcc.fallback_of = @scale
// CHECK-NOT: kcc.variant
// CHECK: kcc.load_tile
// No tensor maps in the copy: its accesses take the vector path.
// MAPS-LABEL: func.func @scale(
// MAPS-SAME: !kcc.tensormap
// MAPS-LABEL: func.func @scale__fallback(
// MAPS-NOT: tensormap
// MAPS: return
func.func @scale(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
                 %arg4: !kcc.ptr<f16> {kcc.align = 64 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64}, %arg8: f32)
    attributes {kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "s"], kcc.base_name = "scale", kcc.constant_names = [],
                kcc.grid = ["(((src_dim1) + (64) - 1) / (64))", "(((src_dim0) + (16) - 1) / (16))", "1"], kcc.kernel, kcc.specialization = {},
                kcc.variant_of = {scale_0 = ["B"]}, kcc.variant_only} {
  %p0 = kcc.program_id(0) : i32
  %p1 = kcc.program_id(1) : i32
  %t = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%p1, %p0] : <f16> -> tensor<16x64xf16>
  %c = arith.extf %t : tensor<16x64xf16> to tensor<16x64xf32>
  kcc.store_tile %c, %arg0[%arg1, %arg2] strides[%arg3] at[%p1, %p0] : tensor<16x64xf32>, <f32>
  return
}

// -----

// Pointer parameters only: no contract, no copy.
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: __fallback
func.func @plain(%out: !kcc.ptr<i32> {kcc.align = 16 : i64}, %n: i32 {kcc.divisibility = 4 : i64})
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  return
}
