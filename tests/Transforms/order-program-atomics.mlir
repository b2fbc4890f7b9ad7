// kcc-order-program-atomics: a program-wide (scalar) atomic that releases
// after TMA stores first waits for the stores to complete and fences the
// async proxy; one that acquires before TMA loads is followed by the fence.
// Each thread's own (tile) atomics and kernels without TMA are left alone.
// RUN: kcc-opt %s --kcc-order-program-atomics -split-input-file | FileCheck %s
// The fenced protocol still verifies (the global fence fences no stage).
// RUN: kcc-opt %s --kcc-order-program-atomics --kcc-verify-async-protocol -split-input-file -o /dev/null

!map = !kcc.tensormap<[64, 32], f32, swizzle = 0>
!buf = !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// The last-program pattern: a partial stored by TMA, a ticket drawn, the
// partials loaded back by TMA.
// CHECK-LABEL: func.func @last_program(
// CHECK: kcc.tma_store
// CHECK: kcc.bulk_commit_group
// CHECK-NEXT: kcc.bulk_wait_group 0{{$}}
// CHECK-NEXT: kcc.fence_proxy_async global
// CHECK-NEXT: %[[T:.*]] = kcc.atomic_rmw add acq_rel gpu
// CHECK-NEXT: kcc.fence_proxy_async global
// CHECK: scf.if
// CHECK: kcc.tma_load
func.func @last_program(%ws: !map, %cnt: !kcc.ptr<i32>, %s: i32) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %out = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %ws[%c0, %c0] -> %out[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  kcc.tma_store %out[%c0] -> %ws[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  %t = kcc.atomic_rmw add acq_rel gpu %cnt, %c1 : !kcc.ptr<i32>
  %last = arith.cmpi eq, %t, %s : i32
  scf.if %last {
    kcc.bulk_wait_group 0 read
    kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
    kcc.tma_load %ws[%c0, %c0] -> %out[%c0], %bars[%c0] : !map, !buf, !bar
    kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  }
  kcc.bulk_wait_group 0 read
  return
}

// -----

// Release only: no fence after; acquire only: no wait before.
// CHECK-LABEL: func.func @one_way(
// CHECK: kcc.bulk_wait_group 0{{$}}
// CHECK-NEXT: kcc.fence_proxy_async global
// CHECK-NEXT: kcc.atomic_rmw add release gpu
// CHECK-NEXT: kcc.atomic_rmw add acquire gpu
// CHECK-NEXT: kcc.fence_proxy_async global
// CHECK-NEXT: kcc.atomic_rmw add relaxed gpu
// CHECK-NEXT: kcc.bulk_wait_group 0 read
!map = !kcc.tensormap<[64, 32], f32, swizzle = 0>
!buf = !kcc.smem<[64, 32], f32, stages = 1, swizzle = 0>
func.func @one_way(%ws: !map, %cnt: !kcc.ptr<i32>) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %out = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !kcc.mbarrier<1>
  kcc.mbarrier_init %bars[%c0], count 1 : !kcc.mbarrier<1>
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !kcc.mbarrier<1>
  kcc.tma_load %ws[%c0, %c0] -> %out[%c0], %bars[%c0] : !map, !buf, !kcc.mbarrier<1>
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !kcc.mbarrier<1>
  kcc.tma_store %out[%c0] -> %ws[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  %a = kcc.atomic_rmw add release gpu %cnt, %c1 : !kcc.ptr<i32>
  %b = kcc.atomic_rmw add acquire gpu %cnt, %c1 : !kcc.ptr<i32>
  %c = kcc.atomic_rmw add relaxed gpu %cnt, %c1 : !kcc.ptr<i32>
  kcc.bulk_wait_group 0 read
  return
}

// -----

// No TMA: nothing to order.
// CHECK-LABEL: func.func @no_tma(
// CHECK-NOT: kcc.fence_proxy_async
// CHECK-NOT: kcc.bulk_wait_group
// CHECK: return
func.func @no_tma(%cnt: !kcc.ptr<i32>) attributes {kcc.kernel} {
  %c1 = arith.constant 1 : i32
  %a = kcc.atomic_rmw add acq_rel gpu %cnt, %c1 : !kcc.ptr<i32>
  return
}
