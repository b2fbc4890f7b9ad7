// RUN: kcc-opt %s --kcc-version-full-masks --canonicalize | FileCheck %s

// A 1-D block: offs = pid * 1024 + arange(1024), mask offs < n. Full iff
// pid * 1024 + 1023 < n (in i64) and the index did not wrap in i32; the
// full copy has no masks and no select, the other is the code as written.
// CHECK-LABEL: func.func @vector_block
// CHECK: %[[PID:.*]] = kcc.program_id
// CHECK: %[[BASE:.*]] = arith.muli %[[PID]]
// CHECK-DAG: %[[B64:.*]] = arith.extsi %[[BASE]] : i32 to i64
// CHECK-DAG: %[[HI:.*]] = arith.addi %[[B64]], %c1023_i64 : i64
// CHECK-DAG: %[[NOWRAP:.*]] = arith.cmpi sle, %[[HI]], %c2147483647_i64 : i64
// CHECK-DAG: %[[N64:.*]] = arith.extsi %arg2 : i32 to i64
// CHECK-DAG: %[[FULL:.*]] = arith.cmpi slt, %[[HI]], %[[N64]] : i64
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: kcc.arange
// CHECK-NOT: mask
// CHECK-NOT: arith.select
// CHECK: kcc.load %{{[^ ]*}} : tensor<1024x!kcc.ptr<f32>>
// CHECK-NOT: mask
// CHECK: kcc.store %{{[^ ]*}}, %{{[^ ]*}} : tensor<1024x!kcc.ptr<f32>>
// CHECK-NEXT: } else {
// CHECK: kcc.load %{{.*}} mask %{{.*}} other
// CHECK: arith.select
// CHECK: kcc.store %{{.*}} mask
// CHECK: } {kcc.full_masks}
func.func @vector_block(%x: !kcc.ptr<f32>, %y: !kcc.ptr<f32>, %n: i32) attributes {kcc.kernel} {
  %pid = kcc.program_id(0) : i32
  %c1024 = arith.constant 1024 : i32
  %base = arith.muli %pid, %c1024 : i32
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %bs = kcc.splat %base : tensor<1024xi32>
  %offs = arith.addi %bs, %r : tensor<1024xi32>
  %ns = kcc.splat %n : tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = kcc.splat %x : tensor<1024x!kcc.ptr<f32>>
  %px = kcc.addptr %xs, %offs : tensor<1024x!kcc.ptr<f32>>, tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %v = kcc.load %px mask %mask other %zero : tensor<1024x!kcc.ptr<f32>>
  %w = arith.select %mask, %v, %zero : tensor<1024xi1>, tensor<1024xf32>
  %ys = kcc.splat %y : tensor<1024x!kcc.ptr<f32>>
  %py = kcc.addptr %ys, %offs : tensor<1024x!kcc.ptr<f32>>, tensor<1024xi32>
  kcc.store %py, %w mask %mask : tensor<1024x!kcc.ptr<f32>>
  return
}

