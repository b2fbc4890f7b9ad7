#!/usr/bin/env python3
"""int8 GEMM (bench/int8/int8.kc) on one GPU, in one process, beside
torch._int_mm (cuBLAS's int8 GEMM): C = A x W^T with A [M, K] and W [N, K]
int8, C int32. Every result is first checked for equality with torch's;
times are CUDA-event medians (bench/run_membound.py's time_ms), in TOPS
(2 M N K / t) and as ratios.

    kcc bench/int8/int8.kc --target=sm_90a -o gen
    cmake -S bench/gemm -B /tmp/int8 -DKCC_GEN_DIR=$PWD/gen -DKCC_GEMM_STEM=int8
    cmake --build /tmp/int8 -j
    python3 bench/int8/run.py --lib /tmp/int8/libkcc_gemm.so \\
        --manifest gen/int8.manifest.json --out int8.md
"""
import ctypes, json, os, sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from run_membound import time_ms  # noqa: E402 - the same timing as the other tables
from kcc_binding import Kernel, arguments, write_report  # noqa: E402

SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (2048, 4096, 4096), (2048, 14336, 4096), (2048, 4096, 14336),
          (256, 4096, 4096), (200, 4104, 4096)]


def main():
    ap = arguments(__doc__, out="int8.md")
    ap.add_argument("--shapes", default="", help="MxNxK,... (default: the table's)")
    args = ap.parse_args()
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    manifest = json.load(open(args.manifest))
    specs = [s for k in manifest["kernels"] for s in k["specializations"]]
    kernels = {s["symbol"]: Kernel(lib, s) for s in specs}
    shapes = ([tuple(map(int, s.split("x"))) for s in args.shapes.split(",")]
              if args.shapes else SHAPES)
    dev = torch.cuda.get_device_name()
    lines = [f"Device: {dev}; torch {torch.__version__}; one process, CUDA events "
             "(median of batches, best of two passes per side).", "",
             "| M x N x K | kcc (spec) | kcc TOPS | torch._int_mm TOPS | kcc / torch |",
             "|---|---|---|---|---|"]
    failures = 0
    for m, n, k in shapes:
        a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
        w = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8)
        ref = torch._int_mm(a, w.t())
        peer = min(time_ms(lambda: torch._int_mm(a, w.t())) for _ in range(2))
        for sym, kern in kernels.items():
            c = torch.empty(m, n, device="cuda", dtype=torch.int32)
            call = kern.bind(dict(c=c, c_dim0=m, c_dim1=n, c_stride0=n,
                                  a=a, a_dim0=m, a_dim1=k, a_stride0=k,
                                  w=w, w_dim0=n, w_dim1=k, w_stride0=k))
            call()
            torch.cuda.synchronize()
            if not torch.equal(c, ref):
                bad = (c != ref).sum().item()
                print(f"FAIL {sym} {m}x{n}x{k}: {bad} elements differ from "
                      "torch._int_mm", file=sys.stderr)
                failures += 1
                continue
            t = min(time_ms(call) for _ in range(2))
            tops = lambda ms: 2.0 * m * n * k / (ms * 1e-3) / 1e12
            lines.append(f"| {m} x {n} x {k} | {sym} | {tops(t):.0f} | "
                         f"{tops(peer):.0f} | {peer / t:.2f}x |")
    write_report(lines, args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
