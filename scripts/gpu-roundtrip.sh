#!/usr/bin/env bash
# kcc's GPU round trip, in three steps:
#   1. here, where kcc is built:        scripts/gpu-roundtrip.sh prepare
#        compiles kernels/*.kc into .gpu-gen/ (fatbins, stubs, manifests)
#   2. copy the source tree and .gpu-gen/ to a machine with an NVIDIA GPU
#        (in kcc's workplace: the device tool's `run` with carry=[".gpu-gen"];
#        elsewhere: rsync/scp)
#   3. there (CMake, a C++ compiler, the CUDA toolkit; no LLVM needed):
#        scripts/gpu-roundtrip.sh remote [OUTDIR]
#        builds the runtime + stubs + tests, runs every GPU test, runs them
#        again under compute-sanitizer memcheck, racecheck and synccheck
#        (--quick), and runs the memory-bound
#        benchmark against PyTorch, and, where .gpu-gen/gemm.kcc.cpp exists,
#        the GEMM benchmark (bench/gemm: correctness, then kcc vs cuBLAS vs
#        Triton); logs and the reports go to OUTDIR.
# The GEMM part alone, for a short device call:
#   there:  scripts/gpu-roundtrip.sh remote-gemm [OUTDIR]
#        builds bench/gemm (libkcc_gemm.so from .gpu-gen/gemm.kcc.cpp), counts
#        the tensor-core/TMA instructions in the SASS of .gpu-gen/gemm.fatbin
#        (OUTDIR/gemm-sass.txt), runs bench/gemm/run_gemm.py (OUTDIR/gemm.md,
#        gemm.jsonl, gemm.log) and its --quick correctness pass under
#        compute-sanitizer memcheck (OUTDIR/gemm-memcheck.log); the same for
#        the sm_80 (mma.sync) build in .gpu-gen/ampere (OUTDIR/gemm-ampere*).
# FP8 and grouped GEMMs (docs/gemm.md): here `prepare-fp8` (into
#   .gpu-gen-fp8/), there `remote-fp8 [OUTDIR]` (fp8.md, moe.md, SASS
#   counts, the sanitizers).
#   there:  scripts/gpu-roundtrip.sh remote-gemm-ampere [OUTDIR]
#        the sm_80 part alone (KCC_GEMM_AMPERE_ARGS: its run_gemm.py flags,
#        e.g. "--variants nn,nt,tn --outputs same,f32 --passes 1 --batches 8"
#        for docs/results/2026-11-23-h100-ampere-cp-async).
#        KCC_GEMM_ARGS adds run_gemm.py flags to the benchmark run (e.g.
#        "--dtypes f16 --variants nn" or "--quick"); KCC_GEMM_TIMEOUT (480 s)
#        and KCC_GEMM_MEMCHECK_TIMEOUT (300 s) are the watchdog limits;
#        KCC_GEMM_MEMCHECK=0 skips the memcheck pass.
# The CMake consumer (examples/cmake-consumer), the same way:
#   here:   scripts/gpu-roundtrip.sh prepare-consumer   (install kcc to a
#           prefix, build the example against it, keep the program and its
#           generated stubs in .gpu-gen/consumer/)
#   there:  scripts/gpu-roundtrip.sh remote-consumer [OUTDIR]   (runs it, and
#           under compute-sanitizer; rebuilds it from the generated stubs
#           with the local C++ compiler if the binary cannot start there)
set -euo pipefail
cd "$(dirname "$0")/.."
step=${1:-}

# A watchdog around every GPU run: a kernel that hangs (a barrier nobody
# arrives at) fails the run with a message instead of stalling it.
watch() { # seconds name command...
  local secs=$1 name=$2; shift 2
  timeout --kill-after=10 "$secs" "$@"
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "FAIL $name: no result after ${secs}s (hang?); killed by the watchdog" >&2
  fi
  return $rc
}

