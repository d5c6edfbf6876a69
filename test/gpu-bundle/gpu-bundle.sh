#!/usr/bin/env bash
# Builds gpu-bundle/ at the repository root: everything the GPU machine needs
# to run the GPU test suite and the benchmarks without MLIR, a compiler or
# network (it is git-ignored: pass it to the device run with `carry`).
#
#   bash test/gpu-bundle/gpu-bundle.sh [--build] [BUILD_DIR]     (default: build/)
#
# --build first builds the pw-compile and PointwiseRuntime targets.
# Needs BUILD_DIR/bin/pw-compile, BUILD_DIR/lib/libPointwiseRuntime.so, a CUDA
# toolkit for pw-compile (ptxas, fatbinary: $CUDA_HOME or /usr/local/cuda),
# g++ and pip (with scikit-build-core from PyPI, or its cache) for the wheel.
# Then, on the GPU machine: bash test/gpu-bundle/gpu-run.sh gpu-bundle
#
# Contents (flat, so that the kernel libraries' $ORIGIN rpath finds the
# runtime):
#   libPointwiseRuntime.so      what the kernel libraries and host_overhead
#                               link
#   pointwise-VERSION-cp311-abi3-linux_x86_64.whl.xz
#                               the Python package (pyproject.toml): its
#                               modules, the runtime, the compiler with MLIR
#                               and LLVM linked in, _fastcall.abi3.so and,
#                               from a build tree configured with
#                               -DPOINTWISE_TORCH_DIR, _torchtensors.abi3.so.
#                               Built by `pip wheel` in build-python/ with
#                               BUILD_DIR's POINTWISE_TORCH_DIR, or the
#                               wheel that PW_WHEEL names; stored uncompressed
#                               inside (the RECORD hashes the files, so it
#                               stays a valid wheel) and xz-compressed.
#                               gpu-run.sh installs it into the bundle
#                               directory with pip.
#   workloads.so                benchmarks/workloads.mlir
#   kernels.so                  test/Integration/GPU/kernels.mlir
#   kernels-bf16-scalar.so      test/Integration/GPU/kernels-bf16-scalar.mlir
#   host_overhead               benchmarks/host_overhead.cpp
#   test_families.py, gpu_bench.py, MANIFEST
#   diff/                       the differential suite's GPU mode
#                               (PW_DIFF_CASES cases, default 150; 0: none)
#   pytests/                    python_bindings/tests (the Python package's
#                               tests, the GPU ones included)
#   peers.py                    ../shared/bench/peers.py, where it exists:
#                               gpu_bench.py takes FlagGems' implementations
#                               of the workloads from it
#   flaggems/flag_gems/         FlagGems' Python source, when PW_FLAGGEMS_SRC
#                               names a FlagGems checkout (a work tree, or a
#                               bare clone whose HEAD is used): the fourth
#                               peer of gpu_bench.py. Not part of this
#                               repository; nothing of it is committed.
#   pw-run.xz, gpu_lit_runner.py  pw-run-static (pw-run with MLIR and LLVM
#                               linked in, same configuration), xz-compressed,
#                               and test/lit-support/gpu_lit_runner.py: the
#                               GPU lit tests (test/Integration/GPU/*.test,
#                               pw-run --target=cuda) without lit or FileCheck
# The kernel libraries and FlagGems' source are stored xz-compressed too
# (*.so.xz, flaggems.tar.xz), so that everything fits the device tool's 64
# MiB; gpu-run.sh unpacks them all first.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
do_build=0
if [[ "${1:-}" == "--build" ]]; then
  do_build=1
  shift
fi
build=$(cd "${1:-$root/build}" && pwd)
bundle="$root/gpu-bundle"
staging="$root/gpu-bundle.tmp"
pwc="$build/bin/pw-compile"
llvm_bin=${LLVM_BIN:-/usr/lib/llvm-22/bin}
runtime="$build/lib/libPointwiseRuntime.so"
max_mib=${PW_BUNDLE_MAX_MIB:-60}

say() { echo "gpu-bundle: $*"; }

manifest() {
  echo "built: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (+ uncommitted changes)')"
  echo "g++: $(g++ --version | head -1)"
  (cd "$staging" && ls -l)
}


if ((do_build)); then
  say "building pw-compile and PointwiseRuntime in $build"
  cmake --build "$build" --target pw-compile PointwiseRuntime
  if grep -q "POINTWISE_STATIC_C_API:BOOL=ON" "$build/CMakeCache.txt"; then
    cmake --build "$build" --target pw-run-static
  fi
