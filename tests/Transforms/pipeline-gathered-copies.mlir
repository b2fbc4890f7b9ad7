// kcc-pipeline-async-copies on a gathered tile: a load through a tile of
// pointers whose rows come from a table (the K block of paged attention)
// takes the cp.async pipeline as kcc.cp_async_gather when each 16-byte chunk
// is contiguous and aligned and its mask uniform, even though the loop's
// bound is read from memory. The copy for a later iteration recomputes the
// pointers there, reading the table ahead; the loop's own table read goes
// with the replaced load. The input is
//   kernel gather(c: ptr<f32>, a: ptr<f16> align(16), stride: i32 multiple_of(8),
//                 table: ptr<i32>, lens: ptr<i32>, b: ptr<f16> align(16)) grid(1) {
//     let len = load(lens);
//     let r = arange(0, 64);
//     let n = arange(0, 32);
//     let bt = load(b + r[:, None] * 32 + n[None, :]);
//     var acc = zeros([64, 32], f32);
//     for k in range(0, len, 64) {
//       let rows = k + r;
//       let ids = load(table + rows, rows < len, 0);
//       acc = dot(load(a + (ids * stride)[:, None] + r[None, :], (rows < len)[:, None], 0.0), bt, acc);
//     }
//     store(c + r[:, None] * 32 + n[None, :], acc);
//   }
// from kcc --emit=tile-ir; @written is the same kernel storing to the table
// in the loop, @unaligned with a row stride not known to be a multiple of 8.
// RUN: kcc-opt %s --kcc-pipeline-async-copies=target=sm_80 | FileCheck %s
// RUN: kcc-opt %s --kcc-pipeline-async-copies=target=sm_80 --kcc-verify-async-protocol -o /dev/null

// CHECK-LABEL: func.func @gather(
// CHECK: %[[BUF:.*]] = kcc.smem_alloc : <[64, 64], f16, stages = 3, swizzle = 0, pad = 16>
// CHECK: %[[LEN:.*]] = kcc.load %arg4 : !kcc.ptr<i32>
// The prologue: iteration 0's table entries, then its rows into stage 0.
// CHECK: scf.if
// CHECK: kcc.load %{{.*}} mask %{{.*}} other %{{.*}} : tensor<64x!kcc.ptr<i32>>
// CHECK: kcc.cp_async_gather %{{.*}} mask %{{.*}} : tensor<64x64xi1> -> %[[BUF]][%{{.*}}] {kcc.tile_access = "cp.async 16-byte chunks gathered through the tile's pointers, 3-stage pipeline (rows padded by 16 bytes for ldmatrix)"}
// CHECK: kcc.cp_async_commit_group
// CHECK: kcc.cp_async_gather
// CHECK: kcc.cp_async_commit_group
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[LEN]] step %c64_i32
// CHECK: kcc.cp_async_wait_group 1
// CHECK-NEXT: kcc.cta_barrier
// CHECK: scf.if
// CHECK: kcc.load %{{.*}} : tensor<64x!kcc.ptr<i32>>
// CHECK: kcc.cp_async_gather
// CHECK: kcc.cp_async_commit_group
// CHECK-NOT: kcc.load
// CHECK: kcc.smem_load %[[BUF]]
// CHECK-NEXT: kcc.dot

// The table is written in the loop: its entries cannot be read ahead.
// CHECK-LABEL: func.func @written(
// CHECK-NOT: kcc.cp_async_gather
// CHECK: kcc.load {{.*}}kcc.tma_refused = "not pipelined with cp.async: the tile's pointers or mask depend on values the pipeline cannot recompute for a later iteration (only the induction variable, loop-invariant values, pure ops and loads of memory the kernel never writes)"

