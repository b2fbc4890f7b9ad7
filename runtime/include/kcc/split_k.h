//===- split_k.h - how many slices a split-K launch cuts its K loop into --===//
//
// Header-only, for the launch stubs of kernels with split-K builds (kcc
// --split-k) on both vendors: the launch calls splitKSlices() with the
// grid's CTA count and the K loop's iterations and runs the split build
// when it returns more than 1.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_SPLIT_K_H
#define KCC_RUNTIME_SPLIT_K_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace kcc::rt {

/// The most slices a launch cuts its K loop into.
inline constexpr int64_t kMaxSplitKSlices = 16;
/// The most KCC_SPLIT_K_SLICES may force (for measuring the model).
inline constexpr int64_t kMaxForcedSplitKSlices = 16;
/// The split build's workspace starts with one i32 ticket per output tile
/// (the last slice of a tile to draw one sums the partial tiles); its
/// partial tiles follow. Tickets are zero between launches: the runtime
/// zeroes a workspace it allocates and each tile's last slice zeroes its
/// ticket. Grids of more tiles than this are not split.
inline constexpr int64_t kSplitKTickets = 1024;
inline constexpr size_t kSplitKTicketBytes = kSplitKTickets * 4;

/// The number of slices S (1: no split) of a K loop of `trips` iterations
/// that a grid of `ctas` CTAs should run in on `processors` multiprocessors.
///
/// The model counts time in K iterations of one CTA and assumes one CTA per
/// multiprocessor at a time (a GEMM tile's pipeline fills most of one's
/// shared memory), so `n` CTAs take waves(n) = ceil(n / processors) rounds:
///   S = 1:  waves(ctas) * (trips + store / 2)
///   S > 1:  waves(ctas * S) * (ceil(trips / S) + store)
///         + S * store / 2 + store / 2 + kFixup
/// `store` is the cost, in iterations, of moving one f32 partial tile (each
/// slice writes it; the last slice of a tile reads the S tiles back from L2,
/// at about half the cost, and stores the output tile, half as wide in
/// 16-bit types; the tiles' last slices do so side by side); kFixup is what
/// a split launch pays once: the partial tiles' TMA stores waited for to
/// completion, the fences, the ticket's round trip and the tail in which
/// the last slices sum. kFixup = 36 iterations is fitted to the H200's
/// measurements of 2026-12-05 (bench/gemm/split_k_fit.py, docs/gemm.md
/// "Split-K"): with the 1 it had, the model split 64-256-row products of
/// a 64-iteration loop that ran faster unsplit.
/// Only grids of fewer CTAs than multiprocessors are split; the smallest
/// cost wins, ties to fewer slices, and each slice keeps at least two
/// iterations. The result depends on the sizes alone: a launch with the
/// same sizes on the same GPU always sums the same slices in the same order
/// (the same bits).
///
/// KCC_SPLIT_K_SLICES=S in the environment (read once per process) replaces
/// the model's choice for every grid of fewer CTAs than multiprocessors, S
/// clamped to [1, kMaxForcedSplitKSlices] and to half the trips: for measuring
/// the model against a GPU (docs/gemm.md), not for production.
inline int64_t splitKSlices(int64_t ctas, int64_t trips, int64_t processors,
                            double store) {
  constexpr double kFixup = 36;
  static const int64_t forced = [] {
    const char *text = std::getenv("KCC_SPLIT_K_SLICES");
    return text ? int64_t(std::atoll(text)) : int64_t(0);
  }();
  if (forced > 0 && ctas > 0 && ctas < processors)
    return std::max<int64_t>(
        1, std::min<int64_t>({forced, kMaxForcedSplitKSlices, trips / 2}));
  // A grid of at least one CTA per multiprocessor is never split: the
  // model's gain there would be wave quantization alone, paid for with
  // partial tiles that no longer fit in L2.
  if (ctas <= 0 || trips < 4 || processors <= 0 || ctas >= processors)
    return 1;
  auto waves = [&](int64_t n) {
    return static_cast<double>((n + processors - 1) / processors);
  };
  int64_t best = 1;
  double bestCost = waves(ctas) * (static_cast<double>(trips) + store / 2);
  for (int64_t s = 2; s <= kMaxSplitKSlices && 2 * s <= trips; ++s) {
    if (ctas > INT64_MAX / s)
      break;
    double cost =
        waves(ctas * s) * (static_cast<double>((trips + s - 1) / s) + store) +
        static_cast<double>(s) * store / 2 + store / 2 + kFixup;
    if (cost < bestCost) {
      best = s;
      bestCost = cost;
    }
  }
  return best;
}

} // namespace kcc::rt

#endif // KCC_RUNTIME_SPLIT_K_H
