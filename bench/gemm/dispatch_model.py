#!/usr/bin/env python3
"""The launch-time tile choice of runtime/include/kcc/dispatch.h, replayed on
measured tile timings: how close the model's pick comes to the fastest tile.

Input: run_gemm.py's JSON lines (--json) of a library with the six bf16/f16
tiles of bench/gemm/gemm.kc's gemm/gemm_nt per shape (BM in 64, 128; BN in
64, 128, 256; BK 64). For every timed shape, the model (the same formula as
launchCycles, with kcc::rt::splitKSlices's slices; 128x256 has no split
pair) estimates each tile, and the report gives the measured time of its
pick over the fastest tile's: per shape, geomean and worst. --fit searches
the fitted rates (L2 bytes/clock, latency, launch) around the committed ones.
Its split-K terms are those of the libraries it was fitted on (2026-12-02:
two launches, at most 4 slices); the one-launch split's constants are fitted
by bench/gemm/split_k_fit.py.

    python3 bench/gemm/dispatch_model.py docs/results/2026-12-02-h200-dispatch/calibration-tiles.jsonl
"""
import argparse
import itertools
import json
import math
import re

# targets/nvidia/sm_90a.toml [throughput]
RATES = dict(flops=4096, smem=128, l2=64, dram=2400, latency=1000, launch=4000)
PROCESSORS = 132  # H100/H200 SXM
MAX_SLICES = 4    # kcc::rt::kMaxSplitKSlices
TILE = re.compile(r"_(\d+)_(\d+)_(\d+)(?:@\w+)?$")


def split_slices(ctas, trips, store, p):
    if ctas <= 0 or trips < 4 or ctas >= p:
        return 1
    waves = lambda n: math.ceil(n / p)
    best, cost = 1, waves(ctas) * (trips + store / 2)
    for s in range(2, MAX_SLICES + 1):
        if 2 * s > trips:
            break
        c = waves(ctas * s) * (math.ceil(trips / s) + store) + waves(ctas) * (s * store / 2 + store / 2) + 4
        if c < cost:
            best, cost = s, c
    return best


def cycles(bm, bn, bk, m, n, k, r, p=PROCESSORS, e=2, stages=4):
    flops = 2 * bm * bn * bk
    smem = (bm + math.ceil(bm / 64) * bn) * bk * e
    row, col, store = bm * bk * e, bn * bk * e, bm * bn * e
    ctas = math.ceil(m / bm) * math.ceil(n / bn)
    trips = math.ceil(k / bk)
    s = 1 if (bm, bn) == (128, 256) else split_slices(ctas, trips, bm * bn * 4 / ((bm + bn) * bk * e), p)
    inside = lambda x, t: min(1.0, x / (math.ceil(x / t) * t))
    loaded = row * inside(m, bm) + col * inside(n, bn)
    per = max(flops / r["flops"], smem / r["smem"], loaded / r["l2"], r["latency"] / stages)
    waves = lambda x: math.ceil(x / p)
    partial = bm * bn * 4
    epilogue = (partial if s > 1 else store) / r["l2"] + r["latency"]
    compute = waves(ctas * s) * (math.ceil(trips / s) * per + r["latency"] + epilogue)
    memory = (m * trips * row / bm + n * trips * col / bn + m * n * store / (bm * bn)) / r["dram"]
    c = compute + memory + r["launch"]
    if s > 1:
        c += r["launch"] + waves(ctas) * ((s * partial + store) / r["l2"] + r["latency"])
    return c


def evaluate(rows, r, verbose=False):
    ratios = []
    for row in rows:
        m, n, k = map(int, row["shape"].split("x"))
        # The six tiles, from this library or a --compare-lib one (name@label).
        times = {name: v["ms"] for name, v in row["kcc_all"].items() if TILE.search(name)}
        tiles = {name: tuple(int(x) for x in TILE.search(name).groups()) for name in times}
        if len(tiles) < 2:
            continue
        pick = min(tiles, key=lambda name: cycles(*tiles[name], m, n, k, r))
        best = min(times.values())
        ratios.append(best / times[pick])
        if verbose:
            print(f"{row['variant'].upper()} {row['shape']:>18}: pick {'x'.join(map(str, tiles[pick][:2])):>7}"
                  f" {best / times[pick]:.2f} of the fastest")
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    return gm, min(ratios), len(ratios)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl", nargs="+")
    ap.add_argument("--fit", action="store_true")
    args = ap.parse_args()
    rows = [json.loads(line) for path in args.jsonl for line in open(path)
            if line.startswith("{") and '"perf"' in line]
    gm, worst, count = evaluate(rows, RATES, verbose=True)
    print(f"\n{count} shapes: the model's pick runs at {gm:.3f} of the fastest tile (geomean), worst {worst:.2f}")
    if args.fit:
        fits = []
        for l2, lat, launch in itertools.product([32, 48, 64, 96, 128], [500, 1000, 1500, 2000, 3000],
                                                 [0, 2000, 4000, 8000]):
            r = dict(RATES, l2=l2, latency=lat, launch=launch)
            fits.append((evaluate(rows, r)[:2], (l2, lat, launch)))
        fits.sort(reverse=True)
        for (gm, worst), (l2, lat, launch) in fits[:5]:
            print(f"l2 {l2} latency {lat} launch {launch}: geomean {gm:.3f}, worst {worst:.2f}")


if __name__ == "__main__":
    main()
