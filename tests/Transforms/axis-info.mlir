// RUN: kcc-opt %s --kcc-test-print-axis-info -verify-diagnostics -o /dev/null

// Every integer/pointer result is annotated with its proven facts. Notes on
// the deliberately conservative cases: signed division/remainder give no
// run facts (truncation toward zero), `x <= splat` and `x > splat` are not
// constant over runs, and i32 offsets/extensions keep only runs that cannot
// cross the sign boundary (gcd of contiguity and divisibility).

func.func @seeds(%p: !kcc.ptr<f16> {kcc.align = 16 : i64}, %q: !kcc.ptr<f32>, %n: i32 {kcc.divisibility = 24 : i64}, %m: i32) attributes {kcc.kernel} {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = kcc.program_id(0) : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %np = kcc.num_programs(1) : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant = 48}}
  %c48 = arith.constant 48 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant = -8}}
  %cm8 = arith.constant -8 : i64
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1]}}
  %r2 = kcc.arange {start = 64 : i32, end = 128 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [4], divisibility = [1], constancy = [1]}}
  %r3 = kcc.arange {start = 3 : i32, end = 7 : i32} : tensor<4xi32>
  // expected-remark @below {{contiguity = [4], divisibility = [8], constancy = [1]}}
  %dv = arith.constant dense<[0, 1, 2, 3, 8, 9, 10, 11]> : tensor<8xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4]}}
  %dc = arith.constant dense<[4, 4, 4, 4, 7, 7, 7, 7]> : tensor<8xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [32, 32], constancy = [4, 8], constant = 32}}
  %ds = arith.constant dense<32> : tensor<4x8xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ps = kcc.splat %p : tensor<128x!kcc.ptr<f16>>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [128]}}
  %qs = kcc.splat %q : tensor<128x!kcc.ptr<f32>>
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [128]}}
  %ns = kcc.splat %n : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ms = kcc.splat %m : tensor<128xi32>
  return
}

func.func @arith(%p: !kcc.ptr<f16> {kcc.align = 16 : i64}, %q: !kcc.ptr<f32>, %n: i32 {kcc.divisibility = 24 : i64}, %m: i32) attributes {kcc.kernel} {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = kcc.program_id(0) : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1], constant = 128}}
  %c128 = arith.constant 128 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1]}}
  %base = arith.muli %pid, %c128 : i32
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [128]}}
  %bs = kcc.splat %base : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %offs = arith.addi %bs, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [128]}}
  %ns = kcc.splat %n : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ms = kcc.splat %m : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [8], constancy = [1]}}
  %sub1 = arith.subi %offs, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %sub2 = arith.subi %ns, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1], constancy = [1]}}
  %unal = arith.addi %ms, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [128], constant = 4}}
  %c4 = arith.constant dense<4> : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [128], constant = 2}}
  %c2 = arith.constant dense<2> : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant = 3}}
  %c3 = arith.constant dense<3> : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant = 16}}
  %c16 = arith.constant dense<16> : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %mul = arith.muli %r, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %shl = arith.shli %r, %c2 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [128]}}
  %dsi = arith.divsi %bs, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %dsi2 = arith.divsi %offs, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4]}}
  %dui = arith.divui %offs, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8]}}
  %shr = arith.shrsi %r, %c3 : tensor<128xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %rui = arith.remui %offs, %c16 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %rsi = arith.remsi %offs, %c16 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %and = arith.andi %mul, %ms : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [128], constant = 20}}
  %fold = arith.addi %c4, %c16 : tensor<128xi32>
  return
}

func.func @casts(%m: i32) attributes {kcc.kernel} {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ms = kcc.splat %m : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1], constancy = [1]}}
  %unal = arith.addi %ms, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %e1 = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %e2 = arith.extsi %unal : tensor<128xi32> to tensor<128xi64>
  // expected-remark @below {{contiguity = [256], divisibility = [1073741824], constancy = [1]}}
  %r256 = kcc.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %t = arith.trunci %r256 : tensor<256xi32> to tensor<256xi8>
  // expected-remark @below {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %te = arith.extui %t : tensor<256xi8> to tensor<256xi32>
  return
}

func.func @compare(%n: i32 {kcc.divisibility = 8 : i64}, %m: i32) attributes {kcc.kernel} {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [128]}}
  %ns = kcc.splat %n : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ms = kcc.splat %m : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8]}}
  %lt = arith.cmpi slt, %r, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8]}}
  %ult = arith.cmpi ult, %r, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8]}}
  %ge = arith.cmpi sge, %r, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %le = arith.cmpi sle, %r, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %gt = arith.cmpi sgt, %r, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8]}}
  %rgt = arith.cmpi sgt, %ns, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %rlt = arith.cmpi slt, %ns, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %eq = arith.cmpi eq, %r, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %unk = arith.cmpi slt, %r, %ms : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %splats = arith.cmpi slt, %ms, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8]}}
  %and = arith.andi %lt, %splats : tensor<128xi1>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %or = arith.ori %lt, %unk : tensor<128xi1>
  // expected-remark @below {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %r2 = kcc.arange {start = 128 : i32, end = 256 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [8], divisibility = [8], constancy = [1]}}
  %sel = arith.select %lt, %r, %r2 : tensor<128xi1>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %c = arith.cmpi slt, %m, %n : i32
  // expected-remark @below {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %sel2 = arith.select %c, %r, %r2 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant = 5}}
  %c5 = arith.constant 5 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant = 7}}
  %c7 = arith.constant 7 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1}}
  %cf = arith.cmpi slt, %c5, %c7 : i32
  return
}

