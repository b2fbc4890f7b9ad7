// The kcc dialect's custom syntax round-trips: every op, type and attribute
// of ir/*.td (and the discardable kcc.* attributes the dialect verifies)
// parses, prints and parses again to the same IR, in the custom and in the
// generic form.
// RUN: kcc-opt %s | kcc-opt | FileCheck %s
// RUN: kcc-opt %s --mlir-print-op-generic | kcc-opt | FileCheck %s
// RUN: kcc-opt %s -o %t.1.mlir && kcc-opt %t.1.mlir -o %t.2.mlir && diff %t.1.mlir %t.2.mlir

//===----------------------------------------------------------------------===//
// Types and layout attributes (ir/KccTypes.td)
//===----------------------------------------------------------------------===//

#blocked = #kcc.blocked<vec = 4, threads = 128, warp = 32>
#wave = #kcc.blocked<vec = 1, threads = 256, warp = 64>
#wgmma = #kcc.wgmma_acc<warpgroups = 2>
#mfma = #kcc.mfma_acc<waves = 4>
#tmem = #kcc.tmem_acc<warpgroups = 1>

// CHECK-LABEL: func.func @types(
// CHECK-SAME: %{{.*}}: !kcc.ptr<f32>,
// CHECK-SAME: %{{.*}}: !kcc.ptr<f16, 3>,
// CHECK-SAME: %{{.*}}: !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>,
// CHECK-SAME: %{{.*}}: !kcc.smem<[64, 32], f16, stages = 3, swizzle = 0, pad = 16>,
// CHECK-SAME: %{{.*}}: !kcc.smem<[256], f32, stages = 1, swizzle = 0>,
// CHECK-SAME: %{{.*}}: !kcc.mbarrier<4>,
// CHECK-SAME: %{{.*}}: !kcc.tensormap<[1, 64, 64], bf16, swizzle = 128>,
// CHECK-SAME: %{{.*}}: !kcc.tmem<512>,
// CHECK-SAME: %{{.*}}: tensor<128xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>,
// CHECK-SAME: %{{.*}}: tensor<256xi32, #kcc.blocked<vec = 1, threads = 256, warp = 64>>,
// CHECK-SAME: %{{.*}}: tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>,
// CHECK-SAME: %{{.*}}: tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>,
// CHECK-SAME: %{{.*}}: tensor<128x64xf32, #kcc.tmem_acc<warpgroups = 1>>,
// CHECK-SAME: %{{.*}}: tensor<4x!kcc.ptr<i8>>)
func.func @types(%p: !kcc.ptr<f32>, %q: !kcc.ptr<f16, 3>,
                 %s: !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>,
                 %sp: !kcc.smem<[64, 32], f16, stages = 3, swizzle = 0, pad = 16>,
                 %s1: !kcc.smem<[256], f32, stages = 1, swizzle = 0>,
                 %b: !kcc.mbarrier<4>,
                 %m: !kcc.tensormap<[1, 64, 64], bf16, swizzle = 128>,
                 %t: !kcc.tmem<512>,
                 %l0: tensor<128xf32, #blocked>, %l1: tensor<256xi32, #wave>,
                 %l2: tensor<128x128xf32, #wgmma>, %l3: tensor<64x64xf32, #mfma>,
                 %l4: tensor<128x64xf32, #tmem>, %pt: tensor<4x!kcc.ptr<i8>>) {
  return
}

