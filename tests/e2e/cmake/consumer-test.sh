#!/usr/bin/env bash
# The installed kcc package, as a user meets it (issue: CMake integration).
#   consumer-test.sh SOURCE_DIR BUILD_DIR WORK_DIR
# 1. `cmake --install` kcc into a prefix; examples/cmake-consumer finds it,
#    builds with Ninja and with Unix Makefiles, and its program runs (exit 77,
#    "no CUDA device", is accepted only where there is no GPU).
# 2. Incremental builds: nothing reruns on a no-op build; touching one .kc
#    reruns kcc for that file only; touching a target model that only the
#    depfile knows about (passed through OPTIONS) reruns kcc for its library.
# 3. The CPack .deb: its control data, and the consumer built against its
#    extracted contents.
set -euo pipefail
SRC=$1 BUILD=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
PREFIX=$WORK/prefix
fail() { echo "consumer-test: FAIL: $*" >&2; exit 1; }
step() { echo "consumer-test: $*"; }

CXX=${CXX:-$(command -v clang++-22 || command -v c++)}
CUDA_ROOT=${CUDA_PATH:-/usr/local/cuda}

step "install into $PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"
for f in bin/kcc include/kcc/runtime.h lib/libkcc_runtime.a \
         lib/cmake/kcc/kccConfig.cmake lib/cmake/kcc/kccConfigVersion.cmake \
         lib/cmake/kcc/KccKernelLibrary.cmake; do
  [ -e "$PREFIX/$f" ] || fail "install did not produce $f"
done
"$PREFIX/bin/kcc" --version | grep -q "kcc version" || fail "installed kcc does not run"

# A copy of the example (this test touches its files), plus a second library
# whose target model reaches kcc only through OPTIONS, so that only kcc's
# depfile tells the build system about it.
make_project() {
  local dir=$1
  cp -r "$SRC/examples/cmake-consumer" "$dir"
  cat >"$dir/narrow.toml" <<'TOML'
name = "sm_90a_narrow"
inherits = "sm_90a"
max_vector_bytes = 8
TOML
  cat >>"$dir/CMakeLists.txt" <<'CMAKE'

# Added by tests/e2e/cmake/consumer-test.sh.
kcc_add_kernel_library(narrow_kernels
  SOURCES kernels/saxpy.kc
  TARGETS sm_90a_narrow
  OPTIONS --target-model=${CMAKE_CURRENT_SOURCE_DIR}/narrow.toml)
CMAKE
}

run_consumer() {
  local exe=$1 rc=0
  "$exe" >"$WORK/run.log" 2>&1 || rc=$?
  cat "$WORK/run.log"
  if [ $rc -eq 77 ]; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
      fail "the consumer found no CUDA device on a machine with a GPU"
    fi
    step "no GPU here: the consumer built and linked; not run"
  elif [ $rc -ne 0 ]; then
    fail "the consumer program failed (exit $rc)"
  fi
}

# build DIR LOG: builds, keeping the (verbose enough) log of what ran.
build() { cmake --build "$1" -j2 >"$2" 2>&1 || { cat "$2"; fail "build of $1 failed"; }; }
ran_kcc() { grep -Eq "kcc $2\.kc|kcc\b.*/$2\.kc" "$1"; }

