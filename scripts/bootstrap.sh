#!/usr/bin/env bash
# README's first command: install dependencies (Debian 12, root), configure,
# build kcc and compile every bundled kernel for every NVIDIA target.
# libamdhip64-dev (HIP's headers and libamdhip64) lets the runtime build its
# HIP backend, kcc_runtime_hip, and CI compile and link HIP host programs.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
# libclang-rt-22-dev: the sanitizer and libFuzzer runtimes of
# scripts/ci-sanitizers.sh (only recommended by clang-22). clang-tools-22:
# clang-offload-bundler, which packs the AMD HSACOs (the 22.1.8 clang-22
# package does not ship it).
if ! dpkg -s llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 clang-tools-22 lld-22 llvm-22-tools \
      libisl-dev libtomlplusplus-dev doctest-dev ninja-build cmake make dpkg-dev \
      libamdhip64-dev libclang-rt-22-dev >/dev/null 2>&1; then
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
    llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 clang-tools-22 lld-22 llvm-22-tools \
    libisl-dev libtomlplusplus-dev doctest-dev ninja-build cmake python3 \
    make dpkg-dev libamdhip64-dev libclang-rt-22-dev
fi
if [ ! -x "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" ]; then
  echo "bootstrap: no CUDA toolkit at ${CUDA_PATH:-/usr/local/cuda} (ptxas, fatbinary);" \
       "install CUDA 12.8+ or set CUDA_PATH" >&2
  exit 1
fi

cmake -S . -B build -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DKCC_CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
# Builds kcc, kcc-opt, the unit tests and build/kernels/*.fatbin.
cmake --build build
echo "bootstrap: kcc is build/bin/kcc; bundled kernels are in build/kernels/:"
ls build/kernels/*.fatbin
