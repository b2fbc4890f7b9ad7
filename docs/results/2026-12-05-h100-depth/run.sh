set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd .gpu-x && tar xzf gen2.tgz && tar xzf fc.tgz && tar xzf k.tgz && cd ..
mk() { cmake -S bench/gemm -B $1 -DKCC_GEN_DIR=$2 -DKCC_GEMM_STEM=$3 >/dev/null && cmake --build $1 -j 4 >/dev/null || echo BUILD_FAIL $1; }
mk /tmp/bs $PWD/.gpu-x/s gemm_auto & mk /tmp/bt $PWD/.gpu-x/t gemm_auto & mk /tmp/bb $PWD/.gpu-x/base gemm_auto & wait
(mk /tmp/bk $PWD/.gpu-x/k gemm_auto & mk /tmp/ff $PWD/.gpu-x/f fp8_gemm & mk /tmp/ffb $PWD/.gpu-x/fb fp8_gemm & mk /tmp/ffc $PWD/.gpu-x/fc fp8_gemm & wait) > /dev/null 2>&1 &
BG=$!
S=1x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,128x4096x4096,256x4096x4096,1x4096x14336,16x4096x14336,64x4096x14336,128x4096x14336,256x4096x14336,1x8192x8192,16x8192x8192,64x8192x8192,128x8192x8192,256x8192x8192,16x14336x4096,64x14336x4096,16x28672x4096,100x4096x4096,200x4096x14336,3000x4096x4096,4096x4096x4096,8192x8192x8192,4096x14336x4096,16384x4096x4096
echo "== depth: model / tuned / base (NT bf16)"
timeout 150 python3 bench/gemm/run_gemm.py --lib /tmp/bs/libkcc_gemm.so --compare-lib tuned=/tmp/bt/libkcc_gemm.so --compare-lib base=/tmp/bb/libkcc_gemm.so --variants nt --dtypes bf16 --outputs same --shapes $S --check-shapes 7x1000x3000,1x4096x4096,100x1000x3000 --passes 2 --batches 10 --no-triton --out $OUT/depth.md > $OUT/depth.log 2>&1; echo rc=$?
echo "== every stages(6) candidate forced, checked"
for v in 64_64_64_6 64_128_64_6 128_128_64_6; do
  KCC_VARIANT=gemm_nt_bf16_bf16_$v timeout 40 python3 bench/gemm/run_gemm.py --lib /tmp/bs/libkcc_gemm.so --variants nt --dtypes bf16 --outputs same --shapes 1x256x256 --check-shapes 7x1000x3000,1x4096x4096,100x1000x3000,300x520x4160 --passes 1 --batches 2 --no-triton --out $OUT/check-$v.md > $OUT/check-$v.log 2>&1; echo "$v rc=$? $(grep -c '| ok |' $OUT/check-$v.md) ok $(grep -ci 'fail' $OUT/check-$v.md) fail"
done
wait $BG
echo "== fp8"
timeout 100 python3 bench/gemm/run_fp8.py --lib /tmp/ff/libkcc_gemm.so --compare-lib base=/tmp/ffb/libkcc_gemm.so --compare-lib clusters=/tmp/ffc/libkcc_gemm.so --shapes 16x4096x4096,64x4096x4096,64x4096x14336,16x8192x8192,256x8192x8192,4096x4096x4096,8192x8192x8192 --passes 2 --batches 6 --out $OUT/fp8-depth.md > $OUT/fp8-depth.log 2>&1; echo rc=$?
echo "== BK x S tuner"
KA=""
for mnk in 1x4096x4096 16x4096x4096 64x4096x4096 256x4096x4096 1x4096x14336 16x4096x14336 64x4096x14336 256x4096x14336 1x8192x8192 16x8192x8192 64x8192x8192 256x8192x8192 16x14336x4096 64x14336x4096 16x28672x4096 4096x4096x4096 8192x8192x8192; do
  IFS=x read m n k <<< "$mnk"; KA="$KA gemm_nt_bf16_bf16:c=${m}x${n},a=${m}x${k},bt=${n}x${k}"; done
timeout 60 /tmp/bk/kcc_gemm_tune --repeat 20 -o $OUT/tune-k.json $KA > $OUT/tune-k.log 2>&1; echo tune rc=$?
echo "== memcheck (every candidate, tuner)"
timeout 60 compute-sanitizer --tool memcheck /tmp/bs/kcc_gemm_tune --repeat 1 -o /tmp/x.json gemm_nt_bf16_bf16:c=100x1000,a=100x3000,bt=1000x3000 gemm_nt_bf16_bf16:c=1x4096,a=1x4096,bt=4096x4096 > $OUT/memcheck.log 2>&1; echo rc=$?; tail -2 $OUT/memcheck.log
