#!/usr/bin/env python3
"""The kernels users write first (bench/tutorial/tutorial.kc), timed against
their peers on one GPU, in one process.

Every specialization of every kernel is checked against a torch reference and
timed with CUDA events, interleaved with its peer (kcc, peer, kcc, peer: each
side's faster pass is kept); a kernel's row reports its fastest
specialization. Peers: torch (cuBLAS for the products, torch's reductions),
Triton's tutorial matmul (bench/gemm/triton_matmul.py) where Triton is
installed, and a device-to-device copy for the memory-bound kernels (their
bound). The C entry points are called through ctypes from the library
bench/gemm/CMakeLists.txt builds from the generated stubs:

    kcc bench/tutorial/tutorial.kc --target=sm_90a -o gen
    cmake -S bench/gemm -B /tmp/tut -DKCC_GEN_DIR=$PWD/gen -DKCC_GEMM_STEM=tutorial
    cmake --build /tmp/tut -j
    python3 bench/tutorial/run.py --lib /tmp/tut/libkcc_gemm.so \\
        --manifest gen/tutorial.manifest.json --out tutorial.md
"""
import ctypes, json, os, sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "gemm"))
from run_membound import time_ms  # noqa: E402 - the same timing as the other tables
from kcc_binding import Kernel, arguments, write_report  # noqa: E402

def rand(*shape, dtype=torch.float16):
    return (torch.rand(*shape, device="cuda", dtype=torch.float32) * 2 - 1).to(dtype)


def silu_ref(a, b, bias):
    z = a.float() @ b.float() + bias
    return z * torch.sigmoid(z)


def matmul_cases(m, n, k):
    a, b = rand(m, k), rand(k, n)
    bias = rand(n, dtype=torch.float32)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    ptr = dict(c=c, a=a, b=b, bias=bias, m=m, n=n, k=k, stride_am=k,
               stride_bk=n, stride_cm=n)
    ten = dict(c=c, c_dim0=m, c_dim1=n, c_stride0=n, a=a, a_dim0=m, a_dim1=k,
               a_stride0=k, b=b, b_dim0=k, b_dim1=n, b_stride0=n, bias=bias,
               bias_dim0=n)
    fused_ref = silu_ref(a, b, bias)
    plain_ref = a.float() @ b.float()
    shape = f"{m}x{n}x{k}"
    flops = 2.0 * m * n * k
    fused_peer = lambda: torch.nn.functional.silu(torch.addmm(bias.half(), a, b))
    plain_peer = lambda: torch.mm(a, b)
    return [
        ("matmul + bias + SiLU, pointer tiles", "matmul_ptr", ptr, c, fused_ref, shape, flops, fused_peer),
        ("matmul + bias + SiLU, tensor<>", "matmul_tensor", ten, c, fused_ref, shape, flops, fused_peer),
        ("matmul, pointer tiles", "matmul_ptr_plain", ptr, c, plain_ref, shape, flops, plain_peer),
        ("matmul, pointer tiles carried by the loop (Triton's form)", "matmul_ptr_carried", ptr, c,
         plain_ref, shape, flops, plain_peer),
        ("matmul, tensor<>", "matmul_tensor_plain", ten, c, plain_ref, shape, flops, plain_peer),
    ]


def check_ragged(lib, specs, shapes):
    """Every matmul specialization against torch at shapes that are not
    multiples of its tiles (ragged edges in M, N and K); the count of failures."""
    failures = 0
    for m, n, k in shapes:
        for _title, name, kargs, out, ref, *_ in matmul_cases(m, n, k):
            for spec in specs[name]:
                failures += not check_spec(lib, spec, kargs, out, ref, f"{m}x{n}x{k}")
    return failures


def check_spec(lib, spec, kargs, out, ref, shape):
    """Runs one specialization once and compares its output with `ref`;
    prints ok/FAIL with the shape and returns whether it matched."""
    out.fill_(float("nan"))
    Kernel(lib, spec).bind(kargs)()
    torch.cuda.synchronize()
    got = out.float()
    err = float((got - ref).abs().max())
    tol = 2e-2 * max(1.0, float(ref.abs().max()))
    ok = bool(torch.isfinite(got).all()) and err <= tol
    print(f"{'ok' if ok else 'FAIL'} {spec['symbol']} {shape}: max error {err:.3g}")
    return ok


def pitch(n):
    """A row pitch wider than n and a multiple of 8 elements (16 bytes)."""
    return (n + 8) // 8 * 8 + 8


