// Target models: TOML parsing, inheritance, located errors, and agreement
// between the models' data and the rule code that also encodes it.
#include "targets/BankConflicts.h"
#include "targets/TargetModel.h"
#include "targets/TmemRules.h"
#include "targets/WgmmaRules.h"

#include <doctest/doctest.h>

using namespace kcc;

namespace {
std::string errorOf(llvm::StringRef toml,
                    const TargetRegistry *bases = &TargetRegistry::builtin()) {
  llvm::Expected<TargetModel> m = parseTargetModel(toml, "x.toml", bases);
  if (m)
    return "";
  return llvm::toString(m.takeError());
}
} // namespace

TEST_CASE("built-in models: five targets with their sections") {
  const TargetRegistry &r = TargetRegistry::builtin();
  for (const char *name : {"sm_80", "sm_90a", "sm_100a", "gfx90a", "gfx942"})
    CHECK_MESSAGE(r.lookup(name) != nullptr, name);
  const TargetModel &hopper = *r.lookup("sm_90a");
  CHECK(hopper.tma.supported);
  CHECK(hopper.tma.maxBoxBytes == 233472);
  CHECK(hopper.mma.instruction == "wgmma");
  CHECK(hopper.hasAsyncCopy("tma"));
  CHECK_FALSE(r.lookup("sm_80")->tma.supported);
  CHECK(r.lookup("sm_100a")->tmem.columns == 512);
  const TargetModel &mi300 = *r.lookup("gfx942");
  CHECK(mi300.vendor == Vendor::AMD);
  CHECK(mi300.warpSize == 64);
  CHECK(mi300.llvmCpu() == "gfx942");
  CHECK(mi300.sharedMemory.bytesPerBlock == 65536);
  CHECK(mi300.sharedMemory.phases.at(16).size() == 8);
  CHECK(mi300.sharedMemory.storePhases.at(16).size() == 8);
}

TEST_CASE("inherits: a variant overrides one number and keeps the rest") {
  TargetRegistry r = TargetRegistry::builtin();
  llvm::Error e = r.addFromText(R"(
name = "sm_90a-lite"
inherits = "sm_90a"
max_vector_bytes = 8
[shared_memory]
bytes_per_block = 101376
)",
                                "lite.toml");
  REQUIRE_MESSAGE(!e, llvm::toString(std::move(e)));
  const TargetModel *lite = r.lookup("sm_90a-lite");
  REQUIRE(lite);
  CHECK(lite->inherits == "sm_90a");
  CHECK(lite->maxVectorBytes == 8);
  CHECK(lite->sharedMemory.bytesPerBlock == 101376);
  CHECK(lite->sharedMemory.bytesPerSM == 233472); // inherited within a table
  CHECK(lite->sm == 90);
  CHECK(lite->tma.maxBoxBytes == 233472);
  CHECK(lite->tma.verifiedBy.empty()); // the variant was not measured
  CHECK(lite->description.empty());
  // The built-in registry is untouched.
  CHECK(TargetRegistry::builtin().lookup("sm_90a-lite") == nullptr);
  // Overriding a built-in name replaces it in this registry only.
  llvm::Error e2 = r.addFromText("name = \"sm_80\"\ninherits = \"sm_80\"\n"
                                 "max_vector_bytes = 4\n",
                                 "o.toml");
  REQUIRE_MESSAGE(!e2, llvm::toString(std::move(e2)));
  CHECK(r.lookup("sm_80")->maxVectorBytes == 4);
  CHECK(TargetRegistry::builtin().lookup("sm_80")->maxVectorBytes == 16);
}

