#!/usr/bin/env python3
"""Generates TMA tensor-map cases (JSON Lines) that probe every rule's boundary.

Each line is one call of cuTensorMapEncodeTiled, in the format `kcc legality tma`
reads. The cases come in four families:
  * one-factor sweeps: a legal baseline with one field moved across its
    boundary values (dims, strides, box, element strides, address offset);
  * the full product of the enum fields (dtype x interleave x swizzle x L2 x
    OOB fill, plus out-of-range values) over inner box sizes that straddle the
    swizzle spans;
  * rank sweeps with arrays longer and shorter than `rank` (rank is
    authoritative);
  * seeded random draws biased towards boundary values.
The generator is deterministic: the same seed gives the same file.
"""
import argparse
import itertools
import json
import random

# CUtensorMapDataType -> element size in bits.
DTYPE_BITS = [8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6]
U4_8B, U4_16B, U6_16B = 13, 14, 15
SWIZZLE_SPAN = {0: 0, 1: 32, 2: 64, 3: 128, 4: 128, 5: 128, 6: 128}


def elems_for_bytes(dtype, nbytes):
    """Number of elements whose packed size is nbytes (inner dimension)."""
    if dtype in (U4_16B, U6_16B):
        return nbytes // 16 * 16  # 16 values per 16-byte chunk
    return nbytes * 8 // DTYPE_BITS[dtype]


def row_bytes(dtype, elems):
    if dtype in (U4_16B, U6_16B):
        return (elems + 15) // 16 * 16
    return (elems * DTYPE_BITS[dtype] + 7) // 8


def baseline(dtype=7, rank=2, interleave=0, swizzle=0, box_inner_bytes=64,
             dims=None):
    """A case the documentation calls legal (for ordinary dtypes)."""
    dims = list(dims or [256, 64, 8, 4, 2][:rank])
    box = [max(1, elems_for_bytes(dtype, box_inner_bytes))] + [8] * (rank - 1)
    box = [min(b, 256) for b in box]
    if dtype in (U4_16B, U6_16B):
        box[0] = 128
    strides = []
    s = row_bytes(dtype, dims[0])
    s = (s + 31) // 32 * 32
    for i in range(1, rank):
        strides.append(s)
        s *= dims[i]
    return {
        "dtype": dtype, "rank": rank, "address_mod": 0,
        "interleave": interleave, "swizzle": swizzle, "l2_promotion": 0,
        "oob_fill": 0, "global_dim": dims, "global_strides": strides,
        "box_dim": box, "element_strides": [1] * rank,
    }


def one_factor(cases):
    dim_vals = [0, 1, 2, 3, 15, 16, 127, 128, 129, 256, 2**31, 2**32 - 1,
                2**32, 2**32 + 1, 2**40]
    stride_vals = [0, 1, 8, 15, 16, 17, 24, 32, 48, 64, 1008, 1024, 1040,
                   2**32, 2**39, 2**40 - 16, 2**40, 2**40 + 16, 2**41]
    box_vals = [0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 32, 64, 100, 128, 255,
                256, 257, 512, 2**32 - 1]
    estride_vals = [0, 1, 2, 3, 4, 7, 8, 9, 16]
    addr_vals = [0, 1, 2, 4, 8, 15, 16, 24, 32, 48, 64, 96, 128, 200, 255]
    for dtype in range(16):
        for rank in (1, 2, 3, 5):
            for il in (0, 1, 2):
                sw = 1 if il == 2 else 0
                base = baseline(dtype, rank, il, sw,
                                box_inner_bytes=32 if il == 0 else 16)
                cases.append(base)
                for i in range(rank):
                    for v in dim_vals:
                        c = json.loads(json.dumps(base))
                        c["global_dim"][i] = v
                        cases.append(c)
                    for v in box_vals:
                        c = json.loads(json.dumps(base))
                        c["box_dim"][i] = v
                        cases.append(c)
                    for v in estride_vals:
                        c = json.loads(json.dumps(base))
                        c["element_strides"][i] = v
                        cases.append(c)
                for i in range(rank - 1):
                    for v in stride_vals:
                        c = json.loads(json.dumps(base))
                        c["global_strides"][i] = v
                        cases.append(c)
                for v in addr_vals:
                    c = json.loads(json.dumps(base))
                    c["address_mod"] = v
                    cases.append(c)


