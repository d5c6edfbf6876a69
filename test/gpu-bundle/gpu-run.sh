#!/usr/bin/env bash
# Runs the GPU proof ON THE GPU MACHINE, from the repository root, on a bundle
# made by test/gpu-bundle/gpu-bundle.sh:
#
#   bash test/gpu-bundle/gpu-run.sh [gpu-bundle]
#
# It first unpacks what the bundle stores compressed (*.xz, flaggems.tar.xz),
# then installs the Python package from the bundle's wheel into the bundle
# directory (pip install --no-deps --no-index --target), where the bundle's
# programs and tests import it from.
#
# Steps (each one's output also goes to $OUT/<step>.log when OUT is set):
#   info       nvidia-smi -L, versions of torch, triton, compute-sanitizer
#   test       pytest -q on test_families.py (the whole suite)
#   differential  the differential suite's GPU cases (diff/, when bundled)
#   pipeline-differential  every generated case through pw-gpu-pipeline
#              (pipeline-diff/, when bundled) with the bundle's pw-run
#   lit        the GPU lit tests (test/Integration/GPU/*.test: pw-run
#              --target=cuda --check and --bench, JIT-compiled here) with the
#              bundle's statically linked pw-run, through gpu_lit_runner.py
#   host       host_overhead: host µs per cached C++ call (no Python)
#   bench      gpu_bench.py: the 13 workloads vs eager and Inductor
#              (writes $OUT/bench.json)
#   bench-pipeline  pipeline_bench.py: the workloads as pw-gpu-pipeline
#              modules vs the families, and fused chains vs eager, Inductor
#              and FlagGems (writes $OUT/pipeline_bench.json)
#   compile-time  compile_time.py: first-call latency of @pw.pointwise per
#              rank, cold and warm, per stage
#   python     pytest on pytests/ (the @pw.pointwise tests, CPU and GPU)
#              against the package installed from the wheel
#              (POINTWISE_TEST_INSTALLED=1: pip's record must hold the files
#              it imports); with CuPy when test/gpu-bundle/gpu-cupy.sh
#              installed it ($PW_CUPY_SITE)
#   python-shim  the GPU test files again with POINTWISE_TORCH_TENSORS=shim
#              (tensors read through pointwise._torchshim)
#   bench-decorator  gpu_bench.py --decorator --no-inductor: the same
#              workloads through @pw.pointwise, and its host time
#   sanitizer  pytest under compute-sanitizer --tool memcheck (slow: every
#              launch is instrumented; by default only -k "not large"),
#              then on PW_SANITIZER_DIFF_CASES (60) differential cases
#              (sanitizer-differential), PW_SANITIZER_PIPELINE_CASES (40)
#              pipeline cases (sanitizer-pipeline) and the GPU lit tests
#              (lit-sanitizer); racecheck and synccheck on the GPU lit tests
#              (racecheck, synccheck)
# The sanitizer runs last so that a run cut short still has the numbers.
# A failing step does not stop the later ones; the exit status is 1 if any
# step failed.
#
# Environment:
#   PW_STEPS              steps to run, comma-separated (default: all, in the
#                         order above)
#   PW_TEST_ARGS          extra pytest arguments for `test` (e.g. -k flip)
#   PW_SANITIZER_K        pytest -k expression for `sanitizer`
#                         (default: "not large"; "" runs everything)
#   PW_BENCH_ARGS         arguments of gpu_bench.py (e.g. --no-inductor,
#                         --workloads add_contig_f32,flip_f32)
#   PW_HOST_CALLS         calls per host_overhead measurement (100000)
#   PW_COMPILE_TIME_REPEAT, PW_COMPILE_TIME_MODES  compile_time.py's --repeat
#                         (3) and --modes (on-demand,complete)
#   PW_DEADLINE_S         wall-clock budget of the whole script (default 570
#                         s: under the device tool's 600 s); each step gets
#                         what is left, steps that would get < 20 s are
#                         skipped (and count as failed)
set -uo pipefail

bundle=${1:-gpu-bundle}
if [[ ! -f "$bundle/workloads.so" && ! -f "$bundle/workloads.so.xz" ]]; then
  echo "gpu-run: no $bundle/workloads.so; build it with test/gpu-bundle/gpu-bundle.sh" \
       "and carry gpu-bundle" >&2
  exit 2
