#!/usr/bin/env python3
"""Grouped GEMM over ragged groups (MoE): kcc's bench/gemm/moe_gemm.kc vs torch.

One launch computes c[rows of group g] = x[rows of g] @ w[g]^T * scale for G
experts whose row counts (tokens routed to each expert, from a random
top-k routing) are read from a device offsets array. Compared, on the same
card in one process:
  - kcc moe_gemm (f8e4m3 and bf16), one launch;
  - torch: a loop of per-expert matmuls (bf16 torch.mm; fp8 torch._scaled_mm
    on groups whose size is a multiple of 16, the rest in bf16), and
    torch._grouped_mm where this torch has it (bf16);
  - kcc's own dense GEMM on the same total work (M = all routed rows):
    fp8_gemm_128_128_128 (bench/gemm/fp8_gemm.kc) and gemm_nt_bf16_bf16_128_128_64
    (bench/gemm/gemm.kc); the issue's target is moe / dense >= 0.9.
Correctness: every group against float32 matmuls of the same inputs.

    python3 bench/gemm/run_moe.py --moe-lib L1 --fp8-lib L2 --gemm-lib L3 --out moe.md
"""
import argparse
import ctypes
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_gemm import time_sides  # noqa: E402

E4M3 = torch.float8_e4m3fn
# (experts, tokens, top-k, hidden K, expert width N): Mixtral-8x7B-like,
# Qwen-MoE-like, DeepSeek-V3-like (256 experts, 7168 hidden), a decode batch.
CASES = [(8, 4096, 2, 4096, 14336), (64, 4096, 4, 2048, 1408 * 2), (256, 4096, 8, 7168, 2048),
         (8, 256, 2, 4096, 14336), (64, 16384, 8, 4096, 1024 * 2)]


