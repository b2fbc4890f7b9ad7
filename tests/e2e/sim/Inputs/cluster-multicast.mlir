// A hand-written 2-CTA cluster pipeline in the LLVM + NVVM dialects, the
// shape of kcc's sm_90a GEMMs with TMA multicast: per K tile, the leader
// thread of CTA r waits until the buffer is free in every CTA ("empty", one
// arrival per CTA of the cluster), announces the tile's 1024 bytes on its
// own "full" barrier and multicasts its half of the tile (box r, 16 x 8 f32)
// into every CTA of the cluster; all 128 threads of each CTA wait for the
// whole tile and read it, and after a CTA barrier the leader releases the
// buffer to the producers of both CTAs (an arrive on each CTA's "empty"
// through mapa). After the inits a CTA barrier orders them for the CTA's
// own threads and a cluster barrier for its peers'; another cluster barrier
// keeps each CTA alive until its peers are done with it.
// out[256 * ctaid + e] is the sum over the K tiles of element e of the tile.
// The tests plant bugs by deleting the lines marked INIT-BARRIER,
// FINAL-BARRIER, EMPTY-WAIT and PEER-RELEASE.
module {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  llvm.mlir.global internal @full() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  llvm.mlir.global internal @empty() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  llvm.func @multicast(%tmap: !llvm.ptr, %out: !llvm.ptr<1>, %ktiles: i32) attributes {kcc.arg_names = ["tmap", "out", "ktiles"], nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %c256 = llvm.mlir.constant(256 : i32) : i32
    %c512 = llvm.mlir.constant(512 : i32) : i32
    %tx = llvm.mlir.constant(1024 : i32) : i32
    %zero = llvm.mlir.constant(0.0 : f32) : f32
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %full = llvm.mlir.addressof @full : !llvm.ptr<3>
    %empty = llvm.mlir.addressof @empty : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %nranks = nvvm.read.ptx.sreg.cluster.nctarank : i32
    %cluster = nvvm.read.ptx.sreg.clusterid.x : i32
    %cta = nvvm.read.ptx.sreg.ctaid.x : i32
    %leader = llvm.icmp "eq" %tid, %c0 : i32
    llvm.cond_br %leader, ^init, ^start
  ^init:
    nvvm.mbarrier.init %full, %c1 : !llvm.ptr<3>, i32
    nvvm.mbarrier.init %empty, %nranks : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    llvm.br ^start
  ^start:
    nvvm.barrier0
    nvvm.cluster.arrive // INIT-BARRIER
    nvvm.cluster.wait // INIT-BARRIER
    llvm.br ^loop(%c0, %zero, %zero : i32, f32, f32)
  ^loop(%k: i32, %acc0: f32, %acc1: f32):
    %more = llvm.icmp "slt" %k, %ktiles : i32
    llvm.cond_br %more, ^body, ^done
  ^body:
    %parity = llvm.and %k, %c1 : i32
    llvm.cond_br %leader, ^produce, ^consume
  ^produce:
    %notFirst = llvm.icmp "sgt" %k, %c0 : i32
    llvm.cond_br %notFirst, ^waitEmpty, ^issue
  ^waitEmpty:
    %prev = llvm.sub %k, %c1 : i32
    %prevParity = llvm.and %prev, %c1 : i32
    nvvm.mbarrier.try_wait.parity %empty, %prevParity, %c0 : !llvm.ptr<3>, i32, i32 // EMPTY-WAIT
    llvm.br ^issue
  ^issue:
    nvvm.mbarrier.arrive.expect_tx %full, %tx : !llvm.ptr<3>, i32
    %col = llvm.mul %rank, %c16 : i32
    %firstTile = llvm.mul %cluster, %ktiles : i32
    %tileRow = llvm.add %firstTile, %k : i32
    %row = llvm.mul %tileRow, %c8 : i32
    %half = llvm.mul %rank, %c512 : i32
    %dst3 = llvm.getelementptr %tile[%half] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %dst = llvm.addrspacecast %dst3 : !llvm.ptr<3> to !llvm.ptr<7>
    %all = llvm.shl %c1, %nranks : i32
    %mask32 = llvm.sub %all, %c1 : i32
    %mask = llvm.trunc %mask32 : i32 to i16
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %full, box[%col, %row] multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr
    llvm.br ^consume
  ^consume:
    nvvm.mbarrier.try_wait.parity %full, %parity, %c0 : !llvm.ptr<3>, i32, i32
    %p0 = llvm.getelementptr %tile[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    %v0 = llvm.load %p0 {alignment = 4 : i64} : !llvm.ptr<3> -> f32
    %e1 = llvm.add %tid, %c128 : i32
    %p1 = llvm.getelementptr %tile[%e1] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    %v1 = llvm.load %p1 {alignment = 4 : i64} : !llvm.ptr<3> -> f32
    %a0 = llvm.fadd %acc0, %v0 : f32
    %a1 = llvm.fadd %acc1, %v1 : f32
    nvvm.barrier0
    llvm.cond_br %leader, ^release, ^next
  ^release:
    %mine = nvvm.mapa %empty, %rank : !llvm.ptr<3> -> !llvm.ptr<7>
    nvvm.mbarrier.arrive %mine {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
    %other = llvm.xor %rank, %c1 : i32
    %theirs = nvvm.mapa %empty, %other : !llvm.ptr<3> -> !llvm.ptr<7>
    nvvm.mbarrier.arrive %theirs {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7> // PEER-RELEASE
    llvm.br ^next
  ^next:
    %k1 = llvm.add %k, %c1 : i32
    llvm.br ^loop(%k1, %a0, %a1 : i32, f32, f32)
  ^done:
    %base = llvm.mul %cta, %c256 : i32
    %i0 = llvm.add %base, %tid : i32
    %o0 = llvm.getelementptr %out[%i0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc0, %o0 {alignment = 4 : i64} : f32, !llvm.ptr<1>
    %i1 = llvm.add %i0, %c128 : i32
    %o1 = llvm.getelementptr %out[%i1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc1, %o1 {alignment = 4 : i64} : f32, !llvm.ptr<1>
    nvvm.cluster.arrive // FINAL-BARRIER
    nvvm.cluster.wait // FINAL-BARRIER
    llvm.return
  }
}
