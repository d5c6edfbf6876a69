#!/bin/sh
# Static against dynamic layouts of the same maps (benchmarks/static_kernels.mlir)
# through pw-run --target=cuda, which compiles with pw-gpu-pipeline. Prints
# one table row per entry and layout: pw-run's median time and bandwidth.
#   benchmarks/static_kernels_ab.sh [BUILD_DIR] [CALLS]
set -eu
build=${1:-build}
calls=${2:-200}
module=$(dirname "$0")/static_kernels.mlir
run() {
  entry=$1
  shift
  printf '%-24s ' "$entry"
  "$build/bin/pw-run" "$module" --target=cuda --entry="$entry" --bench="$calls" "$@" | tail -n 1
}
run add_static
run add_dynamic --arg=8192x8192 --arg=8192x8192 --arg=8192x8192
run add_transposed_static
run add_dynamic --arg=8192x8192@1,8192 --arg=8192x8192 --arg=8192x8192
run row_slice_static
run add_dynamic --arg=8192x8000@8192,1 --arg=8192x8000 --arg=8192x8000
run add_f16_static
run add_f16_dynamic --arg=8192x8192 --arg=8192x8192 --arg=8192x8192