// A streaming loop: the body is versioned per iteration on start + 255 < n;
// the carried sum goes through the if's result.
// CHECK-LABEL: func.func @streaming
// CHECK: scf.for %[[S:.*]] = {{.*}} iter_args(%[[ACC:.*]] = {{.*}}) -> (tensor<256xf32>)
// CHECK: arith.extsi %[[S]] : i32 to i64
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<256xf32>) {
// CHECK: kcc.load %{{[^ ]*}} : tensor<256x!kcc.ptr<f32>>
// CHECK: } else {
// CHECK: kcc.load %{{.*}} mask
// CHECK: } {kcc.full_masks}
// CHECK: scf.yield %[[R]]
func.func @streaming(%x: !kcc.ptr<f32>, %n: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %init = arith.constant dense<0.0> : tensor<256xf32>
  %sum = scf.for %s = %c0 to %n step %c256 iter_args(%acc = %init) -> (tensor<256xf32>) : i32 {
    %r = kcc.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %ss = kcc.splat %s : tensor<256xi32>
    %cols = arith.addi %ss, %r : tensor<256xi32>
    %ns = kcc.splat %n : tensor<256xi32>
    %m = arith.cmpi slt, %cols, %ns : tensor<256xi32>
    %xs = kcc.splat %x : tensor<256x!kcc.ptr<f32>>
    %p = kcc.addptr %xs, %cols : tensor<256x!kcc.ptr<f32>>, tensor<256xi32>
    %v = kcc.load %p mask %m : tensor<256x!kcc.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<256xf32>
    scf.yield %a : tensor<256xf32>
  }
  %r0 = kcc.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %xs0 = kcc.splat %x : tensor<256x!kcc.ptr<f32>>
  %p0 = kcc.addptr %xs0, %r0 : tensor<256x!kcc.ptr<f32>>, tensor<256xi32>
  kcc.store %p0, %sum : tensor<256x!kcc.ptr<f32>>
  return
}

// A 2-D mask through broadcasts, one term per dimension; a data-dependent
// term (a loaded flag tile) stays in the full copy.
// CHECK-LABEL: func.func @two_terms_and_data
// CHECK: scf.if
// CHECK: %[[FLAGS:.*]] = kcc.load %{{[^ ]*}} : tensor<16x64x!kcc.ptr<i1>>
// CHECK: kcc.load %{{.*}} mask %[[FLAGS]] : tensor<16x64x!kcc.ptr<f16>>
// CHECK: } else {
// CHECK: } {kcc.full_masks}
func.func @two_terms_and_data(%x: !kcc.ptr<f16>, %f: !kcc.ptr<i1>, %m: i32, %n: i32) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %c = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %re = kcc.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = kcc.broadcast %re : tensor<16x1xi32> -> tensor<16x64xi32>
  %ce = kcc.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = kcc.broadcast %ce : tensor<1x64xi32> -> tensor<16x64xi32>
  %ms = kcc.splat %m : tensor<16x64xi32>
  %ns = kcc.splat %n : tensor<16x64xi32>
  %rm = arith.cmpi slt, %rb, %ms : tensor<16x64xi32>
  %cm = arith.cmpi ult, %cb, %ns : tensor<16x64xi32>
  %c64 = arith.constant dense<64> : tensor<16x64xi32>
  %roff = arith.muli %rb, %c64 : tensor<16x64xi32>
  %off = arith.addi %roff, %cb : tensor<16x64xi32>
  %fs = kcc.splat %f : tensor<16x64x!kcc.ptr<i1>>
  %fp = kcc.addptr %fs, %off : tensor<16x64x!kcc.ptr<i1>>, tensor<16x64xi32>
  %inb = arith.andi %rm, %cm : tensor<16x64xi1>
  %flags = kcc.load %fp mask %inb : tensor<16x64x!kcc.ptr<i1>>
  %mask = arith.andi %inb, %flags : tensor<16x64xi1>
  %xs = kcc.splat %x : tensor<16x64x!kcc.ptr<f16>>
  %xp = kcc.addptr %xs, %off : tensor<16x64x!kcc.ptr<f16>>, tensor<16x64xi32>
  %v = kcc.load %xp mask %mask : tensor<16x64x!kcc.ptr<f16>>
  kcc.store %xp, %v : tensor<16x64x!kcc.ptr<f16>>
  return
}

// Left alone: a mask compared with equality, a mask from data, and a block
// with a dot.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: kcc.full_masks
// CHECK: return
func.func @left_alone(%x: !kcc.ptr<f32>, %n: i32) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ns = kcc.splat %n : tensor<64xi32>
  %eq = arith.cmpi eq, %r, %ns : tensor<64xi32>
  %xs = kcc.splat %x : tensor<64x!kcc.ptr<f32>>
  %p = kcc.addptr %xs, %r : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
  %v = kcc.load %p mask %eq : tensor<64x!kcc.ptr<f32>>
  %z = arith.constant dense<0.0> : tensor<64xf32>
  %pos = arith.cmpf ogt, %v, %z : tensor<64xf32>
  kcc.store %p, %v mask %pos : tensor<64x!kcc.ptr<f32>>
  return
}

// CHECK-LABEL: func.func @with_dot
// CHECK-NOT: kcc.full_masks
// CHECK: return
func.func @with_dot(%a: !kcc.ptr<f16>, %n: i32) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %re = kcc.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = kcc.broadcast %re : tensor<1x64xi32> -> tensor<64x64xi32>
  %ns = kcc.splat %n : tensor<64x64xi32>
  %m = arith.cmpi slt, %rb, %ns : tensor<64x64xi32>
  %s = kcc.splat %a : tensor<64x64x!kcc.ptr<f16>>
  %p = kcc.addptr %s, %rb : tensor<64x64x!kcc.ptr<f16>>, tensor<64x64xi32>
  %v = kcc.load %p mask %m : tensor<64x64x!kcc.ptr<f16>>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = kcc.dot %v, %v, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  kcc.store %p, %h mask %m : tensor<64x64x!kcc.ptr<f16>>
  return
}
