#!/usr/bin/env bash
# The sanitizer and fuzzing leg of CI (issue #10; docs/fuzzing.md):
#   1. configure build-san with ASan + UBSan and the libFuzzer targets
#      (cmake/KccSanitizers.cmake) and build the tools, tests and fuzzers;
#   2. run the test suite in it (ctest; the lit tests run build-san/bin/kcc;
#      no stack-use-after-return detection, see below) but for the two
#      tests that exercise no sanitized code beyond what the suite already
#      runs: cmake-package (installs, builds a consumer with
#      the host compiler, makes a .deb) and gpu-programs-build (compiles the
#      GPU programs with nvcc and the host compiler). Both run in the
#      release leg (`check`). For the same reason the bundled kernels (the
#      `kernels` target: kcc over kernels/*.kc, then ptxas and the host
#      compiler on the stubs) are not rebuilt here: lit compiles every
#      bundled kernel for every target with the sanitized kcc.
#   3. run each fuzz target from its seed corpus for a bounded time (all at
#      once), failing on any crash, sanitizer report or hang.
# Environment:
#   KCC_FUZZ_SECONDS  seconds per fuzz target (default 60; 0 skips fuzzing)
#   KCC_SAN_BUILD     build directory (default build-san)
#   KCC_SAN_JOBS      parallel build jobs (default: the number of cores)
# On a crash the reproducer is left in $KCC_SAN_BUILD/fuzz-artifacts/ and the
# script exits non-zero; fuzz/README.md says how to turn it into a test.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${KCC_SAN_BUILD:-build-san}
SECONDS_PER_TARGET=${KCC_FUZZ_SECONDS:-60}
JOBS=${KCC_SAN_JOBS:-$(nproc)}
start=$(date +%s)
step() { echo "ci-sanitizers: [$(( $(date +%s) - start ))s] $*"; }

step "configure $BUILD (KCC_SANITIZE=ON, KCC_FUZZERS=ON)"
cmake -S . -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DKCC_CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}" \
  -DKCC_SANITIZE=ON -DKCC_FUZZERS=ON >/dev/null

step "build"
cmake --build "$BUILD" --parallel "$JOBS" --target check-deps fuzzers

step "test suite under ASan + UBSan"
# The suite runs without ASan's stack-use-after-return detection: its fake
# stack frames cost a third of the verifier's time under the sanitizers (the
# suite's largest part, docs/architecture.md "Build and CI"). The fuzzers
# below keep it, as every other ASan check stays on in both.
# Nor does it fill new heap blocks with 0xbe (max_malloc_fill_size=0): a
# debugging aid, not a check, paid on every allocation of LLVM and MLIR too.
# Six lit tests are left to the release leg (scripts/ci-lit-split.sh says
# which and why).
skip=$(scripts/ci-lit-split.sh sanitizer-skip)
(cd "$BUILD" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_stack_use_after_return=0:max_malloc_fill_size=0" \
   LIT_FILTER_OUT="$skip" \
   ctest --output-on-failure -E '^(cmake-package|gpu-programs-build)$')

if [ "$SECONDS_PER_TARGET" -le 0 ]; then
  step "KCC_FUZZ_SECONDS=$SECONDS_PER_TARGET: fuzzing skipped"
  exit 0
fi

# Seeds from the repository (kernels, test inputs, target models), then
# each target for a bounded time. The working corpus starts empty each run:
# CI measures the seeds' neighbourhood, not an ever-growing corpus.
CORPUS=$BUILD/fuzz-corpus
ARTIFACTS=$BUILD/fuzz-artifacts
rm -rf "$CORPUS" "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
python3 fuzz/make-corpus.py "$CORPUS/seeds"
# All targets at once, each for the whole time: with six targets on two
# cores each gets a third of a core (one per core in turn left a core idle
# for the last minute).
fuzz() { # target
  local target=$1 dict=fuzz/kc.dict
  case $target in
  target-model | case-file) dict=fuzz/toml.dict ;;
  tma-legality) dict=fuzz/json.dict ;;
  command-line) dict=fuzz/cli.dict ;;
  esac
  mkdir -p "$CORPUS/$target"
  # -timeout: one input taking 30 s is a hang (the largest seed, all 7
  # specializations of layernorm through the pipeline, takes about 3 s).
  # -rss_limit_mb: the context pool keeps memory flat (FuzzerUtil.h).
  "$BUILD/bin/kcc-$target-fuzzer" "$CORPUS/$target" "$CORPUS/seeds/$target" \
    -dict="$dict" -max_total_time="$SECONDS_PER_TARGET" -timeout=30 \
    -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$ARTIFACTS/$target-" >"$ARTIFACTS/$target.log" 2>&1
}
report() { # target exit-status
  if [ "$2" -ne 0 ]; then
    echo "ci-sanitizers: FAIL: kcc-$1-fuzzer found a bug; the end of its log:" >&2
    tail -n 60 "$ARTIFACTS/$1.log" >&2
    ls "$ARTIFACTS" >&2
    status=1
  else
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" \
      "$ARTIFACTS/$1.log" | sed "s/^/ci-sanitizers:   $1 /"
  fi
}
status=0
targets=(frontend pipeline target-model case-file tma-legality command-line)
step "fuzz ${targets[*]} for ${SECONDS_PER_TARGET}s each"
pids=()
for target in "${targets[@]}"; do
  fuzz "$target" &
  pids+=($!)
done
for j in "${!targets[@]}"; do
  rc=0
  wait "${pids[$j]}" || rc=$?
  report "${targets[$j]}" "$rc"
done
step "done"
exit $status
