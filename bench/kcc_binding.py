"""kcc's generated C entry points called from Python (the benchmarks in
bench/*/run.py): one specialization's function with its arguments by name,
and the Markdown report they all write. The library is the one
bench/gemm/CMakeLists.txt builds from the generated stubs."""
import argparse
import ctypes

import torch

CT = {"i32": ctypes.c_int32, "i64": ctypes.c_int64, "f32": ctypes.c_float}


class Kernel:
    """One specialization's C entry point, its arguments by name."""

    def __init__(self, lib, spec):
        self.symbol = spec["symbol"]
        self.params = [p for p in spec["params"] if p["kind"] != "tensormap"]
        self.fn = getattr(lib, "kcc_" + self.symbol)
        self.fn.argtypes = [ctypes.c_void_p if p["kind"] == "pointer" else CT[p["type"]]
                            for p in self.params] + [ctypes.c_void_p]
        self.fn.restype = ctypes.c_int
        self.last_error = lib.kcc_last_error_message
        self.last_error.restype = ctypes.c_char_p

    def bind(self, args):
        values = []
        for p in self.params:
            v = args[p["name"]]
            values.append(v.data_ptr() if p["kind"] == "pointer" else v)
        stream = torch.cuda.current_stream().cuda_stream

        def call():
            rc = self.fn(*values, stream)
            if rc != 0:
                raise RuntimeError(f"{self.symbol}: {self.last_error().decode()}")
        return call


def write_report(lines, out):
    """Prints the Markdown table and writes it to `out` when given."""
    text = "\n".join(lines)
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


def arguments(doc, out=None):
    """The arguments every bench/*/run.py takes (more are added to the
    parser it returns): the library bench/gemm builds from the stubs, the
    manifest kcc wrote beside them, and where the report goes."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--lib", required=True, help="libkcc_gemm.so built by bench/gemm")
    ap.add_argument("--manifest", required=True, help="the manifest kcc wrote beside the stubs")
    ap.add_argument("--out", default=out, help="write the Markdown report here too")
    return ap
