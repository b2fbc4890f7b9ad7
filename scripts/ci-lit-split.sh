#!/usr/bin/env bash
# How CI splits the lit suite between its two builds (.ci/run): every test
# runs once, in the build where it finds the most, and the release leg runs
# only what the sanitizer leg runs differently or not at all.
#
#   scripts/ci-lit-split.sh sanitizer-skip   regex of the tests the sanitizer
#                                            leg leaves out (LIT_FILTER_OUT)
#   scripts/ci-lit-split.sh release          regex of the tests the release
#                                            leg runs (LIT_FILTER)
#
# The sanitizer leg leaves out six tests to hold CI's 35 minutes:
# attention-bundled compiles the bundled attention's 36 tunable candidates
# on two targets (two minutes under the sanitizers) through code that
# tunable.test (the selection, its fallback and refusals) and
# attention-legs.test (the attention kernel's pipeline) run sanitized;
# report-bundled compiles every other bundled kernel for five targets
# through the pipeline and report code that each kernel's own tests and the
# driver's report tests run sanitized. wgmma-no-serialization and
# tcgen05-ptxas compile all of bench/gemm/gemm.kc to PTX for sm_90a and
# sm_100a and ask ptxas about it (40 s each under the sanitizers, mostly
# LLVM's backend and ptxas, neither instrumented); the same kernels go
# through kcc's lowering sanitized in the simulator GEMM tests.
# mma-sync-kcc-lowering (sm_80's mma.sync and its planted bugs) and
# difftest-legs (the bundled kernels on two simulators) re-run code that
# mma-sync-gemm, attention-legs and the kernels' own tests run sanitized
# (30-40 s each under the sanitizers).
#
# The release leg runs those two, and the tests whose RUN lines depend on
# lit's `sanitized` feature (`%if sanitized`: the simulator GEMM difftests
# run all their cases in release and a few of each kind under the
# sanitizers). Every other test runs the same commands in both builds, so it
# runs under the sanitizers only: ASan + UBSan check all that the release
# build checks, and more. `cmake --build build --target check` (README)
# still runs the whole suite; a developer's or the GPU machine's release
# build runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZER_SKIP='e2e/kernels/attention-bundled\.test|e2e/kernels/report-bundled\.test|Conversion/KccToNVVM/wgmma-no-serialization\.test|Conversion/KccToNVVM/tcgen05-ptxas\.test|e2e/sim/mma-sync-kcc-lowering\.test|e2e/sim/difftest-legs\.test'
case ${1:-} in
sanitizer-skip) echo "$SANITIZER_SKIP" ;;
release)
  mapfile -t differing < <(grep -rlw --include='*.test' --include='*.mlir' \
    --include='*.kc' --include='*.ll' 'sanitized' tests | sed 's|^tests/||' | sort)
  printf '%s' "$SANITIZER_SKIP"
  for t in "${differing[@]}"; do printf '|%s' "${t//./\\.}"; done
  echo
  ;;
*)
  echo "usage: $0 sanitizer-skip|release" >&2
  exit 2
  ;;
esac
