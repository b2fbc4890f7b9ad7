// kcc-add-split-k-builds: a GEMM-shaped kernel gets a split build (its K
// loop in slices over grid z, partial sums to a workspace, a ticket per
// output tile; the slice drawing the last ticket sums the slices in order,
// then runs the epilogue); other kernels with products say why not. The tile IR is what `kcc --emit=tile-ir` gives
// after kcc-rasterize-programs.
// RUN: kcc-opt %s --split-input-file --kcc-add-split-k-builds | FileCheck %s

// kernel gemm_nt(c: tensor<f16, 2>, a: tensor<f16, 2>, bt: tensor<f16, 2>)
// CHECK-LABEL: func.func @gemm(
// CHECK-NOT: kcc.split_k_refused
// The split build: the workspace, the slice count and the tickets
// appended, grid z = kcc_splits, this slice's iterations, its f32 tile to
// the workspace at row z * ceil(c_dim0 / 64) + the output tile's row.
// CHECK-LABEL: func.func @gemm__splitk(
// CHECK-SAME: %[[WS:arg12]]: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %[[WD0:arg13]]: i32, %[[WD1:arg14]]: i32, %[[WS0:arg15]]: i32 {kcc.divisibility = 4 : i64}, %[[S:arg16]]: i32, %[[TK:arg17]]: !kcc.ptr<i32> {kcc.align = 16 : i64})
// CHECK-SAME: "kcc_ws", "kcc_ws_dim0", "kcc_ws_dim1", "kcc_ws_stride0", "kcc_splits", "kcc_tickets"]
// CHECK-SAME: kcc.grid = ["(((c_dim1) + (64) - 1) / (64))", "(((c_dim0) + (64) - 1) / (64))", "kcc_splits"]
// CHECK-SAME: kcc.split_k = {cols = "c_dim1", role = "partial", rows = "(((c_dim0) + 64 - 1) / 64 * 64)", store = "2.000", tiles = "(((c_dim0) + 64 - 1) / 64 * (((c_dim1) + 64 - 1) / 64))", trips = "((((((a_dim1 + 32) - 1) / 32)) - (0) + 1 - 1) / 1)"}
// CHECK-SAME: kcc.split_k_of = @gemm
// CHECK: %[[PM:.*]] = kcc.program_id(1)
// CHECK: %[[PN:.*]] = kcc.program_id(0)
// CHECK: %[[Z:.*]] = kcc.program_id(2)
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[SS:.*]] = arith.maxsi %[[S]], %[[ONE]]
// CHECK: %[[CHUNK:.*]] = arith.divsi %{{.*}}, %[[SS]]
// CHECK: %[[ZC:.*]] = arith.muli %[[Z]], %[[CHUNK]]
// CHECK: %[[BEGIN:.*]] = arith.minsi %{{.*}}, %[[ZC]]
// CHECK: %[[END0:.*]] = arith.addi %[[BEGIN]], %[[CHUNK]]
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %[[END0]]
// CHECK: %[[LO:.*]] = arith.muli %[[BEGIN]]
// CHECK: %[[LB:.*]] = arith.addi %{{.*}}, %[[LO]]
// CHECK: %[[HI:.*]] = arith.muli %[[END]]
// CHECK: %[[UB:.*]] = arith.addi %{{.*}}, %[[HI]]
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[LB]] to %[[UB]]
// CHECK: kcc.dot
// CHECK: %[[TILES:.*]] = arith.divsi
// CHECK: %[[ZR:.*]] = arith.muli %[[Z]], %[[TILES]]
// CHECK: %[[ROW:.*]] = arith.addi %[[ZR]], %[[PM]]
// CHECK: kcc.store_tile %[[ACC]], %[[WS]][%[[WD0]], %[[WD1]]] strides[%[[WS0]]] at[%[[ROW]], %[[PN]]] : tensor<64x64xf32>, <f32>
// The ticket of tile (pm, pn): pm * ceil(c_dim1 / 64) + pn; the last of S
// zeroes it, sums the slices' tiles (slice 0 first, into registers) and
// runs the kernel's own epilogue.
// CHECK: %[[COLT:.*]] = arith.divsi
// CHECK: %[[ID0:.*]] = arith.muli %[[PM]], %[[COLT]]
// CHECK: %[[ID:.*]] = arith.addi %[[ID0]], %[[PN]]
// CHECK: %[[TP:.*]] = kcc.addptr %[[TK]], %[[ID]]
// CHECK: %[[DRAWN:.*]] = kcc.atomic_rmw add acq_rel gpu %[[TP]], %[[ONE]]
// CHECK: %[[LASTT:.*]] = arith.subi %[[SS]], %[[ONE]]
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[DRAWN]], %[[LASTT]]
// CHECK-NOT: arith.truncf
// CHECK: scf.if %[[LAST]] {
// CHECK: kcc.atomic_rmw xchg relaxed gpu %[[TP]]
// CHECK: %[[SUM:.*]] = scf.for %[[SL:.*]] = %{{.*}} to %[[SS]] step %{{.*}} iter_args(%[[PART:.*]] = %{{.*}})
// CHECK: arith.muli %[[SL]]
// CHECK: %[[T:.*]] = kcc.load_tile %[[WS]][%[[WD0]], %[[WD1]]] strides[%[[WS0]]] {{.*}}kcc.tma_refused
// CHECK: arith.addf %[[PART]], %[[T]]
// CHECK: %[[OUT:.*]] = arith.truncf %[[SUM]]
// CHECK: kcc.store_tile %[[OUT]], %arg0[%arg1, %arg2] strides[%arg3] at[%[[PM]], %[[PN]]]
// CHECK: }
// CHECK-NEXT: return
// CHECK-NOT: func.func @gemm__splitk_reduce
func.func @gemm(%arg0: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 8 : i64},
                %arg4: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {kcc.divisibility = 8 : i64},
                %arg8: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg9: i32, %arg10: i32, %arg11: i32 {kcc.divisibility = 8 : i64})
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "a", "a_dim0", "a_dim1", "a_stride0", "bt", "bt_dim0", "bt_dim1", "bt_stride0"], kcc.base_name = "gemm", kcc.constant_names = [],
                kcc.grid = ["(((c_dim1) + (64) - 1) / (64))", "(((c_dim0) + (64) - 1) / (64))", "1"], kcc.kernel, kcc.specialization = {}} {
  %p1 = kcc.program_id(1) : i32
  %p0 = kcc.program_id(0) : i32
  %cst = arith.constant 0.000000e+00 : f32
  %zero = kcc.splat %cst : tensor<64x64xf32>
  %c32 = arith.constant 32 : i32
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %k0 = arith.addi %arg6, %c32 : i32
  %k1 = arith.subi %k0, %c1 : i32
  %kt = arith.divsi %k1, %c32 : i32
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = kcc.load_tile %arg4[%arg5, %arg6] strides[%arg7] at[%p1, %k] : <f16> -> tensor<64x32xf16>
    %y = kcc.load_tile %arg8[%arg9, %arg10] strides[%arg11] at[%p0, %k] : <f16> -> tensor<64x32xf16>
    %yt = kcc.trans %y : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = kcc.dot %x, %yt, %a : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %o = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  kcc.store_tile %o, %arg0[%arg1, %arg2] strides[%arg3] at[%p1, %p0] : tensor<64x64xf16>, <f16>
  return
}

