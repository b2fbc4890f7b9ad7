#!/usr/bin/env bash
# Measures shared-memory wavefronts and bank conflicts of the bundled kernels
# with Nsight Compute, to check kcc's bank model (kcc --report) on a GPU.
#   here:  KCC_TARGETS=sm_90a scripts/gpu-roundtrip.sh prepare
#   there: scripts/ncu-bank-check.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-ncu-results}
mkdir -p "$out"
build=${KCC_GPU_BUILD:-/tmp/kcc-gpu-build}
cmake -S tests/e2e/gpu -B "$build" -DKCC_GEN_DIR="$PWD/.gpu-gen" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
"$build/kcc-gpu-tests" --quick > "$out/gpu-tests-quick.log" 2>&1 || { tail "$out/gpu-tests-quick.log"; exit 1; }
tail -n 2 "$out/gpu-tests-quick.log"
metrics=launch__grid_size,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu --csv --metrics "$metrics" --kernel-name regex:'row_max|row_sum|softmax_f32_1024|layernorm' \
  --launch-count 40 "$build/kcc-gpu-tests" --quick > "$out/ncu-bank.csv" 2> "$out/ncu.err" || { tail "$out/ncu.err"; exit 1; }
wc -l "$out/ncu-bank.csv"
