// RUN: kcc-opt %s --kcc-verify-async-protocol=generated=1 -verify-diagnostics -o /dev/null

// With `generated` (kcc's own pipeline: the protocol was built by kcc from a
// .kc kernel), a failure is kcc's, in the kernel's terms: the ops it names
// are described, and no advice names an op the author cannot write.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// The accumulator is moved to registers before its group retired.
func.func @read_acc_in_flight(%a: !ma) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant 0.0 : f32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %acc = kcc.splat %z : !acc
  // expected-note@+1 {{the group in flight}}
  %r = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %acc {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  // expected-error@+2 {{kcc cannot prove the asynchronous pipeline it built for this kernel safe, so it does not emit it (a limitation of kcc, not an error in the kernel): reads a wgmma accumulator while a wgmma product group is still writing it}}
  // expected-note@+1 {{kcc does not emit a pipeline it cannot prove, and this check cannot be turned off; please report the kernel}}
  %t = kcc.convert_layout %r : !acc -> tensor<64x64xf32>
  kcc.warpgroup_mma_wait 0
  return
}