fi
for f in "$pwc" "$runtime"; do
  if [[ ! -e "$f" ]]; then
    say "missing $f (build the pw-compile and PointwiseRuntime targets, or pass --build)" >&2
    exit 1
  fi
done

rm -rf "$staging"
mkdir -p "$staging"
trap 'rm -rf "$staging"' EXIT

say "runtime: $runtime"
cp "$runtime" "$staging/"

# The Python package's wheel, built by pip in its own tree, build-python/
# (pip's build isolation recreates a tree's CMake cache at every run, so it
# gets none of BUILD_DIR's), with BUILD_DIR's POINTWISE_TORCH_DIR: the wheel
# has a _torchtensors.abi3.so per torch directory that BUILD_DIR's
# -DPOINTWISE_TORCH_DIR lists ($(bash test/gpu-bundle/torch-package.sh
# VERSION) each; used there only under a torch of that release).
mkdir -p "$staging/.wheel"
if [[ -n "${PW_WHEEL:-}" ]]; then
  say "wheel: $PW_WHEEL"
  cp "$PW_WHEEL" "$staging/.wheel/"
else
  torch_dir=$(sed -n 's/^POINTWISE_TORCH_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  say "pip wheel in $root/build-python${torch_dir:+, torch from $torch_dir}" \
    "(minutes when it is new)"
  env "${launcher[@]}" ${torch_dir:+POINTWISE_TORCH_DIR="$torch_dir"} \
    PIP_ROOT_USER_ACTION=ignore python3 -m pip wheel --quiet --no-deps \
    --wheel-dir "$staging/.wheel" \
    --config-settings=build-dir="$root/build-python" "$root"
fi
wheels=("$staging"/.wheel/pointwise-*-cp311-abi3-linux_x86_64.whl)
if [[ ${#wheels[@]} -ne 1 || ! -f "${wheels[0]}" ]]; then
  say "expected one pointwise-*-cp311-abi3-linux_x86_64.whl, got:" \
    "$(ls "$staging/.wheel")" >&2
  exit 1
fi
wheel=$staging/$(basename "${wheels[0]}")
# Stored, not deflated, so that xz compresses the compiler as well as it
# compresses the bare library.
python3 - "${wheels[0]}" "$wheel" <<'EOF'
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as source, \
        zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as target:
    for info in source.infolist():
        data = source.read(info)
        info.compress_type = zipfile.ZIP_STORED
        target.writestr(info, data)
EOF
rm -rf "$staging/.wheel"
python3 -m zipfile -l "$wheel" | sed 's/^/gpu-bundle:   /'
if ! python3 -m zipfile -l "$wheel" | grep -q 'pointwise/torchtensors/.*/_torchtensors.abi3.so'; then
  say "the wheel has no _torchtensors.abi3.so (configure $build with" \
    "-DPOINTWISE_TORCH_DIR=\$(bash test/gpu-bundle/torch-package.sh VERSION)):" \
    "the C call path reads tensor attributes there" >&2
fi

# The three kernel libraries, compiled in parallel.
declare -A sources=(
  [workloads]="$root/benchmarks/workloads.mlir"
  [kernels]="$root/test/Integration/GPU/kernels.mlir"
  [kernels-bf16-scalar]="$root/test/Integration/GPU/kernels-bf16-scalar.mlir"
)
# The test kernels also get 64-bit variants, which the families' tests of
# large layouts launch; the workloads are built as pw-compile builds by
# default.
declare -A flags=(
  [kernels]="--index-bitwidths=32,64"
)
declare -A pids=()
for name in "${!sources[@]}"; do
  say "pw-compile ${sources[$name]#$root/} ${flags[$name]:+${flags[$name]} }-> $name.so"
  # shellcheck disable=SC2086  # the flags are words
  "$pwc" "${sources[$name]}" ${flags[$name]:-} -o "$staging/$name.so" \
    --runtime-dir "$build/lib" >"$staging/$name.log" 2>&1 &
  pids[$name]=$!
done
failed=0
for name in "${!pids[@]}"; do
  if wait "${pids[$name]}"; then
    say "built $name.so ($(du -h "$staging/$name.so" | cut -f1))"
  else
    say "pw-compile failed for ${sources[$name]#$root/}:" >&2
    cat "$staging/$name.log" >&2
    failed=1
  fi
  rm -f "$staging/$name.log"
done
((failed == 0)) || exit 1

say "g++ benchmarks/host_overhead.cpp -> host_overhead"
# shellcheck disable=SC2016  # a literal $ORIGIN for the linker
g++ -O2 -std=c++17 -Wall -I"$root/include" "$root/benchmarks/host_overhead.cpp" \
  -o "$staging/host_overhead" -L"$staging" -l:workloads.so -lPointwiseRuntime \
  -Wl,-rpath,'$ORIGIN'

# The embedder's path: static-shape programs and fused chains compiled by
# pw-gpu-pipeline into shared libraries (benchmarks/pipeline_bench.py).
say "pw-gpu-pipeline: benchmarks/pipeline_modules.py -> pipeline_workloads.so, pipeline_chains.so"
python3 "$root/benchmarks/pipeline_modules.py" --emit "$staging/.pipeline"
for name in workloads_static chains; do
  (
    set -e
    cd "$staging/.pipeline"
    passes=(--pw-gpu-pipeline="chip=sm_90 format=fatbin launch-on-current-stream=1")
    [[ $name == chains ]] && passes=(--pw-fuse-maps --canonicalize "${passes[@]}")
    "$build/bin/pw-opt" "$name.mlir" "${passes[@]}" -o "$name.llvm.mlir"
    "$llvm_bin/mlir-translate" --mlir-to-llvmir "$name.llvm.mlir" -o "$name.ll"
    "$llvm_bin/llc" -O2 -relocation-model=pic -filetype=obj "$name.ll" -o "$name.o"
  ) || { say "compiling $name.mlir with pw-gpu-pipeline failed" >&2; exit 1; }
done
# shellcheck disable=SC2016  # a literal $ORIGIN for the linker
g++ -shared -o "$staging/pipeline_workloads.so" "$staging/.pipeline/workloads_static.o" \
  -L"$staging" -lPointwiseRuntime -Wl,-rpath,'$ORIGIN'
# shellcheck disable=SC2016
g++ -shared -o "$staging/pipeline_chains.so" "$staging/.pipeline/chains.o" \
  -L"$staging" -lPointwiseRuntime -Wl,-rpath,'$ORIGIN'
rm -rf "$staging/.pipeline"
cp "$root/benchmarks/pipeline_bench.py" "$root/benchmarks/pipeline_modules.py" "$staging/"

pwrun="$build/bin/pw-run-static"
if [[ -f "$pwrun" ]]; then
  say "compressing $pwrun -> pw-run.xz (a minute or two)"
  xz -T2 -6 -c "$pwrun" >"$staging/pw-run.xz"
  cp "$root/test/lit-support/gpu_lit_runner.py" "$staging/"
else
  say "no $pwrun: the GPU lit tests cannot run there (configure with" \
    "-DPOINTWISE_STATIC_C_API=ON and build pw-run-static)" >&2
fi
mkdir -p "$staging/pytests"
cp "$root"/python_bindings/tests/*.py "$staging/pytests/"

say "test_families.py, gpu_bench.py"
cp "$root/test/Integration/GPU/test_families.py" "$root/benchmarks/gpu_bench.py" \
  "$root/benchmarks/compile_time.py" \
  "$staging/"

# FlagGems, the fourth peer, timed by gpu_bench.py through peers.py's own
# implementations.
peers="$root/../shared/bench/peers.py"
if [[ -f "$peers" ]]; then
  cp "$peers" "$staging/"
else
  say "no $peers: gpu_bench.py cannot time FlagGems" >&2
fi
if [[ -n "${PW_FLAGGEMS_SRC:-}" ]]; then
  mkdir -p "$staging/flaggems"
  if [[ -d "$PW_FLAGGEMS_SRC/src/flag_gems" ]]; then
    say "FlagGems: $PW_FLAGGEMS_SRC/src/flag_gems"
    cp -r "$PW_FLAGGEMS_SRC/src/flag_gems" "$staging/flaggems/"
  elif git --git-dir="$PW_FLAGGEMS_SRC" rev-parse --verify -q HEAD >/dev/null; then
    say "FlagGems: src/flag_gems of $PW_FLAGGEMS_SRC at" \
      "$(git --git-dir="$PW_FLAGGEMS_SRC" rev-parse --short HEAD)"
    git --git-dir="$PW_FLAGGEMS_SRC" archive HEAD src/flag_gems |
      tar -x -C "$staging/flaggems" --strip-components=1
  else
    say "PW_FLAGGEMS_SRC=$PW_FLAGGEMS_SRC is neither a FlagGems work tree" \
      "nor a git directory" >&2
    exit 1
  fi
  find "$staging/flaggems" -name __pycache__ -prune -exec rm -rf {} +
fi

# The differential suite's GPU mode: random cases compiled into families,
# with their inputs and the CPU reference lowering's outputs
# (docs/Testing.md). PW_DIFF_CASES=0 leaves it out.
diff_cases=${PW_DIFF_CASES:-150}
if ((diff_cases > 0)); then
  say "differential cases: $diff_cases (seed ${PW_DIFF_SEED:-1}, 32- and 64-bit modules alternating)"
  python3 "$root/test/lit-support/differential.py" \
    --pw-run "$build/bin/pw-run" --pw-opt "$build/bin/pw-opt" \
    --gpu-bundle "$staging/diff" --cases "$diff_cases" \
    --seed "${PW_DIFF_SEED:-1}" --index-bitwidths alternate
fi

# The differential suite through pw-gpu-pipeline: every generated case, map
# cases, tensor programs and branch programs, run there by the bundle's pw-run
# (docs/Testing.md). PW_PIPELINE_DIFF_CASES=0 leaves it out; it needs
# pw-run-static (a build with -DPOINTWISE_STATIC_C_API=ON).
pipeline_cases=${PW_PIPELINE_DIFF_CASES:-300}
if ((pipeline_cases > 0)) && [[ -x "$build/bin/pw-run-static" ]]; then
  say "pipeline differential cases: $pipeline_cases map cases, $((pipeline_cases / 3)) tensor programs and $((pipeline_cases / 10)) branch programs (seed ${PW_DIFF_SEED:-1})"
  python3 "$root/test/lit-support/differential.py" \
    --pw-run "$build/bin/pw-run" --pw-opt "$build/bin/pw-opt" \
    --pipeline-bundle "$staging/pipeline-diff" --cases "$pipeline_cases" \
    --pipeline-tensor-cases $((pipeline_cases / 3)) \
    --pipeline-branch-cases $((pipeline_cases / 10)) \
    --seed "${PW_DIFF_SEED:-1}"
fi

# Check that the wheel installs as gpu-run.sh installs it, and that its
# package loads its compiler and reads every table (no GPU needed).
say "installing the wheel into a scratch directory, reading the family tables"
PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --no-deps --no-index \
  --target "$staging/.installed" "$wheel"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$staging/.installed" python3 - "$staging" <<'EOF'
import os
import sys
import pointwise as pw
from pointwise import _compiler
package = os.path.dirname(pw.__file__)
compiler = _compiler.load_compiler()
assert os.path.dirname(compiler.path) == package, compiler.path
print("gpu-bundle:   the wheel's package: %s, %s" % (package, compiler.version))
for name in ("workloads.so", "kernels.so"):
    lib = pw.KernelLibrary(sys.argv[1] + "/" + name)
    families = lib.families()
    print("gpu-bundle:   %s: %s" % (name, ", ".join(
        "%s (%d variants)" % (f.name, len(f.variants)) for f in families)))
try:
    pw.KernelLibrary(sys.argv[1] + "/kernels-bf16-scalar.so")
except OSError as e:
    print("gpu-bundle:   kernels-bf16-scalar.so does not load here: %s" % e)
EOF
rm -rf "$staging/.installed"

# The largest files xz-compressed (gpu-run.sh unpacks them): kernel
# libraries shrink to a quarter, FlagGems' source to a fifth, the wheel (its
# compiler) to a fifth.
for library in "$staging"/*.so; do
  case "$(basename "$library")" in
  libPointwiseRuntime.so) ;;
  *) xz -T2 -6 "$library" ;;
  esac
done
say "compressing $(basename "$wheel") (a minute or two)"
xz -T2 -6 "$wheel"
say "$(basename "$wheel").xz: $(du -h "$wheel.xz" | cut -f1)"
if [[ -d "$staging/flaggems" ]]; then
  tar -C "$staging" -cJf "$staging/flaggems.tar.xz" flaggems
  rm -rf "$staging/flaggems"
fi

{
  echo "pw-compile: $pwc"
  manifest
} >"$staging/MANIFEST"

size_kib=$(du -sk "$staging" | cut -f1)
if ((size_kib > max_mib * 1024)); then
  say "the bundle is $((size_kib / 1024)) MiB, over $max_mib MiB" >&2
  exit 1
fi

rm -rf "$bundle"
mv "$staging" "$bundle"
trap - EXIT
say "wrote $bundle ($((size_kib / 1024)) MiB):"
(cd "$bundle" && ls -l | sed 's/^/gpu-bundle:   /')
say "on the GPU machine: bash test/gpu-bundle/gpu-run.sh gpu-bundle (carry gpu-bundle)"
