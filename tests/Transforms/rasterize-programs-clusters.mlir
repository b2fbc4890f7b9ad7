// RUN: kcc-opt %s --kcc-rasterize-programs="cluster=2" --split-input-file | FileCheck %s

// Clusters of 2 (kcc --clusters=2): cluster c = b / 2 runs the grouped order
// over (gx, cdiv(gy, 2)) with group 4 / 2 = 2, and its CTA r = b % 2 takes
// tile row min(2 * row + r, gy - 1); the launch counts whole clusters of
// rows.
// CHECK-LABEL: func.func @paired
// CHECK-SAME: kcc.cluster = 2 : i32
// CHECK-SAME: kcc.grid = ["((n) < 0 || (m) < 0 ? -1 : (n) * (((m) + 1) / 2 * 2))", "1", "1"]
// CHECK: %[[B:.*]] = kcc.program_id(0) : i32
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[RANK:.*]] = arith.remsi %[[B]], %[[TWO]] : i32
// CHECK: %[[C:.*]] = arith.divsi %[[B]], %[[TWO]] : i32
// CHECK: %[[M1:.*]] = arith.addi %arg2, %{{.*}} : i32
// CHECK: %[[ROWS:.*]] = arith.divsi %[[M1]], %[[TWO]] : i32
// CHECK: %[[N:.*]] = arith.constant 2 : i32
// CHECK: arith.muli %[[N]], %arg1
// CHECK: arith.divsi %[[C]],
// CHECK: arith.subi %[[ROWS]],
// CHECK: %[[ROW:.*]] = arith.addi
// CHECK: %[[P0:.*]] = arith.divsi
// CHECK: %[[LAST:.*]] = arith.maxsi
// CHECK: %[[SCALED:.*]] = arith.muli %[[ROW]], %{{.*}} : i32
// CHECK: %[[MINE:.*]] = arith.addi %[[SCALED]], %[[RANK]] : i32
// CHECK: %[[P1:.*]] = arith.minsi %[[MINE]], %[[LAST]] : i32
// CHECK: arith.addi %[[P1]], %[[P0]]
func.func @paired(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 4 : i32} {
  kcc.program_grid %n, %m {group = 4 : i32}
  %p0 = kcc.program_id(0) : i32
  %p1 = kcc.program_id(1) : i32
  %a = arith.addi %p1, %p0 : i32
  %ptr = kcc.addptr %out, %a : !kcc.ptr<i32>, i32
  kcc.store %ptr, %a : !kcc.ptr<i32>
  return
}

// -----

// A kernel that reads what it writes is not paired: a tile computed twice
// (the last pair of an odd number of rows) would read the first one's
// result. Its launch is the plain grouped order.
// CHECK-LABEL: func.func @reads_output
// CHECK-SAME: kcc.cluster_refused = "it reads memory it writes: with an odd number of tile rows the last cluster's second CTA computes its partner's tile again, which must give the same result"
// CHECK-SAME: kcc.grid = ["((n) < 0 || (m) < 0 ? -1 : (n) * (m))", "1", "1"]
// CHECK-NOT: kcc.cluster =
func.func @reads_output(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 4 : i32} {
  kcc.program_grid %n, %m {group = 4 : i32}
  %p0 = kcc.program_id(0) : i32
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  %v = kcc.load %ptr : !kcc.ptr<i32>
  kcc.store %ptr, %v : !kcc.ptr<i32>
  return
}

// -----

// Atomics likewise.
// CHECK-LABEL: func.func @atomic
// CHECK-SAME: kcc.cluster_refused = "it has atomics:
func.func @atomic(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 4 : i32} {
  kcc.program_grid %n, %m {group = 4 : i32}
  %p0 = kcc.program_id(0) : i32
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  %old = kcc.atomic_rmw add acq_rel gpu %ptr, %p0 : !kcc.ptr<i32>
  return
}
