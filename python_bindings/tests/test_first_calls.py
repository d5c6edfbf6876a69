"""First calls of operators racing each other: threads of one process
compiling families at once (each compilation lowers its variants on the
compiler's shared threads), and processes filling one disk cache at once.
Every result is checked, on the CPU here and on the GPU (PyTorch) where
there is one; a call must never run a family before it is complete."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

pw = pytest.importorskip("pointwise")

try:
    import torch
    HAVE_CUDA = torch.cuda.is_available()
except ImportError:
    HAVE_CUDA = False

DEVICES = ["cpu"] + (["cuda"] if HAVE_CUDA else [])


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("POINTWISE_PROGRESS", "0")
    monkeypatch.setenv("POINTWISE_CACHE_DIR", str(tmp_path / "cache"))


def _array(shape, seed, device):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return torch.from_numpy(x).cuda() if device == "cuda" else x


def _numpy(x):
    return x.cpu().numpy() if hasattr(x, "cpu") else x


@pytest.mark.parametrize("device", DEVICES)
def test_threads_racing_on_first_calls_of_many_families(device):
    """Eight threads call two fresh operators at ranks 1-4 at once, in
    different orders: eight families compile concurrently, each once, and
    every call gets the right result, transposed operands included."""

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add(x, y):
        return x + y

    @pw.pointwise(is_tensor=[True, True, False],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def axpy(x, y, alpha):
        return x * alpha + y

    shapes = [(37,), (5, 9), (3, 4, 7), (2, 3, 5, 6)]
    start = threading.Barrier(8)
    errors = []

    def work(index):
        try:
            start.wait()
            order = shapes[index % 4:] + shapes[:index % 4]
            for shape in order:
                a = _array(shape, index, device)
                b = _array(shape, index + 100, device)
                np.testing.assert_allclose(_numpy(add(a, b)),
                                           _numpy(a) + _numpy(b), rtol=1e-6)
                bt = b.T if device == "cpu" else b.permute(
                    *reversed(range(b.dim())))
                at = a.T if device == "cpu" else a.permute(
                    *reversed(range(a.dim())))
                np.testing.assert_allclose(
                    _numpy(axpy(at, bt, 0.5)),
                    _numpy(at) * 0.5 + _numpy(bt), rtol=1e-6)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert len(add._launchers) == 4
    assert len(axpy._launchers) == 4


_FILLER = """
import sys, numpy as np, pointwise as pw
from pointwise import _compiler
device = sys.argv[1]
@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def sub(x, y):
    return x - y
for rank in (1, 2, 3):
    shape = (3, 4, 5)[:rank]
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    y = np.full(shape, 0.25, dtype=np.float32)
    if device == "cuda":
        import torch
        got = sub(torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()).cpu().numpy()
    else:
        got = sub(x, y)
    assert (got == x - y).all(), rank
print(" ".join(sorted(l.origin for l in _compiler._memory.values())))
"""


@pytest.mark.parametrize("device", DEVICES)
def test_two_processes_filling_one_cache(device, tmp_path):
    """Two processes started together compile the same families into one
    empty cache: both compute right, the cache ends with one complete file
    per family, and a third process takes all of them from disk."""
    cache = tmp_path / "shared"
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(cache),
               POINTWISE_PROGRESS="0", PYTHONPATH=os.pathsep.join(sys.path))
    script = textwrap.dedent(_FILLER)
    racers = [subprocess.Popen([sys.executable, "-c", script, device],
                               env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    outputs = [r.communicate(timeout=600) for r in racers]
    for racer, (out, err) in zip(racers, outputs):
        assert racer.returncode == 0, err
        origins = out.split()
        assert len(origins) == 3
        assert set(origins) <= {"compiled", "disk"}
    # The lock lets one process compile each family; the other loads it.
    assert sorted(outputs[0][0].split() + outputs[1][0].split()).count(
        "compiled") == 3
    libraries = sorted(f for f in os.listdir(cache) if f.endswith(".pwlib"))
    assert len(libraries) == 3
    assert not [f for f in os.listdir(cache) if f.endswith(".tmp")]
    third = subprocess.run([sys.executable, "-c", script, device], env=env,
                           capture_output=True, text=True, timeout=600)
    assert third.returncode == 0, third.stderr
    assert third.stdout.split() == ["disk"] * 3
