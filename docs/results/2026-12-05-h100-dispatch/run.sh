set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mk() { cmake -S bench/gemm -B $1 -DKCC_GEN_DIR=$2 -DKCC_GEMM_STEM=$3 >/dev/null && cmake --build $1 -j 8 >/dev/null || echo BUILD_FAIL $1; }
mk /tmp/sm $PWD/.gpu-x/softmax softmax & mk /tmp/ln $PWD/.gpu-x/layernorm layernorm & mk /tmp/f $PWD/.gpu-x/fp8 fp8_gemm & wait
echo "== membound"
timeout 130 python3 bench/membound_dispatch.py --softmax /tmp/sm/libkcc_gemm.so --layernorm /tmp/ln/libkcc_gemm.so --cols 1000,1024,3000,4096,5000,8192,16384,20000 --out $OUT/membound-dispatch.md > $OUT/membound.log 2>&1; echo rc=$?
cat $OUT/membound-dispatch.md | tail -60
echo "== fp8 auto"
S=4096x4096x4096,8192x8192x8192,256x8192x8192,64x4096x14336,16x4096x4096,16x28672x8192
timeout 200 python3 bench/gemm/run_fp8.py --lib /tmp/f/libkcc_gemm.so --shapes $S --passes 2 --batches 8 --out $OUT/fp8-auto.md > $OUT/fp8-auto.log 2>&1; echo rc=$?
grep -E "FAIL" $OUT/fp8-auto.md | head -5
sed -n '/## Performance/,$p' $OUT/fp8-auto.md
