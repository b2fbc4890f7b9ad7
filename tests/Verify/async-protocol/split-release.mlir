// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Stages released per operand (kcc-pipeline-tma-loads): attention's loop,
// as the layout pipeline leaves tests/e2e/passes/Inputs/kv-release.kc
// (epilogue left out). S = Q K_j^T retires in its iteration, so K's stage
// goes back to the producer at the iteration's end (empty barrier %4); the
// product P_j V_j is issued one iteration late (kcc-defer-register-a-mma),
// so V's stage is released an iteration later (empty barrier %5). Proven.
module attributes {kcc.target = "sm_90a"} {
  func.func @kv_split(%arg0: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 8 : i64}, %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64}, %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64}, %arg12: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg13: i32, %arg14: i32, %arg15: i32 {kcc.divisibility = 8 : i64}, %arg16: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 4 : i32}, %arg17: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 8 : i32}, %arg18: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 12 : i32}, %arg19: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 0 : i32}) attributes {kcc.arg_names = ["o", "o_dim0", "o_dim1", "o_stride0", "q", "q_dim0", "q_dim1", "q_stride0", "k", "k_dim0", "k_dim1", "k_stride0", "v", "v_dim0", "v_dim1", "v_stride0", "q_map_128_64", "k_map_64_64", "v_map_64_64", "o_map_128_64"], kcc.base_name = "kv", kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.num_warps = 8 : i32, kcc.producer_warps = 4 : i32, kcc.specialization = {}} {
    %c8_i32 = arith.constant 8 : i32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c4_i32 = arith.constant 4 : i32
    %c64_i32 = arith.constant 64 : i32
    %c3_i32 = arith.constant 3 : i32
    %c2_i32 = arith.constant 2 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = kcc.smem_alloc : <[64, 64], f16, stages = 4, swizzle = 128>
    %1 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %1[%c0_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c1_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c2_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c3_i32], count 1 : <4>
    %2 = kcc.smem_alloc : <[64, 64], f16, stages = 4, swizzle = 128>
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
    %5 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %5[%c0_i32], count 2 : <4>
    kcc.mbarrier_init %5[%c1_i32], count 2 : <4>
    kcc.mbarrier_init %5[%c2_i32], count 2 : <4>
    kcc.mbarrier_init %5[%c3_i32], count 2 : <4>
    kcc.fence_mbarrier_init
    %6 = kcc.mbarrier_alloc : <1>
    kcc.mbarrier_init %6[%c0_i32], count 1 : <1>
    kcc.fence_mbarrier_init
    %7 = kcc.smem_alloc : <[128, 64], f16, stages = 1, swizzle = 128>
    kcc.warp_specialize producer(warps = 4, regs = 24) {
      %9 = arith.divsi %arg9, %c64_i32 : i32
      scf.for %arg20 = %c0_i32 to %9 step %c1_i32  : i32 {
        %10 = arith.remui %arg20, %c4_i32 : i32
        %11 = arith.cmpi sge, %arg20, %c4_i32 : i32
        scf.if %11 {
          %13 = arith.divui %arg20, %c4_i32 : i32
          %14 = arith.subi %13, %c1_i32 : i32
          %15 = arith.andi %14, %c1_i32 : i32
          kcc.mbarrier_wait %4[%10], parity %15 : <4>
        }
        %12 = arith.muli %arg20, %c64_i32 : i32
        kcc.mbarrier_arrive_expect_tx %1[%10], bytes 8192 : <4>
        kcc.tma_load %arg17[%12, %c0_i32] -> %0[%10], %1[%10] {kcc.tile_access = "TMA box, 4-stage pipeline (8192 bytes per stage; expect_tx counts the full box)"} : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, <4>
        scf.if %11 {
          %13 = arith.divui %arg20, %c4_i32 : i32
          %14 = arith.subi %13, %c1_i32 : i32
          %15 = arith.andi %14, %c1_i32 : i32
          kcc.mbarrier_wait %5[%10], parity %15 : <4>
        }
        kcc.mbarrier_arrive_expect_tx %3[%10], bytes 8192 : <4>
        kcc.tma_load %arg18[%12, %c0_i32] -> %2[%10], %3[%10] {kcc.tile_access = "TMA box, 4-stage pipeline (8192 bytes per stage; expect_tx counts the full box)"} : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, <4>
      }
    } consumer(warpgroups = 2, regs = 240) {
      kcc.mbarrier_arrive_expect_tx %6[%c0_i32], bytes 16384 : <1>
      kcc.tma_load %arg16[%c0_i32, %c0_i32] -> %7[%c0_i32], %6[%c0_i32] {kcc.tile_access = "TMA box [128, 64] x f16 (16384 bytes, expect_tx counts the full box; out-of-tensor elements read 0; tensor map 'q_map_128_64')"} : <[128, 64], f16, swizzle = 128>, <[128, 64], f16, stages = 1, swizzle = 128>, <1>
      %9 = kcc.splat %cst_0 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
      %10 = arith.divsi %arg9, %c64_i32 : i32
      kcc.mbarrier_wait %6[%c0_i32], parity %c0_i32 : <1>
      %11 = arith.cmpi sgt, %10, %c0_i32 : i32
      %12 = scf.if %11 -> (tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>) {
        kcc.mbarrier_wait %1[%c0_i32], parity %c0_i32 : <4>
        %20 = kcc.warpgroup_mma %7[%c0_i32], %0[%c0_i32], %9 {a_k_major = true, b_k_major = true} : <[128, 64], f16, stages = 1, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
        %21 = arith.truncf %20 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> to tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
        kcc.mbarrier_wait %3[%c0_i32], parity %c0_i32 : <4>
        kcc.mbarrier_arrive %4[%c0_i32] per_warpgroup : <4>
        %22:2 = scf.for %arg20 = %c1_i32 to %10 step %c1_i32 iter_args(%arg21 = %9, %arg22 = %21) -> (tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>, tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>)  : i32 {
          %27 = arith.remui %arg20, %c4_i32 : i32
          %28 = arith.divui %arg20, %c4_i32 : i32
          %29 = arith.andi %28, %c1_i32 : i32
          kcc.mbarrier_wait %1[%27], parity %29 : <4>
          %30 = kcc.warpgroup_mma %7[%c0_i32], %0[%27], %9 {a_k_major = true, b_k_major = true, pending = 1 : i32} : <[128, 64], f16, stages = 1, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %31 = arith.subi %arg20, %c1_i32 : i32
          %32 = arith.remui %31, %c4_i32 : i32
          %33 = kcc.warpgroup_mma_reg_a %arg22, %2[%32], %arg21 {b_k_major = false, pending = 1 : i32} : tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %34 = kcc.warpgroup_mma_wait 1 %30 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %35 = arith.truncf %34 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> to tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
          kcc.mbarrier_wait %3[%27], parity %29 : <4>
          %36:2 = kcc.warpgroup_mma_wait 0 %33, %arg22 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>, tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
          kcc.mbarrier_arrive %4[%27] per_warpgroup : <4>
          %37 = arith.cmpi sge, %arg20, %c1_i32 : i32
          scf.if %37 {
            %38 = arith.addi %arg20, %c3_i32 : i32
            %39 = arith.remui %38, %c4_i32 : i32
            kcc.mbarrier_arrive %5[%39] per_warpgroup : <4>
          }
          scf.yield %36#0, %35 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>, tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
        } {kcc.mma_overlap}
        %23 = arith.maxsi %10, %c0_i32 : i32
        %24 = arith.subi %23, %c1_i32 : i32
        %25 = arith.remui %24, %c4_i32 : i32
        %26 = kcc.warpgroup_mma_reg_a %22#1, %2[%25], %22#0 {b_k_major = false} : tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
        scf.yield %26 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
      } else {
        scf.yield %9 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
      }
    } {kcc.ping_pong_refused = "not a persistent kernel: consumer groups take alternate tiles of its tile loop (kcc --persistent)"}
    return
  }
}


