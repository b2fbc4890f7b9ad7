#!/usr/bin/env python3
"""Builds the seed corpora of kcc's fuzz targets from the repository.

  fuzz/make-corpus.py OUTDIR

writes OUTDIR/frontend, OUTDIR/pipeline, OUTDIR/target-model,
OUTDIR/case-file and OUTDIR/tma-legality:
  frontend      kernels/*.kc, every .kc file under tests/ and every
                `#--- NAME.kc` section of a lit test (split-file inputs)
  pipeline      64 of the same kernels (by hash), each under a header (by
                its hash) that may select another target, a warp count or
                persistence (see FuzzerUtil.h)
  target-model  targets/**/*.toml, tests/**/*.toml and `#--- NAME.toml`
                sections
  case-file     the same TOML files and bench/**/*.toml (difftest cases)
  tma-legality  the JSON Lines under tests/, a few lines per seed
  command-line  argument vectors (one per line) over the fuzzer's scratch
                files k.kc and m.toml (CommandLineFuzzer.cpp)
Files are named by content hash, so re-running adds nothing twice.
"""
import hashlib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SECTION = re.compile(r"^#--- (\S+)\s*$")
# Fuzzed inputs are kept short (-max_len); so are seeds.
MAX_SEED_BYTES = 16384


def split_file_sections(path):
    """(name, text) of every `#--- name` section of a lit test."""
    name, lines = None, []
    for line in path.read_text(errors="replace").splitlines(keepends=True):
        m = SECTION.match(line)
        if m:
            if name:
                yield name, "".join(lines)
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
    if name:
        yield name, "".join(lines)


# Too slow for one fuzz input: kernels/attention.kc compiles 36 tunable
# candidates per target, about 20 s under the sanitizers, against the 30 s
# hang limit (ci-sanitizers.sh); tests/e2e/driver/tunable.test's kernels
# seed the variant selection instead.
SLOW_SEEDS = {"kernels/attention.kc"}
# Split-file sections as slow: the verifier's step budget, exhausted on
# purpose (a minute per run under the sanitizers).
SLOW_SECTIONS = {("tests/e2e/driver/pipeline-unproven.test", "long.kc")}


def sources(suffix):
    """Every input with `suffix` in the repository, as bytes."""
    globs = {".kc": ["kernels/*.kc", "tests/**/*.kc"],
             ".toml": ["targets/**/*.toml", "tests/**/*.toml",
                       "bench/**/*.toml"],
             ".jsonl": ["tests/**/*.jsonl"]}[suffix]
    for pattern in globs:
        for path in sorted(ROOT.glob(pattern)):
            if str(path.relative_to(ROOT)) not in SLOW_SEEDS:
                yield path.read_bytes()
    for test in sorted(ROOT.glob("tests/**/*.test")):
        for name, text in split_file_sections(test):
            slow = (str(test.relative_to(ROOT)), name) in SLOW_SECTIONS
            if name.endswith(suffix) and not slow:
                yield text.encode()


RUN_LINE = re.compile(rb"RUN:.*")
# Pipeline options a seed selects (FuzzerUtil.h), besides the defaults.
HEADERS = (b"//--target=sm_80\n", b"//--target=sm_100a\n", b"//--target=gfx942\n",
           b"//--num-warps=1\n", b"//--persistent=1\n",
           b"//--target=sm_80\n//--persistent=2\n")
# Argument vectors of the command-line fuzzer, one argument per line: each
# of kcc's options at least once, over the files of its scratch directory.
COMMAND_LINES = [
    "k.kc",
    "k.kc\n--target=sm_80\n-o\nout",
    "k.kc\n--emit=tile-ir\n-o=-",
    "k.kc\n--emit=layout-ir\n--target=gfx942\n-o=-",
    "k.kc\n--report\n--target=sm_90a\n-o\nout",
    "k.kc\n--report=json\n--target-model=m.toml\n--target=sm_90a-small\n-o\nout",
    "k.kc\n-D\nT=f32\n--emit=tile-ir\n-o=-",
    "k.kc\n--kernel=scale_f16,scale_*\n--target=sm_80\n--emit=asm\n-o=-",
    "k.kc\n-O0\n-j1\n--target=sm_100a\n--emit=ptx\n-o=-",
    "k.kc\n--num-warps=8\n--persistent=1\n--target=sm_90a\n--emit=llvm\n-o=-",
    "k.kc\n--depfile=k.d\n-o\nout",
    "k.kc\nk.kc\n-o\nout",
    "--offload-arch=gfx90a\nk.kc\n--emit=obj\n-o\nout",
    "k.kc\n--time-passes\n--target=sm_80\n--emit=tile-ir\n-o=-",
    "k.kc\n--unproven-coverage=warning\n--version-masks=false\n"
    "--fallback-builds=false\n--version-branches=false\n--target=sm_90a\n"
    "--emit=layout-ir\n-o=-",
    "k.kc\n--warp-specialize=false\n--ping-pong\n--chunk-epilogues=false\n"
    "--overlap-products=false\n--warpgroup-turns\n--target=sm_90a\n"
    "--emit=layout-ir\n-o=-",
    "k.kc\n--error-limit=1\n--emit=tile-ir\n-o=-",
    "m.toml\n-o\nout",
]

# Seeds of the pipeline fuzzer (main() says why so few).
PIPELINE_SEEDS = 64
DEFINE = re.compile(rb"-D\s*(\S+=\S+)")


def with_defines(kc):
    """A test's -D options (its first RUN line's) as header comments."""
    run = RUN_LINE.search(kc)
    defines = DEFINE.findall(run.group(0)) if run else []
    return b"".join(b"//-D " + d + b"\n" for d in defines) + kc


def write(outdir, data):
    if len(data) > MAX_SEED_BYTES:
        return False
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / hashlib.sha1(data).hexdigest()
    if path.exists():
        return False
    path.write_bytes(data)
    return True


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    counts = {"frontend": 0, "pipeline": 0, "target-model": 0,
              "case-file": 0, "tma-legality": 0, "command-line": 0}
    pipeline = []
    for kc in sources(".kc"):
        kc = with_defines(kc)
        counts["frontend"] += write(out / "frontend", kc)
        # Each kernel under one header (or none), picked by its hash: every
        # header keeps its share of the kernels.
        digest = int(hashlib.sha1(kc).hexdigest(), 16)
        header = (b"",) + HEADERS
        pipeline.append((digest, header[digest % len(header)] + kc))
    # A sample of them, the same for the same repository: a pipeline run
    # takes a second or more under the sanitizers on two fifths of a core
    # (CI runs the five fuzzers at once), and libFuzzer runs every seed
    # before it mutates any; with all of them CI's minute went by in the
    # seeds (412 of them, 174 s, no mutation).
    for _, kc in sorted(pipeline)[:PIPELINE_SEEDS]:
        counts["pipeline"] += write(out / "pipeline", kc)
    for toml in sources(".toml"):
        counts["target-model"] += write(out / "target-model", toml)
        counts["case-file"] += write(out / "case-file", toml)
    for jsonl in sources(".jsonl"):
        lines = jsonl.splitlines(keepends=True)
        for i in range(0, len(lines), 3):
            counts["tma-legality"] += write(out / "tma-legality",
                                            b"".join(lines[i:i + 3]))
    for argv in COMMAND_LINES:
        counts["command-line"] += write(out / "command-line", argv.encode())
    for name, n in counts.items():
        print(f"make-corpus: {n} new seeds in {out / name}")


if __name__ == "__main__":
    main()