//===----------------------------------------------------------------------===//
// Tile IR (ir/KccOps.td) and the kernel and argument attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @tile_ops(
// CHECK-SAME: %[[P:.*]]: !kcc.ptr<f32> {kcc.align = 16 : i64}, %[[N:.*]]: i32 {kcc.divisibility = 16 : i64})
// CHECK-SAME: attributes {kcc.grid = ["((n) + 127) / 128", "1", "1"], kcc.kernel, kcc.num_warps = 4 : i32}
// CHECK: kcc.program_id(0) : i32
// CHECK: kcc.num_programs(2) : i32
// CHECK: %[[R:.*]] = kcc.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
// CHECK: %[[PS:.*]] = kcc.splat %[[P]] : tensor<128x!kcc.ptr<f32>>
// CHECK: %[[PTRS:.*]] = kcc.addptr %[[PS]], %[[R]] : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi slt
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK: %[[X:.*]] = kcc.load %[[PTRS]] mask %[[MASK]] other %[[ZERO]] {kcc.access_width = 4 : i32, kcc.mask_uniform} : tensor<128x!kcc.ptr<f32>>
// CHECK: kcc.load %[[PTRS]] : tensor<128x!kcc.ptr<f32>>
// CHECK: kcc.store %[[PTRS]], %[[X]] mask %[[MASK]] : tensor<128x!kcc.ptr<f32>>
// CHECK: %[[SUM:.*]] = kcc.reduce sum %[[X]] {axis = 0 : i32} : tensor<128xf32> -> f32
// CHECK: %[[E:.*]] = kcc.expand_dims %[[X]] {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
// CHECK: %[[BC:.*]] = kcc.broadcast %[[E]] : tensor<1x128xf32> -> tensor<4x128xf32>
// CHECK: kcc.reduce max %[[BC]] {axis = 1 : i32} : tensor<4x128xf32> -> tensor<4xf32>
// CHECK: kcc.reduce min %[[BC]] {axis = 0 : i32} : tensor<4x128xf32> -> tensor<128xf32>
// CHECK: %[[RS:.*]] = kcc.reshape %[[BC]] : tensor<4x128xf32> -> tensor<16x32xf32>
// CHECK: %[[TR:.*]] = kcc.trans %[[RS]] : tensor<16x32xf32> -> tensor<32x16xf32>
// CHECK: %[[ACC:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
// CHECK: kcc.dot %[[RS]], %[[TR]], %[[ACC]] : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
// CHECK: %[[PP:.*]] = kcc.addptr %[[P]], %[[N]] : !kcc.ptr<f32>, i32
// CHECK: kcc.load %[[PP]] : !kcc.ptr<f32>
// CHECK: kcc.store %[[PP]], %[[SUM]] : !kcc.ptr<f32>
func.func @tile_ops(%p: !kcc.ptr<f32> {kcc.align = 16 : i64}, %n: i32 {kcc.divisibility = 16 : i64})
    attributes {kcc.kernel, kcc.grid = ["((n) + 127) / 128", "1", "1"], kcc.num_warps = 4 : i32} {
  %pid = kcc.program_id(0) : i32
  %np = kcc.num_programs(2) : i32
  %r = kcc.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ps = kcc.splat %p : tensor<128x!kcc.ptr<f32>>
  %ptrs = kcc.addptr %ps, %r : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
  %ns = kcc.splat %n : tensor<128xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %x = kcc.load %ptrs mask %mask other %zero {kcc.access_width = 4 : i32, kcc.mask_uniform} : tensor<128x!kcc.ptr<f32>>
  %y = kcc.load %ptrs : tensor<128x!kcc.ptr<f32>>
  kcc.store %ptrs, %x mask %mask : tensor<128x!kcc.ptr<f32>>
  %s = kcc.reduce sum %x {axis = 0 : i32} : tensor<128xf32> -> f32
  %e = kcc.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  %bc = kcc.broadcast %e : tensor<1x128xf32> -> tensor<4x128xf32>
  %mx = kcc.reduce max %bc {axis = 1 : i32} : tensor<4x128xf32> -> tensor<4xf32>
  %mn = kcc.reduce min %bc {axis = 0 : i32} : tensor<4x128xf32> -> tensor<128xf32>
  %rs = kcc.reshape %bc : tensor<4x128xf32> -> tensor<16x32xf32>
  %tr = kcc.trans %rs : tensor<16x32xf32> -> tensor<32x16xf32>
  %acc = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = kcc.dot %rs, %tr, %acc : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  %pp = kcc.addptr %p, %n : !kcc.ptr<f32>, i32
  %sv = kcc.load %pp : !kcc.ptr<f32>
  kcc.store %pp, %s : !kcc.ptr<f32>
  return
}

