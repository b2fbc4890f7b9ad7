// RUN: kcc-opt %s --kcc-assign-layouts | FileCheck %s
// RUN: kcc-opt %s --kcc-assign-layouts="remarks=true" -verify-diagnostics -o /dev/null
// RUN: kcc-opt %s --kcc-assign-layouts="num-warps=2 warp-size=64" | FileCheck %s --check-prefix=OPT

// Vector add, f32, aligned pointers and n a multiple of 16: v4 (16 bytes).
// 1024 elements / (32 lanes * 4) = 8 warps.
// CHECK-LABEL: func.func @vadd_f32
// CHECK-SAME: kcc.num_warps = 4 : i32
// CHECK: kcc.arange {{.*}} : tensor<1024xi32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
// CHECK: arith.cmpi slt, {{.*}} : tensor<1024xi32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
// CHECK: arith.constant dense<0.000000e+00> : tensor<1024xf32, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
// CHECK: kcc.load {{.*}} {kcc.access_width = 4 : i32, kcc.mask_uniform} : tensor<1024x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
// CHECK: kcc.store {{.*}} {kcc.access_width = 4 : i32, kcc.mask_uniform} : tensor<1024x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
// OPT-LABEL: func.func @vadd_f32
// OPT-SAME: kcc.num_warps = 2 : i32
// OPT: kcc.load {{.*}} {kcc.access_width = 4 : i32} : tensor<1024x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 128, warp = 64>>
func.func @vadd_f32(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %y: !kcc.ptr<f32> {kcc.align = 16 : i64}, %n: i32 {kcc.divisibility = 16 : i64}) attributes {kcc.kernel} {
  %pid = kcc.program_id(0) : i32
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %c = arith.constant 1024 : i32
  %b = arith.muli %pid, %c : i32
  %bs = kcc.splat %b : tensor<1024xi32>
  %offs = arith.addi %bs, %r : tensor<1024xi32>
  %ns = kcc.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f32>>
  %p = kcc.addptr %xp, %offs : tensor<1024x!kcc.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes)}}
  %v = kcc.load %p mask %m other %zero : tensor<1024x!kcc.ptr<f32>>
  %yp = kcc.splat %y : tensor<1024x!kcc.ptr<f32>>
  %q = kcc.addptr %yp, %offs : tensor<1024x!kcc.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes)}}
  kcc.store %q, %v mask %m : tensor<1024x!kcc.ptr<f32>>
  return
}

// n without divisibility: the mask may change inside any chunk, so it does
// not limit the width; the lowering tests each chunk's mask at run time. The
// mask is a bounds check of an index that counts up by one along each
// chunk (offs < n): on for a prefix of it, so its two ends decide a load's
// chunk (stores, once per tile, test every bit).
// CHECK-LABEL: func.func @vadd_f32_unaligned_n
// CHECK-SAME: kcc.num_warps = 4 : i32
// CHECK: kcc.load {{.*}} {kcc.access_width = 4 : i32, kcc.mask_monotone} : tensor<1024x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 128, warp = 32>>
func.func @vadd_f32_unaligned_n(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %n: i32) attributes {kcc.kernel} {
  %pid = kcc.program_id(0) : i32
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %c = arith.constant 1024 : i32
  %b = arith.muli %pid, %c : i32
  %bs = kcc.splat %b : tensor<1024xi32>
  %offs = arith.addi %bs, %r : tensor<1024xi32>
  %ns = kcc.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f32>>
  %p = kcc.addptr %xp, %offs : tensor<1024x!kcc.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes); mask not uniform per vector but a bounds check of a contiguous index: each vector checked at run time by its first and last element}}
  %v = kcc.load %p mask %m : tensor<1024x!kcc.ptr<f32>>
  // expected-remark @below {{access width 4 x f32 (16 bytes); mask not provably uniform per vector (constancy 1): checked at run time}}
  kcc.store %p, %v mask %m : tensor<1024x!kcc.ptr<f32>>
  return
}

