#!/usr/bin/env python3
"""One launch of each privatized histogram (bench/atomics/atomics.kc,
`histogram_shared`) on a ragged length with values out of range on both
sides, checked against torch.bincount: small enough to run under
compute-sanitizer (memcheck, racecheck, synccheck). Built as run.py says.

    compute-sanitizer --tool racecheck python3 bench/atomics/check_histogram.py \\
        --lib /tmp/atom/libkcc_gemm.so --manifest gen/atomics.manifest.json
"""
import argparse, ctypes, json, os, sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kcc_binding import Kernel  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--manifest", required=True)
    args = ap.parse_args()
    lib = ctypes.CDLL(args.lib)
    manifest = json.load(open(args.manifest))
    kernels = {s["symbol"]: Kernel(lib, s)
               for k in manifest["kernels"] for s in k["specializations"]}
    ok = True
    for bins in (256, 4096):
        n = 100003
        x = torch.randint(-5, bins + 5, (n,), device="cuda", dtype=torch.int32)
        h = torch.zeros(bins, device="cuda", dtype=torch.int32)
        kernels[f"histogram_shared_8192_{bins}"].bind(dict(x=x, h=h, n=n))()
        ref = torch.bincount(x[(x >= 0) & (x < bins)], minlength=bins)
        same = torch.equal(h, ref.to(torch.int32))
        ok &= same
        print(f"histogram_shared bins={bins} n={n}: "
              f"{'matches' if same else 'DIFFERS from'} torch.bincount")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
