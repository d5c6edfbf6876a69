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


def _shim_module():
    path = _native._beside_runtime(_native.TORCH_SHIM_NAME, None)
    if path is None:
        pytest.skip("no pointwise._torchshim built here")
    return _native._load_extension("pointwise._torchshim", path)


def test_torch_shim_says_what_it_misses():
    """pointwise._torchshim binds only to loaded libraries that have every
    function it calls, and names what is missing otherwise; until bound it
    reads nothing."""
    shim = _shim_module()
    with pytest.raises(RuntimeError, match="no table"):
        shim.table()
    with pytest.raises(RuntimeError, match="no table"):
        shim.probe(object())
    with pytest.raises(RuntimeError, match="no table"):
        shim.stream(0)
    missing = shim.bind(b"/nonexistent/libtorch_cpu.so", b"libm.so.6",
                        b"libc.so.6", 16)
    assert missing.startswith("torch's libraries are not loaded") and \
        "/nonexistent/libtorch_cpu.so" in missing and "libm" not in missing
    # Loaded libraries without torch's functions.
    missing = shim.bind(b"libc.so.6", b"libm.so.6", b"libc.so.6", 16)
    assert missing.startswith("not in torch's libraries: ")
    for name in ("aoti_torch_get_sizes", "aoti_torch_empty_strided",
                 "aoti_torch_get_current_cuda_stream",
                 "_ZN2at4_ops6is_neg4callERKNS_6TensorE"):
        assert name in missing
    assert shim.bind(b"libc.so.6", b"libc.so.6", b"libc.so.6", 3) == \
        "bad tensor offset 3"
    with pytest.raises(RuntimeError, match="no table"):
        shim.table()
    # The optional allocators and the layout query (torch 2.4 to 2.8 lack
    # it) are not among what a bind needs.
    assert "empty_cuda" not in missing and "empty_generic" not in missing
    assert "aoti_torch_get_layout" not in missing
    assert shim.allocator() is None
