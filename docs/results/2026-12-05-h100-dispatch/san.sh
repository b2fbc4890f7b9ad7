set -u
mk() { cmake -S bench/gemm -B $1 -DKCC_GEN_DIR=$2 -DKCC_GEMM_STEM=$3 >/dev/null && cmake --build $1 -j 16 >/dev/null || echo BUILD_FAIL $1; }
mk /tmp/sm $PWD/.gpu-x/softmax softmax & mk /tmp/ln $PWD/.gpu-x/layernorm layernorm & mk /tmp/f $PWD/.gpu-x/fp8 fp8_gemm & wait
timeout 100 compute-sanitizer --tool memcheck python3 bench/gemm/fp8_sanitize.py --fp8-lib /tmp/f/libkcc_gemm.so 2>&1 | grep -E "auto|ERROR SUMMARY|status [^0]" | tail -5
timeout 100 compute-sanitizer --tool memcheck python3 bench/membound_dispatch.py --softmax /tmp/sm/libkcc_gemm.so --layernorm /tmp/ln/libkcc_gemm.so --elements 40000 --cols 1000,3000,5000,20000 --out /tmp/m.md 2>&1 | grep -E "ERROR SUMMARY|FAIL|Geomean" | tail -5
