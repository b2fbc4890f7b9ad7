//===- TestPasses.td - test-only passes ---------------------*- tablegen -*-===//
//
// Passes that exist for lit tests only; kcc-opt links them, the compiler's
// libraries do not.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TEST_PASSES_TD
#define KCC_TEST_PASSES_TD

include "mlir/Pass/PassBase.td"

def KccTestPrintAxisInfo : Pass<"kcc-test-print-axis-info", "mlir::ModuleOp"> {
  let summary = "Test pass: emit AxisInfo facts as remarks";
  let description = [{
    For every integer or pointer result of every op in every function, emits
    a remark `contiguity = [...], divisibility = [...], constancy = [...]`
    (plus `, constant = N` when known). scf.for induction variables and
    iter_args are reported on the loop with an `iv: ` / `arg #i: ` prefix;
    multi-result ops prefix `result #i: `.
  }];
}

def KccTestHostStubs : Pass<"kcc-test-host-stubs", "mlir::ModuleOp"> {
  let summary = "Print the launch stubs and manifest of the module (tests)";
  let description = [{
    Runs the host side of kcc (collectKernelInfo, the stub emitter, the
    manifest) on a tile IR module and prints the files in split-file format
    ("//--- <name>"), so lit tests can check stubs for IR the frontend does
    not produce yet (e.g. TMA tensor map arguments) and compile them. Each
    kernel gets builds for sm_80 and sm_90a (128 threads) and the embedded
    image is a FakeCuda.cpp fatbin naming every kernel.
  }];
  let options = [
    Option<"stem", "stem", "std::string", /*default=*/"\"test\"", "file stem">,
    Option<"hip", "hip", "bool", /*default=*/"false",
           "emit the HIP stubs (gfx90a builds)">
  ];
}

#endif // KCC_TEST_PASSES_TD
