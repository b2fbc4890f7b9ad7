#!/usr/bin/env python3
"""kcc's fused GEMM epilogue on the GPU: c = relu(a @ b + bias).

Checks every kcc_gemm_bias_relu_<T>_<O>_<BM>_<BN>_<BK> entry point of
libkcc_gemm.so (bench/gemm/CMakeLists.txt) against torch in f32 (rtol 1e-2,
ragged shapes included, a sentinel around C checks that nothing is written
past it), then times the f16/bf16 ones side by side with, in one run:
  - kcc's plain GEMM of the same tile (kcc_gemm_<T>_<T>_...): the cost of
    the epilogue;
  - torch._addmm_activation(bias, a, b) (cuBLASLt with its fused
    bias + ReLU epilogue);
  - torch.relu(torch.addmm(bias, a, b)) (cuBLAS, then a separate ReLU).

    python3 bench/gemm/run_epilogue.py --lib /tmp/kcc-gemm-build/libkcc_gemm.so --out epilogue.md
"""
import argparse
import ctypes
import re
import statistics
import subprocess
import sys

import torch

DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
SYMBOL = re.compile(r"^kcc_gemm_bias_relu_(f16|bf16)_(f16|bf16|f32)_(\d+)_(\d+)_(\d+)$")


def symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True,
                         text=True, check=True).stdout
    return sorted({l.split()[-1].split("@")[0] for l in out.splitlines() if l.split()})


class Fn:
    def __init__(self, lib, name, n_tensors2d, bias):
        self.name = name
        self.fn = getattr(lib, name)
        t2 = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]
        t1 = [ctypes.c_void_p, ctypes.c_int32]
        self.fn.argtypes = t2 * n_tensors2d + (t1 if bias else []) + [ctypes.c_void_p]
        self.fn.restype = ctypes.c_int
        self.err = lib.kcc_last_error_message
        self.err.restype = ctypes.c_char_p

    def __call__(self, *tensors):
        args = []
        for x in tensors:
            if x.dim() == 2:
                args += [x.data_ptr(), x.shape[0], x.shape[1], x.stride(0)]
            else:
                args += [x.data_ptr(), x.shape[0]]
        code = self.fn(*args, torch.cuda.current_stream().cuda_stream)
        if code != 0:
            raise RuntimeError(f"{self.name}: status {code}: {self.err().decode()}")


def padded(rows, cols, dtype, fill=None):
    """A rows x cols view whose row stride is a multiple of 16 bytes (the
    TMA contract the stubs check at launch)."""
    per = 16 // DT[dtype].itemsize if isinstance(dtype, str) else 16 // dtype.itemsize
    dt = DT[dtype] if isinstance(dtype, str) else dtype
    stride = (cols + per - 1) // per * per
    buf = torch.empty(rows, max(stride, per), device="cuda", dtype=dt)
    if fill is None:
        buf.uniform_(-1, 1)
    else:
        buf.fill_(fill)
    return buf[:, :cols], buf


def median_ms(run, reps=20, inner=5):
    for _ in range(3):
        run()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            run()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / inner)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out")
    ap.add_argument("--sizes", default="4096,8192")
    args = ap.parse_args()
    lib = ctypes.CDLL(args.lib)
    fns = []
    for name in symbols(args.lib):
        m = SYMBOL.match(name)
        if m:
            fns.append((Fn(lib, name, 3, True), m.group(1), m.group(2),
                        tuple(int(m.group(i)) for i in (3, 4, 5))))
    if not fns:
        sys.exit(f"no kcc_gemm_bias_relu_* in {args.lib}")
    torch.manual_seed(0)
    lines = ["# kcc fused GEMM epilogue: relu(a @ b + bias)", "",
             f"device: {torch.cuda.get_device_name()}", ""]
    checks = 0
    for fn, t, o, tile in fns:
        for (m, n, k) in [(1, 1, 1), (130, 260, 72), (127, 255, 65), (1000, 1000, 1000),
                          (4097, 136, 520), (2048, 2048, 2048)]:
            a, _ = padded(m, k, t)
            b, _ = padded(k, n, t)
            bias = torch.rand(n, device="cuda", dtype=torch.float32) * 4 - 2
            # C inside a larger buffer of sentinels: one extra row below and
            # the row padding beside it must stay untouched.
            _, buf = padded(m + 1, n, o, fill=7.0)
            c = buf[:m, :n]
            fn(c, a, b, bias)
            torch.cuda.synchronize()
            ref = torch.relu(a.float() @ b.float() + bias)
            err = (c.float() - ref).abs()
            tol = 1e-2 * ref.abs() + 1e-2 * max(1.0, k ** 0.5 / 8)
            ok = bool((err <= tol).all())
            rest = buf.clone()
            rest[:m, :n] = 7.0
            ok = ok and bool((rest == 7.0).all())
            checks += 1
            print(f"{'PASS' if ok else 'FAIL'} {fn.name} {m}x{n}x{k} max err {err.max().item():.3e}")
            if not ok:
                sys.exit(1)
    lines.append(f"{checks} checks against torch (f32 reference, rtol 1e-2): all pass")
    lines += ["", "| shape | kcc kernel | kcc fused TFLOP/s | kcc plain GEMM | cuBLASLt addmm+relu fused | cuBLAS addmm, then relu | fused / cuBLASLt |",
              "|---|---|---|---|---|---|---|"]
    for fn, t, o, tile in fns:
        if o != t:
            continue
        plain_name = f"kcc_gemm_{t}_{t}_{'_'.join(map(str, tile))}"
        plain = Fn(lib, plain_name, 3, False) if hasattr(lib, plain_name) else None
        for s in [int(x) for x in args.sizes.split(",")]:
            a = torch.randn(s, s, device="cuda", dtype=DT[t])
            b = torch.randn(s, s, device="cuda", dtype=DT[t])
            bias32 = torch.randn(s, device="cuda", dtype=torch.float32)
            bias = bias32.to(DT[t])
            c = torch.empty(s, s, device="cuda", dtype=DT[o])
            flop = 2 * s ** 3
            tf = lambda ms: flop / ms / 1e9
            k_ms = median_ms(lambda: fn(c, a, b, bias32))
            p_ms = median_ms(lambda: plain(c, a, b)) if plain else float("nan")
            lt_ms = median_ms(lambda: torch._addmm_activation(bias, a, b))
            two_ms = median_ms(lambda: torch.relu(torch.addmm(bias, a, b)))
            lines.append(f"| {s}^3 {t} | {fn.name[4:]} | {tf(k_ms):.0f} | {tf(p_ms):.0f} | "
                         f"{tf(lt_ms):.0f} | {tf(two_ms):.0f} | {lt_ms / k_ms:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        open(args.out, "w").write(text)


if __name__ == "__main__":
    main()
