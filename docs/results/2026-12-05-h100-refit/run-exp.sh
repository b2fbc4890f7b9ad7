# (1) split-K refit: the committed constants (runtime headers) vs the previous ones
#     (.gpu-gen-sk/old-model/kcc/*.h shadow them), kernels of HEAD (s3);
# (2) --pipeline-stages=6 (7-deep wgmma pipelines) vs the default 3 (4-deep), same compiler;
# (3) the fp8 kernels' split picks, new vs old constants.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
mk() { cmake -S bench/gemm -B $1 -DKCC_GEN_DIR=$2 -DKCC_GEMM_STEM=$3 >/dev/null && cmake --build $1 -j 8 >/dev/null || echo BUILD_FAIL $1; }
rm -rf /tmp/gen-old /tmp/fgen-old && cp -r .gpu-gen-sk/s3 /tmp/gen-old && cp -r .gpu-gen-sk/old-model/kcc /tmp/gen-old/
cp -r .gpu-gen-sk/fp8-new /tmp/fgen-old && cp -r .gpu-gen-sk/old-model/kcc /tmp/fgen-old/
mk /tmp/b_s3 $PWD/.gpu-gen-sk/s3 gemm_auto & mk /tmp/b_old /tmp/gen-old gemm_auto & mk /tmp/b_s6 $PWD/.gpu-gen-sk/s6 gemm_auto &
mk /tmp/f_new $PWD/.gpu-gen-sk/fp8-new fp8_gemm & mk /tmp/f_old /tmp/fgen-old fp8_gemm & wait
S=1x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,128x4096x4096,256x4096x4096,1x4096x14336,16x4096x14336,64x4096x14336,128x4096x14336,256x4096x14336,1x8192x8192,16x8192x8192,64x8192x8192,128x8192x8192,256x8192x8192,16x14336x4096,64x14336x4096,16x28672x4096
echo "== refit: shape kcc/cuBLAS(new) old/cuBLAS"
timeout 200 python3 bench/gemm/run_gemm.py --lib /tmp/b_s3/libkcc_gemm.so --compare-lib old=/tmp/b_old/libkcc_gemm.so --variants nt --dtypes bf16 --outputs same --shapes $S --check-shapes 7x1000x3000 --passes 3 --batches 10 --no-triton --out $OUT/refit.md > $OUT/refit.log 2>&1; echo rc=$?
grep -E "^\| N[TN]" $OUT/refit.md | awk -F'|' 'NF>10 && $9+0>0 {print $4, $5, $9, $12}'
echo "== stages: shape kcc/cuBLAS(s3) s6/cuBLAS"
timeout 220 python3 bench/gemm/run_gemm.py --lib /tmp/b_s3/libkcc_gemm.so --compare-lib s6=/tmp/b_s6/libkcc_gemm.so --variants nt --dtypes bf16 --outputs same --shapes $S,4096x4096x4096,8192x8192x8192,4096x14336x4096,16384x4096x4096 --check-shapes 7x1000x3000 --passes 3 --batches 10 --no-triton --out $OUT/stages.md > $OUT/stages.log 2>&1; echo rc=$?
grep -E "^\| N[TN]" $OUT/stages.md | awk -F'|' 'NF>10 && $9+0>0 {print $4, $5, $9, $12}'
echo "== fp8"
timeout 120 python3 bench/gemm/run_fp8.py --lib /tmp/f_new/libkcc_gemm.so --compare-lib old=/tmp/f_old/libkcc_gemm.so --shapes 16x4096x4096,64x4096x4096,16x4096x14336,64x4096x14336,16x8192x8192 --passes 2 --batches 8 --out $OUT/fp8-refit.md > $OUT/fp8-refit.log 2>&1; echo rc=$?
grep -E "^\|" $OUT/fp8-refit.md | grep -v "PASS\|FAIL" | tail -25