// Rows 2-byte aligned only: no 16-byte chunks.
// CHECK-LABEL: func.func @unaligned(
// CHECK-NOT: kcc.cp_async_gather
// CHECK: kcc.load {{.*}}kcc.tma_refused = "not pipelined with cp.async: its rows are not provably made of contiguous, 16-byte aligned chunks (AxisInfo: contiguity 64, alignment 2 bytes)"

  func.func @gather(%arg0: !kcc.ptr<f32>, %arg1: !kcc.ptr<f16> {kcc.align = 16 : i64}, %arg2: i32 {kcc.divisibility = 8 : i64}, %arg3: !kcc.ptr<i32>, %arg4: !kcc.ptr<i32>, %arg5: !kcc.ptr<f16> {kcc.align = 16 : i64}) attributes {kcc.arg_names = ["c", "a", "stride", "table", "lens", "b"], kcc.base_name = "gather", kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
    %0 = kcc.load %arg4 : !kcc.ptr<i32>
    %1 = kcc.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %2 = kcc.arange {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %3 = kcc.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c32_i32 = arith.constant 32 : i32
    %4 = kcc.splat %c32_i32 : tensor<64x1xi32>
    %5 = arith.muli %3, %4 : tensor<64x1xi32>
    %6 = kcc.splat %arg5 : tensor<64x1x!kcc.ptr<f16>>
    %7 = kcc.addptr %6, %5 : tensor<64x1x!kcc.ptr<f16>>, tensor<64x1xi32>
    %8 = kcc.expand_dims %2 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %9 = kcc.broadcast %7 : tensor<64x1x!kcc.ptr<f16>> -> tensor<64x32x!kcc.ptr<f16>>
    %10 = kcc.broadcast %8 : tensor<1x32xi32> -> tensor<64x32xi32>
    %11 = kcc.addptr %9, %10 : tensor<64x32x!kcc.ptr<f16>>, tensor<64x32xi32>
    %12 = kcc.load %11 : tensor<64x32x!kcc.ptr<f16>>
    %cst = arith.constant 0.000000e+00 : f32
    %13 = kcc.splat %cst : tensor<64x32xf32>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %14 = scf.for %arg6 = %c0_i32 to %0 step %c64_i32 iter_args(%arg7 = %13) -> (tensor<64x32xf32>)  : i32 {
      %24 = kcc.splat %arg6 : tensor<64xi32>
      %25 = arith.addi %24, %1 : tensor<64xi32>
      %26 = kcc.splat %arg3 : tensor<64x!kcc.ptr<i32>>
      %27 = kcc.addptr %26, %25 : tensor<64x!kcc.ptr<i32>>, tensor<64xi32>
      %28 = kcc.splat %0 : tensor<64xi32>
      %29 = arith.cmpi slt, %25, %28 : tensor<64xi32>
      %c0_i32_1 = arith.constant 0 : i32
      %30 = kcc.splat %c0_i32_1 : tensor<64xi32>
      %31 = kcc.load %27 mask %29 other %30 : tensor<64x!kcc.ptr<i32>>
      %32 = kcc.splat %arg2 : tensor<64xi32>
      %33 = arith.muli %31, %32 : tensor<64xi32>
      %34 = kcc.expand_dims %33 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %35 = kcc.splat %arg1 : tensor<64x1x!kcc.ptr<f16>>
      %36 = kcc.addptr %35, %34 : tensor<64x1x!kcc.ptr<f16>>, tensor<64x1xi32>
      %37 = kcc.expand_dims %1 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %38 = kcc.broadcast %36 : tensor<64x1x!kcc.ptr<f16>> -> tensor<64x64x!kcc.ptr<f16>>
      %39 = kcc.broadcast %37 : tensor<1x64xi32> -> tensor<64x64xi32>
      %40 = kcc.addptr %38, %39 : tensor<64x64x!kcc.ptr<f16>>, tensor<64x64xi32>
      %41 = kcc.splat %0 : tensor<64xi32>
      %42 = arith.cmpi slt, %25, %41 : tensor<64xi32>
      %43 = kcc.expand_dims %42 {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %cst_2 = arith.constant 0.000000e+00 : f16
      %44 = kcc.broadcast %43 : tensor<64x1xi1> -> tensor<64x64xi1>
      %45 = kcc.splat %cst_2 : tensor<64x64xf16>
      %46 = kcc.load %40 mask %44 other %45 : tensor<64x64x!kcc.ptr<f16>>
      %47 = kcc.dot %46, %12, %arg7 : tensor<64x64xf16>, tensor<64x32xf16> -> tensor<64x32xf32>
      scf.yield %47 : tensor<64x32xf32>
    }
    %15 = kcc.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c32_i32_0 = arith.constant 32 : i32
    %16 = kcc.splat %c32_i32_0 : tensor<64x1xi32>
    %17 = arith.muli %15, %16 : tensor<64x1xi32>
    %18 = kcc.splat %arg0 : tensor<64x1x!kcc.ptr<f32>>
    %19 = kcc.addptr %18, %17 : tensor<64x1x!kcc.ptr<f32>>, tensor<64x1xi32>
    %20 = kcc.expand_dims %2 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %21 = kcc.broadcast %19 : tensor<64x1x!kcc.ptr<f32>> -> tensor<64x32x!kcc.ptr<f32>>
    %22 = kcc.broadcast %20 : tensor<1x32xi32> -> tensor<64x32xi32>
    %23 = kcc.addptr %21, %22 : tensor<64x32x!kcc.ptr<f32>>, tensor<64x32xi32>
    kcc.store %23, %14 : tensor<64x32x!kcc.ptr<f32>>
    return
  }
  func.func @written(%arg0: !kcc.ptr<f32>, %arg1: !kcc.ptr<f16> {kcc.align = 16 : i64}, %arg2: i32 {kcc.divisibility = 8 : i64}, %arg3: !kcc.ptr<i32>, %arg4: !kcc.ptr<i32>, %arg5: !kcc.ptr<f16> {kcc.align = 16 : i64}) attributes {kcc.arg_names = ["c", "a", "stride", "table", "lens", "b"], kcc.base_name = "written", kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
    %0 = kcc.load %arg4 : !kcc.ptr<i32>
    %1 = kcc.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %2 = kcc.arange {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %3 = kcc.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c32_i32 = arith.constant 32 : i32
    %4 = kcc.splat %c32_i32 : tensor<64x1xi32>
    %5 = arith.muli %3, %4 : tensor<64x1xi32>
    %6 = kcc.splat %arg5 : tensor<64x1x!kcc.ptr<f16>>
    %7 = kcc.addptr %6, %5 : tensor<64x1x!kcc.ptr<f16>>, tensor<64x1xi32>
    %8 = kcc.expand_dims %2 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %9 = kcc.broadcast %7 : tensor<64x1x!kcc.ptr<f16>> -> tensor<64x32x!kcc.ptr<f16>>
    %10 = kcc.broadcast %8 : tensor<1x32xi32> -> tensor<64x32xi32>
    %11 = kcc.addptr %9, %10 : tensor<64x32x!kcc.ptr<f16>>, tensor<64x32xi32>
    %12 = kcc.load %11 : tensor<64x32x!kcc.ptr<f16>>
    %cst = arith.constant 0.000000e+00 : f32
    %13 = kcc.splat %cst : tensor<64x32xf32>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %14 = scf.for %arg6 = %c0_i32 to %0 step %c64_i32 iter_args(%arg7 = %13) -> (tensor<64x32xf32>)  : i32 {
      %24 = kcc.addptr %arg3, %arg6 : !kcc.ptr<i32>, i32
      kcc.store %24, %arg6 : !kcc.ptr<i32>
      %25 = kcc.splat %arg6 : tensor<64xi32>
      %26 = arith.addi %25, %1 : tensor<64xi32>
      %27 = kcc.splat %arg3 : tensor<64x!kcc.ptr<i32>>
      %28 = kcc.addptr %27, %26 : tensor<64x!kcc.ptr<i32>>, tensor<64xi32>
      %29 = kcc.splat %0 : tensor<64xi32>
      %30 = arith.cmpi slt, %26, %29 : tensor<64xi32>
      %c0_i32_1 = arith.constant 0 : i32
      %31 = kcc.splat %c0_i32_1 : tensor<64xi32>
      %32 = kcc.load %28 mask %30 other %31 : tensor<64x!kcc.ptr<i32>>
      %33 = kcc.splat %arg2 : tensor<64xi32>
      %34 = arith.muli %32, %33 : tensor<64xi32>
      %35 = kcc.expand_dims %34 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %36 = kcc.splat %arg1 : tensor<64x1x!kcc.ptr<f16>>
      %37 = kcc.addptr %36, %35 : tensor<64x1x!kcc.ptr<f16>>, tensor<64x1xi32>
      %38 = kcc.expand_dims %1 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %39 = kcc.broadcast %37 : tensor<64x1x!kcc.ptr<f16>> -> tensor<64x64x!kcc.ptr<f16>>
      %40 = kcc.broadcast %38 : tensor<1x64xi32> -> tensor<64x64xi32>
      %41 = kcc.addptr %39, %40 : tensor<64x64x!kcc.ptr<f16>>, tensor<64x64xi32>
      %42 = kcc.splat %0 : tensor<64xi32>
      %43 = arith.cmpi slt, %26, %42 : tensor<64xi32>
      %44 = kcc.expand_dims %43 {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %cst_2 = arith.constant 0.000000e+00 : f16
      %45 = kcc.broadcast %44 : tensor<64x1xi1> -> tensor<64x64xi1>
      %46 = kcc.splat %cst_2 : tensor<64x64xf16>
      %47 = kcc.load %41 mask %45 other %46 : tensor<64x64x!kcc.ptr<f16>>
      %48 = kcc.dot %47, %12, %arg7 : tensor<64x64xf16>, tensor<64x32xf16> -> tensor<64x32xf32>
      scf.yield %48 : tensor<64x32xf32>
    }
    %15 = kcc.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c32_i32_0 = arith.constant 32 : i32
    %16 = kcc.splat %c32_i32_0 : tensor<64x1xi32>
    %17 = arith.muli %15, %16 : tensor<64x1xi32>
    %18 = kcc.splat %arg0 : tensor<64x1x!kcc.ptr<f32>>
    %19 = kcc.addptr %18, %17 : tensor<64x1x!kcc.ptr<f32>>, tensor<64x1xi32>
    %20 = kcc.expand_dims %2 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %21 = kcc.broadcast %19 : tensor<64x1x!kcc.ptr<f32>> -> tensor<64x32x!kcc.ptr<f32>>
    %22 = kcc.broadcast %20 : tensor<1x32xi32> -> tensor<64x32xi32>
    %23 = kcc.addptr %21, %22 : tensor<64x32x!kcc.ptr<f32>>, tensor<64x32xi32>
    kcc.store %23, %14 : tensor<64x32x!kcc.ptr<f32>>
    return
  }
  func.func @unaligned(%arg0: !kcc.ptr<f32>, %arg1: !kcc.ptr<f16> {kcc.align = 16 : i64}, %arg2: i32, %arg3: !kcc.ptr<i32>, %arg4: !kcc.ptr<i32>, %arg5: !kcc.ptr<f16> {kcc.align = 16 : i64}) attributes {kcc.arg_names = ["c", "a", "stride", "table", "lens", "b"], kcc.base_name = "unaligned", kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
    %0 = kcc.load %arg4 : !kcc.ptr<i32>
    %1 = kcc.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %2 = kcc.arange {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %3 = kcc.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c32_i32 = arith.constant 32 : i32
    %4 = kcc.splat %c32_i32 : tensor<64x1xi32>
    %5 = arith.muli %3, %4 : tensor<64x1xi32>
    %6 = kcc.splat %arg5 : tensor<64x1x!kcc.ptr<f16>>
    %7 = kcc.addptr %6, %5 : tensor<64x1x!kcc.ptr<f16>>, tensor<64x1xi32>
    %8 = kcc.expand_dims %2 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %9 = kcc.broadcast %7 : tensor<64x1x!kcc.ptr<f16>> -> tensor<64x32x!kcc.ptr<f16>>
    %10 = kcc.broadcast %8 : tensor<1x32xi32> -> tensor<64x32xi32>
    %11 = kcc.addptr %9, %10 : tensor<64x32x!kcc.ptr<f16>>, tensor<64x32xi32>
    %12 = kcc.load %11 : tensor<64x32x!kcc.ptr<f16>>
    %cst = arith.constant 0.000000e+00 : f32
    %13 = kcc.splat %cst : tensor<64x32xf32>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %14 = scf.for %arg6 = %c0_i32 to %0 step %c64_i32 iter_args(%arg7 = %13) -> (tensor<64x32xf32>)  : i32 {
      %24 = kcc.splat %arg6 : tensor<64xi32>
      %25 = arith.addi %24, %1 : tensor<64xi32>
      %26 = kcc.splat %arg3 : tensor<64x!kcc.ptr<i32>>
      %27 = kcc.addptr %26, %25 : tensor<64x!kcc.ptr<i32>>, tensor<64xi32>
      %28 = kcc.splat %0 : tensor<64xi32>
      %29 = arith.cmpi slt, %25, %28 : tensor<64xi32>
      %c0_i32_1 = arith.constant 0 : i32
      %30 = kcc.splat %c0_i32_1 : tensor<64xi32>
      %31 = kcc.load %27 mask %29 other %30 : tensor<64x!kcc.ptr<i32>>
      %32 = kcc.splat %arg2 : tensor<64xi32>
      %33 = arith.muli %31, %32 : tensor<64xi32>
      %34 = kcc.expand_dims %33 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %35 = kcc.splat %arg1 : tensor<64x1x!kcc.ptr<f16>>
      %36 = kcc.addptr %35, %34 : tensor<64x1x!kcc.ptr<f16>>, tensor<64x1xi32>
      %37 = kcc.expand_dims %1 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %38 = kcc.broadcast %36 : tensor<64x1x!kcc.ptr<f16>> -> tensor<64x64x!kcc.ptr<f16>>
      %39 = kcc.broadcast %37 : tensor<1x64xi32> -> tensor<64x64xi32>
      %40 = kcc.addptr %38, %39 : tensor<64x64x!kcc.ptr<f16>>, tensor<64x64xi32>
      %41 = kcc.splat %0 : tensor<64xi32>
      %42 = arith.cmpi slt, %25, %41 : tensor<64xi32>
      %43 = kcc.expand_dims %42 {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %cst_2 = arith.constant 0.000000e+00 : f16
      %44 = kcc.broadcast %43 : tensor<64x1xi1> -> tensor<64x64xi1>
      %45 = kcc.splat %cst_2 : tensor<64x64xf16>
      %46 = kcc.load %40 mask %44 other %45 : tensor<64x64x!kcc.ptr<f16>>
      %47 = kcc.dot %46, %12, %arg7 : tensor<64x64xf16>, tensor<64x32xf16> -> tensor<64x32xf32>
      scf.yield %47 : tensor<64x32xf32>
    }
    %15 = kcc.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c32_i32_0 = arith.constant 32 : i32
    %16 = kcc.splat %c32_i32_0 : tensor<64x1xi32>
    %17 = arith.muli %15, %16 : tensor<64x1xi32>
    %18 = kcc.splat %arg0 : tensor<64x1x!kcc.ptr<f32>>
    %19 = kcc.addptr %18, %17 : tensor<64x1x!kcc.ptr<f32>>, tensor<64x1xi32>
    %20 = kcc.expand_dims %2 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %21 = kcc.broadcast %19 : tensor<64x1x!kcc.ptr<f32>> -> tensor<64x32x!kcc.ptr<f32>>
    %22 = kcc.broadcast %20 : tensor<1x32xi32> -> tensor<64x32xi32>
    %23 = kcc.addptr %21, %22 : tensor<64x32x!kcc.ptr<f32>>, tensor<64x32xi32>
    kcc.store %23, %14 : tensor<64x32x!kcc.ptr<f32>>
    return
  }
