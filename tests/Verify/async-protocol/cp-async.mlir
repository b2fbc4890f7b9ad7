// RUN: kcc-opt %s --kcc-verify-async-protocol -split-input-file -verify-diagnostics -o /dev/null

// cp.async pipelines (kcc-pipeline-async-copies): the base kernel is the
// pass's 3-stage pipeline over a symbolic trip count %n; each later section
// is the same kernel with one mutation.

!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0, pad = 16>

func.func @valid(%p: !kcc.ptr<f16>, %d: i32, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["p", "d", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %buf = kcc.smem_alloc : !buf
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c0] -> %buf[%c0] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c1] -> %buf[%c1] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    kcc.cp_async_wait_group 1
    kcc.cta_barrier
    %next = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %r = arith.remsi %next, %c3 : i32
    scf.if %more {
      kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %next] -> %buf[%r] : <f16>, !buf
    }
    kcc.cp_async_commit_group
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
  }
  return
}

// -----

!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0, pad = 16>

// Mutation: the loop waits for one group too few (2 instead of 1).
func.func @wait_too_few(%p: !kcc.ptr<f16>, %d: i32, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["p", "d", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %buf = kcc.smem_alloc : !buf
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    // expected-note@+1 {{the copy into the stage}}
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c0] -> %buf[%c0] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c1] -> %buf[%c1] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    kcc.cp_async_wait_group 2
    kcc.cta_barrier
    %next = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %r = arith.remsi %next, %c3 : i32
    scf.if %more {
      kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %next] -> %buf[%r] : <f16>, !buf
    }
    kcc.cp_async_commit_group
    // expected-error@+1 {{reading stage 0 before its cp.async copy landed: no kcc.cp_async_wait_group has retired the group of the copy that fills it (loop iteration with induction variable 0) (with n = 1); add kcc.cp_async_wait_group N (N = the groups committed after that copy's) and kcc.cta_barrier before the read}}
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
  }
  return
}

// -----

!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0, pad = 16>

// Mutation: no barrier after the wait (and so none before the refill).
func.func @no_barrier(%p: !kcc.ptr<f16>, %d: i32, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["p", "d", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %buf = kcc.smem_alloc : !buf
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    // expected-note@+1 {{the copy into the stage}}
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c0] -> %buf[%c0] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c1] -> %buf[%c1] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    kcc.cp_async_wait_group 1
    %next = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %r = arith.remsi %next, %c3 : i32
    scf.if %more {
      kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %next] -> %buf[%r] : <f16>, !buf
    }
    kcc.cp_async_commit_group
    // expected-error@+1 {{reading stage 0 after this thread's cp.async copies landed but before the other threads' did: no kcc.cta_barrier follows the kcc.cp_async_wait_group (loop iteration with induction variable 0) (with n = 1); add kcc.cta_barrier between the wait and the read}}
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
  }
  return
}

// -----

!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0, pad = 16>

// Mutation: the refill goes into the stage of the next iteration (k + 1)
// instead of the one the previous iteration read: its copy is still in
// flight.
func.func @refill_wrong_stage(%p: !kcc.ptr<f16>, %d: i32, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["p", "d", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %buf = kcc.smem_alloc : !buf
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c0] -> %buf[%c0] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    // expected-note@+1 {{the earlier copy into the stage}}
    kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c1] -> %buf[%c1] : <f16>, !buf
  }
  kcc.cp_async_commit_group
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    kcc.cp_async_wait_group 1
    kcc.cta_barrier
    %next = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %k1 = arith.addi %k, %c1 : i32
    %r = arith.remsi %k1, %c3 : i32
    scf.if %more {
      // expected-error@+1 {{overwriting a stage before its consumers released it: stage 1 still has a kcc.cp_async in flight (its group has not been retired by kcc.cp_async_wait_group) (loop iteration with induction variable 0) (with n = 3); wait for the earlier copy (kcc.cp_async_wait_group), read the stage and release it with kcc.cta_barrier before writing it again}}
      kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %next] -> %buf[%r] : <f16>, !buf
    }
    kcc.cp_async_commit_group
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
  }
  return
}

// -----

!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0, pad = 16>

// Mutation: the prologue's copies are not guarded by the trip count: a loop
// of one iteration leaves the second one in flight at the end.
func.func @unguarded_prologue(%p: !kcc.ptr<f16>, %d: i32, %n: i32) attributes {kcc.kernel, kcc.arg_names = ["p", "d", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %buf = kcc.smem_alloc : !buf
  // expected-error@+1 {{the kernel ends while this kcc.cp_async into stage 0 is still in flight: no kcc.cp_async_wait_group retires its group (with n = 0); issue only the copies the loop will read (guard each with scf.if on the trip count), or wait for them}}
  kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c0] -> %buf[%c0] : <f16>, !buf
  kcc.cp_async_commit_group
  kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c1] -> %buf[%c1] : <f16>, !buf
  kcc.cp_async_commit_group
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    kcc.cp_async_wait_group 1
    kcc.cta_barrier
    %next = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %r = arith.remsi %next, %c3 : i32
    scf.if %more {
      kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %next] -> %buf[%r] : <f16>, !buf
    }
    kcc.cp_async_commit_group
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
  }
  // expected-note@+1 {{the kernel ends here}}
  return
}

