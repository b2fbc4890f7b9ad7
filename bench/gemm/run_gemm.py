#!/usr/bin/env python3
"""kcc's GEMM kernels: correctness against an fp32 reference, and TFLOP/s
against cuBLAS (torch.mm) and a Triton matmul, in one process on one GPU.

The kernels come from bench/gemm/gemm.kc, compiled by kcc into stubs that
bench/gemm/CMakeLists.txt builds into libkcc_gemm.so; this script calls the
stubs' C entry points through ctypes with torch's device pointers, on torch's
current stream:

    kcc_gemm_<T>_<O>_<BM>_<BN>_<BK>(c, a, b)      c[M,N] = a[M,K] @ b[K,N]      NN
    kcc_gemm_nt_<T>_<O>_<BM>_<BN>_<BK>(c, a, bt)  c[M,N] = a[M,K] @ bt[N,K]^T   NT (torch a @ w.t())
    kcc_gemm_tn_<T>_<O>_<BM>_<BN>_<BK>(c, at, b)  c[M,N] = at[K,M]^T @ b[K,N]   TN

each tensor passed as (pointer, dim0, dim1, stride0), T in {f16, bf16}, O in
{T, f32}. The functions are discovered in the library (nm -D, then ctypes
hasattr on the candidates of --tiles); every (variant, T, O) without one is
reported and skipped. Several tile specializations of one (variant, T, O) are
all checked and timed; the fastest is reported.

Correctness: A ~ N(0, 1), B ~ N(0, 1) / sqrt(K) (so C ~ N(0, 1) whatever K),
rounded to T; the reference is the product of the rounded inputs in fp32 on the
GPU (TF32 off), or in fp64 on the CPU with --ref cpu. A kcc result passes when
|kcc - ref| <= atol + rtol * |ref| everywhere (rtol 1e-2; atol 1e-3 * max(1,
sqrt(K / 1024)), since the fp32 accumulation error grows like sqrt(K)); no
NaN/Inf. Operands and C live in buffers whose rows are padded to 16 bytes
(the tensor contract) with one extra guard row, all filled with NaN outside
the tensor: a kernel that reads outside its inputs gets NaN into C, one that
writes outside C is caught by the sentinel check. Shapes that are not tile
multiples (1000^3, 127x255x65, 1x1x1, K < BK, ...) are checked, not timed.

Timing: for each timed case, kcc (every tile), torch.mm into a preallocated
output (cuBLAS; for O = f32 torch.mm(..., out_dtype=torch.float32) where this
torch has it) and the Triton matmul of bench/gemm/triton_matmul.py are run
interleaved, --passes times each (kcc, cuBLAS, Triton, kcc, ...), each side
keeping its best pass (each pass starts one side later, so that no side is
always timed first). A pass is the median of --batches CUDA-event-timed
batches of back-to-back launches, replayed from a CUDA graph (--timing graph,
the default: small GEMMs take a few microseconds, less than a Python-side
launch, so eager timing would measure the launch path) or launched eagerly
(--timing eager, or for a case where any side fails to be captured). No L2
flush: every side sees the same warm L2. TFLOP/s = 2*M*N*K / t.

Output: the correctness table and the performance table in Markdown (also
written to --out) and one JSON line per check and per timed case (stdout,
lines starting with '{', and --json, default <out>.jsonl). Exit status 1 when
any kcc check fails or any kcc call returns an error, 2 when the library has
no GEMM function at all; the tables are printed either way.

    python3 bench/gemm/run_gemm.py --lib /tmp/kcc-gemm-build/libkcc_gemm.so --out gemm.md
    python3 bench/gemm/run_gemm.py --lib ... --quick --ref cpu     # correctness only, small shapes
"""
import argparse
import ctypes
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import traceback

import torch