# SASS instruction counts per kernel and image of a fatbin: tensor-core MMAs
# (HMMA sm_80, HGMMA sm_90a wgmma, QGMMA its fp8 form, UTC*MMA sm_100a tcgen05), TMA (UTMALDG,
# UTMASTG), cp.async (LDGSTS), ldmatrix (LDSM), spills (LDL/STL), barriers
# (BAR, SYNCS = mbarrier), warpgroup fences (WARPGROUP). The full listing is
# kept gzipped.
sass_counts() { # fatbin out-prefix
  local fatbin=$1 prefix=$2 cuobjdump
  [ -f "$fatbin" ] || { echo "no $fatbin" >&2; return 1; }
  cuobjdump=$(command -v cuobjdump || echo "${CUDA_PATH:-/usr/local/cuda}/bin/cuobjdump")
  if ! "$cuobjdump" -sass "$fatbin" > "$prefix.sass" 2> "$prefix.sass.err"; then
    # Where cuobjdump does not take the fatbin whole: its ELF images one by one.
    local tmp abs
    tmp=$(mktemp -d)
    abs=$(cd "$(dirname "$fatbin")" && pwd)/$(basename "$fatbin")
    if ! (cd "$tmp" && "$cuobjdump" -xelf all "$abs" > /dev/null) ||
       ! "$cuobjdump" -sass "$tmp"/*.cubin > "$prefix.sass" 2>> "$prefix.sass.err"; then
      rm -rf "$tmp"; cat "$prefix.sass.err" >&2; return 1
    fi
    rm -rf "$tmp"
  fi
  awk -v src="$fatbin" '
    /code for sm_/ { arch = $NF }
    /Function :/ {
      key = arch " " $NF
      if (!(key in seen)) { seen[key] = 1; order[++n] = key }
      next
    }
    /^[ \t]*\/\*[0-9a-f]+\*\// {
      line = $0
      sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
      if (line ~ /^@/) sub(/^@[^ \t]+[ \t]+/, "", line)
      split(line, w, /[ \t;]+/)
      op = w[1]; sub(/\..*/, "", op)
      if (op == "" || key == "") next
      if (op ~ /^UTC.*MMA$/) op = "UTCMMA"
      insts[key]++; count[key, op]++
    }
    END {
      ncols = split("HGMMA QGMMA HMMA UTCMMA UTMALDG UTMASTG LDGSTS LDSM LDL STL BAR SYNCS WARPGROUP", cols, " ")
      printf "# SASS of %s (cuobjdump -sass): instructions per kernel and image\n", src
      printf "%-8s %-36s %6s", "arch", "function", "insts"
      for (i = 1; i <= ncols; i++) printf " %9s", cols[i]
      printf "\n"
      for (j = 1; j <= n; j++) {
        k = order[j]; split(k, kv, " ")
        printf "%-8s %-36s %6d", kv[1], kv[2], insts[k]
        for (i = 1; i <= ncols; i++) printf " %9d", count[k, cols[i]]
        printf "\n"
        total[kv[1]] += count[k, "HGMMA"]
      }
      for (a in total) printf "HGMMA total %s: %d\n", a, total[a]
      if (n == 0) print "no kernels found in the listing"
    }' "$prefix.sass" > "$prefix-sass.txt"
  gzip -f "$prefix.sass"
  rm -f "$prefix.sass.err"
  cat "$prefix-sass.txt"
}

