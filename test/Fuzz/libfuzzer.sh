#!/usr/bin/env bash
# Runs pw-opt-fuzzer under libFuzzer from its seed corpus (every module of
# the MLIR tests) with the MLIR dictionary. The fuzzer must come from a
# build with -DLLVM_USE_SANITIZE_COVERAGE=ON (the sanitizer build, see
# docs/Testing.md). Crashes are written to WORKDIR/crashes, new inputs to
# WORKDIR/corpus (kept between runs: pass the same WORKDIR to go on).
#
#   libfuzzer.sh BUILD_DIR SECONDS [WORKDIR] [libFuzzer option...]
#
# Ends with one line: the inputs run, the corpus before and after, the new
# findings (crash-, leak-, timeout-, oom- files) and slow units (inputs
# over 10 s, not findings). Exits non-zero when libFuzzer finds a crash, a sanitizer
# report, a leak or a timeout. libFuzzer's output is also kept in
# WORKDIR/libfuzzer.log.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: libfuzzer.sh BUILD_DIR SECONDS [WORKDIR] [option...]}
seconds=${2:?usage: libfuzzer.sh BUILD_DIR SECONDS [WORKDIR] [option...]}
workdir=${3:-$build/fuzz}
shift $(($# < 3 ? $# : 3))

fuzzer=$build/bin/pw-opt-fuzzer
# The whole help text first: `grep -q` would stop reading at the first match
# and, under pipefail, the fuzzer's SIGPIPE would fail the test.
help=$("$fuzzer" -help=1 2>&1 || true)
if [[ $help != *max_total_time* ]]; then
  echo "libfuzzer.sh: $fuzzer is not a libFuzzer binary" \
    "(configure with -DLLVM_USE_SANITIZE_COVERAGE=ON)" >&2
  exit 2
fi

mkdir -p "$workdir/corpus" "$workdir/crashes"
rm -rf "$workdir/seeds"
python3 "$here/seed_corpus.py" "$workdir/seeds"

# libFuzzer names a finding crash-, leak-, timeout- or oom-<sha1>; a
# slow-unit- file is an input that took over 10 s, not a finding.
count() {
  find "$workdir/$1" -type f \( -name "$2" "${@:3}" \) | wc -l
}
findings() {
  count crashes 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*'
}
corpus_before=$(count corpus '*')
findings_before=$(findings)
slow_before=$(count crashes 'slow-unit-*')

# Modules without their expected diagnostics are the common case; the
# fuzzer only reports crashes and sanitizer findings. Leaks are checked. An
# input counts as hanging after 600 s: the largest seeds (whole pipelines
# with ptxas) take close to a minute under ASan on a loaded machine, and
# slower inputs are reported as slow units from 10 s on.
status=0
"$fuzzer" "$workdir/corpus" "$workdir/seeds" \
  -dict="$here/mlir.dict" -max_total_time="$seconds" -max_len=16384 \
  -timeout=600 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$workdir/crashes/" "$@" 2>&1 |
  tee "$workdir/libfuzzer.log" || status=$?

# How many inputs ran (libFuzzer's final stats, or its last status line if
# it stopped at a finding; "?" with -jobs, whose workers log to fuzz-N.log)
# and what the run added.
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
  "$workdir/libfuzzer.log" | tail -1)
if [ -z "$runs" ]; then
  runs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$workdir/libfuzzer.log" |
    tail -1)
fi
echo "libfuzzer.sh: ${runs:-?} inputs run ($(count seeds '*') seeds," \
  "$corpus_before corpus files before, $(count corpus '*') after);" \
  "$(($(findings) - findings_before)) new findings and" \
  "$(($(count crashes 'slow-unit-*') - slow_before)) new slow units" \
  "in $workdir/crashes; exit status $status"
exit "$status"
