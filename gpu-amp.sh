#!/usr/bin/env bash
# One-off: the sm_80 (mma.sync) GEMMs on the H100, then memcheck.
set -u
out=$1; mkdir -p "$out"
source <(sed -n '/^watch()/,/^}/p;/^sass_counts()/,/^}/p' scripts/gpu-roundtrip.sh)
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
b=/tmp/amp
cmake -S bench/gemm -B $b -DKCC_GEN_DIR="$PWD/.gpu-gen/ampere" -DCMAKE_BUILD_TYPE=Release > "$out/cfg.log" 2>&1 && cmake --build $b -j > "$out/build.log" 2>&1 || { tail -30 "$out/cfg.log" "$out/build.log"; exit 1; }
sass_counts .gpu-gen/ampere/gemm.fatbin "$out/gemm-ampere" | head -40
watch 300 amp python3 bench/gemm/run_gemm.py --lib $b/libkcc_gemm.so --variants nn,nt,tn --outputs same,f32 --passes 1 --batches 8 --out "$out/gemm-ampere.md" > "$out/gemm-ampere.log" 2>&1; echo "bench rc=$?"; tail -n 40 "$out/gemm-ampere.log"
watch 200 ampmc env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --error-exitcode 3 python3 bench/gemm/run_gemm.py --lib $b/libkcc_gemm.so --quick --ref cpu --variants nn --out "$out/mc.md" > "$out/gemm-ampere-memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -n 4 "$out/gemm-ampere-memcheck.log"
