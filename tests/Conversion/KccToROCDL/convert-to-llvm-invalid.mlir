// RUN: not kcc-opt %s -kcc-convert-to-llvm=vendor=amd 2>&1 | FileCheck %s
// RUN: not kcc-opt %s -kcc-convert-to-llvm=vendor=intel 2>&1 | FileCheck %s --check-prefix=VENDOR
// VENDOR: error: kcc-convert-to-llvm: unknown vendor 'intel'; valid vendors are nvidia and amd

// A layout assigned for 32-lane warps cannot be lowered for wave64.
#w = #kcc.blocked<vec = 1, threads = 32, warp = 32>
module {
  func.func @k(%p: !kcc.ptr<i32>) attributes {kcc.kernel, kcc.num_warps = 1 : i32} {
    %i = kcc.arange {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #w>
    return
  }
}
// CHECK: error: kcc: layout warp = 32 does not match the target's 64-lane waves (assign layouts for this target)