# The sm_80 build of the GEMMs (mma.sync from cp.async stages), its
# compute_80 PTX JIT-compiled for the GPU at hand: checked against torch.mm,
# timed beside cuBLAS and Triton in its own process (OUTDIR/gemm-ampere.md;
# KCC_GEMM_AMPERE_ARGS, default "--variants nn --outputs same"), and with
# "full" the SASS counts and memcheck.
gemm_ampere() { # out build [full]
  local out=$1 build=$2 full=${3:-} status=0
  if ! cmake -S bench/gemm -B "$build-ampere" -DKCC_GEN_DIR="$PWD/.gpu-gen/ampere" \
      -DCMAKE_BUILD_TYPE=Release > "$out/gemm-configure-ampere.log" 2>&1 ||
    ! cmake --build "$build-ampere" -j > "$out/gemm-build-ampere.log" 2>&1; then
    cat "$out/gemm-configure-ampere.log" "$out/gemm-build-ampere.log"; return 1
  fi
  [ -n "$full" ] && { sass_counts .gpu-gen/ampere/gemm.fatbin "$out/gemm-ampere" || status=1; }
  # shellcheck disable=SC2086 # KCC_GEMM_AMPERE_ARGS is a list of flags
  watch "${KCC_GEMM_TIMEOUT:-480}" gemm-ampere python3 bench/gemm/run_gemm.py \
    --lib "$build-ampere/libkcc_gemm.so" ${KCC_GEMM_AMPERE_ARGS:---variants nn --outputs same} \
    --out "$out/gemm-ampere.md" > "$out/gemm-ampere.log" 2>&1 || status=1
  tail -n 30 "$out/gemm-ampere.log"
  bmm_compare=()
  KCC_BMM_ARGS="--quick" bmm_bench "$out" "$build-ampere/libkcc_gemm.so" -ampere || status=1
  if [ -n "$full" ] && [ "${KCC_GEMM_MEMCHECK:-1}" != 0 ]; then
    watch "${KCC_GEMM_MEMCHECK_TIMEOUT:-300}" gemm-ampere-memcheck env PYTORCH_NO_CUDA_MEMORY_CACHING=1 \
      compute-sanitizer --tool memcheck --error-exitcode 3 \
      python3 bench/gemm/run_gemm.py --lib "$build-ampere/libkcc_gemm.so" --quick --ref cpu \
      --variants nn --out "$out/gemm-ampere-memcheck.md" > "$out/gemm-ampere-memcheck.log" 2>&1 || status=1
    tail -n 3 "$out/gemm-ampere-memcheck.log"
  fi
  return $status
}

# The batched GEMMs of the same library (bench/gemm/run_bmm.py): checks
# against torch.bmm and, unless KCC_BMM_ARGS says --quick, timings beside
# torch.bmm and Triton; with "full" also the checks under memcheck.
bmm_compare=() # a second library for run_bmm.py (gemm_bench sets it)
bmm_bench() { # out lib label [full]
  local out=$1 lib=$2 label=$3 full=${4:-} status=0
  # shellcheck disable=SC2086 # KCC_BMM_ARGS is a list of flags
  watch "${KCC_GEMM_TIMEOUT:-480}" "bmm$label" python3 bench/gemm/run_bmm.py --lib "$lib" \
    "${bmm_compare[@]}" ${KCC_BMM_ARGS:-} --out "$out/bmm$label.md" > "$out/bmm$label.log" 2>&1 || status=1
  tail -n 25 "$out/bmm$label.log"
  if [ -n "$full" ] && [ "${KCC_GEMM_MEMCHECK:-1}" != 0 ]; then
    watch "${KCC_GEMM_MEMCHECK_TIMEOUT:-300}" "bmm$label-memcheck" env PYTORCH_NO_CUDA_MEMORY_CACHING=1 \
      compute-sanitizer --tool memcheck --error-exitcode 3 \
      python3 bench/gemm/run_bmm.py --lib "$lib" --quick \
      --out "$out/bmm$label-memcheck.md" > "$out/bmm$label-memcheck.log" 2>&1 || status=1
    tail -n 3 "$out/bmm$label-memcheck.log"
  fi
  return $status
}