TEST_CASE("malformed models: located errors naming the key") {
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\nwarp_sise = 32\n") ==
        "x.toml:3:1: error: unknown key 'warp_sise' in target model");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\n[tma]\nmax_boxbytes = "
                "1\n") ==
        "x.toml:4:1: error: unknown key 'tma.max_boxbytes' in target model "
        "(section [tma])");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_99\"\n")
            .find("x.toml:2:12: error: 'inherits' names unknown target model "
                  "'sm_99'; known models: ") == 0);
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\nwarp_size = 48\n") ==
        "x.toml:3:13: error: warp_size must be 32 or 64");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\nwarp_size = \"32\"\n") ==
        "x.toml:3:13: error: 'warp_size' must be an integer from 0 to "
        "4294967295");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\nshared_memory = 3\n") ==
        "x.toml:3:17: error: 'shared_memory' must be a table "
        "([shared_memory])");
  CHECK(errorOf("name = \"x\"\ninherits = \"gfx942\"\n[shared_memory.phases]\n"
                "\"3\" = [[0]]\n") ==
        "x.toml:4:1: error: shared_memory.phases keys are access widths in "
        "bytes (\"1\", \"2\", \"4\", \"8\" or \"16\"), got \"3\"");
  CHECK(errorOf("name = \"x\"\ninherits = \"gfx942\"\n[shared_memory.phases]\n"
                "\"4\" = [[0, 99]]\n")
            .find("x.toml:4:7: error: shared_memory.phases.4 must be an "
                  "array of lane groups") == 0);
  CHECK(errorOf("name = \"x\"\nvendor = \"intel\"\n") ==
        "x.toml:2:10: error: vendor must be \"nvidia\" or \"amd\", got "
        "\"intel\"");
  CHECK(errorOf("name = \"x\"\nvendor = \"nvidia\"\nwarp_size = 32\n") ==
        "x.toml:1:1: error: missing required key 'max_threads_per_block'");
  CHECK(errorOf("name = \"x\"\ninherits = 90\n") ==
        "x.toml:2:12: error: 'inherits' must be the name of a target model");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\nmax_vector_bytes = "
                "12\n") ==
        "x.toml:3:20: error: max_vector_bytes must be 4, 8 or 16");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\nvendor = \"amd\"\n") ==
        "x.toml:1:1: error: an AMD target needs 'processor' (e.g. "
        "\"gfx942\")");
  CHECK(errorOf("name = \"x\"\ninherits = \"gfx942\"\nvendor = "
                "\"nvidia\"\n") ==
        "x.toml:1:1: error: an NVIDIA target needs 'sm' and 'ptx_isa'");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\n[mma]\nshapes = 3\n")
            .find("x.toml:4:10: error: 'mma.shapes' must be an array of "
                  "tables") == 0);
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\n[mma]\nshapes = [ { a "
                "= \"f16\", m = 64, k = 16 } ]\n") ==
        "x.toml:4:12: error: an mma shape needs n (or n_min <= n_max with "
        "n_step > 0)");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\n[tma]\nswizzle_modes = "
                "[1, -2]\n") ==
        "x.toml:4:17: error: 'tma.swizzle_modes' must be an array of "
        "non-negative integers");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\nasync_copy = [1]\n") ==
        "x.toml:3:14: error: 'async_copy' must be an array of strings");
  CHECK(errorOf("name = \"x\"\ninherits = \"sm_90a\"\n[tma]\npacked_types = "
                "1\n") ==
        "x.toml:4:16: error: 'tma.packed_types' must be true or false");
  // TOML syntax errors keep toml++'s location.
  CHECK(errorOf("name = \"x\n").find("x.toml:1:") == 0);
  CHECK(errorOf("[mma]\nshapes = 3\n", nullptr).find("x.toml:") == 0);
}

TEST_CASE("model data agrees with the rule code") {
  const TargetRegistry &r = TargetRegistry::builtin();
  // wgmma shapes in sm_90a.toml == the ptxas-checked table in WgmmaRules.
  const TargetModel &hopper = *r.lookup("sm_90a");
  struct Name {
    const char *toml;
    WgmmaType type;
  } names[] = {{"f16", WgmmaType::F16},   {"bf16", WgmmaType::BF16},
               {"tf32", WgmmaType::TF32}, {"e4m3", WgmmaType::E4M3},
               {"e5m2", WgmmaType::E5M2}, {"s8", WgmmaType::S8},
               {"u8", WgmmaType::U8}};
  for (const Name &name : names)
    for (unsigned n = 0; n <= 300; ++n) {
      bool inToml = false;
      unsigned k = 0;
      for (const MmaShape &s : hopper.mma.shapes)
        if (s.a == name.toml && n >= s.nMin && n <= s.nMax &&
            (n - s.nMin) % s.nStep == 0) {
          inToml = true;
          k = s.k;
        }
      unsigned kCode = 0;
      for (const WgmmaShapeRule &row : wgmmaShapeTable())
        if (row.type == name.type)
          kCode = row.k;
      CHECK_MESSAGE(inToml == isLegalWgmmaShape(name.type, 64, n, kCode),
                    name.toml << " n=" << n);
      if (inToml)
        CHECK(k == kCode);
    }
  // TMEM geometry.
  const TargetModel &blackwell = *r.lookup("sm_100a");
  CHECK(blackwell.tmem.columns == kTmemColumns);
  CHECK(blackwell.tmem.lanes == kTmemLanes);
  CHECK(blackwell.tmem.minAllocColumns == kTmemMinAllocColumns);
  // Bank geometry from the models.
  BankGeometry amd = bankGeometry(*r.lookup("gfx90a"));
  CHECK(amd.lanes == 64);
  CHECK(amd.phasesFor(16, SharedAccessKind::Load) ==
        amdLdsGeometry().phasesFor(16, SharedAccessKind::Load));
  CHECK(bankGeometry(*r.lookup("sm_80")).phasesFor(16) ==
        contiguousPhases(32, 8));
}
