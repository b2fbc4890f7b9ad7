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
#        benchmark against PyTorch; logs and the report go to OUTDIR.
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
case "$step" in
prepare)
  kcc=${KCC:-build/bin/kcc}
  [ -x "$kcc" ] || { echo "no $kcc: run scripts/bootstrap.sh first" >&2; exit 1; }
  rm -rf .gpu-gen && mkdir -p .gpu-gen
  "$kcc" kernels/*.kc -o .gpu-gen --target="${KCC_TARGETS:-sm_80,sm_90a,sm_100a}"
  # For the "no image for this GPU" test: a fatbin that holds Blackwell only.
  "$kcc" tests/gpu/Inputs/blackwell_only.kc -o .gpu-gen --target=sm_100a
  # The difftest cases of every bundled kernel (inputs + interpreter outputs)
  # for the GPU leg (docs/difftest.md).
  difftest=${KCC_DIFFTEST:-build/bin/kcc-difftest}
  if [ -x "$difftest" ]; then
    for cases in tests/difftest/*.toml; do
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
  cmake -S tests/gpu -B "$build" -DKCC_GEN_DIR="$PWD/.gpu-gen" -DCMAKE_BUILD_TYPE=Release \
    > "$out/configure.log"
  cmake --build "$build" -j > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
  status=0
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
  exit $status
  ;;
*)
  echo "usage: $0 prepare | remote [OUTDIR] | prepare-consumer | remote-consumer [OUTDIR]" >&2
  exit 2
  ;;
esac
