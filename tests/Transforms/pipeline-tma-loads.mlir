// kcc-pipeline-tma-loads: the TMA loads of a K loop (load_tile with a
// tensor map, marked kcc.mma_operand by kcc-add-tensor-maps) become a
// multi-stage pipeline: per operand a buffer of stages and one mbarrier per
// stage, a prologue that fills the stages, in the loop a wait on the
// stage's phase, the stage read, and the refill of the stage the previous
// iteration used. Operands of a dot are refilled one iteration after their
// use (kcc.mma_overlap), so the loop gets one stage more than `stages`. With
// warp specialization a producer warpgroup issues the copies and the
// consumers release each stage on an "empty" mbarrier. The input is
//   kernel mm(c: tensor<f32, 2>, a: tensor<f16, 2>, b: tensor<f16, 2>, k: i32) grid(1) {
//     var acc = zeros([128, 64], f32);
//     for kk in range(0, k) {
//       acc = dot(load_tile(a, [128, 64], [0, kk]), load_tile(b, [64, 64], [kk, 0]), acc);
//     }
//     store_tile(c, [0, 0], acc);
//   }
// after kcc-add-tensor-maps=targets=sm_90a and
// kcc-materialize-tma-copies=target=sm_90a (which leaves the loop's loads).
// RUN: kcc-opt %s --kcc-pipeline-tma-loads=warp-specialize=0 | FileCheck %s --check-prefix=ONE --implicit-check-not=kcc.load_tile
// RUN: kcc-opt %s --kcc-pipeline-tma-loads | FileCheck %s --check-prefix=WS --implicit-check-not=kcc.load_tile
// RUN: kcc-opt %s --kcc-pipeline-tma-loads="warp-specialize=0 stages=2" | FileCheck %s --check-prefix=THREE --implicit-check-not=kcc.load_tile
// RUN: kcc-opt %s --kcc-pipeline-tma-loads=target=sm_80 | FileCheck %s --check-prefix=SM80 --implicit-check-not=kcc.load_tile
// RUN: not kcc-opt %s --kcc-pipeline-tma-loads=target=sm_99z -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTARGET

// One role: 3 + 1 stages per operand, each with its mbarrier.
// ONE-LABEL: func.func @mm(
// ONE: %[[A:.*]] = kcc.smem_alloc : <[128, 64], f16, stages = 4, swizzle = 128>
// ONE-NEXT: %[[ABAR:.*]] = kcc.mbarrier_alloc : <4>
// ONE-COUNT-4: kcc.mbarrier_init %[[ABAR]][%{{.*}}], count 1 : <4>
// ONE: %[[B:.*]] = kcc.smem_alloc : <[64, 64], f16, stages = 4, swizzle = 128>
// ONE-NEXT: %[[BBAR:.*]] = kcc.mbarrier_alloc : <4>
// ONE-COUNT-4: kcc.mbarrier_init %[[BBAR]][%{{.*}}], count 1 : <4>
// ONE: kcc.fence_mbarrier_init
// The prologue: iterations 0..3 into stages 0..3, each where it exists.
// ONE: arith.cmpi slt, %{{.*}}, %arg12 : i32
// ONE-NEXT: scf.if
// ONE: kcc.mbarrier_arrive_expect_tx %[[ABAR]][%[[S0:.*]]], bytes 16384 : <4>
// ONE-NEXT: kcc.tma_load %arg13[%{{.*}}, %{{.*}}] -> %[[A]][%[[S0]]], %[[ABAR]][%[[S0]]] {kcc.tile_access = "TMA box, 4-stage pipeline (16384 bytes per stage; expect_tx counts the full box)"}
// ONE: kcc.mbarrier_arrive_expect_tx %[[BBAR]][%[[S0]]], bytes 8192 : <4>
// ONE-NEXT: kcc.tma_load %arg14[%{{.*}}, %{{.*}}] -> %[[B]][%[[S0]]], %[[BBAR]][%[[S0]]] {kcc.tile_access = "TMA box, 4-stage pipeline (8192 bytes per stage; expect_tx counts the full box)"}
// ONE-COUNT-3: kcc.tma_load %arg13
// The loop: stage = i mod 4, parity = (i / 4) & 1.
// ONE: scf.for %[[K:.*]] = %{{.*}} to %arg12 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x64xf32>)
// ONE: %[[I:.*]] = arith.divui
// ONE: %[[S:.*]] = arith.remui %[[I]], %c4_i32
// ONE: %[[Q:.*]] = arith.divui %[[I]], %c4_i32
// ONE: %[[P:.*]] = arith.andi %[[Q]], %c1_i32
// ONE: kcc.mbarrier_wait %[[ABAR]][%[[S]]], parity %[[P]] : <4>
// ONE-NEXT: %[[TA:.*]] = kcc.smem_load %[[A]][%[[S]]] : <[128, 64], f16, stages = 4, swizzle = 128> -> tensor<128x64xf16>
// ONE: kcc.mbarrier_wait %[[BBAR]][%[[S]]], parity %[[P]] : <4>
// ONE-NEXT: %[[TB:.*]] = kcc.smem_load %[[B]][%[[S]]] : <[64, 64], f16, stages = 4, swizzle = 128> -> tensor<64x64xf16>
// ONE-NEXT: %[[D:.*]] = kcc.dot %[[TA]], %[[TB]], %[[ACC]]
// Every thread has read the stages before one is refilled: iteration
// k + 3 (from the second iteration on) into the stage iteration k - 1 used.
// The threads' reads are ordinary loads and the refill an async-proxy
// write: a proxy fence orders them (without it, on an H200, a copy landed
// under loads still in flight: docs/gemm.md, split-K).
// ONE-NEXT: kcc.cta_barrier
// ONE-NEXT: kcc.fence_proxy_async
// ONE: %[[NEXT:.*]] = arith.addi %[[K]], %c3_i32
// ONE-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %arg12 : i32
// ONE: %[[LATE:.*]] = arith.cmpi sge, %[[I]], %c1_i32
// ONE-NEXT: %[[GO:.*]] = arith.andi %[[IN]], %[[LATE]] : i1
// ONE: %[[R:.*]] = arith.addi %[[I]], %c3_i32
// ONE: %[[RS:.*]] = arith.remui %[[R]], %c4_i32
// ONE-NEXT: scf.if %[[GO]] {
// ONE: kcc.tma_load %arg13[%{{.*}}, %{{.*}}] -> %[[A]][%[[RS]]], %[[ABAR]][%[[RS]]]
// ONE: kcc.tma_load %arg14[%{{.*}}, %{{.*}}] -> %[[B]][%[[RS]]], %[[BBAR]][%[[RS]]]
// ONE: scf.yield %[[D]] : tensor<128x64xf32>
// ONE-NEXT: } {kcc.mma_overlap}

// Warp-specialized (sm_90a has [warp_specialization]): a producer
// warpgroup of 4 extra warps, the consumers' "empty" barriers (count 2: one
// arrival per consumer warpgroup).
// WS-LABEL: func.func @mm(
// WS-SAME: kcc.producer_warps = 4 : i32
// WS: %[[A:.*]] = kcc.smem_alloc : <[128, 64], f16, stages = 4, swizzle = 128>
// WS-NEXT: %[[FULL:.*]] = kcc.mbarrier_alloc : <4>
// WS: kcc.smem_alloc : <[64, 64], f16, stages = 4, swizzle = 128>
// WS-NEXT: kcc.mbarrier_alloc : <4>
// WS-COUNT-4: count 1 : <4>
// WS-NEXT: %[[EMPTY:.*]] = kcc.mbarrier_alloc : <4>
// WS-COUNT-4: kcc.mbarrier_init %[[EMPTY]][%{{.*}}], count 2 : <4>
// WS-NEXT: kcc.fence_mbarrier_init
// WS: kcc.warp_specialize producer(warps = 4, regs = 24) {
// WS: scf.for
// A stage is refilled once the consumers have released it (from round 1 on).
// WS: %[[PS:.*]] = arith.remui %{{.*}}, %c4_i32
// WS: scf.if
// WS: kcc.mbarrier_wait %[[EMPTY]][%[[PS]]], parity
// WS: kcc.tma_load %arg13[%{{.*}}, %{{.*}}] -> %[[A]][%[[PS]]], %[[FULL]][%[[PS]]]
// WS: kcc.tma_load %arg14
// WS: } consumer(warpgroups = 2, regs = 240) {
// WS: scf.for
// WS: kcc.mbarrier_wait %[[FULL]]
// WS: kcc.dot
// WS-NOT: kcc.cta_barrier
// WS: kcc.mbarrier_arrive %[[EMPTY]][%{{.*}}] per_warpgroup : <4>
// WS: } {kcc.mma_overlap}

