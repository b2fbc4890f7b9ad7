// kcc-plan-lane-exchanges: the butterfly of every 1-D kcc.reduce, from the
// exchange costs of a built-in target model: five shfl.bfly steps on the
// NVIDIA targets; on gfx9 the DPP exchanges first (quad_perm for xor 1 and
// 2, row_half_mirror and row_mirror once the lower bits are reduced), then
// ds_swizzle (xor 16) and ds_bpermute (xor 32) across the 64-lane wave. A
// plan already there is replaced; 2-D reductions get none.
// RUN: kcc-opt %s --kcc-plan-lane-exchanges | FileCheck %s --check-prefix=SM90
// RUN: kcc-opt %s --kcc-plan-lane-exchanges=target=sm_80 | FileCheck %s --check-prefix=SM90
// RUN: kcc-opt %s --kcc-plan-lane-exchanges=target=gfx942 | FileCheck %s --check-prefix=GFX9
// RUN: kcc-opt %s --kcc-plan-lane-exchanges=target=gfx90a | FileCheck %s --check-prefix=GFX9
// RUN: not kcc-opt %s --kcc-plan-lane-exchanges=target=sm_91 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: kcc-plan-lane-exchanges: unknown target 'sm_91'

#w32 = #kcc.blocked<vec = 4, threads = 128, warp = 32>
#w64 = #kcc.blocked<vec = 4, threads = 256, warp = 64>

// SM90-LABEL: func.func @sum
// SM90: kcc.reduce sum %{{.*}} {axis = 0 : i32, kcc.butterfly = [{mask = 16 : i32, op = "shfl.bfly"}, {mask = 8 : i32, op = "shfl.bfly"}, {mask = 4 : i32, op = "shfl.bfly"}, {mask = 2 : i32, op = "shfl.bfly"}, {mask = 1 : i32, op = "shfl.bfly"}]}
// GFX9-LABEL: func.func @sum
// GFX9: kcc.reduce sum %{{.*}} {axis = 0 : i32, kcc.butterfly = [{mask = 32 : i32, op = "ds_bpermute"}, {mask = 16 : i32, op = "ds_swizzle"}, {mask = 2 : i32, op = "dpp.quad_perm"}, {mask = 1 : i32, op = "dpp.quad_perm"}, {mask = 7 : i32, op = "dpp.row_half_mirror"}, {mask = 15 : i32, op = "dpp.row_mirror"}]}
func.func @sum(%x: tensor<1024xf32, #w32>) -> f32 {
  %s = kcc.reduce sum %x {axis = 0 : i32} : tensor<1024xf32, #w32> -> f32
  return %s : f32
}

// SM90-LABEL: func.func @max_wave64
// SM90: kcc.reduce max %{{.*}} {axis = 0 : i32, kcc.butterfly = [{mask = 16 : i32, op = "shfl.bfly"}, {mask = 8 : i32, op = "shfl.bfly"}, {mask = 4 : i32, op = "shfl.bfly"}, {mask = 2 : i32, op = "shfl.bfly"}, {mask = 1 : i32, op = "shfl.bfly"}]}
// GFX9-LABEL: func.func @max_wave64
// GFX9: kcc.reduce max %{{.*}} {axis = 0 : i32, kcc.butterfly = [{mask = 32 : i32, op = "ds_bpermute"}, {mask = 16 : i32, op = "ds_swizzle"}, {mask = 2 : i32, op = "dpp.quad_perm"}, {mask = 1 : i32, op = "dpp.quad_perm"}, {mask = 7 : i32, op = "dpp.row_half_mirror"}, {mask = 15 : i32, op = "dpp.row_mirror"}]}
func.func @max_wave64(%x: tensor<1024xf32, #w64>) -> f32 {
  %s = kcc.reduce max %x {axis = 0 : i32} : tensor<1024xf32, #w64> -> f32
  return %s : f32
}

// A plan for another target is replaced.
// SM90-LABEL: func.func @stale
// SM90: kcc.reduce sum %{{.*}} {axis = 0 : i32, kcc.butterfly = [{mask = 16 : i32, op = "shfl.bfly"}, {mask = 8 : i32, op = "shfl.bfly"}, {mask = 4 : i32, op = "shfl.bfly"}, {mask = 2 : i32, op = "shfl.bfly"}, {mask = 1 : i32, op = "shfl.bfly"}]}
// GFX9-LABEL: func.func @stale
// GFX9: kcc.reduce sum %{{.*}} {axis = 0 : i32, kcc.butterfly = [{mask = 32 : i32, op = "ds_bpermute"}, {mask = 16 : i32, op = "ds_swizzle"}, {mask = 2 : i32, op = "dpp.quad_perm"}, {mask = 1 : i32, op = "dpp.quad_perm"}, {mask = 7 : i32, op = "dpp.row_half_mirror"}, {mask = 15 : i32, op = "dpp.row_mirror"}]}
func.func @stale(%x: tensor<1024xf32, #w32>) -> f32 {
  %s = kcc.reduce sum %x {axis = 0 : i32, kcc.butterfly = [{op = "dpp.quad_perm", mask = 1 : i32}]} : tensor<1024xf32, #w32> -> f32
  return %s : f32
}

// A row reduction of a 2-D tile takes another path (shared memory): no plan.
// SM90-LABEL: func.func @rows
// SM90-NOT: kcc.butterfly
// SM90: kcc.reduce max %{{.*}} {axis = 1 : i32} : tensor<4x256xf32
// SM90-NOT: kcc.butterfly
// SM90: return
// GFX9-LABEL: func.func @rows
// GFX9-NOT: kcc.butterfly
// GFX9: kcc.reduce max %{{.*}} {axis = 1 : i32} : tensor<4x256xf32
// GFX9-NOT: kcc.butterfly
// GFX9: return
func.func @rows(%x: tensor<4x256xf32, #w32>) -> tensor<4xf32, #w32> {
  %s = kcc.reduce max %x {axis = 1 : i32} : tensor<4x256xf32, #w32> -> tensor<4xf32, #w32>
  return %s : tensor<4xf32, #w32>
}