// Masks whose chunks are not decided by their ends: an equality (on in the
// middle of a chunk), a disjunction, and an index that counts up from an
// unknown start (a run could wrap around). Each chunk tests all its bits.
// CHECK-LABEL: func.func @vadd_f32_mask_not_monotone
// CHECK-COUNT-3: kcc.load {{.*}} {kcc.access_width = 4 : i32} :
func.func @vadd_f32_mask_not_monotone(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %n: i32, %s: i32) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %ns = kcc.splat %n : tensor<1024xi32>
  %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f32>>
  %p = kcc.addptr %xp, %r : tensor<1024x!kcc.ptr<f32>>, tensor<1024xi32>
  %eq = arith.cmpi eq, %r, %ns : tensor<1024xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes); mask not provably uniform per vector (constancy 1): checked at run time}}
  %a = kcc.load %p mask %eq : tensor<1024x!kcc.ptr<f32>>
  %lt = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %ge = arith.cmpi sge, %r, %ns : tensor<1024xi32>
  %or = arith.ori %lt, %ge : tensor<1024xi1>
  // expected-remark @below {{access width 4 x f32 (16 bytes); mask not provably uniform per vector (constancy 1): checked at run time}}
  %b = kcc.load %p mask %or : tensor<1024x!kcc.ptr<f32>>
  %ss = kcc.splat %s : tensor<1024xi32>
  %shifted = arith.addi %r, %ss : tensor<1024xi32>
  %lt2 = arith.cmpi slt, %shifted, %ns : tensor<1024xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes); mask not provably uniform per vector (constancy 1): checked at run time}}
  %c = kcc.load %p mask %lt2 : tensor<1024x!kcc.ptr<f32>>
  return
}

// No kcc.align: only the natural 4-byte alignment of f32 is known.
// CHECK-LABEL: func.func @vadd_f32_unaligned_ptr
// CHECK: kcc.load {{.*}} {kcc.access_width = 1 : i32}
func.func @vadd_f32_unaligned_ptr(%x: !kcc.ptr<f32>) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %xp = kcc.splat %x : tensor<256x!kcc.ptr<f32>>
  %p = kcc.addptr %xp, %r : tensor<256x!kcc.ptr<f32>>, tensor<256xi32>
  // expected-remark @below {{access width 1 x f32 (4 bytes), 4 possible; limited by pointer alignment (4 bytes)}}
  %v = kcc.load %p : tensor<256x!kcc.ptr<f32>>
  // expected-remark @below {{access width 1 x f32 (4 bytes), 4 possible; limited by pointer alignment (4 bytes)}}
  kcc.store %p, %v : tensor<256x!kcc.ptr<f32>>
  return
}

// f16: 8 elements per 16-byte access. 1024 / (32 * 8) = 4 warps.
// CHECK-LABEL: func.func @vadd_f16
// CHECK-SAME: kcc.num_warps = 2 : i32
// CHECK: kcc.load {{.*}} {kcc.access_width = 8 : i32, kcc.mask_uniform} : tensor<1024x!kcc.ptr<f16>, #kcc.blocked<vec = 8, threads = 64, warp = 32>>
// CHECK: arith.addf {{.*}} : tensor<1024xf16, #kcc.blocked<vec = 8, threads = 64, warp = 32>>
// CHECK: kcc.store {{.*}} {kcc.access_width = 8 : i32, kcc.mask_uniform}
func.func @vadd_f16(%x: !kcc.ptr<f16> {kcc.align = 16 : i64}, %n: i32 {kcc.divisibility = 8 : i64}) attributes {kcc.kernel} {
  %pid = kcc.program_id(0) : i32
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %c = arith.constant 1024 : i32
  %b = arith.muli %pid, %c : i32
  %bs = kcc.splat %b : tensor<1024xi32>
  %offs = arith.addi %bs, %r : tensor<1024xi32>
  %ns = kcc.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f16>>
  %p = kcc.addptr %xp, %offs : tensor<1024x!kcc.ptr<f16>>, tensor<1024xi32>
  // expected-remark @below {{access width 8 x f16 (16 bytes)}}
  %v = kcc.load %p mask %m : tensor<1024x!kcc.ptr<f16>>
  %w = arith.addf %v, %v : tensor<1024xf16>
  // expected-remark @below {{access width 8 x f16 (16 bytes)}}
  kcc.store %p, %w mask %m : tensor<1024x!kcc.ptr<f16>>
  return
}