fi
bundle=$(cd "$bundle" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
steps=",${PW_STEPS:-info,test,differential,pipeline-differential,lit,host,bench,bench-pipeline,compile-time,python,python-shim,bench-decorator,sanitizer,sanitizer-differential,sanitizer-pipeline,lit-sanitizer,racecheck,synccheck},"
deadline=$(( $(date +%s) + ${PW_DEADLINE_S:-570} ))
logs=${OUT:-}
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

status=0
summary=()

# run_step NAME COMMAND...: runs it with the time left, tees its output.
run_step() {
  local name=$1
  shift
  [[ "$steps" == *",$name,"* ]] || return 0
  local left=$(( deadline - $(date +%s) - 5 ))
  if (( left < 20 )); then
    echo "=== $name: skipped, out of time"
    summary+=("$name: SKIPPED (out of time)")
    status=1
    return 0
  fi
  echo "=== $name ($left s left): $*"
  local start rc
  start=$(date +%s)
  local runner=(timeout --kill-after=10 "$left")
  if declare -F "$1" >/dev/null; then
    runner=()                       # a shell function: no timeout
  fi
  if [[ -n "$logs" ]]; then
    "${runner[@]}" "$@" 2>&1 | tee "$logs/$name.log"
    rc=${PIPESTATUS[0]}
  else
    "${runner[@]}" "$@" 2>&1
    rc=$?
  fi
  local took=$(( $(date +%s) - start ))
  if (( rc == 124 || rc == 137 )); then
    summary+=("$name: TIMED OUT after $took s")
    status=1
  elif (( rc != 0 )); then
    summary+=("$name: FAILED (exit $rc, $took s)")
    status=1
  else
    summary+=("$name: ok ($took s)")
  fi
  echo "=== $name: exit $rc ($took s)"
}

# shellcheck disable=SC2317  # called through run_step
show_info() {
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
    --format=csv,noheader || true
  python3 -c 'import sys, torch, triton; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__, "device", torch.cuda.get_device_name(0))'
  "$sanitizer" --version 2>/dev/null | tail -1 || echo "compute-sanitizer: not found"
  cat "$bundle/MANIFEST" 2>/dev/null || true
}

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
pytest_common=(-p no:cacheprovider -rsxX)

# unxz SOURCE TARGET, without the xz tool (not on every GPU machine).
unxz_to() {
  python3 -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as f, open(sys.argv[2], "wb") as g:
    shutil.copyfileobj(f, g)' "$1" "$2"
}

# What the bundle stores compressed (the device tool carries at most 64
# MiB), unpacked once.
for packed in "$bundle"/*.xz; do
  [[ -f "$packed" && "$packed" != *.tar.xz && ! -f "${packed%.xz}" ]] &&
    unxz_to "$packed" "${packed%.xz}"
done
if [[ -f "$bundle/flaggems.tar.xz" && ! -d "$bundle/flaggems" ]]; then
  tar -C "$bundle" -xJf "$bundle/flaggems.tar.xz"
fi

# The Python package, installed from the bundle's wheel into the bundle
# directory: the scripts that put the bundle on sys.path import it, and the
# package's libraries (the compiler among them) are the wheel's.
wheels=("$bundle"/pointwise-*.whl)
if [[ -f "${wheels[0]}" ]]; then
  echo "=== install: pip install --no-deps --no-index --target $bundle ${wheels[0]##*/}"
  if PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --no-deps \
      --no-index --upgrade --target "$bundle" "${wheels[0]}"; then
    summary+=("install: ok (${wheels[0]##*/})")
  else
    summary+=("install: FAILED (pip install of ${wheels[0]##*/})")
    status=1
  fi
else
  summary+=("install: FAILED (no pointwise-*.whl in $bundle)")
  status=1
fi
chmod +x "$bundle/host_overhead" "$bundle/pw-run" 2>/dev/null || true
lit_runner=(python3 "$bundle/gpu_lit_runner.py" --tool "$bundle/pw-run"
  --root "$root")
