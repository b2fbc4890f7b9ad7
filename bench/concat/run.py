#!/usr/bin/env python3
"""store_tile_at on one GPU (bench/concat/concat.kc): a row concatenation
y = [x1; 2 * x2] whose second part starts at element row dim(x1, 0), checked
against torch.cat and timed beside torch.cat alone (a pure copy; GB/s of
y written plus x1 and x2 read, CUDA-event medians as bench/run_membound.py), and a launch whose
sizes break the kernel's require(...) clause, which the stub refuses.

    kcc bench/concat/concat.kc --target=sm_90a -o gen
    cmake -S bench/gemm -B /tmp/cat -DKCC_GEN_DIR=$PWD/gen -DKCC_GEMM_STEM=concat
    cmake --build /tmp/cat -j
    python3 bench/concat/run.py --lib /tmp/cat/libkcc_gemm.so \\
        --manifest gen/concat.manifest.json --out concat.md
"""
import ctypes, json, os, sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from run_membound import time_ms  # noqa: E402
from kcc_binding import Kernel, arguments, write_report  # noqa: E402


def args_of(y, x1, x2):
    out = {}
    for name, t in (("y", y), ("x1", x1), ("x2", x2)):
        out.update({name: t, f"{name}_dim0": t.shape[0], f"{name}_dim1": t.shape[1],
                    f"{name}_stride0": t.stride(0)})
    return out


def main():
    ap = arguments(__doc__)
    ap.add_argument("--shapes", default="4096x1000x4096,8192x3000x4096,16x20x64,1024x777x1028",
                    help="R1xR2xC: x1 is R1 x C, x2 R2 x C")
    args = ap.parse_args()
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    spec = json.load(open(args.manifest))["kernels"][0]["specializations"][0]
    kernel = Kernel(lib, spec)
    lines = [f"Device: {torch.cuda.get_device_name()}; torch {torch.__version__}; one process.", "",
             "| x1 | x2 | max abs error | kcc GB/s | torch.cat (no scale) GB/s | kcc / torch |",
             "|---|---|---|---|---|---|"]
    failures = 0
    for shape in args.shapes.split(","):
        r1, r2, c = map(int, shape.split("x"))
        x1 = torch.randn(r1, c, device="cuda")
        x2 = torch.randn(r2, c, device="cuda")
        y = torch.full((r1 + r2, c), float("nan"), device="cuda")
        call = kernel.bind(args_of(y, x1, x2))
        call()
        torch.cuda.synchronize()
        err = float((y - torch.cat([x1, 2 * x2])).abs().max())
        failures += not err == 0.0
        # The peer: torch.cat alone, without the scale (a pure copy).
        out = torch.empty_like(y)
        ref = lambda: torch.cat([x1, x2], out=out)
        gbs = lambda ms: 2 * y.numel() * 4 / ms / 1e6
        k, t = gbs(min(time_ms(call), time_ms(call))), gbs(min(time_ms(ref), time_ms(ref)))
        lines.append(f"| {r1} x {c} | {r2} x {c} | {err:.3g} | {k:.0f} | {t:.0f} | {k / t:.2f}x |")
    # x1 not in whole 16-row blocks: the require(...) clause refuses it.
    x1 = torch.randn(17, 64, device="cuda")
    x2 = torch.randn(8, 64, device="cuda")
    y = torch.empty(25, 64, device="cuda")
    try:
        kernel.bind(args_of(y, x1, x2))()
        lines += ["", "x1 of 17 rows: launched (expected a refusal)"]
        failures += 1
    except RuntimeError as e:
        lines += ["", f"x1 of 17 rows: refused: {e}"]
    write_report(lines, args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
