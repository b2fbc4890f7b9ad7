#!/usr/bin/env python3
"""Variable-length prefill attention (bench/attention/attention_varlen.kc,
issue #32) against the dense kernel of bench/attention/attention.kc on the
same total tokens, one GPU, one process: sequences packed back to back
(offsets on the device) against a [batch * heads, seq, D] batch of equal
sequences, both with 128 x 128 blocks. Checked first against a float64
reference per sequence (ragged lengths, an empty sequence, GQA, causal).

    kcc bench/attention/attention_varlen.kc --target=sm_90a -o gen-v
    kcc bench/attention/attention.kc --target=sm_90a -o gen-d
    cmake -S bench/gemm -B /tmp/v -DKCC_GEN_DIR=$PWD/gen-v -DKCC_GEMM_STEM=attention_varlen
    cmake -S bench/gemm -B /tmp/d -DKCC_GEN_DIR=$PWD/gen-d -DKCC_GEMM_STEM=attention
    cmake --build /tmp/v -j && cmake --build /tmp/d -j
    python3 bench/attention/run_varlen.py --lib /tmp/v/libkcc_gemm.so \\
        --manifest gen-v/attention_varlen.manifest.json \\
        --dense /tmp/d/libkcc_gemm.so,gen-d/attention.manifest.json --out varlen.md
"""
import ctypes, itertools, json, math, os, random, sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from run_membound import time_ms  # noqa: E402
from kcc_binding import Kernel, arguments, write_report  # noqa: E402
from run import make, reference, tensor_args  # noqa: E402

DT = {"f16": torch.float16, "bf16": torch.bfloat16}


def specs_of(path):
    m = json.load(open(path))
    return {s["symbol"]: s for k in m["kernels"] for s in k["specializations"]}


def t2(name, t):
    return {name: t, f"{name}_dim0": t.shape[0], f"{name}_dim1": t.shape[1],
            f"{name}_stride0": t.stride(0)}


def varlen_call(lib, spec, q, k, v, lq, lk, heads, group, causal):
    """q [total_q, heads * D], k and v [total_k, kv_heads * D]; lengths."""
    cu_q = torch.tensor([0, *itertools.accumulate(lq)], dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0, *itertools.accumulate(lk)], dtype=torch.int32, device="cuda")
    o = torch.empty_like(q)
    lse = torch.empty(heads, q.shape[0], dtype=torch.float32, device="cuda")
    d = q.shape[1] // heads
    call = Kernel(lib, spec).bind(dict(
        o=o, o_stride=o.stride(0), lse=lse, **t2("q", q), **t2("k", k), **t2("v", v),
        cu_q=cu_q, cu_k=cu_k, batch=len(lq), max_q=max(lq), heads=heads,
        scale=1.0 / math.sqrt(d), group=group, causal=causal))
    return call, o, lse, (cu_q, cu_k)