lit_tests=("$root"/test/Integration/GPU/*.test)

run_step info show_info
# shellcheck disable=SC2086
run_step test python3 -m pytest -q "${pytest_common[@]}" ${PW_TEST_ARGS:-} \
  "$bundle/test_families.py"
if [[ -d "$bundle/diff" ]]; then
  run_step differential python3 "$bundle/diff/differential_gpu_runner.py" \
    "$bundle/diff"
fi
if [[ -d "$bundle/pipeline-diff" && -f "$bundle/pw-run" ]]; then
  run_step pipeline-differential python3 \
    "$bundle/pipeline-diff/differential_pipeline_runner.py" \
    "$bundle/pipeline-diff" --pw-run "$bundle/pw-run"
fi
if [[ -f "$bundle/pw-run" ]]; then
  run_step lit "${lit_runner[@]}" "${lit_tests[@]}"
fi
run_step host "$bundle/host_overhead" "${PW_HOST_CALLS:-100000}"
# The compiler's disk cache, for @pw.pointwise (bench times it beside
# Family.__call__).
export POINTWISE_CACHE_DIR=${POINTWISE_CACHE_DIR:-/tmp/pointwise-cache}
# shellcheck disable=SC2086
run_step bench python3 "$bundle/gpu_bench.py" --lib "$bundle/workloads.so" \
  ${PW_BENCH_ARGS:-}
flaggems_dir=""
[[ -d "$bundle/flaggems/flag_gems" ]] && flaggems_dir="$bundle/flaggems"
# shellcheck disable=SC2086
run_step bench-pipeline python3 "$bundle/pipeline_bench.py" \
  --workloads-lib "$bundle/pipeline_workloads.so" \
  --chains-lib "$bundle/pipeline_chains.so" --families "$bundle/workloads.so" \
  ${flaggems_dir:+--flaggems "$flaggems_dir"} ${PW_PIPELINE_BENCH_ARGS:-}
# CuPy, where test/gpu-bundle/gpu-cupy.sh installed it (no network here).
cupy_site=${PW_CUPY_SITE:-/tmp/cupy-site}
if [[ -d "$cupy_site/cupy" ]]; then
  export PYTHONPATH="$cupy_site${PYTHONPATH:+:$PYTHONPATH}"
  echo "gpu-run: CuPy from $cupy_site"
fi
run_step compile-time python3 "$bundle/compile_time.py" --package "$bundle" \
  --repeat "${PW_COMPILE_TIME_REPEAT:-3}" --ranks 1-6 \
  --modes "${PW_COMPILE_TIME_MODES:-on-demand,complete}"
# shellcheck disable=SC2086
run_step python env POINTWISE_TEST_INSTALLED=1 \
  PYTHONPATH="$bundle${PYTHONPATH:+:$PYTHONPATH}" \
  python3 -m pytest -q "${pytest_common[@]}" ${PW_PYTHON_ARGS:-} \
  "$bundle/pytests/test_pointwise_gpu.py" "$bundle/pytests/test_pointwise_cpu.py" \
  "$bundle/pytests/test_dtypes.py" "$bundle/pytests/test_promotion.py" \
  "$bundle/pytests/test_first_calls.py" "$bundle/pytests/test_semantics_gpu.py" \
  "$bundle/pytests/test_semantics_cpu.py" "$bundle/pytests/test_composition_cpu.py" \
  "$bundle/pytests/test_torch_integration_gpu.py"
# The GPU tests again with the calls reading tensors through
# pointwise._torchshim, what every torch release without its own reader in
# the wheel gets (docs/Python.md, "Host time").
# shellcheck disable=SC2086
run_step python-shim env POINTWISE_TEST_INSTALLED=1 POINTWISE_TORCH_TENSORS=shim \
  PYTHONPATH="$bundle${PYTHONPATH:+:$PYTHONPATH}" \
  python3 -m pytest -q "${pytest_common[@]}" ${PW_PYTHON_ARGS:-} \
  "$bundle/pytests/test_pointwise_gpu.py" "$bundle/pytests/test_first_calls.py" \
  "$bundle/pytests/test_semantics_gpu.py" \
  "$bundle/pytests/test_torch_integration_gpu.py"
# shellcheck disable=SC2086
run_step bench-decorator python3 "$bundle/gpu_bench.py" --lib "$bundle/workloads.so" \
  --decorator --no-inductor ${PW_BENCH_ARGS:-}
# Without PyTorch's caching allocator every tensor is its own allocation, so
# memcheck sees accesses past the end of each one.
sanitizer_k=${PW_SANITIZER_K-not large}
run_step sanitizer env PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$sanitizer" \
  --tool memcheck --error-exitcode 1 --print-limit 50 \
  python3 -m pytest -q "${pytest_common[@]}" ${sanitizer_k:+-k "$sanitizer_k"} \
  "$bundle/test_families.py"

if [[ -d "$bundle/diff" ]]; then
  run_step sanitizer-differential "$sanitizer" --tool memcheck \
    --error-exitcode 1 --print-limit 50 \
    python3 "$bundle/diff/differential_gpu_runner.py" "$bundle/diff" \
    --sanitize-subset "${PW_SANITIZER_DIFF_CASES:-60}"
fi
if [[ -d "$bundle/pipeline-diff" && -f "$bundle/pw-run" ]]; then
  run_step sanitizer-pipeline python3 \
    "$bundle/pipeline-diff/differential_pipeline_runner.py" \
    "$bundle/pipeline-diff" --pw-run "$bundle/pw-run" \
    --limit "${PW_SANITIZER_PIPELINE_CASES:-40}" --wrapper \
    "$sanitizer --tool memcheck --error-exitcode 1 --print-limit 50"
fi
if [[ -f "$bundle/pw-run" ]]; then
  run_step lit-sanitizer "${lit_runner[@]}" --wrapper \
    "$sanitizer --tool memcheck --error-exitcode 1 --print-limit 50" \
    "${lit_tests[@]}"
  for tool in racecheck synccheck; do
    run_step "$tool" "${lit_runner[@]}" --wrapper \
      "$sanitizer --tool $tool --error-exitcode 1 --print-limit 50" \
      "${lit_tests[@]}"
  done
fi

echo
echo "=== summary"
printf '%s\n' "${summary[@]}" | tee ${logs:+"$logs/summary.txt"}
exit $status
