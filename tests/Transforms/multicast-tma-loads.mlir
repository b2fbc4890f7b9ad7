// RUN: kcc-opt %s --split-input-file --kcc-multicast-tma-loads | FileCheck %s
// RUN: kcc-opt %s --split-input-file --kcc-multicast-tma-loads=target=sm_80 | FileCheck %s --check-prefix=SM80

// A GEMM paired by kcc-rasterize-programs (kcc.cluster = 2), as the layout
// pipeline leaves it before this pass (tests/e2e/passes/Inputs/cluster-gemm.kc;
// report strings left out). B's coordinates come from the cluster's index
// (program_id(0) / 2) and the loop counter: it becomes a multicast copy. A's
// come from the CTA's tile row (program_id(0) % 2): it stays the CTA's own.
// The stage-empty barrier (%4, which the producer waits on) counts both
// CTAs' releases, which arrive on both; cluster barriers follow the fence
// and precede the return.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: kcc.cluster = 2 : i32
// CHECK: kcc.mbarrier_init %4[%c0_i32], count 4
// CHECK: kcc.fence_mbarrier_init
// CHECK-NEXT: kcc.cluster_barrier
// CHECK: kcc.tma_load %arg12
// CHECK-NOT: multicast
// CHECK-SAME: <4>
// CHECK: kcc.tma_load %arg13{{.*}}{multicast = 2 : i32, parts = 2 : i32}
// CHECK: kcc.mbarrier_arrive %4[%{{[0-9]+}}] per_warpgroup cluster
// CHECK: kcc.cluster_barrier
// CHECK-NEXT: return
// sm_80 has no clusters: the kernel keeps its paired order, launched plain.
// SM80-LABEL: func.func @gemm(
// SM80-SAME: kcc.cluster_refused = "target 'sm_80' has no thread-block clusters with TMA multicast"
// SM80-NOT: kcc.cluster =
// SM80-NOT: multicast =
// SM80-NOT: kcc.cluster_barrier
module attributes {kcc.target = "sm_90a"} {
  func.func @gemm(%arg0: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 8 : i64}, %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64}, %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64}, %arg12: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 4 : i32}, %arg13: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 8 : i32}, %arg14: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 0 : i32}) attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "a", "a_dim0", "a_dim1", "a_stride0", "b", "b_dim0", "b_dim1", "b_stride0", "a_map_128_64", "b_map_64_64", "c_map_128_64"], kcc.base_name = "gemm", kcc.cluster = 2 : i32, kcc.constant_names = ["BM", "BN", "BK"], kcc.coverage = [{stores = 1 : i32, tensor = "c"}], kcc.grid = ["(((((c_dim1) + (128) - 1) / (128))) < 0 || ((((c_dim0) + (128) - 1) / (128))) < 0 ? -1 : ((((c_dim1) + (128) - 1) / (128))) * ((((((c_dim0) + (128) - 1) / (128))) + 1) / 2 * 2))", "1", "1"], kcc.kernel, kcc.num_warps = 8 : i32, kcc.producer_warps = 4 : i32, kcc.raster_group = 8 : i32, kcc.specialization = {BK = 64 : i32, BM = 128 : i32, BN = 128 : i32}} {
    %c63_i32 = arith.constant 63 : i32
    %c127_i32 = arith.constant 127 : i32
    %cst = arith.constant dense<128> : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c8_i32 = arith.constant 8 : i32
    %c64_i32 = arith.constant 64 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128_i32 = arith.constant 128 : i32
    %c3_i32 = arith.constant 3 : i32
    %c2_i32 = arith.constant 2 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = kcc.smem_alloc : <[128, 64], f16, stages = 4, swizzle = 128>
    %1 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %1[%c0_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c1_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c2_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c3_i32], count 1 : <4>
    %2 = kcc.smem_alloc : <[64, 128], f16, stages = 4, swizzle = 128>
    %3 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %3[%c0_i32], count 1 : <4>
    kcc.mbarrier_init %3[%c1_i32], count 1 : <4>
    kcc.mbarrier_init %3[%c2_i32], count 1 : <4>
    kcc.mbarrier_init %3[%c3_i32], count 1 : <4>
    %4 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %4[%c0_i32], count 2 : <4>
    kcc.mbarrier_init %4[%c1_i32], count 2 : <4>
    kcc.mbarrier_init %4[%c2_i32], count 2 : <4>
    kcc.mbarrier_init %4[%c3_i32], count 2 : <4>
    kcc.fence_mbarrier_init
    %5 = kcc.smem_alloc : <[128, 128], f16, stages = 1, swizzle = 128>
    kcc.warp_specialize producer(warps = 4, regs = 24) {
      %6 = arith.addi %arg2, %c127_i32 : i32
      %7 = arith.divsi %6, %c128_i32 : i32
      %8 = arith.addi %arg1, %c127_i32 : i32
      %9 = arith.divsi %8, %c128_i32 : i32
      %10 = kcc.program_id(0) : i32
      %11 = arith.remsi %10, %c2_i32 : i32
      %12 = arith.divsi %10, %c2_i32 : i32
      %13 = arith.addi %9, %c1_i32 : i32
      %14 = arith.divsi %13, %c2_i32 : i32
      %15 = arith.muli %7, %c4_i32 : i32
      %16 = arith.maxsi %15, %c1_i32 : i32
      %17 = arith.divsi %12, %16 : i32
      %18 = arith.muli %17, %c4_i32 : i32
      %19 = arith.subi %14, %18 : i32
      %20 = arith.minsi %19, %c4_i32 : i32
      %21 = arith.maxsi %20, %c1_i32 : i32
      %22 = arith.remsi %12, %16 : i32
      %23 = arith.remsi %22, %21 : i32
      %24 = arith.addi %18, %23 : i32
      %25 = arith.divsi %22, %21 : i32
      %26 = arith.subi %9, %c1_i32 : i32
      %27 = arith.maxsi %26, %c0_i32 : i32
      %28 = arith.muli %24, %c2_i32 : i32
      %29 = arith.addi %28, %11 : i32
      %30 = arith.minsi %29, %27 : i32
      %31 = arith.addi %arg6, %c63_i32 : i32
      %32 = arith.divsi %31, %c64_i32 : i32
      scf.for %arg15 = %c0_i32 to %32 step %c1_i32  : i32 {
        %33 = arith.remui %arg15, %c4_i32 : i32
        %34 = arith.cmpi sge, %arg15, %c4_i32 : i32
        scf.if %34 {
          %38 = arith.divui %arg15, %c4_i32 : i32
          %39 = arith.subi %38, %c1_i32 : i32
          %40 = arith.andi %39, %c1_i32 : i32
          kcc.mbarrier_wait %4[%33], parity %40 : <4>
        }
        %35 = arith.muli %30, %c128_i32 : i32
        %36 = arith.muli %arg15, %c64_i32 : i32
        kcc.mbarrier_arrive_expect_tx %1[%33], bytes 16384 : <4>
        kcc.tma_load %arg12[%35, %36] -> %0[%33], %1[%33]  : <[128, 64], f16, swizzle = 128>, <[128, 64], f16, stages = 4, swizzle = 128>, <4>
        %37 = arith.muli %25, %c128_i32 : i32
        kcc.mbarrier_arrive_expect_tx %3[%33], bytes 16384 : <4>
        kcc.tma_load %arg13[%36, %37] -> %2[%33], %3[%33] {parts = 2 : i32} : <[64, 64], f16, swizzle = 128>, <[64, 128], f16, stages = 4, swizzle = 128>, <4>
      }
    } consumer(warpgroups = 2, regs = 240) {
      %6 = arith.addi %arg2, %c127_i32 : i32
      %7 = arith.divsi %6, %c128_i32 : i32
      %8 = arith.addi %arg1, %c127_i32 : i32
      %9 = arith.divsi %8, %c128_i32 : i32
      %10 = kcc.program_id(0) : i32
      %11 = arith.remsi %10, %c2_i32 : i32
      %12 = arith.divsi %10, %c2_i32 : i32
      %13 = arith.addi %9, %c1_i32 : i32
      %14 = arith.divsi %13, %c2_i32 : i32
      %15 = arith.muli %7, %c4_i32 : i32
      %16 = arith.maxsi %15, %c1_i32 : i32
      %17 = arith.divsi %12, %16 : i32
      %18 = arith.muli %17, %c4_i32 : i32
      %19 = arith.subi %14, %18 : i32
      %20 = arith.minsi %19, %c4_i32 : i32
      %21 = arith.maxsi %20, %c1_i32 : i32
      %22 = arith.remsi %12, %16 : i32
      %23 = arith.remsi %22, %21 : i32
      %24 = arith.addi %18, %23 : i32
      %25 = arith.divsi %22, %21 : i32
      %26 = arith.subi %9, %c1_i32 : i32
      %27 = arith.maxsi %26, %c0_i32 : i32
      %28 = arith.muli %24, %c2_i32 : i32
      %29 = arith.addi %28, %11 : i32
      %30 = arith.minsi %29, %27 : i32
      %31 = kcc.splat %cst_0 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
      %32 = arith.addi %arg6, %c63_i32 : i32
      %33 = arith.divsi %32, %c64_i32 : i32
      %34 = arith.cmpi sgt, %33, %c0_i32 : i32
      %35 = scf.if %34 -> (tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>) {
        %45 = scf.for %arg15 = %c0_i32 to %33 step %c1_i32 iter_args(%arg16 = %31) -> (tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>)  : i32 {
          %47 = arith.remui %arg15, %c4_i32 : i32
          %48 = arith.divui %arg15, %c4_i32 : i32
          %49 = arith.andi %48, %c1_i32 : i32
          kcc.mbarrier_wait %1[%47], parity %49 : <4>
          kcc.mbarrier_wait %3[%47], parity %49 : <4>
          %50 = kcc.warpgroup_mma %0[%47], %2[%47], %arg16 {a_k_major = true, b_k_major = false, pending = 1 : i32} : <[128, 64], f16, stages = 4, swizzle = 128>, <[64, 128], f16, stages = 4, swizzle = 128>, tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %51 = arith.cmpi sge, %arg15, %c1_i32 : i32
          scf.if %51 {
            %52 = arith.addi %arg15, %c3_i32 : i32
            %53 = arith.remui %52, %c4_i32 : i32
            kcc.mbarrier_arrive %4[%53] per_warpgroup : <4>
          }
          scf.yield %50 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
        } {kcc.mma_overlap}
        %46 = kcc.warpgroup_mma_wait 0 %45 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
        scf.yield %46 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
      } else {
        scf.yield %31 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
      }
      %36 = arith.truncf %35 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>> to tensor<128x128xf16, #kcc.wgmma_acc<warpgroups = 2>>
      %37 = arith.remsi %arg2, %c8_i32 : i32
      %38 = arith.cmpi eq, %37, %c0_i32 : i32
      %39 = arith.maxsi %arg2, %c0_i32 : i32
      %40 = arith.divsi %39, %c128_i32 : i32
      %41 = arith.cmpi slt, %25, %40 : i32
      %42 = arith.ori %38, %41 : i1
      %43 = arith.cmpi sge, %25, %c0_i32 : i32
      %44 = arith.andi %42, %43 : i1
      scf.if %44 {
        kcc.cta_barrier
        kcc.smem_store %36, %5[%c0_i32] : tensor<128x128xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[128, 128], f16, stages = 1, swizzle = 128>
        kcc.fence_proxy_async
        kcc.cta_barrier
        %45 = arith.muli %30, %c128_i32 : i32
        %46 = arith.muli %25, %c128_i32 : i32
        kcc.tma_store %5[%c0_i32] -> %arg14[%45, %46] {parts = 2 : i32} : <[128, 128], f16, stages = 1, swizzle = 128>, <[128, 64], f16, swizzle = 128>
        kcc.bulk_commit_group
      } else {
        kcc.cta_barrier
        kcc.smem_store %36, %5[%c0_i32] : tensor<128x128xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[128, 128], f16, stages = 1, swizzle = 128>
        kcc.cta_barrier
        %45 = kcc.smem_load %5[%c0_i32] {kcc.access_width = 8 : i32} : <[128, 128], f16, stages = 1, swizzle = 128> -> tensor<128x128xf16, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %46 = kcc.arange {end = 16384 : i32, start = 0 : i32} : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %47 = arith.divui %46, %cst : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %48 = arith.muli %30, %c128_i32 : i32
        %49 = kcc.splat %48 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %50 = arith.addi %49, %47 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %51 = arith.maxsi %arg1, %c0_i32 : i32
        %52 = kcc.splat %51 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %53 = arith.cmpi ult, %50, %52 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %54 = arith.extui %50 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>> to tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %55 = arith.extsi %arg3 : i32 to i64
        %56 = kcc.splat %55 : tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %57 = arith.muli %54, %56 : tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %58 = arith.remui %46, %cst : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %59 = arith.muli %25, %c128_i32 : i32
        %60 = kcc.splat %59 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %61 = arith.addi %60, %58 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %62 = kcc.splat %39 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %63 = arith.cmpi ult, %61, %62 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %64 = arith.andi %53, %63 : tensor<16384xi1, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %65 = arith.extui %61 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>> to tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %66 = arith.addi %57, %65 : tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %67 = kcc.splat %arg0 : tensor<16384x!kcc.ptr<f16>, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %68 = kcc.addptr %67, %66 : tensor<16384x!kcc.ptr<f16>, #kcc.blocked<vec = 8, threads = 256, warp = 32>>, tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %69 = kcc.reshape %45 : tensor<128x128xf16, #kcc.blocked<vec = 8, threads = 256, warp = 32>> -> tensor<16384xf16, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        kcc.store %68, %69 mask %64 {kcc.access_width = 8 : i32, kcc.tile_access = "this tile reaches into the partial last 16-byte granule of the tensor's rows, which a TMA store would overwrite past the edge: masked vector stores, chosen at run time"} : tensor<16384x!kcc.ptr<f16>, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
      } {kcc.data_dependent}
      kcc.bulk_wait_group 0 read
    } {kcc.ping_pong_refused = "not a persistent kernel: consumer groups take alternate tiles of its tile loop (kcc --persistent)"}
    return
  }
}