def check(lib, spec, t, d, lq, lk, heads, group, causal, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    kvh = heads // group
    q = torch.randn(sum(lq), heads * d, device="cuda", dtype=DT[t], generator=g)
    k = torch.randn(sum(lk), kvh * d, device="cuda", dtype=DT[t], generator=g)
    v = torch.randn(sum(lk), kvh * d, device="cuda", dtype=DT[t], generator=g)
    call, o, lse, _ = varlen_call(lib, spec, q, k, v, lq, lk, heads, group, causal)
    call()
    torch.cuda.synchronize()
    err = lerr = 0.0
    q0 = k0 = 0
    for a, b in zip(lq, lk):
        if a:
            qs = q[q0:q0 + a].view(a, heads, d).transpose(0, 1)
            ks = k[k0:k0 + b].view(b, kvh, d).transpose(0, 1)
            vs = v[k0:k0 + b].view(b, kvh, d).transpose(0, 1)
            ref, ref_lse = reference(qs, ks, vs, causal, group)
            got = o[q0:q0 + a].view(a, heads, d).transpose(0, 1)
            err = max(err, float((got.double() - ref).abs().max()))
            lerr = max(lerr, float((lse[:, q0:q0 + a].double() - ref_lse).abs().max()))
        q0, k0 = q0 + a, k0 + b
    tol = (8e-3 if t == "f16" else 3e-2) * float(v.abs().max())
    ok = err <= tol and lerr <= 1e-3 * math.log(max(lk) + 1)
    print(f"{'ok' if ok else 'FAIL'} {spec['symbol']} causal={causal} lq={lq} lk={lk} heads={heads} "
          f"group={group}: max |O - ref| {err:.3g} (tol {tol:.3g}), max |lse - ref| {lerr:.3g}")
    return ok


def main():
    ap = arguments(__doc__)
    ap.add_argument("--dense", required=True, help="LIB,MANIFEST of bench/attention/attention.kc")
    ap.add_argument("--seqs", default="1024,4096,16384")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--width", type=int, default=2048, help="heads * head_dim")
    ap.add_argument("--dtypes", default="f16")
    ap.add_argument("--dims", default="64,128")
    args = ap.parse_args()
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    specs = specs_of(args.manifest)
    dlib_path, dman = args.dense.split(",")
    dlib = ctypes.CDLL(os.path.abspath(dlib_path))
    dspecs = specs_of(dman)
    failures = 0
    for t in args.dtypes.split(","):
        for d in map(int, args.dims.split(",")):
            spec = specs[f"attention_varlen_{t}_{d}_128_128"]
            for causal in (0, 1):
                failures += not check(lib, spec, t, d, [77, 300, 0, 1, 129], [77, 300, 0, 1, 129],
                                      4, 2, causal)
                if not causal:
                    failures += not check(lib, spec, t, d, [50, 129], [300, 140], 2, 1, 0)

    device = torch.cuda.get_device_name()
    lines = [f"Device: {device}; torch {torch.__version__}; one process, CUDA events (median "
             "of batches, best of two passes). TFLOP/s = 4 * sum over sequences of heads * "
             "len_q * len_k * head_dim (half of it causal) / time.", "",
             "| dtype | head_dim | causal | lengths | kcc dense (equal lengths) | kcc varlen, "
             "same lengths | varlen / dense | kcc varlen, ragged lengths (same total) |",
             "|---|---|---|---|---|---|---|---|"]
    for t in args.dtypes.split(","):
        for d in map(int, args.dims.split(",")):
            heads = args.width // d
            spec = specs[f"attention_varlen_{t}_{d}_128_128"]
            for causal in (0, 1):
                dense = dspecs.get(f"attention_{t}_{d}_128_128_{causal}")
                for seq in map(int, filter(None, args.seqs.split(","))):
                    batch = max(1, args.tokens // seq)
                    flops = 4.0 * batch * heads * seq * seq * d / (2 if causal else 1)
                    q, k, v = make(batch * heads, batch * heads, seq, seq, d, DT[t])
                    rate = {}
                    if dense:
                        o = torch.empty_like(q)
                        lse = torch.empty(batch * heads, seq, device="cuda", dtype=torch.float32)
                        dcall = Kernel(dlib, dense).bind(dict(
                            **tensor_args("o", o), **tensor_args("q", q), **tensor_args("k", k),
                            **tensor_args("v", v), lse=lse, scale=1.0 / math.sqrt(d), group=1))
                        rate["dense"] = flops / min(time_ms(dcall), time_ms(dcall)) / 1e9
                    pack = lambda x: x.view(batch, heads, seq, d).transpose(1, 2).reshape(
                        batch * seq, heads * d).contiguous()
                    qv, kv, vv = pack(q), pack(k), pack(v)
                    vcall, _, _, keep = varlen_call(lib, spec, qv, kv, vv, [seq] * batch,
                                                    [seq] * batch, heads, 1, causal)
                    rate["varlen"] = flops / min(time_ms(vcall), time_ms(vcall)) / 1e9
                    # Ragged: lengths in [seq/2, 3 seq/2) with the same total.
                    r = random.Random(seq)
                    lens = [r.randrange(seq // 2, 3 * seq // 2) for _ in range(batch)]
                    lens[-1] = max(1, args.tokens - sum(lens[:-1])) if batch > 1 else seq
                    rflops = sum(4.0 * heads * n * n * d / (2 if causal else 1) for n in lens)
                    tot = sum(lens)
                    g = torch.Generator(device="cuda").manual_seed(1)
                    rq = torch.randn(tot, heads * d, device="cuda", dtype=DT[t], generator=g)
                    rk = torch.randn(tot, heads * d, device="cuda", dtype=DT[t], generator=g)
                    rv = torch.randn(tot, heads * d, device="cuda", dtype=DT[t], generator=g)
                    rcall, _, _, keep2 = varlen_call(lib, spec, rq, rk, rv, lens, lens, heads, 1,
                                                     causal)
                    rate["ragged"] = rflops / min(time_ms(rcall), time_ms(rcall)) / 1e9
                    f = lambda n: f"{rate[n]:.0f}" if n in rate else "-"
                    ratio = f"{rate['varlen'] / rate['dense']:.2f}x" if "dense" in rate else "-"
                    lines.append(f"| {t} | {d} | {'yes' if causal else 'no'} | {batch} x {seq} | "
                                 f"{f('dense')} | {f('varlen')} | {ratio} | {f('ragged')} "
                                 f"({min(lens)}-{max(lens)}) |")
    write_report(lines, args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
