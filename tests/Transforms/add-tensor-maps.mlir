// kcc-add-tensor-maps: which tile accesses get a TMA tensor map (a
// !kcc.tensormap argument after the user parameters, one per tensor and
// box, in first-use order), the 128-byte swizzled boxes of a dot's operands
// and accumulator, and why the others get none. The tile IR is what
// `kcc --emit=tile-ir` gives for the kernels in the comments.
// RUN: kcc-opt %s --kcc-add-tensor-maps=targets=sm_90a,sm_100a | FileCheck %s
// RUN: kcc-opt %s --kcc-add-tensor-maps=targets=sm_80 | FileCheck %s --check-prefix=SM80 \
// RUN:   --implicit-check-not=tensormap --implicit-check-not=kcc.mma_operand
// RUN: not kcc-opt %s --kcc-add-tensor-maps=targets=nope -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTARGETS

// No TMA on sm_80: every access (5 loads, 5 stores) keeps the reason.
// SM80-COUNT-10: kcc.tma_refused = "on sm_80, the TMA rule 'tma-unsupported' refuses the box: sm_80 has no Tensor Memory Accelerator (TMA needs sm_90+)"
// BADTARGETS: error: kcc-add-tensor-maps: unknown target 'nope'

// kernel scale(dst: tensor<f32, 2>, src: tensor<f32, 2>, s: f32)
//     grid(cdiv(dim(src, 1), 64), cdiv(dim(src, 0), 16)) {
//   let t = load_tile(src, [16, 64], [program_id(1), program_id(0)]);
//   store_tile(dst, [program_id(1), program_id(0)], t * s);
// }
// One map for the load (of src, argument 4) and one for the store (of dst,
// argument 0), named after the tensor and the box.
// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %arg8: f32, %arg9: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 4 : i32}, %arg10: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 0 : i32})
// CHECK-SAME: kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "s", "src_map_16_64", "dst_map_16_64"]
// CHECK: kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%{{.*}}, %{{.*}}] : <f32> -> tensor<16x64xf32>
// CHECK: kcc.store_tile %{{.*}}, %arg0[%arg1, %arg2] strides[%arg3] at[%{{.*}}, %{{.*}}] : tensor<16x64xf32>, <f32>
func.func @scale(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
                 %arg4: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 4 : i64}, %arg8: f32)
    attributes {kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "s"], kcc.base_name = "scale", kcc.constant_names = [],
                kcc.grid = ["(((src_dim1) + (64) - 1) / (64))", "(((src_dim0) + (16) - 1) / (16))", "1"], kcc.kernel, kcc.specialization = {}} {
  %0 = kcc.program_id(1) : i32
  %1 = kcc.program_id(0) : i32
  %2 = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%0, %1] : !kcc.ptr<f32> -> tensor<16x64xf32>
  %3 = kcc.splat %arg8 : tensor<16x64xf32>
  %4 = arith.mulf %2, %3 : tensor<16x64xf32>
  kcc.store_tile %4, %arg0[%arg1, %arg2] strides[%arg3] at[%0, %1] : tensor<16x64xf32>, !kcc.ptr<f32>
  return
}

// The same box of one tensor shares its map.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %arg7: i32 {kcc.divisibility = 4 : i64}, %arg8: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 4 : i32}, %arg9: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 0 : i32})
// CHECK-SAME: kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "src_map_16_64", "dst_map_16_64"]
func.func @twice(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
                 %arg4: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 4 : i64})
    attributes {kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0"], kcc.base_name = "twice", kcc.constant_names = [],
                kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %0 = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %c0] : !kcc.ptr<f32> -> tensor<16x64xf32>
  %1 = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c1, %c0] : !kcc.ptr<f32> -> tensor<16x64xf32>
  %2 = arith.addf %0, %1 : tensor<16x64xf32>
  kcc.store_tile %2, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<16x64xf32>, !kcc.ptr<f32>
  return
}

// A 2-element f32 row is 8 bytes: no map, and the rule that refused it.
// CHECK-LABEL: func.func @narrow(
// CHECK-NOT: tensormap
// CHECK: kcc.load_tile {{.*}} {kcc.tma_refused = "on sm_90a, the TMA rule 'box-inner-bytes' refuses the box: boxDim[0] = 2 elements is 64 bits, not a multiple of 16 bytes"} : <f32> -> tensor<64x2xf32>
// CHECK: kcc.store_tile {{.*}} {kcc.tma_refused = "on sm_90a, the TMA rule 'box-inner-bytes' refuses the box: boxDim[0] = 2 elements is 64 bits, not a multiple of 16 bytes"} : tensor<64x2xf32>, <f32>
func.func @narrow(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
                  %arg4: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 4 : i64})
    attributes {kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0"], kcc.base_name = "narrow", kcc.constant_names = [],
                kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %c0 = arith.constant 0 : i32
  %0 = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %c0] : !kcc.ptr<f32> -> tensor<64x2xf32>
  kcc.store_tile %0, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<64x2xf32>, !kcc.ptr<f32>
  return
}

// kernel mm(c: tensor<f32, 2>, a: tensor<f16, 2>, b: tensor<f16, 2>, k: i32) grid(1) {
//   var acc = zeros([128, 128], f32);
//   for kk in range(0, k) {
//     acc = dot(load_tile(a, [128, 64], [0, kk]), load_tile(b, [64, 128], [kk, 0]), acc);
//   }
//   store_tile(c, [0, 0], acc);
// }
// A dot's operands and its accumulator's store move in boxes one 128-byte
// swizzle span wide (b's 128 f16 columns: two boxes of 64), marked
// kcc.mma_operand.
// CHECK-LABEL: func.func @mm(
// CHECK-SAME: %arg12: i32, %arg13: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 4 : i32}, %arg14: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 8 : i32}, %arg15: !kcc.tensormap<[128, 32], f32, swizzle = 128> {kcc.tensor_map_of = 0 : i32})
// CHECK-SAME: kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "a", "a_dim0", "a_dim1", "a_stride0", "b", "b_dim0", "b_dim1", "b_stride0", "k", "a_map_128_64", "b_map_64_64", "c_map_128_32"]
// CHECK: scf.for
// CHECK: kcc.load_tile %arg4{{.*}} {kcc.mma_operand} : <f16> -> tensor<128x64xf16>
// CHECK: kcc.load_tile %arg8{{.*}} {kcc.mma_operand} : <f16> -> tensor<64x128xf16>
// CHECK: kcc.dot
// CHECK: kcc.store_tile {{.*}} {kcc.mma_operand} : tensor<128x128xf32>, <f32>
func.func @mm(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
              %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64},
              %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64}, %arg12: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "a", "a_dim0", "a_dim1", "a_stride0", "b", "b_dim0", "b_dim1", "b_stride0", "k"], kcc.base_name = "mm",
                kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = kcc.splat %cst : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %1 = scf.for %kk = %c0 to %arg12 step %c1 iter_args(%acc = %0) -> (tensor<128x128xf32>) : i32 {
    %2 = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %kk] : !kcc.ptr<f16> -> tensor<128x64xf16>
    %3 = kcc.load_tile %arg8[%arg9, %arg10] strides[%arg11] at[%kk, %c0] : !kcc.ptr<f16> -> tensor<64x128xf16>
    %4 = kcc.dot %2, %3, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %4 : tensor<128x128xf32>
  }
  kcc.store_tile %1, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<128x128xf32>, !kcc.ptr<f32>
  return
}
