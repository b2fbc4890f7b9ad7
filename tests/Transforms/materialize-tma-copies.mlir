// kcc-materialize-tma-copies: a load_tile / store_tile with a tensor map
// (kcc-add-tensor-maps) becomes the async IR of a TMA copy: an mbarrier and a
// stage, expect_tx of the full box, the copy, the wait and the stage read;
// a store goes through the stage behind a proxy fence, under a run-time
// guard that falls back to the masked store_tile where the tile reaches
// into the partial last 16-byte granule of a row. The input is kernel
// `scale` of add-tensor-maps.mlir after kcc-add-tensor-maps=targets=sm_90a.
// RUN: kcc-opt %s --kcc-materialize-tma-copies=target=sm_90a | FileCheck %s
// RUN: kcc-opt %s --kcc-materialize-tma-copies=target=sm_80 | FileCheck %s --check-prefix=SM80 \
// RUN:   --implicit-check-not=kcc.tma_load --implicit-check-not=kcc.tma_store
// RUN: not kcc-opt %s --kcc-materialize-tma-copies=target=sm_99z -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTARGET

// CHECK-LABEL: func.func @scale(
// CHECK: %[[BARS:.*]] = kcc.mbarrier_alloc : <1>
// CHECK: kcc.mbarrier_init %[[BARS]][%{{.*}}], count 1 : <1>
// CHECK: kcc.fence_mbarrier_init
// CHECK: %[[STAGE:.*]] = kcc.smem_alloc : <[16, 64], f32, stages = 1, swizzle = 0>
// expect_tx counts the full box (16 x 64 x 4 bytes), also at the edge.
// CHECK: kcc.mbarrier_arrive_expect_tx %[[BARS]][%{{.*}}], bytes 4096 : <1>
// The box's element coordinates: block coordinates times the box.
// CHECK: %[[Y:.*]] = arith.muli %{{.*}}, %c16_i32
// CHECK: %[[X:.*]] = arith.muli %{{.*}}, %c64_i32
// CHECK: kcc.tma_load %arg9[%[[Y]], %[[X]]] -> %[[STAGE]][%{{.*}}], %[[BARS]][%{{.*}}] {kcc.tile_access = "TMA box [16, 64] x f32 (4096 bytes, expect_tx counts the full box; out-of-tensor elements read 0; tensor map 'src_map_16_64')"}
// CHECK: kcc.mbarrier_wait %[[BARS]][%{{.*}}], parity %{{.*}} : <1>
// CHECK: %[[T:.*]] = kcc.smem_load %[[STAGE]][%{{.*}}] : <[16, 64], f32, stages = 1, swizzle = 0> -> tensor<16x64xf32>
// CHECK: %[[V:.*]] = arith.mulf %[[T]]
// The store guard: the inner size is a multiple of 16 bytes, or the tile
// ends before the partial last granule; the stage is reused once every
// thread has read it.
// CHECK: arith.remsi %arg2, %c4_i32
// CHECK: scf.if
// CHECK-NEXT: kcc.cta_barrier
// CHECK: kcc.smem_store %[[V]], %[[STAGE]][%{{.*}}]
// CHECK-NEXT: kcc.fence_proxy_async
// CHECK-NEXT: kcc.cta_barrier
// CHECK: kcc.tma_store %[[STAGE]][%{{.*}}] -> %arg10[%{{.*}}, %{{.*}}] {kcc.tile_access = "TMA box [16, 64] x f32 (4096 bytes; clipped at the tensor's edge; tensor map 'dst_map_16_64')"}
// CHECK-NEXT: kcc.bulk_commit_group
// CHECK-NEXT: } else {
// CHECK-NEXT: kcc.store_tile %[[V]], %arg0{{.*}} {kcc.tma_refused = "this tile reaches into the partial last 16-byte granule of the tensor's rows, which a TMA store would overwrite past the edge: masked vector stores, chosen at run time"}
// CHECK-NEXT: } {kcc.data_dependent}
// CHECK-NEXT: kcc.bulk_wait_group 0 read
// CHECK-NEXT: return

// No TMA on sm_80: nothing materialized, and the reason.
// SM80-COUNT-2: kcc.tma_refused = "target 'sm_80' has no TMA"

