#!/usr/bin/env bash
# CuPy for the GPU machine, which has no network: packed here from PyPI,
# installed there into a directory that gpu-run.sh adds to PYTHONPATH, so
# that the @pw.pointwise tests run against real CuPy arrays too.
#
#   bash test/gpu-bundle/gpu-cupy.sh pack      (here: writes gpu-extras/, git-ignored)
#   bash test/gpu-bundle/gpu-cupy.sh install   (there, from the repository root;
#                                          default target /tmp/cupy-site)
#
# CuPy's wheel (about 70 MB) and the GPU bundle do not fit in one device call
# (64 MiB), so the device takes two calls on one warm machine: the first
# carries gpu-extras and runs `install`, the second carries gpu-bundle and
# runs gpu-run.sh, whose `python` step then finds CuPy.
#
# Environment: PW_CUPY_PACKAGE (default cupy-cuda13x), PW_CUPY_PYTHON
# (default 3.12, the GPU machine's), PW_CUPY_SITE (install target).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
extras="$root/gpu-extras"
site=${PW_CUPY_SITE:-/tmp/cupy-site}
say() { echo "gpu-cupy: $*"; }

case "${1:-}" in
pack)
  package=${PW_CUPY_PACKAGE:-cupy-cuda13x}
  python=${PW_CUPY_PYTHON:-3.12}
  tag="cp${python/./}"
  rm -rf "$extras" "$extras.tmp"
  mkdir -p "$extras.tmp/wheels" "$extras.tmp/tree"
  say "downloading $package and fastrlock for CPython $python"
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version "$python" --platform manylinux2014_x86_64 \
    --dest "$extras.tmp/wheels" "$package" fastrlock
  for wheel in "$extras.tmp"/wheels/*.whl; do
    python3 -m zipfile -e "$wheel" "$extras.tmp/tree"
  done
  say "compressing (xz, a few minutes)"
  tar -C "$extras.tmp/tree" -cf - . | xz -6 -T0 >"$extras.tmp/cupy-$tag.tar.xz"
  mkdir -p "$extras"
  mv "$extras.tmp/cupy-$tag.tar.xz" "$extras/"
  rm -rf "$extras.tmp"
  say "wrote $extras ($(du -sh "$extras" | cut -f1)); carry gpu-extras and run" \
    "'bash test/gpu-bundle/gpu-cupy.sh install' on the GPU machine"
  ;;
install)
  archive=$(ls "$extras"/cupy-*.tar.xz 2>/dev/null | head -1)
  if [[ -z "$archive" ]]; then
    say "no gpu-extras/cupy-*.tar.xz: run 'pack' here and carry gpu-extras" >&2
    exit 2
  fi
  rm -rf "$site"
  mkdir -p "$site"
  tar -xJf "$archive" -C "$site"
  PYTHONPATH="$site" python3 -c 'import cupy; a = cupy.arange(4) * 2; print("gpu-cupy: CuPy", cupy.__version__, "works:", a.get().tolist())'
  say "installed into $site (gpu-run.sh adds it to PYTHONPATH)"
  ;;
*)
  echo "usage: bash test/gpu-bundle/gpu-cupy.sh pack|install" >&2
  exit 2
  ;;
esac
