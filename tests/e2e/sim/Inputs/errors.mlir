// Hand-written kernels with one bug each, for errors.test and
// oob-and-banks.test.
module {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i8>

  // Thread i stores at 4 * (i + 1): the last of 64 threads writes past the
  // 256 bytes.
  llvm.func @shared_oob(%out: !llvm.ptr<1>) attributes {kcc.arg_names = ["out"], nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %f = llvm.mlir.constant(1.0 : f32) : f32
    %s = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %i = llvm.add %tid, %c1 : i32
    %p = llvm.getelementptr %s[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    llvm.store %f, %p {alignment = 4 : i64} : f32, !llvm.ptr<3>
    llvm.return
  }

  // Threads 32..63 return early; the others wait at a barrier for them.
  llvm.func @early_exit(%out: !llvm.ptr<1>) attributes {kcc.arg_names = ["out"], nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %c32 = llvm.mlir.constant(32 : i32) : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %low = llvm.icmp "ult" %tid, %c32 : i32
    llvm.cond_br %low, ^sync, ^done
  ^sync:
    nvvm.barrier0
    llvm.br ^done
  ^done:
    llvm.return
  }

  // A full-warp shuffle that lanes 16..31 skip.
  llvm.func @divergent_shfl(%out: !llvm.ptr<1>) attributes {kcc.arg_names = ["out"], nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>} {
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %all = llvm.mlir.constant(-1 : i32) : i32
    %clamp = llvm.mlir.constant(31 : i32) : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %low = llvm.icmp "ult" %tid, %c16 : i32
    llvm.cond_br %low, ^shfl, ^done
  ^shfl:
    %v = nvvm.shfl.sync bfly %all, %tid, %c16, %clamp : i32 -> i32
    llvm.br ^done
  ^done:
    llvm.return
  }

  // An op the simulator does not implement.
  llvm.func @unknown_op(%out: !llvm.ptr<1>) attributes {kcc.arg_names = ["out"], nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>} {
    %c = nvvm.read.ptx.sreg.clock : i32
    llvm.return
  }
}
