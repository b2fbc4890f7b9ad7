// RUN: kcc-opt %s -split-input-file -verify-diagnostics

// The verifiers of the cp.async pipeline's IR (kcc-pipeline-async-copies):
// row-padded stages, the copies into them and kcc.warp_mma reading them.

// expected-error@+1 {{row padding needs a 2-D unswizzled tile whose rows and padding are whole 16-byte chunks, got 128-byte rows and pad = 16}}
func.func private @pad_swizzled(!kcc.smem<[64, 64], f16, stages = 2, swizzle = 128, pad = 16>)

// -----

// expected-error@+1 {{row padding needs a 2-D unswizzled tile whose rows and padding are whole 16-byte chunks, got 128-byte rows and pad = 8}}
func.func private @pad_not_chunk(!kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 8>)

// -----

// expected-error@+1 {{row padding needs a 2-D unswizzled tile whose rows and padding are whole 16-byte chunks, got 8-byte rows and pad = 16}}
func.func private @rows_not_chunks(!kcc.smem<[64, 4], f16, stages = 2, swizzle = 0, pad = 16>)

// -----

func.func @tma_into_padded(%m: !kcc.tensormap<[64, 64], f16, swizzle = 0>) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0, pad = 16>
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<1>
  // expected-error@+1 {{TMA boxes are dense; a row-padded stage}}
  kcc.tma_load %m[%c0, %c0] -> %buf[%c0], %bars[%c0] : !kcc.tensormap<[64, 64], f16, swizzle = 0>, !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0, pad = 16>, !kcc.mbarrier<1>
  return
}

// -----

func.func @cp_async_rank(%p: !kcc.ptr<f16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{needs a 2-D stage and, for a tensor of rank 2 or 3, one size and one coordinate per dimension and one stride fewer}}
  kcc.cp_async %p[%n] strides[] at[%c0] -> %buf[%c0] : <f16>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  return
}

// -----

func.func @cp_async_type(%p: !kcc.ptr<bf16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{copies 'bf16' elements into a stage of 'f16'}}
  kcc.cp_async %p[%n, %n] strides[%n] at[%c0, %c0] -> %buf[%c0] : <bf16>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  return
}

// -----

func.func @warp_mma_unpadded(%acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
  %b = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{operand stages must be unswizzled and row-padded}}
  %r = kcc.warp_mma %a[%c0], %b[%c0], %acc {a_k_major = true, b_k_major = false} : <[64, 64], f16, stages = 2, swizzle = 0>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @warp_mma_shapes(%acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !kcc.smem<[64, 32], f16, stages = 2, swizzle = 0, pad = 16>
  %b = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{shapes do not form acc[M,N] += a[M,K] x b[K,N]}}
  %r = kcc.warp_mma %a[%c0], %b[%c0], %acc {a_k_major = true, b_k_major = false} : <[64, 32], f16, stages = 2, swizzle = 0, pad = 16>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @warp_mma_types(%acc: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{takes f16 or bf16 operands of one type and an f32 accumulator, or i8 operands and an i32 accumulator}}
  %r = kcc.warp_mma %a[%c0], %a[%c0], %acc {a_k_major = true, b_k_major = false} : <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>, tensor<64x64xf16> -> tensor<64x64xf16>
  return %r : tensor<64x64xf16>
}

// -----

// kcc.cp_async_gather: a tile of pointers of the stage's shape and type.
func.func @gather_shape(%p: tensor<32x64x!kcc.ptr<f16>>) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{needs a 2-D tile of pointers of the stage's shape}}
  kcc.cp_async_gather %p -> %buf[%c0] : tensor<32x64x!kcc.ptr<f16>>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  return
}

// -----

func.func @gather_type(%p: tensor<64x64x!kcc.ptr<bf16>>) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{copies 'bf16' elements into a stage of 'f16'}}
  kcc.cp_async_gather %p -> %buf[%c0] : tensor<64x64x!kcc.ptr<bf16>>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  return
}

// -----

func.func @gather_mask(%p: tensor<64x64x!kcc.ptr<f16>>, %m: tensor<64x32xi1>) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  // expected-error@+1 {{needs an i1 mask of the pointers' shape}}
  kcc.cp_async_gather %p mask %m : tensor<64x32xi1> -> %buf[%c0] : tensor<64x64x!kcc.ptr<f16>>, <[64, 64], f16, stages = 2, swizzle = 0, pad = 16>
  return
}

// -----

func.func @gather_narrow_rows(%p: tensor<64x4x!kcc.ptr<f16>>) {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !kcc.smem<[64, 4], f16, stages = 2, swizzle = 0>
  // expected-error@+1 {{needs an unswizzled stage whose rows are whole 16-byte chunks}}
  kcc.cp_async_gather %p -> %buf[%c0] : tensor<64x4x!kcc.ptr<f16>>, <[64, 4], f16, stages = 2, swizzle = 0>
  return
}
