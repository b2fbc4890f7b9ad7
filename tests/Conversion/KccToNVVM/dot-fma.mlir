// kcc.dot's CUDA-core lowering (backends/nvidia/DotToFMA.cpp): a and b go to
// the shared-memory scratch between two barriers (a's rows padded by one bank
// word; only owners of a replicated tile store), then one scf.for over K
// carries the thread's accumulators, loading each distinct a[i,k] and b[k,j]
// once per step. Float accumulators use fma (f16 in f32); integers muli/addi
// after sign extension; f64 products for an f32 accumulator are rounded
// before the add, as the interpreter does.
// RUN: kcc-opt %s -kcc-allocate-shared-memory -kcc-convert-to-llvm -canonicalize -cse | FileCheck %s
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

#b = #kcc.blocked<vec = 4, threads = 32, warp = 32>
#r = #kcc.blocked<vec = 1, threads = 128, warp = 32>
#v = #kcc.blocked<vec = 8, threads = 32, warp = 32>
module {
  // 16x16x16 f32: a takes 16 rows of 17 floats (1088 bytes), b follows.
  // CHECK-LABEL: llvm.func @mm_f32
  // CHECK-SAME: kcc.dynamic_smem_bytes = 2112
  // CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @__kcc_smem_mm_f32 : !llvm.ptr<3>
  // CHECK: %[[B:.*]] = llvm.getelementptr %[[SMEM]][1088] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-8: llvm.store %{{.*}} : f32, !llvm.ptr<3>
  // CHECK-COUNT-8: llvm.store %{{.*}} : f32, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.barrier0
  // Rows of a are 17 floats apart.
  // CHECK: arith.muli %{{.*}}, %c17_i32 : i32
  // CHECK: scf.for %[[K:.*]] = %c0_i32 to %c16_i32 step %c1_i32 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
  // CHECK-NEXT: arith.addi %{{.*}}, %[[K]] : i32
  // CHECK-NEXT: llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  // CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NEXT: arith.addi %{{.*}}, %[[K]] : i32
  // CHECK-NEXT: llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  // CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NEXT: arith.muli %[[K]], %c16_i32 : i32
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: llvm.getelementptr %[[B]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  // CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NEXT: llvm.intr.fma
  // Two rows of a, four columns of b: 6 loads for 8 fmas.
  // CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NOT: llvm.load
  // CHECK-COUNT-5: llvm.intr.fma
  // CHECK-NEXT: scf.yield
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  func.func @mm_f32(%p: !kcc.ptr<f32>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    %a = kcc.splat %p : tensor<16x16x!kcc.ptr<f32>, #b>
    %x = kcc.load %a : tensor<16x16x!kcc.ptr<f32>, #b>
    %c = kcc.dot %x, %x, %x : tensor<16x16xf32, #b>, tensor<16x16xf32, #b> -> tensor<16x16xf32, #b>
    kcc.store %a, %c : tensor<16x16x!kcc.ptr<f32>, #b>
    return
  }

  // f16 inputs and accumulator: summed in f32, rounded once after the loop.
  // CHECK-LABEL: llvm.func @mm_f16
  // CHECK: arith.extf %{{.*}} : f16 to f32
  // CHECK: scf.for {{.*}} -> (f32, f32, f32, f32)
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
  // CHECK-NEXT: arith.extf %{{.*}} : f16 to f32
  // CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
  // CHECK: scf.yield
  // CHECK: arith.truncf %{{.*}} : f32 to f16
  func.func @mm_f16(%pa: !kcc.ptr<f16>, %pc: !kcc.ptr<f16>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    %a = kcc.splat %pa : tensor<16x32x!kcc.ptr<f16>, #b>
    %x = kcc.load %a : tensor<16x32x!kcc.ptr<f16>, #b>
    %b = kcc.splat %pa : tensor<32x8x!kcc.ptr<f16>, #b>
    %y = kcc.load %b : tensor<32x8x!kcc.ptr<f16>, #b>
    %cp = kcc.splat %pc : tensor<16x8x!kcc.ptr<f16>, #b>
    %c = kcc.load %cp : tensor<16x8x!kcc.ptr<f16>, #b>
    %d = kcc.dot %x, %y, %c : tensor<16x32xf16, #b>, tensor<32x8xf16, #b> -> tensor<16x8xf16, #b>
    kcc.store %cp, %d : tensor<16x8x!kcc.ptr<f16>, #b>
    return
  }

  // i8 x i8 + i32 with 128 threads: b (64 elements) and c (32) are
  // replicated. Only b's 64 owners store it; c's threads read as tid & 31.
  // a's rows are 16 + 4 bytes.
  // CHECK-LABEL: llvm.func @mm_i8
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: arith.muli %{{.*}}, %c20_i32 : i32
  // CHECK: %[[OWN:.*]] = arith.cmpi ult, %[[TID]], %c64_i32 : i32
  // CHECK: scf.if %[[OWN]] {
  // CHECK: llvm.store %{{.*}} : i8, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: arith.andi %[[TID]], %c31_i32 : i32
  // CHECK: scf.for {{.*}} -> (i32)
  // CHECK: arith.extsi %{{.*}} : i8 to i32
  // CHECK: arith.extsi %{{.*}} : i8 to i32
  // CHECK: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
  // CHECK: arith.addi %{{.*}}, %[[P]] : i32
  // CHECK-NOT: fma
  // CHECK: scf.yield
  func.func @mm_i8(%pa: !kcc.ptr<i8>, %pc: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %a = kcc.splat %pa : tensor<8x16x!kcc.ptr<i8>, #r>
    %x = kcc.load %a : tensor<8x16x!kcc.ptr<i8>, #r>
    %b = kcc.splat %pa : tensor<16x4x!kcc.ptr<i8>, #r>
    %y = kcc.load %b : tensor<16x4x!kcc.ptr<i8>, #r>
    %z = arith.constant dense<0> : tensor<8x4xi32, #r>
    %d = kcc.dot %x, %y, %z : tensor<8x16xi8, #r>, tensor<16x4xi8, #r> -> tensor<8x4xi32, #r>
    %cp = kcc.splat %pc : tensor<8x4x!kcc.ptr<i32>, #r>
    kcc.store %cp, %d : tensor<8x4x!kcc.ptr<i32>, #r>
    return
  }

  // f64 x f64 + f32 (the frontend's default accumulator): the f64 product
  // is rounded to f32, then added. c's chunks (vec 8) span 4 rows of 2.
  // CHECK-LABEL: llvm.func @mm_f64
  // CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
  // CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f64
  // CHECK: %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[M]] : f64 to f32
  // CHECK-NEXT: arith.addf %{{.*}}, %[[T]] : f32
  // CHECK: scf.yield
  func.func @mm_f64(%pa: !kcc.ptr<f64>, %pc: !kcc.ptr<f32>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    %a = kcc.splat %pa : tensor<8x8x!kcc.ptr<f64>, #v>
    %x = kcc.load %a : tensor<8x8x!kcc.ptr<f64>, #v>
    %z = arith.constant dense<0.0> : tensor<8x2xf32, #v>
    %b = kcc.splat %pa : tensor<8x2x!kcc.ptr<f64>, #v>
    %y = kcc.load %b : tensor<8x2x!kcc.ptr<f64>, #v>
    %d = kcc.dot %x, %y, %z : tensor<8x8xf64, #v>, tensor<8x2xf64, #v> -> tensor<8x2xf32, #v>
    %cp = kcc.splat %pc : tensor<8x2x!kcc.ptr<f32>, #v>
    kcc.store %cp, %d : tensor<8x2x!kcc.ptr<f32>, #v>
    return
  }
}

// PTX-LABEL: .entry mm_f32(
// PTX: bar.sync 0;
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX: ld.shared.b32
// PTX: fma.rn.f32
// PTX-LABEL: .entry mm_i8(
// PTX: mad.lo.s32
// PTX-LABEL: .entry mm_f64(
// PTX: mul.rn.f64
// PTX: cvt.rn.f32.f64
