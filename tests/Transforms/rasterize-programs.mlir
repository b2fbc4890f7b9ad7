// RUN: kcc-opt %s --kcc-rasterize-programs --split-input-file --verify-diagnostics | FileCheck %s

// A group(4) kernel over the 2-D grid (cdiv(n, 64), m): one flat program id
// b of a 1-D launch of gx * gy programs gives g = b / (4 * gx),
// size = min(gy - g * 4, 4), program_id(1) = g * 4 + (b % (4 * gx)) % size,
// program_id(0) = (b % (4 * gx)) / size. num_programs(0)/(1) become the
// extents, axis 2 stays, kcc.grid is the product of the 2-D expressions and
// the marker is gone (kcc.raster_group stays, a record for the report).
// CHECK-LABEL: func.func @grouped
// CHECK-SAME: kcc.grid = ["(((((n) + (64) - 1) / (64))) < 0 || (m) < 0 ? -1 : ((((n) + (64) - 1) / (64))) * (m))", "1", "1"]
// CHECK-SAME: kcc.raster_group = 4 : i32
// CHECK: %[[GX:.*]] = arith.divsi
// CHECK-NOT: kcc.program_grid
// CHECK: %[[N:.*]] = arith.constant 4 : i32
// CHECK: %[[B:.*]] = kcc.program_id(0) : i32
// Divisors clamped to 1 (no-ops in a launch; the async verifier chooses
// program ids apart from the grid).
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[NGX:.*]] = arith.muli %[[N]], %[[GX]] : i32
// CHECK: %[[IN:.*]] = arith.maxsi %[[NGX]], %[[ONE]] : i32
// CHECK: %[[G:.*]] = arith.divsi %[[B]], %[[IN]] : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %[[N]] : i32
// CHECK: %[[LEFT:.*]] = arith.subi %arg2, %[[FIRST]] : i32
// CHECK: %[[ROWS:.*]] = arith.minsi %[[LEFT]], %[[N]] : i32
// CHECK: %[[SIZE:.*]] = arith.maxsi %[[ROWS]], %[[ONE]] : i32
// CHECK: %[[R:.*]] = arith.remsi %[[B]], %[[IN]] : i32
// CHECK: %[[ROW:.*]] = arith.remsi %[[R]], %[[SIZE]] : i32
// CHECK: %[[P1:.*]] = arith.addi %[[FIRST]], %[[ROW]] : i32
// CHECK: %[[P0:.*]] = arith.divsi %[[R]], %[[SIZE]] : i32
// CHECK: scf.for
// CHECK-NOT: kcc.program_id(0)
// CHECK-NOT: kcc.program_id(1)
// CHECK-NOT: kcc.num_programs(0)
// CHECK-NOT: kcc.num_programs(1)
// CHECK: %[[Z:.*]] = kcc.program_id(2) : i32
// CHECK: %[[NZ:.*]] = kcc.num_programs(2) : i32
// CHECK: arith.addi %[[P1]], %[[P0]]
// CHECK: arith.addi %[[GX]], %arg2
// CHECK: arith.addi %[[Z]], %[[NZ]]
func.func @grouped(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["(((n) + (64) - 1) / (64))", "m", "1"],
                kcc.raster_group = 4 : i32} {
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %0 = arith.addi %n, %c63 : i32
  %gx = arith.divsi %0, %c64 : i32
  kcc.program_grid %gx, %m {group = 4 : i32}
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %p0 = kcc.program_id(0) : i32
    %p1 = kcc.program_id(1) : i32
    %p2 = kcc.program_id(2) : i32
    %n0 = kcc.num_programs(0) : i32
    %n1 = kcc.num_programs(1) : i32
    %n2 = kcc.num_programs(2) : i32
    %a = arith.addi %p1, %p0 : i32
    %b = arith.addi %n0, %n1 : i32
    %c = arith.addi %p2, %n2 : i32
    %d = arith.addi %a, %b : i32
    %e = arith.addi %d, %c : i32
    %ptr = kcc.addptr %out, %a : !kcc.ptr<i32>, i32
    kcc.store %ptr, %e : !kcc.ptr<i32>
  }
  return
}

// A kernel without the marker is untouched: its program ids, counts and grid.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: kcc.grid = ["n", "m", "1"]
// CHECK-NEXT: %[[X:.*]] = kcc.program_id(0) : i32
// CHECK-NEXT: %[[Y:.*]] = kcc.program_id(1) : i32
// CHECK-NEXT: %[[NX:.*]] = kcc.num_programs(0) : i32
// CHECK-NEXT: %[[NY:.*]] = kcc.num_programs(1) : i32
// CHECK-NEXT: arith.addi %[[X]], %[[Y]]
// CHECK-NEXT: arith.addi %[[NX]], %[[NY]]
func.func @plain(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"]} {
  %p0 = kcc.program_id(0) : i32
  %p1 = kcc.program_id(1) : i32
  %n0 = kcc.num_programs(0) : i32
  %n1 = kcc.num_programs(1) : i32
  %a = arith.addi %p0, %p1 : i32
  %b = arith.addi %n0, %n1 : i32
  %ptr = kcc.addptr %out, %a : !kcc.ptr<i32>, i32
  kcc.store %ptr, %b : !kcc.ptr<i32>
  return
}

// -----

// The pass rewrites program ids with values defined at the marker: one
// computed before it is IR the frontend never makes, and an error.
func.func @early(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 2 : i32} {
  // expected-error @below {{program ids must be computed after kcc.program_grid}}
  %p0 = kcc.program_id(0) : i32
  kcc.program_grid %n, %m {group = 2 : i32}
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  kcc.store %ptr, %p0 : !kcc.ptr<i32>
  return
}

// -----

// group must be at least 1 (the op's verifier).
func.func @zero(%n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"]} {
  // expected-error @below {{'kcc.program_grid' op attribute 'group' failed to satisfy constraint}}
  kcc.program_grid %n, %m {group = 0 : i32}
  return
}

// -----

// group(1)'s order is the grid's own (x fastest): the kernel keeps its 2-D
// grid and program ids, and only the marker goes.
// CHECK-LABEL: func.func @ungrouped(
// CHECK-SAME: kcc.grid = ["n", "m", "1"]
// CHECK-NOT: kcc.program_grid
// CHECK: %[[P0:.*]] = kcc.program_id(0)
// CHECK: kcc.addptr %{{.*}}, %[[P0]]
func.func @ungrouped(%out: !kcc.ptr<i32>, %n: i32, %m: i32)
    attributes {kcc.kernel, kcc.grid = ["n", "m", "1"],
                kcc.raster_group = 1 : i32} {
  kcc.program_grid %n, %m {group = 1 : i32}
  %p0 = kcc.program_id(0) : i32
  %ptr = kcc.addptr %out, %p0 : !kcc.ptr<i32>, i32
  kcc.store %ptr, %p0 : !kcc.ptr<i32>
  return
}
