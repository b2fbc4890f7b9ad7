#!/usr/bin/env python3
"""Decode attention over a paged KV cache (kernels/paged_attention.kc,
issue #32) on one GPU, one process: paged_decode + paged_decode_combine
checked against a float64 reference (O and the log-sum-exp, random block
tables with shared pages, ragged lengths, empty sequences, out-of-range page
ids that must read zeros), then timed over a paged cache (a random
permutation of pages), over a contiguous cache (the same kernel, each
sequence's pages in order in memory) and beside torch (SDPA over the
contiguous cache; and the gather a torch user writes first, index_select of
the pages then SDPA), as the bandwidth of the K and V bytes read against a
device-to-device copy measured in the same process.

    kcc kernels/paged_attention.kc --target=sm_90a -o gen
    cmake -S bench/gemm -B /tmp/pa -DKCC_GEN_DIR=$PWD/gen -DKCC_GEMM_STEM=paged_attention
    cmake --build /tmp/pa -j
    python3 bench/attention/run_paged.py --lib /tmp/pa/libkcc_gemm.so \\
        --manifest gen/paged_attention.manifest.json --out paged.md

--sanitize runs only the checks (small shapes, adversarial tables), for
compute-sanitizer.
"""
import ctypes, json, math, os, sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from run_membound import time_ms  # noqa: E402
from kcc_binding import Kernel, arguments, write_report  # noqa: E402

DT = {"f16": torch.float16, "bf16": torch.bfloat16}


def decode_symbol(specs, t, d, variant):
    """paged_decode's specialization for dtype t and head_dim d: G_BN named
    by `variant`, or with "auto" the one the file specializes with G = 16."""
    if variant != "auto":
        return f"paged_decode_{t}_{d}_{variant}"
    found = sorted(s for s in specs if s.startswith(f"paged_decode_{t}_{d}_16_")
                   and "__" not in s)
    if len(found) != 1:
        raise SystemExit(f"paged_decode_{t}_{d}_16_*: {found or 'none'} (name one with --variants)")
    return found[0]