def streaming_ragged_cases(a, b):
    """GEMV (K = a, N = b) and row/column sums (a x b) with rows padded to a
    wider pitch: (kernel name, arguments, output, reference)."""
    x = rand(a)
    w_kn = rand(a, pitch(b))[:, :b]
    w_nk = rand(b, pitch(a))[:, :a]
    y = torch.empty(b, device="cuda", dtype=torch.float16)
    m = rand(a, pitch(b))[:, :b]
    rs = torch.empty(a, device="cuda", dtype=torch.float32)
    cs = torch.empty(b, device="cuda", dtype=torch.float32)
    return [
        ("gemv_kn", dict(y=y, x=x, w=w_kn, k=a, n=b, stride_wk=w_kn.stride(0)), y,
         x.float() @ w_kn.float()),
        ("gemv_nk", dict(y=y, x=x, w=w_nk, k=a, n=b, stride_wn=w_nk.stride(0)), y,
         w_nk.float() @ x.float()),
        ("row_sum", dict(out=rs, x=m, rows=a, cols=b, stride=m.stride(0)), rs, m.float().sum(1)),
        ("col_sum", dict(out=cs, x=m, rows=a, cols=b, stride=m.stride(0)), cs, m.float().sum(0)),
    ]


def check_streaming_ragged(lib, specs, shapes):
    """Every GEMV and row/column-sum specialization against torch at shapes
    that are not multiples of its tiles, rows padded; the count of failures."""
    failures = 0
    for a, b in shapes:
        for name, kargs, out, ref in streaming_ragged_cases(a, b):
            for spec in specs[name]:
                failures += not check_spec(lib, spec, kargs, out, ref, f"{a}x{b}")
    return failures


