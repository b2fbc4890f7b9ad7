// RUN: kcc-opt %s --kcc-rematerialize-broadcasts | FileCheck %s
// RUN: kcc-opt %s --kcc-rematerialize-broadcasts | FileCheck %s --check-prefix=GONE

// A row-sum kernel's addresses and mask: rows[:, None] * stride + cols[None, :]
// with rows = pid * 16 + arange(16). Every broadcast is of index math: it is
// computed again at 16 x 256, down to splats and broadcast aranges.
// CHECK-LABEL: func.func @index_math
// GONE-NOT: tensor<16x1x!kcc.ptr<f16>> -> tensor<16x256x!kcc.ptr<f16>>
// GONE-NOT: tensor<1x256xi1> -> tensor<16x256xi1>
// CHECK: %[[R:.*]] = kcc.arange {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK: %[[C:.*]] = kcc.arange {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
// CHECK: %[[XS:.*]] = kcc.splat %arg0 : tensor<16x256x!kcc.ptr<f16>>
// CHECK: %[[BASE:.*]] = kcc.splat %arg1 : tensor<16x256xi32>
// CHECK: %[[RE:.*]] = kcc.expand_dims %[[R]] {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: %[[RB:.*]] = kcc.broadcast %[[RE]] : tensor<16x1xi32> -> tensor<16x256xi32>
// CHECK: %[[ROWS:.*]] = arith.addi %[[BASE]], %[[RB]] : tensor<16x256xi32>
// CHECK: %[[STRIDE:.*]] = kcc.splat %arg2 : tensor<16x256xi32>
// CHECK: %[[ROFF:.*]] = arith.muli %[[ROWS]], %[[STRIDE]] : tensor<16x256xi32>
// CHECK: kcc.addptr %[[XS]], %[[ROFF]] : tensor<16x256x!kcc.ptr<f16>>, tensor<16x256xi32>
// CHECK: %[[CE:.*]] = kcc.expand_dims %[[C]] {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
// CHECK: kcc.broadcast %[[CE]] : tensor<1x256xi32> -> tensor<16x256xi32>
// CHECK: arith.cmpi slt, {{.*}} : tensor<16x256xi32>
// CHECK: kcc.load
func.func @index_math(%x: !kcc.ptr<f16>, %pid16: i32, %stride: i32, %cols: i32) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %c = kcc.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %base = kcc.splat %pid16 : tensor<16xi32>
  %rows = arith.addi %base, %r : tensor<16xi32>
  %re = kcc.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %st = kcc.splat %stride : tensor<16x1xi32>
  %roff = arith.muli %re, %st : tensor<16x1xi32>
  %xs = kcc.splat %x : tensor<16x1x!kcc.ptr<f16>>
  %rp = kcc.addptr %xs, %roff : tensor<16x1x!kcc.ptr<f16>>, tensor<16x1xi32>
  %rpb = kcc.broadcast %rp : tensor<16x1x!kcc.ptr<f16>> -> tensor<16x256x!kcc.ptr<f16>>
  %ce = kcc.expand_dims %c {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %ceb = kcc.broadcast %ce : tensor<1x256xi32> -> tensor<16x256xi32>
  %p = kcc.addptr %rpb, %ceb : tensor<16x256x!kcc.ptr<f16>>, tensor<16x256xi32>
  %cs = kcc.splat %cols : tensor<1x256xi32>
  %cm = arith.cmpi slt, %ce, %cs : tensor<1x256xi32>
  %cmb = kcc.broadcast %cm : tensor<1x256xi1> -> tensor<16x256xi1>
  %v = kcc.load %p mask %cmb : tensor<16x256x!kcc.ptr<f16>>
  return
}

// A broadcast of a value the pass cannot compute again (here a function
// argument; in kernels a reduction or a loop-carried tile) moves data: kept.
// CHECK-LABEL: func.func @opaque
// CHECK: %[[E:.*]] = kcc.expand_dims %arg0
// CHECK: kcc.broadcast %[[E]] : tensor<1x64xf32> -> tensor<32x64xf32>
func.func @opaque(%t: tensor<64xf32>) -> tensor<32x64xf32> {
  %e = kcc.expand_dims %t {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %bb = kcc.broadcast %e : tensor<1x64xf32> -> tensor<32x64xf32>
  return %bb : tensor<32x64xf32>
}

// GEMV's x[None, :]: the load is issued again at 8 x 128 (each thread reads
// the x elements of its own chunks) instead of moving x through shared
// memory.
// CHECK-LABEL: func.func @gemv_x
// CHECK: kcc.load %{{.*}} : tensor<8x128x!kcc.ptr<f16>>
// CHECK-NOT: kcc.broadcast %{{.*}} : tensor<1x128xf16>
func.func @gemv_x(%x: !kcc.ptr<f16>, %w: tensor<8x128xf16>) -> tensor<8x128xf16> {
  %k = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %xs = kcc.splat %x : tensor<128x!kcc.ptr<f16>>
  %xp = kcc.addptr %xs, %k : tensor<128x!kcc.ptr<f16>>, tensor<128xi32>
  %xv = kcc.load %xp : tensor<128x!kcc.ptr<f16>>
  %e = kcc.expand_dims %xv {axis = 0 : i32} : tensor<128xf16> -> tensor<1x128xf16>
  %b = kcc.broadcast %e : tensor<1x128xf16> -> tensor<8x128xf16>
  %p = arith.mulf %w, %b : tensor<8x128xf16>
  return %p : tensor<8x128xf16>
}

// A store between the load and the broadcast may change what it read: kept.
// CHECK-LABEL: func.func @store_between
// CHECK: kcc.store
// CHECK: kcc.broadcast %{{.*}} : tensor<1x128xf16> -> tensor<8x128xf16>
func.func @store_between(%x: !kcc.ptr<f16>, %v: tensor<128xf16>) -> tensor<8x128xf16> {
  %k = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %xs = kcc.splat %x : tensor<128x!kcc.ptr<f16>>
  %xp = kcc.addptr %xs, %k : tensor<128x!kcc.ptr<f16>>, tensor<128xi32>
  %xv = kcc.load %xp : tensor<128x!kcc.ptr<f16>>
  kcc.store %xp, %v : tensor<128x!kcc.ptr<f16>>
  %e = kcc.expand_dims %xv {axis = 0 : i32} : tensor<128xf16> -> tensor<1x128xf16>
  %b = kcc.broadcast %e : tensor<1x128xf16> -> tensor<8x128xf16>
  return %b : tensor<8x128xf16>
}
