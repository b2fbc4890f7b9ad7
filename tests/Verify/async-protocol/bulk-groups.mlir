// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// Bug class 8: bulk async-groups. The base kernel loads two boxes, stores
// them to disjoint boxes of %o in one group, commits and waits.

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the second store's box overlaps the first one (row 32 instead of
// row 64): two writes of one group with no order between them.
func.func @overlapping_stores(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pid = kcc.program_id(0) : i32
  %y = arith.muli %pid, %c64 : i32
  %y1 = arith.addi %y, %c32 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 16384 : !bar
  kcc.tma_load %m[%y, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.tma_load %m[%y, %c64] -> %buf[%c1], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the earlier tma_store}}
  kcc.tma_store %buf[%c0] -> %o[%y, %c0] : !buf, !map
  // expected-error@+1 {{relying on order inside one bulk async-group: this kcc.tma_store and an earlier one of the same group write overlapping boxes of the same tensor map; commit the earlier store's group and wait for it (kcc.bulk_commit_group; kcc.bulk_wait_group 0) before this store}}
  kcc.tma_store %buf[%c1] -> %o[%y1, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: a tma_load reads back the box the store of the open group
// writes.
func.func @load_after_store_same_group(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %m[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the tma_store writing the box}}
  kcc.tma_store %buf[%c0] -> %o[%c0, %c0] : !buf, !map
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{relying on order inside one bulk async-group: this kcc.tma_load reads a box that a kcc.tma_store of the current, uncommitted group writes}}
  kcc.tma_load %o[%c0, %c0] -> %buf[%c1], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the group is committed but waited with `read` only before the
// load of the stored box.
func.func @load_after_read_wait(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %m[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the tma_store writing the box}}
  kcc.tma_store %buf[%c0] -> %o[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{this kcc.tma_load reads a box that a kcc.tma_store writes, and `bulk_wait_group ... read` only waited for the store's source reads, not its writes}}
  kcc.tma_load %o[%c0, %c0] -> %buf[%c1], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: commit and wait are dropped: un-waited tma_store at exit.
func.func @uncommitted_at_exit(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %m[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-error@+1 {{the kernel ends with this kcc.tma_store in an uncommitted bulk async-group: its shared-memory source may be released at exit while it is still being read; add kcc.bulk_commit_group and kcc.bulk_wait_group 0 read before the end}}
  kcc.tma_store %buf[%c0] -> %o[%c0, %c0] : !buf, !map
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the wait is dropped, the group only committed.
func.func @unwaited_at_exit(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %m[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-error@+1 {{the kernel ends before the bulk async-group of this kcc.tma_store is waited: its shared-memory source may be released at exit while it is still being read; add kcc.bulk_wait_group 0 read before the end}}
  kcc.tma_store %buf[%c0] -> %o[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 1, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the next load into the stage is issued while the tma_store of
// the previous contents still reads it (wait_group keeps 1 group pending).
func.func @write_while_store_reads(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %m[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the tma_store reading the stage}}
  kcc.tma_store %buf[%c0] -> %o[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 1 read
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{writing stage 0 while a kcc.tma_store is still reading it (its bulk async-group has not been waited); add kcc.bulk_wait_group N read}}
  kcc.tma_load %m[%c64, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  kcc.tma_store %buf[%c0] -> %o[%c64, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.bulk_wait_group 0 read
  return
}

// -----

!map = !kcc.tensormap<[64, 64], f16, swizzle = 0>
!buf = !kcc.smem<[64, 64], f16, stages = 2, swizzle = 0>
!bar = !kcc.mbarrier<1>

// Mutation: the group is committed but not waited before the load of the
// stored box.
func.func @load_after_commit(%m: !map, %o: !map) attributes {kcc.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = kcc.smem_alloc : !buf
  %bars = kcc.mbarrier_alloc : !bar
  kcc.mbarrier_init %bars[%c0], count 1 : !bar
  kcc.fence_mbarrier_init
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  kcc.tma_load %m[%c0, %c0] -> %buf[%c0], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c0 : !bar
  // expected-note@+1 {{the tma_store writing the box}}
  kcc.tma_store %buf[%c0] -> %o[%c0, %c0] : !buf, !map
  kcc.bulk_commit_group
  kcc.mbarrier_arrive_expect_tx %bars[%c0], bytes 8192 : !bar
  // expected-error@+1 {{this kcc.tma_load reads a box that a kcc.tma_store writes whose bulk async-group has not completed; add kcc.bulk_wait_group 0 (without read) before the load}}
  kcc.tma_load %o[%c0, %c0] -> %buf[%c1], %bars[%c0] : !map, !buf, !bar
  kcc.mbarrier_wait %bars[%c0], parity %c1 : !bar
  kcc.bulk_wait_group 0 read
  return
}
