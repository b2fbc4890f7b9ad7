#!/bin/sh
# Build the PTX here (kcc-opt from BUILD, default build-nv), then on a GPU
# machine: nvcc check.cu -lcuda -o check && ./check vadd.ptx bias_add.ptx red.ptx
set -e
D=$(cd "$(dirname "$0")" && pwd); B=${BUILD:-$D/../../../../build-nv}; O=${OUT_DIR:-.}
for p in "../vector-add.mlir vadd" "../broadcast-2d.mlir bias_add" "reduce-check.mlir red"; do
  set -- $p
  "$B/bin/kcc-opt" "$D/$1" -kcc-lower-to-llvm | mlir-translate-22 --mlir-to-llvmir |
    llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 -o "$O/$2.ptx"
done
