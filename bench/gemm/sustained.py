#!/usr/bin/env python3
"""Sustained n^3 f16 or bf16 NN GEMM: kcc against torch.mm (cuBLAS), each run for a
few seconds back to back while nvidia-smi samples the SM clock and power.

run_gemm.py times short CUDA-graph bursts, where the GPU's clock boost
varies from run to run; here both kernels run long enough to settle at the
board's power limit, so the ratio says how much work each does per joule.

  python3 bench/gemm/sustained.py --lib /path/libkcc_gemm.so [--n 8192]
"""
import argparse
import ctypes
import os
import subprocess
import sys
import threading
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_gemm import KccGemm  # noqa: E402


def sample(stop, out):
    while not stop.is_set():
        r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                            "--format=csv,noheader,nounits"], capture_output=True, text=True)
        out.append(r.stdout.strip())
        time.sleep(0.2)


def run(name, fn, flops, secs):
    torch.cuda.synchronize()
    stop, out = threading.Event(), []
    t = threading.Thread(target=sample, args=(stop, out))
    t.start()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0, iters = time.time(), 0
    start.record()
    while time.time() - t0 < secs:
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        iters += 20
    end.record()
    torch.cuda.synchronize()
    stop.set()
    t.join()
    ms = start.elapsed_time(end) / iters
    vals = [list(map(float, x.split(","))) for x in out[2:] if x]  # skip the ramp
    clock, power, temp = (sum(v[i] for v in vals) / max(1, len(vals)) for i in range(3))
    tflops = flops / ms / 1e9
    print(f"{name}: {tflops:.1f} TFLOP/s, SM clock {clock:.0f} MHz, power {power:.0f} W, "
          f"temp {temp:.0f} C ({len(vals)} samples)")
    return tflops


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", required=True)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--kernel", default="kcc_gemm_f16_f16_128_256_64")
    p.add_argument("--seconds", type=float, default=6.0)
    p.add_argument("--reps", type=int, default=2)
    args = p.parse_args()
    # The element type from the name (kcc_gemm_<T>_<T>_...): f16 or bf16.
    t = "bf16" if "_bf16_" in args.kernel else "f16"
    dtype = torch.bfloat16 if t == "bf16" else torch.half
    kcc = KccGemm(ctypes.CDLL(args.lib), args.kernel, "nn", t, t,
                  tuple(int(v) for v in args.kernel.split("_")[-3:]))
    n = args.n
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    c = torch.empty(n, n, device="cuda", dtype=dtype)
    print(subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.max.sm,power.limit",
                          "--format=csv,noheader"], capture_output=True, text=True).stdout.strip())
    for _ in range(args.reps):
        k = run(f"kcc {kcc.name}", lambda: kcc(c, a, b), 2 * n**3, args.seconds)
        t = run("torch.mm", lambda: torch.mm(a, b, out=c), 2 * n**3, args.seconds)
        print(f"kcc / torch.mm: {k / t:.2f}")


if __name__ == "__main__":
    main()