VARIANTS = ("nn", "nt", "tn")
PREFIX = {"nn": "gemm", "nt": "gemm_nt", "tn": "gemm_tn"}
DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# Timed shapes (M, N, K). The cubes span launch-bound to compute-bound. The
# two skinny ones:
#  - 8192 x 8192 x 512: a short K loop (8 BK=64 steps) under a large C (4096
#    128x128 tiles): pipeline fill/drain and the epilogue (C's 128-256 MiB of
#    stores) weigh as much as the MMAs; a rank-512 update (K = 512, as in
#    attention-sized or low-rank projections).
#  - 128 x 8192 x 8192: a 128-token batch through an 8192 x 8192 weight (an
#    LLM linear layer at small batch, NT being torch's x @ w.t()): only 64
#    output tiles of 128x128 for 132 SMs, so a kernel without split-K /
#    stream-K leaves half the GPU idle and is bound by streaming B (128 MiB).
TIMED_SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
                (8192, 8192, 8192), (8192, 8192, 512), (128, 8192, 8192)]
# Checked, not timed: ragged M, N and K, K below and just above BK = 64,
# single elements, an exact single tile.
EDGE_SHAPES = [(1000, 1000, 1000), (127, 255, 65), (1, 1, 1), (256, 256, 200),
               (192, 320, 8), (64, 64, 1), (128, 128, 64), (4097, 136, 520),
               (130, 260, 4100)]
QUICK_SHAPES = EDGE_SHAPES + [(1024, 1024, 1024)]

# The tile suffix is absent on the launch functions of bench/gemm/gemm_auto.kc
# (tunable tiles: the launch chooses by size).
SYMBOL = re.compile(r"^kcc_(gemm|gemm_nt|gemm_tn)_(f16|bf16)_(f16|bf16|f32)(?:_(\d+)_(\d+)_(\d+))?$")


class KccError(RuntimeError):
    pass


# ----------------------------------------------------------------------------
# The library


class KccGemm:
    """One C entry point: kcc_<name>(c, c_dim0, c_dim1, c_stride0, x, ..., y, ..., stream)."""

    def __init__(self, lib, symbol, variant, t, o, tile):
        self.symbol, self.variant, self.t, self.o, self.tile = symbol, variant, t, o, tile
        self.name = symbol[len("kcc_"):]
        self.fn = getattr(lib, symbol)
        tensor = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]
        self.fn.argtypes = tensor * 3 + [ctypes.c_void_p]
        self.fn.restype = ctypes.c_int
        self.last_error = lib.kcc_last_error_message
        self.last_error.argtypes = []
        self.last_error.restype = ctypes.c_char_p

    @staticmethod
    def _tensor(x):
        assert x.dim() == 2 and (x.stride(1) == 1 or x.numel() == 0), x.stride()
        return [x.data_ptr(), x.shape[0], x.shape[1], x.stride(0)]

    def __call__(self, c, x, y):
        stream = torch.cuda.current_stream().cuda_stream
        code = self.fn(*self._tensor(c), *self._tensor(x), *self._tensor(y), stream)
        if code != 0:
            msg = self.last_error().decode(errors="replace")
            raise KccError(f"{self.name}: status {code}: {msg}")


def dynamic_symbols(path):
    nm = shutil.which("nm")
    if not nm:
        return set(), "nm not found: only the --tiles candidates are looked up"
    proc = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True)
    if proc.returncode != 0:
        return set(), f"nm -D failed ({proc.stderr.strip()}): only the --tiles candidates are looked up"
    return {line.split()[-1].split("@")[0] for line in proc.stdout.splitlines() if line.split()}, None


