// A hand-written warpgroup MMA in the LLVM + NVVM dialects, the shape kcc's
// wgmma lowering (backends/nvidia/WarpgroupMmaToNVVM.cpp) emits: the 128
// threads fill A (64 x 16, K-major, 128-byte swizzled rows at SBO 1024) and
// B (8 x 16, K-major) in shared memory with f16 1.0, then issue one
// wgmma.mma_async.m64n8k16 through shared-memory descriptors, commit and
// wait, and store their 4 accumulator registers (16.0 each: 16 products of
// 1.0) to out. wgmma-protocol.test plants protocol bugs through the
// placeholders: DESC_EXTRA (%z64, or %perThread for a descriptor that
// differs between threads), EXIT_TID (-1, or a thread that exits before the
// wgmma), OVERWRITE (empty, or a store to A after the issue).
module {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<9216 x i8>
  llvm.func @mma(%out: !llvm.ptr<1>) attributes {kcc.arg_names = ["out"], nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %cexit = llvm.mlir.constant(EXIT_TID : i32) : i32
    %z64 = llvm.mlir.constant(0 : i64) : i64
    %ones = llvm.mlir.constant(dense<4323521613979991040> : vector<8xi64>) : vector<8xi64>
    %one4 = llvm.mlir.constant(4323521613979991040 : i64) : i64
    %zf = llvm.mlir.constant(0.0 : f32) : f32
    %zh = llvm.mlir.constant(0.0 : f16) : f16
    // start 0, LBO 16, SBO 1024, 128-byte swizzle; B at 8192.
    %descA0 = llvm.mlir.constant(4611686293305360384 : i64) : i64
    %descB = llvm.mlir.constant(4611686293305360896 : i64) : i64
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %a = llvm.getelementptr %smem[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, vector<8xi64>
    llvm.store %ones, %a {alignment = 64 : i64} : vector<8xi64>, !llvm.ptr<3>
    %bbase = llvm.getelementptr %smem[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %b = llvm.getelementptr %bbase[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
    llvm.store %one4, %b {alignment = 8 : i64} : i64, !llvm.ptr<3>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.barrier0
    %leave = llvm.icmp "eq" %tid, %cexit : i32
    llvm.cond_br %leave, ^exit, ^mma
  ^mma:
    %bit = llvm.and %tid, %c1 : i32
    %bit16 = llvm.mul %bit, %c16 : i32
    %perThread = llvm.zext %bit16 : i32 to i64
    %descA = llvm.or %descA0, DESC_EXTRA : i64
    nvvm.wgmma.fence.aligned
    %r = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $6, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,l,l,r,0,1,2,3" %descA, %descB, %c1, %zf, %zf, %zf, %zf : (i64, i64, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    OVERWRITE
    %r0 = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
    %r1 = llvm.extractvalue %r[1] : !llvm.struct<(f32, f32, f32, f32)>
    %r2 = llvm.extractvalue %r[2] : !llvm.struct<(f32, f32, f32, f32)>
    %r3 = llvm.extractvalue %r[3] : !llvm.struct<(f32, f32, f32, f32)>
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    %v0 = llvm.mlir.poison : vector<4xf32>
    %v1 = llvm.insertelement %r0, %v0[%c0 : i32] : vector<4xf32>
    %v2 = llvm.insertelement %r1, %v1[%c1 : i32] : vector<4xf32>
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %v3 = llvm.insertelement %r2, %v2[%c2 : i32] : vector<4xf32>
    %v4 = llvm.insertelement %r3, %v3[%c3 : i32] : vector<4xf32>
    %dst = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
    llvm.store %v4, %dst {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
