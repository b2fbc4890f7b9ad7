#!/usr/bin/env python3
"""FP8 GEMM and quantization: kcc (bench/gemm/fp8_gemm.kc) vs torch on one GPU.

bench/gemm/CMakeLists.txt built with -DKCC_GEMM_STEM=fp8_gemm gives
libkcc_gemm.so with the stubs' C entry points:

    kcc_fp8_gemm_<BM>_<BN>_<BK>(c, .., a, .., bt, .., scale_a, scale_b, stream)
        c[M,N] (bf16) = (a[M,K] (e4m3) @ bt[N,K]^T (e4m3)) * scale_a * scale_b
    kcc_fp8_gemm_mix_128_128_128(...)   a e5m2, bt e4m3
    kcc_quantize_fp8_<T>_1024(y, x, scale, n, stream)   y = satfinite(x / scale)

The peer is torch._scaled_mm (cuBLASLt) with the same per-tensor scales (f32
device scalars), out_dtype bf16, in the same process on the same card.

Checks (every timed shape, plus shapes that are not tile multiples and one
whose row stride breaks the tensor contract, which runs kcc's fallback build):
kcc against a float64 reference of the same fp8 inputs (|err| <= 2^-7 |ref|
+ 2^-7 max|ref|: one bf16 rounding and f32 sums in another order) and
against torch._scaled_mm. Quantization: the bytes kcc writes are the bytes
torch's conversion writes for x / scale clamped to +-448 (round to nearest
even), for random values, ties, saturating values and infinities; a NaN
stays a NaN.

Timing: kcc (each compiled tile; the fastest is reported) and torch
interleaved, each the best of --passes medians of CUDA-graph-replayed
batches (bench/gemm/run_gemm.py's time_sides). TFLOP/s = 2*M*N*K / t.

    python3 bench/gemm/run_fp8.py --lib /tmp/kcc-fp8/libkcc_gemm.so --out fp8.md
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_gemm import time_sides  # noqa: E402

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2

# (M, N, K): squares, then Llama-3 8B / 70B linear layers at prefill sizes,
# then decode sizes (few tokens: kcc's split-K builds run there).
SHAPES = [
    (4096, 4096, 4096), (8192, 8192, 8192),
    (4096, 14336, 4096), (4096, 4096, 14336),
    (16384, 4096, 4096), (16384, 14336, 4096), (16384, 4096, 14336),
    (8192, 28672, 8192), (8192, 8192, 28672),
    (64, 14336, 4096), (64, 4096, 14336), (256, 8192, 8192), (16, 28672, 8192),
]
CHECK_ONLY = [(127, 255, 80), (1000, 1000, 1008), (1, 64, 16)]


class Gemm:
    def __init__(self, lib, name):
        self.name = name
        self.fn = getattr(lib, "kcc_" + name)
        t = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]
        self.fn.argtypes = t * 3 + [ctypes.c_void_p] * 3
        self.fn.restype = ctypes.c_int
        self.err = lib.kcc_last_error_message
        self.err.restype = ctypes.c_char_p

    def __call__(self, c, a, bt, sa, sb):
        stream = torch.cuda.current_stream().cuda_stream
        st = self.fn(c.data_ptr(), c.shape[0], c.shape[1], c.stride(0),
                     a.data_ptr(), a.shape[0], a.shape[1], a.stride(0),
                     bt.data_ptr(), bt.shape[0], bt.shape[1], bt.stride(0),
                     sa.data_ptr(), sb.data_ptr(), stream)
        if st != 0:
            raise RuntimeError(f"{self.name}: {self.err().decode()}")


def symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True,
                         text=True, check=True).stdout
    return sorted({l.split()[-1] for l in out.splitlines()})


def operands(m, n, k, seed, a_type=E4M3, pad=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a32 = torch.randn(m, k + pad, device="cuda", generator=g) * 2
    b32 = torch.randn(n, k, device="cuda", generator=g) * 2
    a = a32.to(a_type)[:, :k]
    bt = b32.to(E4M3)
    sa = torch.tensor([0.75], device="cuda")
    sb = torch.tensor([0.03125], device="cuda")
    return a, bt, sa, sb


def reference(a, bt, sa, sb):
    return (a.double() @ bt.double().t()) * (sa.double() * sb.double())


def check(name, got, ref, peer=None):
    """kcc's error against float64: within one bf16 rounding plus f32 sums
    in another order, or (long K) within 1.25x the error of cuBLASLt's
    fast-accumulation kernel on the same inputs: Hopper's fp8 tensor cores
    keep fewer than f32's bits while accumulating (DeepSeek-V3 measured
    about 14), which both kernels share."""
    tol = 2.0 ** -7
    err = (got.double() - ref).abs()
    bound = tol * ref.abs() + tol * ref.abs().max()
    bad = int((err > bound).sum()) + int((~torch.isfinite(got)).sum())
    why = f"max |err| {err.max().item():.3g} (max |ref| {ref.abs().max().item():.3g}), {bad} outside"
    if bad and peer is not None and bool(torch.isfinite(got).all()):
        peer_err = (peer.double() - ref).abs().max().item()
        why += f"; cuBLASLt fast-accum max |err| {peer_err:.3g}"
        return err.max().item() <= 1.25 * peer_err, why
    return bad == 0, why


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True)
    p.add_argument("--out", default="fp8.md")
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--batches", type=int, default=9)
    p.add_argument("--shapes", default="", help="MxNxK,... (default: the built-in list)")
    p.add_argument("--check-only", action="store_true")
    p.add_argument("--compare-lib", action="append", default=[], metavar="LABEL=PATH",
                   help="another build of fp8_gemm.kc (e.g. persistent=...): its tiles are timed too, "
                        "named LABEL:tile")
    args = p.parse_args()
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    names = [s[len("kcc_"):] for s in symbols(args.lib)]
    # fp8_gemm_auto: the plain launch function that picks its tile by the
    # call's sizes (no tile named), timed beside the named tiles.
    tiles = [Gemm(lib, n) for n in names if re.fullmatch(r"fp8_gemm_(\d+_\d+_\d+|auto)", n)]
    for spec in args.compare_lib:
        label, path = spec.split("=", 1)
        other = ctypes.CDLL(os.path.abspath(path))
        for n in symbols(path):
            if re.fullmatch(r"kcc_fp8_gemm_(\d+_\d+_\d+|auto)", n):
                g = Gemm(other, n[len("kcc_"):])
                g.name = f"{label}:{g.name}"
                tiles.append(g)
    blocks = [n for n in names if n == "fp8_gemm_block"]

    def block_ptr_of(l, syms):  # scales through pointers, warp-specialized
        if "fp8_gemm_block_ptr" not in syms:
            return None
        f = getattr(l, "kcc_fp8_gemm_block_ptr")
        t = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]
        f.argtypes = t * 3 + [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p]
        f.restype = ctypes.c_int
        return f
    block_ptr = block_ptr_of(lib, names)
    # The compare libraries' block-scaled kernels are timed beside this one's.
    other_block_ptrs = {}
    for spec in args.compare_lib:
        label, path = spec.split("=", 1)
        f = block_ptr_of(ctypes.CDLL(os.path.abspath(path)), [s[len("kcc_"):] for s in symbols(path)])
        if f is not None:
            other_block_ptrs[label] = f
    mix = [Gemm(lib, n) for n in names if re.fullmatch(r"fp8_gemm_mix(_\d+_\d+_\d+)?", n)]
    if not tiles:
        sys.exit(f"no kcc_fp8_gemm_* in {args.lib}")
    shapes = SHAPES if not args.shapes else [tuple(map(int, s.split("x"))) for s in args.shapes.split(",")]
    dev = torch.cuda.get_device_name()
    lines = [f"# FP8 GEMM: kcc vs torch._scaled_mm (cuBLASLt), {dev}", "",
             f"torch {torch.__version__}, CUDA {torch.version.cuda}; e4m3 x e4m3, per-tensor scales, bf16 out.", ""]
    failed = False

    # --- correctness
    lines += ["## Checks", "", "| kernel | M x N x K | vs float64 | vs torch._scaled_mm |", "|---|---|---|---|"]
    for (m, n, k) in CHECK_ONLY + shapes:
        # A row stride of k + 8 bytes, not a multiple of 16: the fallback build.
        pad = 8 if (m, n, k) == (1000, 1000, 1008) else 0
        a, bt, sa, sb = operands(m, n, k, seed=m + n + k, pad=pad)
        ref = reference(a, bt, sa, sb)
        peer = fast = None
        if pad == 0 and m % 16 == 0 and n % 16 == 0 and k % 16 == 0:
            peer = torch._scaled_mm(a, bt.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
            fast = torch._scaled_mm(a, bt.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                                    use_fast_accum=True)
        for g in tiles + ([mix[0]] if mix and (m, n, k) in CHECK_ONLY else []):
            aa = a
            if g in mix:
                aa = a.float().to(E5M2)
                r = reference(aa, bt, sa, sb)
            else:
                r = ref
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            try:
                g(c, aa, bt, sa, sb)
                torch.cuda.synchronize()
                ok, why = check(g.name, c, r, None if g in mix else fast)
                vs = "n/a"
                if peer is not None and g not in mix:
                    d = (c.float() - peer.float()).abs().max().item()
                    vs = f"max |diff| {d:.3g}"
            except RuntimeError as e:
                ok, why, vs = False, str(e), "n/a"
            failed |= not ok
            lines.append(f"| {g.name} | {m}x{n}x{k}{' (stride %d)' % a.stride(0) if pad else ''} | "
                         f"{'PASS' if ok else 'FAIL'}: {why} | {vs} |")
            print(lines[-1], flush=True)
            if (m, n, k) not in CHECK_ONLY:
                break  # timed shapes: one tile checked here, all timed below

    # --- block scales (1 x 128 activations, 128 x 128 weights)
    block = None
    if blocks:
        block = getattr(lib, "kcc_fp8_gemm_block")
        t = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]
        block.argtypes = t * 4 + [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p]
        block.restype = ctypes.c_int
        lines += ["", "## Block scales (fp8_gemm_block: 1x128 activation, 128x128 weight scales)", "",
                  "| M x N x K | vs float64 |", "|---|---|"]
        for (m, n, k) in [(127, 255, 336), (256, 512, 1024)] + shapes[:2]:
            a, bt, _, _ = operands(m, n, k, seed=3)
            kb, nb = (k + 127) // 128, (n + 127) // 128
            g = torch.Generator(device="cuda").manual_seed(5)
            sat = torch.rand(kb, m, device="cuda", generator=g) + 0.25
            sbm = torch.rand(nb, kb, device="cuda", generator=g) + 0.25
            if m % 4:  # rows of sat padded to 16 bytes (the tensor contract)
                sat = torch.nn.functional.pad(sat, (0, 4 - m % 4))[:, :m]
            ref = torch.zeros(m, n, dtype=torch.float64, device="cuda")
            for j in range(kb):
                ks = slice(128 * j, min(k, 128 * (j + 1)))
                part = a[:, ks].double() @ bt[:, ks].double().t()
                colscale = sbm[:, j].double().repeat_interleave(128)[:n]
                ref += part * sat[j].double()[:, None] * colscale[None, :]
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            st = block(c.data_ptr(), m, n, c.stride(0), a.data_ptr(), m, k, a.stride(0),
                       bt.data_ptr(), n, k, bt.stride(0), sat.data_ptr(), kb, m, sat.stride(0),
                       sbm.data_ptr(), kb, torch.cuda.current_stream().cuda_stream)
            torch.cuda.synchronize()
            ok, why = check("block", c, ref)
            ok = ok and st == 0
            if block_ptr is not None:  # the same scales, row-major [M, K/128]
                sa_rm = sat.t().contiguous()
                c2 = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                st2 = block_ptr(c2.data_ptr(), m, n, c2.stride(0), a.data_ptr(), m, k, a.stride(0),
                                bt.data_ptr(), n, k, bt.stride(0), sa_rm.data_ptr(), kb, sbm.data_ptr(), kb,
                                torch.cuda.current_stream().cuda_stream)
                torch.cuda.synchronize()
                ok2, why2 = check("block_ptr", c2, ref)
                ok = ok and ok2 and st2 == 0
                why += f"; block_ptr: {why2} (status {st2})"
            failed |= not ok
            lines.append(f"| {m}x{n}x{k} | {'PASS' if ok else 'FAIL'}: {why} (status {st}) |")
            print(lines[-1], flush=True)

    # --- quantization bit-exactness
    qnames = [n for n in names if n.startswith("quantize_fp8_")]
    lines += ["", "## Quantization (bytes vs torch)", ""]
    for qn in qnames:
        fn = getattr(lib, "kcc_" + qn)
        fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int32, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        dt = torch.float32 if "_f32_" in qn else torch.bfloat16
        g = torch.Generator(device="cuda").manual_seed(7)
        x = torch.randn(1 << 20, device="cuda", generator=g) * 400
        # ties of e4m3 at scale 1: midpoints between neighbours, and specials
        grid = torch.arange(0, 256, dtype=torch.uint8, device="cuda").view(E4M3).float()
        grid = grid[torch.isfinite(grid)].sort().values
        mids = (grid[1:] + grid[:-1]) / 2
        special = torch.tensor([float("inf"), -float("inf"), 448.0, 464.0, 480.0, 1e30, -1e-30, 0.0, -0.0,
                                2.0 ** -10, 3 * 2.0 ** -11, float("nan")], device="cuda")
        x = torch.cat([x, grid, -grid, mids, -mids, special]).to(dt)
        scale = torch.tensor([1.0], device="cuda")
        y = torch.empty(x.numel(), device="cuda", dtype=torch.uint8)
        st = fn(y.data_ptr(), x.data_ptr(), scale.data_ptr(), x.numel(), torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        want = (x.float() / scale).clamp(-448, 448).to(E4M3).view(torch.uint8)
        nan = torch.isnan(x.float())
        same = (y == want) | (nan & ((y & 0x7F) == 0x7F))
        bad = int((~same).sum())
        failed |= bad != 0 or st != 0
        lines.append(f"- {qn}: {x.numel()} values, {bad} bytes differ from torch "
                     f"(status {st}){' PASS' if bad == 0 and st == 0 else ' FAIL'}")
        print(lines[-1], flush=True)

    if args.check_only:
        open(args.out, "w").write("\n".join(lines) + "\n")
        return 1 if failed else 0

    # --- timing
    class R:
        notes = []
    lines += ["", "## Performance", "",
              "| M x N x K | kcc build:tile | kcc TFLOP/s | _scaled_mm fast_accum TFLOP/s | _scaled_mm TFLOP/s "
              "| kcc / fast_accum | kcc block-scaled TFLOP/s (/ fast_accum) | no tile named: auto / fast_accum "
              "| every kcc build |",
              "|---|---|---|---|---|---|---|---|---|"]
    ratios, auto_ratios = [], []
    for (m, n, k) in shapes:
        a, bt, sa, sb = operands(m, n, k, seed=1)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        sides = {g.name: (lambda g=g: g(c, a, bt, sa, sb)) for g in tiles}
        # use_fast_accum=True accumulates in the tensor core's accumulator
        # across K, as kcc's kernel does; False promotes partial sums (slower,
        # more accurate: the block-scaled form's numerics).
        sides["torch"] = lambda: torch._scaled_mm(a, bt.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                                                  use_fast_accum=True)
        sides["torch_slow"] = lambda: torch._scaled_mm(a, bt.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        if block is not None and m % 128 == 0 and n % 128 == 0 and k % 128 == 0:
            kb = k // 128
            sat = torch.ones(kb, m, device="cuda")
            sbm = torch.ones(n // 128, kb, device="cuda")
            sides["block"] = lambda: block(c.data_ptr(), m, n, c.stride(0), a.data_ptr(), m, k, a.stride(0),
                                           bt.data_ptr(), n, k, bt.stride(0), sat.data_ptr(), kb, m,
                                           sat.stride(0), sbm.data_ptr(), kb,
                                           torch.cuda.current_stream().cuda_stream)
        if block_ptr is not None and m % 128 == 0 and n % 128 == 0 and k % 128 == 0:
            kb = k // 128
            sa_rm = torch.ones(m, kb, device="cuda")
            sbp = torch.ones(n // 128, kb, device="cuda")
            sides["block_ptr"] = lambda: block_ptr(c.data_ptr(), m, n, c.stride(0), a.data_ptr(), m, k, a.stride(0),
                                                   bt.data_ptr(), n, k, bt.stride(0), sa_rm.data_ptr(), kb,
                                                   sbp.data_ptr(), kb, torch.cuda.current_stream().cuda_stream)
            for label, f in other_block_ptrs.items():
                sides[f"{label}:block_ptr"] = lambda f=f: f(
                    c.data_ptr(), m, n, c.stride(0), a.data_ptr(), m, k, a.stride(0), bt.data_ptr(), n, k,
                    bt.stride(0), sa_rm.data_ptr(), kb, sbp.data_ptr(), kb, torch.cuda.current_stream().cuda_stream)
        best, mode = time_sides(sides, "graph", args.passes, args.batches, R)
        fl = 2.0 * m * n * k
        kname = min((g.name for g in tiles), key=lambda x: best[x])
        kt, tt = fl / best[kname] / 1e9, fl / best["torch"] / 1e9
        ts = fl / best["torch_slow"] / 1e9
        bt_ = fl / best["block"] / 1e9 if "block" in best else None
        ratios.append(kt / tt)
        auto = fl / best["fp8_gemm_auto"] / 1e9 / tt if "fp8_gemm_auto" in best else None
        if auto:
            auto_ratios.append(auto)
        per_build = ", ".join(f"{n.replace('fp8_gemm_', '')} {fl / best[n] / 1e9:.0f}" for n in sorted(best)
                              if n not in ("torch", "torch_slow", "block") and not n.endswith("block_ptr"))
        for side in sorted(x for x in best if x.endswith("block_ptr")):
            label = side[:-len("block_ptr")]
            per_build += f"; {label}block-scaled through pointers {fl / best[side] / 1e9:.0f} " \
                         f"({fl / best[side] / 1e9 / tt:.2f})"
        lines.append(f"| {m}x{n}x{k} | {kname.replace('fp8_gemm_', '')} | {kt:.0f} | {tt:.0f} | {ts:.0f} | "
                     f"{kt / tt:.2f} | {f'{bt_:.0f} ({bt_ / tt:.2f})' if bt_ else 'n/a'} | "
                     f"{f'{auto:.2f}' if auto else 'n/a'} | {per_build} |")
        print(lines[-1], flush=True)
    geo = 1.0
    for r in ratios:
        geo *= r
    geo **= 1.0 / len(ratios)
    lines += ["", f"Geomean kcc / torch._scaled_mm: {geo:.2f} over {len(ratios)} shapes."]
    if auto_ratios:
        ga = 1.0
        for r in auto_ratios:
            ga *= r
        ga **= 1.0 / len(auto_ratios)
        lines.append(f"Geomean fp8_gemm_auto (no tile named) / torch._scaled_mm: {ga:.2f} over "
                     f"{len(auto_ratios)} shapes.")
    open(args.out, "w").write("\n".join(lines) + "\n")
    print(lines[-1])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