// Block-coordinate tile accesses of a rank-1, 2 and 3 (batched) tensor, the
// program grid of a group(N) kernel and the frontend's kernel attributes.
// CHECK-LABEL: func.func @grouped(
// CHECK-SAME: %[[X:.*]]: !kcc.ptr<f32> {kcc.tensor_rank = 3 : i32}, %[[D0:[^:]*]]: i32, %[[D1:[^:]*]]: i32, %[[D2:[^:]*]]: i32, %[[S0:[^:]*]]: i32, %[[S1:[^:]*]]: i32)
// CHECK-SAME: kcc.arg_names = ["x", "d0", "d1", "d2", "s0", "s1"]
// CHECK-SAME: kcc.base_name = "grouped"
// CHECK-SAME: kcc.constant_names = ["BLOCK"]
// CHECK-SAME: kcc.coverage = [{stores = 1 : i32, tensor = "x"}, {guard = "d1 % 64 == 0", stores = 1 : i32, tensor = "y", when = "d1 is a multiple of 64"}, {tensor = "z", unproven = "not quasi-affine"}]
// CHECK-SAME: kcc.grid = ["(d1 + 63) / 64", "(d2 + 63) / 64", "d0"]
// CHECK-SAME: kcc.kernel
// CHECK-SAME: kcc.raster_group = 8 : i32
// CHECK-SAME: kcc.specialization = {BLOCK = 64 : i32}
// CHECK-SAME: kcc.target = "sm_90a"
// CHECK: %[[GX:.*]] = kcc.num_programs(0) : i32
// CHECK: %[[GY:.*]] = kcc.num_programs(1) : i32
// CHECK: %[[GZ:.*]] = kcc.num_programs(2) : i32
// CHECK: kcc.program_grid %[[GX]], %[[GY]] {group = 8 : i32}
// CHECK: kcc.program_grid %[[GX]], %[[GY]], %[[GZ]] {group = 8 : i32}
// CHECK: %[[I:.*]] = kcc.program_id(0) : i32
// CHECK: %[[J:.*]] = kcc.program_id(1) : i32
// CHECK: %[[B:.*]] = kcc.program_id(2) : i32
// CHECK: %[[OTHER:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[T:.*]] = kcc.load_tile %[[X]][%[[D1]], %[[D2]]] strides[%[[S0]]] at[%[[I]], %[[J]]] other %[[OTHER]] : f32 {kcc.tma_refused = "the row stride is not a multiple of 16 bytes"} : <f32> -> tensor<64x64xf32>
// CHECK: %[[U:.*]] = kcc.load_tile %[[X]][%[[D0]], %[[D1]], %[[D2]]] strides[%[[S0]], %[[S1]]] at[%[[B]], %[[I]], %[[J]]] {kcc.mma_operand} : <f32> -> tensor<64x64xf32>
// CHECK: kcc.load_tile %[[X]][%[[D2]]] strides[] at[%[[I]]] {kcc.tile_access = "expanded"} : <f32> -> tensor<64xf32>
// CHECK: kcc.store_tile %[[T]], %[[X]][%[[D1]], %[[D2]]] strides[%[[S0]]] at[%[[I]], %[[J]]] : tensor<64x64xf32>, <f32>
// CHECK: kcc.store_tile %[[U]], %[[X]][%[[D0]], %[[D1]], %[[D2]]] strides[%[[S0]], %[[S1]]] at[%[[B]], %[[I]], %[[J]]] : tensor<64x64xf32>, <f32>
func.func @grouped(%x: !kcc.ptr<f32> {kcc.tensor_rank = 3 : i32}, %d0: i32, %d1: i32, %d2: i32, %s0: i32, %s1: i32)
    attributes {kcc.kernel, kcc.raster_group = 8 : i32,
                kcc.grid = ["(d1 + 63) / 64", "(d2 + 63) / 64", "d0"],
                kcc.arg_names = ["x", "d0", "d1", "d2", "s0", "s1"],
                kcc.constant_names = ["BLOCK"], kcc.specialization = {BLOCK = 64 : i32},
                kcc.base_name = "grouped", kcc.target = "sm_90a",
                kcc.coverage = [{tensor = "x", stores = 1 : i32},
                                {tensor = "y", stores = 1 : i32, guard = "d1 % 64 == 0", when = "d1 is a multiple of 64"},
                                {tensor = "z", unproven = "not quasi-affine"}]} {
  %gx = kcc.num_programs(0) : i32
  %gy = kcc.num_programs(1) : i32
  %gz = kcc.num_programs(2) : i32
  kcc.program_grid %gx, %gy {group = 8 : i32}
  kcc.program_grid %gx, %gy, %gz {group = 8 : i32}
  %i = kcc.program_id(0) : i32
  %j = kcc.program_id(1) : i32
  %b = kcc.program_id(2) : i32
  %zero = arith.constant 0.0 : f32
  %t = kcc.load_tile %x[%d1, %d2] strides[%s0] at[%i, %j] other %zero : f32 {kcc.tma_refused = "the row stride is not a multiple of 16 bytes"} : !kcc.ptr<f32> -> tensor<64x64xf32>
  %u = kcc.load_tile %x[%d0, %d1, %d2] strides[%s0, %s1] at[%b, %i, %j] {kcc.mma_operand} : !kcc.ptr<f32> -> tensor<64x64xf32>
  %v = kcc.load_tile %x[%d2] strides[] at[%i] {kcc.tile_access = "expanded"} : !kcc.ptr<f32> -> tensor<64xf32>
  kcc.store_tile %t, %x[%d1, %d2] strides[%s0] at[%i, %j] : tensor<64x64xf32>, !kcc.ptr<f32>
  kcc.store_tile %u, %x[%d0, %d1, %d2] strides[%s0, %s1] at[%b, %i, %j] : tensor<64x64xf32>, !kcc.ptr<f32>
  return
}

