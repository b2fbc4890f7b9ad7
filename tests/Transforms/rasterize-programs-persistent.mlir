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

// Paired tiles: the loop's trip count (p0 + 1) grows along x, so the
// persistent build runs the gx * gy tiles as pairs first: pair slot s <
// (gx / 2) * gy holds x = i and its mirror gx - 1 - i. Blocks of 2 x extent
// tiles hold `extent` slots (`width` in the last), the block's first
// `width` tiles the slots' first tiles (the mirror, the longer one), the
// rest their second, so CTA b takes both tiles of its slot; the pairs'
// grouped order runs over gx / 2 columns. Then an odd gx's middle column
// x = gx / 2, one tile each, as a grid one column wide.
// CHECK-LABEL: func.func @grows__persistent(
// CHECK: %[[EXT:.*]] = kcc.num_programs(0) : i32
// CHECK: %[[TILES:.*]] = arith.muli %arg1, %arg2 : i32
// CHECK: %[[HALF:.*]] = arith.divsi %arg1, %c2_i32 : i32
// CHECK: %[[PAIRS:.*]] = arith.muli %[[HALF]], %arg2 : i32
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[TILES]] step %[[EXT]]
// CHECK: %[[PT:.*]] = arith.addi %[[PAIRS]], %[[PAIRS]] : i32
// CHECK: %[[ISPAIR:.*]] = arith.cmpi slt, %[[T]], %[[PT]] : i32
// CHECK: %[[TWICE:.*]] = arith.addi %[[EXT]], %[[EXT]] : i32
// CHECK: %[[TWICE1:.*]] = arith.maxsi %[[TWICE]], %{{.*}} : i32
// CHECK: %[[Q:.*]] = arith.divsi %[[T]], %[[TWICE1]] : i32
// CHECK: %[[BASE:.*]] = arith.muli %[[Q]], %[[EXT]] : i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[PAIRS]], %[[BASE]] : i32
// CHECK: %[[WIDTH:.*]] = arith.minsi %[[EXT]], %[[LEFT]] : i32
// CHECK: %[[U0:.*]] = arith.subi %[[T]], %[[BASE]] : i32
// CHECK: %[[U:.*]] = arith.subi %[[U0]], %[[BASE]] : i32
// CHECK: %[[SECOND:.*]] = arith.cmpi sge, %[[U]], %[[WIDTH]] : i32
// CHECK: %[[UM:.*]] = arith.subi %[[U]], %[[WIDTH]] : i32
// CHECK: %[[C:.*]] = arith.select %[[SECOND]], %[[UM]], %[[U]] : i32
// CHECK: %[[SLOT:.*]] = arith.addi %[[BASE]], %[[C]] : i32
// CHECK: %[[SINGLE:.*]] = arith.subi %[[T]], %[[PT]] : i32
// CHECK: %[[FLAT:.*]] = arith.select %[[ISPAIR]], %[[SLOT]], %[[SINGLE]] : i32
// CHECK: %[[COLS:.*]] = arith.select %[[ISPAIR]], %{{.*}}, %{{.*}} : i32
// CHECK: arith.muli %{{.*}}, %[[COLS]] : i32
// CHECK: %[[IN:.*]] = arith.remsi %[[FLAT]], %{{.*}} : i32
// CHECK: %[[X:.*]] = arith.divsi %[[IN]], %{{.*}} : i32
// CHECK: %[[LAST:.*]] = arith.subi %arg1, %{{.*}} : i32
// CHECK: %[[MIRROR:.*]] = arith.subi %[[LAST]], %[[X]] : i32
// CHECK: %[[INPAIR:.*]] = arith.select %[[SECOND]], %[[X]], %[[MIRROR]] : i32
// CHECK: %[[MIDDLE:.*]] = arith.divsi %arg1, %{{.*}} : i32
// CHECK: %[[P0:.*]] = arith.select %[[ISPAIR]], %[[INPAIR]], %[[MIDDLE]] : i32
// CHECK: arith.addi %[[P0]]
// CHECK: scf.for
// CHECK: } {kcc.paired_tiles = "{{.*}}rasterize-programs-persistent.mlir:{{[0-9]+}}:{{[0-9]+}}", kcc.persistent_tiles}
func.func @grows(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = kcc.program_id(0) : i32
  %trips = arith.addi %p0, %c1 : i32
  %sum = scf.for %j = %c0 to %trips step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %next = arith.addi %acc, %j : i32
    scf.yield %next : i32
  }
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  kcc.store %ptr, %sum : !kcc.ptr<i32>
  return
}

