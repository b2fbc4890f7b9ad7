"""Launches one batched kcc GEMM and torch.bmm three times each on one shape,
for ncu to profile (docs/gemm.md, "Batched GEMM"):

    ncu -k regex:gemm_batched --launch-skip 2 --launch-count 1 --set full \
        python3 bench/gemm/ncu_bmm.py <libkcc_gemm.so> gemm_batched_nt_f16_f16_128_256_64 64x1024x1024x64
"""
import ctypes, sys, torch
sys.path.insert(0, "bench/gemm")
from run_bmm import KccBmm, make_operands
lib = ctypes.CDLL(sys.argv[1])
name = sys.argv[2]
B, M, N, K = map(int, sys.argv[3].split("x"))
k = KccBmm(lib, "kcc_" + name, "nt" if "_nt_" in name else "nn", "f16", "f16", None)
x, y, yl, ref = make_operands(k.variant, "f16", (B, M, N, K), "padded", 0)
c = torch.empty((B, M, N), dtype=torch.float16, device="cuda")
for _ in range(3):
    k(c, x, y)
cb = torch.empty_like(c)
for _ in range(3):
    torch.bmm(x, yl, out=cb)
torch.cuda.synchronize()
