#!/usr/bin/env python3
"""Split-K launches of kcc's NT GEMMs on the GPU: deterministic and correct.

For each shape and each kcc_gemm_nt_* function of --lib (compiled with
`kcc --split-k`, the default), the launch runs twice into two outputs,
which must be the same bits (the launch picks the slices from the sizes
alone and each tile's last slice sums them in slice order); the result is
compared with the fp32 reference as run_gemm.py does (|err| <= atol +
rtol * |ref|); and, with --unsplit (the same kernels compiled with
--split-k=false), with the same function there, whose bits differ exactly
where the launch took the split path (a different summation order). Exit
status 1 on any failure; scripts/gpu-roundtrip.sh's GEMM step runs it.

    python3 bench/gemm/split_k_check.py --lib A/libkcc_gemm.so --unsplit B/libkcc_gemm.so --out check.md
"""
import argparse
import ctypes
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_gemm import discover, parse_shapes, tolerances  # noqa: E402

DEFAULT_SHAPES = "16x4096x14336,1x4096x4096,64x4096x4096,200x4096x14336,16x14336x4096,4096x4096x4096,7x1000x3000"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lib", required=True)
    p.add_argument("--unsplit", help="the same kernels built with --split-k=false (the path "
                   "column then says which launches split)")
    p.add_argument("--shapes", type=parse_shapes, default=parse_shapes(DEFAULT_SHAPES))
    p.add_argument("--rtol", type=float, default=1e-2)
    p.add_argument("--out")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)

    def load(path):
        lib = ctypes.CDLL(os.path.abspath(path))
        found = discover(lib, os.path.abspath(path), [], ["nt"], ["bf16", "f16"],
                         lambda t: [t])
        return {f.name: f for fs in found.values() for f in fs}

    split = load(args.lib)
    unsplit = load(args.unsplit) if args.unsplit else {}
    rows, failures = [], 0
    for (m, n, k) in args.shapes:
        for name, fn in sorted(split.items()):
            dt = torch.bfloat16 if fn.t == "bf16" else torch.float16
            a = torch.randn(m, k, device="cuda").to(dt)
            bt = (torch.randn(n, k, device="cuda") / k ** 0.5).to(dt)
            ref = a.float() @ bt.float().t()
            outs = [torch.full((m, n), float("nan"), device="cuda", dtype=dt) for _ in range(3)]
            fn(outs[0], a, bt)
            fn(outs[1], a, bt)
            other = unsplit.get(name)
            if other:
                other(outs[2], a, bt)
            torch.cuda.synchronize()
            same = torch.equal(outs[0].view(torch.int16), outs[1].view(torch.int16))
            rtol, atol = tolerances(k, args.rtol, None)
            err = (outs[0].float() - ref).abs()
            worst = (err / (atol + rtol * ref.abs())).max().item() if err.numel() else 0.0
            ok = same and worst <= 1.0 and not torch.isnan(outs[0]).any().item()
            split_taken = (not torch.equal(outs[0].view(torch.int16), outs[2].view(torch.int16))
                           if other else None)
            failures += not ok
            rows.append(f"| {m}x{n}x{k} | {name} | {'yes' if same else 'NO'} | {worst:.3f} | "
                        f"{'-' if split_taken is None else ('split' if split_taken else 'unsplit')} | "
                        f"{'ok' if ok else 'FAIL'} |")
    text = (f"GPU: {torch.cuda.get_device_name()}; split-K check: each launch twice "
            f"(bits equal?), worst |err| / (atol + rtol |ref|) against fp32, and whether its "
            f"bits differ from the --split-k=false build (the split path ran)\n\n"
            "| MxNxK | kernel | same bits twice | worst err / tol | path | result |\n"
            "|---|---|---|---:|---|---|\n" + "\n".join(rows) + "\n")
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if failures:
        print(f"FAIL: {failures} check(s)", file=sys.stderr)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