def discover(lib, path, tiles, variants, dtypes, outputs, notes=None):
    notes = [] if notes is None else notes

    def note_(text):
        print(f"note: {text}")
        notes.append(text)

    names, note = dynamic_symbols(path)
    if note:
        note_(note)
    for v in VARIANTS:
        for t in DT:
            for o in DT:
                names.add(f"kcc_{PREFIX[v]}_{t}_{o}")
                for tile in tiles:
                    names.add(f"kcc_{PREFIX[v]}_{t}_{o}_{'_'.join(map(str, tile))}")
    found = {}
    for name in sorted(names):
        m = SYMBOL.match(name)
        if not m or not hasattr(lib, name):
            continue
        variant = {"gemm": "nn", "gemm_nt": "nt", "gemm_tn": "tn"}[m.group(1)]
        t, o = m.group(2), m.group(3)
        tile = tuple(int(m.group(i)) for i in (4, 5, 6)) if m.group(4) else None
        found.setdefault((variant, t, o), []).append(KccGemm(lib, name, variant, t, o, tile))
    wanted = {}
    for v in variants:
        for t in dtypes:
            for o in outputs(t):
                key = (v, t, o)
                if key in found:
                    wanted[key] = found[key]
                else:
                    note_(f"no kcc_{PREFIX[v]}_{t}_{o}_* in {path}: {v.upper()} {t}->{o} skipped")
    others = sorted(set(found) - set(wanted))
    if others:
        print("note: also in the library, not selected: " +
              ", ".join(f.name for k in others for f in found[k]))
    return wanted


# ----------------------------------------------------------------------------
# Operands


