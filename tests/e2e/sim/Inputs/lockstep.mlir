// For lockstep.test: lanes of one warp run loops of different trip counts
// (tid % 7) with a branch inside, so the warp splits and rejoins; a
// full-warp shuffle after the loop needs every lane back together.
module {
  llvm.func @diverge(%out: !llvm.ptr<1>) attributes {kcc.arg_names = ["out"], nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c7 = llvm.mlir.constant(7 : i32) : i32
    %c100 = llvm.mlir.constant(100 : i32) : i32
    %all = llvm.mlir.constant(-1 : i32) : i32
    %clamp = llvm.mlir.constant(31 : i32) : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %n = llvm.urem %tid, %c7 : i32
    llvm.br ^head(%c0, %c0 : i32, i32)
  ^head(%i: i32, %acc: i32):
    %more = llvm.icmp "ult" %i, %n : i32
    llvm.cond_br %more, ^body, ^exit
  ^body:
    %bit = llvm.and %i, %c1 : i32
    %odd = llvm.icmp "ne" %bit, %c0 : i32
    llvm.cond_br %odd, ^odd, ^even
  ^odd:
    %twice = llvm.mul %i, %c2 : i32
    %a1 = llvm.add %acc, %twice : i32
    llvm.br ^latch(%a1 : i32)
  ^even:
    %a2 = llvm.add %acc, %c1 : i32
    llvm.br ^latch(%a2 : i32)
  ^latch(%next: i32):
    %i1 = llvm.add %i, %c1 : i32
    llvm.br ^head(%i1, %next : i32, i32)
  ^exit:
    %peer = nvvm.shfl.sync bfly %all, %acc, %c1, %clamp : i32 -> i32
    %hi = llvm.mul %acc, %c100 : i32
    %v = llvm.add %hi, %peer : i32
    %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %v, %p {alignment = 4 : i64} : i32, !llvm.ptr<1>
    llvm.return
  }
}
