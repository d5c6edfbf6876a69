#!/usr/bin/env python3
"""Which torch releases pointwise._torchshim serves, and how: downloads
each release's wheel from PyPI (pip download, about 0.5-0.9 GB each, kept
only while it is read), lists the dynamic symbols of the libraries the
shim binds to, and prints a table of the functions
python_bindings/src/TorchShim.cpp looks up (read from that file) against
the releases, with what follows for a call:

  reads     the shim binds (every required function is there), or the
            calls read attributes
  layout    whether it asks a tensor's layout (aoti_torch_get_layout), or
            leaves sparse tensors to fail at their strides
  is_neg    at::native (no dispatcher) or at::_ops (through it)
  outputs   empty_generic on the current device, empty_cuda, or the
            dispatcher (aoti_torch_empty_strided)

    python3 test/gpu-bundle/torch-shim-symbols.py 2.9.1 2.10.0 2.11.0

Needs network access to PyPI, `unzip` and `nm` (binutils).
"""

import os
import re
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SHIM = os.path.join(ROOT, "python_bindings", "src", "TorchShim.cpp")
LIBRARIES = ("libtorch_cpu.so", "libtorch_cuda.so", "libtorch_python.so",
             "libc10.so", "libc10_cuda.so")

IS_NEG_NATIVE = "_ZN2at6native6is_negERKNS_6TensorE"
EMPTY_CUDA_PREFIX = "_ZN2at6detail10empty_cuda"
EMPTY_GENERIC_PREFIX = "_ZN2at6detail13empty_generic"
GET_LAYOUT = "aoti_torch_get_layout"
OPTIONAL = (GET_LAYOUT, "aoti_torch_dtype_complex", EMPTY_CUDA_PREFIX,
            EMPTY_GENERIC_PREFIX, "_ZN2at4cuda22getCUDADeviceAllocator",
            "_ZN3c104cuda14current_device")


def looked_up_names():
    """The symbol names TorchShim.cpp passes to lookUp and lookUpFirst, in
    order (adjacent string literals joined)."""
    with open(SHIM) as f:
        source = f.read()
    joined = re.sub(r'"\s*\n\s*"', "", source)
    names = []
    for name in re.findall(r'"((?:aoti_torch_|_Z)[A-Za-z0-9_]+)"', joined):
        if name not in names:
            names.append(name)
    return names


def exported(wheel):
    """The defined dynamic symbols of the wheel's LIBRARIES."""
    symbols = set()
    with tempfile.TemporaryDirectory() as directory, \
            zipfile.ZipFile(wheel) as archive:
        for library in LIBRARIES:
            member = "torch/lib/" + library
            if member not in archive.namelist():
                continue
            path = archive.extract(member, directory)
            listing = subprocess.run(
                ["nm", "-D", "--defined-only", path], check=True,
                capture_output=True, text=True).stdout
            symbols.update(line.split()[-1] for line in listing.splitlines()
                           if line.strip())
            os.unlink(path)
    return symbols


def download(version, directory):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--only-binary=:all:", "--python-version", "3.12",
         "--platform", "manylinux_2_28_x86_64",
         "--platform", "manylinux2014_x86_64",
         "--platform", "manylinux1_x86_64", "torch==" + version,
         "-d", directory],
        check=True)
    wheels = [f for f in os.listdir(directory) if f.startswith("torch-")]
    if len(wheels) != 1:
        raise RuntimeError("torch %s: %d wheels downloaded" % (version,
                                                               len(wheels)))
    return os.path.join(directory, wheels[0])


def verdict(names, symbols):
    """(reads, layout, is_neg, outputs) for a release exporting
    `symbols`."""
    def have(name):
        return name in symbols

    is_neg = [n for n in names if "is_neg" in n]
    is_conj = [n for n in names if "is_conj" in n]
    wrap = [n for n in names if "THPVariable_Wrap" in n]
    required = [n for n in names
                if not n.startswith(OPTIONAL) and n not in is_neg + is_conj
                + wrap]
    reads = all(map(have, required)) and any(map(have, is_neg)) and \
        any(map(have, is_conj)) and any(map(have, wrap))
    generic = [n for n in names if n.startswith(OPTIONAL[3:])]
    if not reads:
        return "attributes", "-", "-", "-"
    if all(map(have, generic)):
        outputs = "empty_generic"
    elif any(have(n) for n in names if n.startswith(EMPTY_CUDA_PREFIX)):
        outputs = "empty_cuda"
    else:
        outputs = "dispatcher"
    return ("shim", "asked" if have(GET_LAYOUT) else "strides",
            "native" if have(IS_NEG_NATIVE) else "dispatcher", outputs)


def main():
    versions = sys.argv[1:]
    if not versions:
        sys.exit(__doc__)
    names = looked_up_names()
    found = {}
    for version in versions:
        print("torch-shim-symbols: torch %s ..." % version, file=sys.stderr,
              flush=True)
        with tempfile.TemporaryDirectory() as directory:
            found[version] = exported(download(version, directory))
    print("| symbol | " + " | ".join(versions) + " |")
    print("|---|" + "---|" * len(versions))
    for name in names:
        print("| `%s` | %s |" % (name, " | ".join(
            "yes" if name in found[v] else "**no**" for v in versions)))
    rows = [verdict(names, found[v]) for v in versions]
    for title, index in (("reads", 0), ("layout", 1), ("is_neg", 2),
                         ("outputs", 3)):
        print("| %s | %s |" % (title, " | ".join(r[index] for r in rows)))


if __name__ == "__main__":
    main()
