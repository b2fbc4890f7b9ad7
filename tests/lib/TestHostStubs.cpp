//===- TestHostStubs.cpp - launch stubs of hand-written tile IR -----------===//
//
// --kcc-test-host-stubs: runs the host side of kcc (collectKernelInfo, the
// stub emitter, the manifest) on a tile IR module and prints the files in
// split-file format ("//--- <name>"), so lit tests can check stubs for IR the
// frontend does not produce yet (e.g. TMA tensor map arguments) and compile
// them. Each kernel gets builds for sm_80 and sm_90a (128 threads; a
// function's `test.chosen_for` list overrides them and makes it the choice
// of its launch functions there) and the embedded image is a FakeCuda.cpp
// fatbin naming every kernel.
//
//===----------------------------------------------------------------------===//
#include "tests/lib/TestPasses.h"

#include "backends/host/KernelInfoFromIR.h"
#include "backends/host/Manifest.h"
#include "backends/host/StubEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

namespace kcc::test {
#define GEN_PASS_DEF_KCCTESTHOSTSTUBS
#include "tests/lib/TestPasses.h.inc"
} // namespace kcc::test

namespace {

struct TestHostStubsPass
    : kcc::test::impl::KccTestHostStubsBase<TestHostStubsPass> {
  using KccTestHostStubsBase::KccTestHostStubsBase;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    kcc::host::ModuleInfo info;
    info.stem = stem;
    info.sourcePath = stem + ".kc";
    info.targets = hip ? std::vector<std::string>{"gfx90a"}
                       : std::vector<std::string>{"sm_80", "sm_90a"};
    info.fatbinContents = "sm_80, sm_90a";
    if (!kcc::host::collectKernelInfo(module, info))
      return signalPassFailure();
    std::string fatbin = "FAKEFATBIN archs=80,86,90,100 kernels=";
    bool first = true;
    for (kcc::host::KernelInfo &k : info.kernels)
      for (kcc::host::Specialization &s : k.specializations) {
        fatbin += (first ? "" : ",") + s.symbol;
        first = false;
        // A candidate of launch functions over tunables is built for the
        // targets its `test.chosen_for` names (what kcc-select-variants
        // would have chosen), and chosen there.
        std::vector<std::string> targets = info.targets;
        auto func = module.lookupSymbol<mlir::func::FuncOp>(s.symbol);
        if (auto chosen =
                func ? func->getAttrOfType<mlir::ArrayAttr>("test.chosen_for")
                     : mlir::ArrayAttr()) {
          targets.clear();
          for (auto t : chosen.getAsValueRange<mlir::StringAttr>()) {
            targets.push_back(t.str());
            for (kcc::host::VariantGroup &g : k.groups)
              if (llvm::is_contained(g.candidates, s.symbol))
                g.chosen.push_back({t.str(), s.symbol});
          }
        }
        for (const std::string &target : targets) {
          kcc::host::TargetBuild b;
          b.target = target;
          b.sm = hip ? 0 : std::stoi(target.substr(3));
          b.threads = 128;
          s.builds.push_back(b);
        }
      }
    kcc::host::StubFiles files;
    std::string error, kernel, name;
    bool ok =
        hip ? kcc::host::emitHipStubs(info, fatbin, files, error, kernel, name)
            : kcc::host::emitCudaStubs(info, fatbin, files, error, kernel,
                                       name);
    if (!ok) {
      mlir::emitError(kcc::host::stubErrorLoc(module, kernel, name))
          << "cannot generate host stubs: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = llvm::outs();
    os << "//--- " << files.headerName << "\n" << files.header;
    os << "//--- " << files.sourceName << "\n" << files.source;
    os << "//--- " << stem << ".manifest.json\n"
       << kcc::host::emitManifest(info, "test", {});
    os.flush();
  }
};

} // namespace