// f16 with a 4-byte aligned base: two elements per access.
// CHECK-LABEL: func.func @vadd_f16_align4
// CHECK-SAME: kcc.num_warps = 8 : i32
// CHECK: kcc.load {{.*}} {kcc.access_width = 2 : i32} : tensor<1024x!kcc.ptr<f16>, #kcc.blocked<vec = 2, threads = 256, warp = 32>>
func.func @vadd_f16_align4(%x: !kcc.ptr<f16> {kcc.align = 4 : i64}) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f16>>
  %p = kcc.addptr %xp, %r : tensor<1024x!kcc.ptr<f16>>, tensor<1024xi32>
  // expected-remark @below {{access width 2 x f16 (4 bytes), 8 possible; limited by pointer alignment (4 bytes)}}
  %v = kcc.load %p : tensor<1024x!kcc.ptr<f16>>
  // expected-remark @below {{access width 2 x f16 (4 bytes), 8 possible; limited by pointer alignment (4 bytes)}}
  kcc.store %p, %v : tensor<1024x!kcc.ptr<f16>>
  return
}

// 2-D tile [32x64] at rows*stride + cols; stride a multiple of 16. The 1-D
// and [32x1]/[1x64] tiles have other element counts and keep vec = 1.
// CHECK-LABEL: func.func @tile2d
// CHECK-SAME: kcc.num_warps = 8 : i32
// CHECK: kcc.arange {{.*}} : tensor<32xi32, #kcc.blocked<vec = 1, threads = 256, warp = 32>>
// CHECK: kcc.expand_dims {{.*}} -> tensor<32x1xi32, #kcc.blocked<vec = 1, threads = 256, warp = 32>>
// CHECK: kcc.broadcast {{.*}} -> tensor<32x64xi32, #kcc.blocked<vec = 4, threads = 256, warp = 32>>
// CHECK: kcc.load {{.*}} {kcc.access_width = 4 : i32} : tensor<32x64x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 256, warp = 32>>
// CHECK: kcc.store {{.*}} {kcc.access_width = 1 : i32} : tensor<32x64x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 256, warp = 32>>
func.func @tile2d(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %y: !kcc.ptr<f32> {kcc.align = 16 : i64}, %s: i32 {kcc.divisibility = 16 : i64}, %t: i32) attributes {kcc.kernel} {
  %rows = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %cols = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = kcc.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c2 = kcc.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = kcc.broadcast %r2 : tensor<32x1xi32> -> tensor<32x64xi32>
  %cb = kcc.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %ss = kcc.splat %s : tensor<32x64xi32>
  %ro = arith.muli %rb, %ss : tensor<32x64xi32>
  %o = arith.addi %ro, %cb : tensor<32x64xi32>
  %xs = kcc.splat %x : tensor<32x64x!kcc.ptr<f32>>
  %p = kcc.addptr %xs, %o : tensor<32x64x!kcc.ptr<f32>>, tensor<32x64xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes)}}
  %v = kcc.load %p : tensor<32x64x!kcc.ptr<f32>>
  // Row stride %t has no divisibility: rows start at unaligned addresses.
  %ts = kcc.splat %t : tensor<32x64xi32>
  %ro2 = arith.muli %rb, %ts : tensor<32x64xi32>
  %o2 = arith.addi %ro2, %cb : tensor<32x64xi32>
  %ys = kcc.splat %y : tensor<32x64x!kcc.ptr<f32>>
  %q = kcc.addptr %ys, %o2 : tensor<32x64x!kcc.ptr<f32>>, tensor<32x64xi32>
  // expected-remark @below {{access width 1 x f32 (4 bytes), 4 possible; limited by pointer contiguity (1 elements), pointer alignment (4 bytes)}}
  kcc.store %q, %v : tensor<32x64x!kcc.ptr<f32>>
  return
}

