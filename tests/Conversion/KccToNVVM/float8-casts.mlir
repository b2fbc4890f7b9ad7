// Casts to and from 8-bit floats on NVIDIA (backends/nvidia/Float8ToNVVM.cpp):
// registers hold the bytes; f32 -> e4m3 is cvt.rn.satfinite in pairs (the
// upper byte from the first operand), e5m2 -> bf16 is exact through f16.
// RUN: kcc-opt %s -kcc-convert-to-llvm | FileCheck %s --check-prefix=CONV
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// CONV-LABEL: llvm.func @quant
// CONV: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CONV: nvvm.convert.f32x2.to.f8x2 %[[HI:.*]], %[[LO:.*]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CONV: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<1>
// CONV: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<4xi8>
// CONV: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E5M2) -> vector<2xf16>
// CONV-NOT: f8E4M3FN>

// PTX-DAG: cvt.rn.satfinite.e4m3x2.f32
// PTX-DAG: cvt.rn.f16x2.e5m2x2
// PTX-DAG: st.global.v2.b16
// PTX-DAG: ld.global.b32

#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @quant(%x: !kcc.ptr<f32> {kcc.align = 16 : i64}, %y: !kcc.ptr<f8E4M3FN> {kcc.align = 16 : i64}, %z: !kcc.ptr<f8E5M2> {kcc.align = 16 : i64}, %w: !kcc.ptr<bf16> {kcc.align = 16 : i64}) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
    %xp = kcc.splat %x : tensor<512x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %r : tensor<512x!kcc.ptr<f32>, #b>, tensor<512xi32, #b>
    %xv = kcc.load %xa {kcc.access_width = 4 : i32} : tensor<512x!kcc.ptr<f32>, #b>
    %q = arith.truncf %xv : tensor<512xf32, #b> to tensor<512xf8E4M3FN, #b>
    %yp = kcc.splat %y : tensor<512x!kcc.ptr<f8E4M3FN>, #b>
    %ya = kcc.addptr %yp, %r : tensor<512x!kcc.ptr<f8E4M3FN>, #b>, tensor<512xi32, #b>
    kcc.store %ya, %q {kcc.access_width = 4 : i32} : tensor<512x!kcc.ptr<f8E4M3FN>, #b>
    %zp = kcc.splat %z : tensor<512x!kcc.ptr<f8E5M2>, #b>
    %za = kcc.addptr %zp, %r : tensor<512x!kcc.ptr<f8E5M2>, #b>, tensor<512xi32, #b>
    %zv = kcc.load %za {kcc.access_width = 4 : i32} : tensor<512x!kcc.ptr<f8E5M2>, #b>
    %e = arith.extf %zv : tensor<512xf8E5M2, #b> to tensor<512xbf16, #b>
    %wp = kcc.splat %w : tensor<512x!kcc.ptr<bf16>, #b>
    %wa = kcc.addptr %wp, %r : tensor<512x!kcc.ptr<bf16>, #b>, tensor<512xi32, #b>
    kcc.store %wa, %e {kcc.access_width = 4 : i32} : tensor<512x!kcc.ptr<bf16>, #b>
    return
  }
}