def epilogue_pairs(lib, specs, m, n, k, rounds):
    """What the fused epilogue costs: each fused specialization against the
    plain one of the same tile and formulation, timed alternately (plain,
    fused, plain, ...) so that both see the same clocks; a GEMM near the
    card's power limit slows down as it heats, which a table timing one
    kernel after the other reads as a difference between them. Returns
    markdown rows with the medians and the median of the per-round ratios."""
    import statistics
    cases = {c[1]: c for c in matmul_cases(m, n, k)}
    rows = []
    for fused, plain, title in (("matmul_ptr", "matmul_ptr_plain", "pointer tiles"),
                                ("matmul_tensor", "matmul_tensor_plain", "tensor<>")):
        for fs, ps in zip(specs[fused], specs[plain]):
            calls = [Kernel(lib, s).bind(cases[name][2]) for s, name in ((ps, plain), (fs, fused))]
            times = [[], []]
            for _ in range(rounds):
                for side, call in enumerate(calls):
                    times[side].append(time_ms(call, batches=5))
            ratios = [p / f for p, f in zip(*times)]
            flops = 2.0 * m * n * k
            tile = fs["symbol"].split("_", 2)[-1]
            rows.append(f"| {title} | {tile} | {flops / statistics.median(times[0]) / 1e9:.0f} | "
                        f"{flops / statistics.median(times[1]) / 1e9:.0f} | "
                        f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |")
    return ["", f"Fused epilogue against the plain GEMM, {m}x{n}x{k}, {rounds} alternating rounds "
            "(TFLOP/s: medians):", "",
            "| formulation | tile | plain | + bias + SiLU | fused / plain (median, range) |",
            "|---|---|---|---|---|"] + rows


def gemv_cases(k, n):
    x = rand(k)
    w_kn, w_nk = rand(k, n), rand(n, k)
    y = torch.empty(n, device="cuda", dtype=torch.float16)
    kn = dict(y=y, x=x, w=w_kn, k=k, n=n, stride_wk=n)
    nk = dict(y=y, x=x, w=w_nk, k=k, n=n, stride_wn=k)
    nbytes = 2.0 * (k * n + k + n)
    return [
        ("GEMV, W [K, N]", "gemv_kn", kn, y, x.float() @ w_kn.float(), f"{k}x{n}", nbytes,
         lambda: torch.matmul(x, w_kn)),
        ("GEMV, W [N, K] (nn.Linear)", "gemv_nk", nk, y, w_nk.float() @ x.float(), f"{k}x{n}",
         nbytes, lambda: torch.nn.functional.linear(x, w_nk)),
    ]


def sum_cases(r, c):
    x = rand(r, c)
    rs = torch.empty(r, device="cuda", dtype=torch.float32)
    cs = torch.empty(c, device="cuda", dtype=torch.float32)
    args_r = dict(out=rs, x=x, rows=r, cols=c, stride=c)
    args_c = dict(out=cs, x=x, rows=r, cols=c, stride=c)
    nbytes = 2.0 * r * c
    return [
        ("row sums", "row_sum", args_r, rs, x.float().sum(1), f"{r}x{c}", nbytes,
         lambda: torch.sum(x, 1, dtype=torch.float32)),
        ("column sums", "col_sum", args_c, cs, x.float().sum(0), f"{r}x{c}", nbytes,
         lambda: torch.sum(x, 0, dtype=torch.float32)),
    ]


def copy_gbps(nbytes):
    src = torch.empty(int(nbytes), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return 2 * nbytes / time_ms(lambda: dst.copy_(src)) / 1e6


def main():
    ap = arguments(__doc__)
    ap.add_argument("--mnk", default="4096x4096x4096")
    ap.add_argument("--gemv", default="4096x14336", help="KxN")
    ap.add_argument("--sums", default="8192x8192", help="RxC")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--epilogue-rounds", type=int, default=10,
                    help="alternating plain/fused rounds of the epilogue-cost table (0: none)")
    ap.add_argument("--only", default="", help="comma-separated kernel names to run (default: all)")
    ap.add_argument("--all-specs", action="store_true",
                    help="also print every specialization's time, not only the fastest")
    ap.add_argument("--ragged-streaming", default="777x1000,4099x136,3x5",
                    help="AxB shapes at which every GEMV (K x N) and row/column-sum "
                         "(rows x columns) specialization is checked, rows padded")
    ap.add_argument("--ragged", default="777x1000x520,129x136x72,1x8x8",
                    help="MxNxK shapes checked (not timed) for every matmul")
    args = ap.parse_args()

    lib = ctypes.CDLL(os.path.abspath(args.lib))
    manifest = json.load(open(args.manifest))
    specs = {k["name"]: k["specializations"] for k in manifest["kernels"]}

    torch.manual_seed(0)
    m, n, k = map(int, args.mnk.split("x"))
    gk, gn = map(int, args.gemv.split("x"))
    sr, sc = map(int, args.sums.split("x"))
    cases = matmul_cases(m, n, k) + gemv_cases(gk, gn) + sum_cases(sr, sc)

    triton = None
    if not args.no_triton:
        try:
            import triton_matmul  # bench/gemm: the tutorial's grouped matmul
            triton = triton_matmul
        except Exception as e:  # noqa: BLE001 - report and go on without
            print(f"note: no Triton peer ({e})", file=sys.stderr)

    device = torch.cuda.get_device_name()
    rows = []
    failures = check_ragged(lib, specs, [tuple(map(int, x.split("x")))
                                         for x in args.ragged.split(",") if x])
    failures += check_streaming_ragged(
        lib, specs, [tuple(map(int, x.split("x")))
                     for x in args.ragged_streaming.split(",") if x])
    if args.only:
        cases = [c for c in cases if c[1] in args.only.split(",")]
    for title, name, kargs, out, ref, shape, work, peer in cases:
        best = None
        for spec in specs[name]:
            kern = Kernel(lib, spec)
            call = kern.bind(kargs)
            out.fill_(float("nan"))
            call()
            torch.cuda.synchronize()
            got = out.float()
            tol = 2e-2 * max(1.0, float(ref.abs().max()))
            err = float((got - ref).abs().max())
            ok = bool(torch.isfinite(got).all()) and err <= tol
            if not ok:
                failures += 1
                print(f"FAIL {spec['symbol']} {shape}: max error {err:.3g} (tolerance {tol:.3g})")
                continue
            t_k = min(time_ms(call), time_ms(call))
            if args.all_specs:
                rate = work / t_k / (1e9 if name.startswith("matmul") else 1e6)
                print(f"{spec['symbol']} {shape}: {rate:.0f} "
                      f"{'TFLOP/s' if name.startswith('matmul') else 'GB/s'}")
            if best is None or t_k < best[1]:
                best = (spec["symbol"], t_k)
        t_p = min(time_ms(peer), time_ms(peer))
        flops = name.startswith("matmul")
        row = dict(title=title, shape=shape, symbol=best[0] if best else "-",
                   kcc_ms=best[1] if best else float("nan"), peer_ms=t_p, flops=flops, work=work)
        if flops and triton is not None and name in ("matmul_ptr_plain", "matmul_ptr_carried",
                                                     "matmul_tensor_plain"):
            a, b = kargs["a"], kargs["b"]
            tc = torch.empty(a.shape[0], b.shape[1], device="cuda", dtype=a.dtype)
            row["triton_ms"] = min(time_ms(lambda: triton.matmul(a, b, tc)) for _ in range(2))
        if not flops:
            row["copy_gbps"] = copy_gbps(work / 2)
        rows.append(row)

    unit = lambda r, ms: (r["work"] / ms / 1e9 if r["flops"] else r["work"] / ms / 1e6)
    lines = [f"Device: {device}; torch {torch.__version__}; one process, CUDA events, "
             "best of two interleaved passes per side.", "",
             "| kernel | shape | kcc (best specialization) | kcc | peer | kcc / peer | Triton | kcc / copy |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        u = "TFLOP/s" if r["flops"] else "GB/s"
        k_rate, p_rate = unit(r, r["kcc_ms"]), unit(r, r["peer_ms"])
        tri = f"{unit(r, r['triton_ms']):.0f} {u}" if "triton_ms" in r else "-"
        cp = f"{k_rate / r['copy_gbps']:.2f}x (copy {r['copy_gbps']:.0f} GB/s)" if "copy_gbps" in r else "-"
        lines.append(f"| {r['title']} | {r['shape']} | {r['symbol']} | {k_rate:.0f} {u} | "
                     f"{p_rate:.0f} {u} | {k_rate / p_rate:.2f}x | {tri} | {cp} |")
    if args.epilogue_rounds and (not args.only or "matmul_tensor" in args.only.split(",")):
        lines += epilogue_pairs(lib, specs, m, n, k, args.epilogue_rounds)
    write_report(lines, args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
