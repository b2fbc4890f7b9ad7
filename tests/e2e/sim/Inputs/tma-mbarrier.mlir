// A hand-written TMA pipeline step in the LLVM + NVVM dialects, the shape
// kcc's async lowering (ir/KccAsyncOps.td -> NVVM) emits for one stage:
// thread 0 initialises an mbarrier, arrives with expect_tx of the box's
// bytes and issues a TMA load of a 32 x 16 f32 box; every thread waits for
// phase 0, then copies its element of the box to `out`. EXPECT_TX is the
// byte count (2048 is right); tma-mbarrier.test plants a wrong one.
module {
  llvm.mlir.global internal @box() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  llvm.func @tma_copy(%tmap: !llvm.ptr, %out: !llvm.ptr<1>, %row: i32) attributes {kcc.arg_names = ["tmap", "out", "row"], kcc.num_warps = 16 : i32, nvvm.kernel, nvvm.maxntid = array<i32: 512, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %tx = llvm.mlir.constant(EXPECT_TX : i32) : i32
    %box = llvm.mlir.addressof @box : !llvm.ptr<3>
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %leader = llvm.icmp "eq" %tid, %c0 : i32
    llvm.cond_br %leader, ^init, ^wait
  ^init:
    nvvm.mbarrier.init %bar, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    nvvm.mbarrier.arrive.expect_tx %bar, %tx : !llvm.ptr<3>, i32
    nvvm.cp.async.bulk.tensor.shared.cluster.global %box, %tmap, %bar, box[%c0, %row] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    llvm.br ^wait
  ^wait:
    nvvm.barrier0
    nvvm.mbarrier.try_wait.parity %bar, %c0, %c0 : !llvm.ptr<3>, i32, i32
    %src = llvm.getelementptr %box[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr<3> -> f32
    %dst = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %v, %dst {alignment = 4 : i64} : f32, !llvm.ptr<1>
    llvm.return
  }
}
