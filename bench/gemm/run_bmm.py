#!/usr/bin/env python3
"""kcc's batched GEMM kernels: correctness against an fp32 torch.bmm, and
TFLOP/s against cuBLAS (torch.bmm) and a batched Triton matmul, in one process.

The kernels are gemm_batched and gemm_batched_nt of bench/gemm/gemm.kc, in the
same libkcc_gemm.so as run_gemm.py's (bench/gemm/CMakeLists.txt):

    kcc_gemm_batched_<T>_<O>_<BM>_<BN>_<BK>(c, a, b)      c[B,M,N] = a[B,M,K] @ b[B,K,N]
    kcc_gemm_batched_nt_<T>_<O>_<BM>_<BN>_<BK>(c, a, bt)  c[B,M,N] = a[B,M,K] @ bt[B,N,K]^T

each tensor passed as (pointer, dim0, dim1, dim2, stride0, stride1).

Checks: A ~ N(0, 1), B ~ N(0, 1) / sqrt(K), rounded to T; the reference is
torch.bmm of the rounded inputs in fp32 (TF32 off); pass when |kcc - ref| <=
atol + rtol |ref| everywhere (run_gemm.py's tolerances). Every tensor lives in
a NaN-filled buffer with rows padded to 16 bytes and one guard row per
matrix, so a read outside an operand poisons C and a write outside C breaks a
sentinel. Layouts checked: padded (every shape), an A shared by every matrix
(batch stride 0, torch's expand), and an empty batch (nothing launched,
nothing written).

Timing: kcc (each tile), torch.bmm into a preallocated output and Triton's
batched matmul (bench/gemm/triton_matmul.py), interleaved, CUDA-graph
replays, the best of --passes passes of the median of --batches batches
(run_gemm.py's time_sides). TFLOP/s = 2*B*M*N*K / t. Exit status 1 when a kcc
check fails or a kcc call errs, 2 when the library has no batched kernel.

    python3 bench/gemm/run_bmm.py --lib /tmp/kcc-gemm-build/libkcc_gemm.so --out bmm.md
"""
import argparse
import ctypes
import math
import os
import re
import sys
import traceback

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_gemm import DT, KccGemm, compare, dynamic_symbols, fmt, time_sides, tolerances  # noqa: E402

SYMBOL = re.compile(r"^kcc_(gemm_batched|gemm_batched_nt)_(f16|bf16)_(f16|bf16|f32)_(\d+)_(\d+)_(\d+)$")
VARIANT = {"gemm_batched": "nn", "gemm_batched_nt": "nt"}

# (B, M, N, K): checked only.
CHECK_SHAPES = [(3, 127, 255, 65), (2, 1, 1, 1), (4, 256, 256, 200), (2, 1000, 1000, 1000),
                (5, 130, 260, 520), (1, 128, 128, 64), (7, 64, 136, 8)]
# Timed (and checked): square batches from launch-bound to compute-bound, and
# attention's q @ k^T (NT, K = head dimension 64 / 128).
TIMED = [("nn", (64, 512, 512, 512)), ("nn", (16, 1024, 1024, 1024)),
         ("nn", (8, 2048, 2048, 2048)), ("nn", (4, 4096, 4096, 4096)),
         ("nt", (32, 2048, 2048, 128)), ("nt", (64, 1024, 1024, 64))]


class KccBmm(KccGemm):
    """One C entry point; each tensor is (pointer, dim0, dim1, dim2, stride0, stride1)."""

    def __init__(self, lib, symbol, variant, t, o, tile):
        super().__init__(lib, symbol, variant, t, o, tile)
        self.fn.argtypes = ([ctypes.c_void_p] + [ctypes.c_int32] * 5) * 3 + [ctypes.c_void_p]

    @staticmethod
    def _tensor(x):
        assert x.dim() == 3 and (x.stride(2) == 1 or x.numel() == 0), x.stride()
        return [x.data_ptr(), *x.shape, x.stride(0), x.stride(1)]


def discover(lib, path):
    names, note = dynamic_symbols(path)
    if note:
        print(f"note: {note}")
    found = {}
    for name in sorted(names):
        m = SYMBOL.match(name)
        if m and hasattr(lib, name):
            key = (VARIANT[m.group(1)], m.group(2), m.group(3))
            tile = tuple(int(m.group(i)) for i in (4, 5, 6))
            found.setdefault(key, []).append(KccBmm(lib, name, *key, tile))
    return found


