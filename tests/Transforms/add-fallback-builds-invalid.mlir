// RUN: not kcc-opt %s --kcc-add-fallback-builds -o /dev/null 2>&1 | FileCheck %s

// The copy's name is taken: an error at the kernel, not a renamed symbol
// the launch stub would never find.
// CHECK: add-fallback-builds-invalid.mlir:[[@LINE+1]]:1: error: kernel 'taken' has a fallback build, @taken__fallback, but that symbol is taken; rename the kernel
func.func @taken(%arg0: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 1 : i32}, %arg1: i32)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  return
}
func.func @taken__fallback(%out: !kcc.ptr<i32>)
    attributes {kcc.kernel, kcc.grid = ["1", "1", "1"]} {
  return
}