for gen in Ninja "Unix Makefiles"; do
  tag=${gen// /-}
  proj=$WORK/src-$tag bin=$WORK/build-$tag
  make_project "$proj"
  step "[$gen] configure and build against the installed package"
  cmake -S "$proj" -B "$bin" -G "$gen" -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DCMAKE_CXX_COMPILER="$CXX" -DCUDAToolkit_ROOT="$CUDA_ROOT" \
    -DKCC_ARCHITECTURES=sm_90a >"$WORK/configure-$tag.log" 2>&1 ||
    { cat "$WORK/configure-$tag.log"; fail "configure ($gen)"; }
  build "$bin" "$WORK/full-$tag.log"
  for stem in saxpy row_normalize; do
    ran_kcc "$WORK/full-$tag.log" $stem || fail "[$gen] kcc $stem.kc did not run"
    [ -f "$bin/consumer_kernels.kcc/$stem.d" ] || fail "[$gen] no depfile for $stem"
  done
  grep -q "sm_90a" "$bin/consumer_kernels.kcc/saxpy.manifest.json" ||
    fail "[$gen] KCC_ARCHITECTURES=sm_90a not used"
  run_consumer "$bin/consumer"

  step "[$gen] a no-op build runs nothing"
  build "$bin" "$WORK/noop-$tag.log"
  if grep -q "kcc " "$WORK/noop-$tag.log" || grep -q "Building CXX" "$WORK/noop-$tag.log"; then
    cat "$WORK/noop-$tag.log"; fail "[$gen] a no-op build reran something"
  fi

  step "[$gen] touching saxpy.kc reruns kcc for saxpy.kc only"
  sleep 1; touch "$proj/kernels/saxpy.kc"
  build "$bin" "$WORK/touch-$tag.log"
  ran_kcc "$WORK/touch-$tag.log" saxpy || { cat "$WORK/touch-$tag.log"; fail "[$gen] saxpy.kc not recompiled"; }
  if ran_kcc "$WORK/touch-$tag.log" row_normalize ||
     grep -q "row_normalize.kcc.cpp" "$WORK/touch-$tag.log"; then
    cat "$WORK/touch-$tag.log"; fail "[$gen] row_normalize was rebuilt though only saxpy.kc changed"
  fi

  step "[$gen] touching the depfile-only target model reruns narrow_kernels only"
  sleep 1; touch "$proj/narrow.toml"
  build "$bin" "$WORK/model-$tag.log"
  grep -q "sm_90a_narrow" "$WORK/model-$tag.log" ||
    { cat "$WORK/model-$tag.log"; fail "[$gen] narrow.toml change did not rerun kcc (depfile ignored)"; }
  if grep -Eq "\(sm_90a\)|consumer_kernels\.kcc/" "$WORK/model-$tag.log"; then
    cat "$WORK/model-$tag.log"; fail "[$gen] consumer_kernels rebuilt for narrow.toml"
  fi
  grep -q "sm_90a_narrow" "$bin/narrow_kernels.kcc/saxpy.manifest.json" ||
    fail "[$gen] narrow_kernels not compiled for the model's target"
done

step "CPack .deb"
(cd "$WORK" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/pkg" >"$WORK/cpack.log" 2>&1) ||
  { cat "$WORK/cpack.log"; fail "cpack"; }
deb=$(ls "$WORK"/pkg/kcc_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no kcc_*.deb"
dpkg-deb --info "$deb" >"$WORK/deb-info.log"
grep -q "Package: kcc" "$WORK/deb-info.log" || fail "deb: no 'Package: kcc'"
grep -Eq "Depends:.*libmlir-22" "$WORK/deb-info.log" ||
  { cat "$WORK/deb-info.log"; fail "deb: Depends does not name libmlir-22"; }
dpkg-deb --contents "$deb" >"$WORK/deb-contents.log"
grep -q "./usr/lib/cmake/kcc/kccConfig.cmake" "$WORK/deb-contents.log" ||
  fail "deb: no /usr/lib/cmake/kcc/kccConfig.cmake"
dpkg-deb -x "$deb" "$WORK/debroot"
step "consumer against the .deb's files (default targets)"
cmake -S "$SRC/examples/cmake-consumer" -B "$WORK/build-deb" -G Ninja \
  -DCMAKE_PREFIX_PATH="$WORK/debroot/usr" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCUDAToolkit_ROOT="$CUDA_ROOT" >"$WORK/configure-deb.log" 2>&1 ||
  { cat "$WORK/configure-deb.log"; fail "configure against the .deb"; }
build "$WORK/build-deb" "$WORK/full-deb.log"
grep -q "sm_80,sm_90a,sm_100a" "$WORK/full-deb.log" ||
  { cat "$WORK/full-deb.log"; fail "default KCC_ARCHITECTURES not sm_80;sm_90a;sm_100a"; }
run_consumer "$WORK/build-deb/consumer"
step "PASS"
