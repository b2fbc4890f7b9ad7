// RUN: kcc-opt %s -split-input-file -verify-diagnostics

// The verifiers of the Blackwell IR (kcc-materialize-tcgen05-mma): TMEM
// allocations, tcgen05_mma's stages and shape, and the #kcc.tmem_acc layout
// kcc.tmem_load reads into.

// expected-error@+1 {{tmem-alloc-power-of-two}}
func.func private @cols_not_pow2(!kcc.tmem<96>)

// -----

// expected-error@+1 {{tmem-alloc-min}}
func.func private @cols_too_few(!kcc.tmem<16>)

// -----

// expected-error@+1 {{tmem-alloc-max}}
func.func private @cols_too_many(!kcc.tmem<1024>)

// -----

!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
func.func @m64(%t: !kcc.tmem<64>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !buf
  // expected-error@+1 {{kcc places the accumulator in TMEM lanes 0-127 (one row per lane): M must be 128, got 64}}
  kcc.tcgen05_mma %a[%c0], %a[%c0], %t, %go {a_k_major = true, b_k_major = true} : !buf, !buf, !kcc.tmem<64>
  return
}

// -----

!buf = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 0>
func.func @unswizzled(%t: !kcc.tmem<128>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !buf
  // expected-error@+1 {{operand stages must use the 128-byte swizzle}}
  kcc.tcgen05_mma %a[%c0], %a[%c0], %t, %go {a_k_major = true, b_k_major = true} : !buf, !buf, !kcc.tmem<128>
  return
}

// -----

!a = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!b = !kcc.smem<[64, 256], f16, stages = 2, swizzle = 128>
func.func @columns(%t: !kcc.tmem<128>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !a
  %b = kcc.smem_alloc : !b
  // expected-error@+1 {{the 128x256 accumulator needs 256 TMEM columns, the allocation has 128}}
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = false} : !a, !b, !kcc.tmem<128>
  return
}

// -----

!a = !kcc.smem<[128, 64], f16, stages = 2, swizzle = 128>
!b = !kcc.smem<[32, 128], f16, stages = 2, swizzle = 128>
func.func @k_mismatch(%t: !kcc.tmem<128>, %go: i1) {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !a
  %b = kcc.smem_alloc : !b
  // expected-error@+1 {{A has K = 64 but B has K = 32}}
  kcc.tcgen05_mma %a[%c0], %b[%c0], %t, %go {a_k_major = true, b_k_major = false} : !a, !b, !kcc.tmem<128>
  return
}

// -----

func.func @load_f16(%t: !kcc.tmem<128>) {
  // expected-error@+1 {{reads a 128 x N f32 or i32 accumulator, not 'tensor<128x128xf16>'}}
  %r = kcc.tmem_load %t : !kcc.tmem<128> -> tensor<128x128xf16>
  return
}

// -----

func.func @load_chunks(%t: !kcc.tmem<128>) {
  // expected-error@+1 {{N = 96 is not a multiple of 32 columns per warpgroup (2 warpgroups)}}
  %r = kcc.tmem_load %t : !kcc.tmem<128> -> tensor<128x96xf32, #kcc.tmem_acc<warpgroups = 2>>
  return
}

// -----

func.func @load_layout(%t: !kcc.tmem<128>) {
  // expected-error@+1 {{the result needs the #kcc.tmem_acc layout}}
  %r = kcc.tmem_load %t : !kcc.tmem<128> -> tensor<128x128xf32, #kcc.wgmma_acc<warpgroups = 2>>
  return
}

// -----

func.func @load_wider(%t: !kcc.tmem<128>) {
  // expected-error@+1 {{reads 256 columns of a 128-column allocation}}
  %r = kcc.tmem_load %t : !kcc.tmem<128> -> tensor<128x256xf32, #kcc.tmem_acc<warpgroups = 2>>
  return
}

// -----

func.func @refused_attr(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>, %c: tensor<128x128xf32>) {
  // expected-error@+1 {{kcc.tensor_core_refused must be a dictionary from target names to reasons, on kcc.dot or kcc.warp_mma}}
  %d = kcc.dot %x, %y, %c {kcc.tensor_core_refused = {sm_100a = 1 : i32}} : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  return
}
