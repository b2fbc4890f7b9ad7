#!/usr/bin/env python3
"""Memory-bound kernels with BLOCK left to the launch (issue #30): each
compiled BLOCK of kernels/softmax.kc and kernels/layernorm.kc, the plain
launch function that picks one by the call's ncols (kcc::rt::streamCycles),
and torch, in one process on one GPU.

Build the libraries from kcc's stubs (no kcc on the GPU machine):

    kcc kernels/softmax.kc --target=sm_90a -o gen/softmax
    kcc kernels/layernorm.kc --target=sm_90a -o gen/layernorm
    cmake -S bench/gemm -B /tmp/sm -DKCC_GEN_DIR=$PWD/gen/softmax -DKCC_GEMM_STEM=softmax
    cmake -S bench/gemm -B /tmp/ln -DKCC_GEN_DIR=$PWD/gen/layernorm -DKCC_GEMM_STEM=layernorm
    python3 bench/membound_dispatch.py --softmax /tmp/sm/libkcc_gemm.so --layernorm /tmp/ln/libkcc_gemm.so

For every (kernel, dtype, ncols): GB/s of each BLOCK (bytes = one read and
one write of the matrix), which the plain launch ran (the BLOCK whose time
it matches is not asked: its time over the fastest BLOCK's is the measure),
and torch's. Results are checked against torch first.
"""
import argparse
import ctypes

import torch
import torch.nn.functional as F

from run_membound import time_ms

BLOCKS = (1024, 4096, 16384)
DT = {"f32": torch.float32, "f16": torch.float16}


def fn(lib, name, layernorm):
    f = getattr(lib, "kcc_" + name)
    p, i = ctypes.c_void_p, ctypes.c_int32
    f.argtypes = ([p, p, p, p, i, i, i, ctypes.c_float, p] if layernorm else [p, p, i, i, i, p])
    f.restype = ctypes.c_int
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--softmax", required=True)
    ap.add_argument("--layernorm", required=True)
    ap.add_argument("--elements", type=int, default=1 << 25, help="rows x ncols per case (about)")
    ap.add_argument("--cols", default="256,1000,1024,2048,3000,4096,5000,8192,12288,16384,20000,32768")
    ap.add_argument("--out", default="membound-dispatch.md")
    args = ap.parse_args()
    libs = {"softmax": ctypes.CDLL(args.softmax), "layernorm": ctypes.CDLL(args.layernorm)}
    lines = [f"# BLOCK chosen at launch: {torch.cuda.get_device_name()}", "",
             "| kernel | dtype | rows x ncols | GB/s per BLOCK (1024 / 4096 / 16384) | fastest | plain launch GB/s "
             "| plain / fastest | plain / torch |", "|---|---|---|---|---|---|---|---|"]
    ratios, failed = [], False
    for kernel in ("softmax", "layernorm"):
        ln = kernel == "layernorm"
        lib = libs[kernel]
        for dt in ("f32", "f16"):
            for cols in map(int, args.cols.split(",")):
                rows = max(1, args.elements // cols)
                x = torch.randn(rows, cols, device="cuda", dtype=DT[dt])
                out = torch.empty_like(x)
                w = torch.rand(cols, device="cuda", dtype=DT[dt]) + 0.5
                b = torch.rand(cols, device="cuda", dtype=DT[dt]) - 0.5
                s = torch.cuda.current_stream().cuda_stream
                names = [f"{kernel}_{dt}_{blk}" for blk in BLOCKS] + [f"{kernel}_{dt}"]
                calls = {}
                for n in names:
                    f = fn(lib, n, ln)
                    if ln:
                        calls[n] = (lambda f=f: f(out.data_ptr(), x.data_ptr(), w.data_ptr(), b.data_ptr(),
                                                  cols, cols, rows, 1e-5, s))
                    else:
                        calls[n] = lambda f=f: f(out.data_ptr(), x.data_ptr(), cols, cols, rows, s)
                ref = (F.layer_norm(x.float(), (cols,), w.float(), b.float(), 1e-5) if ln
                       else torch.softmax(x.float(), dim=-1))
                for n, call in calls.items():
                    out.zero_()
                    st = call()
                    torch.cuda.synchronize()
                    err = (out.float() - ref).abs().max().item()
                    tol = 2e-2 if dt == "f16" else 1e-4
                    if st != 0 or not err <= tol:
                        failed = True
                        lines.append(f"- FAIL {n} {rows}x{cols}: status {st}, max |err| {err:.3g}")
                        print(lines[-1], flush=True)
                torch_call = ((lambda: F.layer_norm(x, (cols,), w, b, 1e-5)) if ln
                              else (lambda: torch.softmax(x, dim=-1)))
                # Interleaved: each side twice, the faster kept.
                best = {}
                for _ in range(2):
                    for n, call in list(calls.items()) + [("torch", torch_call)]:
                        best[n] = min(best.get(n, 1e9), time_ms(call))
                gbs = {n: 2.0 * x.numel() * x.element_size() / (t * 1e-3) / 1e9 for n, t in best.items()}
                per = [gbs[f"{kernel}_{dt}_{blk}"] for blk in BLOCKS]
                fastest = BLOCKS[max(range(3), key=lambda i: per[i])]
                plain = gbs[f"{kernel}_{dt}"]
                ratios.append(plain / max(per))
                lines.append(f"| {kernel} | {dt} | {rows}x{cols} | {' / '.join(f'{g:.0f}' for g in per)} | {fastest} "
                             f"| {plain:.0f} | {plain / max(per):.2f} | {plain / gbs['torch']:.2f} |")
                print(lines[-1], flush=True)
    geo = 1.0
    for r in ratios:
        geo *= r
    geo **= 1.0 / len(ratios)
    lines += ["", f"Geomean plain launch / fastest BLOCK: {geo:.3f} over {len(ratios)} cases; "
                  f"worst {min(ratios):.2f}."]
    print(lines[-1])
    open(args.out, "w").write("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
