// RUN: not kcc-opt %s --split-input-file --kcc-rasterize-programs=persistent=1 -o /dev/null 2>&1 | FileCheck %s

// The persistent build of @grouped would be @grouped__persistent, which a
// kernel already is: an error at that kernel, not a renamed symbol the
// runtime would never find.
// CHECK: rasterize-programs-persistent-invalid.mlir:[[@LINE+1]]:1: error: kernel 'grouped' has a persistent build, @grouped__persistent, but that symbol is taken; rename the kernel
func.func @grouped(%out: !kcc.ptr<i32>, %n: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "1", "1"],
                kcc.raster_group = 4 : i32} {
  kcc.program_grid %n, %n {group = 4 : i32}
  %p0 = kcc.program_id(0) : i32
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  kcc.store %ptr, %p0 : !kcc.ptr<i32>
  return
}

func.func @grouped__persistent(%out: !kcc.ptr<i32>, %n: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "1", "1"]} {
  return
}

// -----

// kcc.persistent_of names the one-program-per-tile build of a persistent
// kernel.
// CHECK: rasterize-programs-persistent-invalid.mlir:[[@LINE+1]]:1: error: kcc.persistent_of names the one-program-per-tile build (a symbol) of a kernel with kcc.persistent
func.func @no_persistent(%out: !kcc.ptr<i32>)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"],
                kcc.persistent_of = @grouped} {
  return
}

// -----

// A 3-D grid whose marker lacks the third extent has no persistent build:
// the tile loop could not tell the batch.
func.func @no_gz(%out: !kcc.ptr<i32>, %n: i32, %b: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "n", "b"],
                kcc.raster_group = 2 : i32} {
  // CHECK: rasterize-programs-persistent-invalid.mlir:[[@LINE+1]]:3: error: the persistent build of a kernel with a third grid axis needs its extent: kcc.program_grid %gx, %gy, %gz
  kcc.program_grid %n, %n {group = 2 : i32}
  return
}

// -----

// kcc.paired_tiles marks a persistent kernel's tile loop only.
func.func @paired_not_tiles(%n: i32) attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: rasterize-programs-persistent-invalid.mlir:[[@LINE+1]]:3: error: kcc.paired_tiles is a string on a persistent kernel's tile loop (kcc.persistent_tiles)
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {kcc.paired_tiles = "x.kc:1:1"}
  return
}
