#!/usr/bin/env bash
# Prints how many inputs the fuzz tests of a build's last check-pointwise
# ran (docs/Testing.md). Each of them writes its counts, once it passed, to
# lit's BUILD_DIR/test/Fuzz/Output/<test>.tmp.counts; a test that did not
# run (unsupported, filtered out, failed) shows as such.
#
#   counts.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: counts.sh BUILD_DIR}
output=$build/test/Fuzz/Output

echo "fuzz counts in $build:"
for test in pw-opt-fuzzer-seeds.test map-fuzz-fast.test \
  property-pointwise.test; do
  counts=$output/$test.tmp.counts
  if [ -f "$counts" ]; then
    echo "  $test:"
    sed 's/^/    /' "$counts"
  else
    echo "  $test: no counts (the test did not run or did not pass)"
  fi
done