// -----

// Planted bug: V's stage released with K's, at the end of its own
// iteration, while the deferred product of the next iteration still has to
// read it: the producer refills it with data nobody read.
module attributes {kcc.target = "sm_90a"} {
  func.func @v_released_with_k(%arg0: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 8 : i64}, %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64}, %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64}, %arg12: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg13: i32, %arg14: i32, %arg15: i32 {kcc.divisibility = 8 : i64}, %arg16: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 4 : i32}, %arg17: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 8 : i32}, %arg18: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 12 : i32}, %arg19: !kcc.tensormap<[128, 64], f16, swizzle = 128> {kcc.tensor_map_of = 0 : i32}) attributes {kcc.arg_names = ["o", "o_dim0", "o_dim1", "o_stride0", "q", "q_dim0", "q_dim1", "q_stride0", "k", "k_dim0", "k_dim1", "k_stride0", "v", "v_dim0", "v_dim1", "v_stride0", "q_map_128_64", "k_map_64_64", "v_map_64_64", "o_map_128_64"], kcc.base_name = "kv", kcc.constant_names = [], kcc.grid = ["1", "1", "1"], kcc.kernel, kcc.num_warps = 8 : i32, kcc.producer_warps = 4 : i32, kcc.specialization = {}} {
    %c8_i32 = arith.constant 8 : i32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c4_i32 = arith.constant 4 : i32
    %c64_i32 = arith.constant 64 : i32
    %c3_i32 = arith.constant 3 : i32
    %c2_i32 = arith.constant 2 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = kcc.smem_alloc : <[64, 64], f16, stages = 4, swizzle = 128>
    %1 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %1[%c0_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c1_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c2_i32], count 1 : <4>
    kcc.mbarrier_init %1[%c3_i32], count 1 : <4>
    %2 = kcc.smem_alloc : <[64, 64], f16, stages = 4, swizzle = 128>
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
    %5 = kcc.mbarrier_alloc : <4>
    kcc.mbarrier_init %5[%c0_i32], count 2 : <4>
    kcc.mbarrier_init %5[%c1_i32], count 2 : <4>
    kcc.mbarrier_init %5[%c2_i32], count 2 : <4>
    kcc.mbarrier_init %5[%c3_i32], count 2 : <4>
    kcc.fence_mbarrier_init
    %6 = kcc.mbarrier_alloc : <1>
    kcc.mbarrier_init %6[%c0_i32], count 1 : <1>
    kcc.fence_mbarrier_init
    %7 = kcc.smem_alloc : <[128, 64], f16, stages = 1, swizzle = 128>
    kcc.warp_specialize producer(warps = 4, regs = 24) {
      %9 = arith.divsi %arg9, %c64_i32 : i32
      scf.for %arg20 = %c0_i32 to %9 step %c1_i32  : i32 {
        %10 = arith.remui %arg20, %c4_i32 : i32
        %11 = arith.cmpi sge, %arg20, %c4_i32 : i32
        scf.if %11 {
          %13 = arith.divui %arg20, %c4_i32 : i32
          %14 = arith.subi %13, %c1_i32 : i32
          %15 = arith.andi %14, %c1_i32 : i32
          kcc.mbarrier_wait %4[%10], parity %15 : <4>
        }
        %12 = arith.muli %arg20, %c64_i32 : i32
        kcc.mbarrier_arrive_expect_tx %1[%10], bytes 8192 : <4>
        kcc.tma_load %arg17[%12, %c0_i32] -> %0[%10], %1[%10] {kcc.tile_access = "TMA box, 4-stage pipeline (8192 bytes per stage; expect_tx counts the full box)"} : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, <4>
        scf.if %11 {
          %13 = arith.divui %arg20, %c4_i32 : i32
          %14 = arith.subi %13, %c1_i32 : i32
          %15 = arith.andi %14, %c1_i32 : i32
          kcc.mbarrier_wait %5[%10], parity %15 : <4>
        }
        kcc.mbarrier_arrive_expect_tx %3[%10], bytes 8192 : <4>
        // expected-error@+2 {{overwriting a stage before its consumers released it: the data loaded into stage 0 has not been read (loop iteration with induction variable 4) (with k_dim0 = 320)}}
        // expected-note@+1 {{the unread copy}}
        kcc.tma_load %arg18[%12, %c0_i32] -> %2[%10], %3[%10] {kcc.tile_access = "TMA box, 4-stage pipeline (8192 bytes per stage; expect_tx counts the full box)"} : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, <4>
      }
    } consumer(warpgroups = 2, regs = 240) {
      kcc.mbarrier_arrive_expect_tx %6[%c0_i32], bytes 16384 : <1>
      kcc.tma_load %arg16[%c0_i32, %c0_i32] -> %7[%c0_i32], %6[%c0_i32] {kcc.tile_access = "TMA box [128, 64] x f16 (16384 bytes, expect_tx counts the full box; out-of-tensor elements read 0; tensor map 'q_map_128_64')"} : <[128, 64], f16, swizzle = 128>, <[128, 64], f16, stages = 1, swizzle = 128>, <1>
      %9 = kcc.splat %cst_0 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
      %10 = arith.divsi %arg9, %c64_i32 : i32
      kcc.mbarrier_wait %6[%c0_i32], parity %c0_i32 : <1>
      %11 = arith.cmpi sgt, %10, %c0_i32 : i32
      %12 = scf.if %11 -> (tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>) {
        kcc.mbarrier_wait %1[%c0_i32], parity %c0_i32 : <4>
        %20 = kcc.warpgroup_mma %7[%c0_i32], %0[%c0_i32], %9 {a_k_major = true, b_k_major = true} : <[128, 64], f16, stages = 1, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
        %21 = arith.truncf %20 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> to tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
        kcc.mbarrier_wait %3[%c0_i32], parity %c0_i32 : <4>
        kcc.mbarrier_arrive %4[%c0_i32] per_warpgroup : <4>
        kcc.mbarrier_arrive %5[%c0_i32] per_warpgroup : <4>
        %22:2 = scf.for %arg20 = %c1_i32 to %10 step %c1_i32 iter_args(%arg21 = %9, %arg22 = %21) -> (tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>, tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>)  : i32 {
          %27 = arith.remui %arg20, %c4_i32 : i32
          %28 = arith.divui %arg20, %c4_i32 : i32
          %29 = arith.andi %28, %c1_i32 : i32
          kcc.mbarrier_wait %1[%27], parity %29 : <4>
          %30 = kcc.warpgroup_mma %7[%c0_i32], %0[%27], %9 {a_k_major = true, b_k_major = true, pending = 1 : i32} : <[128, 64], f16, stages = 1, swizzle = 128>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %31 = arith.subi %arg20, %c1_i32 : i32
          %32 = arith.remui %31, %c4_i32 : i32
          %33 = kcc.warpgroup_mma_reg_a %arg22, %2[%32], %arg21 {b_k_major = false, pending = 1 : i32} : tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %34 = kcc.warpgroup_mma_wait 1 %30 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
          %35 = arith.truncf %34 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> to tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
          kcc.mbarrier_wait %3[%27], parity %29 : <4>
          %36:2 = kcc.warpgroup_mma_wait 0 %33, %arg22 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>, tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
          kcc.mbarrier_arrive %4[%27] per_warpgroup : <4>
          kcc.mbarrier_arrive %5[%27] per_warpgroup : <4>
          scf.yield %36#0, %35 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>, tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>
        } {kcc.mma_overlap}
        %23 = arith.maxsi %10, %c0_i32 : i32
        %24 = arith.subi %23, %c1_i32 : i32
        %25 = arith.remui %24, %c4_i32 : i32
        %26 = kcc.warpgroup_mma_reg_a %22#1, %2[%25], %22#0 {b_k_major = false} : tensor<128x64xf16, #kcc.wgmma_acc<warpgroups = 2>>, <[64, 64], f16, stages = 4, swizzle = 128>, tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>> -> tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
        scf.yield %26 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
      } else {
        scf.yield %9 : tensor<128x64xf32, #kcc.wgmma_acc<warpgroups = 2>>
      }
    } {kcc.ping_pong_refused = "not a persistent kernel: consumer groups take alternate tiles of its tile loop (kcc --persistent)"}
    return
  }
}