def guarded3(batch, rows, cols, dtype):
    """A [batch, rows, cols] view of a NaN buffer: rows padded to 16 bytes,
    one guard row after each matrix; returns (view, buffer)."""
    per16 = 16 // torch.empty((), dtype=dtype).element_size()
    ld = max(per16, -(-cols // per16) * per16)
    buf = torch.full((batch, rows + 1, ld), float("nan"), dtype=dtype, device="cuda")
    return buf[:, :rows, :cols], buf


def sentinels_intact(view, buf):
    _, rows, cols = view.shape
    return bool(torch.isnan(buf[:, rows:, :]).all()) and bool(torch.isnan(buf[:, :rows, cols:]).all())


def make_operands(variant, t, shape, layout, seed):
    """kcc's stored operands (x, y), torch's logical (a, b) and the reference."""
    B, M, N, K = shape
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((1 if layout == "broadcast" else B, M, K), generator=g, device="cuda").to(DT[t])
    b = (torch.randn((B, K, N), generator=g, device="cuda") / math.sqrt(max(K, 1))).to(DT[t])
    if layout == "broadcast":
        base, _ = guarded3(1, M, K, DT[t])
        base.copy_(a)
        x = base.expand(B, M, K)  # batch stride 0
    else:
        x, _ = guarded3(B, M, K, DT[t])
        x.copy_(a)
    if variant == "nn":
        y, _ = guarded3(B, K, N, DT[t])
        y.copy_(b)
        yl = y
    else:
        y, _ = guarded3(B, N, K, DT[t])
        y.copy_(b.transpose(1, 2))
        yl = y.transpose(1, 2)
    ref = torch.bmm(x.float(), yl.float()) if B else torch.empty((0, M, N), device="cuda")
    return x, y, yl, ref


def check(kern, shape, layout, args, records):
    B, M, N, K = shape
    rtol, atol = tolerances(K, args.rtol, args.atol)
    x, y, _, ref = make_operands(kern.variant, kern.t, shape, layout, args.seed)
    c, cbuf = guarded3(B, M, N, DT[kern.o])
    rec = {"kind": "check", "kernel": kern.name, "variant": kern.variant, "T": kern.t, "O": kern.o,
           "shape": "x".join(map(str, shape)), "layout": layout, "atol": atol}
    try:
        kern(c, x, y)
        torch.cuda.synchronize()
        max_abs, max_rel, worst = compare(c, ref, rtol, atol)
        intact = sentinels_intact(c, cbuf)
        rec.update(max_abs=max_abs, max_rel=max_rel, worst=worst, sentinels=intact,
                   ok=intact and (B == 0 or (not math.isnan(worst) and worst <= 1.0)))
    except RuntimeError as e:  # KccError: the stub's status and message
        rec.update(ok=False, error=str(e))
    records.append(rec)
    print(rec, flush=True)
    return rec["ok"]


def time_case(kernels, variant, t, shape, args, triton_bmm, notes):
    B, M, N, K = shape
    x, y, yl, _ = make_operands(variant, t, shape, "padded", args.seed)
    sides = {}
    outs = {}
    for kern in kernels:
        c = torch.empty((B, M, N), dtype=DT[t], device="cuda")
        outs[kern.name] = c
        sides[kern.name] = (lambda k=kern, c=c: k(c, x, y))
    cb = torch.empty((B, M, N), dtype=DT[t], device="cuda")
    sides["cublas"] = lambda: torch.bmm(x, yl, out=cb)
    if triton_bmm:
        ct = torch.empty((B, M, N), dtype=DT[t], device="cuda")
        sides["triton"] = lambda: triton_bmm(x, yl, ct)

    class _Notes:
        pass
    holder = _Notes()
    holder.notes = notes
    best, mode = time_sides(sides, args.timing, args.passes, args.batches, holder)
    flops = 2.0 * B * M * N * K
    tf = {k: flops / (ms * 1e-3) / 1e12 for k, ms in best.items()}
    mine = [k.name for k in kernels if "@" not in k.name]
    other = [k.name for k in kernels if "@" in k.name]
    kname = max(mine, key=lambda n: tf[n])
    oname = max(other, key=lambda n: tf[n]) if other else None
    return {"kind": "perf", "variant": variant, "T": t, "O": t, "shape": "x".join(map(str, shape)),
            "kcc_kernel": kname, "kcc_tflops": tf[kname], "cublas_tflops": tf["cublas"],
            "other_kernel": oname, "other_tflops": tf[oname] if oname else None,
            "triton_tflops": tf.get("triton"), "timing": mode,
            "all_kcc": {k.name: tf[k.name] for k in kernels}}


def markdown(checks, perf, notes, label=None):
    lines = ["## kcc batched GEMM (gemm_batched, gemm_batched_nt)", "",
             f"Device: {torch.cuda.get_device_name()}, torch {torch.__version__}", "",
             "### Correctness", "",
             "| kernel | BxMxNxK | layout | max abs err | worst err / tol | sentinels | result |",
             "|---|---|---|---:|---:|---|---|"]
    for r in checks:
        result = "ok" if r["ok"] else f"**FAIL** {r.get('error', '')}"
        lines.append(f"| {r['kernel']} | {r['shape']} | {r['layout']} | {fmt(r.get('max_abs'))} | "
                     f"{fmt(r.get('worst'), '.3f')} | {r.get('sentinels', 'n/a')} | {result} |")
    if perf:
        extra_head = f" kcc@{label} kernel | kcc@{label} | kcc@{label} / cuBLAS |" if label else ""
        extra_rule = "---|---:|---:|" if label else ""
        lines += ["", "### Performance (TFLOP/s = 2*B*M*N*K / t)", "",
                  "| variant | T | BxMxNxK | kcc kernel | kcc | cuBLAS (torch.bmm) | Triton | kcc / cuBLAS | "
                  "Triton / cuBLAS |" + extra_head,
                  "|---|---|---|---|---:|---:|---:|---:|---:|" + extra_rule]
        for r in perf:
            def ratio(v):
                return fmt(v / r["cublas_tflops"], ".2f") if v else "n/a"
            extra = ""
            if label:
                extra = (f" {r['other_kernel'] or 'n/a'} | {fmt(r['other_tflops'], '.1f')} | "
                         f"{ratio(r['other_tflops'])} |")
            lines.append(f"| {r['variant'].upper()} | {r['T']} | {r['shape']} | {r['kcc_kernel']} | "
                         f"{fmt(r['kcc_tflops'], '.1f')} | {fmt(r['cublas_tflops'], '.1f')} | "
                         f"{fmt(r['triton_tflops'], '.1f')} | {ratio(r['kcc_tflops'])} | "
                         f"{ratio(r['triton_tflops'])} |" + extra)
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def parse_bmm_shapes(text):
    try:
        shapes = [tuple(int(v) for v in s.split("x")) for s in text.split(",") if s]
    except ValueError:
        shapes = []
    if not shapes or any(len(s) != 4 or min(s) < 0 for s in shapes):
        raise argparse.ArgumentTypeError(f"expected BxMxNxK,... with sizes >= 0, got '{text}'")
    return shapes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lib", required=True)
    p.add_argument("--out")
    p.add_argument("--quick", action="store_true", help="checks only, no timing")
    p.add_argument("--timing", choices=("graph", "eager"), default="graph")
    p.add_argument("--passes", type=int, default=2)
    p.add_argument("--batches", type=int, default=15)
    p.add_argument("--rtol", type=float, default=1e-2)
    p.add_argument("--atol", type=float)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-triton", action="store_true")
    p.add_argument("--compare-lib", metavar="LABEL=PATH",
                   help="a second kcc library (e.g. compiled with --persistent), checked and timed in "
                        "the same run; its kernels are named KERNEL@LABEL and its fastest gets columns")
    p.add_argument("--check-shapes", type=parse_bmm_shapes,
                   help="BxMxNxK,... checked instead of the built-in set (e.g. grids of more "
                        "tiles than the GPU has multiprocessors, for a persistent library)")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    found = discover(lib, args.lib)
    if not found:
        print(f"no kcc_gemm_batched* function in {args.lib}")
        return 2
    label = None
    if args.compare_lib:
        label, _, path = args.compare_lib.partition("=")
        if not label or not path:
            sys.exit("--compare-lib expects LABEL=PATH")
        for key, fns in discover(ctypes.CDLL(os.path.abspath(path)), path).items():
            for fn in fns:
                fn.name += "@" + label
            if key in found:
                found[key] = found[key] + fns
    notes = []
    triton_bmm = None
    if not args.no_triton and not args.quick:
        try:
            from triton_matmul import bmm as triton_bmm
        except Exception as e:  # noqa: BLE001 - report any import failure
            notes.append(f"Triton unavailable: {type(e).__name__}: {e}")
    checks, perf = [], []
    failed = False
    for key, kernels in sorted(found.items()):
        for kern in kernels:
            shapes = [(s, "padded") for s in (args.check_shapes or CHECK_SHAPES)]
            shapes += [((3, 200, 136, 72), "broadcast"), ((0, 64, 64, 64), "padded")]
            shapes += [(s, "padded") for v, s in TIMED if v == key[0] and not args.quick]
            for shape, layout in shapes:
                failed |= not check(kern, shape, layout, args, checks)
    if not args.quick:
        for variant, shape in TIMED:
            for t in ("f16", "bf16"):
                kernels = found.get((variant, t, t))
                if not kernels:
                    continue
                try:
                    rec = time_case(kernels, variant, t, shape, args, triton_bmm, notes)
                except Exception as e:  # noqa: BLE001 - a failed side is reported, not fatal
                    traceback.print_exc()
                    notes.append(f"{variant} {t} {shape}: timing failed: {type(e).__name__}: {e}")
                    failed = True
                    continue
                perf.append(rec)
                print(rec, flush=True)
    text = markdown(checks, perf, notes, label)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    ok = sum(r["ok"] for r in checks)
    print(f"{ok}/{len(checks)} batched checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
