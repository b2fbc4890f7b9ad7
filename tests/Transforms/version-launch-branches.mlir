// kcc-version-launch-branches: a kernel whose top-level `if` the launch
// decides (kcc.launch_guard, from the frontend) is compiled once per branch;
// the copy keeps the else branch and names the build it stands in for.
// RUN: kcc-opt %s --split-input-file --kcc-version-launch-branches | FileCheck %s

// kernel rows(out: ptr<f32>, n: i32): if n <= 64 { a tile } else { a loop },
// then a second marked if, which stays (one condition per kernel).
// CHECK-LABEL: func.func @rows(
// CHECK-NOT: kcc.version
// CHECK-NEXT: arith.constant true
// CHECK-NEXT: arith.constant 64
// CHECK-NEXT: arith.cmpi sle
// CHECK-NEXT: kcc.arange
// CHECK-NOT: scf.for
// CHECK: kcc.store
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: scf.if
// CHECK: kcc.addptr %arg0, %[[R]]
// CHECK-NOT: kcc.launch_guard
// CHECK: return
// CHECK-LABEL: func.func @rows__else(
// CHECK-SAME: kcc.version_guard = {at = "rows.kc:3:3", guard = "(n <= 64)", when = "n <= 64"}
// CHECK-SAME: kcc.version_of = @rows
// CHECK-NOT: kcc.variant
// CHECK: arith.constant false
// CHECK-NOT: kcc.arange
// CHECK: %[[S:.*]] = scf.for
// CHECK: kcc.store
// CHECK: scf.if
// CHECK: kcc.addptr %arg0, %[[S]]
// CHECK-NOT: kcc.launch_guard
// CHECK: return
func.func @rows(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64}, %arg1: i32)
    attributes {kcc.arg_names = ["out", "n"], kcc.base_name = "rows", kcc.constant_names = [],
                kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {},
                kcc.variant_of = {rows_0 = ["B"]}, kcc.variant_only} {
  %c64 = arith.constant 64 : i32
  %small = arith.cmpi sle, %arg1, %c64 : i32
  %r = scf.if %small -> (i32) {
    %cols = kcc.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %p = kcc.splat %arg0 : tensor<64x!kcc.ptr<f32>>
    %q = kcc.addptr %p, %cols : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
    %z = arith.constant 0.000000e+00 : f32
    %zs = kcc.splat %z : tensor<64xf32>
    kcc.store %q, %zs : tensor<64x!kcc.ptr<f32>>
    %one = arith.addi %c64, %c64 : i32
    scf.yield %one : i32
  } else {
    %c0 = arith.constant 0 : i32
    %s = scf.for %i = %c0 to %arg1 step %c64 iter_args(%a = %c0) -> (i32) : i32 {
      %a1 = arith.addi %a, %i : i32
      scf.yield %a1 : i32
    }
    %sc = kcc.addptr %arg0, %s : !kcc.ptr<f32>, i32
    %f = arith.constant 0.000000e+00 : f32
    kcc.store %sc, %f : !kcc.ptr<f32>
    scf.yield %s : i32
  } {kcc.launch_guard = {at = "rows.kc:3:3", guard = "(n <= 64)", when = "n <= 64"}}
  %big = arith.cmpi sgt, %arg1, %c64 : i32
  scf.if %big {
    %px = kcc.addptr %arg0, %r : !kcc.ptr<f32>, i32
    %f1 = arith.constant 1.000000e+00 : f32
    kcc.store %px, %f1 : !kcc.ptr<f32>
  } else {
    %px = kcc.addptr %arg0, %c64 : !kcc.ptr<f32>, i32
    %f1 = arith.constant 2.000000e+00 : f32
    kcc.store %px, %f1 : !kcc.ptr<f32>
  } {kcc.launch_guard = {at = "rows.kc:9:3", guard = "(n > 64)", when = "n > 64"}}
  return
}

// -----

// No mark: one build.
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: __else
func.func @plain(%arg0: !kcc.ptr<i32> {kcc.align = 16 : i64}, %arg1: i32)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %b = arith.cmpi sgt, %arg1, %c0 : i32
  scf.if %b {
    kcc.store %arg0, %arg1 : !kcc.ptr<i32>
  }
  return
}

// -----

// Scalar branches are versioned only where a value they choose decides a
// loop's bounds (causal attention's `if causal != 0 { blocks = min(blocks,
// diagonal) }`); each build then folds every test of the condition, the
// one repeated in the loop too.
// CHECK-LABEL: func.func @bound(
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: %[[D:.*]] = arith.minsi
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[D]]
// CHECK: arith.andi %[[T]],
// CHECK-LABEL: func.func @bound__else(
// CHECK: %[[F:.*]] = arith.constant false
// CHECK-NOT: arith.minsi
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg1
// CHECK: arith.andi %[[F]],
func.func @bound(%arg0: !kcc.ptr<i32>, %arg1: i32, %arg2: i32)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %pid = kcc.program_id(0) : i32
  %causal = arith.cmpi ne, %arg2, %c0 : i32
  %n = scf.if %causal -> (i32) {
    %d = arith.minsi %arg1, %pid : i32
    scf.yield %d : i32
  } else {
    scf.yield %arg1 : i32
  } {kcc.launch_guard = {at = "k.kc:4:3", guard = "(causal != 0)", when = "causal != 0"}}
  scf.for %j = %c0 to %n step %c1 : i32 {
    %again = arith.cmpi ne, %arg2, %c0 : i32
    %late = arith.cmpi sgt, %j, %c2 : i32
    %mask = arith.andi %again, %late : i1
    scf.if %mask {
      kcc.store %arg0, %j : !kcc.ptr<i32>
    }
  }
  return
}

// -----

// A scalar choice that decides no loop: one build.
// CHECK-LABEL: func.func @scalar(
// CHECK-NOT: __else
func.func @scalar(%arg0: !kcc.ptr<i32>, %arg1: i32)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %b = arith.cmpi sgt, %arg1, %c0 : i32
  scf.if %b {
    kcc.store %arg0, %arg1 : !kcc.ptr<i32>
  } else {
    kcc.store %arg0, %c0 : !kcc.ptr<i32>
  } {kcc.launch_guard = {at = "k.kc:2:3", guard = "(n > 0)", when = "n > 0"}}
  return
}