# The GEMM benchmark: builds bench/gemm (libkcc_gemm.so) from the generated
# stubs and runs run_gemm.py under the watchdog; with "full" also the SASS
# counts and the --quick correctness pass under compute-sanitizer memcheck
# (torch's caching allocator off, so memcheck sees each tensor's own bounds).
gemm_bench() { # out build [full]
  local out=$1 build=$2 full=${3:-} status=0 lib
  cmake -S bench/gemm -B "$build" -DKCC_GEN_DIR="$PWD/.gpu-gen" -DCMAKE_BUILD_TYPE=Release \
    > "$out/gemm-configure.log" 2>&1 || { cat "$out/gemm-configure.log"; return 1; }
  cmake --build "$build" -j > "$out/gemm-build.log" 2>&1 || { cat "$out/gemm-build.log"; return 1; }
  lib=$build/libkcc_gemm.so
  # The same kernels compiled another way (prepare: .gpu-gen/<label>, see
  # KCC_GEMM_COMPARE), timed side by side as kernel@<label>.
  compare=()
  local label=${KCC_GEMM_COMPARE:-persistent}
  if [ -f ".gpu-gen/$label/gemm.kcc.cpp" ]; then
    cmake -S bench/gemm -B "$build-$label" -DKCC_GEN_DIR="$PWD/.gpu-gen/$label" \
      -DCMAKE_BUILD_TYPE=Release > "$out/gemm-configure-$label.log" 2>&1 &&
      cmake --build "$build-$label" -j > "$out/gemm-build-$label.log" 2>&1 &&
      compare=(--compare-lib "$label=$build-$label/libkcc_gemm.so")
  fi
  if [ -n "$full" ]; then
    sass_counts .gpu-gen/gemm.fatbin "$out/gemm" || status=1
  fi
  # shellcheck disable=SC2086 # KCC_GEMM_ARGS is a list of flags
  watch "${KCC_GEMM_TIMEOUT:-480}" gemm python3 bench/gemm/run_gemm.py --lib "$lib" \
    "${compare[@]}" --out "$out/gemm.md" ${KCC_GEMM_ARGS:-} 2>&1 | tee "$out/gemm.log" || status=1
  # Split-K launches (decode shapes): the same bits twice, within tolerance.
  watch 180 gemm-split-k python3 bench/gemm/split_k_check.py --lib "$lib" \
    --out "$out/gemm-split-k.md" > "$out/gemm-split-k.log" 2>&1 || status=1
  tail -n 1 "$out/gemm-split-k.log"
  bmm_compare=("${compare[@]}")
  bmm_bench "$out" "$lib" "" "$full" || status=1
  # The sm_80 build (mma.sync), JIT-compiled from its PTX.
  if [ -f .gpu-gen/ampere/gemm.kcc.cpp ]; then
    gemm_ampere "$out" "$build" "$full" || status=1
  fi
  if [ -n "$full" ] && [ "${KCC_GEMM_MEMCHECK:-1}" != 0 ]; then
    watch "${KCC_GEMM_MEMCHECK_TIMEOUT:-300}" gemm-memcheck env PYTORCH_NO_CUDA_MEMORY_CACHING=1 \
      compute-sanitizer --tool memcheck --error-exitcode 3 \
      python3 bench/gemm/run_gemm.py --lib "$lib" --quick --ref cpu \
      --out "$out/gemm-memcheck.md" > "$out/gemm-memcheck.log" 2>&1 || status=1
    tail -n 3 "$out/gemm-memcheck.log"
  fi
  return $status
}