// BADTARGET: error: kcc-materialize-tma-copies: unknown target 'sm_99z'

func.func @scale(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
                 %arg4: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 4 : i64}, %arg8: f32,
                 %arg9: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 4 : i32}, %arg10: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 0 : i32})
    attributes {kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "s", "src_map_16_64", "dst_map_16_64"],
                kcc.base_name = "scale", kcc.constant_names = [],
                kcc.grid = ["(((src_dim1) + (64) - 1) / (64))", "(((src_dim0) + (16) - 1) / (16))", "1"], kcc.kernel, kcc.specialization = {}} {
  %0 = kcc.program_id(1) : i32
  %1 = kcc.program_id(0) : i32
  %2 = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%0, %1] : !kcc.ptr<f32> -> tensor<16x64xf32>
  %3 = kcc.splat %arg8 : tensor<16x64xf32>
  %4 = arith.mulf %2, %3 : tensor<16x64xf32>
  kcc.store_tile %4, %arg0[%arg1, %arg2] strides[%arg3] at[%0, %1] : tensor<16x64xf32>, !kcc.ptr<f32>
  return
}

// A copy issues as early as what it reads allows (its coordinates, map,
// stage and barriers), so that it overlaps the work before the tile's first
// use (the K loop ahead of a GEMM epilogue's bias); the wait stays at the
// first use.
// CHECK-LABEL: func.func @prefetch(
// CHECK: kcc.fence_mbarrier_init
// CHECK: %[[P:.*]] = kcc.program_id(0)
// CHECK: kcc.mbarrier_arrive_expect_tx
// CHECK: kcc.tma_load %arg9
// CHECK: scf.for
// CHECK: kcc.mbarrier_wait
// CHECK: kcc.smem_load
func.func @prefetch(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
                    %arg4: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 4 : i64}, %arg8: i32,
                    %arg9: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 4 : i32}, %arg10: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 0 : i32})
    attributes {kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "n", "src_map_16_64", "dst_map_16_64"],
                kcc.base_name = "prefetch", kcc.constant_names = [],
                kcc.grid = ["(((src_dim1) + (64) - 1) / (64))", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %0 = kcc.program_id(0) : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %f1 = arith.constant 1.0 : f32
  %s = scf.for %i = %c0 to %arg8 step %c1 iter_args(%acc = %f1) -> (f32) : i32 {
    %v = arith.addf %acc, %acc : f32
    scf.yield %v : f32
  }
  %t = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %0] : !kcc.ptr<f32> -> tensor<16x64xf32>
  %sp = kcc.splat %s : tensor<16x64xf32>
  %r = arith.mulf %t, %sp : tensor<16x64xf32>
  kcc.store_tile %r, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %0] : tensor<16x64xf32>, !kcc.ptr<f32>
  return
}

// Not ahead of a write to global memory: the kernel's own store comes
// first, as written (it may write what the copy reads).
// CHECK-LABEL: func.func @prefetch_after_store(
// CHECK: kcc.tma_store %{{.*}} -> %arg10
// CHECK: } {kcc.data_dependent}
// CHECK: kcc.mbarrier_arrive_expect_tx
// CHECK: kcc.tma_load %arg9
func.func @prefetch_after_store(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
                    %arg4: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 4 : i64}, %arg8: f32,
                    %arg9: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 4 : i32}, %arg10: !kcc.tensormap<[16, 64], f32, swizzle = 0> {kcc.tensor_map_of = 0 : i32})
    attributes {kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "s", "src_map_16_64", "dst_map_16_64"],
                kcc.base_name = "prefetch_after_store", kcc.constant_names = [],
                kcc.grid = ["(((src_dim1) + (64) - 1) / (64))", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %0 = kcc.program_id(0) : i32
  %c0 = arith.constant 0 : i32
  %sp = kcc.splat %arg8 : tensor<16x64xf32>
  kcc.store_tile %sp, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %0] : tensor<16x64xf32>, !kcc.ptr<f32>
  %t = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %0] : !kcc.ptr<f32> -> tensor<16x64xf32>
  kcc.store_tile %t, %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %0] : tensor<16x64xf32>, !kcc.ptr<f32>
  return
}
