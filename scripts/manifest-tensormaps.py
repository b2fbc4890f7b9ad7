#!/usr/bin/env python3
"""Lists the TMA tensor maps of a kcc manifest for the difftest GPU leg.

The difftest run list carries a kernel's user arguments only; kernels compiled
for TMA targets also take one tensor map per (tensor, box) after them, which
the generated stubs encode at launch. kcc-gpu-leg reads this file (next to the
run list) and encodes the same maps through kcc's runtime:

    map SYMBOL TENSOR_ARG_INDEX DTYPE SWIZZLE BOX...   (box outermost first)
    smem SYMBOL SM BYTES    (the dynamic shared memory a CUDA launch must give)

usage: manifest-tensormaps.py MANIFEST.json > tensormaps.txt
"""
import json
import sys

manifest = json.load(open(sys.argv[1]))
def spec_builds(spec):
    """A specialization, its fallback build (no tensor maps) and the build
    of its else branch (a spec of its own), recursively."""
    yield spec
    if "fallback" in spec:
        yield {**spec["fallback"], "params": []}
    if "else_branch" in spec:
        yield from spec_builds(spec["else_branch"]["build"])


def builds(kernel):
    for spec in kernel["specializations"]:
        yield from spec_builds(spec)


for kernel in manifest["kernels"]:
    for spec in builds(kernel):
        names = [p["name"] for p in spec["params"]]
        for t in spec.get("targets", []):
            if t.get("target", "").startswith("sm_") and t.get("dynamic_shared_bytes"):
                sm = int("".join(ch for ch in t["target"][3:] if ch.isdigit()))
                print(f"smem {spec['symbol']} {sm} {t['dynamic_shared_bytes']}")
        for p in spec["params"]:
            if p["kind"] == "tensormap":
                box = " ".join(str(b) for b in p["box"])
                print(f"map {spec['symbol']} {names.index(p['tensor'])} "
                      f"{p['type']} {p['swizzle']} {box}")