func.func @pointers(%p: !kcc.ptr<f16> {kcc.align = 16 : i64}, %q: !kcc.ptr<f32>, %m: i32, %s: i32 {kcc.divisibility = 16 : i64}) attributes {kcc.kernel} {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = kcc.program_id(0) : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1], constant = 128}}
  %c128 = arith.constant 128 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1]}}
  %base = arith.muli %pid, %c128 : i32
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [128]}}
  %bs = kcc.splat %base : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %offs = arith.addi %bs, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ps = kcc.splat %p : tensor<128x!kcc.ptr<f16>>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1]}}
  %pp = kcc.addptr %ps, %offs : tensor<128x!kcc.ptr<f16>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [128]}}
  %qs = kcc.splat %q : tensor<128x!kcc.ptr<f32>>
  // expected-remark @below {{contiguity = [128], divisibility = [4], constancy = [1]}}
  %qp = kcc.addptr %qs, %offs : tensor<128x!kcc.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ms = kcc.splat %m : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1], constancy = [1]}}
  %unal = arith.addi %ms, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1]}}
  %pu = kcc.addptr %ps, %unal : tensor<128x!kcc.ptr<f16>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %m64 = arith.extsi %m : i32 to i64
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ms64 = kcc.splat %m64 : tensor<128xi64>
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r64 = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
  // expected-remark @below {{contiguity = [128], divisibility = [1], constancy = [1]}}
  %unal64 = arith.addi %ms64, %r64 : tensor<128xi64>
  // expected-remark @below {{contiguity = [128], divisibility = [2], constancy = [1]}}
  %pu64 = kcc.addptr %ps, %unal64 : tensor<128x!kcc.ptr<f16>>, tensor<128xi64>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %sp = kcc.addptr %p, %base : !kcc.ptr<f16>, i32
  // expected-remark @below {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %rows = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %cols = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
  %r2 = kcc.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [1, 1]}}
  %c2 = kcc.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 64]}}
  %rb = kcc.broadcast %r2 : tensor<32x1xi32> -> tensor<32x64xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 64]}}
  %ss = kcc.splat %s : tensor<32x64xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 64]}}
  %ro = arith.muli %rb, %ss : tensor<32x64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [32, 1]}}
  %cb = kcc.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 16], constancy = [1, 1]}}
  %o2 = arith.addi %ro, %cb : tensor<32x64xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [4, 4], constancy = [32, 64]}}
  %p2 = kcc.splat %q : tensor<32x64x!kcc.ptr<f32>>
  // expected-remark @below {{contiguity = [1, 16], divisibility = [4, 4], constancy = [1, 1]}}
  %a2 = kcc.addptr %p2, %o2 : tensor<32x64x!kcc.ptr<f32>>, tensor<32x64xi32>
  return
}

func.func @control(%p: !kcc.ptr<f16> {kcc.align = 16 : i64}, %n: i32, %m: i32, %b: i1) attributes {kcc.kernel} {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant = 16}}
  %c16 = arith.constant 16 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [128], constant = 128}}
  %c128 = arith.constant dense<128> : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = kcc.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ps = kcc.splat %p : tensor<128x!kcc.ptr<f16>>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1]}}
  %pp = kcc.addptr %ps, %r : tensor<128x!kcc.ptr<f16>>, tensor<128xi32>
  // expected-remark @below {{iv: contiguity = [1], divisibility = [16], constancy = [1]}}
  // expected-remark @below {{arg #0: contiguity = [128], divisibility = [16], constancy = [1]}}
  // expected-remark @below {{arg #1: contiguity = [1], divisibility = [1], constancy = [1]}}
  // expected-remark @below {{arg #2: contiguity = [128], divisibility = [16], constancy = [1]}}
  // expected-remark @below {{result #0: contiguity = [128], divisibility = [16], constancy = [1]}}
  // expected-remark @below {{result #1: contiguity = [1], divisibility = [1], constancy = [1]}}
  // expected-remark @below {{result #2: contiguity = [128], divisibility = [16], constancy = [1]}}
  %res:3 = scf.for %i = %c0 to %n step %c16 iter_args(%ptrs = %pp, %cnt = %c0, %offs = %r) -> (tensor<128x!kcc.ptr<f16>>, i32, tensor<128xi32>) : i32 {
    // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1]}}
    %next = kcc.addptr %ptrs, %c128 : tensor<128x!kcc.ptr<f16>>, tensor<128xi32>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
    %cnt1 = arith.addi %cnt, %c1 : i32
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128]}}
    %is = kcc.splat %i : tensor<128xi32>
    // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1]}}
    %o1 = arith.addi %offs, %is : tensor<128xi32>
    scf.yield %next, %cnt1, %o1 : tensor<128x!kcc.ptr<f16>>, i32, tensor<128xi32>
  }
  // expected-remark @below {{iv: contiguity = [1], divisibility = [1], constancy = [1]}}
  scf.for %j = %m to %n step %c16 : i32 {
  }
  // expected-remark @below {{contiguity = [128], divisibility = [64], constancy = [1]}}
  %r64 = kcc.arange {start = 64 : i32, end = 192 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [64], constancy = [1]}}
  %sel = scf.if %b -> (tensor<128xi32>) {
    scf.yield %r : tensor<128xi32>
  } else {
    scf.yield %r64 : tensor<128xi32>
  }
  %v = kcc.load %pp : tensor<128x!kcc.ptr<f16>>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ip = kcc.splat %p : tensor<128x!kcc.ptr<f16>>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %s = kcc.reduce sum %r {axis = 0 : i32} : tensor<128xi32> -> i32
  return
}