def enum_product(cases):
    for dtype, il, sw, l2, oob in itertools.product(
            range(17), range(4), range(8), range(5), range(3)):
        for rank in (2, 3):
            if (l2 not in (0, 3) or oob == 2) and rank == 3:
                continue
            for inner in (16, 32, 48, 64, 128, 256):
                d = dtype if dtype < 16 else 7
                c = baseline(d, rank, 0, 0, inner)
                c.update(dtype=dtype, interleave=il, swizzle=sw,
                         l2_promotion=l2, oob_fill=oob)
                cases.append(c)


def rank_sweeps(cases):
    for rank in range(0, 8):
        for length in (max(rank - 1, 0), rank, 5, 6):
            c = baseline(7, 5, 0, 0, 64, dims=[64, 4, 4, 4, 4])
            c["rank"] = rank
            for k in ("global_dim", "box_dim", "element_strides"):
                c[k] = (c[k] + [4] * 6)[:length]
            c["global_strides"] = (c["global_strides"] +
                                   [1 << 20] * 6)[:max(length - 1, 0)]
            cases.append(c)


def strided_relations(cases):
    """Strides smaller than the row, decreasing strides, interleaved shapes."""
    for dtype in (0, 6, 7, 8):
        for rank in (2, 3, 4):
            base = baseline(dtype, rank, 0, 0, 32)
            row = row_bytes(dtype, base["global_dim"][0])
            for s0 in (16, row - 16, row, row + 16):
                for s1 in (16, s0, s0 * 2, s0 * 64, s0 * 64 - 16):
                    c = json.loads(json.dumps(base))
                    c["global_strides"][0] = max(s0, 0)
                    if rank > 2:
                        c["global_strides"][1] = max(s1, 0)
                    cases.append(c)
    for il in (1, 2):
        for dtype in (0, 6, 7, 8):
            for inner_bytes in (8, 16, 24, 32, 48, 64):
                for sw in range(7):
                    c = baseline(dtype, 3, il, sw, 16)
                    c["box_dim"][0] = max(1, inner_bytes * 8 // DTYPE_BITS[dtype])
                    cases.append(c)


def box_size_probes(cases):
    """The driver limits the box's size; find the limit and what counts."""
    def case(dtype, gd, box, es, il=0):
        rank = len(gd)
        strides, s = [], row_bytes(dtype, gd[0])
        s = (s + 31) // 32 * 32
        for i in range(1, rank):
            strides.append(s)
            s *= gd[i]
        cases.append({
            "dtype": dtype, "rank": rank, "address_mod": 0, "interleave": il,
            "swizzle": 0, "l2_promotion": 0, "oob_fill": 0, "global_dim": gd,
            "global_strides": strides, "box_dim": box, "element_strides": es})
    big = 4096
    for dtype in (0, 7):
        inner = 256 if dtype == 0 else 64  # 256-byte rows
        for k in range(1, 257):
            case(dtype, [big, big, big], [inner, k, 4], [1, 1, 1])
            case(dtype, [big] * 5, [inner, 1, k, 4, 1], [1] * 5)
            case(dtype, [big] * 5, [inner, 2, 1, 1, k], [1] * 5)
            case(dtype, [big, big, 2], [inner, k, 4], [1, 1, 1])
            case(dtype, [big, 3, big], [inner, k, 4], [1, 1, 1])
            case(dtype, [big, big, big], [inner, k, 4], [1, 2, 1])
            case(dtype, [big, big, big], [inner, k, 4], [4, 1, 1])
            case(dtype, [big, big, big], [inner, k, 8], [1, 1, 3])
            case(dtype, [big, big, big, big], [inner, k, 4, 1], [1, 1, 1, 1], 1)
        for s in range(1, 9):
            for k in (128, 200, 255, 256):
                for d in range(3):
                    es = [1, 1, 1]
                    es[d] = s
                    case(dtype, [big, big, big], [inner, k, 8], es)
                    case(dtype, [big, big, 16], [inner, k, 8], es)
    for dtype in (0, 2, 4):
        for gd0 in (16, 64, 256, 1024):
            for k in (64, 128, 200, 256):
                case(dtype, [gd0, big, big], [256 * 8 // DTYPE_BITS[dtype],
                                              k, 4], [1, 1, 1])


def random_draws(cases, rng, count):
    pick_dim = [1, 2, 3, 7, 8, 16, 64, 100, 128, 256, 1000, 65536, 2**32,
                2**32 + 1]
    pick_box = [1, 2, 4, 8, 16, 17, 32, 64, 100, 128, 200, 256, 257]
    for _ in range(count):
        dtype = rng.randrange(16)
        rank = rng.choice([1, 2, 2, 3, 3, 4, 5])
        il = rng.choice([0, 0, 0, 1, 2])
        c = {
            "dtype": dtype, "rank": rank,
            "address_mod": rng.choice([0, 0, 0, 16, 32, 64, 8, 4, 128]),
            "interleave": il, "swizzle": rng.randrange(7),
            "l2_promotion": rng.randrange(4), "oob_fill": rng.randrange(2),
            "global_dim": [rng.choice(pick_dim) for _ in range(rank)],
            "global_strides": [], "box_dim": [rng.choice(pick_box)
                                              for _ in range(rank)],
            "element_strides": [rng.choice([1, 1, 1, 2, 4, 8, 9])
                                for _ in range(rank)],
        }
        s = row_bytes(dtype, c["global_dim"][0])
        align = rng.choice([16, 32, 1, 256])
        for i in range(1, rank):
            s = (s + align - 1) // align * align
            c["global_strides"].append(s)
            s *= c["global_dim"][i]
        cases.append(c)


def holdout_draws(cases, rng, count):
    """Random cases for checking the predicate on data it was not fitted to
    (another seed, another construction): a random case that the documented
    rules accept, then zero to two random mutations across a rule boundary."""
    for _ in range(count):
        rank = rng.choice([1, 2, 3, 3, 4, 5])
        dtype = rng.choice(range(13))
        il = rng.choice([0, 0, 0, 1, 2]) if rank >= 3 else 0
        bits = DTYPE_BITS[dtype]
        sw = rng.choice([0, 1, 2, 3]) if il != 2 else 1
        span = {0: 256, 1: 32, 2: 64, 3: 128}[sw] if il == 0 else 256
        inner = rng.choice([b for b in (16, 32, 48, 64, 128, 256) if b <= span])
        c = baseline(dtype, rank, il, sw, inner,
                     dims=[rng.choice([1, 7, 64, 100, 256, 4096, 65536])
                           for _ in range(rank)])
        c["box_dim"] = [c["box_dim"][0]] + [rng.choice([1, 2, 4, 8, 16, 32])
                                            for _ in range(rank - 1)]
        c["element_strides"] = [rng.choice([1, 1, 1, 2, 4]) for _ in range(rank)]
        c["l2_promotion"] = rng.randrange(4)
        c["oob_fill"] = rng.choice([0, 1]) if dtype in range(6, 13) else 0
        c["address_mod"] = rng.choice([0, 16, 32, 64, 128]) if il != 2 else 32
        for _ in range(rng.choice([0, 0, 1, 1, 1, 2])):
            key = rng.choice(["dtype", "rank", "address_mod", "interleave",
                              "swizzle", "l2_promotion", "oob_fill",
                              "global_dim", "global_strides", "box_dim",
                              "element_strides"])
            if key == "dtype":
                c[key] = rng.randrange(17)
            elif key == "rank":
                c[key] = rng.randrange(7)
            elif key == "address_mod":
                c[key] = rng.choice([1, 4, 8, 24, 40, 200, 255])
            elif key in ("interleave", "swizzle", "l2_promotion", "oob_fill"):
                c[key] = rng.randrange({"interleave": 4, "swizzle": 8,
                                        "l2_promotion": 5, "oob_fill": 3}[key])
            elif c[key]:
                i = rng.randrange(len(c[key]))
                vals = {"global_dim": [0, 2**32, 2**32 + 1, 2**33, 3],
                        "global_strides": [0, 8, 24, 2**40, 2**40 - 16, 2**40 + 32],
                        "box_dim": [0, 255, 256, 257, 3, 5, 1000],
                        "element_strides": [0, 3, 5, 7, 8, 9]}[key]
                c[key][i] = rng.choice(vals)
        cases.append(c)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--random", type=int, default=6000)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--holdout", type=int, default=0,
                    help="only N broad random cases (use another --seed)")
    args = ap.parse_args()
    cases = []
    if args.holdout:
        holdout_draws(cases, random.Random(args.seed), args.holdout)
        write(cases, args.output)
        return
    one_factor(cases)
    enum_product(cases)
    rank_sweeps(cases)
    strided_relations(cases)
    box_size_probes(cases)
    random_draws(cases, random.Random(args.seed), args.random)
    write(cases, args.output)


def write(cases, output):
    seen, unique = set(), []
    for c in cases:
        key = json.dumps(c, sort_keys=True)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    out = open(output, "w") if output != "-" else None
    for i, c in enumerate(unique):
        c = dict(id=i, **c)
        line = json.dumps(c, separators=(",", ":"))
        print(line, file=out) if out else print(line)


if __name__ == "__main__":
    main()