// The persistent build of a kernel and the attributes on its loops and
// branches.
// CHECK-LABEL: func.func @persistent(
// CHECK-SAME: attributes {kcc.kernel, kcc.persistent = 2 : i32, kcc.persistent_of = @grouped}
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NEXT: kcc.cta_barrier
// CHECK-NEXT: } {kcc.data_dependent}
// CHECK: } {kcc.mma_overlap, kcc.persistent_tiles, kcc.warp_specialize_refused = "one stage"}
// CHECK: } {kcc.roles = 1 : i32}
func.func @persistent(%n: i32) attributes {kcc.kernel, kcc.persistent = 2 : i32, kcc.persistent_of = @grouped} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%count = %c0) -> (i32) : i32 {
    %go = arith.cmpi slt, %t, %n : i32
    scf.if %go {
      kcc.cta_barrier
    } {kcc.data_dependent}
    %next = arith.addi %count, %c1 : i32
    scf.yield %next : i32
  } {kcc.persistent_tiles, kcc.mma_overlap, kcc.warp_specialize_refused = "one stage"}
  %go2 = arith.cmpi slt, %r, %n : i32
  scf.if %go2 {
  } {kcc.roles = 1 : i32}
  return
}

// Layout IR: the lowering's annotations (butterflies, shared-memory padding,
// the MMA chosen or refused for a dot, the launch's dynamic shared memory).
// CHECK-LABEL: func.func @annotated(
// CHECK-SAME: attributes {kcc.dynamic_smem_bytes = 4096 : i64, kcc.kernel, kcc.num_warps = 4 : i32}
// CHECK: kcc.reduce sum %{{.*}} {axis = 0 : i32, kcc.butterfly = [{mask = 16 : i32, op = "shfl.bfly"}, {mask = 1 : i32, op = "dpp.quad_perm"}]} : tensor<128xf32, #kcc.blocked<vec = 1, threads = 128, warp = 32>> -> f32
// CHECK: kcc.trans %{{.*}} {kcc.smem_padding = array<i32: 32, 1>} : tensor<16x8xf32, #kcc.blocked<vec = 1, threads = 128, warp = 32>> -> tensor<8x16xf32, #kcc.blocked<vec = 1, threads = 128, warp = 32>>
// CHECK: kcc.dot %{{.*}}, %{{.*}}, %{{.*}} {kcc.mma = "mma.sync.m16n8k16", kcc.tensor_core_refused = {sm_90a = "the operands are not TMA-loaded"}} : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK: kcc.dot %{{.*}}, %{{.*}}, %{{.*}} {kcc.mma = "mfma.f32.16x16x16f16"} : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>
// CHECK: kcc.dot %{{.*}}, %{{.*}}, %{{.*}} {kcc.mma_refused = "the accumulator is f32 but N is 8"} : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
#b1 = #kcc.blocked<vec = 1, threads = 128, warp = 32>
func.func @annotated(%p: !kcc.ptr<f16>) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.dynamic_smem_bytes = 4096 : i64} {
  %r = kcc.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
  %f = arith.sitofp %r : tensor<128xi32, #b1> to tensor<128xf32, #b1>
  %s = kcc.reduce sum %f {axis = 0 : i32, kcc.butterfly = [{op = "shfl.bfly", mask = 16 : i32}, {op = "dpp.quad_perm", mask = 1 : i32}]} : tensor<128xf32, #b1> -> f32
  %t = kcc.reshape %f : tensor<128xf32, #b1> -> tensor<16x8xf32, #b1>
  %tt = kcc.trans %t {kcc.smem_padding = array<i32: 32, 1>} : tensor<16x8xf32, #b1> -> tensor<8x16xf32, #b1>
  %a = arith.constant dense<1.0> : tensor<64x16xf16>
  %bb = arith.constant dense<1.0> : tensor<16x64xf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
  %d = kcc.dot %a, %bb, %c {kcc.mma = "mma.sync.m16n8k16", kcc.tensor_core_refused = {sm_90a = "the operands are not TMA-loaded"}} : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
  %m = arith.constant dense<0.0> : tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>
  %e = kcc.dot %a, %bb, %m {kcc.mma = "mfma.f32.16x16x16f16"} : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32, #kcc.mfma_acc<waves = 4>>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %g = kcc.dot %a, %bb, %z {kcc.mma_refused = "the accumulator is f32 but N is 8"} : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Layout+effects IR: the async ops (ir/KccAsyncOps.td)
//===----------------------------------------------------------------------===//

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!wide = !kcc.smem<[64, 128], f16, stages = 1, swizzle = 128>
!pad = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
!out = !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<2>
!map = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!omap = !kcc.tensormap<[64, 32], f32, swizzle = 0>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// TMA copies, mbarriers, bulk groups and proxy fences.
// CHECK-LABEL: func.func @tma(
// CHECK-SAME: %[[A:.*]]: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 2 : i32}, %[[O:.*]]: !kcc.tensormap<[64, 32], f32, swizzle = 0> {kcc.tensor_map_of = 2 : i32}, %{{.*}}: !kcc.ptr<f16> {kcc.tensor_rank = 2 : i32})
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[BUF:.*]] = kcc.smem_alloc {kcc.smem_offset = 0 : i64} : <[64, 64], f16, stages = 2, swizzle = 128>
// CHECK: %[[WIDE:.*]] = kcc.smem_alloc : <[64, 128], f16, stages = 1, swizzle = 128>
// CHECK: %[[OB:.*]] = kcc.smem_alloc : <[64, 32], f32, stages = 1, swizzle = 0>
// CHECK: %[[BARS:.*]] = kcc.mbarrier_alloc : <2>
// CHECK: kcc.mbarrier_init %[[BARS]][%[[C0]]], count 1 : <2>
// CHECK: kcc.fence_mbarrier_init
// CHECK: kcc.mbarrier_arrive_expect_tx %[[BARS]][%[[C0]]], bytes 8192 : <2>
// CHECK: kcc.tma_load %[[A]][%[[C0]], %[[C0]]] -> %[[BUF]][%[[C0]]], %[[BARS]][%[[C0]]] : <[64, 64], f16, swizzle = 128>, <[64, 64], f16, stages = 2, swizzle = 128>, <2>
// CHECK: kcc.tma_load %[[A]][%[[C0]], %[[C0]]] -> %[[WIDE]][%[[C0]]], %[[BARS]][%[[C1]]] {parts = 2 : i32} : <[64, 64], f16, swizzle = 128>, <[64, 128], f16, stages = 1, swizzle = 128>, <2>
// CHECK: kcc.mbarrier_wait %[[BARS]][%[[C0]]], parity %[[C0]] : <2>
// CHECK: kcc.mbarrier_arrive %[[BARS]][%[[C1]]] : <2>
// CHECK: kcc.smem_load %[[BUF]][%[[C0]]] : <[64, 64], f16, stages = 2, swizzle = 128> -> tensor<64x64xf16>
// CHECK: kcc.cta_barrier
// CHECK: kcc.smem_store %{{.*}}, %[[OB]][%[[C0]]] window [0, 32] : tensor<64x64xf32>, <[64, 32], f32, stages = 1, swizzle = 0>
// CHECK: kcc.fence_proxy_async{{$}}
// CHECK-NEXT: kcc.fence_proxy_async global
// CHECK: kcc.tma_store %[[OB]][%[[C0]]] -> %[[O]][%[[C0]], %[[C0]]] : <[64, 32], f32, stages = 1, swizzle = 0>, <[64, 32], f32, swizzle = 0>
// CHECK: kcc.tma_store %[[WIDE]][%[[C0]]] -> %[[A]][%[[C0]], %[[C0]]] {parts = 2 : i32} : <[64, 128], f16, stages = 1, swizzle = 128>, <[64, 64], f16, swizzle = 128>
// CHECK: kcc.bulk_commit_group
// CHECK: kcc.bulk_wait_group 0 read
// CHECK: kcc.bulk_wait_group 1{{$}}
// CHECK: kcc.mbarrier_inval %[[BARS]][%[[C0]]] : <2>
func.func @tma(%a: !map {kcc.tensor_map_of = 2 : i32}, %o: !omap {kcc.tensor_map_of = 2 : i32},
               %base: !kcc.ptr<f16> {kcc.tensor_rank = 2 : i32}) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc {kcc.smem_offset = 0 : i64} : !sw
  %wide = kcc.smem_alloc : !wide
  %ob = kcc.smem_alloc : !out
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !sw, !bar
  kcc.tma_load %a[%c0, %c0] -> %wide[%c0], %bars[%c1] {parts = 2 : i32} : !map, !wide, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  kcc.mbarrier_arrive %bars[%c1] : !bar
  %t = kcc.smem_load %buf[%c0] : !sw -> tensor<64x64xf16>
  kcc.cta_barrier
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  kcc.smem_store %acc, %ob[%c0] window [0, 32] : tensor<64x64xf32>, !out
  kcc.fence_proxy_async
  kcc.fence_proxy_async global
  kcc.tma_store %ob[%c0] -> %o[%c0, %c0] : !out, !omap
  kcc.tma_store %wide[%c0] -> %a[%c0, %c0] {parts = 2 : i32} : !wide, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  kcc.bulk_wait_group 1
  kcc.mbarrier_inval %bars[%c0] : !bar
  return
}