// A loop carrying a tile accumulator and a pointer tile: region arguments,
// yields and results get the same encoding.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: kcc.num_warps = 1 : i32
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PTR:.*]] = %{{.*}}) -> (tensor<128xf32, #kcc.blocked<vec = 4, threads = 32, warp = 32>>, tensor<128x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 32, warp = 32>>) : i32
// CHECK: kcc.load %[[PTR]] {kcc.access_width = 4 : i32} : tensor<128x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 32, warp = 32>>
// CHECK: scf.yield {{.*}} : tensor<128xf32, #kcc.blocked<vec = 4, threads = 32, warp = 32>>, tensor<128x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 32, warp = 32>>
// CHECK: kcc.store {{.*}}, %[[R]]#0 {kcc.access_width = 4 : i32}
func.func @loop(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %y: !kcc.ptr<f32> {kcc.align = 16 : i64}, %k: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %step = arith.constant dense<128> : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %xs = kcc.splat %x : tensor<128x!kcc.ptr<f32>>
  %p0 = kcc.addptr %xs, %r : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
  %res:2 = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<128xf32>, tensor<128x!kcc.ptr<f32>>) : i32 {
    // expected-remark @below {{access width 4 x f32 (16 bytes)}}
    %v = kcc.load %p : tensor<128x!kcc.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<128xf32>
    %pn = kcc.addptr %p, %step : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
    scf.yield %a, %pn : tensor<128xf32>, tensor<128x!kcc.ptr<f32>>
  }
  %ys = kcc.splat %y : tensor<128x!kcc.ptr<f32>>
  %q = kcc.addptr %ys, %r : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes)}}
  kcc.store %q, %res#0 : tensor<128x!kcc.ptr<f32>>
  return
}

// Reductions: 1-D to a scalar, and [32x64] along axis 1 to [32]. The reduce
// verifier wants the [32] result to carry the source's encoding, so the 32-
// and 2048-element classes share one (vec = 4).
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: kcc.num_warps = 8 : i32
// CHECK: kcc.reduce sum {{.*}} : tensor<1024xf32, #kcc.blocked<vec = 4, threads = 256, warp = 32>> -> f32
// CHECK: kcc.arange {{.*}} : tensor<32xi32, #kcc.blocked<vec = 4, threads = 256, warp = 32>>
// CHECK: kcc.arange {{.*}} : tensor<64xi32, #kcc.blocked<vec = 1, threads = 256, warp = 32>>
// CHECK: kcc.reduce max {{.*}} : tensor<32x64xf32, #kcc.blocked<vec = 4, threads = 256, warp = 32>> -> tensor<32xf32, #kcc.blocked<vec = 4, threads = 256, warp = 32>>
// CHECK: kcc.store {{.*}} {kcc.access_width = 1 : i32} : tensor<32x!kcc.ptr<f32>, #kcc.blocked<vec = 4, threads = 256, warp = 32>>
func.func @reduce(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %y: !kcc.ptr<f32>) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = kcc.splat %x : tensor<1024x!kcc.ptr<f32>>
  %p = kcc.addptr %xs, %r : tensor<1024x!kcc.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes)}}
  %v = kcc.load %p : tensor<1024x!kcc.ptr<f32>>
  %s = kcc.reduce sum %v {axis = 0 : i32} : tensor<1024xf32> -> f32
  kcc.store %y, %s : !kcc.ptr<f32>
  %rows = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %cols = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = kcc.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c2 = kcc.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = kcc.broadcast %r2 : tensor<32x1xi32> -> tensor<32x64xi32>
  %cb = kcc.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %c64 = arith.constant dense<64> : tensor<32x64xi32>
  %ro = arith.muli %rb, %c64 : tensor<32x64xi32>
  %o = arith.addi %ro, %cb : tensor<32x64xi32>
  %xs2 = kcc.splat %x : tensor<32x64x!kcc.ptr<f32>>
  %p2 = kcc.addptr %xs2, %o : tensor<32x64x!kcc.ptr<f32>>, tensor<32x64xi32>
  // expected-remark @below {{access width 4 x f32 (16 bytes)}}
  %t = kcc.load %p2 : tensor<32x64x!kcc.ptr<f32>>
  %m = kcc.reduce max %t {axis = 1 : i32} : tensor<32x64xf32> -> tensor<32xf32>
  // Consecutive rows of the result are 64 elements apart.
  %c64r = arith.constant dense<64> : tensor<32xi32>
  %ro1 = arith.muli %rows, %c64r : tensor<32xi32>
  %ys = kcc.splat %y : tensor<32x!kcc.ptr<f32>>
  %q = kcc.addptr %ys, %ro1 : tensor<32x!kcc.ptr<f32>>, tensor<32xi32>
  // expected-remark @below {{access width 1 x f32 (4 bytes), 4 possible; limited by pointer contiguity (1 elements), pointer alignment (4 bytes)}}
  kcc.store %q, %m : tensor<32x!kcc.ptr<f32>>
  return
}

