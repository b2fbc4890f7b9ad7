#!/usr/bin/env python3
"""Summarizes `kcc --report=json` files for tests/e2e/kernels/report-bundled.test."""
import json
import sys

entries = no_path = no_rule = no_regs = conflicts = tma = 0
for path in sys.argv[1:]:
    report = json.load(open(path))
    for kernel in report["kernels"]:
        for t in kernel["targets"]:
            entries += 1
            if not t["target"].startswith("gfx") and "registers" not in t:
                no_regs += 1
            for m in t["memory_ops"]:
                no_path += m["path"] not in ("vector", "scalar", "tma", "cp.async")
                tma += m["path"] == "tma"
                no_rule += sum(1 for n in m["not_taken"] if not n["rule"])
            conflicts += sum(1 for s in t["shared_memory_accesses"]
                             if s["conflict_degree"] > 1)
print("files:", len(sys.argv) - 1)
print("kernel-target entries:", entries)
print("memory ops without a path:", no_path)
print("TMA copies:", tma)
print("fast paths not taken without a rule:", no_rule)
print("NVIDIA entries without registers:", no_regs)
print("shared-memory accesses with bank conflicts:", conflicts)