// Fewer trips along x (p0 .. n): the slot's first tile is x itself.
// CHECK-LABEL: func.func @shrinks__persistent(
// CHECK: %[[SECOND:.*]] = arith.cmpi sge
// CHECK: arith.select %[[SECOND]]
// CHECK: %[[FLAT:.*]] = arith.select
// CHECK: %[[IN:.*]] = arith.remsi %[[FLAT]], %{{.*}} : i32
// CHECK: %[[X:.*]] = arith.divsi %[[IN]], %{{.*}} : i32
// CHECK: %[[MIRROR:.*]] = arith.subi %{{.*}}, %[[X]] : i32
// CHECK: arith.select %[[SECOND]], %[[MIRROR]], %[[X]] : i32
// CHECK: kcc.paired_tiles
func.func @shrinks(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %p0 = kcc.program_id(0) : i32
  %sum = scf.for %j = %p0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %next = arith.addi %acc, %j : i32
    scf.yield %next : i32
  }
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  kcc.store %ptr, %sum : !kcc.ptr<i32>
  return
}

// Not paired: trips that follow program_id(1); trips that grow along x
// under an `if` on the program ids; a loop that grows and one that
// shrinks. An atomic does not matter (no tile runs twice): @counted is
// paired.
// CHECK-LABEL: func.func @by_row__persistent(
// CHECK-NOT: kcc.paired_tiles
// CHECK-LABEL: func.func @guarded__persistent(
// CHECK-NOT: kcc.paired_tiles
// CHECK-LABEL: func.func @both_ways__persistent(
// CHECK-NOT: kcc.paired_tiles
// CHECK-LABEL: func.func @counted__persistent(
// CHECK: kcc.paired_tiles
func.func @by_row(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p1 = kcc.program_id(1) : i32
  %sum = scf.for %j = %c0 to %p1 step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %next = arith.addi %acc, %j : i32
    scf.yield %next : i32
  }
  kcc.store %out, %sum : !kcc.ptr<i32>
  return
}

func.func @guarded(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = kcc.program_id(0) : i32
  %p1 = kcc.program_id(1) : i32
  %odd = arith.cmpi eq, %p1, %c1 : i32
  scf.if %odd {
    %sum = scf.for %j = %c0 to %p0 step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
      %next = arith.addi %acc, %j : i32
      scf.yield %next : i32
    }
    kcc.store %out, %sum : !kcc.ptr<i32>
  }
  return
}

func.func @both_ways(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = kcc.program_id(0) : i32
  %a = scf.for %j = %c0 to %p0 step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %next = arith.addi %acc, %j : i32
    scf.yield %next : i32
  }
  %b = scf.for %j = %p0 to %n step %c1 iter_args(%acc = %a) -> (i32) : i32 {
    %next = arith.addi %acc, %j : i32
    scf.yield %next : i32
  }
  kcc.store %out, %b : !kcc.ptr<i32>
  return
}

func.func @counted(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = kcc.program_id(0) : i32
  %sum = scf.for %j = %c0 to %p0 step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %next = arith.addi %acc, %j : i32
    scf.yield %next : i32
  }
  %old = kcc.atomic_rmw add acq_rel gpu %out, %sum : !kcc.ptr<i32>
  return
}
