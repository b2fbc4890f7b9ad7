// RUN: kcc-opt %s -split-input-file -verify-diagnostics

// The verifiers of the kcc dialect (ir/Dialect.cpp) that the other
// *-invalid.mlir files of this folder leave out: layout attributes, types,
// the kernel and argument attributes, and the tile IR ops. Each case is one
// error, at the op, attribute or type that has it.

//===----------------------------------------------------------------------===//
// Layout attributes and types
//===----------------------------------------------------------------------===//

// expected-error@+1 {{vec must be a power of two <= 16, got 3}}
func.func private @vec_not_pow2(tensor<4xf32, #kcc.blocked<vec = 3, threads = 32, warp = 32>>)

// -----

// expected-error@+1 {{vec must be a power of two <= 16, got 32}}
func.func private @vec_too_wide(tensor<4xf32, #kcc.blocked<vec = 32, threads = 32, warp = 32>>)

// -----

// expected-error@+1 {{warp must be 32 or 64 lanes, got 16}}
func.func private @warp_16(tensor<4xf32, #kcc.blocked<vec = 1, threads = 32, warp = 16>>)

// -----

// expected-error@+1 {{threads must be a positive multiple of the warp size and at most 1024, got 48}}
func.func private @threads_partial_warp(tensor<4xf32, #kcc.blocked<vec = 1, threads = 48, warp = 32>>)

// -----

// expected-error@+1 {{threads must be a positive multiple of the warp size and at most 1024, got 2048}}
func.func private @threads_too_many(tensor<4xf32, #kcc.blocked<vec = 1, threads = 2048, warp = 64>>)

// -----

// expected-error@+1 {{warpgroups must be 1-8, got 0}}
func.func private @wgmma_none(tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 0>>)

// -----

// expected-error@+1 {{warpgroups must be 1-8, got 9}}
func.func private @wgmma_too_many(tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 9>>)

// -----

// expected-error@+1 {{waves must be 1-16, got 17}}
func.func private @mfma_too_many(tensor<64x64xf32, #kcc.mfma_acc<waves = 17>>)

// -----

// expected-error@+1 {{warpgroups must be 1-4, got 5}}
func.func private @tmem_acc_too_many(tensor<128x64xf32, #kcc.tmem_acc<warpgroups = 5>>)

// -----

// expected-error@+1 {{a shared-memory tile has 1 or 2 positive dimensions}}
func.func private @smem_rank3(!kcc.smem<[2, 64, 64], f16, stages = 1, swizzle = 0>)

// -----

// expected-error@+1 {{a shared-memory tile has 1 or 2 positive dimensions}}
func.func private @smem_empty_dim(!kcc.smem<[0, 64], f16, stages = 1, swizzle = 0>)

// -----

// expected-error@+1 {{a shared-memory tile holds integers or floats}}
func.func private @smem_of_pointers(!kcc.smem<[64], !kcc.ptr<f32>, stages = 1, swizzle = 0>)

// -----

// expected-error@+1 {{a shared-memory buffer has at least one stage}}
func.func private @smem_no_stage(!kcc.smem<[64, 64], f16, stages = 0, swizzle = 0>)

//===----------------------------------------------------------------------===//
// Argument attributes
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{kcc.align applies to pointer arguments}}
func.func @align_on_int(%n: i32 {kcc.align = 16 : i64}) {
  return
}

// -----

// expected-error@+1 {{kcc.align must be a power of two}}
func.func @align_not_pow2(%p: !kcc.ptr<f32> {kcc.align = 12 : i64}) {
  return
}

// -----

// expected-error@+1 {{kcc.divisibility applies to integer arguments}}
func.func @divisibility_on_bool(%b: i1 {kcc.divisibility = 16 : i64}) {
  return
}

// -----

// expected-error@+1 {{kcc.divisibility must be positive}}
func.func @divisibility_zero(%n: i32 {kcc.divisibility = 0 : i64}) {
  return
}

// -----

// expected-error@+1 {{kcc.tensor_map_of applies to tensormap arguments and names a pointer argument}}
func.func @map_of_out_of_range(%m: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 3 : i32}, %p: !kcc.ptr<f16>) {
  return
}

// -----

// expected-error@+1 {{kcc.tensor_rank (1, 2 or 3) applies to pointer arguments}}
func.func @tensor_rank_4(%p: !kcc.ptr<f16> {kcc.tensor_rank = 4 : i32}) {
  return
}

// -----

// expected-error@+1 {{unknown kcc argument attribute "kcc.aligned"}}
func.func @unknown_arg_attr(%p: !kcc.ptr<f32> {kcc.aligned = 16 : i64}) {
  return
}

//===----------------------------------------------------------------------===//
// Kernel and operation attributes
//===----------------------------------------------------------------------===//

// -----

func.func @kernel_on_op() {
  // expected-error@+1 {{kcc.kernel applies to func.func}}
  %c = arith.constant {kcc.kernel} 0 : i32
  return
}

// -----

// expected-error@+1 {{a kernel returns no values}}
func.func @kernel_result() -> i32 attributes {kcc.kernel} {
  %c = arith.constant 0 : i32
  return %c : i32
}

// -----

// expected-error@+1 {{kcc.smem_bytes must be a non-negative integer on a func.func (kcc-allocate-shared-memory records it)}}
func.func @smem_bytes_negative() attributes {kcc.kernel, kcc.smem_bytes = -1 : i64, kcc.smem_alignment = 16 : i64} {
  return
}

// -----

// expected-error@+1 {{kcc.smem_alignment must be a power-of-two integer on a func.func (kcc-allocate-shared-memory records it)}}
func.func @smem_alignment_not_power_of_two() attributes {kcc.kernel, kcc.smem_bytes = 64 : i64, kcc.smem_alignment = 24 : i64} {
  return
}

// -----

func.func @smem_bytes_on_op() {
  // expected-error@+1 {{kcc.smem_bytes must be a non-negative integer on a func.func (kcc-allocate-shared-memory records it)}}
  %c = arith.constant {kcc.smem_bytes = 64 : i64} 0 : i32
  return
}

// -----

// expected-error@+1 {{kcc.grid must be an array of three C expressions}}
func.func @grid_two_axes() attributes {kcc.kernel, kcc.grid = ["n", "1"]} {
  return
}

// -----

// expected-error@+1 {{kcc.grid must be an array of three C expressions}}
func.func @grid_not_strings() attributes {kcc.kernel, kcc.grid = [1 : i32, 1 : i32, 1 : i32]} {
  return
}

// -----

// expected-error@+1 {{kcc.coverage must be an array of {tensor, stores[, guard, when]} or {tensor, unproven}}}
func.func @coverage_guard_without_when() attributes {kcc.kernel, kcc.coverage = [{tensor = "x", stores = 1 : i32, guard = "n % 64 == 0"}]} {
  return
}

// -----

// expected-error@+1 {{kcc.num_warps must be a power of two}}
func.func @num_warps_6() attributes {kcc.kernel, kcc.num_warps = 6 : i32} {
  return
}

// -----

// expected-error@+1 {{kcc.producer_warps must be a positive multiple of 4 (whole warpgroups)}}
func.func @producer_warps_2() attributes {kcc.kernel, kcc.num_warps = 4 : i32, kcc.producer_warps = 2 : i32} {
  return
}

// -----

// expected-error@+1 {{kcc.persistent_of names the one-program-per-tile build (a symbol) of a kernel with kcc.persistent}}
func.func @persistent_of_without_persistent() attributes {kcc.kernel, kcc.persistent_of = @k} {
  return
}

// -----

// expected-error@+1 {{kcc.raster_group (group(N)) must be a positive integer}}
func.func @raster_group_zero() attributes {kcc.kernel, kcc.raster_group = 0 : i32} {
  return
}

// -----

func.func @access_width_3(%p: !kcc.ptr<f32>) {
  // expected-error@+1 {{kcc.access_width must be a power of two}}
  %x = kcc.load %p {kcc.access_width = 3 : i32} : !kcc.ptr<f32>
  return
}

// -----

#b = #kcc.blocked<vec = 1, threads = 32, warp = 32>
func.func @butterfly_zero_mask(%t: tensor<32xf32, #b>) {
  // expected-error@+1 {{kcc.butterfly must be an array of {op = "<exchange>", mask = m} with m > 0}}
  %s = kcc.reduce sum %t {axis = 0 : i32, kcc.butterfly = [{op = "shfl.bfly", mask = 0 : i32}]} : tensor<32xf32, #b> -> f32
  return
}

// -----

func.func @tensor_core_refused_on_load(%p: !kcc.ptr<f32>) {
  // expected-error@+1 {{kcc.tensor_core_refused must be a dictionary from target names to reasons, on kcc.dot or kcc.warp_mma}}
  %x = kcc.load %p {kcc.tensor_core_refused = {sm_90a = "no"}} : !kcc.ptr<f32>
  return
}

// -----

// expected-error@+1 {{unknown kcc attribute kcc.kernels}}
func.func @unknown_attr() attributes {kcc.kernels} {
  return
}

//===----------------------------------------------------------------------===//
// Tile IR ops
//===----------------------------------------------------------------------===//

// -----

func.func @arange_2d() {
  // expected-error@+1 {{result must be a 1-D tile}}
  %r = kcc.arange {end = 16 : i32, start = 0 : i32} : tensor<4x4xi32>
  return
}

// -----

func.func @arange_empty() {
  // expected-error@+1 {{end must be greater than start}}
  %r = kcc.arange {end = 0 : i32, start = 0 : i32} : tensor<1xi32>
  return
}

// -----

func.func @arange_size() {
  // expected-error@+1 {{result has 16 elements, expected 8}}
  %r = kcc.arange {end = 16 : i32, start = 8 : i32} : tensor<16xi32>
  return
}

// -----

func.func @broadcast_rank(%t: tensor<4xf32>) {
  // expected-error@+1 {{source and result must have the same rank}}
  %b = kcc.broadcast %t : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_elem(%t: tensor<1x4xf32>) {
  // expected-error@+1 {{source and result must have the same element type}}
  %b = kcc.broadcast %t : tensor<1x4xf32> -> tensor<4x4xf16>
  return
}

// -----

func.func @broadcast_non_unit(%t: tensor<2x4xf32>) {
  // expected-error@+1 {{cannot broadcast dimension of size 2 to 4}}
  %b = kcc.broadcast %t : tensor<2x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @expand_dims_axis(%t: tensor<4xf32>) {
  // expected-error@+1 {{axis 2 out of range}}
  %e = kcc.expand_dims %t {axis = 2 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @expand_dims_shape(%t: tensor<4xf32>) {
  // expected-error@+1 {{result type does not insert a unit dimension at axis 0}}
  %e = kcc.expand_dims %t {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @addptr_tile_and_scalar(%p: tensor<4x!kcc.ptr<f32>>, %o: i32) {
  // expected-error@+1 {{pointer and offset must both be tiles or both scalars}}
  %q = kcc.addptr %p, %o : tensor<4x!kcc.ptr<f32>>, i32
  return
}

// -----

func.func @addptr_shapes(%p: tensor<4x!kcc.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error@+1 {{pointer and offset tiles must have the same shape}}
  %q = kcc.addptr %p, %o : tensor<4x!kcc.ptr<f32>>, tensor<8xi32>
  return
}

// -----

func.func @addptr_bool(%p: !kcc.ptr<f32>, %o: i1) {
  // expected-error@+1 {{offset must not be i1}}
  %q = kcc.addptr %p, %o : !kcc.ptr<f32>, i1
  return
}

// -----

// (Only the generic form can leave out the mask; with i1 elements `other`
// passes the type constraints and reaches the verifier.)
func.func @load_other_without_mask(%p: !kcc.ptr<i1>, %o: i1) {
  // expected-error@+1 {{'other' requires a mask}}
  %x = "kcc.load"(%p, %o) {operandSegmentSizes = array<i32: 1, 0, 1>} : (!kcc.ptr<i1>, i1) -> i1
  return
}

// -----

func.func @reduce_axis(%t: tensor<4x8xf32>) {
  // expected-error@+1 {{axis 2 out of range for a rank-2 tile}}
  %r = kcc.reduce sum %t {axis = 2 : i32} : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_result(%t: tensor<4x8xf32>) {
  // expected-error@+1 {{result type must be 'tensor<8xf32>'}}
  %r = kcc.reduce max %t {axis = 0 : i32} : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

// A 1-D tile in #kcc.wgmma_acc is a row vector; columns leave the layout.
func.func @reduce_acc_columns(%t: tensor<64x16xf32, #kcc.wgmma_acc<warpgroups = 1>>) {
  // expected-error@+1 {{a column reduction of a #kcc.wgmma_acc tile gives a plain or #kcc.blocked 'tensor<16xf32>'}}
  %r = kcc.reduce max %t {axis = 0 : i32} : tensor<64x16xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<16xf32, #kcc.wgmma_acc<warpgroups = 1>>
  return
}

// -----

func.func @reduce_1d_to_tile(%t: tensor<8xf32>) {
  // expected-error@+1 {{result type must be 'f32'}}
  %r = kcc.reduce min %t {axis = 0 : i32} : tensor<8xf32> -> tensor<1xf32>
  return
}

// -----

func.func @dot_1d(%a: tensor<16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{operands must be 2-D tiles}}
  %d = kcc.dot %a, %b, %c : tensor<16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_shapes(%a: tensor<16x8xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{shapes do not form a matrix product: 'tensor<16x8xf32>' * 'tensor<16x16xf32>' + 'tensor<16x16xf32>'}}
  %d = kcc.dot %a, %b, %c : tensor<16x8xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @load_tile_rank3(%p: !kcc.ptr<f32>, %d: i32) {
  // expected-error@+1 {{tiles of rank 1 or 2 only, got rank 3}}
  %t = kcc.load_tile %p[%d, %d, %d] strides[%d, %d] at[%d, %d, %d] : !kcc.ptr<f32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @convert_layout_shape(%t: tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>) {
  // expected-error@+1 {{source and result must have the same shape and element type}}
  %c = kcc.convert_layout %t : tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>> -> tensor<64x32xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
  return
}

//===----------------------------------------------------------------------===//
// Async ops
//===----------------------------------------------------------------------===//

// -----

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
func.func @warp_specialize_nested(%go: i1) attributes {kcc.kernel} {
  scf.if %go {
    // expected-error@+1 {{must be directly in a kernel's body}}
    kcc.warp_specialize producer(warps = 4, regs = 40) {
      %p = arith.constant 0 : i32
    } consumer(warpgroups = 1, regs = 232) {
      %c = arith.constant 0 : i32
    }
  }
  return
}

// -----

func.func @consumer_group_in_producer() attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    // expected-error@+1 {{must be in the consumer region of a kcc.warp_specialize (only consumer groups have an index)}}
    %g = kcc.consumer_group : i32
  } consumer(warpgroups = 1, regs = 232, groups = 2) {
    %c = arith.constant 0 : i32
  }
  return
}

// -----

func.func @consumer_group_outside() attributes {kcc.kernel} {
  // expected-error@+1 {{must be in the consumer region of a kcc.warp_specialize}}
  %g = kcc.consumer_group : i32
  return
}

// -----

func.func @three_consumer_groups() attributes {kcc.kernel} {
  // expected-error@+1 {{attribute 'consumer_groups' failed to satisfy constraint}}
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 1, regs = 232, groups = 3) {
    %c = arith.constant 0 : i32
  }
  return
}

// -----

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
func.func @wgmma_blocked_acc(%acc: tensor<64x64xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !sw
  // expected-error@+1 {{the accumulator needs the #kcc.wgmma_acc layout}}
  %r = kcc.warpgroup_mma %a[%c0], %a[%c0], %acc {a_k_major = true, b_k_major = true} : !sw, !sw, tensor<64x64xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>> -> tensor<64x64xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
  return
}

// -----

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @wgmma_result(%acc: !acc) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !sw
  // expected-error@+1 {{result type must match the accumulator}}
  %r = kcc.warpgroup_mma %a[%c0], %a[%c0], %acc {a_k_major = true, b_k_major = true} : !sw, !sw, !acc -> tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>
  return
}

// -----

!pad = !kcc.smem<[64, 64], f32, stages = 2, swizzle = 0, pad = 16>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @warp_mma_f32_operands(%acc: !acc) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !pad
  // expected-error@+1 {{takes f16 or bf16 operands of one type and an f32 accumulator, or i8 operands and an i32 accumulator}}
  %r = kcc.warp_mma %a[%c0], %a[%c0], %acc {a_k_major = true, b_k_major = true} : !pad, !pad, !acc -> !acc
  return
}

// -----

!pad = !kcc.smem<[72, 72], f16, stages = 2, swizzle = 0, pad = 16>
!acc = tensor<72x72xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @warp_mma_shape(%acc: !acc) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !pad
  // expected-error@+1 {{M must be a multiple of 16, N of 8 and K of 16}}
  %r = kcc.warp_mma %a[%c0], %a[%c0], %acc {a_k_major = true, b_k_major = true} : !pad, !pad, !acc -> !acc
  return
}

// -----

!pad8 = !kcc.smem<[64, 64], i8, stages = 2, swizzle = 0, pad = 16>
!acc32 = tensor<64x64xi32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @warp_mma_i8_mn_major(%acc: !acc32) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !pad8
  // expected-error@+1 {{i8 operands must both be K-major}}
  %r = kcc.warp_mma %a[%c0], %a[%c0], %acc {a_k_major = true, b_k_major = false} : !pad8, !pad8, !acc32 -> !acc32
  return
}

// -----

!pad8 = !kcc.smem<[64, 48], i8, stages = 2, swizzle = 0, pad = 16>
!acc32 = tensor<64x64xi32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @warp_mma_i8_k(%acc: !acc32) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !pad8
  %b = kcc.smem_alloc : !kcc.smem<[64, 48], i8, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{M must be a multiple of 16, N of 8 and K of 32}}
  %r = kcc.warp_mma %a[%c0], %b[%c0], %acc {a_k_major = true, b_k_major = true} : !pad8, !kcc.smem<[64, 48], i8, stages = 2, swizzle = 0, pad = 16>, !acc32 -> !acc32
  return
}

// -----

!bf = !kcc.smem<[128, 64], bf16, stages = 2, swizzle = 128>
!f = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
func.func @tcgen05_mixed_types(%t: !kcc.tmem<64>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !bf
  %b = kcc.smem_alloc : !f
  // expected-error@+1 {{takes f16, bf16 or i8 operands of one type}}
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = true} : !bf, !f, !kcc.tmem<64>
  return
}

// -----

!a8 = !kcc.smem<[128, 128], i8, stages = 2, swizzle = 128>
!b8 = !kcc.smem<[128, 128], i8, stages = 2, swizzle = 128>
func.func @tcgen05_i8_mn_major(%t: !kcc.tmem<128>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !a8
  %b = kcc.smem_alloc : !b8
  // expected-error@+1 {{i8 operands must both be K-major}}
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = false} : !a8, !b8, !kcc.tmem<128>
  return
}

// -----

func.func @cp_async_swizzled(%p: !kcc.ptr<f16>, %d: i32) {
  %c0 = arith.constant 0 : i32
  %s = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
  // expected-error@+1 {{needs an unswizzled stage whose rows are whole 16-byte chunks}}
  kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c0] -> %s[%c0] : <f16>, !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
  return
}

// -----

// A discardable attribute of the wrong kind is named in the error (not a
// silent verifier failure).
func.func @lifted_not_string(%x: !kcc.ptr<f32>, %d: i32) {
  %i = arith.constant 0 : i32
  // expected-error@+1 {{kcc.lifted must be a string}}
  %t = kcc.load_tile %x[%d] strides[] at[%i] {kcc.lifted = 3 : i32} : !kcc.ptr<f32> -> tensor<64xf32>
  return
}

// -----

func.func @access_uniform_not_integer(%p: tensor<64x!kcc.ptr<f32>>) {
  // expected-error@+1 {{kcc.access_uniform must be an integer}}
  %t = kcc.load %p {kcc.access_uniform = "8"} : tensor<64x!kcc.ptr<f32>>
  return
}

// -----

func.func @mask_monotone_not_unit(%p: tensor<64x!kcc.ptr<f32>>) {
  // expected-error@+1 {{kcc.mask_monotone must be a unit attribute}}
  %t = kcc.load %p {kcc.mask_monotone = 1 : i32} : tensor<64x!kcc.ptr<f32>>
  return
}

// -----

func.func @epilogue_chunk_not_a_range(%a: tensor<128x256xf32>) {
  // expected-error@+1 {{kcc.epilogue_chunk must be a column range [lo, hi) with 0 <= lo < hi}}
  %t = arith.negf %a {kcc.epilogue_chunk = array<i64: 64, 64>} : tensor<128x256xf32>
  return
}

// -----

func.func @epilogue_chunk_not_an_array(%a: tensor<128x256xf32>) {
  // expected-error@+1 {{kcc.epilogue_chunk must be a column range [lo, hi) with 0 <= lo < hi}}
  %t = arith.negf %a {kcc.epilogue_chunk = 1 : i64} : tensor<128x256xf32>
  return
}

// -----

// A lifted tile's map: sizes then row strides, one each per box dimension
// (a 2-D box: 3 entries), argument numbers as index, constants as i32.
// expected-error@+1 {{kcc.tensor_map_shape applies to tensormap arguments: the sizes then row strides, each an integer argument's number (index) or an i32 constant}}
func.func @map_shape_short(%p: !kcc.ptr<f16>, %m: i32, %map: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 0 : i32, kcc.tensor_map_shape = [1 : index]}) {
  return
}

// -----

// expected-error@+1 {{kcc.tensor_map_shape applies to tensormap arguments}}
func.func @map_shape_names_pointer(%p: !kcc.ptr<f16>, %m: i32, %map: !kcc.tensormap<[64, 64], f16, swizzle = 128> {kcc.tensor_map_of = 0 : i32, kcc.tensor_map_shape = [1 : index, 0 : index, 64 : i32]}) {
  return
}

// -----

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @wgmma_reg_a_layout(%p: tensor<64x64xf16, #kcc.blocked<vec = 4, threads = 128, warp = 32>>, %acc: !acc) {
  %c0 = arith.constant 0 : i32
  %v = kcc.smem_alloc : !sw
  // expected-error@+1 {{A needs the accumulator's #kcc.wgmma_acc layout}}
  %r = kcc.warpgroup_mma_reg_a %p, %v[%c0], %acc {b_k_major = false} : tensor<64x64xf16, #kcc.blocked<vec = 4, threads = 128, warp = 32>>, !sw, !acc -> !acc
  return
}

// -----

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @wgmma_reg_a_types(%p: tensor<64x64xbf16, #kcc.wgmma_acc<warpgroups = 1>>, %acc: !acc) {
  %c0 = arith.constant 0 : i32
  %v = kcc.smem_alloc : !sw
  // expected-error@+1 {{takes f16 or bf16 operands of one type and an f32 accumulator}}
  %r = kcc.warpgroup_mma_reg_a %p, %v[%c0], %acc {b_k_major = false} : tensor<64x64xbf16, #kcc.wgmma_acc<warpgroups = 1>>, !sw, !acc -> !acc
  return
}

// -----

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!acc = tensor<64x32xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @wgmma_reg_a_shape(%p: tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>, %acc: !acc) {
  %c0 = arith.constant 0 : i32
  %v = kcc.smem_alloc : !sw
  // expected-error@+1 {{shapes do not form acc[M,N] += a[M,K] x b[K,N]}}
  %r = kcc.warpgroup_mma_reg_a %p, %v[%c0], %acc {b_k_major = false} : tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>, !sw, !acc -> !acc
  return
}

// -----

!sw = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
func.func @wgmma_reg_a_swizzle(%p: tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>, %acc: !acc) {
  %c0 = arith.constant 0 : i32
  %v = kcc.smem_alloc : !sw
  // expected-error@+1 {{the B stage must use the 128-byte swizzle}}
  %r = kcc.warpgroup_mma_reg_a %p, %v[%c0], %acc {b_k_major = false} : tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>, !sw, !acc -> !acc
  return
}

// -----

func.func @turn_outside() attributes {kcc.kernel} {
  // expected-error@+1 {{must be in the consumer region of a kcc.warp_specialize (the consumer warpgroups take turns)}}
  kcc.warpgroup_turn wait barrier 3
  return
}

// -----

func.func @turn_one_warpgroup() attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 1, regs = 232) {
    // expected-error@+1 {{needs two or more consumer warpgroups sharing one group (they take turns)}}
    kcc.warpgroup_turn wait barrier 3
  }
  return
}