// stages=2: 2 + 1.
// THREE: kcc.smem_alloc : <[128, 64], f16, stages = 3, swizzle = 128>
// THREE-NEXT: kcc.mbarrier_alloc : <3>
// THREE: kcc.smem_alloc : <[64, 64], f16, stages = 3, swizzle = 128>
// THREE-COUNT-3: kcc.tma_load %arg13
// THREE: } {kcc.mma_overlap}

// sm_80 (no register reallocation between warpgroups): one role, and why.
// SM80-NOT: kcc.warp_specialize
// SM80: kcc.smem_alloc : <[128, 64], f16, stages = 4, swizzle = 128>
// SM80-NOT: kcc.warp_specialize
// SM80: } {kcc.mma_overlap, kcc.warp_specialize_refused = "target 'sm_80' has no register reallocation between warpgroups ([warp_specialization] in its model)"}

// BADTARGET: error: kcc-pipeline-tma-loads: unknown target 'sm_99z'

!a = !kcc.tensormap<[128, 64], f16, swizzle = 128>
!b = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!c = !kcc.tensormap<[128, 32], f32, swizzle = 128>
!cstage = !kcc.smem<[128, 64], f32, stages = 1, swizzle = 128>
func.func @mm(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64},
              %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64},
              %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64}, %arg12: i32,
              %arg13: !a {kcc.tensor_map_of = 4 : i32}, %arg14: !b {kcc.tensor_map_of = 8 : i32}, %arg15: !c {kcc.tensor_map_of = 0 : i32})
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "a", "a_dim0", "a_dim1", "a_stride0", "b", "b_dim0", "b_dim1", "b_stride0", "k",
                                 "a_map_128_64", "b_map_64_64", "c_map_128_32"],
                kcc.base_name = "mm", kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.specialization = {}} {
  %cstage = kcc.smem_alloc : !cstage
  %zero = arith.constant 0.000000e+00 : f32
  %init = kcc.splat %zero : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %kk = %c0 to %arg12 step %c1 iter_args(%a = %init) -> (tensor<128x64xf32>) : i32 {
    %x = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%c0, %kk] {kcc.mma_operand} : !kcc.ptr<f16> -> tensor<128x64xf16>
    %y = kcc.load_tile %arg8[%arg9, %arg10] strides[%arg11] at[%kk, %c0] {kcc.mma_operand} : !kcc.ptr<f16> -> tensor<64x64xf16>
    %d = kcc.dot %x, %y, %a : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  // The C tile's TMA store, as kcc-materialize-tma-copies leaves it.
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %rem = arith.remsi %arg2, %c4 : i32
  %whole = arith.cmpi eq, %rem, %c0 : i32
  %n = arith.maxsi %arg2, %c0 : i32
  %tiles = arith.divsi %n, %c64 : i32
  %before = arith.cmpi slt, %c0, %tiles : i32
  %ok = arith.ori %whole, %before : i1
  scf.if %ok {
    kcc.cta_barrier
    kcc.smem_store %acc, %cstage[%c0] : tensor<128x64xf32>, !cstage
    kcc.fence_proxy_async
    kcc.cta_barrier
    kcc.tma_store %cstage[%c0] -> %arg15[%c0, %c0] {parts = 2 : i32} : !cstage, !c
    kcc.bulk_commit_group
  } else {
    kcc.store_tile %acc, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] {kcc.mma_operand} : tensor<128x64xf32>, !kcc.ptr<f32>
  } {kcc.data_dependent}
  kcc.bulk_wait_group 0 read
  return
}
