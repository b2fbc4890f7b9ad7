#!/usr/bin/env python3
"""The split-K choice of the dispatching GEMM launch, replayed on the H200's
measurements of 2026-12-05 (docs/gemm.md "Split-K"): which tile and slice
count the stubs' model picks per decode shape, and what that configuration
measured.

The model is kcc::rt::splitKSlices (runtime/include/kcc/split_k.h) for each
tile's slices and kcc::rt::launchCycles (runtime/include/kcc/dispatch.h) to
weigh the six tiles of bench/gemm/gemm_auto.kc, with the two split-K
constants fitted here as parameters: FIXUP (what a split launch pays once,
in K iterations) and the tail's (L2 scale of the partial tiles read back,
load latencies). The measured configurations are those the launch ran with
no split build, with the model of the time, and with 2, 3, 4, 6 and 8
slices forced (KCC_SPLIT_K_SLICES): each configuration's tile is what the
model picks under that forcing, as the stubs do. A fitted model is judged
by the measured kcc / cuBLAS of its picks (every pick must be a measured
configuration).

    python3 bench/gemm/split_k_fit.py            # committed vs previous
    python3 bench/gemm/split_k_fit.py --search   # the grid it was fitted on
"""
import argparse
import itertools
import math
import os

P = 132  # H200 multiprocessors
# targets/nvidia/sm_90a.toml [throughput] (L2 rate and latency refitted on
# 2026-12-05 with two pipeline depths per tile: bench/gemm/depth_fit.py; with
# the previous 64 and 1000 the committed split constants replay at 0.791).
RATES = dict(flops=4096, smem=128, l2=96, dram=2400, latency=1400, launch=4000)
# bench/gemm/gemm_auto.kc's bf16 tiles as the stubs describe them (TileWork).
TILES = [(bm, bn) for bm in (128, 64) for bn in (256, 128, 64)]
COMMITTED = dict(fixup=36, tail_l2=3, tail_latency=4)
PREVIOUS = dict(fixup=1, tail_l2=1, tail_latency=2)

# kcc / cuBLAS, NT bf16, H200, 2026-12-05: no split build, the model then,
# and 2, 3, 4, 6, 8 forced slices (the forced 4, 6 and 8 runs are only in
# docs/gemm.md's table; the others are in docs/results/2026-12-05-h200-split-k/).
MEASURED = {
    (1, 4096, 4096): (0.51, 0.60, 0.49, 0.61, 0.61, 0.44, 0.43),
    (16, 4096, 4096): (0.59, 0.62, 0.52, 0.58, 0.58, 0.42, 0.40),
    (64, 4096, 4096): (0.75, 0.62, 0.66, 0.62, 0.61, 0.15, 0.37),
    (128, 4096, 4096): (1.07, 0.74, 0.87, 0.77, 0.75, 0.48, 0.41),
    (256, 4096, 4096): (0.89, 0.69, 0.77, 0.51, 0.45, 0.34, 0.45),
    (1, 4096, 14336): (0.44, 0.77, 0.61, 0.72, 0.76, 0.64, 0.66),
    (64, 4096, 14336): (0.55, 0.91, 0.81, 0.88, 0.92, 0.46, 0.39),
    (256, 4096, 14336): (0.65, 0.85, 0.85, 0.63, 0.70, 0.61, 0.55),
    (1, 8192, 8192): (0.49, 0.67, 0.67, 0.54, 0.63, 0.59, 0.54),
    (16, 8192, 8192): (0.58, 0.78, 0.76, 0.53, 0.48, 0.62, 0.29),
    (64, 8192, 8192): (0.78, 0.51, 0.85, 0.57, 0.51, 0.70, 0.32),
    (128, 8192, 8192): (0.72, 0.78, 0.78, 0.62, 0.64, 0.56, 0.50),
    (256, 8192, 8192): (0.87, 0.86, 0.68, 0.60, 0.55, 0.47, 0.40),
}
FORCED = (2, 3, 4, 6, 8)


