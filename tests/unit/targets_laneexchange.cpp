// Wave-reduction butterflies planned from the target model's [lane_exchange]
// costs: which exchange each step uses, in which bit order, and the loader's
// errors for exchange tables that cannot work.
#include "targets/LaneExchange.h"
#include "targets/TargetModel.h"

#include <doctest/doctest.h>

using namespace kcc;

namespace {
std::string stepsOf(const ButterflyPlan &p) {
  std::string s;
  for (const ButterflyStep &st : p.steps)
    s += (s.empty() ? "" : " ") + st.op + "^" + std::to_string(st.mask);
  return s;
}

/// Partner lanes a plan reaches, checked by running it on lane ids: every
/// lane must end up combining all `lanes` lanes exactly once (sum of
/// one-hot vectors), which is what a butterfly of commutative combines does.
bool reducesAllLanes(const ButterflyPlan &p, unsigned lanes) {
  std::vector<std::vector<unsigned>> v(lanes, std::vector<unsigned>(lanes));
  for (unsigned l = 0; l < lanes; ++l)
    v[l][l] = 1;
  for (const ButterflyStep &st : p.steps) {
    std::vector<std::vector<unsigned>> next = v;
    for (unsigned l = 0; l < lanes; ++l)
      for (unsigned k = 0; k < lanes; ++k)
        next[l][k] = v[l][k] + v[l ^ st.mask][k];
    v = std::move(next);
  }
  for (unsigned l = 0; l < lanes; ++l)
    for (unsigned k = 0; k < lanes; ++k)
      if (v[l][k] != 1)
        return false;
  return true;
}

TargetModel amdWith(std::vector<std::pair<std::string, unsigned>> ex) {
  TargetModel m = *TargetRegistry::builtin().lookup("gfx942");
  m.laneExchanges = std::move(ex);
  return m;
}

std::string loadError(llvm::StringRef toml) {
  llvm::Expected<TargetModel> m =
      parseTargetModel(toml, "x.toml", &TargetRegistry::builtin());
  return m ? "" : llvm::toString(m.takeError());
}
} // namespace

TEST_CASE("gfx942: DPP for the low bits once the bits below are reduced") {
  const TargetModel &mi300 = *TargetRegistry::builtin().lookup("gfx942");
  llvm::Expected<ButterflyPlan> p = planButterfly(mi300, 64);
  REQUIRE(p);
  CHECK(stepsOf(*p) == "ds_bpermute^32 ds_swizzle^16 dpp.quad_perm^2 "
                       "dpp.quad_perm^1 dpp.row_half_mirror^7 "
                       "dpp.row_mirror^15");
  CHECK(p->cycles == 28 + 20 + 4 * 6);
  CHECK(p->plainCycles == 28 + 5 * 20);
  CHECK(p->ordersTried == 720);
  CHECK(reducesAllLanes(*p, 64));
}

TEST_CASE("NVIDIA: shfl.bfly from the highest bit down, as before") {
  const TargetModel &h100 = *TargetRegistry::builtin().lookup("sm_90a");
  llvm::Expected<ButterflyPlan> p = planButterfly(h100, 32);
  REQUIRE(p);
  CHECK(stepsOf(*p) ==
        "shfl.bfly^16 shfl.bfly^8 shfl.bfly^4 shfl.bfly^2 shfl.bfly^1");
  CHECK(reducesAllLanes(*p, 32));
}

TEST_CASE("the costs decide: expensive DPP is not used") {
  llvm::Expected<ButterflyPlan> p = planButterfly(
      amdWith({{"dpp.quad_perm", 50}, {"ds_swizzle", 20}, {"ds_bpermute", 28}}),
      64);
  REQUIRE(p);
  CHECK(stepsOf(*p) == "ds_bpermute^32 ds_swizzle^16 ds_swizzle^8 "
                       "ds_swizzle^4 ds_swizzle^2 ds_swizzle^1");
  CHECK(p->cycles == p->plainCycles);
}

TEST_CASE("a mirror needs the bits it also flips reduced first") {
  // Without quad_perm, half_mirror (lane ^ 7) serves one of bits 0-2 only
  // after the other two: the planner reduces those by ds_swizzle first.
  llvm::Expected<ButterflyPlan> p =
      planButterfly(amdWith({{"dpp.row_half_mirror", 1},
                             {"ds_swizzle", 20},
                             {"ds_bpermute", 28}}),
                    64);
  REQUIRE(p);
  CHECK(p->cycles == 28 + 4 * 20 + 1);
  CHECK(reducesAllLanes(*p, 64));
  bool sawMirror = false;
  unsigned reduced = 0;
  for (const ButterflyStep &s : p->steps) {
    if (s.op == "dpp.row_half_mirror") {
      sawMirror = true;
      CHECK((7u & ~(1u << s.bit) & ~reduced) == 0u);
    }
    reduced |= 1u << s.bit;
  }
  CHECK(sawMirror);
}

TEST_CASE("exchanges that cannot reach every bit: no plan, a clear error") {
  llvm::Expected<ButterflyPlan> p =
      planButterfly(amdWith({{"dpp.quad_perm", 6}, {"ds_swizzle", 20}}), 64);
  REQUIRE_FALSE(p);
  std::string msg = llvm::toString(p.takeError());
  CHECK(msg.find("no lane exchange that completes a butterfly over 64 "
                 "lanes") != std::string::npos);
  CHECK(msg.find("ds_bpermute") != std::string::npos);
}

TEST_CASE("loader: [lane_exchange] errors are located") {
  const char *base = R"(
name = "g"
inherits = "gfx942"
)";
  CHECK(loadError(std::string(base) + "[lane_exchange]\nshfl_bfly = 3\n")
            .find("unknown lane exchange 'shfl_bfly' for this vendor; kcc "
                  "can emit dpp.quad_perm, dpp.row_half_mirror, "
                  "dpp.row_mirror, ds_swizzle, ds_bpermute") !=
        std::string::npos);
  CHECK(loadError(std::string(base) + "[lane_exchange]\ndpp.quad_perm = 6\n")
            .find("quote exchange names that contain dots") !=
        std::string::npos);
  CHECK(loadError(std::string(base) + "[lane_exchange]\nds_bpermute = 0\n")
            .find("must be its cost in cycles, an integer from 1 to 100000") !=
        std::string::npos);
  CHECK(loadError(R"(
name = "n"
inherits = "sm_90a"
[lane_exchange]
ds_swizzle = 20
)")
            .find("unknown lane exchange 'ds_swizzle' for this vendor; kcc can "
                  "emit "
                  "shfl.bfly") != std::string::npos);
  // A model without the table gets the vendor's exchanges.
  llvm::Expected<TargetModel> plain = parseTargetModel(R"(
name = "a"
vendor = "amd"
processor = "gfx942"
warp_size = 64
max_threads_per_block = 1024
registers_per_thread = 512
max_vector_bytes = 16
[shared_memory]
bytes_per_block = 65536
bytes_per_sm = 65536
banks = 32
bank_bytes = 4
)",
                                                       "a.toml", nullptr);
  REQUIRE_MESSAGE(bool(plain), llvm::toString(plain.takeError()));
  CHECK(plain->laneExchanges.size() == 2);
}
