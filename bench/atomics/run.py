#!/usr/bin/env python3
"""Kernels that need atomics (bench/atomics/atomics.kc) on one GPU, in one
process, beside their torch peers: a histogram with global atomics and one
privatized in shared memory (torch.bincount), a one-launch
sum (torch.sum) and split-K GEMM for few tokens (torch.matmul, i.e. cuBLAS;
and kcc's own kernel without the split, kslice = K). Every result is first
checked against torch; times are CUDA-event medians (bench/run_membound.py's
time_ms), the kcc side including what it needs before the launch (zeroing
the histogram, the sum, C).

    kcc bench/atomics/atomics.kc --target=sm_90a -o gen
    cmake -S bench/gemm -B /tmp/atom -DKCC_GEN_DIR=$PWD/gen -DKCC_GEMM_STEM=atomics
    cmake --build /tmp/atom -j
    python3 bench/atomics/run.py --lib /tmp/atom/libkcc_gemm.so \\
        --manifest gen/atomics.manifest.json --out atomics.md
"""
import ctypes, json, os, sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from run_membound import time_ms  # noqa: E402 - the same timing as the other tables
from kcc_binding import Kernel, arguments, write_report  # noqa: E402



def kernels(lib, manifest):
    out = {}
    for k in manifest["kernels"]:
        for s in k["specializations"]:
            out[s["symbol"]] = Kernel(lib, s)
    return out


def row(name, shape, kcc_ms, peer, peer_ms, note=""):
    return (f"| {name} | {shape} | {kcc_ms * 1e3:.1f} | {peer} | "
            f"{peer_ms * 1e3:.1f} | {peer_ms / kcc_ms:.2f}x | {note} |")


def bench_histogram(k, rows):
    for n, bins in ((1 << 20, 256), (1 << 24, 256), (1 << 24, 4096)):
        x = torch.randint(0, bins, (n,), device="cuda", dtype=torch.int32)
        h = torch.zeros(bins, device="cuda", dtype=torch.int32)
        call = k["histogram"].bind(dict(x=x, h=h, n=n))

        def run():
            h.zero_()
            call()
        run()
        ref = torch.bincount(x, minlength=bins).to(torch.int32)
        assert torch.equal(h, ref), "histogram differs from torch.bincount"
        t = time_ms(run)
        p = time_ms(lambda: torch.bincount(x, minlength=bins))
        rows.append(row("histogram", f"n={n} bins={bins}", t, "torch.bincount",
                        p, f"{n * 4 / (t * 1e-3) / 1e9:.0f} GB/s read"))
        # Privatized: counted per program in shared memory (`histogram`).
        shared = k[f"histogram_shared_8192_{bins}"].bind(dict(x=x, h=h, n=n))

        def run_shared():
            h.zero_()
            shared()
        run_shared()
        assert torch.equal(h, ref), "histogram_shared differs from torch.bincount"
        t = time_ms(run_shared)
        rows.append(row("histogram, privatized in shared memory",
                        f"n={n} bins={bins}", t, "torch.bincount", p,
                        f"{n * 4 / (t * 1e-3) / 1e9:.0f} GB/s read"))


def bench_sum(k, rows):
    for n in (1 << 20, 1 << 26):
        x = torch.rand(n, device="cuda", dtype=torch.float32) * 2 - 1
        s = torch.zeros(1, device="cuda", dtype=torch.float32)
        call = k["vsum"].bind(dict(x=x, s=s, n=n))

        def run():
            s.zero_()
            call()
        run()
        ref = x.double().sum().item()
        got = s.item()
        assert abs(got - ref) <= 1e-5 * n ** 0.5 + 1e-3, f"sum {got} vs {ref}"
        t = time_ms(run)
        p = time_ms(lambda: torch.sum(x))
        rows.append(row("one-launch sum", f"n={n} f32", t, "torch.sum", p,
                        f"{n * 4 / (t * 1e-3) / 1e9:.0f} GB/s"))


def bench_splitk(k, rows):
    shapes = [(16, 8192, 8192), (64, 8192, 8192), (16, 4096, 14336),
              (64, 14336, 4096), (128, 8192, 8192)]
    for m, n, kk in shapes:
        a = (torch.rand(m, kk, device="cuda") * 2 - 1).to(torch.bfloat16)
        b = (torch.rand(kk, n, device="cuda") * 2 - 1).to(torch.bfloat16)
        ref = a.float() @ b.float()
        peer = time_ms(lambda: torch.matmul(a, b))
        best = None
        for sym in ("splitk_64_128_64", "splitk_128_128_64"):
            bm = 64 if sym.startswith("splitk_64") else 128
            for slices in (1, 2, 4, 8, 16):
                kslice = -(-kk // slices)
                kslice = -(-kslice // 64) * 64
                c = torch.empty(m, n, device="cuda", dtype=torch.float32)
                call = k[sym].bind(dict(a=a, a_dim0=m, a_dim1=kk, a_stride0=kk,
                                        b=b, b_dim0=kk, b_dim1=n, b_stride0=n,
                                        c=c, kslice=kslice))

                def run():
                    c.zero_()
                    call()
                run()
                err = (c - ref).abs().max().item()
                assert err <= 1e-2 * kk ** 0.5, f"{sym} k/{slices}: max error {err}"
                t = time_ms(run)
                if slices == 1:
                    rows.append(row(f"GEMM, no split ({sym})",
                                    f"{m}x{n}x{kk} bf16", t, "torch.matmul",
                                    peer, "kslice = K"))
                if best is None or t < best[0]:
                    best = (t, sym, slices)
        t, sym, slices = best
        rows.append(row(f"split-K GEMM ({sym}, {slices} slices)",
                        f"{m}x{n}x{kk} bf16", t, "torch.matmul", peer,
                        f"{2 * m * n * kk / (t * 1e-3) / 1e12:.0f} TFLOP/s"))


def main():
    ap = arguments(__doc__, out="atomics.md")
    args = ap.parse_args()
    lib = ctypes.CDLL(args.lib)
    k = kernels(lib, json.load(open(args.manifest)))
    rows = []
    bench_histogram(k, rows)
    bench_sum(k, rows)
    bench_splitk(k, rows)
    dev = torch.cuda.get_device_name()
    write_report([f"# Atomics on {dev} (one process; kcc vs torch)", "",
                  "| kernel | shape | kcc us | peer | peer us | peer/kcc | note |",
                  "|---|---|---|---|---|---|---|"] + rows, args.out)


if __name__ == "__main__":
    main()
