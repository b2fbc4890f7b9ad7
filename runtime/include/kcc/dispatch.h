//===- dispatch.h - which compiled tile a launch runs, from its sizes -----===//
//
// Header-only, for the launch functions of kernels whose tunable constants
// the compiler left to the launch (docs/language.md, "Tunable constants"):
// the compiler keeps several legal candidates per target (tile shapes of one
// GEMM-shaped kernel), and the launch function estimates, from the call's
// sizes alone, how long each would take on the device and runs the fastest.
// The same sizes on the same device always give the same choice.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_DISPATCH_H
#define KCC_RUNTIME_DISPATCH_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace kcc::rt {

/// What one CTA of a candidate does per iteration of its product loop, from
/// the compiler (pipeline/LaunchCost.h computes it from the kernel).
struct TileWork {
  double tileM = 0, tileN = 0; // the accumulator tile
  double flops = 0;            // tensor-core operations per iteration (2*M*N*K)
  double smemBytes = 0;        // operand bytes the products read from shared
                               // memory per iteration (per issuing warpgroup)
  double rowBytes = 0;   // bytes loaded per iteration for the rows' operand
  double colBytes = 0;   // ... and for the columns' operand
  double storeBytes = 0; // bytes the epilogue stores per tile
  double stages = 1;     // loads in flight (the pipeline's depth)
  double flopsScale = 1; // the operands' tensor-core rate over 16-bit ones
};

/// A target's rates, per multiprocessor and clock unless said (the target
/// model's [throughput], targets/*/*.toml).
struct MachineRates {
  double flops = 1;   // 16-bit tensor-core operations
  double smem = 1;    // shared-memory bytes the tensor cores read
  double l2 = 1;      // bytes a multiprocessor loads from L2
  double dram = 1;    // bytes per clock, the whole device
  double latency = 1; // clocks of a load from memory
  double launch = 0;  // clocks a launch and its prologue cost
};

/// The estimated clocks of a launch of `ctas` CTAs (the grid without the
/// split-K axis) that each run `trips` iterations of their product loop,
/// over an output of `rows` x `cols`, with the loop cut in `slices` (1: not
/// split), on `processors` multiprocessors. The model:
///   - an iteration of one CTA takes the longest of its tensor-core work,
///     its shared-memory operand reads, its loads from L2 (TMA reads no
///     memory for the rows or columns of a tile outside the output) and the
///     load latency its pipeline's stages cannot cover;
///   - CTAs run in waves of one per multiprocessor (a GEMM tile's pipeline
///     fills most of one's shared memory), each paying the pipeline's fill
///     and its epilogue;
///   - memory: every operand byte read once from DRAM (L2 keeps what
///     neighbouring tiles share: the grouped launch order) and the output
///     written once; the launch takes the sum of the two (fitted: on the
///     H200's measurements the sum ranked tiles better than the maximum);
///   - a split launch adds the partial tiles' round trip through L2 and the
///     last slice's sum (a ticket's round trip, then S tiles read back):
///     the tail costs 3x the partial tiles' bytes at the L2 rate and 4
///     load latencies (fitted to the H200's split launches of 2026-12-05,
///     bench/gemm/split_k_fit.py: the reads back are one CTA's per tile,
///     after the completion waits and fences, and reach about a third of
///     a multiprocessor's L2 rate).
inline double launchCycles(const TileWork &w, const MachineRates &r,
                           int64_t ctas, int64_t trips, int64_t rows,
                           int64_t cols, int64_t slices, int64_t processors) {
  if (ctas <= 0 || trips < 0 || processors <= 0 || w.tileM <= 0 || w.tileN <= 0)
    return 0;
  slices = std::max<int64_t>(1, slices);
  auto inside = [](double extent, double tile) {
    if (extent <= 0)
      return 1.0;
    double tiles =
        static_cast<double>(static_cast<int64_t>((extent + tile - 1) / tile));
    return std::min(1.0, extent / (tiles * tile));
  };
  double rowsIn = inside(static_cast<double>(rows), w.tileM);
  double colsIn = inside(static_cast<double>(cols), w.tileN);
  double loaded = w.rowBytes * rowsIn + w.colBytes * colsIn;
  double perTrip =
      std::max({w.flops / (r.flops * w.flopsScale), w.smemBytes / r.smem,
                loaded / r.l2, r.latency / std::max(1.0, w.stages)});
  double tripsPerSlice = static_cast<double>((trips + slices - 1) / slices);
  double n = static_cast<double>(ctas) * static_cast<double>(slices);
  double p = static_cast<double>(processors);
  auto waves = [&](double k) {
    return static_cast<double>(static_cast<int64_t>((k + p - 1) / p));
  };
  double partial = w.tileM * w.tileN * 4; // an f32 partial tile
  double epilogue = (slices > 1 ? partial : w.storeBytes) / r.l2 + r.latency;
  double compute = waves(n) * (tripsPerSlice * perTrip + r.latency + epilogue);
  // DRAM: the operands once, the output once; with the output's sizes
  // unknown (stores through pointers), every CTA's operands once.
  double t = static_cast<double>(trips);
  double dramBytes =
      rows > 0 && cols > 0
          ? static_cast<double>(rows) * t * w.rowBytes / w.tileM +
                static_cast<double>(cols) * t * w.colBytes / w.tileN +
                static_cast<double>(rows) * static_cast<double>(cols) *
                    w.storeBytes / (w.tileM * w.tileN)
          : static_cast<double>(ctas) * (t * loaded + w.storeBytes);
  double memory = dramBytes / r.dram;
  // Fitted: the sum, not the longer of the two (measured tiles overlap
  // their DRAM streaming with their on-chip work poorly at these sizes).
  double cycles = compute + memory + r.launch;
  if (slices > 1) // each tile's last slice: S partial tiles back, one output
    cycles +=
        waves(static_cast<double>(ctas)) *
        ((3 * static_cast<double>(slices) * partial + w.storeBytes) / r.l2 +
         4 * r.latency);
  return cycles;
}

