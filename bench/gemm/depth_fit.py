#!/usr/bin/env python3
"""The launch's choice among tiles and pipeline depths (stages(S) tunable,
bench/gemm/gemm_auto.kc), replayed on the generated tuner's database: every
candidate's time at every tuned shape (docs/gemm.md, "Pipeline depth chosen
at launch").

The model is kcc::rt::launchCycles (runtime/include/kcc/dispatch.h) with
kcc::rt::splitKSlices's slices (runtime/include/kcc/split_k.h), each
candidate described as the stubs describe it: a bf16 BM x BN tile with a k
step of 64 and its pipeline's depth (stages(3): 4; stages(6): as deep as the
tile's shared memory allows on sm_90a). A model is judged by the time of its
pick over the fastest candidate's, per shape (geomean and worst), over all
candidates and over the stages(3) ones alone (what kernels without a
tunable depth get). --search scans the L2 rate and the load latency.

    python3 bench/gemm/depth_fit.py docs/results/2026-12-05-h200-depth/tune-s.json
    python3 bench/gemm/depth_fit.py docs/results/2026-12-05-h200-depth/tune-s.json --search
"""
import argparse
import itertools
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from split_k_fit import COMMITTED as SPLIT, P, cdiv, slices  # noqa: E402
from split_k_fit import cycles as split_cycles  # noqa: E402

# targets/nvidia/sm_90a.toml [throughput] before and since 2026-12-05.
PREVIOUS = dict(flops=4096, smem=128, l2=64, dram=2400, latency=1000, launch=4000)
COMMITTED = dict(flops=4096, smem=128, l2=96, dram=2400, latency=1400, launch=4000)
# The depth each tile's stages(6) build came out with on sm_90a (--report);
# stages(3) is 4 deep everywhere, and 128 x 256's stages(6) is pruned (4).
DEEP = {(64, 64): 7, (64, 128): 7, (64, 256): 5, (128, 64): 7, (128, 128): 6, (128, 256): 4}
NAME = re.compile(r"_(\d+)_(\d+)_64_(\d+)$")


def cycles(bm, bn, depth, m, n, k, r):
    """The stub's estimate: the tile's slices, then launchCycles."""
    ctas, trips = cdiv(m, bm) * cdiv(n, bn), cdiv(k, 64)
    s = slices(ctas, trips, bm * bn * 4 / ((bm + bn) * 64 * 2), SPLIT["fixup"])
    return split_cycles(bm, bn, m, n, k, s, SPLIT, depth=depth, rates=r)


def load(path):
    rows = []
    for e in json.load(open(path))["shapes"]:
        z = e["sizes"]
        times = {}
        for name, t in e["times_us"].items():
            g = NAME.search(name)
            if g:
                times[tuple(int(x) for x in g.groups())] = t
        rows.append((e["launch"], z["c_dim0"], z["c_dim1"], z["a_dim1"], times))
    return rows


def evaluate(rows, r, shallow_only=False, verbose=False):
    ratios = []
    for launch, m, n, k, times in rows:
        cands = {c: t for c, t in times.items() if not shallow_only or c[2] == 3}
        depth = lambda c: DEEP[c[:2]] if c[2] == 6 else 4
        pick = min(cands, key=lambda c: cycles(c[0], c[1], depth(c), m, n, k, r))
        best = min(times, key=times.get)
        ratios.append(times[best] / times[pick])
        if verbose:
            print(f"{launch:20} {m:>6}x{n}x{k:<6} pick {pick[0]}x{pick[1]}@{depth(pick)}"
                  f" {ratios[-1]:.2f} of the fastest ({best[0]}x{best[1]}@{depth(best)})")
    return math.exp(sum(map(math.log, ratios)) / len(ratios)), min(ratios)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", help="the tuner's database (JSON)")
    ap.add_argument("--search", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    rows = load(a.db)
    for label, r in (("previous", PREVIOUS), ("committed", COMMITTED)):
        g, w = evaluate(rows, r)
        g3, w3 = evaluate(rows, r, shallow_only=True)
        print(f"{label} (L2 {r['l2']}, latency {r['latency']}): all candidates {g:.3f} of the fastest"
              f" (worst {w:.2f}); stages(3) only {g3:.3f} (worst {w3:.2f})")
    if a.verbose:
        evaluate(rows, COMMITTED, verbose=True)
    if a.search:
        res = []
        for l2, lat in itertools.product((48, 64, 96, 128, 192), (600, 800, 1000, 1400, 2000, 2800)):
            r = dict(COMMITTED, l2=l2, latency=lat)
            res.append(evaluate(rows, r) + evaluate(rows, r, shallow_only=True) + (l2, lat))
        for g, w, g3, w3, l2, lat in sorted(res, reverse=True)[:10]:
            print(f"L2 {l2:>3} latency {lat:>4}: {g:.3f} (worst {w:.2f}); stages(3) only {g3:.3f} (worst {w3:.2f})")


if __name__ == "__main__":
    main()
