// RUN: kcc-opt %s -split-input-file -verify-diagnostics

func.func @load_counts(%p: !kcc.ptr<f32>, %d: i32) {
  // expected-error@+1 {{a rank-2 tile of a tensor of rank 2 to 3 needs one size and one coordinate per tensor dimension and one stride fewer, got 1 sizes, 0 stride(s) and 2 coordinates}}
  %t = kcc.load_tile %p[%d] strides[] at[%d, %d] : !kcc.ptr<f32> -> tensor<4x4xf32>
  return
}

// -----

// A batched tensor (rank 3) takes its batch index as a third coordinate.
func.func @batched_counts(%p: !kcc.ptr<f32>, %d: i32) {
  // expected-error@+1 {{got 3 sizes, 2 stride(s) and 2 coordinates}}
  %t = kcc.load_tile %p[%d, %d, %d] strides[%d, %d] at[%d, %d] : !kcc.ptr<f32> -> tensor<4x4xf32>
  return
}

// -----

func.func @rank4(%p: !kcc.ptr<f32>, %d: i32, %t: tensor<4x4xf32>) {
  // expected-error@+1 {{got 4 sizes, 3 stride(s) and 4 coordinates}}
  kcc.store_tile %t, %p[%d, %d, %d, %d] strides[%d, %d, %d] at[%d, %d, %d, %d] : tensor<4x4xf32>, !kcc.ptr<f32>
  return
}

// -----

func.func @load_elem(%p: !kcc.ptr<f32>, %d: i32) {
  // expected-error@+1 {{tile element type 'f16' differs from the tensor's 'f32'}}
  %t = kcc.load_tile %p[%d] strides[] at[%d] : !kcc.ptr<f32> -> tensor<4xf16>
  return
}

// -----

func.func @load_other(%p: !kcc.ptr<f32>, %d: i32) {
  // expected-error@+1 {{'other' must be a 'f32'}}
  %t = kcc.load_tile %p[%d] strides[] at[%d] other %d : i32 : !kcc.ptr<f32> -> tensor<4xf32>
  return
}

// -----

func.func @trans_shape(%t: tensor<4x8xf32>) {
  // expected-error@+1 {{transposes a 2-D tile}}
  %r = kcc.trans %t : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%t: tensor<4x8xf32>) {
  // expected-error@+1 {{keeps the element type and count}}
  %r = kcc.reshape %t : tensor<4x8xf32> -> tensor<16xf32>
  return
}

// -----

func.func @smem_swizzle() {
  // expected-error@+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 16}}
  %b = kcc.smem_alloc : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 16>
  return
}

// -----

func.func @tma_box(%m: !kcc.tensormap<[32, 64], f32, swizzle = 0>, %i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<1>
  // expected-error@+1 {{the box does not match the stage shape}}
  kcc.tma_load %m[%i, %i] -> %b[%i], %bars[%i] : !kcc.tensormap<[32, 64], f32, swizzle = 0>, !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>, !kcc.mbarrier<1>
  return
}

// -----

func.func @tma_coords(%m: !kcc.tensormap<[32, 64], f32, swizzle = 0>, %i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
  // expected-error@+1 {{needs one coordinate per box dimension (2)}}
  kcc.tma_store %b[%i] -> %m[%i] : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>, !kcc.tensormap<[32, 64], f32, swizzle = 0>
  return
}

// -----

// A batched box is one matrix of the batch: 1 wide in its leading dimension.
func.func @tma_batched_box(%m: !kcc.tensormap<[2, 32, 64], f32, swizzle = 0>, %i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
  // expected-error@+1 {{a box of rank 3 must be 1 wide in its leading dimensions (one matrix of a batch)}}
  kcc.tma_store %b[%i] -> %m[%i, %i, %i] : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>, !kcc.tensormap<[2, 32, 64], f32, swizzle = 0>
  return
}

// -----

