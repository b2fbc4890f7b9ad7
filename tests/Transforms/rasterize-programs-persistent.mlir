// RUN: kcc-opt %s --kcc-rasterize-programs=persistent=2 | FileCheck %s

// kcc --persistent=2: each group(N) kernel gets two builds. @grouped is
// the one-program-per-tile launch of rasterize-programs.mlir, and
// @grouped__persistent (kcc.persistent_of = @grouped), placed after it, the
// persistent one, which the runtime launches instead when the grid has more
// than 2 x multiprocessors tiles. It computes the grouped order per tile
// from the induction variable b of a loop over the program's tiles (b =
// launch id, launch id + launch extent, ... < gx * gy), whose body is the
// rest of the kernel. Its first iter_arg counts the program's tiles. The
// launch grid stays the flat product (the runtime caps it at 2 CTAs per
// multiprocessor: kcc.persistent).
// CHECK-LABEL: func.func @grouped(
// CHECK-NOT: kcc.persistent
// CHECK-NOT: scf.for
// CHECK: kcc.program_id(0)
// CHECK-NOT: scf.for
// CHECK: return
// CHECK-LABEL: func.func @grouped__persistent(
// CHECK-SAME: kcc.grid = ["(((((n) + (64) - 1) / (64))) < 0 || (m) < 0 ? -1 : ((((n) + (64) - 1) / (64))) * (m))", "1", "1"]
// CHECK-SAME: kcc.persistent = 2 : i32, kcc.persistent_of = @grouped
// CHECK: %[[GX:.*]] = arith.divsi
// CHECK-NOT: kcc.program_grid
// CHECK: %[[N:.*]] = arith.constant 4 : i32
// CHECK: %[[FIRST_ID:.*]] = kcc.program_id(0) : i32
// CHECK: %[[EXTENT:.*]] = kcc.num_programs(0) : i32
// CHECK: %[[TILES:.*]] = arith.muli %[[GX]], %arg2 : i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: scf.for %[[B:.*]] = %[[FIRST_ID]] to %[[TILES]] step %[[EXTENT]] iter_args(%[[ORD:.*]] = %[[ZERO]]) -> (i32)  : i32 {
// CHECK: %[[NGX:.*]] = arith.muli %[[N]], %[[GX]] : i32
// CHECK: %[[IN:.*]] = arith.maxsi %[[NGX]], %{{.*}} : i32
// CHECK: %[[G:.*]] = arith.divsi %[[B]], %[[IN]] : i32
// CHECK: %[[R:.*]] = arith.remsi %[[B]], %[[IN]] : i32
// CHECK: %[[P0:.*]] = arith.divsi %[[R]], %{{.*}} : i32
// CHECK: kcc.store
// CHECK: %[[NEXT:.*]] = arith.addi %[[ORD]], %{{.*}} : i32
// CHECK: scf.yield %[[NEXT]] : i32
// CHECK: } {kcc.persistent_tiles}
// CHECK-NEXT: return
func.func @grouped(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["(((n) + (64) - 1) / (64))", "m", "1"],
                kcc.raster_group = 4 : i32} {
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %0 = arith.addi %n, %c63 : i32
  %gx = arith.divsi %0, %c64 : i32
  kcc.program_grid %gx, %m {group = 4 : i32}
  %p0 = kcc.program_id(0) : i32
  %p1 = kcc.program_id(1) : i32
  %a = arith.addi %p1, %p0 : i32
  %ptr = kcc.addptr %out, %a : !kcc.ptr<i32>, i32
  kcc.store %ptr, %a : !kcc.ptr<i32>
  return
}

// A kernel without group(N) keeps its one program per grid point, and has
// one build.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: kcc.persistent
// CHECK-NOT: scf.for
// CHECK-NOT: func.func
func.func @plain(%out: !kcc.ptr<i32>, %n: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "1", "1"]} {
  %p0 = kcc.program_id(0) : i32
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  kcc.store %ptr, %p0 : !kcc.ptr<i32>
  return
}


// A third axis (a batch, %gz on the marker): the persistent build's one tile
// loop runs the tiles of every batch, numbered batch by batch (t < gx * gy *
// gz); program_id(2) is t / (gx * gy) and the grouped order is computed from
// t % (gx * gy); num_programs(2) is %gz. The one-program-per-tile build keeps
// the batch on the launch's z.
// CHECK-LABEL: func.func @batched(
// CHECK: kcc.program_id(2)
// CHECK-LABEL: func.func @batched__persistent(
// CHECK: %[[PER:.*]] = arith.muli %arg1, %arg1 : i32
// CHECK: %[[TILES:.*]] = arith.muli %[[PER]], %arg2 : i32
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[TILES]] step
// CHECK: %[[BATCH:.*]] = arith.divsi %[[T]], %[[PER]] : i32
// CHECK: %[[R:.*]] = arith.remsi %[[T]], %[[PER]] : i32
// CHECK: arith.divsi %[[R]]
// CHECK-NOT: kcc.program_id
// CHECK-NOT: kcc.num_programs(2)
// CHECK: arith.addi %[[BATCH]], %arg2 : i32
// CHECK: } {kcc.persistent_tiles}
func.func @batched(%out: !kcc.ptr<i32>, %n: i32, %b: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "n", "b"],
                kcc.raster_group = 2 : i32} {
  kcc.program_grid %n, %n, %b {group = 2 : i32}
  %p0 = kcc.program_id(0) : i32
  %p2 = kcc.program_id(2) : i32
  %nb = kcc.num_programs(2) : i32
  %a = arith.addi %p2, %nb : i32
  %c = arith.addi %a, %p0 : i32
  %ptr = kcc.addptr %out, %c : !kcc.ptr<i32>, i32
  kcc.store %ptr, %c : !kcc.ptr<i32>
  return
}

// group(1): the one-CTA-per-tile build keeps its 2-D grid, and the
// persistent build launches with the same grid (the runtime counts x * y
// tiles of either); only its tile loop numbers the tiles.
// CHECK-LABEL: func.func @ungrouped(
// CHECK-SAME: kcc.grid = ["n", "m", "1"]
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @ungrouped__persistent(
// CHECK-SAME: kcc.grid = ["n", "m", "1"]
// CHECK: scf.for
// CHECK: } {kcc.persistent_tiles}
func.func @ungrouped(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %p0 = kcc.program_id(0) : i32
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  kcc.store %ptr, %p0 : !kcc.ptr<i32>
  return
}
