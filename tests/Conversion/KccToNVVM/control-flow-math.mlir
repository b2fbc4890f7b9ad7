// scf.for / scf.if carrying tiles, f16 math in f32 (ex2/rsqrt approx),
// f64 libdevice calls, a replicated tile (only owners store), uniform
// scalar load/store (thread 0 stores); ops marked approximate (`afn`, what
// sigmoid emits) flush subnormals: one ex2/rcp.approx.ftz each, and only
// 1 / x becomes a reciprocal (x / y under afn is LLVM's div.approx, without
// afn IEEE div.rn).
// RUN: kcc-opt %s -kcc-convert-to-llvm | FileCheck %s --check-prefix=CONV
// RUN: kcc-opt %s -kcc-lower-to-llvm | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

// CONV-DAG: llvm.func @__nv_exp(f64) -> f64
// CONV-DAG: llvm.func @__nv_log(f64) -> f64
// CONV-LABEL: llvm.func @h
// CONV-SAME: nvvm.maxntid = array<i32: 64, 1, 1>
// CONV: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CONV: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf16>)
// CONV: scf.if %{{.*}} -> (vector<8xf16>)
// CONV: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
// CONV: llvm.call @__nv_exp
// CONV: llvm.call @__nv_log
// Replicated 16-element tile: owners (storers) are threads 0 and 1.
// CONV: arith.cmpi ult, %{{.*}}, %c2_i32{{.*}} : i32
// Scalar store by thread 0.
// CONV: arith.cmpi eq, %{{.*}}, %c0_i32{{.*}} : i32

// PTX: ld.global.v4.b32
// PTX: ex2.approx.ftz.f32
// PTX: rsqrt.approx.f32
// PTX: st.global.v4.b32
// PTX: ld.global.v2.b64
// PTX: call.uni (retval0), __nv_exp
// PTX: st.global.v2.b64

// CONV-LABEL: llvm.func @approx
// CONV: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CONV: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
// CONV: llvm.return
// PTX-LABEL: approx(
// PTX: ex2.approx.ftz.f32
// PTX: rcp.approx.ftz.f32
// PTX: div.approx.f32
// PTX: div.rn.f32

#b = #kcc.blocked<vec = 8, threads = 64, warp = 32>
#s = #kcc.blocked<vec = 8, threads = 64, warp = 32>
module {
  func.func @h(%x: !kcc.ptr<f16>, %y: !kcc.ptr<f16>, %d: !kcc.ptr<f64>, %flag: i1, %n: i32) attributes {kcc.kernel, kcc.num_warps = 2 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
    %xp = kcc.splat %x : tensor<512x!kcc.ptr<f16>, #b>
    %xa = kcc.addptr %xp, %r : tensor<512x!kcc.ptr<f16>, #b>, tensor<512xi32, #b>
    %v = kcc.load %xa {kcc.access_width = 8 : i32} : tensor<512x!kcc.ptr<f16>, #b>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %v) -> (tensor<512xf16, #b>) : i32 {
      %e = math.exp %a : tensor<512xf16, #b>
      %w = scf.if %flag -> (tensor<512xf16, #b>) {
        %q = arith.addf %e, %a : tensor<512xf16, #b>
        scf.yield %q : tensor<512xf16, #b>
      } else {
        %q = math.rsqrt %a : tensor<512xf16, #b>
        scf.yield %q : tensor<512xf16, #b>
      }
      scf.yield %w : tensor<512xf16, #b>
    }
    %yp = kcc.splat %y : tensor<512x!kcc.ptr<f16>, #b>
    %ya = kcc.addptr %yp, %r : tensor<512x!kcc.ptr<f16>, #b>, tensor<512xi32, #b>
    kcc.store %ya, %acc {kcc.access_width = 8 : i32} : tensor<512x!kcc.ptr<f16>, #b>
    // Replicated 16-element f64 tile (2 chunks of 8 over 64 threads), libdevice exp.
    %r16 = kcc.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #s>
    %dp = kcc.splat %d : tensor<16x!kcc.ptr<f64>, #s>
    %da = kcc.addptr %dp, %r16 : tensor<16x!kcc.ptr<f64>, #s>, tensor<16xi32, #s>
    %n16 = kcc.splat %n : tensor<16xi32, #s>
    %m = arith.cmpi slt, %r16, %n16 : tensor<16xi32, #s>
    %dv = kcc.load %da mask %m {kcc.access_width = 8 : i32} : tensor<16x!kcc.ptr<f64>, #s>
    %de = math.exp %dv : tensor<16xf64, #s>
    %dl = math.log %de : tensor<16xf64, #s>
    kcc.store %da, %dl mask %m {kcc.access_width = 8 : i32} : tensor<16x!kcc.ptr<f64>, #s>
    // uniform scalar: load, log, store by thread 0
    %s0 = kcc.load %d : !kcc.ptr<f64>
    %sl = math.sqrt %s0 : f64
    kcc.store %d, %sl : !kcc.ptr<f64>
    return
  }
  func.func @approx(%x: !kcc.ptr<f32>, %y: f32) attributes {kcc.kernel, kcc.num_warps = 2 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b>
    %xp = kcc.splat %x : tensor<64x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %r : tensor<64x!kcc.ptr<f32>, #b>, tensor<64xi32, #b>
    %v = kcc.load %xa {kcc.access_width = 4 : i32} : tensor<64x!kcc.ptr<f32>, #b>
    %one = arith.constant 1.0 : f32
    %ones = kcc.splat %one : tensor<64xf32, #b>
    %e = math.exp %v fastmath<afn> : tensor<64xf32, #b>
    %d = arith.addf %ones, %e : tensor<64xf32, #b>
    %s = arith.divf %ones, %d fastmath<afn> : tensor<64xf32, #b>
    %ys = kcc.splat %y : tensor<64xf32, #b>
    %q = arith.divf %s, %ys fastmath<afn> : tensor<64xf32, #b>
    %p = arith.divf %q, %v : tensor<64xf32, #b>
    kcc.store %xa, %p {kcc.access_width = 4 : i32} : tensor<64x!kcc.ptr<f32>, #b>
    return
  }
}