// cp.async copies into row-padded stages and the mma.sync that reads them.
// CHECK-LABEL: func.func @cp_async_gather(
// CHECK: kcc.cp_async_gather %arg0 mask %arg1 : tensor<64x64xi1> -> %{{.*}}[%{{.*}}] : tensor<64x64x!kcc.ptr<f16>>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
// CHECK: kcc.cp_async_gather %arg0 -> %{{.*}}[%{{.*}}] : tensor<64x64x!kcc.ptr<f16>>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
func.func @cp_async_gather(%p: tensor<64x64x!kcc.ptr<f16>>, %m: tensor<64x64xi1>) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  kcc.cp_async_gather %p mask %m : tensor<64x64xi1> -> %buf[%c0] : tensor<64x64x!kcc.ptr<f16>>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  kcc.cp_async_gather %p -> %buf[%c0] : tensor<64x64x!kcc.ptr<f16>>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  return
}

// CHECK-LABEL: func.func @cp_async(
// CHECK-SAME: %[[BASE:.*]]: !kcc.ptr<f16>, %[[D:.*]]: i32)
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[S:.*]] = kcc.smem_alloc : <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
// CHECK: kcc.cp_async %[[BASE]][%[[D]], %[[D]]] strides[%[[D]]] at[%[[C0]], %[[C0]]] -> %[[S]][%[[C0]]] : <f16>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
// CHECK: kcc.cp_async %[[BASE]][%[[D]], %[[D]], %[[D]]] strides[%[[D]], %[[D]]] at[%[[C0]], %[[C0]], %[[C1]]] -> %[[S]][%[[C1]]] : <f16>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
// CHECK: kcc.cp_async_commit_group
// CHECK: kcc.cp_async_wait_group 0
// CHECK: kcc.cta_barrier
// CHECK: kcc.warp_mma %[[S]][%[[C0]]], %[[S]][%[[C1]]], %{{.*}} {a_k_major = true, b_k_major = false} : <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>, tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @cp_async(%base: !kcc.ptr<f16>, %d: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = kcc.smem_alloc : !pad
  kcc.cp_async %base[%d, %d] strides[%d] at[%c0, %c0] -> %a[%c0] : <f16>, !pad
  kcc.cp_async %base[%d, %d, %d] strides[%d, %d] at[%c0, %c0, %c1] -> %a[%c1] : <f16>, !pad
  kcc.cp_async_commit_group
  kcc.cp_async_wait_group 0
  kcc.cta_barrier
  %acc = arith.constant dense<0.0> : !acc
  %r = kcc.warp_mma %a[%c0], %a[%c1], %acc {a_k_major = true, b_k_major = false} : !pad, !pad, !acc -> !acc
  return
}