func.func @tma_batched_ok(%m: !kcc.tensormap<[1, 32, 64], f32, swizzle = 0>, %i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<1>
  kcc.tma_load %m[%i, %i, %i] -> %b[%i], %bars[%i] : !kcc.tensormap<[1, 32, 64], f32, swizzle = 0>, !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>, !kcc.mbarrier<1>
  // expected-error@+1 {{the boxes does not match the stage shape}}
  kcc.tma_load %m[%i, %i, %i] -> %b[%i], %bars[%i] {parts = 2 : i32} : !kcc.tensormap<[1, 32, 64], f32, swizzle = 0>, !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>, !kcc.mbarrier<1>
  return
}

// -----

func.func @smem_store_window(%t: tensor<128x256xf16>, %i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  // A column chunk of the tile: fine.
  kcc.smem_store %t, %b[%i] window [0, 192] : tensor<128x256xf16>, !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  // expected-error@+1 {{the window at [0, 200] of the stage's shape reaches outside the stored tile 'tensor<128x256xf16>'}}
  kcc.smem_store %t, %b[%i] window [0, 200] : tensor<128x256xf16>, !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  return
}

// -----

func.func @smem_store_window_rank(%t: tensor<128x256xf16>, %i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  // expected-error@+1 {{a window needs one offset per dimension of the tile and a stage of the same rank}}
  kcc.smem_store %t, %b[%i] window [0] : tensor<128x256xf16>, !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  return
}

// -----

func.func @smem_store_window_type(%t: tensor<128x256xf32>, %i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  // expected-error@+1 {{the stored tile's element type does not match the stage's}}
  kcc.smem_store %t, %b[%i] window [0, 0] : tensor<128x256xf32>, !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
  return
}

// -----

func.func @smem_load_shape(%i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0>
  // expected-error@+1 {{the result tile does not match the stage shape}}
  %t = kcc.smem_load %b[%i] : !kcc.smem<[32, 64], f32, stages = 1, swizzle = 0> -> tensor<64x32xf32>
  return
}

// -----

// A [1, N] stage reads as an [N, 1] column, not as any other shape.
func.func @smem_load_column_shape(%i: i32) {
  %b = kcc.smem_alloc : !kcc.smem<[1, 128], f32, stages = 2, swizzle = 0>
  %ok = kcc.smem_load %b[%i] : !kcc.smem<[1, 128], f32, stages = 2, swizzle = 0> -> tensor<128x1xf32>
  // expected-error@+1 {{the result tile does not match the stage shape}}
  %t = kcc.smem_load %b[%i] : !kcc.smem<[1, 128], f32, stages = 2, swizzle = 0> -> tensor<64x2xf32>
  return
}

// -----

