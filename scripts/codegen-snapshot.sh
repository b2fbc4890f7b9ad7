#!/usr/bin/env bash
# Writes the assembly kcc emits (PTX for NVIDIA, AMDGPU assembly for AMD) for
# every bundled kernel and bench/gemm/gemm.kc on every built-in target, plus
# the launch stubs and manifest of the NVIDIA fatbin, into OUTDIR. Run it
# before and after a behaviour-preserving change and `diff -r` the two
# folders: the restructuring of issue #26 was checked this way.
#   scripts/codegen-snapshot.sh OUTDIR [KCC]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: scripts/codegen-snapshot.sh OUTDIR [KCC]}
KCC=${2:-build/bin/kcc}
mkdir -p "$OUT"
status=0
for kc in kernels/*.kc bench/gemm/gemm.kc; do
  stem=$(basename "$kc" .kc)
  for target in sm_80 sm_90a sm_100a gfx90a gfx942; do
    dir=$OUT/$stem/$target
    mkdir -p "$dir"
    if ! "$KCC" "$kc" --target="$target" --emit=asm -o "$dir" >"$dir/log.txt" 2>&1; then
      echo "codegen-snapshot: $kc for $target failed (see $dir/log.txt)" >&2
      status=1
    fi
  done
  # The stubs and manifest of a normal build (sm_80, sm_90a, sm_100a).
  mkdir -p "$OUT/$stem/fatbin"
  "$KCC" "$kc" --target=sm_80,sm_90a,sm_100a -o "$OUT/$stem/fatbin" \
    >"$OUT/$stem/fatbin/log.txt" 2>&1 || status=1
  rm -f "$OUT/$stem/fatbin/"*.fatbin
done
exit $status
