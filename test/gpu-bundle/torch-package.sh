#!/usr/bin/env bash
# Unpacks the parts of a PyTorch wheel that pointwise._torchtensors builds
# against (headers, version.py and the five libraries it links) into
# .cache/torch-<version>/torch, and prints that directory: pass it to CMake
# as -DPOINTWISE_TORCH_DIR. The wheel comes from PyPI (pip download), so the
# version must be one PyPI serves for this platform; it must be the GPU
# machine's torch, exactly (torch.__version__ and torch.version.git_version
# are checked when the package loads the module).
#
#   bash test/gpu-bundle/torch-package.sh 2.11.0 [python version, default 3.12]
set -euo pipefail

version=${1:?usage: torch-package.sh TORCH_VERSION [PYTHON_VERSION]}
python_version=${2:-3.12}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache="$root/.cache"
target="$cache/torch-$version"
if [[ -f "$target/torch/version.py" && -f "$target/torch/lib/libtorch_python.so" ]]; then
  echo "$target/torch"
  exit 0
fi
mkdir -p "$cache/wheels"
echo "torch-package: downloading the torch $version wheel (about 530 MB)" >&2
pip download --quiet --no-deps --only-binary=:all: \
  --python-version "$python_version" --platform manylinux_2_28_x86_64 \
  "torch==$version" -d "$cache/wheels" >&2
wheel=$(ls "$cache/wheels"/torch-"$version"-*.whl | head -1)
echo "torch-package: unpacking $wheel" >&2
rm -rf "$target.tmp"
mkdir -p "$target.tmp"
unzip -q -o "$wheel" 'torch/include/*' 'torch/version.py' \
  'torch/lib/libc10.so' 'torch/lib/libc10_cuda.so' \
  'torch/lib/libtorch_python.so' 'torch/lib/libtorch_cuda.so' \
  'torch/lib/libtorch_cpu.so' -d "$target.tmp"
rm -rf "$target"
mv "$target.tmp" "$target"
echo "$target/torch"
