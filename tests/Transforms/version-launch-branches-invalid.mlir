// RUN: not kcc-opt %s --split-input-file --kcc-version-launch-branches -o /dev/null 2>&1 | FileCheck %s

// The copy's name is taken: an error at the kernel, not a renamed symbol
// the launch stub would never find.
// CHECK: version-launch-branches-invalid.mlir:[[@LINE+1]]:1: error: kernel 'taken' has a build for the else branch of its `if` at k.kc:2:3, @taken__else, but that symbol is taken; rename the kernel
func.func @taken(%arg0: !kcc.ptr<i32>, %arg1: i32)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = arith.cmpi sgt, %arg1, %c0 : i32
  scf.if %b {
    scf.for %i = %c0 to %arg1 step %c1 : i32 {
      kcc.store %arg0, %i : !kcc.ptr<i32>
    }
  } else {
    scf.for %i = %c0 to %c1 step %c1 : i32 {
      kcc.store %arg0, %c0 : !kcc.ptr<i32>
    }
  } {kcc.launch_guard = {at = "k.kc:2:3", guard = "(n > 0)", when = "n > 0"}}
  return
}
func.func @taken__else(%arg0: !kcc.ptr<i32>)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  return
}

// -----

// The mark's shape is checked by the dialect.
// CHECK: version-launch-branches-invalid.mlir:[[@LINE+5]]:3: error: kcc.launch_guard must be a dictionary of strings guard, when and at, on an scf.if
func.func @bad(%arg0: !kcc.ptr<i32>, %arg1: i32)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %b = arith.cmpi sgt, %arg1, %c0 : i32
  scf.if %b {
    kcc.store %arg0, %arg1 : !kcc.ptr<i32>
  } {kcc.launch_guard = {guard = "(n > 0)"}}
  return
}