// -----

// A value the loop carries that only feeds itself (a pointer tile advanced
// a block per iteration, which the lifted loads no longer read) does not
// stop the split; the accumulator is found among the iter_args.
// CHECK-LABEL: func.func @carried(
// CHECK-NOT: kcc.split_k_refused
// CHECK-LABEL: func.func @carried__splitk(
// CHECK: %[[R:.*]]:2 = scf.for
// CHECK: kcc.store_tile %[[R]]#1, %arg5
// CHECK: scf.if
// CHECK-NOT: kcc.dot
// CHECK: return
func.func @carried(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}, %n: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "n"], kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %zero = kcc.splat %cst : tensor<16x16xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%off = %c0, %a = %zero) -> (i32, tensor<16x16xf32>) : i32 {
    %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c0] : <f32> -> tensor<16x16xf32>
    %d = kcc.dot %x, %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %next = arith.addi %off, %c16 : i32
    scf.yield %next, %d : i32, tensor<16x16xf32>
  }
  kcc.store_tile %r#1, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<16x16xf32>, <f32>
  return
}

// -----

// A carried value read after the loop: each slice would leave its own.
// CHECK-LABEL: func.func @carried_used(
// CHECK-SAME: kcc.split_k_refused = "its loop carries values besides one accumulator"
func.func @carried_used(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}, %n: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "n"], kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %zero = kcc.splat %cst : tensor<16x16xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%off = %c0, %a = %zero) -> (i32, tensor<16x16xf32>) : i32 {
    %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c0] : <f32> -> tensor<16x16xf32>
    %d = kcc.dot %x, %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %next = arith.addi %off, %c1 : i32
    scf.yield %next, %d : i32, tensor<16x16xf32>
  }
  kcc.store_tile %r#1, %arg0[%arg1, %arg2] strides[%arg3] at[%r#0, %c0] : tensor<16x16xf32>, <f32>
  return
}