func.func @padding(%t: tensor<4x8xf32>) {
  // expected-error@+1 {{kcc.smem_padding must be array<i32: every, pad> with every > 0 and pad >= 0}}
  %r = kcc.trans %t {kcc.smem_padding = array<i32: 0, 1>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

// expected-error@+1 {{kcc.tensor_map_of applies to tensormap arguments and names a pointer argument}}
func.func @map_of(%p: !kcc.ptr<f32>, %m: !kcc.tensormap<[32, 64], f32, swizzle = 0> {kcc.tensor_map_of = 1 : i32}) {
  return
}

// -----

// expected-error@+1 {{kcc.tensor_rank (1, 2 or 3) applies to pointer arguments}}
func.func @rank(%p: !kcc.ptr<f32> {kcc.tensor_rank = 4 : i32}) {
  return
}

// -----

// A dot whose accumulator has the MMA register layout runs as mma.sync: it
// needs f16/bf16 operands, an f32 accumulator and whole m16n8k16 blocks.
func.func @mma_sync_types(%a: tensor<64x16xf32, #kcc.blocked<vec = 1, threads = 128, warp = 32>>, %b: tensor<16x16xf32, #kcc.blocked<vec = 1, threads = 128, warp = 32>>, %c: tensor<64x16xf32, #kcc.wgmma_acc<warpgroups = 1>>) {
  // expected-error@+1 {{an accumulator in the #kcc.wgmma_acc<warpgroups = 1> layout needs f16 or bf16 operands of one type and an f32 accumulator}}
  %r = kcc.dot %a, %b, %c : tensor<64x16xf32, #kcc.blocked<vec = 1, threads = 128, warp = 32>>, tensor<16x16xf32, #kcc.blocked<vec = 1, threads = 128, warp = 32>> -> tensor<64x16xf32, #kcc.wgmma_acc<warpgroups = 1>>
  return
}

// -----

func.func @mma_sync_shape(%a: tensor<64x16xf16, #kcc.blocked<vec = 1, threads = 128, warp = 32>>, %b: tensor<16x4xf16, #kcc.blocked<vec = 1, threads = 128, warp = 32>>, %c: tensor<64x4xf32, #kcc.wgmma_acc<warpgroups = 1>>) {
  // expected-error@+1 {{an mma.sync dot needs M a multiple of 64, N of 8 and K of 16}}
  %r = kcc.dot %a, %b, %c : tensor<64x16xf16, #kcc.blocked<vec = 1, threads = 128, warp = 32>>, tensor<16x4xf16, #kcc.blocked<vec = 1, threads = 128, warp = 32>> -> tensor<64x4xf32, #kcc.wgmma_acc<warpgroups = 1>>
  return
}

// -----

func.func @mma_attr(%a: tensor<64x16xf32>, %b: tensor<16x16xf32>, %c: tensor<64x16xf32>) {
  // expected-error@+1 {{kcc.mma must be "mma.sync.m16n8k16", "mma.sync.m16n8k32", "mfma.f32.16x16x16f16", "mfma.f32.16x16x16bf16.1k", "mfma.i32.16x16x16i8", "mfma.i32.16x16x32.i8", "mfma.f32.16x16x32.fp8.fp8", "mfma.f32.16x16x32.fp8.bf8", "mfma.f32.16x16x32.bf8.fp8" or "mfma.f32.16x16x32.bf8.bf8" on a kcc.dot}}
  %r = kcc.dot %a, %b, %c {kcc.mma = "wgmma"} : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  return
}

// -----

func.func @mfma_shape(%a: tensor<32x16xf16, #kcc.blocked<vec = 1, threads = 128, warp = 64>>, %b: tensor<16x16xf16, #kcc.blocked<vec = 1, threads = 128, warp = 64>>, %c: tensor<32x16xf32, #kcc.mfma_acc<waves = 4>>) {
  // expected-error@+1 {{an MFMA dot needs M a multiple of 16 x waves, N and K multiples of 16}}
  %r = kcc.dot %a, %b, %c : tensor<32x16xf16, #kcc.blocked<vec = 1, threads = 128, warp = 64>>, tensor<16x16xf16, #kcc.blocked<vec = 1, threads = 128, warp = 64>> -> tensor<32x16xf32, #kcc.mfma_acc<waves = 4>>
  return
}

// -----

// expected-error@+1 {{waves must be 1-16, got 0}}
func.func @mfma_waves(%c: tensor<32x16xf32, #kcc.mfma_acc<waves = 0>>) {
  return
}

// -----

// kcc.persistent_tiles marks kcc-rasterize-programs' tile loop: an scf.for
// over i32 whose first iter_arg is the tile count.
func.func @persistent_tiles_without_count(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{kcc.persistent_tiles applies to an scf.for over i32 whose first iter_arg is an i32 tile count}}
  scf.for %t = %c0 to %n step %c1 : i32 {
  } {kcc.persistent_tiles}
  return
}

// -----

// expected-error@+1 {{kcc.persistent (CTAs per multiprocessor) must be a positive integer}}
func.func @persistent_zero() attributes {kcc.persistent = 0 : i32} {
  return
}