// Ping-pong: two consumer groups run the consumer region.
// CHECK-LABEL: func.func @ping_pong(
// CHECK: } consumer(warpgroups = 1, regs = 232, groups = 2) {
// CHECK-NEXT: %{{.*}} = kcc.consumer_group : i32
func.func @ping_pong() attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %g = kcc.consumer_group : i32
  }
  return
}

// Two consumer warpgroups of one group taking turns (named barriers 3, 4).
// CHECK-LABEL: func.func @turns(
// CHECK: kcc.warpgroup_turn start barrier 3
// CHECK-NEXT: kcc.warpgroup_turn wait barrier 3
// CHECK-NEXT: kcc.warpgroup_turn pass barrier 3
func.func @turns() attributes {kcc.kernel, kcc.num_warps = 8 : i32} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    kcc.warpgroup_turn start barrier 3
    kcc.warpgroup_turn wait barrier 3
    kcc.warpgroup_turn pass barrier 3
  }
  return
}

// Warp specialization and wgmma groups.
// CHECK-LABEL: func.func @wgmma(
// CHECK-SAME: attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.producer_warps = 4 : i32}
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[S:.*]] = kcc.smem_alloc : <[64, 64], f16, stages = 2, swizzle = 128>
// CHECK: %[[EMPTY:.*]] = kcc.mbarrier_alloc : <2>
// CHECK: kcc.fence_mbarrier_init
// CHECK-NEXT: kcc.warp_specialize producer(warps = 4, regs = 40) {
// CHECK-NEXT: kcc.mbarrier_wait %[[EMPTY]][%[[C0]]], parity %[[C0]] : <2>
// CHECK-NEXT: } consumer(warpgroups = 1, regs = 232) {
// CHECK: %[[R:.*]] = kcc.warpgroup_mma %[[S]][%[[C0]]], %[[S]][%[[C1]]], %{{.*}} {a_k_major = true, b_k_major = true, pending = 1 : i32} : <[64, 64], f16, stages = 2, swizzle = 128>, <[64, 64], f16, stages = 2, swizzle = 128>, tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK: %[[W:.*]] = kcc.warpgroup_mma_wait 0 %[[R]] : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK: %[[P:.*]] = arith.truncf %[[W]] : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> to tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK: kcc.warpgroup_mma_reg_a %[[P]], %[[S]][%[[C1]]], %[[W]] {b_k_major = false} : tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>, <[64, 64], f16, stages = 2, swizzle = 128>, tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
// CHECK: kcc.warpgroup_mma_wait 0{{$}}
// CHECK: kcc.mbarrier_arrive %[[EMPTY]][%[[C0]]] per_warpgroup : <2>
// CHECK: kcc.convert_layout %[[W]] : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x64xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @wgmma(%n: i32) attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.producer_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = kcc.smem_alloc : !sw
  %empty = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %empty[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    kcc.mbarrier_wait %empty[%c0], parity %c0 : !bar
  } consumer(warpgroups = 1, regs = 232) {
    %acc = arith.constant dense<0.0> : !acc
    %r = kcc.warpgroup_mma %a[%c0], %a[%c1], %acc {a_k_major = true, b_k_major = true, pending = 1 : i32} : !sw, !sw, !acc -> !acc
    %w = kcc.warpgroup_mma_wait 0 %r : !acc
    %p = arith.truncf %w : !acc to tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>
    %o = kcc.warpgroup_mma_reg_a %p, %a[%c1], %w {b_k_major = false} : tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>, !sw, !acc -> !acc
    kcc.warpgroup_mma_wait 0
    kcc.mbarrier_arrive %empty[%c0] per_warpgroup : !bar
    %cv = kcc.convert_layout %w : !acc -> tensor<64x64xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
  }
  return
}

