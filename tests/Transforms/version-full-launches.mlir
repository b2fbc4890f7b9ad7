// kcc-version-full-launches: masks whose terms read only parameters and
// constants are decided per launch: the kernel loses them, a copy keeps
// them and runs where the condition (C over the parameters) is false.
// RUN: kcc-opt %s --split-input-file --kcc-version-launch-branches --kcc-version-full-launches | FileCheck %s

// A row kernel as layernorm's then branch is written: if ncols <= 256 { one
// pass with mask cols < ncols } else { a loop }. The chain: @rows runs the
// then branch unmasked where ncols > 255 too, @rows__ragged the then
// branch as written, @rows__else the else branch (now the ragged build's).
// CHECK-LABEL: func.func @rows(
// CHECK-NOT: mask
// CHECK: kcc.load %{{[^ ]*}} : tensor<256x!kcc.ptr<f32>>
// CHECK-NOT: mask
// CHECK: return
// CHECK-LABEL: func.func @rows__ragged(
// CHECK-SAME: kcc.masks_ragged
// CHECK-SAME: kcc.version_guard = {at = "rows.kc:4:14", guard = "((ncols <= 256)) && ((255 < ncols))", masks, when = "every mask is on: (255 < ncols)"}
// CHECK-SAME: kcc.version_of = @rows
// CHECK: kcc.load %{{.*}} mask
// CHECK: kcc.store %{{.*}} mask
// CHECK-LABEL: func.func @rows__else(
// CHECK-SAME: kcc.version_guard = {at = "rows.kc:3:3", guard = "(ncols <= 256)", when = "ncols <= 256"}
// CHECK-SAME: kcc.version_of = @rows__ragged
// CHECK: scf.for
func.func @rows(%out: !kcc.ptr<f32>, %inp: !kcc.ptr<f32>, %ncols: i32)
    attributes {kcc.arg_names = ["out", "inp", "ncols"], kcc.base_name = "rows", kcc.constant_names = [],
                kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %c256 = arith.constant 256 : i32
  %small = arith.cmpi sle, %ncols, %c256 : i32
  scf.if %small {
    %cols = kcc.arange {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %n = kcc.splat %ncols : tensor<256xi32>
    %m = arith.cmpi slt, %cols, %n : tensor<256xi32> loc("rows.kc":4:14)
    %pi = kcc.splat %inp : tensor<256x!kcc.ptr<f32>>
    %qi = kcc.addptr %pi, %cols : tensor<256x!kcc.ptr<f32>>, tensor<256xi32>
    %x = kcc.load %qi mask %m : tensor<256x!kcc.ptr<f32>>
    %po = kcc.splat %out : tensor<256x!kcc.ptr<f32>>
    %qo = kcc.addptr %po, %cols : tensor<256x!kcc.ptr<f32>>, tensor<256xi32>
    kcc.store %qo, %x mask %m : tensor<256x!kcc.ptr<f32>>
  } else {
    %c0 = arith.constant 0 : i32
    scf.for %i = %c0 to %ncols step %c256 : i32 {
      %f = arith.constant 0.000000e+00 : f32
      %sc = kcc.addptr %out, %i : !kcc.ptr<f32>, i32
      kcc.store %sc, %f : !kcc.ptr<f32>
    }
  } {kcc.launch_guard = {at = "rows.kc:3:3", guard = "(ncols <= 256)", when = "ncols <= 256"}}
  return
}

// -----

// A block of a 1-D grid (`pid * 64 + arange < n`) and a loop index are not
// the launch's to decide: no copy (kcc-version-full-masks decides them per
// block). A dim parameter and an offset through + and * are: the guard
// reads them by name, with the check that the index did not wrap.
// CHECK-LABEL: func.func @blocks(
// CHECK-NOT: kcc.version_of
// CHECK: kcc.load %{{.*}} mask
// CHECK-LABEL: func.func @offset(
// CHECK-LABEL: func.func @offset__ragged(
// CHECK-SAME: guard = "(((off * 2) + 63) < x_dim0) && ((off * 2) >= (-2147483647 - 1)) && ((off * 2) <= 2147483647) && (((off * 2) + 0) >= (-2147483647 - 1)) && (((off * 2) + 63) <= 2147483647)"
func.func @blocks(%x: !kcc.ptr<f32>, %n: i32)
    attributes {kcc.arg_names = ["x", "n"], kcc.base_name = "blocks", kcc.constant_names = [],
                kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %pid = kcc.program_id(0) : i32
  %c64 = arith.constant 64 : i32
  %base = arith.muli %pid, %c64 : i32
  %r = kcc.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %b = kcc.splat %base : tensor<64xi32>
  %offs = arith.addi %b, %r : tensor<64xi32>
  %ns = kcc.splat %n : tensor<64xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<64xi32>
  %p = kcc.splat %x : tensor<64x!kcc.ptr<f32>>
  %q = kcc.addptr %p, %offs : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
  %v = kcc.load %q mask %m : tensor<64x!kcc.ptr<f32>>
  kcc.store %q, %v mask %m : tensor<64x!kcc.ptr<f32>>
  return
}
func.func @offset(%x: !kcc.ptr<f32>, %x_dim0: i32, %off: i32)
    attributes {kcc.arg_names = ["x", "x_dim0", "off"], kcc.base_name = "offset", kcc.constant_names = [],
                kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %r = kcc.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %o = kcc.splat %off : tensor<64xi32>
  %two = arith.constant dense<2> : tensor<64xi32>
  %o2 = arith.muli %o, %two : tensor<64xi32>
  %idx = arith.addi %o2, %r : tensor<64xi32>
  %ds = kcc.splat %x_dim0 : tensor<64xi32>
  %m = arith.cmpi slt, %idx, %ds : tensor<64xi32>
  %p = kcc.splat %x : tensor<64x!kcc.ptr<f32>>
  %q = kcc.addptr %p, %idx : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
  %v = kcc.load %q mask %m : tensor<64x!kcc.ptr<f32>>
  kcc.store %q, %v mask %m : tensor<64x!kcc.ptr<f32>>
  return
}