// An explicit kcc.num_warps wins over the option and the heuristic.
// CHECK-LABEL: func.func @fixed_warps
// CHECK-SAME: kcc.num_warps = 4 : i32
// CHECK: tensor<1024xi32, #kcc.blocked<vec = 1, threads = 128, warp = 32>>
// OPT-LABEL: func.func @fixed_warps
// OPT-SAME: kcc.num_warps = 4 : i32
// OPT: tensor<1024xi32, #kcc.blocked<vec = 1, threads = 256, warp = 64>>
func.func @fixed_warps() attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
  %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  return
}

// Kernels without tiles run one warp.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: kcc.num_warps = 1 : i32
func.func @scalars(%x: !kcc.ptr<f32>) attributes {kcc.kernel} {
  %v = kcc.load %x : !kcc.ptr<f32>
  kcc.store %x, %v : !kcc.ptr<f32>
  return
}

// Functions that are not kernels are left alone.
// CHECK-LABEL: func.func @helper
// CHECK-NOT: kcc.num_warps
// CHECK: kcc.arange {{.*}} : tensor<16xi32>{{$}}
func.func @helper() {
  %r = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  return
}

// scf.if yielding tiles: results and yields share the class encoding.
// CHECK-LABEL: func.func @branch
// CHECK: scf.if %{{.*}} -> (tensor<64xi32, #kcc.blocked<vec = 2, threads = 32, warp = 32>>)
// CHECK: scf.yield %{{.*}} : tensor<64xi32, #kcc.blocked<vec = 2, threads = 32, warp = 32>>
// CHECK: kcc.load {{.*}} {kcc.access_width = 2 : i32}
func.func @branch(%x: !kcc.ptr<f32> {kcc.align = 8 : i64}, %b: i1) attributes {kcc.kernel} {
  %r = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = kcc.arange {start = 64 : i32, end = 128 : i32} : tensor<64xi32>
  %o = scf.if %b -> (tensor<64xi32>) {
    scf.yield %r : tensor<64xi32>
  } else {
    scf.yield %r2 : tensor<64xi32>
  }
  %xs = kcc.splat %x : tensor<64x!kcc.ptr<f32>>
  %p = kcc.addptr %xs, %o : tensor<64x!kcc.ptr<f32>>, tensor<64xi32>
  // expected-remark @below {{access width 2 x f32 (8 bytes), 4 possible; limited by pointer alignment (8 bytes)}}
  %v = kcc.load %p : tensor<64x!kcc.ptr<f32>>
  return
}