case "$step" in
prepare)
  kcc=${KCC:-build/bin/kcc}
  [ -x "$kcc" ] || { echo "no $kcc: run scripts/bootstrap.sh first" >&2; exit 1; }
  rm -rf .gpu-gen && mkdir -p .gpu-gen
  "$kcc" kernels/*.kc -o .gpu-gen --target="${KCC_TARGETS:-sm_80,sm_90a,sm_100a}"
  # The GEMM benchmark kernels (wgmma on sm_90a; not bundled yet: their
  # tile sizes do not suit the FMA fallback of the other targets).
  "$kcc" bench/gemm/gemm.kc -o .gpu-gen --target=sm_90a
  # A second build of them, timed beside the first (gemm_bench):
  # KCC_GEMM_COMPARE=persistent (default; --persistent=1) or onerole
  # (--warp-specialize=false).
  case "${KCC_GEMM_COMPARE:-persistent}" in
  persistent) flags=(--persistent=1) ;;
  onerole) flags=(--warp-specialize=false) ;;
  *) echo "KCC_GEMM_COMPARE must be persistent or onerole" >&2; exit 1 ;;
  esac
  mkdir -p ".gpu-gen/${KCC_GEMM_COMPARE:-persistent}"
  "$kcc" bench/gemm/gemm.kc -o ".gpu-gen/${KCC_GEMM_COMPARE:-persistent}" --target=sm_90a "${flags[@]}"
  # The same kernels for sm_80 only (mma.sync + ldmatrix): the fatbin's
  # compute_80 PTX is JIT-compiled for the H100, so the Ampere path runs
  # there (gemm_bench: its own correctness pass and table).
  mkdir -p .gpu-gen/ampere
  "$kcc" bench/gemm/gemm.kc -o .gpu-gen/ampere --target=sm_80
  # For the "no image for this GPU" test: a fatbin that holds Blackwell only.
  "$kcc" tests/e2e/gpu/Inputs/blackwell_only.kc -o .gpu-gen --target=sm_100a
  # `while` loops: data-dependent trips and a contended ticket lock.
  "$kcc" tests/e2e/gpu/Inputs/while_loops.kc -o .gpu-gen --target="${KCC_TARGETS:-sm_80,sm_90a,sm_100a}"
  # More than 48 KiB of dynamic shared memory (cuFuncSetAttribute at launch).
  "$kcc" tests/e2e/gpu/Inputs/big_smem.kc -o .gpu-gen --target="${KCC_TARGETS:-sm_80,sm_90a,sm_100a}"
  # The difftest cases of every bundled kernel (inputs + interpreter outputs)
  # for the GPU leg (docs/difftest.md).
  difftest=${KCC_DIFFTEST:-build/bin/kcc-difftest}
  if [ -x "$difftest" ]; then
    for cases in tests/e2e/difftest/*.toml; do
      k=$(basename "$cases" .toml)
      "$difftest" "kernels/$k.kc" "$cases" --legs=interp --emit-cases .gpu-gen/difftest \
        --fatbin ".gpu-gen/$k.fatbin" > /dev/null
      # The tensor maps the stubs would encode (TMA targets).
      python3 scripts/manifest-tensormaps.py ".gpu-gen/$k.manifest.json" \
        > ".gpu-gen/difftest/$k/tensormaps.txt"
    done
  fi
  ls -l .gpu-gen
  ;;
prepare-consumer)
  [ -d build ] || { echo "no build/: run scripts/bootstrap.sh first" >&2; exit 1; }
  work=${KCC_CONSUMER_WORK:-/tmp/kcc-consumer}
  rm -rf "$work" .gpu-gen/consumer && mkdir -p "$work" .gpu-gen/consumer
  cmake --install build --prefix "$work/prefix" > "$work/install.log"
  cmake -S examples/cmake-consumer -B "$work/build" -G Ninja \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DKCC_ARCHITECTURES="${KCC_TARGETS:-sm_90a}" \
    -DCUDAToolkit_ROOT="${CUDA_PATH:-/usr/local/cuda}" > "$work/configure.log"
  cmake --build "$work/build"
  cp "$work/build/consumer" .gpu-gen/consumer/
  cp -r "$work/build/consumer_kernels.kcc" .gpu-gen/consumer/generated
  ls -l .gpu-gen/consumer .gpu-gen/consumer/generated
  ;;
remote-consumer)
  out=${2:-gpu-results}
  mkdir -p "$out"
  dir=.gpu-gen/consumer
  [ -x "$dir/consumer" ] || { echo "no $dir/consumer: run prepare-consumer and copy .gpu-gen here" >&2; exit 1; }
  exe=$dir/consumer
  if ! ldd "$exe" >"$out/consumer-ldd.txt" 2>&1 || grep -q "not found" "$out/consumer-ldd.txt"; then
    echo "the prebuilt consumer cannot start here; rebuilding it from the generated stubs"
    cuda=${CUDA_PATH:-/usr/local/cuda}
    c++ -std=c++17 -O2 examples/cmake-consumer/main.cpp "$dir"/generated/*.kcc.cpp \
      runtime/src/*.cpp -I "$dir/generated" -I runtime/include -I "$cuda/include" \
      -L "$cuda/lib64" -lcudart -ldl -lpthread -o "$out/consumer"
    exe=$out/consumer
  fi
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
  status=0
  "$exe" 2>&1 | tee "$out/consumer.log" || status=1
  compute-sanitizer --tool memcheck --error-exitcode 3 "$exe" > "$out/consumer-memcheck.log" 2>&1 || status=1
  tail -n 2 "$out/consumer-memcheck.log"
  exit $status
  ;;
remote)
  out=${2:-gpu-results}
  mkdir -p "$out"
  [ -d .gpu-gen ] || { echo "no .gpu-gen/: run the prepare step and copy it here" >&2; exit 1; }
  build=${KCC_GPU_BUILD:-/tmp/kcc-gpu-build}
  cmake -S tests/e2e/gpu -B "$build" -DKCC_GEN_DIR="$PWD/.gpu-gen" -DCMAKE_BUILD_TYPE=Release \
    > "$out/configure.log"
  cmake --build "$build" -j > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
  status=0
  watch 300 kcc-gpu-tests "$build/kcc-gpu-tests" 2>&1 | tee "$out/gpu-tests.log" || status=1
  watch 600 memcheck compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$build/kcc-gpu-tests" --quick > "$out/memcheck.log" 2>&1 || status=1
  tail -n 3 "$out/memcheck.log"
  # TMA copies, mbarriers and shared-memory relayouts: races and barrier
  # misuse.
  watch 600 racecheck compute-sanitizer --tool racecheck --error-exitcode 3 \
    "$build/kcc-gpu-tests" --quick > "$out/racecheck.log" 2>&1 || status=1
  tail -n 2 "$out/racecheck.log"
  watch 600 synccheck compute-sanitizer --tool synccheck --error-exitcode 3 \
    "$build/kcc-gpu-tests" --quick > "$out/synccheck.log" 2>&1 || status=1
  tail -n 2 "$out/synccheck.log"
  watch 600 membound python3 bench/run_membound.py --kcc-bench "$build/kcc-membound-bench" \
    --out "$out/membound.md" || status=1
  # The difftest's GPU leg: bring $out/difftest.tgz back and run
  # `kcc-difftest --compare` on it (docs/difftest.md).
  if [ -d .gpu-gen/difftest ]; then
    cmake -S tools/kcc-difftest/gpu-leg -B "$build-gpu-leg" -DCMAKE_BUILD_TYPE=Release \
      > "$out/gpu-leg-configure.log"
    cmake --build "$build-gpu-leg" -j > "$out/gpu-leg-build.log" 2>&1 || status=1
    watch 300 kcc-gpu-leg "$build-gpu-leg/kcc-gpu-leg" .gpu-gen/difftest \
      > "$out/gpu-leg.log" 2>&1 || status=1
    tail -n 1 "$out/gpu-leg.log"
    tar czf "$out/difftest.tgz" .gpu-gen/difftest
  fi
  # The GEMM benchmark (bench/gemm/gemm.kc, compiled by prepare).
  if [ -f .gpu-gen/gemm.kcc.cpp ]; then
    gemm_bench "$out" "$build-gemm" || status=1
  else
    echo "no .gpu-gen/gemm.kcc.cpp: GEMM benchmark skipped"
  fi
  exit $status
  ;;
remote-gemm)
  out=${2:-gpu-results}
  mkdir -p "$out"
  [ -f .gpu-gen/gemm.kcc.cpp ] || { echo "no .gpu-gen/gemm.kcc.cpp: compile bench/gemm/gemm.kc (prepare) and copy .gpu-gen here" >&2; exit 1; }
  build=${KCC_GPU_BUILD:-/tmp/kcc-gpu-build}
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
  status=0
  gemm_bench "$out" "$build-gemm" full || status=1
  exit $status
  ;;
remote-gemm-ampere)
  out=${2:-gpu-results}
  mkdir -p "$out"
  [ -f .gpu-gen/ampere/gemm.kcc.cpp ] || { echo "no .gpu-gen/ampere/gemm.kcc.cpp: run prepare here and copy .gpu-gen" >&2; exit 1; }
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
  gemm_ampere "$out" "${KCC_GPU_BUILD:-/tmp/kcc-gpu-build}-gemm" full
  ;;
prepare-fp8)
  # FP8 and grouped GEMMs (docs/gemm.md "FP8", "Grouped GEMM"): the kernels,
  # a persistent build to compare, and the bf16 dense GEMM the grouped one
  # is measured against.
  kcc=${KCC:-build/bin/kcc}
  [ -x "$kcc" ] || { echo "no $kcc: run scripts/bootstrap.sh first" >&2; exit 1; }
  rm -rf .gpu-gen-fp8 && mkdir -p .gpu-gen-fp8/{fp8,fp8p,fp8late,moe,gemm}
  "$kcc" bench/gemm/fp8_gemm.kc -o .gpu-gen-fp8/fp8 --target=sm_90a
  "$kcc" bench/gemm/fp8_gemm.kc -o .gpu-gen-fp8/fp8p --target=sm_90a --persistent=1 2>/dev/null
  "$kcc" bench/gemm/fp8_gemm.kc -o .gpu-gen-fp8/fp8late --target=sm_90a --late-promotion
  "$kcc" bench/gemm/moe_gemm.kc -o .gpu-gen-fp8/moe --target=sm_90a
  "$kcc" bench/gemm/gemm.kc --kernel=gemm_nt_bf16_bf16_128_128_64 -o .gpu-gen-fp8/gemm --target=sm_90a
  ;;
remote-fp8)
  # There, with .gpu-gen-fp8 from prepare-fp8: the libraries, the SASS
  # counts, the checks and tables (run_fp8.py, run_moe.py) and every entry
  # point under compute-sanitizer memcheck, racecheck and synccheck.
  out=${2:-gpu-results}
  mkdir -p "$out"
  build=${KCC_GPU_BUILD:-/tmp/kcc-gpu-build}
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
  status=0
  for d in fp8:fp8_gemm fp8p:fp8_gemm fp8late:fp8_gemm moe:moe_gemm gemm:gemm; do
    cmake -S bench/gemm -B "$build-${d%%:*}" -DKCC_GEN_DIR="$PWD/.gpu-gen-fp8/${d%%:*}" \
      -DKCC_GEMM_STEM="${d#*:}" > /dev/null && cmake --build "$build-${d%%:*}" -j > /dev/null || status=1
  done
  sass_counts .gpu-gen-fp8/fp8/fp8_gemm.fatbin "$out/fp8" || status=1
  watch 480 run_fp8 python3 bench/gemm/run_fp8.py --lib "$build-fp8/libkcc_gemm.so" \
    --compare-lib persistent="$build-fp8p/libkcc_gemm.so" --compare-lib late="$build-fp8late/libkcc_gemm.so" \
    --out "$out/fp8.md" > "$out/fp8.log" 2>&1 || status=1
  watch 480 run_moe python3 bench/gemm/run_moe.py --moe-lib "$build-moe/libkcc_gemm.so" \
    --fp8-lib "$build-fp8/libkcc_gemm.so" --gemm-lib "$build-gemm/libkcc_gemm.so" \
    --out "$out/moe.md" > "$out/moe.log" 2>&1 || status=1
  for tool in memcheck racecheck synccheck; do
    watch 300 "fp8-$tool" compute-sanitizer --tool "$tool" --error-exitcode 1 python3 bench/gemm/fp8_sanitize.py \
      --fp8-lib "$build-fp8/libkcc_gemm.so" --moe-lib "$build-moe/libkcc_gemm.so" > "$out/fp8-$tool.log" 2>&1 || status=1
  done
  exit $status
  ;;
*)
  echo "usage: $0 prepare | remote [OUTDIR] | remote-gemm [OUTDIR] | remote-gemm-ampere [OUTDIR] | prepare-fp8 | remote-fp8 [OUTDIR] | prepare-consumer | remote-consumer [OUTDIR]" >&2
  exit 2
  ;;
esac
