"""Where the package finds pointwise._torchtensors: one module per torch
release the build listed in POINTWISE_TORCH_DIR, chosen by the running
torch's release whatever its CUDA variant (the git revision is checked when
the module loads)."""

import os

import pytest

from pointwise import _native


@pytest.mark.parametrize("version, release", [
    ("2.11.0+cu130", "2.11.0"),
    ("2.10.0+cu128", "2.10.0"),
    ("2.9.1", "2.9.1"),
    ("2.12.0.dev20261101+cu130", "2.12.0.dev20261101"),
])
def test_torch_release_drops_the_local_part(version, release):
    assert _native.torch_release(version) == release


def test_each_release_has_its_own_directory():
    names = {_native.torch_tensors_name(v)
             for v in ("2.11.0+cu130", "2.11.0+cu126", "2.11.0")}
    assert names == {os.path.join("torchtensors", "2.11.0",
                                  "_torchtensors.abi3.so")}
    assert _native.torch_tensors_name("2.10.0+cu128") != \
        _native.torch_tensors_name("2.11.0+cu130")


def test_built_modules_sit_where_the_package_looks():
    """Every _torchtensors module of the build tree or the installed package
    lies in a directory named by a release, so a torch of that release
    finds it."""
    found = []
    for directory in {os.path.dirname(c) for c in
                      _native.library_candidates("x")}:
        root = os.path.join(directory, "torchtensors")
        if not os.path.isdir(root):
            continue
        for release in os.listdir(root):
            path = os.path.join(root, release, _native.TORCH_TENSORS_NAME)
            if os.path.isfile(path):
                found.append(release)
                assert "+" not in release
                assert _native.torch_tensors_name(release + "+cu130") == \
                    os.path.join("torchtensors", release,
                                 _native.TORCH_TENSORS_NAME)
    if not found:
        pytest.skip("no pointwise._torchtensors built here "
                    "(POINTWISE_TORCH_DIR unset)")