// Blackwell: TMEM allocations, tcgen05.mma and its commit, TMEM loads.
// CHECK-LABEL: func.func @tcgen05(
// CHECK-SAME: %[[GO:.*]]: i1)
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[A:.*]] = kcc.smem_alloc : <[128, 64], f16, stages = 2, swizzle = 128>
// CHECK: %[[B:.*]] = kcc.smem_alloc : <[64, 64], f16, stages = 2, swizzle = 128>
// CHECK: %[[BARS:.*]] = kcc.mbarrier_alloc : <2>
// CHECK: %[[T:.*]] = kcc.tmem_alloc relinquish : <64>
// CHECK: %[[T2:.*]] = kcc.tmem_alloc : <32>
// CHECK: kcc.tcgen05_mma %[[A]][%[[C0]]], %[[B]][%[[C0]]], %[[T]], %[[GO]] {a_k_major = true, b_k_major = true} : <[128, 64], f16, stages = 2, swizzle = 128>, <[64, 64], f16, stages = 2, swizzle = 128>, <64>
// CHECK: kcc.tcgen05_commit %[[BARS]][%[[C0]]] : <2>
// CHECK: kcc.tmem_load %[[T]] : <64> -> tensor<128x64xf32, #kcc.tmem_acc<warpgroups = 1>>
// CHECK: kcc.tmem_load %[[T]] : <64> -> tensor<128x64xf32>
// CHECK: kcc.tmem_dealloc %[[T]] : <64>
// CHECK: kcc.tmem_dealloc %[[T2]] : <32>
func.func @tcgen05(%go: i1) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  %b = kcc.smem_alloc : !sw
  %bars = kcc.mbarrier_alloc : !bar
  %t = kcc.tmem_alloc relinquish : !kcc.tmem<64>
  %t2 = kcc.tmem_alloc : !kcc.tmem<32>
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = true} : !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>, !sw, !kcc.tmem<64>
  kcc.tcgen05_commit %bars[%c0] : !bar
  %r = kcc.tmem_load %t : !kcc.tmem<64> -> tensor<128x64xf32, #kcc.tmem_acc<warpgroups = 1>>
  %u = kcc.tmem_load %t : !kcc.tmem<64> -> tensor<128x64xf32>
  kcc.tmem_dealloc %t : !kcc.tmem<64>
  kcc.tmem_dealloc %t2 : !kcc.tmem<32>
  return
}

// Tile extents need not be powers of two (kcc-check-tile-extents decides
// per target where such a tile can live).
// CHECK-LABEL: func.func @arange_any_size(
// CHECK: kcc.arange {end = 100 : i32, start = 20 : i32} : tensor<80xi32>
func.func @arange_any_size() -> tensor<80xi32> {
  %r = kcc.arange {end = 100 : i32, start = 20 : i32} : tensor<80xi32>
  return %r : tensor<80xi32>
}

// A histogram, with and without a mask.
// CHECK-LABEL: func.func @histogram
// CHECK: kcc.histogram %{{.*}} {bins = 16 : i32} : tensor<64xi32> -> tensor<16xi32>
// CHECK: kcc.histogram %{{.*}} mask %{{.*}} {bins = 64 : i32} : tensor<64xi32>, tensor<64xi1> -> tensor<64xi32>
func.func @histogram(%t: tensor<64xi32>, %m: tensor<64xi1>) {
  %a = kcc.histogram %t {bins = 16 : i32} : tensor<64xi32> -> tensor<16xi32>
  %b = kcc.histogram %t mask %m {bins = 64 : i32} : tensor<64xi32>, tensor<64xi1> -> tensor<64xi32>
  return
}