def routing(experts, tokens, topk, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    logits = torch.randn(tokens, experts, device="cuda", generator=g)
    ids = logits.topk(topk, dim=1).indices.flatten()
    counts = torch.bincount(ids, minlength=experts)
    offs = torch.zeros(experts + 1, dtype=torch.int32, device="cuda")
    offs[1:] = counts.cumsum(0)
    return offs


def bind(lib, name, argtypes):
    fn = getattr(lib, name)
    fn.argtypes = argtypes
    fn.restype = ctypes.c_int
    return fn


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--moe-lib", required=True)
    p.add_argument("--fp8-lib", required=True)
    p.add_argument("--gemm-lib", required=True)
    p.add_argument("--out", default="moe.md")
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--batches", type=int, default=7)
    args = p.parse_args()
    moe, fp8, gemm = (ctypes.CDLL(os.path.abspath(x)) for x in (args.moe_lib, args.fp8_lib, args.gemm_lib))
    P, I, F = ctypes.c_void_p, ctypes.c_int32, ctypes.c_float
    moe_args = [P, I, P, I, I, I, P, I, I, I, I, I, P, I, F, P]
    kmoe = {"f8e4m3": bind(moe, "kcc_moe_gemm_f8e4m3_128_128_128", moe_args),
            "bf16": bind(moe, "kcc_moe_gemm_bf16_128_128_64", moe_args)}
    # The inspector (tile table) and the GEMM over its tiles.
    inspect = bind(moe, "kcc_moe_tiles", [P, P, P, P, I, I, P])
    tiles_args = [P, I, P, I, I, I, P, I, I, I, I, I, P, P, P, I, F, P]
    ktiles = {"f8e4m3": bind(moe, "kcc_moe_gemm_tiles_f8e4m3_128_128_128", tiles_args),
              "bf16": bind(moe, "kcc_moe_gemm_tiles_bf16_128_128_64", tiles_args)}
    t4 = [P, I, I, I]
    dense_fp8 = bind(fp8, "kcc_fp8_gemm_128_128_128", t4 * 3 + [P, P, P])
    dense_bf16 = bind(gemm, "kcc_gemm_nt_bf16_bf16_128_128_64", t4 * 3 + [P])
    err = moe.kcc_last_error_message
    err.restype = ctypes.c_char_p
    stream = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
    grouped = getattr(torch, "_grouped_mm", None)

    dev = torch.cuda.get_device_name()
    lines = [f"# Grouped GEMM over ragged groups (MoE): kcc vs torch, {dev}", "",
             f"torch {torch.__version__}; random top-k routing; c = x_g @ w_g^T * scale, bf16 out.", "",
             "| dtype | experts, rows, K, N | empty / max group | kcc moe TFLOP/s | kcc dense (same work) | "
             "moe / dense | torch loop | torch._grouped_mm | check | kcc inspector + tiles TFLOP/s (/ dense) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    failed = False

    class R:
        notes = []
    for (G, tokens, topk, K, N) in CASES:
        offs = routing(G, tokens, topk, seed=G + tokens)
        T = int(offs[-1])
        sizes = (offs[1:] - offs[:-1]).tolist()
        g = torch.Generator(device="cuda").manual_seed(1)
        x32 = torch.randn(T, K, device="cuda", generator=g)
        w32 = torch.randn(G, N, K, device="cuda", generator=g) * 0.05
        for dt in ("f8e4m3", "bf16"):
            tdt = E4M3 if dt == "f8e4m3" else torch.bfloat16
            x, w = x32.to(tdt), w32.to(tdt)
            scale = 0.5
            c = torch.full((T, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            fn = kmoe[dt]
            call = lambda: fn(c.data_ptr(), c.stride(0), x.data_ptr(), T, K, x.stride(0),  # noqa: E731
                              w.data_ptr(), G, N, K, w.stride(0), w.stride(1), offs.data_ptr(), G, scale, stream())
            st = call()
            torch.cuda.synchronize()
            bad, maxerr = 0, 0.0
            for e in range(G):
                a, b = int(offs[e]), int(offs[e + 1])
                if a == b:
                    continue
                ref = (x[a:b].float() @ w[e].float().t()) * scale
                d = (c[a:b].float() - ref).abs()
                tol = 2.0 ** -7 * ref.abs() + 2.0 ** -7 * ref.abs().max() + 1e-3
                bad += int((d > tol).sum()) + int((~torch.isfinite(c[a:b])).sum())
                maxerr = max(maxerr, float(d.max()))
            ok = st == 0 and bad == 0
            failed |= not ok
            check = f"{'PASS' if ok else 'FAIL'} (max |err| {maxerr:.3g}, status {st}{'' if st == 0 else ': ' + err().decode()})"
            print(f"{dt} G={G} T={T} K={K} N={N}: {check}", flush=True)

            # the same total work, dense
            cd = torch.empty(T, N, device="cuda", dtype=torch.bfloat16)
            wd = w[0]
            sa = torch.tensor([scale], device="cuda")
            sb = torch.tensor([1.0], device="cuda")
            if dt == "f8e4m3":
                dense = lambda: dense_fp8(cd.data_ptr(), T, N, cd.stride(0), x.data_ptr(), T, K, x.stride(0),  # noqa
                                          wd.data_ptr(), N, K, wd.stride(0), sa.data_ptr(), sb.data_ptr(), stream())
            else:
                dense = lambda: dense_bf16(cd.data_ptr(), T, N, cd.stride(0), x.data_ptr(), T, K, x.stride(0),  # noqa
                                           wd.data_ptr(), N, K, wd.stride(0), stream())
            outs = [torch.empty(b - a, N, device="cuda", dtype=torch.bfloat16)
                    for a, b in zip(offs[:-1].tolist(), offs[1:].tolist())]

            def loop():
                for e in range(G):
                    a, b = int(offs_host[e]), int(offs_host[e + 1])
                    if a == b:
                        continue
                    if dt == "f8e4m3" and (b - a) % 16 == 0:
                        outs[e].copy_(torch._scaled_mm(x[a:b], w[e].t(), scale_a=sa, scale_b=sb,
                                                       out_dtype=torch.bfloat16, use_fast_accum=True))
                    elif dt == "f8e4m3":
                        torch.mm(x[a:b].to(torch.bfloat16), w[e].t().to(torch.bfloat16), out=outs[e])
                    else:
                        torch.mm(x[a:b], w[e].t(), out=outs[e])
            offs_host = offs.tolist()
            ntiles = (T + 127) // 128 + G
            tg, tr, te = (torch.empty(ntiles, dtype=torch.int32, device="cuda") for _ in range(3))
            fn2 = ktiles[dt]

            def two_launches():
                st1 = inspect(tg.data_ptr(), tr.data_ptr(), te.data_ptr(), offs.data_ptr(), G, ntiles, stream())
                st2 = fn2(c2.data_ptr(), c2.stride(0), x.data_ptr(), T, K, x.stride(0), w.data_ptr(), G, N, K,
                          w.stride(0), w.stride(1), tg.data_ptr(), tr.data_ptr(), te.data_ptr(), G, scale, stream())
                return st1 or st2
            c2 = torch.full((T, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            st2 = two_launches()
            torch.cuda.synchronize()
            same = bool(torch.equal(c2, c)) and st2 == 0
            failed |= not same
            sides = {"moe": call, "dense": dense, "loop": loop, "tiles": two_launches}
            if grouped is not None and dt == "bf16":
                sides["grouped"] = lambda: grouped(x, w.transpose(1, 2), offs=offs[1:].contiguous(),
                                                   out_dtype=torch.bfloat16)
            try:
                best, mode = time_sides(sides, "graph", args.passes, args.batches, R)
            except Exception as e:  # a side torch cannot run here
                sides.pop("grouped", None)
                print(f"  note: {type(e).__name__}: {str(e).splitlines()[0]}; timing without torch._grouped_mm")
                best, mode = time_sides(sides, "graph", args.passes, args.batches, R)
            fl = 2.0 * T * N * K
            tf = {k: fl / v / 1e9 for k, v in best.items()}
            empty = sum(1 for s in sizes if s == 0)
            lines.append(f"| {dt} | {G}, {T}, {K}, {N} | {empty} / {max(sizes)} | {tf['moe']:.0f} | {tf['dense']:.0f} | "
                         f"{tf['moe'] / tf['dense']:.2f} | {tf['loop']:.0f} | "
                         f"{tf['grouped']:.0f} |" if "grouped" in tf else
                         f"| {dt} | {G}, {T}, {K}, {N} | {empty} / {max(sizes)} | {tf['moe']:.0f} | {tf['dense']:.0f} | "
                         f"{tf['moe'] / tf['dense']:.2f} | {tf['loop']:.0f} | n/a |")
            lines[-1] += (f" {check} | {tf['tiles']:.0f} ({tf['tiles'] / tf['dense']:.2f})"
                          f"{'' if same else ' FAIL: differs from the scan kernel'} |")
            print(lines[-1], flush=True)
    open(args.out, "w").write("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
