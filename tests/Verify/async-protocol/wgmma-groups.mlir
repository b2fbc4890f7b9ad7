// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// kcc.warpgroup_mma groups left in flight (`pending`): their stages stay
// read and their accumulator written until a later group or a wait retires
// them.

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// Mutation: the stage is reloaded while the group that reads it is in flight.
func.func @overwrite_in_flight(%a: !ma) attributes {kcc.kernel} {
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
  // expected-note@+1 {{the warpgroup_mma reading the stage}}
  %r = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %acc {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  kcc.cta_barrier
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{writing stage 0 while a kcc.warpgroup_mma group still reads it (its wgmma group has not been retired); retire the group first}}
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  kcc.warpgroup_mma_wait 0
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// Mutation: the accumulator is moved to registers before its group retired.
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
  // expected-error@+1 {{reads a wgmma accumulator while a kcc.warpgroup_mma group is still writing it; add kcc.warpgroup_mma_wait 0 before using the accumulator}}
  %t = kcc.convert_layout %r : !acc -> tensor<64x64xf32>
  kcc.warpgroup_mma_wait 0
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!cbuf = !kcc.smem<[64, 64], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// Mutation: the epilogue stores the accumulator straight into the TMA-store
// stage before its group retired.
func.func @store_acc_in_flight(%a: !ma) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant 0.0 : f32
  %buf = kcc.smem_alloc : !buf
  %cbuf = kcc.smem_alloc : !cbuf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %acc = kcc.splat %z : !acc
  // expected-note@+1 {{the group in flight}}
  %r = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %acc {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  // expected-error@+1 {{reads a wgmma accumulator while a kcc.warpgroup_mma group is still writing it; add kcc.warpgroup_mma_wait 0 before using the accumulator}}
  kcc.smem_store %r, %cbuf[%c0] : !acc, !cbuf
  kcc.warpgroup_mma_wait 0
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// Mutation: the kernel ends with a group in flight.
func.func @exit_in_flight(%a: !ma) attributes {kcc.kernel} {
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
  // expected-error@+1 {{the kernel ends while this kcc.warpgroup_mma group is still in flight (reading shared memory, writing its accumulator); add kcc.warpgroup_mma_wait 0 after the last warpgroup_mma}}
  %r = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %acc {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// The protocol done right: retire, then release and reload.
// expected-no-diagnostics
func.func @retired(%a: !ma) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %acc = kcc.splat %z : !acc
  %r = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %acc {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  kcc.warpgroup_mma_wait 0
  kcc.cta_barrier
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  %s = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %r {a_k_major = true, b_k_major = true} : !buf, !buf, !acc -> !acc
  %t = kcc.convert_layout %s : !acc -> tensor<64x64xf32>
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
!p = tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>

// Mutation: the register-A form's B stage (attention's V) is reloaded while
// its group is in flight.
func.func @register_a_overwrite_in_flight(%a: !ma, %p: !p) attributes {kcc.kernel} {
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
  // expected-note@+1 {{the warpgroup_mma reading the stage}}
  %r = kcc.warpgroup_mma_reg_a %p, %buf[%c0], %acc {b_k_major = false, pending = 1 : i32} : !p, !buf, !acc -> !acc
  kcc.cta_barrier
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{writing stage 0 while a kcc.warpgroup_mma group still reads it (its wgmma group has not been retired); retire the group first}}
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  kcc.warpgroup_mma_wait 0
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 128>
!bar = !kcc.mbarrier<1>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>
!p = tensor<64x64xf16, #kcc.wgmma_acc<warpgroups = 1>>

// Mutation: the register-A form reads its B stage before the load landed.
func.func @register_a_unwaited(%a: !ma, %p: !p) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant 0.0 : f32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-note@+1 {{the copy into the stage}}
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  %acc = kcc.splat %z : !acc
  // expected-error@+1 {{reading a stage before its barrier phase completed: stage 0 is filled by a kcc.tma_load that signals barrier #0 in phase 0, and no kcc.mbarrier_wait has observed that phase}}
  %r = kcc.warpgroup_mma_reg_a %p, %buf[%c0], %acc {b_k_major = false} : !p, !buf, !acc -> !acc
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!bar = !kcc.mbarrier<2>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// A K block's product promoted one iteration late (kcc-defer-block-promotion,
// FP8 block scales): the next product is issued, the wait retires the
// previous one, then it is promoted into the sum.
// expected-no-diagnostics
func.func @promoted_late(%a: !ma, %s: !acc) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.mbarrier_init %bars[%c1], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_arrive_expect_tx %bars[%c1], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c1], %bars[%c1] : !ma, !buf, !bar
  %zero = kcc.splat %z : !acc
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  %p0 = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %zero {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  kcc.mbarrier_wait %bars[%c1], parity %c0 : !bar
  %p1 = kcc.warpgroup_mma %buf[%c1], %buf[%c1], %zero {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  %d0 = kcc.warpgroup_mma_wait 1 %p0 : !acc
  %t0 = arith.mulf %d0, %s : !acc
  %sum0 = arith.addf %zero, %t0 : !acc
  %d1 = kcc.warpgroup_mma_wait 0 %p1 : !acc
  %t1 = arith.mulf %d1, %s : !acc
  %sum1 = arith.addf %sum0, %t1 : !acc
  return
}

// -----

!ma = !kcc.tensormap<[64, 64], f16, swizzle = 128>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 128>
!bar = !kcc.mbarrier<2>
!acc = tensor<64x64xf32, #kcc.wgmma_acc<warpgroups = 1>>

// Mutation: the late promotion moved ahead of the next product's issue, so
// it reads the previous product while its group is still in flight.
func.func @promoted_before_retired(%a: !ma, %s: !acc) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.mbarrier_init %bars[%c1], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c0], %bars[%c0] : !ma, !buf, !bar
  kcc.mbarrier_arrive_expect_tx %bars[%c1], bytes 8192 : !bar
  kcc.tma_load %a[%c0, %c0] -> %buf[%c1], %bars[%c1] : !ma, !buf, !bar
  %zero = kcc.splat %z : !acc
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the group in flight}}
  %p0 = kcc.warpgroup_mma %buf[%c0], %buf[%c0], %zero {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  // expected-error@+1 {{reads a wgmma accumulator while a kcc.warpgroup_mma group is still writing it; add kcc.warpgroup_mma_wait 0 before using the accumulator}}
  %t0 = arith.mulf %p0, %s : !acc
  kcc.mbarrier_wait %bars[%c1], parity %c0 : !bar
  %p1 = kcc.warpgroup_mma %buf[%c1], %buf[%c1], %zero {a_k_major = true, b_k_major = true, pending = 1 : i32} : !buf, !buf, !acc -> !acc
  %d1 = kcc.warpgroup_mma_wait 0 %p1 : !acc
  return
}
