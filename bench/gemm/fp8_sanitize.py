#!/usr/bin/env python3
"""Small launches of every fp8/MoE entry point, for compute-sanitizer
(memcheck, racecheck, synccheck): bench/gemm/run_fp8.py and run_moe.py check
values; this only runs each kernel a few times on shapes small enough for
racecheck. Exit status 1 if a launch returns an error.

    compute-sanitizer --tool racecheck python3 bench/gemm/fp8_sanitize.py \
        --fp8-lib /tmp/fp8/libkcc_gemm.so --moe-lib /tmp/moe/libkcc_gemm.so
"""
import argparse
import ctypes
import subprocess
import sys

import torch

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
P, I, F = ctypes.c_void_p, ctypes.c_int32, ctypes.c_float


def names(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    return [l.split()[-1] for l in out.splitlines() if l.split()[-1].startswith("kcc_")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fp8-lib", required=True)
    p.add_argument("--moe-lib", help="the grouped GEMMs' library (bench/gemm/moe_gemm.kc); without it, fp8 only")
    args = p.parse_args()
    s = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
    bad = 0
    lib = ctypes.CDLL(args.fp8_lib)
    m, n, k = 200, 136, 384  # ragged M and N, three K blocks
    for name in names(args.fp8_lib):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        if name.startswith("kcc_fp8_gemm_block_ptr"):
            a, bt = torch.randn(m, k, device="cuda").to(E4M3), torch.randn(n, k, device="cuda").to(E4M3)
            sa = torch.rand(m, k // 128, device="cuda") + 0.5
            sb = torch.rand(2, k // 128, device="cuda") + 0.5
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            fn.argtypes = [P, I, I, I] * 3 + [P, I, P, I, P]
            st = fn(c.data_ptr(), m, n, c.stride(0), a.data_ptr(), m, k, k, bt.data_ptr(), n, k, k,
                    sa.data_ptr(), k // 128, sb.data_ptr(), k // 128, s())
        elif name.startswith("kcc_fp8_gemm_block"):
            a, bt = torch.randn(m, k, device="cuda").to(E4M3), torch.randn(n, k, device="cuda").to(E4M3)
            sat = torch.rand(k // 128, m + 4, device="cuda")[:, :m] + 0.5
            sb = torch.rand(2, k // 128, device="cuda") + 0.5
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            fn.argtypes = [P, I, I, I] * 4 + [P, I, P]
            st = fn(c.data_ptr(), m, n, c.stride(0), a.data_ptr(), m, k, k, bt.data_ptr(), n, k, k,
                    sat.data_ptr(), k // 128, m, sat.stride(0), sb.data_ptr(), k // 128, s())
        elif name.startswith("kcc_fp8_gemm"):
            at = E5M2 if "mix" in name else E4M3
            a, bt = torch.randn(m, k, device="cuda").to(at), torch.randn(n, k, device="cuda").to(E4M3)
            sa, sb = torch.ones(1, device="cuda"), torch.ones(1, device="cuda")
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            fn.argtypes = [P, I, I, I] * 3 + [P, P, P]
            st = fn(c.data_ptr(), m, n, n, a.data_ptr(), m, k, k, bt.data_ptr(), n, k, k,
                    sa.data_ptr(), sb.data_ptr(), s())
        elif name.startswith("kcc_quantize_fp8"):
            x = torch.randn(3000, device="cuda").to(torch.float32 if "_f32_" in name else torch.bfloat16)
            y = torch.empty(3000, device="cuda", dtype=torch.uint8)
            sc = torch.ones(1, device="cuda")
            fn.argtypes = [P, P, P, I, P]
            st = fn(y.data_ptr(), x.data_ptr(), sc.data_ptr(), 3000, s())
        else:
            continue
        torch.cuda.synchronize()
        print(name, "status", st, flush=True)
        bad += st != 0
    if not args.moe_lib:
        return 1 if bad else 0
    lib = ctypes.CDLL(args.moe_lib)
    inspect = getattr(lib, "kcc_moe_tiles")
    inspect.restype = ctypes.c_int
    inspect.argtypes = [P, P, P, P, I, I, P]
    for name in names(args.moe_lib):
        if not name.startswith("kcc_moe_gemm"):
            continue
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        tiled = name.startswith("kcc_moe_gemm_tiles")
        fn.argtypes = ([P, I, P, I, I, I, P, I, I, I, I, I, P, P, P, I, F, P] if tiled
                       else [P, I, P, I, I, I, P, I, I, I, I, I, P, I, F, P])
        dt = E4M3 if "f8e4m3" in name else torch.bfloat16
        for sizes in ([50, 0, 200, 50], [0, 0, 0, 0, 7, 133], [300]):
            G, T, K, N = len(sizes), sum(sizes), 256, 136
            offs = torch.tensor([0] + torch.tensor(sizes).cumsum(0).tolist(), dtype=torch.int32, device="cuda")
            x, w = torch.randn(T, K, device="cuda").to(dt), torch.randn(G, N, K, device="cuda").to(dt)
            c = torch.zeros(T, N, device="cuda", dtype=torch.bfloat16)
            if tiled:
                nt = (T + 127) // 128 + G
                tg, tr, te = (torch.empty(nt, dtype=torch.int32, device="cuda") for _ in range(3))
                st = inspect(tg.data_ptr(), tr.data_ptr(), te.data_ptr(), offs.data_ptr(), G, nt, s())
                st = st or fn(c.data_ptr(), N, x.data_ptr(), T, K, K, w.data_ptr(), G, N, K, N * K, K,
                              tg.data_ptr(), tr.data_ptr(), te.data_ptr(), G, 1.0, s())
            else:
                st = fn(c.data_ptr(), N, x.data_ptr(), T, K, K, w.data_ptr(), G, N, K, N * K, K,
                        offs.data_ptr(), G, 1.0, s())
            torch.cuda.synchronize()
            print(name, sizes, "status", st, flush=True)
            bad += st != 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
