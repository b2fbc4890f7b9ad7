#!/usr/bin/env python3
"""A mixture-of-experts layer end to end (issue #32): the token permutation
of bench/gemm/moe_permute.kc around the grouped GEMM of moe_gemm.kc, against
what a torch user writes (argsort, index_select, a per-expert matmul loop,
index_add), one GPU, one process, bf16.

kcc: moe_count (histogram of the router's expert ids) -> moe_offsets ->
moe_permute (rows to their expert's block) -> moe_gemm (one launch over all
groups, offsets on the device) -> moe_unpermute (the weighted sum of each
token's choices). No host synchronization.

    kcc bench/gemm/moe_permute.kc --target=sm_90a -o gen-p
    kcc bench/gemm/moe_gemm.kc --target=sm_90a -o gen-g
    cmake -S bench/gemm -B /tmp/p -DKCC_GEN_DIR=$PWD/gen-p -DKCC_GEMM_STEM=moe_permute
    cmake -S bench/gemm -B /tmp/g -DKCC_GEN_DIR=$PWD/gen-g -DKCC_GEMM_STEM=moe_gemm
    cmake --build /tmp/p -j && cmake --build /tmp/g -j
    python3 bench/gemm/run_moe_e2e.py --permute-lib /tmp/p/libkcc_gemm.so \\
        --gemm-lib /tmp/g/libkcc_gemm.so --out moe-e2e.md
"""
import argparse, ctypes, os, sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from run_membound import time_ms  # noqa: E402

# (experts, tokens, top-k, hidden, expert width)
CASES = [(8, 4096, 2, 4096, 14336), (64, 4096, 6, 2048, 1408), (256, 4096, 8, 7168, 2048),
         (8, 64, 2, 4096, 14336), (256, 256, 8, 7168, 2048)]