def guarded(src, device="cuda"):
    """src in a buffer with rows padded to 16 bytes and one guard row, NaN
    everywhere outside the tensor; returns (view, buffer)."""
    rows, cols = src.shape
    per16 = 16 // src.element_size()
    ld = max(per16, -(-cols // per16) * per16)
    buf = torch.full((rows + 1, ld), float("nan"), dtype=src.dtype, device=device)
    view = buf[:rows, :cols]
    view.copy_(src)
    return view, buf


def empty_guarded(rows, cols, dtype):
    per16 = 16 // torch.empty((), dtype=dtype).element_size()
    ld = max(per16, -(-cols // per16) * per16)
    buf = torch.full((rows + 1, ld), float("nan"), dtype=dtype, device="cuda")
    return buf[:rows, :cols], buf


def sentinel_intact(view, buf):
    rows, cols = view.shape
    return bool(torch.isnan(buf[rows:, :]).all()) and bool(torch.isnan(buf[:rows, cols:]).all())


def operands(variant, a, b):
    """The stored operands (x, y) of a variant for logical a[M,K], b[K,N],
    and the logical views torch / Triton multiply."""
    x = a if variant in ("nn", "nt") else a.t().contiguous()   # a[M,K] or at[K,M]
    y = b if variant in ("nn", "tn") else b.t().contiguous()   # b[K,N] or bt[N,K]
    return x, y


def logical(variant, x, y):
    return (x if variant in ("nn", "nt") else x.t()), (y if variant in ("nn", "tn") else y.t())


# ----------------------------------------------------------------------------
# Checks


def tolerances(k, rtol, atol):
    return rtol, (atol if atol is not None else 1e-3 * max(1.0, math.sqrt(k / 1024)))


def compare(out, ref, rtol, atol):
    """max abs error, max abs error / max |ref|, worst |err| / (atol + rtol |ref|)."""
    got = out.to(device=ref.device, dtype=ref.dtype)
    if got.numel() == 0:
        return 0.0, 0.0, 0.0
    err = (got - ref).abs()
    if not bool(torch.isfinite(got).all()):
        return float("nan"), float("nan"), float("nan")
    max_abs = float(err.max())
    max_rel = max_abs / max(float(ref.abs().max()), 1e-30)
    worst = float((err / (atol + rtol * ref.abs())).max())
    return max_abs, max_rel, worst


# ----------------------------------------------------------------------------
# cuBLAS (torch.mm)


def probe_out_dtype():
    """How this torch computes f16/bf16 x f16/bf16 -> f32 with cuBLAS:
    'out' (torch.mm(..., out_dtype=f32, out=c)), 'new' (no out=) or None."""
    x = torch.zeros(16, 16, dtype=torch.float16, device="cuda")
    c = torch.empty(16, 16, dtype=torch.float32, device="cuda")
    try:
        torch.mm(x, x, out_dtype=torch.float32, out=c)
        return "out"
    except (TypeError, RuntimeError):
        pass
    try:
        r = torch.mm(x, x, out_dtype=torch.float32)
        return "new" if r.dtype == torch.float32 else None
    except (TypeError, RuntimeError):
        return None


def cublas_fn(xl, yl, c, o, t, out_dtype_mode):
    """A launch of torch.mm writing c, or None where this torch cannot."""
    if o == t:
        return lambda: torch.mm(xl, yl, out=c)
    if out_dtype_mode == "out":
        return lambda: torch.mm(xl, yl, out_dtype=torch.float32, out=c)
    if out_dtype_mode == "new":
        return lambda: c.copy_(torch.mm(xl, yl, out_dtype=torch.float32))  # the copy is timed too
    return None


# ----------------------------------------------------------------------------
# Timing


def _median_ms(run, reps, batches):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(batches):
        start.record()
        run()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / reps)
    return statistics.median(samples)


class Runner:
    """`fn` made ready to time: reps launches per batch, replayed from a CUDA
    graph or launched eagerly."""

    def __init__(self, fn, mode, target_ms=2.0):
        self.fn = fn
        for _ in range(2):
            fn()  # first launches: module load, autotuning, cuBLAS heuristics
        torch.cuda.synchronize()
        est = _median_ms(fn, 1, 5)
        self.reps = max(3, min(200, int(round(target_ms / max(est, 1e-3)))))
        self.graph = None
        if mode == "graph":
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                fn()
            torch.cuda.current_stream().wait_stream(stream)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                for _ in range(self.reps):
                    fn()
            graph.replay()
            torch.cuda.synchronize()
            self.graph = graph

    def run(self):
        if self.graph is not None:
            self.graph.replay()
        else:
            for _ in range(self.reps):
                self.fn()

    def time_ms(self, batches):
        return _median_ms(self.run, self.reps, batches)


def time_sides(sides, mode, passes, batches, report):
    """{name: best median ms} over `passes` interleaved passes; the mode used."""
    runners = {}
    name = None
    try:
        for name, fn in sides.items():
            runners[name] = Runner(fn, mode)
    except Exception as e:  # a side that cannot be captured: time everything eagerly
        if mode != "graph":
            raise
        why = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        print(f"  note: CUDA graph capture of {name} failed ({why}); timing this case eagerly")
        side = "kcc" if name.startswith("gemm") else name
        note = f"CUDA graph capture failed for {side} ({why}): such cases were timed eagerly (marked 'eager')"
        if note not in report.notes:
            report.notes.append(note)
        runners.clear()
        torch.cuda.synchronize()
        mode = "eager"
        for name, fn in sides.items():
            runners[name] = Runner(fn, mode)
    best = {}
    # Each pass starts one side later: on a GPU near its power limit the
    # sides timed first in a pass run faster (measured: up to 5 % on large
    # products), so no side keeps that place.
    order = list(runners.items())
    for p in range(passes):
        for name, runner in order[p % len(order):] + order[:p % len(order)]:
            ms = runner.time_ms(batches)
            best[name] = min(best.get(name, ms), ms)
    del runners
    return best, mode


# ----------------------------------------------------------------------------
# Report


def fmt(x, spec=".2e"):
    if x is None:
        return "n/a"
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return format(x, spec)


class Report:
    def __init__(self, args):
        self.args = args
        self.checks, self.perf, self.notes = [], [], []
        self.failed = False
        self.json_lines = []
        self.bad = set()  # (kernel, shape) of failed kcc checks

    def emit(self, record):
        def clean(v):  # NaN is not JSON
            if isinstance(v, float) and math.isnan(v):
                return None
            if isinstance(v, dict):
                return {k: clean(x) for k, x in v.items()}
            return v
        line = json.dumps(clean(record))
        self.json_lines.append(line)
        print(line, flush=True)

    def check(self, rec):
        self.checks.append(rec)
        if rec["side"] == "kcc" and not rec["ok"]:
            self.failed = True
            self.bad.add((rec["kernel"], rec["shape"]))
        self.emit({"kind": "check", **rec})

    def timed(self, rec):
        self.perf.append(rec)
        self.emit({"kind": "perf", **rec})

    def markdown(self, header):
        lines = [header, ""]
        lines += ["### Correctness", "",
                  "| variant | T->O | MxNxK | kernel | max abs err | max rel err | atol | worst err / tol | result |",
                  "|---|---|---|---|---:|---:|---:|---:|---|"]
        for r in self.checks:
            result = "ok" if r["ok"] else ("**FAIL**" if r["side"] == "kcc" else "**wrong** (baseline)")
            if r.get("error"):
                result = f"**FAIL**: {r['error']}" if r["side"] == "kcc" else f"error: {r['error']}"
            lines.append(f"| {r['variant'].upper()} | {r['T']}->{r['O']} | {r['shape']} | {r['kernel']} | "
                         f"{fmt(r['max_abs'])} | {fmt(r['max_rel'])} | {fmt(r['atol'], '.1e')} | "
                         f"{fmt(r['worst'], '.3f')} | {result} |")
        label = self.args.compare_label
        if self.perf:
            extra = (f" kcc@{label} TFLOP/s | kcc@{label} / cuBLAS |" if label else "")
            lines += ["", "### Performance (TFLOP/s = 2*M*N*K / t)", "",
                      "| variant | T->O | MxNxK | kcc kernel | kcc TFLOP/s | cuBLAS TFLOP/s | Triton TFLOP/s | "
                      "kcc / cuBLAS | Triton / cuBLAS |" + extra,
                      "|---|---|---|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if label else "")]
            for r in self.perf:
                def ratio(x):
                    return fmt(x / r["cublas_tflops"], ".2f") if x and r["cublas_tflops"] else "n/a"
                mark = "" if r["timing"] == self.args.timing else f" ({r['timing']})"
                if (r["kcc_kernel"], r["shape"]) in self.bad:
                    mark += " **(failed its check)**"
                lines.append(f"| {r['variant'].upper()} | {r['T']}->{r['O']} | {r['shape']} | {r['kcc_kernel']}{mark} | "
                             f"{fmt(r['kcc_tflops'], '.1f')} | {fmt(r['cublas_tflops'], '.1f')} | "
                             f"{fmt(r['triton_tflops'], '.1f')} | {ratio(r['kcc_tflops'])} | "
                             f"{ratio(r['triton_tflops'])} |" +
                             (f" {fmt(r['other_tflops'], '.1f')} | {ratio(r['other_tflops'])} |"
                              if label else ""))
        if self.notes:
            lines += ["", "Notes:", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------
# Main


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = tuple(int(d) for d in item.lower().split("x"))
        if len(dims) != 3:
            raise argparse.ArgumentTypeError(f"shape {item!r} is not MxNxK")
        shapes.append(dims)
    return shapes


def parse_list(allowed):
    def parse(text):
        items = [s.strip().lower() for s in text.split(",") if s.strip()]
        bad = [s for s in items if s not in allowed]
        if bad:
            raise argparse.ArgumentTypeError(f"{bad} not in {allowed}")
        return items
    return parse


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True, help="path of libkcc_gemm.so")
    p.add_argument("--out", help="write the Markdown report here")
    p.add_argument("--json", help="write the JSON lines here (default: --out with .jsonl)")
    p.add_argument("--quick", action="store_true",
                   help="correctness only, on the edge shapes and 1024^3 (no timing, no Triton)")
    p.add_argument("--ref", choices=("gpu", "cpu"), default="gpu",
                   help="reference: fp32 torch.mm on the GPU (default) or fp64 on the CPU "
                        "(no cuBLAS kernel runs; for compute-sanitizer)")
    p.add_argument("--variants", type=parse_list(VARIANTS), default=list(VARIANTS))
    p.add_argument("--dtypes", type=parse_list(("f16", "bf16")), default=["f16", "bf16"])
    p.add_argument("--outputs", type=parse_list(("same", "f32")), default=["same", "f32"],
                   help="output dtypes: same (O = T) and/or f32")
    p.add_argument("--shapes", type=parse_shapes, help="timed shapes, MxNxK,... (default: the built-in set)")
    p.add_argument("--check-shapes", type=parse_shapes,
                   help="checked-only shapes, MxNxK,... (default: the built-in edge shapes)")
    p.add_argument("--tiles", default="128x128x64",
                   help="BMxBNxBK,... candidates looked up with hasattr when nm cannot list the library")
    p.add_argument("--timing", choices=("graph", "eager"), default="graph")
    p.add_argument("--passes", type=int, default=2)
    p.add_argument("--batches", type=int, default=15)
    p.add_argument("--no-triton", action="store_true")
    p.add_argument("--triton-all-outputs", action="store_true",
                   help="time Triton for O = f32 too (default: O = T only, to keep autotuning short)")
    p.add_argument("--rtol", type=float, default=1e-2)
    p.add_argument("--atol", type=float, help="default: 1e-3 * max(1, sqrt(K/1024))")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compare-lib", metavar="LABEL=PATH",
                   help="a second kcc GEMM library (e.g. one compiled with --warp-specialize=false), "
                        "checked and timed in the same run; its kernels are named KERNEL@LABEL and "
                        "its fastest gets a column")
    args = p.parse_args()

    if not torch.cuda.is_available():
        sys.exit("no CUDA device visible to torch")
    # The fp32 reference in full fp32 (no TF32); cuBLAS's f16/bf16 settings
    # are left at torch's defaults (what a torch user gets).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(args.seed)

    tiles = [tuple(int(v) for v in t.lower().split("x")) for t in args.tiles.split(",") if t]
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    if not hasattr(lib, "kcc_last_error_message"):
        sys.exit(f"{args.lib} has no kcc_last_error_message: not a kcc stub library")

    def outputs(t):
        return [t if o == "same" else "f32" for o in args.outputs]

    report = Report(args)
    kernels = discover(lib, os.path.abspath(args.lib), tiles, args.variants, args.dtypes, outputs,
                       report.notes)
    args.compare_label = None
    if args.compare_lib:
        label, _, path = args.compare_lib.partition("=")
        if not label or not path:
            sys.exit("--compare-lib expects LABEL=PATH")
        lib2 = ctypes.CDLL(os.path.abspath(path))
        others = discover(lib2, os.path.abspath(path), tiles, args.variants, args.dtypes, outputs,
                          report.notes)
        for key, fns in others.items():
            for fn in fns:
                fn.name += "@" + label
            if key in kernels:
                kernels[key] = kernels[key] + fns
        args.compare_label = label
    print("kcc functions: " + (", ".join(f.name for fs in kernels.values() for f in fs) or "none"))

    if args.quick:
        checked, timed = (args.check_shapes or QUICK_SHAPES), []
    else:
        checked = args.check_shapes if args.check_shapes is not None else EDGE_SHAPES
        timed = args.shapes or TIMED_SHAPES
    shapes = [(s, False) for s in checked] + [(s, True) for s in timed]

    triton_mm, triton_version = None, None
    if timed and not args.no_triton:
        try:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import triton
            from triton_matmul import matmul as triton_mm
            triton_version = triton.__version__
        except Exception as e:  # report, time the others
            report.notes.append(f"Triton not available ({type(e).__name__}: {e}); no Triton column")
            print("note: " + report.notes[-1])
    out_dtype_mode = probe_out_dtype() if (timed or args.ref == "gpu") else None
    if timed and "f32" in args.outputs and out_dtype_mode is None:
        report.notes.append("this torch has no torch.mm(..., out_dtype=torch.float32): "
                            "no cuBLAS baseline for O = f32")
    if timed and "f32" in args.outputs and not args.triton_all_outputs and triton_mm:
        report.notes.append("Triton is timed for O = T only (--triton-all-outputs for O = f32)")

    timing = (f"timing: {args.timing}, best of {args.passes} interleaved passes of the median of "
              f"{args.batches} batches" if timed else "correctness only")
    header = (f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__} (CUDA {torch.version.cuda}); "
              f"Triton {triton_version or 'n/a'}; library {args.lib}; {timing}; "
              f"reference: {'fp32 on the GPU' if args.ref == 'gpu' else 'fp64 on the CPU'}; "
              f"rtol {args.rtol}")
    print(header)

    crashed = None
    if not kernels:
        crashed = "no kcc GEMM function in the library for the selected variants/dtypes"
    try:
        for shape, is_timed in ([] if crashed else shapes):
            run_shape(shape, is_timed, kernels, args, report, triton_mm, out_dtype_mode, outputs)
    except Exception as e:  # a CUDA error is sticky: stop, but report what ran
        traceback.print_exc()
        crashed = f"stopped: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    if crashed:
        report.notes.append(crashed)
        print("FAIL: " + crashed, file=sys.stderr)

    text = report.markdown(header)
    print()
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    json_path = args.json or (os.path.splitext(args.out)[0] + ".jsonl" if args.out else None)
    if json_path:
        with open(json_path, "w") as f:
            f.write("\n".join(report.json_lines) + "\n")
    if not kernels:
        sys.exit(2)
    failed = [r for r in report.checks if r["side"] == "kcc" and not r["ok"]]
    if failed or crashed:
        print(f"FAIL: {len(failed)} kcc check(s) failed" + (f"; {crashed}" if crashed else ""),
              file=sys.stderr)
        sys.exit(1)
    print(f"OK: {sum(r['side'] == 'kcc' for r in report.checks)} kcc checks passed")


def run_shape(shape, is_timed, kernels, args, report, triton_mm, out_dtype_mode, outputs):
    M, N, K = shape
    shape_s = f"{M}x{N}x{K}"
    rtol, atol = tolerances(K, args.rtol, args.atol)
    flops = 2.0 * M * N * K
    for t in args.dtypes:
        keys = [(v, t, o) for v in args.variants for o in outputs(t) if (v, t, o) in kernels]
        if not keys:
            continue
        print(f"== {shape_s} {t}", flush=True)
        a = torch.randn(M, K, device="cuda").to(DT[t])
        b = (torch.randn(K, N, device="cuda") / math.sqrt(K)).to(DT[t])
        if args.ref == "gpu":
            ref = torch.mm(a.float(), b.float())
        else:
            ref = a.cpu().double() @ b.cpu().double()
        for variant in args.variants:
            vkeys = [k for k in keys if k[0] == variant]
            if not vkeys:
                continue
            xs, ys = operands(variant, a, b)
            x, xbuf = guarded(xs)
            y, ybuf = guarded(ys)
            del xs, ys
            xl, yl = logical(variant, x, y)
            for key in vkeys:
                o = key[2]
                base = {"variant": variant, "T": t, "O": o, "shape": shape_s, "M": M, "N": N, "K": K,
                        "rtol": rtol, "atol": atol}
                for fn in kernels[key]:
                    c, cbuf = empty_guarded(M, N, DT[o])
                    rec = dict(base, side="kcc", kernel=fn.name, max_abs=None, max_rel=None, worst=None)
                    try:
                        fn(c, x, y)
                        torch.cuda.synchronize()
                    except KccError as e:
                        report.check(dict(rec, ok=False, error=str(e)))
                        continue
                    max_abs, max_rel, worst = compare(c, ref, rtol, atol)
                    ok = worst == worst and worst <= 1.0
                    error = None
                    if not sentinel_intact(c, cbuf):
                        ok, error = False, "wrote outside C (padding or guard row changed)"
                    if not (sentinel_intact(x, xbuf) and sentinel_intact(y, ybuf)):
                        ok, error = False, "an input's padding or guard row changed"
                    report.check(dict(rec, max_abs=max_abs, max_rel=max_rel, worst=worst, ok=ok, error=error))
                    del c, cbuf
                # cuBLAS on the same operands, as a yardstick for the errors
                if args.ref == "gpu":
                    cb = torch.empty(M, N, dtype=DT[o], device="cuda")
                    launch = cublas_fn(xl, yl, cb, o, t, out_dtype_mode)
                    if launch:
                        launch()
                        max_abs, max_rel, worst = compare(cb, ref, rtol, atol)
                        report.check(dict(base, side="cublas", kernel="torch.mm", max_abs=max_abs,
                                          max_rel=max_rel, worst=worst, ok=worst == worst and worst <= 1.0,
                                          error=None))
                    del cb
                if is_timed:
                    time_case(key, base, x, y, xl, yl, ref, flops, kernels, args, report, triton_mm,
                              out_dtype_mode, rtol, atol)
            del x, y, xbuf, ybuf, xl, yl
        del a, b, ref
        torch.cuda.empty_cache()


def time_case(key, base, x, y, xl, yl, ref, flops, kernels, args, report, triton_mm, out_dtype_mode,
              rtol, atol):
    variant, t, o = key
    M, N = base["M"], base["N"]
    sides = {}
    outs = {}
    launchable = [fn for fn in kernels[key] if not any(
        r["side"] == "kcc" and r["kernel"] == fn.name and r["shape"] == base["shape"] and r.get("error")
        and r["max_abs"] is None for r in report.checks)]
    if not launchable:
        print(f"  not timing {variant.upper()} {t}->{o} {base['shape']}: every kcc launch failed")
        return
    for fn in launchable:
        outs[fn.name] = torch.empty(M, N, dtype=DT[o], device="cuda")
        sides[fn.name] = (lambda fn=fn, c=outs[fn.name]: fn(c, x, y))
    outs["cublas"] = torch.empty(M, N, dtype=DT[o], device="cuda")
    launch = cublas_fn(xl, yl, outs["cublas"], o, t, out_dtype_mode)
    if launch:
        sides["cublas"] = launch
    if triton_mm and (o == t or args.triton_all_outputs):
        outs["triton"] = torch.empty(M, N, dtype=DT[o], device="cuda")
        sides["triton"] = (lambda c=outs["triton"]: triton_mm(xl, yl, c))
    print(f"  timing {variant.upper()} {t}->{o} {base['shape']}: {', '.join(sides)}", flush=True)
    try:
        best, mode = time_sides(sides, args.timing, args.passes, args.batches, report)
    except KccError as e:
        report.check(dict(base, side="kcc", kernel="(timing)", max_abs=None, max_rel=None, worst=None,
                          ok=False, error=str(e)))
        return
    # The timed outputs, checked too (Triton's especially: it is not checked elsewhere).
    for name in sides:
        if name in ("cublas",) or name.startswith("gemm"):  # kcc's (@LABEL too) are checked above
            continue
        max_abs, max_rel, worst = compare(outs[name], ref, rtol, atol)
        report.check(dict(base, side=name, kernel=name, max_abs=max_abs, max_rel=max_rel, worst=worst,
                          ok=worst == worst and worst <= 1.0, error=None))
    kcc_names = [f.name for f in launchable if "@" not in f.name]
    other_names = [f.name for f in launchable if "@" in f.name]
    if not kcc_names:
        return
    fastest = min(kcc_names, key=lambda n: best[n])
    other = min(other_names, key=lambda n: best[n]) if other_names else None

    def tflops(ms):
        return flops / ms / 1e9 if ms else None

    triton_config = None
    if "triton" in sides:
        from triton_matmul import best_config
        triton_config = best_config()
    rec = dict(base, kcc_kernel=fastest, timing=mode, triton_config=triton_config,
               kcc_ms=best[fastest], kcc_tflops=tflops(best[fastest]),
               cublas_ms=best.get("cublas"), cublas_tflops=tflops(best.get("cublas")),
               triton_ms=best.get("triton"), triton_tflops=tflops(best.get("triton")),
               other_kernel=other, other_tflops=tflops(best[other]) if other else None,
               kcc_all={n: {"ms": best[n], "tflops": tflops(best[n])} for n in kcc_names + other_names})
    report.timed(rec)


if __name__ == "__main__":
    main()
