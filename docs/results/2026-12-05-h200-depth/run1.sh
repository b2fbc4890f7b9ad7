set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd .gpu-x && tar xzf gen.tgz && cd ..
mk() { cmake -S bench/gemm -B $1 -DKCC_GEN_DIR=$2 -DKCC_GEMM_STEM=gemm_auto >/dev/null && cmake --build $1 -j 8 >/dev/null || echo BUILD_FAIL $1; }
mk /tmp/bs $PWD/.gpu-x/s & mk /tmp/bb $PWD/.gpu-x/base & wait
ARGS=""
SH=""
for mnk in 1x4096x4096 16x4096x4096 32x4096x4096 64x4096x4096 128x4096x4096 256x4096x4096 \
  1x4096x14336 16x4096x14336 64x4096x14336 128x4096x14336 256x4096x14336 \
  1x8192x8192 16x8192x8192 64x8192x8192 128x8192x8192 256x8192x8192 \
  1x14336x4096 16x14336x4096 64x14336x4096 256x14336x4096 16x28672x4096 64x28672x4096 \
  1024x4096x4096 4096x4096x4096 8192x8192x8192 4096x14336x4096 4096x4096x14336 16384x4096x4096 100x4096x4096 3000x4096x4096; do
  IFS=x read m n k <<< "$mnk"
  ARGS="$ARGS gemm_nt_bf16_bf16:c=${m}x${n},a=${m}x${k},bt=${n}x${k} gemm_bf16_bf16:c=${m}x${n},a=${m}x${k},b=${k}x${n}"
done
echo "== tuner"
timeout 240 /tmp/bs/kcc_gemm_tune --repeat 30 -o $OUT/tune-s.json $ARGS > $OUT/tune-s.log 2>&1; echo rc=$?
tail -3 $OUT/tune-s.log
S=1x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,128x4096x4096,256x4096x4096,1x4096x14336,16x4096x14336,64x4096x14336,128x4096x14336,256x4096x14336,1x8192x8192,16x8192x8192,64x8192x8192,128x8192x8192,256x8192x8192,16x14336x4096,64x14336x4096,16x28672x4096,4096x4096x4096,8192x8192x8192,4096x14336x4096,16384x4096x4096
echo "== model: S-tunable vs base"
timeout 280 python3 bench/gemm/run_gemm.py --lib /tmp/bs/libkcc_gemm.so --compare-lib base=/tmp/bb/libkcc_gemm.so --variants nt --dtypes bf16 --outputs same --shapes $S --check-shapes 7x1000x3000,1x4096x4096 --passes 3 --batches 10 --no-triton --out $OUT/model.md > $OUT/model.log 2>&1; echo rc=$?
grep -E "^\| N[TN]" $OUT/model.md | awk -F'|' 'NF>10 && $9+0>0 {print $4, $5, $9, $12}'