def bind(lib, name, n):
    fn = getattr(lib, name)
    fn.restype = ctypes.c_int
    return fn


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--permute-lib", required=True)
    ap.add_argument("--gemm-lib", required=True)
    ap.add_argument("--out", default="")
    ap.add_argument("--cases", default="", help="indices into CASES (default: all)")
    ap.add_argument("--no-timing", action="store_true", help="checks only (for compute-sanitizer)")
    args = ap.parse_args()
    cases = [CASES[int(i)] for i in args.cases.split(",")] if args.cases else CASES
    pl = ctypes.CDLL(os.path.abspath(args.permute_lib))
    gl = ctypes.CDLL(os.path.abspath(args.gemm_lib))
    P, I, F = ctypes.c_void_p, ctypes.c_int32, ctypes.c_float
    count = pl.kcc_moe_count
    count.argtypes = [P, P, I, I, P]
    offsets = pl.kcc_moe_offsets
    offsets.argtypes = [P, P, P, I, P]
    permute = pl.kcc_moe_permute
    permute.argtypes = [P, P, P, P, P, I, I, I, I, P]
    unpermute = pl.kcc_moe_unpermute
    unpermute.argtypes = [P, P, P, P, I, I, I, I, P]
    gemm = gl.kcc_moe_gemm_bf16_128_128_64
    gemm.argtypes = [P, I, P, I, I, I, P, I, I, I, I, I, P, I, F, P]
    err = pl.kcc_last_error_message
    err.restype = ctypes.c_char_p
    stream = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
    bf = torch.bfloat16
    lines = [f"Device: {torch.cuda.get_device_name()}; torch {torch.__version__}; one process, "
             "CUDA events (median of batches, best of two passes); bf16, random top-k routing.", "",
             "| experts, tokens, top-k, hidden, width | kcc us | torch us | speed-up | "
             "kcc grouped GEMM alone us | check |", "|---|---|---|---|---|---|"]
    failed = False
    for (E, T, K, H, N) in cases:
        g = torch.Generator(device="cuda").manual_seed(E + T)
        logits = torch.randn(T, E, device="cuda", generator=g)
        top = logits.softmax(1).topk(K, dim=1)
        ids = top.indices.to(torch.int32).contiguous().flatten()
        wts = top.values.float().contiguous().flatten()
        x = torch.randn(T, H, device="cuda", generator=g).to(bf)
        w = (torch.randn(E, N, H, device="cuda", generator=g) * 0.05).to(bf)
        S = T * K
        counts = torch.zeros(256, dtype=torch.int32, device="cuda")
        offs = torch.empty(E + 1, dtype=torch.int32, device="cuda")
        cursor = torch.empty(E, dtype=torch.int32, device="cuda")
        pos = torch.empty(S, dtype=torch.int32, device="cuda")
        xs = torch.empty(S, H, dtype=bf, device="cuda")
        ys = torch.empty(S, N, dtype=bf, device="cuda")
        out = torch.empty(T, N, dtype=bf, device="cuda")
        st = [0]

        def run_gemm():
            st[0] |= gemm(ys.data_ptr(), ys.stride(0), xs.data_ptr(), S, H, xs.stride(0),
                          w.data_ptr(), E, N, H, w.stride(0), w.stride(1), offs.data_ptr(), E,
                          1.0, stream())

        def kcc():
            counts.zero_()
            st[0] |= count(counts.data_ptr(), ids.data_ptr(), S, E, stream())
            st[0] |= offsets(offs.data_ptr(), cursor.data_ptr(), counts.data_ptr(), E, stream())
            st[0] |= permute(xs.data_ptr(), pos.data_ptr(), x.data_ptr(), ids.data_ptr(),
                             cursor.data_ptr(), S, K, H, E, stream())
            run_gemm()
            st[0] |= unpermute(out.data_ptr(), ys.data_ptr(), pos.data_ptr(), wts.data_ptr(),
                               T, K, N, S, stream())

        def torch_moe():
            order = ids.long().argsort(stable=True)
            tok = order // K
            xt = x.index_select(0, tok)
            cnt = torch.bincount(ids.long(), minlength=E).tolist()
            yt = torch.empty(S, N, dtype=bf, device="cuda")
            a = 0
            for e in range(E):
                if cnt[e]:
                    torch.mm(xt[a:a + cnt[e]], w[e].t(), out=yt[a:a + cnt[e]])
                a += cnt[e]
            o = torch.zeros(T, N, dtype=torch.float32, device="cuda")
            o.index_add_(0, tok, yt.float() * wts[order][:, None])
            return o.to(bf)

        kcc()
        torch.cuda.synchronize()
        ref = torch_moe()
        torch.cuda.synchronize()
        d = (out.float() - ref.float()).abs()
        tol = 2 ** -7 * ref.float().abs() + 2 ** -7 * float(ref.float().abs().max()) + 1e-3
        bad = int((d > tol).sum()) + int((~torch.isfinite(out)).sum())
        # The same bits every run: the rows' order within an expert changes.
        first = out.clone()
        kcc()
        torch.cuda.synchronize()
        same = bool(torch.equal(first, out))
        ok = st[0] == 0 and bad == 0 and same
        failed |= not ok
        check = (f"{'PASS' if ok else 'FAIL'} (max |err| {float(d.max()):.3g}, "
                 f"{'same bits twice' if same else 'DIFFERENT bits'}"
                 f"{'' if st[0] == 0 else ', ' + err().decode()})")
        if args.no_timing:
            print(check, flush=True)
            continue
        tk = min(time_ms(kcc), time_ms(kcc)) * 1e3
        tt = min(time_ms(torch_moe, batches=5, reps=3), time_ms(torch_moe, batches=5, reps=3)) * 1e3
        tg = min(time_ms(run_gemm), time_ms(run_gemm)) * 1e3
        lines.append(f"| {E}, {T}, {K}, {H}, {N} | {tk:.0f} | {tt:.0f} | {tt / tk:.2f}x | {tg:.0f} | "
                     f"{check} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines)
    print(text)
    if args.out:
        open(args.out, "w").write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