// -----

// The producer's K loop bound depends on the CTA's rank: the two CTAs would
// run different copies, so nothing is multicast and the launch is plain.
// CHECK-LABEL: func.func @gemm_divergent(
// SM80-LABEL: func.func @gemm_divergent(
// CHECK-SAME: kcc.cluster_refused = "the pipeline runs under control flow that differs between the cluster's CTAs ({{.*}}multicast-tma-loads.mlir:{{[0-9]+}}:{{[0-9]+}})"
// CHECK-NOT: multicast
// CHECK-NOT: kcc.cluster_barrier
// CHECK-NOT: per_warpgroup cluster
module attributes {kcc.target = "sm_90a"} {
  func.func @gemm_divergent(%arg0: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 8 : i64}, %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64}, %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64}, %arg12: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 4 : i32}, %arg13: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 8 : i32}, %arg14: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 0 : i32}) attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "a", "a_dim0", "a_dim1", "a_stride0", "b", "b_dim0", "b_dim1", "b_stride0", "a_map_128_64", "b_map_64_64", "c_map_128_64"], kcc.base_name = "gemm", kcc.cluster = 2 : i32, kcc.constant_names = ["BM", "BN", "BK"], kcc.coverage = [{stores = 1 : i32, tensor = "c"}], kcc.grid = ["(((((c_dim1) + (128) - 1) / (128))) < 0 || ((((c_dim0) + (128) - 1) / (128))) < 0 ? -1 : ((((c_dim1) + (128) - 1) / (128))) * ((((((c_dim0) + (128) - 1) / (128))) + 1) / 2 * 2))", "1", "1"], kcc.kernel, kcc.num_warps = 8 : i32, kcc.producer_warps = 4 : i32, kcc.raster_group = 8 : i32, kcc.specialization = {BK = 64 : i32, BM = 128 : i32, BN = 128 : i32}} {
    %c63_i32 = arith.constant 63 : i32
    %c127_i32 = arith.constant 127 : i32
    %cst = arith.constant dense<128> : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c8_i32 = arith.constant 8 : i32
    %c64_i32 = arith.constant 64 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128_i32 = arith.constant 128 : i32
    %c3_i32 = arith.constant 3 : i32
    %c2_i32 = arith.constant 2 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = kcc.smem_alloc : <[128, 64], f16, stages = 4, swizzle = 128>
    %1 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %1[%c0_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c1_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c2_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c3_i32], count 1 : <4>
    %2 = kcc.smem_alloc : <[64, 128], f16, stages = 4, swizzle = 128>
    %3 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %3[%c0_i32], count 1 : <4>
    kcc.mbarrier_init %3[%c1_i32], count 1 : <4>
    kcc.mbarrier_init %3[%c2_i32], count 1 : <4>
    kcc.mbarrier_init %3[%c3_i32], count 1 : <4>
    %4 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %4[%c0_i32], count 2 : <4>
    kcc.mbarrier_init %4[%c1_i32], count 2 : <4>
    kcc.mbarrier_init %4[%c2_i32], count 2 : <4>
    kcc.mbarrier_init %4[%c3_i32], count 2 : <4>
    kcc.fence_mbarrier_init
    %5 = kcc.smem_alloc : <[128, 128], f16, stages = 1, swizzle = 128>
    kcc.warp_specialize producer(warps = 4, regs = 24) {
      %6 = arith.addi %arg2, %c127_i32 : i32
      %7 = arith.divsi %6, %c128_i32 : i32
      %8 = arith.addi %arg1, %c127_i32 : i32
      %9 = arith.divsi %8, %c128_i32 : i32
      %10 = kcc.program_id(0) : i32
      %11 = arith.remsi %10, %c2_i32 : i32
      %12 = arith.divsi %10, %c2_i32 : i32
      %13 = arith.addi %9, %c1_i32 : i32
      %14 = arith.divsi %13, %c2_i32 : i32
      %15 = arith.muli %7, %c4_i32 : i32
      %16 = arith.maxsi %15, %c1_i32 : i32
      %17 = arith.divsi %12, %16 : i32
      %18 = arith.muli %17, %c4_i32 : i32
      %19 = arith.subi %14, %18 : i32
      %20 = arith.minsi %19, %c4_i32 : i32
      %21 = arith.maxsi %20, %c1_i32 : i32
      %22 = arith.remsi %12, %16 : i32
      %23 = arith.remsi %22, %21 : i32
      %24 = arith.addi %18, %23 : i32
      %25 = arith.divsi %22, %21 : i32
      %26 = arith.subi %9, %c1_i32 : i32
      %27 = arith.maxsi %26, %c0_i32 : i32
      %28 = arith.muli %24, %c2_i32 : i32
      %29 = arith.addi %28, %11 : i32
      %30 = arith.minsi %29, %27 : i32
      %31 = arith.addi %arg6, %c63_i32 : i32
      %32 = arith.divsi %31, %c64_i32 : i32
      %byrank = arith.addi %32, %11 : i32
      scf.for %arg15 = %c0_i32 to %byrank step %c1_i32  : i32 {
        %33 = arith.remui %arg15, %c4_i32 : i32
        %34 = arith.cmpi sge, %arg15, %c4_i32 : i32
        scf.if %34 {
          %38 = arith.divui %arg15, %c4_i32 : i32
          %39 = arith.subi %38, %c1_i32 : i32
          %40 = arith.andi %39, %c1_i32 : i32
          kcc.mbarrier_wait %4[%33], parity %40 : <4>
        }
        %35 = arith.muli %30, %c128_i32 : i32
        %36 = arith.muli %arg15, %c64_i32 : i32
        kcc.mbarrier_arrive_expect_tx %1[%33], bytes 16384 : <4>
        kcc.tma_load %arg12[%35, %36] -> %0[%33], %1[%33]  : <[128, 64], f16, swizzle = 128>, <[128, 64], f16, stages = 4, swizzle = 128>, <4>
        %37 = arith.muli %25, %c128_i32 : i32
        kcc.mbarrier_arrive_expect_tx %3[%33], bytes 16384 : <4>
        kcc.tma_load %arg13[%36, %37] -> %2[%33], %3[%33] {parts = 2 : i32} : <[64, 64], f16, swizzle = 128>, <[64, 128], f16, stages = 4, swizzle = 128>, <4>
      }
    } consumer(warpgroups = 2, regs = 240) {
      %6 = arith.addi %arg2, %c127_i32 : i32
      %7 = arith.divsi %6, %c128_i32 : i32
      %8 = arith.addi %arg1, %c127_i32 : i32
      %9 = arith.divsi %8, %c128_i32 : i32
      %10 = kcc.program_id(0) : i32
      %11 = arith.remsi %10, %c2_i32 : i32
      %12 = arith.divsi %10, %c2_i32 : i32
      %13 = arith.addi %9, %c1_i32 : i32
      %14 = arith.divsi %13, %c2_i32 : i32
      %15 = arith.muli %7, %c4_i32 : i32
      %16 = arith.maxsi %15, %c1_i32 : i32
      %17 = arith.divsi %12, %16 : i32
      %18 = arith.muli %17, %c4_i32 : i32
      %19 = arith.subi %14, %18 : i32
      %20 = arith.minsi %19, %c4_i32 : i32
      %21 = arith.maxsi %20, %c1_i32 : i32
      %22 = arith.remsi %12, %16 : i32
      %23 = arith.remsi %22, %21 : i32
      %24 = arith.addi %18, %23 : i32
      %25 = arith.divsi %22, %21 : i32
      %26 = arith.subi %9, %c1_i32 : i32
      %27 = arith.maxsi %26, %c0_i32 : i32
      %28 = arith.muli %24, %c2_i32 : i32
      %29 = arith.addi %28, %11 : i32
      %30 = arith.minsi %29, %27 : i32
      %31 = kcc.splat %cst_0 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
      %32 = arith.addi %arg6, %c63_i32 : i32
      %33 = arith.divsi %32, %c64_i32 : i32
      %34 = arith.cmpi sgt, %33, %c0_i32 : i32
      %35 = scf.if %34 -> (tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>) {
        %45 = scf.for %arg15 = %c0_i32 to %33 step %c1_i32 iter_args(%arg16 = %31) -> (tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>)  : i32 {
          %47 = arith.remui %arg15, %c4_i32 : i32
          %48 = arith.divui %arg15, %c4_i32 : i32
          %49 = arith.andi %48, %c1_i32 : i32
          kcc.mbarrier_wait %1[%47], parity %49 : <4>
          kcc.mbarrier_wait %3[%47], parity %49 : <4>
          %50 = kcc.warpgroup_mma %0[%47], %2[%47], %arg16 {a_k_major = true, b_k_major = false, pending = 1 : i32} : <[128, 64], f16, stages = 4, swizzle = 128>, <[64, 128], f16, stages = 4, swizzle = 128>, tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %51 = arith.cmpi sge, %arg15, %c1_i32 : i32
          scf.if %51 {
            %52 = arith.addi %arg15, %c3_i32 : i32
            %53 = arith.remui %52, %c4_i32 : i32
            kcc.mbarrier_arrive %4[%53] per_warpgroup : <4>
          }
          scf.yield %50 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
        } {kcc.mma_overlap}
        %46 = kcc.warpgroup_mma_wait 0 %45 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
        scf.yield %46 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
      } else {
        scf.yield %31 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
      }
      %36 = arith.truncf %35 : tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>> to tensor<128x128xf16, #kcc.wgmma_acc<warpgroups = 2>>
      %37 = arith.remsi %arg2, %c8_i32 : i32
      %38 = arith.cmpi eq, %37, %c0_i32 : i32
      %39 = arith.maxsi %arg2, %c0_i32 : i32
      %40 = arith.divsi %39, %c128_i32 : i32
      %41 = arith.cmpi slt, %25, %40 : i32
      %42 = arith.ori %38, %41 : i1
      %43 = arith.cmpi sge, %25, %c0_i32 : i32
      %44 = arith.andi %42, %43 : i1
      scf.if %44 {
        kcc.cta_barrier
        kcc.smem_store %36, %5[%c0_i32] : tensor<128x128xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[128, 128], f16, stages = 1, swizzle = 128>
        kcc.fence_proxy_async
        kcc.cta_barrier
        %45 = arith.muli %30, %c128_i32 : i32
        %46 = arith.muli %25, %c128_i32 : i32
        kcc.tma_store %5[%c0_i32] -> %arg14[%45, %46] {parts = 2 : i32} : <[128, 128], f16, stages = 1, swizzle = 128>, <[128, 64], f16, swizzle = 128>
        kcc.bulk_commit_group
      } else {
        kcc.cta_barrier
        kcc.smem_store %36, %5[%c0_i32] : tensor<128x128xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[128, 128], f16, stages = 1, swizzle = 128>
        kcc.cta_barrier
        %45 = kcc.smem_load %5[%c0_i32] {kcc.access_width = 8 : i32} : <[128, 128], f16, stages = 1, swizzle = 128> -> tensor<128x128xf16, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %46 = kcc.arange {end = 16384 : i32, start = 0 : i32} : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %47 = arith.divui %46, %cst : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %48 = arith.muli %30, %c128_i32 : i32
        %49 = kcc.splat %48 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %50 = arith.addi %49, %47 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %51 = arith.maxsi %arg1, %c0_i32 : i32
        %52 = kcc.splat %51 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %53 = arith.cmpi ult, %50, %52 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %54 = arith.extui %50 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>> to tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %55 = arith.extsi %arg3 : i32 to i64
        %56 = kcc.splat %55 : tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %57 = arith.muli %54, %56 : tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %58 = arith.remui %46, %cst : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %59 = arith.muli %25, %c128_i32 : i32
        %60 = kcc.splat %59 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %61 = arith.addi %60, %58 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %62 = kcc.splat %39 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %63 = arith.cmpi ult, %61, %62 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %64 = arith.andi %53, %63 : tensor<16384xi1, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %65 = arith.extui %61 : tensor<16384xi32, #kcc.blocked<vec = 8, threads = 256, warp = 32>> to tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %66 = arith.addi %57, %65 : tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %67 = kcc.splat %arg0 : tensor<16384x!kcc.ptr<f16>, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %68 = kcc.addptr %67, %66 : tensor<16384x!kcc.ptr<f16>, #kcc.blocked<vec = 8, threads = 256, warp = 32>>, tensor<16384xi64, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        %69 = kcc.reshape %45 : tensor<128x128xf16, #kcc.blocked<vec = 8, threads = 256, warp = 32>> -> tensor<16384xf16, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
        kcc.store %68, %69 mask %64 {kcc.access_width = 8 : i32, kcc.tile_access = "this tile reaches into the partial last 16-byte granule of the tensor's rows, which a TMA store would overwrite past the edge: masked vector stores, chosen at run time"} : tensor<16384x!kcc.ptr<f16>, #kcc.blocked<vec = 8, threads = 256, warp = 32>>
      } {kcc.data_dependent}
      kcc.bulk_wait_group 0 read
    } {kcc.ping_pong_refused = "not a persistent kernel: consumer groups take alternate tiles of its tile loop (kcc --persistent)"}
    return
  }
}