/// The estimated clocks of a launch of a memory-bound kernel (no products):
/// `ctas` programs that each load and store `bytes` (the compiler's count:
/// every access's tile, masked lanes included, times the trips of the
/// loops around it and the branches the launch decides). The model: the
/// launch moves all of them at the device's DRAM rate. Masked lanes count
/// because they take issue slots and memory transactions like the others,
/// so among candidates of one grid the one that touches the fewest bytes
/// wins: a row softmax takes the smallest block that holds its row, or,
/// for rows longer than every block, the block that wastes the least of the
/// last one.
inline double streamCycles(const MachineRates &r, int64_t ctas, double bytes) {
  if (ctas <= 0 || bytes <= 0)
    return r.launch;
  return static_cast<double>(ctas) * bytes / r.dram + r.launch;
}

/// The candidate name forced for every launch function that weighs
/// candidates: KCC_VARIANT from the environment (read once per process), or
/// what forceVariant() set. For measuring (the generated tuner, docs/gemm.md),
/// not for production; not synchronized with concurrent launches.
inline const char *&forcedVariantName() {
  static const char *name = std::getenv("KCC_VARIANT");
  return name;
}
inline void forceVariant(const char *name) { forcedVariantName() = name; }

/// The index in `names` of the forced candidate, else -1: the launch then
/// runs the tuned or the model's choice.
inline int forcedVariant(const char *const *names, int n) {
  const char *forced = forcedVariantName();
  if (!forced)
    return -1;
  for (int i = 0; i < n; ++i)
    if (std::strcmp(names[i], forced) == 0)
      return i;
  return -1;
}

/// kcc --tuning-db: the candidate measured fastest at the tuned shape
/// nearest to the call's `sizes` (its integer parameters, `n` of them) among
/// those within a factor of 2 of it in every size (the bucket of a tuned
/// shape: equal where either is not positive), else -1 (the cost model
/// chooses). `shapes` holds `count` rows of `n` values, `picks` their
/// candidates; ties keep the first row.
inline int tunedVariant(const int64_t *sizes, unsigned n, const int64_t *shapes,
                        const int *picks, unsigned count) {
  int best = -1;
  double bestDistance = 0;
  for (unsigned e = 0; e < count; ++e) {
    double distance = 0;
    bool inside = true;
    for (unsigned i = 0; i < n && inside; ++i) {
      int64_t a = sizes[i], b = shapes[e * n + i];
      if (a == b)
        continue;
      if (a <= 0 || b <= 0) {
        inside = false;
        break;
      }
      double ratio = static_cast<double>(std::max(a, b)) /
                     static_cast<double>(std::min(a, b));
      inside = ratio <= 2.0;
      distance += ratio - 1.0;
    }
    if (inside && (best < 0 || distance < bestDistance)) {
      best = picks[e];
      bestDistance = distance;
    }
  }
  return best;
}

} // namespace kcc::rt

#endif // KCC_RUNTIME_DISPATCH_H
