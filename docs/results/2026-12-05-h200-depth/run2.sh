set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd .gpu-x && tar xzf gen2.tgz && cd ..
mk() { cmake -S bench/gemm -B $1 -DKCC_GEN_DIR=$2 -DKCC_GEMM_STEM=gemm_auto >/dev/null && cmake --build $1 -j 6 >/dev/null || echo BUILD_FAIL $1; }
mk /tmp/bs $PWD/.gpu-x/s & mk /tmp/bt $PWD/.gpu-x/t & mk /tmp/bb $PWD/.gpu-x/base & wait
S=1x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,128x4096x4096,256x4096x4096,1x4096x14336,16x4096x14336,64x4096x14336,128x4096x14336,256x4096x14336,1x8192x8192,16x8192x8192,64x8192x8192,128x8192x8192,256x8192x8192,16x14336x4096,64x14336x4096,16x28672x4096,100x4096x4096,200x4096x14336,3000x4096x4096,4096x4096x4096,8192x8192x8192,4096x14336x4096,16384x4096x4096
echo "== depth: model / tuned / base"
timeout 400 python3 bench/gemm/run_gemm.py --lib /tmp/bs/libkcc_gemm.so --compare-lib tuned=/tmp/bt/libkcc_gemm.so --compare-lib base=/tmp/bb/libkcc_gemm.so --variants nt,nn --dtypes bf16 --outputs same --shapes $S --check-shapes 7x1000x3000,1x4096x4096,100x1000x3000 --passes 3 --batches 10 --no-triton --out $OUT/depth.md > $OUT/depth.log 2>&1; echo rc=$?
grep -E "^\| N[TN]" $OUT/depth.md | awk -F'|' 'NF>10 && $9+0>0' | cut -c1-200 | tail -60
echo "== every S=6 candidate forced, checked"
for v in 64_64_64_6 64_128_64_6 64_256_64_6 128_64_64_6 128_128_64_6; do
  KCC_VARIANT=gemm_nt_bf16_bf16_$v timeout 60 python3 bench/gemm/run_gemm.py --lib /tmp/bs/libkcc_gemm.so --variants nt --dtypes bf16 --outputs same --shapes 1x256x256 --check-shapes 7x1000x3000,1x4096x4096,100x1000x3000,300x520x4160 --passes 1 --batches 2 --no-triton --out $OUT/check-$v.md > $OUT/check-$v.log 2>&1; echo "$v rc=$? $(grep -c '| ok |' $OUT/check-$v.md) ok $(grep -ci 'fail' $OUT/check-$v.md) fail"
done
echo "== memcheck over every candidate (tuner)"
timeout 200 compute-sanitizer --tool memcheck /tmp/bs/kcc_gemm_tune --repeat 1 -o /tmp/x.json gemm_nt_bf16_bf16:c=100x1000,a=100x3000,bt=1000x3000 gemm_nt_bf16_bf16:c=1x4096,a=1x4096,bt=4096x4096 gemm_bf16_bf16:c=7x1000,a=7x3000,b=3000x1000 > $OUT/memcheck.log 2>&1; echo rc=$?; tail -3 $OUT/memcheck.log
