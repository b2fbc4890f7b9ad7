//===- SelectVariants.h - the compiler's choice among tunable values -*- C++
//-*-===//
//
// A specialize clause that leaves tunable constants unbound (`BM: i32 in (64,
// 128)`, docs/language.md "Tunable constants") makes one function per
// combination of their candidates (kcc.variant_of). Per target, each
// candidate is compiled alone through the layout and lowering pipelines:
// the ones a target rule refuses (shared memory, TMEM columns, an MFMA or
// wgmma shape...) are pruned with that rule's message, and the rest ranked
// by what the pipelines made of them (SelectVariants.cpp says how). The
// module keeps, for each group, the best candidate only.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PIPELINE_SELECTVARIANTS_H
#define KCC_PIPELINE_SELECTVARIANTS_H

#include "passes/analysis/LaunchCost.h"
#include "pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <string>
#include <vector>

namespace kcc::pipeline {

/// What the layout pipeline made of one candidate, ranked lexicographically
/// in this order (SelectVariants.cpp gives the reasons).
struct VariantFeatures {
  /// Per dot: 3 staged tensor-core instruction (wgmma, tcgen05), 2 another
  /// tensor/matrix-core instruction from pipelined stages, 1 tensor/matrix
  /// cores from unpipelined shared memory, 0 FMAs; summed. Higher first.
  int mmaScore = 0;
  /// Warps that issue the products (consumer warpgroups of a
  /// warp-specialized kernel, else the block), at most 8. Higher first.
  int mmaWarps = 0;
  /// The narrowest product's N, at most 64: tensor cores read an operand
  /// from shared memory per instruction, so below 64 columns that traffic,
  /// not the math, bounds them. Higher first.
  int64_t narrowN = 0;
  /// Overlaps the pipelines refused (kcc-defer-register-a-mma, warp
  /// specialization). Lower first.
  int refusals = 0;
  /// The shallowest software pipeline's stages, at most 3, or 2 where a
  /// producer warpgroup refills them (0: none). Higher first.
  int stages = 0;
  /// The products' M x N, summed over the dots (operand reuse). Higher
  /// first.
  int64_t productArea = 0;

  /// The shallowest software pipeline's stages, uncapped (the launch-time
  /// cost's latency cover); not ranked.
  int depth = 0;

  /// The ranking key: a larger key is better.
  std::array<int64_t, 6> key() const {
    return {mmaScore, mmaWarps, narrowN, -refusals, stages, productArea};
  }
  /// For the report.
  std::string str() const;
};

struct VariantCandidate {
  std::string symbol;
  std::string values; // "BM=128, BN=64"
  /// Passed the layout pipeline (ranked); `checked`: the lowering too (the
  /// candidates are lowered best first until one passes).
  bool legal = false;
  bool checked = false;
  std::string refusal; // first error, "file:line:col: message"
  std::optional<mlir::Location> refusalLoc; // ... and its parts
  std::string refusalMessage;
  /// Pruned as the same kernel as this candidate (a stages(S) build whose
  /// pipelines came out no deeper than a smaller S's): not a rule's refusal.
  std::string sameAs;
  VariantFeatures features;
  /// What the launch weighs to choose among the kept candidates (none: the
  /// kernel has no product loop the host can size; `costWhy` says why).
  std::optional<LaunchCost> cost;
  std::string costWhy;
};

/// One group on one target.
struct VariantChoice {
  std::string group;             // launch function: attention_f16_128_0
  std::vector<std::string> open; // BM, BN
  std::vector<VariantCandidate> candidates; // in declaration order
  int chosen = -1;                          // index into candidates
  /// The candidates the launch chooses among by the call's sizes (runtime/
  /// include/kcc/dispatch.h), best ranked first: `chosen` and the next
  /// legal ones on the same tensor-core path, up to the keep limit; just
  /// `chosen` where the launch cannot weigh them (`keptWhy` says why).
  std::vector<int> kept;
  std::string keptWhy;
};

/// Chooses, for every variant group of `module` (tile IR after the tile
/// and tensor-map pipelines, with its kcc.target set to `target`), the
/// candidates to keep (at most `keep`; more than one only where the target
/// model has [throughput] and the kernel a product loop the launch can
/// size), and erases from `module` every candidate that no group kept and
/// no clause names. A group none of whose candidates is legal
/// is an error located at its kernel, each candidate's refusal as a note.
mlir::FailureOr<std::vector<VariantChoice>>
selectVariants(mlir::ModuleOp module, const TargetModel &target,
               const LayoutOptions &layout, unsigned keep = 1);

} // namespace kcc::pipeline

#endif // KCC_PIPELINE_SELECTVARIANTS_H
