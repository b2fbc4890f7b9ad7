// RUN: kcc-opt %s --kcc-expand-tile-accesses | FileCheck %s

// A 2-D load_tile becomes a masked load of the tile's elements in row-major
// order: indices from one arange (no broadcast through shared memory),
// unsigned bounds checks against sizes clamped at 0, 64-bit offsets with a
// signed stride, then a free reshape.
// CHECK-LABEL: func.func @load
// CHECK: %[[FLAT:.*]] = kcc.arange {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
// CHECK: arith.divui %[[FLAT]]
// CHECK: arith.maxsi %arg1
// CHECK: arith.cmpi ult
// CHECK: arith.extui {{.*}} : tensor<2048xi32> to tensor<2048xi64>
// CHECK: arith.extsi %arg3 : i32 to i64
// CHECK: arith.remui %[[FLAT]]
// CHECK: %[[P:.*]] = kcc.addptr {{.*}} : tensor<2048x!kcc.ptr<f32>>, tensor<2048xi64>
// CHECK: %[[L:.*]] = kcc.load %[[P]] mask {{.*}} other {{.*}} {kcc.tile_access = "the pass was run directly"}
// CHECK: kcc.reshape %[[L]] : tensor<2048xf32> -> tensor<16x128xf32>
func.func @load(%base: !kcc.ptr<f32>, %d0: i32, %d1: i32, %s0: i32,
                %i: i32, %j: i32) -> tensor<16x128xf32> {
  %t = kcc.load_tile %base[%d0, %d1] strides[%s0] at[%i, %j] : !kcc.ptr<f32> -> tensor<16x128xf32>
  return %t : tensor<16x128xf32>
}

// A store is clipped by the same mask; the tile is reshaped to 1-D first.
// CHECK-LABEL: func.func @store
// CHECK: %[[V:.*]] = kcc.reshape %arg0 : tensor<4x8xf16> -> tensor<32xf16>
// CHECK: kcc.store {{.*}}, %[[V]] mask {{.*}} {kcc.tile_access
func.func @store(%v: tensor<4x8xf16>, %base: !kcc.ptr<f16>, %d0: i32, %d1: i32,
                 %s0: i32, %i: i32, %j: i32) {
  kcc.store_tile %v, %base[%d0, %d1] strides[%s0] at[%i, %j] : tensor<4x8xf16>, !kcc.ptr<f16>
  return
}

// 1-D: no strides, one coordinate, and `other`.
// CHECK-LABEL: func.func @load1d
// CHECK-NOT: kcc.reshape
// CHECK: kcc.load {{.*}} : tensor<256x!kcc.ptr<i32>>
func.func @load1d(%base: !kcc.ptr<i32>, %n: i32, %i: i32) -> tensor<256xi32> {
  %c7 = arith.constant 7 : i32
  %t = kcc.load_tile %base[%n] strides[] at[%i] other %c7 : i32 : !kcc.ptr<i32> -> tensor<256xi32>
  return %t : tensor<256xi32>
}
