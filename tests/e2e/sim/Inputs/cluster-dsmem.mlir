// Distributed shared memory in a 2-CTA cluster (LLVM + NVVM dialects):
// thread 0 of each CTA zeroes its @count; after a cluster barrier (START)
// every thread stores cta * 1000 + tid to its CTA's @buf[tid] and adds 1 to
// the peer CTA's @count (an atomic through mapa); after another (MIDDLE) it
// loads the peer's @buf[tid] into out[64 * cta + tid] and thread 0 its own
// @count (64: one per peer thread) into counts[cta]; a last one (FINAL)
// keeps each CTA alive while its peer reads its shared memory.
// cluster-dsmem.test deletes the lines marked START-BARRIER,
// MIDDLE-BARRIER and FINAL-BARRIER.
module {
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i32>
  llvm.mlir.global internal @count() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  llvm.func @dsmem(%out: !llvm.ptr<1>, %counts: !llvm.ptr<1>) attributes {kcc.arg_names = ["out", "counts"], nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %c1000 = llvm.mlir.constant(1000 : i32) : i32
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %count = llvm.mlir.addressof @count : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %cta = nvvm.read.ptx.sreg.ctaid.x : i32
    %other = llvm.xor %rank, %c1 : i32
    %leader = llvm.icmp "eq" %tid, %c0 : i32
    llvm.cond_br %leader, ^zero, ^start
  ^zero:
    llvm.store %c0, %count {alignment = 4 : i64} : i32, !llvm.ptr<3>
    llvm.br ^start
  ^start:
    nvvm.cluster.arrive // START-BARRIER
    nvvm.cluster.wait // START-BARRIER
    %scaled = llvm.mul %cta, %c1000 : i32
    %mine = llvm.add %scaled, %tid : i32
    %slot = llvm.getelementptr %buf[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %mine, %slot {alignment = 4 : i64} : i32, !llvm.ptr<3>
    %peerCount = nvvm.mapa %count, %other : !llvm.ptr<3> -> !llvm.ptr<7>
    %old = llvm.atomicrmw add %peerCount, %c1 monotonic : !llvm.ptr<7>, i32
    nvvm.cluster.arrive // MIDDLE-BARRIER
    nvvm.cluster.wait // MIDDLE-BARRIER
    %peerBuf = nvvm.mapa %buf, %other : !llvm.ptr<3> -> !llvm.ptr<7>
    %peerSlot = llvm.getelementptr %peerBuf[%tid] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i32
    %theirs = llvm.load %peerSlot {alignment = 4 : i64} : !llvm.ptr<7> -> i32
    %base = llvm.mul %cta, %c64 : i32
    %i = llvm.add %base, %tid : i32
    %o = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %theirs, %o {alignment = 4 : i64} : i32, !llvm.ptr<1>
    llvm.cond_br %leader, ^count, ^end
  ^count:
    %n = llvm.load %count {alignment = 4 : i64} : !llvm.ptr<3> -> i32
    %co = llvm.getelementptr %counts[%cta] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %n, %co {alignment = 4 : i64} : i32, !llvm.ptr<1>
    llvm.br ^end
  ^end:
    nvvm.cluster.arrive // FINAL-BARRIER
    nvvm.cluster.wait // FINAL-BARRIER
    llvm.return
  }
}
