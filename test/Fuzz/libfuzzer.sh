#!/usr/bin/env bash
# Runs pw-opt-fuzzer under libFuzzer from its seed corpus (every module of
# the MLIR tests) with the MLIR dictionary. The fuzzer must come from a
# build with -DLLVM_USE_SANITIZE_COVERAGE=ON (the sanitizer build, see
# docs/Testing.md). Crashes are written to WORKDIR/crashes, new inputs to
# WORKDIR/corpus (kept between runs: pass the same WORKDIR to go on).
#
#   libfuzzer.sh BUILD_DIR SECONDS [WORKDIR] [libFuzzer option...]
#
# Exits non-zero when libFuzzer finds a crash, a sanitizer report, a leak
# or a timeout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: libfuzzer.sh BUILD_DIR SECONDS [WORKDIR] [option...]}
seconds=${2:?usage: libfuzzer.sh BUILD_DIR SECONDS [WORKDIR] [option...]}
workdir=${3:-$build/fuzz}
shift $(($# < 3 ? $# : 3))

fuzzer=$build/bin/pw-opt-fuzzer
if ! "$fuzzer" -help=1 2>&1 | grep -q max_total_time; then
  echo "libfuzzer.sh: $fuzzer is not a libFuzzer binary" \
    "(configure with -DLLVM_USE_SANITIZE_COVERAGE=ON)" >&2
  exit 2
fi

mkdir -p "$workdir/corpus" "$workdir/crashes"
rm -rf "$workdir/seeds"
python3 "$here/seed_corpus.py" "$workdir/seeds"

# Modules without their expected diagnostics are the common case; the
# fuzzer only reports crashes and sanitizer findings. Leaks are checked.
"$fuzzer" "$workdir/corpus" "$workdir/seeds" \
  -dict="$here/mlir.dict" -max_total_time="$seconds" -max_len=16384 \
  -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$workdir/crashes/" "$@"