// -----

// An accumulator that does not start at zeros (c += a @ b) would be added
// once per slice.
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME: kcc.split_k_refused = "its accumulator does not start at zeros"
// CHECK-NOT: __splitk
func.func @accumulate(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}, %n: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "n"], kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %p = kcc.program_id(0) : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%p, %c0] : <f32> -> tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<16x16xf32>) : i32 {
    %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c0] : <f32> -> tensor<16x16xf32>
    %d = kcc.dot %x, %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  kcc.store_tile %acc, %arg0[%arg1, %arg2] strides[%arg3] at[%p, %c0] : tensor<16x16xf32>, <f32>
  return
}

// -----

// A store inside the loop would run once per slice.
// CHECK-LABEL: func.func @store_in_loop(
// CHECK-SAME: kcc.split_k_refused = "its loop writes memory"
func.func @store_in_loop(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}, %n: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "n"], kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %zero = kcc.splat %cst : tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x16xf32>) : i32 {
    %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c0] : <f32> -> tensor<16x16xf32>
    %d = kcc.dot %x, %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    kcc.store_tile %d, %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c1] : tensor<16x16xf32>, <f32>
    scf.yield %d : tensor<16x16xf32>
  }
  kcc.store_tile %acc, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<16x16xf32>, <f32>
  return
}

// -----

// The loop's bound read from memory: the launch cannot size the slices.
// CHECK-LABEL: func.func @loaded_bound(
// CHECK-SAME: kcc.split_k_refused = "its loop's bounds are not computed from integer parameters and constants alone"
func.func @loaded_bound(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}, %lens: !kcc.ptr<i32>)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "lens"], kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = kcc.load %lens : !kcc.ptr<i32>
  %cst = arith.constant 0.000000e+00 : f32
  %zero = kcc.splat %cst : tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x16xf32>) : i32 {
    %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c0] : <f32> -> tensor<16x16xf32>
    %d = kcc.dot %x, %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  kcc.store_tile %acc, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<16x16xf32>, <f32>
  return
}

// -----

// A batched product: the grid's third axis is taken.
// CHECK-LABEL: func.func @batched(
// CHECK-SAME: kcc.split_k_refused = "its grid has a third axis (the splits take it)"
func.func @batched(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64}, %n: i32)
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0", "n"], kcc.kernel, kcc.grid = ["1", "1", "n"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %zero = kcc.splat %cst : tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x16xf32>) : i32 {
    %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%k, %c0] : <f32> -> tensor<16x16xf32>
    %d = kcc.dot %x, %x, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  kcc.store_tile %acc, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<16x16xf32>, <f32>
  return
}

// -----

// No product: nothing to split, nothing to say.
// CHECK-LABEL: func.func @copy(
// CHECK-NOT: split_k
func.func @copy(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32}, %arg1: i32, %arg2: i32, %arg3: i32 {kcc.divisibility = 4 : i64})
    attributes {kcc.arg_names = ["c", "c_dim0", "c_dim1", "c_stride0"], kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %x = kcc.load_tile %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : <f32> -> tensor<16x16xf32>
  kcc.store_tile %x, %arg0[%arg1, %arg2] strides[%arg3] at[%c0, %c0] : tensor<16x16xf32>, <f32>
  return
}