// -----

!small = !kcc.smem<[16, 64], f16, stages = 2, swizzle = 0, pad = 16>

// Valid: buffers allocated while a copy is in flight. The verifier's stage
// table grows under the copy it tracks (a regression test for pointers into
// moved storage; the sanitizer leg of CI runs it under ASan).
func.func @alloc_while_in_flight(%p: !kcc.ptr<f16>, %d: i32) attributes {kcc.kernel, kcc.arg_names = ["p", "d"]} {
  %c0 = arith.constant 0 : i32
  %a = kcc.smem_alloc : !small
  kcc.cp_async %p[%d, %d] strides[%d] at[%c0, %c0] -> %a[%c0] : <f16>, !small
  kcc.cp_async_commit_group
  %b = kcc.smem_alloc : !small
  %c = kcc.smem_alloc : !small
  %e = kcc.smem_alloc : !small
  %f = kcc.smem_alloc : !small
  %g = kcc.smem_alloc : !small
  kcc.cp_async_wait_group 0
  kcc.cta_barrier
  %t = kcc.smem_load %a[%c0] : !small -> tensor<16x64xf16>
  return
}

// -----

!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0, pad = 16>

// Gathered tiles (kcc.cp_async_gather, a block table's rows) in a loop whose
// trip count is read from memory (a sequence's length): the loaded value is
// chosen like an argument, so the pipeline is proven for 0 .. 2S+2 trips and
// a large count, and the prologue's guards are not data-dependent branches.
func.func @gather_loaded_bound(%p: tensor<64x64x!kcc.ptr<f16>>, %m: tensor<64x64xi1>, %lens: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.arg_names = ["p", "m", "lens"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %n = kcc.load %lens : !kcc.ptr<i32>
  %buf = kcc.smem_alloc : !buf
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.cp_async_gather %p mask %m : tensor<64x64xi1> -> %buf[%c0] : tensor<64x64x!kcc.ptr<f16>>, !buf
  }
  kcc.cp_async_commit_group
  %g1 = arith.cmpi slt, %c1, %n : i32
  scf.if %g1 {
    kcc.cp_async_gather %p -> %buf[%c1] : tensor<64x64x!kcc.ptr<f16>>, !buf
  }
  kcc.cp_async_commit_group
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    kcc.cp_async_wait_group 1
    kcc.cta_barrier
    %next = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %r = arith.remsi %next, %c3 : i32
    scf.if %more {
      kcc.cp_async_gather %p -> %buf[%r] : tensor<64x64x!kcc.ptr<f16>>, !buf
    }
    kcc.cp_async_commit_group
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
  }
  return
}

// -----

!buf = !kcc.smem<[64, 64], f16, stages = 3, swizzle = 0, pad = 16>

// Mutation: the prologue's second copy is not guarded by the loaded trip
// count: with one trip (the loaded value 1) nothing waits for it.
func.func @gather_unguarded(%p: tensor<64x64x!kcc.ptr<f16>>, %lens: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.arg_names = ["p", "lens"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %n = kcc.load %lens : !kcc.ptr<i32>
  %buf = kcc.smem_alloc : !buf
  %g0 = arith.cmpi slt, %c0, %n : i32
  scf.if %g0 {
    kcc.cp_async_gather %p -> %buf[%c0] : tensor<64x64x!kcc.ptr<f16>>, !buf
  }
  kcc.cp_async_commit_group
  // expected-error@+1 {{the kernel ends while this kcc.cp_async into stage 1 is still in flight}}
  kcc.cp_async_gather %p -> %buf[%c1] : tensor<64x64x!kcc.ptr<f16>>, !buf
  kcc.cp_async_commit_group
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remsi %k, %c3 : i32
    kcc.cp_async_wait_group 1
    kcc.cta_barrier
    %next = arith.addi %k, %c2 : i32
    %more = arith.cmpi slt, %next, %n : i32
    %r = arith.remsi %next, %c3 : i32
    scf.if %more {
      kcc.cp_async_gather %p -> %buf[%r] : tensor<64x64x!kcc.ptr<f16>>, !buf
    }
    kcc.cp_async_commit_group
    %t = kcc.smem_load %buf[%s] : !buf -> tensor<64x64xf16>
  }
  // expected-note@+1 {{the kernel ends here}}
  return
}