def choose_splits(batch, kvh, max_pages, page, sms, per_sm=2):
    """Pages per split: as many splits as fit one wave of resident programs
    (`per_sm` per multiprocessor: the head_dim 128 build's shared memory
    allows two) without a second, partial wave, and at least 256 keys per
    split (the combine reads every split)."""
    want = max(1, (per_sm * sms) // (batch * kvh))
    pps = max(math.ceil(max_pages / want), math.ceil(256 / page), 1)
    pps = min(pps, max_pages)
    while math.ceil(max_pages / pps) > 1024:
        pps += 1
    return pps, math.ceil(max_pages / pps)


class Paged:
    """A batch's caches, block table and the kcc launch of both kernels."""

    def __init__(self, lib, specs, t, d, batch, kvh, group, lens, page, contiguous,
                 seed=0, table=None, spare_pages=0, variant="auto"):
        g = torch.Generator(device="cuda").manual_seed(seed)
        dt = DT[t]
        self.t, self.d, self.batch, self.kvh, self.group, self.page = t, d, batch, kvh, group, page
        qh = kvh * group
        max_pages = max(1, max(math.ceil(n / page) for n in lens))
        npages = batch * max_pages + spare_pages
        self.q = torch.randn(batch, qh, d, device="cuda", dtype=dt, generator=g)
        self.kc = torch.randn(npages, page, kvh * d, device="cuda", dtype=dt, generator=g)
        self.vc = torch.randn(npages, page, kvh * d, device="cuda", dtype=dt, generator=g)
        if table is None:
            ids = torch.arange(npages, device="cuda", dtype=torch.int32)
            if not contiguous:
                ids = ids[torch.randperm(npages, device="cuda", generator=g)]
            table = ids[:batch * max_pages].view(batch, max_pages)
        self.table = table.to(torch.int32).contiguous()
        max_pages = self.table.shape[1]
        self.max_pages = max_pages
        self.lens = torch.tensor(lens, device="cuda", dtype=torch.int32)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.pps, self.splits = choose_splits(batch, kvh, max_pages, page, sms)
        self.o_part = torch.empty(batch * qh * self.splits * d, device="cuda", dtype=torch.float32)
        self.lse_part = torch.empty(batch * qh * self.splits, device="cuda", dtype=torch.float32)
        self.o = torch.empty(batch, qh, d, device="cuda", dtype=dt)
        self.lse = torch.empty(batch, qh, device="cuda", dtype=torch.float32)
        npg = self.kc.shape[0]
        dec = Kernel(lib, specs[decode_symbol(specs, t, d, variant)]).bind(dict(
            o_part=self.o_part, lse_part=self.lse_part, q=self.q, q_stride=qh * d,
            kc=self.kc, vc=self.vc, pages=npg, page=page, page_stride=page * kvh * d,
            row_stride=kvh * d, kv_heads=kvh, table=self.table, max_pages=max_pages,
            lens=self.lens, batch=batch, scale=1.0 / math.sqrt(d), group=group,
            pages_per_split=self.pps))
        comb = Kernel(lib, specs[f"paged_decode_combine_{t}_{d}_1024"]).bind(dict(
            o=self.o, lse=self.lse, o_part=self.o_part, lse_part=self.lse_part,
            heads=batch * qh, splits=self.splits))

        def call():
            dec()
            comb()
        self.call = call

    def gathered(self):
        """K and V per sequence [batch, kvh, max_pages*page, d], ids outside
        the cache reading zeros as the kernel's TMA boxes do."""
        npages = self.kc.shape[0]
        ids = self.table.long()
        ok = (ids >= 0) & (ids < npages)
        safe = torch.where(ok, ids, torch.zeros_like(ids))
        out = []
        for c in (self.kc, self.vc):
            x = c[safe] * ok[:, :, None, None].to(c.dtype)  # [b, mp, page, kvh*d]
            x = x.view(self.batch, -1, self.kvh, self.d).permute(0, 2, 1, 3)
            out.append(x)
        return out

    def reference(self):
        k, v = self.gathered()
        qd = self.q.double().view(self.batch, self.kvh, self.group, self.d)
        s = qd @ k.double().transpose(-1, -2) / math.sqrt(self.d)
        pos = torch.arange(s.shape[-1], device="cuda")
        s = s.masked_fill(pos[None, None, None, :] >= self.lens.long()[:, None, None, None],
                          float("-inf"))
        lse = torch.logsumexp(s, dim=-1)
        p = torch.softmax(s, dim=-1).nan_to_num(0.0)
        o = p @ v.double()
        return o.view(self.batch, -1, self.d), lse.view(self.batch, -1)

    def check(self, label):
        self.call()
        torch.cuda.synchronize()
        ref, ref_lse = self.reference()
        err = float((self.o.double() - ref).abs().max())
        live = torch.isfinite(ref_lse)
        lerr = float((self.lse.double() - ref_lse)[live].abs().max()) if live.any() else 0.0
        dead_ok = bool((self.lse[~live] == float("-inf")).all())
        tol = 8e-3 if self.t == "f16" else 3e-2
        tol *= float(self.vc.abs().max())
        ok = bool(torch.isfinite(self.o).all()) and err <= tol and lerr <= 1e-3 and dead_ok
        print(f"{'ok' if ok else 'FAIL'} {label}: {self.t} d={self.d} batch={self.batch} "
              f"kvh={self.kvh} group={self.group} page={self.page} splits={self.splits}: "
              f"max |O - ref| {err:.3g} (tol {tol:.3g}), max |lse - ref| {lerr:.3g}")
        return ok


def checks(lib, specs, dtypes, dims, variants=("auto",)):
    """Every variant (G_BN) against float64; cases whose group exceeds a
    variant's G are the stub's to refuse, not run."""
    failures = 0
    for t in dtypes:
        for d in dims:
            for v in variants:
                if v != "auto" and f"paged_decode_{t}_{d}_{v}" not in specs:
                    continue
                G = int(decode_symbol(specs, t, d, v).split("_")[4])
                cases = [
                    ("ragged", dict(batch=3, kvh=2, group=4, lens=[1000, 17, 333], page=16)),
                    ("empty+one", dict(batch=3, kvh=1, group=8, lens=[0, 1, 64], page=64)),
                    ("page256", dict(batch=2, kvh=4, group=1, lens=[4000, 700], page=256)),
                    ("gqa16", dict(batch=1, kvh=1, group=16, lens=[5000], page=16)),
                ]
                for label, c in cases:
                    if c["group"] <= G:
                        failures += not Paged(lib, specs, t, d, contiguous=False, seed=1,
                                              variant=v, **c).check(f"{label} {v}")
                # Pages shared between sequences, ids past the cache and
                # negative ones (read as zeros), and huge ones.
                table = torch.tensor([[5, 2, 9, 1 << 30, 0, 3],
                                      [2, -1, 4, 7, -(1 << 30), 8]],
                                     device="cuda", dtype=torch.int32)
                p = Paged(lib, specs, t, d, batch=2, kvh=2, group=2, lens=[90, 96], page=16,
                          contiguous=False, seed=2, table=table, variant=v)
                failures += not p.check(f"adversarial table {v}")
                # lens past the table (clamped to max_pages * page) and negative.
                p = Paged(lib, specs, t, d, batch=2, kvh=1, group=4, lens=[64, 48], page=16,
                          contiguous=False, seed=3, variant=v)
                p.lens.copy_(torch.tensor([1 << 30, -7], dtype=torch.int32))
                failures += not p.check(f"lens out of range {v}")
    return failures


def main():
    ap = arguments(__doc__)
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--dims", default="128", help="timed head dims")
    ap.add_argument("--check-dims", default="64,128,256",
                    help="head dims checked against float64 (empty: none)")
    ap.add_argument("--heads", default="32x8", help="query heads x KV heads")
    ap.add_argument("--shapes", default="1x131072,4x32768,16x8192,64x2048,256x512,"
                    "1x8192,8x4096,32x1024,128x4096,256x2048",
                    help="batch x context, timed at every --pages")
    ap.add_argument("--pages", default="16,64,256")
    ap.add_argument("--variants", default="auto",
                    help="G_BN specializations of paged_decode to time (the first is the "
                    "main column set; each other adds a GB/s column)")
    ap.add_argument("--baseline", default="",
                    help="LIB,MANIFEST of a second build: its main variant timed beside "
                    "(paged cache), checked first like this one")
    ap.add_argument("--sanitize", action="store_true", help="checks only, small shapes")
    args = ap.parse_args()
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    manifest = json.load(open(args.manifest))
    specs = {s["symbol"]: dict(s, kernel=k["name"]) for k in manifest["kernels"]
             for s in k["specializations"]}
    dtypes = args.dtypes.split(",")
    failures = checks(lib, specs, dtypes,
                      [int(x) for x in filter(None, args.check_dims.split(","))],
                      args.variants.split(","))
    base = None
    if args.baseline:
        path, base_manifest = args.baseline.split(",")
        base_lib = ctypes.CDLL(os.path.abspath(path))
        bm = json.load(open(base_manifest))
        base = (base_lib, {s["symbol"]: dict(s, kernel=k["name"]) for k in bm["kernels"]
                           for s in k["specializations"]})
        failures += checks(*base, dtypes,
                           [int(x) for x in filter(None, args.check_dims.split(","))])
    if args.sanitize:
        print(f"{failures} failures")
        return 1 if failures else 0

    # The device's copy bandwidth: read + write of 1 GiB.
    src = torch.empty(1 << 29, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    copy_gbs = 2 * src.numel() * 2 / min(time_ms(lambda: dst.copy_(src)),
                                         time_ms(lambda: dst.copy_(src))) / 1e6
    del src, dst
    qh, kvh = map(int, args.heads.split("x"))
    main_v, *extra = args.variants.split(",")
    device = torch.cuda.get_device_name()
    lines = [f"Device: {device}; torch {torch.__version__}; one process, CUDA events (median "
             f"of batches, best of two passes). Copy bandwidth (read + write, 1 GiB): "
             f"{copy_gbs:.0f} GB/s. GB/s = bytes of K and V read / time; heads {qh} "
             f"query x {kvh} KV.", "",
             "| dtype | d | batch | context | page | splits | paged us | paged GB/s | "
             "paged / copy | contiguous GB/s | paged / contiguous | SDPA (contiguous) GB/s | "
             "torch gather + SDPA GB/s |" + "".join(f" {v} GB/s |" for v in extra)
             + (" baseline GB/s | kcc / baseline |" if base else ""),
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|" + "---|" * len(extra)
             + ("---|---|" if base else "")]
    for t in dtypes:
        for d in map(int, args.dims.split(",")):
            for shape in args.shapes.split(","):
                batch, ctx = map(int, shape.split("x"))
                for page in map(int, args.pages.split(",")):
                    lens = [ctx] * batch
                    kv_bytes = 2 * batch * ctx * kvh * d * 2
                    paged = Paged(lib, specs, t, d, batch, kvh, qh // kvh, lens, page, False,
                                  variant=main_v)
                    us = min(time_ms(paged.call), time_ms(paged.call)) * 1e3
                    more = []
                    if base:
                        # Each side timed twice, the baseline's passes around this
                        # build's second, so neither always runs first.
                        # The same specialization if the baseline has it, else its own.
                        bv = main_v if f"paged_decode_{t}_{d}_{main_v}" in base[1] else "auto"
                        other = Paged(*base, t, d, batch, kvh, qh // kvh, lens, page, False,
                                      variant=bv)
                        us_b = time_ms(other.call)
                        us = min(us, time_ms(paged.call) * 1e3)
                        us_b = min(us_b, time_ms(other.call)) * 1e3
                        del other
                    for v in extra:
                        other = Paged(lib, specs, t, d, batch, kvh, qh // kvh, lens, page,
                                      False, variant=v)
                        more.append(f" {kv_bytes / (min(time_ms(other.call), time_ms(other.call)) * 1e3) / 1e3:.0f} |")
                        del other
                    contig = Paged(lib, specs, t, d, batch, kvh, qh // kvh, lens, page, True,
                                   variant=main_v)
                    us_c = min(time_ms(contig.call), time_ms(contig.call)) * 1e3
                    # torch over the contiguous cache, [batch, kvh, ctx, d] views.
                    kk = contig.kc.view(batch, -1, kvh, d).permute(0, 2, 1, 3)[:, :, :ctx]
                    vv = contig.vc.view(batch, -1, kvh, d).permute(0, 2, 1, 3)[:, :, :ctx]
                    kk, vv = kk.contiguous(), vv.contiguous()
                    qq = contig.q.view(batch, qh, 1, d)
                    sd = lambda: F.scaled_dot_product_attention(qq, kk, vv, enable_gqa=True)
                    us_t = min(time_ms(sd), time_ms(sd)) * 1e3

                    def gather():
                        k = paged.kc[paged.table.long()].view(batch, -1, kvh, d).transpose(1, 2)
                        v = paged.vc[paged.table.long()].view(batch, -1, kvh, d).transpose(1, 2)
                        return F.scaled_dot_product_attention(qq, k[:, :, :ctx], v[:, :, :ctx],
                                                              enable_gqa=True)
                    try:
                        us_g = min(time_ms(gather), time_ms(gather)) * 1e3
                        g_txt = f"{kv_bytes / us_g / 1e3:.0f}"
                    except torch.OutOfMemoryError:
                        g_txt = "OOM"
                    gbs = kv_bytes / us / 1e3
                    gbs_c = kv_bytes / us_c / 1e3
                    lines.append(f"| {t} | {d} | {batch} | {ctx} | {page} | {paged.splits} | "
                                 f"{us:.1f} | {gbs:.0f} | {gbs / copy_gbs:.2f} | {gbs_c:.0f} | "
                                 f"{gbs / gbs_c:.2f} | {kv_bytes / us_t / 1e3:.0f} | {g_txt} |"
                                 + "".join(more)
                                 + (f" {kv_bytes / us_b / 1e3:.0f} | {us_b / us:.2f} |"
                                    if base else ""))
                    del paged, contig, kk, vv
                    torch.cuda.empty_cache()
    write_report(lines, args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
