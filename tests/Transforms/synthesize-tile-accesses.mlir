// RUN: kcc-opt %s --kcc-synthesize-tile-accesses --split-input-file | FileCheck %s

// Descriptor synthesis: a dot's operand written as a tile of pointers,
// a + rows[:, None] * stride + kid[None, :] masked by rows < m & kid < k,
// becomes the load_tile of the [m, k] tensor with row stride `stride` at
// block coordinates (program_id(1), program_id(0)); the address and mask
// arithmetic is erased.
// CHECK-LABEL: func.func @operand
// CHECK: %[[P1:.*]] = kcc.program_id(1)
// CHECK: %[[P0:.*]] = kcc.program_id(0)
// CHECK-NOT: kcc.addptr
// CHECK: %[[T:.*]] = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%[[P1]], %[[P0]]] other %{{.*}} : f16 {kcc.lifted = "the tile of pointers is a box of the tensor at a with sizes [m, k] and row stride stride"} : <f16> -> tensor<64x32xf16>
// CHECK: kcc.dot %[[T]]
// The store's pointers are all one address: not a box.
// CHECK: kcc.store {{.*}}kcc.lift_refused = "its address does not vary along dimension 0 (a broadcast)"
func.func @operand(%a: !kcc.ptr<f16> {kcc.align = 16 : i64}, %m: i32, %k: i32,
                   %stride: i32 {kcc.divisibility = 8 : i64}, %pid: i32,
                   %kk: i32, %out: !kcc.ptr<f32>) attributes {kcc.kernel,
    kcc.arg_names = ["a", "m", "k", "stride", "pid", "kk", "out"]} {
  %b = arith.constant dense<1.0> : tensor<32x16xf16>
  %c = arith.constant dense<0.0> : tensor<64x16xf32>
  %c64 = arith.constant 64 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f16
  %pid1 = kcc.program_id(1) : i32
  %pid0 = kcc.program_id(0) : i32
  %p64 = arith.muli %pid1, %c64 : i32
  %r = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rs = kcc.splat %p64 : tensor<64xi32>
  %rows = arith.addi %rs, %r : tensor<64xi32>
  %k32 = arith.muli %pid0, %c32 : i32
  %q = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %qs = kcc.splat %k32 : tensor<32xi32>
  %kid = arith.addi %qs, %q : tensor<32xi32>
  %re = kcc.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %st = kcc.splat %stride : tensor<64x1xi32>
  %ro = arith.muli %re, %st : tensor<64x1xi32>
  %base = kcc.splat %a : tensor<64x1x!kcc.ptr<f16>>
  %rp = kcc.addptr %base, %ro : tensor<64x1x!kcc.ptr<f16>>, tensor<64x1xi32>
  %ke = kcc.expand_dims %kid {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %rpb = kcc.broadcast %rp : tensor<64x1x!kcc.ptr<f16>> -> tensor<64x32x!kcc.ptr<f16>>
  %keb = kcc.broadcast %ke : tensor<1x32xi32> -> tensor<64x32xi32>
  %ptrs = kcc.addptr %rpb, %keb : tensor<64x32x!kcc.ptr<f16>>, tensor<64x32xi32>
  %ms = kcc.splat %m : tensor<64x1xi32>
  %rm = arith.cmpi slt, %re, %ms : tensor<64x1xi32>
  %ks = kcc.splat %k : tensor<1x32xi32>
  %km = arith.cmpi slt, %ke, %ks : tensor<1x32xi32>
  %rmb = kcc.broadcast %rm : tensor<64x1xi1> -> tensor<64x32xi1>
  %kmb = kcc.broadcast %km : tensor<1x32xi1> -> tensor<64x32xi1>
  %mask = arith.andi %rmb, %kmb : tensor<64x32xi1>
  %other = kcc.splat %zero : tensor<64x32xf16>
  %x = kcc.load %ptrs mask %mask other %other : tensor<64x32x!kcc.ptr<f16>>
  %d = kcc.dot %x, %b, %c : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  %o = kcc.splat %out : tensor<64x16x!kcc.ptr<f32>>
  kcc.store %o, %d : tensor<64x16x!kcc.ptr<f32>>
  return
}

// -----

// Without a mask along a dimension the box is unbounded there; a stride that
// is not declared a multiple of 8 f16 (16 bytes) keeps the lift but refuses
// TMA with the rule, and a base without align(16) likewise.
// CHECK-LABEL: func.func @facts
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK: kcc.load_tile %arg0[%[[MAX]], %{{.*}}] strides[%arg1]
// CHECK-SAME: kcc.tma_refused = "its row stride `stride` is not declared a multiple of 8 (multiple_of), as a TMA tensor map's row pitch must be a multiple of 16 bytes"
func.func @facts(%a: !kcc.ptr<f16> {kcc.align = 16 : i64}, %stride: i32,
                 %out: !kcc.ptr<f32>)
    attributes {kcc.kernel, kcc.arg_names = ["a", "stride", "out"]} {
  %b = arith.constant dense<1.0> : tensor<16x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %re = kcc.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %st = kcc.splat %stride : tensor<16x1xi32>
  %ro = arith.muli %re, %st : tensor<16x1xi32>
  %base = kcc.splat %a : tensor<16x1x!kcc.ptr<f16>>
  %rp = kcc.addptr %base, %ro : tensor<16x1x!kcc.ptr<f16>>, tensor<16x1xi32>
  %ce = kcc.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rpb = kcc.broadcast %rp : tensor<16x1x!kcc.ptr<f16>> -> tensor<16x16x!kcc.ptr<f16>>
  %ceb = kcc.broadcast %ce : tensor<1x16xi32> -> tensor<16x16xi32>
  %ptrs = kcc.addptr %rpb, %ceb : tensor<16x16x!kcc.ptr<f16>>, tensor<16x16xi32>
  %x = kcc.load %ptrs : tensor<16x16x!kcc.ptr<f16>>
  %d = kcc.dot %x, %b, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %o = kcc.splat %out : tensor<16x16x!kcc.ptr<f32>>
  kcc.store %o, %d : tensor<16x16x!kcc.ptr<f32>>
  return
}

// -----

// What does not lift keeps its load, with the reason: a tile that starts at
// an element offset (not a multiple of its size), a non-contiguous inner
// dimension, a block coordinate that may be negative, and a kernel without
// a dot.
// CHECK-LABEL: func.func @refused
// CHECK: kcc.load {{.*}}kcc.lift_refused = "the tile starts at an offset that is not a block coordinate times its size 16 (tiles at element offsets take pointer accesses)"
// CHECK: kcc.load {{.*}}kcc.lift_refused = "its innermost dimension is not contiguous (stride `stride`, not 1)"
// CHECK: kcc.load {{.*}}kcc.lift_refused = "the tile's block coordinate is not provably non-negative (a program id, a loop index from 0, or sums and products of them)"
func.func @refused(%a: !kcc.ptr<f16> {kcc.align = 16 : i64}, %off: i32,
                   %stride: i32, %out: !kcc.ptr<f32>)
    attributes {kcc.kernel, kcc.arg_names = ["a", "off", "stride", "out"]} {
  %r = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %os = kcc.splat %off : tensor<16xi32>
  %idx = arith.addi %os, %r : tensor<16xi32>
  %base = kcc.splat %a : tensor<16x!kcc.ptr<f16>>
  %p = kcc.addptr %base, %idx : tensor<16x!kcc.ptr<f16>>, tensor<16xi32>
  %x = kcc.load %p : tensor<16x!kcc.ptr<f16>>
  %st = kcc.splat %stride : tensor<16xi32>
  %strided = arith.muli %r, %st : tensor<16xi32>
  %q = kcc.addptr %base, %strided : tensor<16x!kcc.ptr<f16>>, tensor<16xi32>
  %y = kcc.load %q : tensor<16x!kcc.ptr<f16>>
  %c16 = arith.constant 16 : i32
  %o16 = arith.muli %off, %c16 : i32
  %os16 = kcc.splat %o16 : tensor<16xi32>
  %idx16 = arith.addi %os16, %r : tensor<16xi32>
  %p16 = kcc.addptr %base, %idx16 : tensor<16x!kcc.ptr<f16>>, tensor<16xi32>
  %w = kcc.load %p16 : tensor<16x!kcc.ptr<f16>>
  %e = kcc.expand_dims %x {axis = 1 : i32} : tensor<16xf16> -> tensor<16x1xf16>
  %f = kcc.expand_dims %y {axis = 0 : i32} : tensor<16xf16> -> tensor<1x16xf16>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = kcc.dot %e, %f, %z : tensor<16x1xf16>, tensor<1x16xf16> -> tensor<16x16xf32>
  %o = kcc.splat %out : tensor<16x16x!kcc.ptr<f32>>
  kcc.store %o, %d : tensor<16x16x!kcc.ptr<f32>>
  %wf = arith.extf %w : tensor<16xf16> to tensor<16xf32>
  %ow = kcc.splat %out : tensor<16x!kcc.ptr<f32>>
  kcc.store %ow, %wf : tensor<16x!kcc.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: func.func @no_dot
// CHECK: kcc.load {{.*}}kcc.lift_refused = "the kernel has no dot and this is not a load that walks a loop: kcc lifts tiles of pointers to tensor maps for dots, their epilogues and loads that loops pipeline"
func.func @no_dot(%a: !kcc.ptr<f16> {kcc.align = 16 : i64},
                  %out: !kcc.ptr<f16>)
    attributes {kcc.kernel, kcc.arg_names = ["a", "out"]} {
  %r = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %base = kcc.splat %a : tensor<16x!kcc.ptr<f16>>
  %p = kcc.addptr %base, %r : tensor<16x!kcc.ptr<f16>>, tensor<16xi32>
  %x = kcc.load %p : tensor<16x!kcc.ptr<f16>>
  %o = kcc.splat %out : tensor<16x!kcc.ptr<f16>>
  kcc.store %o, %x : tensor<16x!kcc.ptr<f16>>
  return
}

// -----

// Without a dot, a load whose address the loop recomputes (a reduction
// walking its row) is lifted: the loop pipelines it through shared stages.
// The store after the loop is not.
// CHECK-LABEL: func.func @streaming_no_dot
// CHECK: scf.for
// CHECK: kcc.load_tile %arg0[%arg2] strides[] at[%arg3] other {{.*}} {kcc.lifted = "the tile of pointers is a box of the tensor at a with sizes [n]"}
// CHECK: kcc.store {{.*}}kcc.lift_refused = "the kernel has no dot and this is not a load that walks a loop
func.func @streaming_no_dot(%a: !kcc.ptr<f32> {kcc.align = 16 : i64},
                            %out: !kcc.ptr<f32> {kcc.align = 16 : i64},
                            %n: i32)
    attributes {kcc.kernel, kcc.arg_names = ["a", "out", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %r = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ns = kcc.splat %n : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %offs = kcc.splat %off : tensor<64xi32>
    %idx = arith.addi %offs, %r : tensor<64xi32>
    %base = kcc.splat %a : tensor<64x!kcc.ptr<f32>>
    %p = kcc.addptr %base, %idx : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
    %m = arith.cmpi slt, %idx, %ns : tensor<64xi32>
    %f0 = arith.constant 0.0 : f32
    %other = kcc.splat %f0 : tensor<64xf32>
    %x = kcc.load %p mask %m other %other : tensor<64x!kcc.ptr<f32>>
    %next = arith.addf %acc, %x : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  %o = kcc.splat %out : tensor<64x!kcc.ptr<f32>>
  %op = kcc.addptr %o, %r : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
  kcc.store %op, %sum : tensor<64x!kcc.ptr<f32>>
  return
}