// -----

func.func @turn_barrier_range() attributes {kcc.kernel} {
  kcc.warp_specialize producer(warps = 4, regs = 40) {
    %p = arith.constant 0 : i32
  } consumer(warpgroups = 2, regs = 232) {
    // expected-error@+1 {{uses named barriers past 15}}
    kcc.warpgroup_turn pass barrier 15
  }
  return
}

// -----

// kcc.element_coords (load_tile_at / store_tile_at, ir/TileCoords.h) says
// what a tile access's coordinates count: it means nothing elsewhere.
func.func @element_coords_elsewhere(%x: i32) -> i32 {
  // expected-error@+1 {{kcc.element_coords is only valid on kcc.load_tile and kcc.store_tile}}
  %y = arith.addi %x, %x {kcc.element_coords} : i32
  return %y : i32
}

// -----

func.func @element_coords_not_unit(%p: !kcc.ptr<f32>, %n: i32) -> tensor<16xf32> {
  // expected-error@+1 {{kcc.element_coords must be a unit attribute}}
  %t = kcc.load_tile %p[%n] strides[] at[%n] {kcc.element_coords = 1 : i32} : <f32> -> tensor<16xf32>
  return %t : tensor<16xf32>
}

// -----

func.func @histogram_bins(%t: tensor<64xi32>) {
  // expected-error@+1 {{result must be a 1-D tile of 16 counts}}
  %h = kcc.histogram %t {bins = 16 : i32} : tensor<64xi32> -> tensor<32xi32>
  return
}

// -----

func.func @histogram_too_many(%t: tensor<64xi32>) {
  // expected-error@+1 {{bins must be between 1 and 16384, got 0}}
  %h = kcc.histogram %t {bins = 0 : i32} : tensor<64xi32> -> tensor<1xi32>
  return
}

// -----

func.func @histogram_mask(%t: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error@+1 {{mask must have the shape of the values}}
  %h = kcc.histogram %t mask %m {bins = 16 : i32} : tensor<64xi32>, tensor<32xi1> -> tensor<16xi32>
  return
}

// -----

// stages(S)'s depth is checked by the frontend; hand-written IR too.
// expected-error@+1 {{kcc.pipeline_stages (shared stages) must be an integer from 2 to 8, on a function}}
func.func @pipeline_stages_nine() attributes {kcc.kernel, kcc.pipeline_stages = 9 : i32} {
  return
}

// -----

// expected-error@+1 {{kcc.cluster (CTAs per cluster) must be an integer from 2 to 8, on a function}}
func.func @cluster_one() attributes {kcc.kernel, kcc.cluster = 1 : i32} {
  return
}
