"""Launches kcc GEMMs (one per library, e.g. with and without --persistent)
and torch.mm three times each on one NN/NT shape, for ncu to profile
(docs/gemm.md):

    ncu -k regex:gemm --launch-skip 2 --launch-count 1 --set full \
        python3 bench/gemm/ncu_gemm.py gemm_f16_f16_128_64_64 1024x1024x1024 lib1.so [lib2.so ...]
"""
import ctypes
import sys

import torch

sys.path.insert(0, "bench/gemm")
from run_gemm import KccGemm  # noqa: E402

name = sys.argv[1]
M, N, K = map(int, sys.argv[2].split("x"))
variant = "nt" if name.startswith("gemm_nt") else "nn"
t = "bf16" if "_bf16_" in name else "f16"
dtype = torch.bfloat16 if t == "bf16" else torch.float16
a = torch.randn((M, K), device="cuda").to(dtype)
b = torch.randn((N, K) if variant == "nt" else (K, N), device="cuda").to(dtype)
c = torch.empty((M, N), dtype=dtype, device="cuda")
for path in sys.argv[3:]:
    k = KccGemm(ctypes.CDLL(path), "kcc_" + name, variant, t, t, None)
    for _ in range(3):
        k(c, a, b)
cb = torch.empty_like(c)
for _ in range(3):
    torch.mm(a, b.t() if variant == "nt" else b, out=cb)
torch.cuda.synchronize()