def cdiv(a, b):
    return -(-a // b)


def slices(ctas, trips, store, fixup, forced=0):
    if forced and 0 < ctas < P:
        return max(1, min(forced, 16, trips // 2))
    if ctas <= 0 or trips < 4 or ctas >= P:
        return 1
    waves = lambda n: cdiv(n, P)
    best, cost = 1, waves(ctas) * (trips + store / 2)
    for s in range(2, 17):
        if 2 * s > trips:
            break
        c = waves(ctas * s) * (cdiv(trips, s) + store) + s * store / 2 + store / 2 + fixup
        if c < cost:
            best, cost = s, c
    return best


def cycles(bm, bn, m, n, k, s, prm, depth=4, rates=None):
    """launchCycles of a bf16 bm x bn tile (k step 64, a `depth`-deep
    pipeline) over `s` slices, with the split constants `prm`."""
    r, e = rates or RATES, 2
    flops, smem = 2 * bm * bn * 64, (bm + bm // 64 * bn) * 64 * e
    row, col, store = bm * 64 * e, bn * 64 * e, bm * bn * e
    ctas, trips = cdiv(m, bm) * cdiv(n, bn), cdiv(k, 64)
    inside = lambda x, t: min(1.0, x / (cdiv(x, t) * t))
    loaded = row * inside(m, bm) + col * inside(n, bn)
    per = max(flops / r["flops"], smem / r["smem"], loaded / r["l2"], r["latency"] / depth)
    waves = lambda x: cdiv(x, P)
    partial = bm * bn * 4
    epilogue = (partial if s > 1 else store) / r["l2"] + r["latency"]
    compute = waves(ctas * s) * (cdiv(trips, s) * per + r["latency"] + epilogue)
    memory = (m * trips * row / bm + n * trips * col / bn + m * n * store / (bm * bn)) / r["dram"]
    c = compute + memory + r["launch"]
    if s > 1:
        c += waves(ctas) * ((prm["tail_l2"] * s * partial + store) / r["l2"] +
                            prm["tail_latency"] * r["latency"])
    return c


def pick(m, n, k, prm, forced=0, nosplit=False):
    best = None
    for bm, bn in TILES:
        ctas, trips = cdiv(m, bm) * cdiv(n, bn), cdiv(k, 64)
        store = bm * bn * 4 / ((bm + bn) * 64 * 2)
        s = 1 if nosplit else slices(ctas, trips, store, prm["fixup"], forced)
        c = cycles(bm, bn, m, n, k, s, prm)
        if best is None or c < best[0]:
            best = (c, f"{bm}x{bn}", s)
    return best[1:]


def measured_configs():
    """Per shape: the configuration each measured column ran, its ratio."""
    out = {}
    for shape, row in MEASURED.items():
        runs = {pick(*shape, PREVIOUS, nosplit=True): row[0]}
        runs.setdefault(pick(*shape, PREVIOUS), row[1])
        for s, r in zip(FORCED, row[2:]):
            runs.setdefault(pick(*shape, PREVIOUS, forced=s), r)
        out[shape] = runs
    return out


def judge(prm, runs):
    got = [runs[shape].get(pick(*shape, prm)) for shape in MEASURED]
    known = [g for g in got if g]
    geo = math.exp(sum(map(math.log, known)) / len(known)) if known else 0
    return geo, len(got) - len(known), got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--search", action="store_true")
    args = ap.parse_args()
    runs = measured_configs()
    best = math.exp(sum(math.log(max(r)) for r in MEASURED.values()) / len(MEASURED))
    print(f"best measured per shape: geomean {best:.3f}")
    for name, prm in (("previous", PREVIOUS), ("committed", COMMITTED)):
        geo, unknown, got = judge(prm, runs)
        print(f"{name} {prm}: geomean {geo:.3f} of the picks' measured kcc/cuBLAS"
              f" ({unknown} picks not measured)")
        for shape, g in zip(MEASURED, got):
            tile, s = pick(*shape, prm)
            print(f"  {'x'.join(map(str, shape)):>14}  {tile:>7} x{s:<2}  {g}")
    if args.search:
        rows = []
        for fix, l2, lat in itertools.product((1, 8, 16, 24, 32, 36, 40, 48, 64),
                                              (1, 2, 3, 4, 6, 8), (2, 4, 8, 16)):
            geo, unknown, _ = judge(dict(fixup=fix, tail_l2=l2, tail_latency=lat), runs)
            rows.append((unknown, -geo, fix, l2, lat))
        for unknown, geo, fix, l2, lat in sorted(rows)[:20]:
            print(f"fixup {fix:3d} tail_l2 {l2} tail_latency {lat:2d}: {-geo:.3f}"
                  f" ({unknown} unmeasured)")


if __name__ == "__main__":
    main()
