"""First calls of operators racing each other: threads of one process
compiling families at once, threads choosing a family's variants at once
(each variant is compiled on demand, once, and never launched before it is
complete), and processes filling one disk cache at once. Every result is
checked, on the CPU here and on the GPU (PyTorch) where there is one, and
the families compiled on demand give exactly what complete families give."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

pw = pytest.importorskip("pointwise")
from pointwise import _compiler  # noqa: E402

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
    monkeypatch.delenv("POINTWISE_ON_DEMAND", raising=False)
    # Fresh operators compile fresh families: none from earlier tests.
    _compiler.clear_memory_cache()


def _variants_loaded():
    """Variant name -> origin ("compiled" or "disk") of every family of the
    libraries this process holds in memory."""
    loaded = {}
    with _compiler._memory_lock:
        libraries = list(_compiler._memory.values())
    for library in libraries:
        for family in library.on_demand_families.values():
            loaded.update(family.loaded)
    return loaded


def _run_threads(work, count=8):
    """Runs work(0) ... work(count - 1) on threads of their own, joined."""
    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


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

    _run_threads(work)
    assert not errors, errors[0]
    assert len(add._launchers) == 4
    assert len(axpy._launchers) == 4


@pytest.mark.parametrize("cache", ["disk", "none"])
@pytest.mark.parametrize("device", DEVICES)
def test_threads_racing_on_first_calls_of_one_family(device, cache,
                                                     monkeypatch):
    """Eight threads call one fresh rank-3 operator at once, each with the
    layouts that choose different variants (contiguous: rank 1; one operand
    transposed: rank 3), in different orders, while compiling is slowed
    down: each variant is compiled once (with or without the disk cache's
    file locks), the threads that chose it meanwhile wait for it, and every
    result is right."""
    if cache == "none":
        monkeypatch.setenv("POINTWISE_CACHE_DIR", "")
    compiled = []
    compile_variant = _compiler._compile

    def slow_compile(compiler, source, options, *args, **kwargs):
        compiled.append(options)
        time.sleep(0.2)  # threads that choose the variant meanwhile wait
        return compile_variant(compiler, source, options, *args, **kwargs)

    monkeypatch.setattr(_compiler, "_compile", slow_compile)

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def mul(x, y):
        return x * y

    shape = (4, 5, 6)
    start = threading.Barrier(8)
    errors = []

    def work(index):
        try:
            a = _array(shape, index, device)
            b = _array(shape[::-1], index + 50, device)
            bt = b.T if device == "cpu" else b.permute(2, 1, 0)
            c = _array(shape, index + 100, device)
            calls = [(a, c), (a, bt)]
            start.wait()
            for x, y in calls[index % 2:] + calls[:index % 2]:
                np.testing.assert_array_equal(_numpy(mul(x, y)),
                                              _numpy(x) * _numpy(y))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    _run_threads(work)
    assert not errors, errors[0]
    variants = [o for o in compiled if "variants=none" not in o]
    assert len(variants) == len(set(variants)) == 2, compiled
    assert len(_variants_loaded()) == 2


def _calls(device):
    """Layouts that choose different variants: contiguous, broadcast,
    transposed, sliced, flipped; each a list of operands (x, y)."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal((6, 7, 8)).astype(np.float32)
    other = rng.standard_normal((8, 7, 6)).astype(np.float32)
    cases = [
        (base, base + 1),
        (base, base[0, 0]),
        (base, other.transpose(2, 1, 0)),
        (base[:, 1:, :7], base[:, :6, 1:]),
        (base[::-1], base[:, ::-1, ::-1]),
    ]
    if device == "cuda":
        cases = [tuple(_to_device(v) for v in case) for case in cases]
    return cases


def _to_device(v):
    """`v` on the GPU with the same strides and offset in a copy of its
    whole buffer: a torch view, or a pw.StridedBuffer where a stride is
    negative (torch has none)."""
    base = v
    while base.base is not None:
        base = base.base
    offset = (v.__array_interface__["data"][0] -
              base.__array_interface__["data"][0]) // v.itemsize
    flat = torch.from_numpy(np.ascontiguousarray(base).reshape(-1)).cuda()
    strides = [s // v.itemsize for s in v.strides]
    if min(strides, default=0) < 0:
        return pw.StridedBuffer(flat, shape=v.shape, strides=strides,
                                offset=offset)
    return flat.as_strided(v.shape, strides, offset)


@pytest.mark.parametrize("device", DEVICES)
def test_on_demand_families_give_what_complete_families_give(device,
                                                             monkeypatch):
    """The same calls, once with variants compiled on demand and once with
    complete families: bit-identical results and the same variant chosen
    for every layout (the choice never depends on what is compiled)."""
    results = {}
    for on_demand in ("1", "0"):
        monkeypatch.setenv("POINTWISE_ON_DEMAND", on_demand)
        _compiler.clear_memory_cache()

        @pw.pointwise(is_tensor=[True, True, False],
                      promotion_methods=[(0, 1, "DEFAULT")])
        def axpy(x, y, alpha):
            return x * alpha + y

        got = []
        for x, y in _calls(device):
            out = axpy(x, y, 0.5)
            got.append((_numpy(out).copy(), pw.last_variant()))
        results[on_demand] = got
        if on_demand == "1":
            assert _variants_loaded(), "nothing was compiled on demand"
        else:
            assert not _variants_loaded()
    for (lazy, lazy_variant), (whole, whole_variant) in zip(results["1"],
                                                           results["0"]):
        np.testing.assert_array_equal(lazy, whole)
        assert lazy_variant == whole_variant


@pytest.mark.parametrize("device", DEVICES)
def test_first_call_compiles_one_variant(device):
    """A first call at rank 4 on contiguous operands compiles the family's
    tables and the one variant it launches (rank 1 after coalescing)."""

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add4(x, y):
        return x + y

    a = _array((2, 3, 4, 5), 1, device)
    np.testing.assert_array_equal(_numpy(add4(a, a)), _numpy(a) * 2)
    loaded = _variants_loaded()
    assert len(loaded) == 1, loaded
    (name, origin), = loaded.items()
    assert "__r1_i" in name and name.endswith("_linear"), name
    assert origin == "compiled"


def test_damaged_files_of_tables_or_variants_are_compiled_again(tmp_path,
                                                                monkeypatch):
    """The tables and the variant of a family have a cache file each, with
    the rules of every cache file: a damaged one is compiled again and
    replaced, the other is loaded."""
    monkeypatch.setenv("POINTWISE_CACHE_DIR", str(tmp_path))
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)

    def call():
        _compiler.clear_memory_cache()
        fn = pw.pointwise(promotion_methods=[(0, "DEFAULT")],
                          name="damaged")(lambda v: v * 3 - 1)
        np.testing.assert_array_equal(fn(x), x * 3 - 1)
        tables = [l.origin for l in _compiler._memory.values()]
        return tables + list(_variants_loaded().values())

    assert call() == ["compiled", "compiled"]
    assert call() == ["disk", "disk"]
    files = sorted(tmp_path.glob("*.pwlib"))
    assert len(files) == 2
    outcomes = []
    for path in files:
        good = path.read_bytes()
        path.write_bytes(good[:len(good) // 2])
        outcomes.append(call())
        assert path.read_bytes() == good
        assert call() == ["disk", "disk"]
    assert sorted(outcomes) == [["compiled", "disk"], ["disk", "compiled"]]


def test_a_variant_that_fails_to_compile_fails_the_call(monkeypatch):
    """The compiler's error comes back from the call that chose the variant,
    naming it; nothing broken is kept, and the next call compiles it."""
    compile_variant = _compiler._compile

    def failing(compiler, source, options, *args, **kwargs):
        if "variants=none" not in options:
            raise pw.PointwiseError(pw.Status.ERROR_INVALID_VALUE,
                                    "compiling failed on purpose")
        return compile_variant(compiler, source, options, *args, **kwargs)

    monkeypatch.setattr(_compiler, "_compile", failing)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def twice(x):
        return x * 2

    x = np.arange(6, dtype=np.float64)
    with pytest.raises(pw.PointwiseError,
                       match=r"^PW_ERROR_INVALID_VALUE: twice: loading variant "
                             r"0 \(rank 1, 64-bit indices, linear\) failed: "
                             r"compiling failed on purpose$"):
        twice(x)
    monkeypatch.setattr(_compiler, "_compile", compile_variant)
    np.testing.assert_array_equal(twice(x), x * 2)


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
    calls = [np.full(shape, 0.25, dtype=np.float32)]
    if rank > 1:  # a transposed operand: a variant of rank `rank`
        calls.append(np.ascontiguousarray(
            np.linspace(0, 1, x.size, dtype=np.float32).reshape(shape).T).T)
    for y in calls:
        if device == "cuda":
            import torch
            if y.flags.c_contiguous:
                ty = torch.from_numpy(y).cuda()
            else:
                ty = torch.from_numpy(np.ascontiguousarray(y.T)).cuda()
                ty = ty.permute(*reversed(range(rank)))
            got = sub(torch.from_numpy(x).cuda(), ty).cpu().numpy()
        else:
            got = sub(x, y)
        assert (got == x - y).all(), rank
libraries = list(_compiler._memory.values())
print(" ".join(sorted(l.origin for l in libraries)))
print(" ".join(sorted(origin for l in libraries
                      for f in l.on_demand_families.values()
                      for origin in f.loaded.values())))
"""


@pytest.mark.parametrize("device", DEVICES)
def test_two_processes_filling_one_cache(device, tmp_path):
    """Two processes started together compile the same families, their
    variants on demand, into one empty cache: both compute right, the cache
    ends with one complete file per family's tables and per variant, and a
    third process takes all of them from disk."""
    cache = tmp_path / "shared"
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(cache),
               POINTWISE_PROGRESS="0", PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("POINTWISE_ON_DEMAND", None)
    script = textwrap.dedent(_FILLER)
    racers = [subprocess.Popen([sys.executable, "-c", script, device],
                               env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    outputs = [r.communicate(timeout=600) for r in racers]
    tables, variants = [], []
    for racer, (out, err) in zip(racers, outputs):
        assert racer.returncode == 0, err
        lines = out.splitlines()
        tables.append(lines[0].split())
        variants.append(lines[1].split())
        # Three families; rank 1 launches one variant, ranks 2 and 3 two.
        assert len(tables[-1]) == 3 and len(variants[-1]) == 5
        assert set(tables[-1] + variants[-1]) <= {"compiled", "disk"}
    # The locks let one process compile each library; the other loads it.
    assert (tables[0] + tables[1]).count("compiled") == 3
    assert (variants[0] + variants[1]).count("compiled") == 5
    libraries = sorted(f for f in os.listdir(cache) if f.endswith(".pwlib"))
    assert len(libraries) == 8
    assert not [f for f in os.listdir(cache) if f.endswith(".tmp")]
    third = subprocess.run([sys.executable, "-c", script, device], env=env,
                           capture_output=True, text=True, timeout=600)
    assert third.returncode == 0, third.stderr
    assert third.stdout.splitlines() == [" ".join(["disk"] * 3),
                                         " ".join(["disk"] * 5)]


_PREFETCH = """
import numpy as np
import pointwise as pw
from pointwise import _compiler
assert _compiler._compiler is None  # importing loads no compiler

@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def add(x, y):
    return x + y

loader = _compiler._prefetch_thread
print(int(loader is not None))
if loader is not None:
    assert loader.name == "pointwise-compiler-load" and loader.daemon
    loader.join()
print(_compiler._compiler is not None)
x = np.arange(6, dtype=np.float32)
try:
    print(add(x, x).tolist() == (2 * x).tolist())
except OSError as e:
    print("OSError: %s" % e)
"""


def _run_prefetch_script(tmp_path, **env_vars):
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(tmp_path / "cache"),
               POINTWISE_PROGRESS="0", PYTHONPATH=os.pathsep.join(sys.path),
               **env_vars)
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_PREFETCH)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def test_decorating_loads_the_compiler_on_a_thread(tmp_path):
    """The decorator starts loading the compiler library on a thread of its
    own, which has it loaded, host description included, before the first
    call; the call then computes as always."""
    assert _run_prefetch_script(tmp_path, POINTWISE_PREFETCH="1") == [
        "1", "True", "True"]


def test_prefetch_can_be_turned_off(tmp_path):
    """With POINTWISE_PREFETCH=0 nothing loads before the first call, which
    loads the compiler itself."""
    assert _run_prefetch_script(tmp_path, POINTWISE_PREFETCH="0") == [
        "0", "False", "True"]


_WARM_CALL = """
import numpy as np
import pointwise as pw
from pointwise import _compiler

@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def add(x, y):
    return x + y

x = np.arange(6, dtype=np.float32)
print(add(x, x).tolist() == (2 * x).tolist(), _compiler._compiler is not None,
      sorted({l.origin for l in _compiler._memory.values()}))
"""


def test_a_warm_call_needs_no_compiler(tmp_path):
    """A call whose library is in the disk cache has the runtime link it:
    the process never loads the compiler library."""
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(tmp_path / "cache"),
               POINTWISE_PROGRESS="0", POINTWISE_PREFETCH="0",
               PYTHONPATH=os.pathsep.join(sys.path))
    lines = []
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", _WARM_CALL], env=env,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        lines.append(run.stdout.strip())
    assert lines == ["True True ['compiled']", "True False ['disk']"]


def test_a_compiler_that_fails_to_load_is_reported_by_the_first_call(
        tmp_path):
    """A compiler library that does not load makes the decorator's thread
    give up quietly (decorating raises nothing) and the first call raise
    OSError, as without the thread."""
    broken = tmp_path / "libPointwiseC.so"
    broken.write_text("not a shared library\n")
    for prefetch in ("1", "0"):
        lines = _run_prefetch_script(tmp_path, POINTWISE_PREFETCH=prefetch,
                                     POINTWISE_COMPILER=str(broken))
        assert lines[:2] == ["1" if prefetch == "1" else "0", "False"]
        assert lines[2].startswith("OSError: ") and "libPointwiseC.so" in \
            lines[2], lines


_FORK_AFTER_DECORATING = """
import os, signal, sys, time, warnings
import numpy as np
import pointwise as pw
from pointwise import _compiler

warnings.simplefilter("error", DeprecationWarning)  # fork with threads alive
x = np.arange(5, dtype=np.float32)
for round in range(3):
    _compiler._compiler = None  # as in a fresh process: load it again
    _compiler._prefetch_started = False

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add(x, y):
        return x + y

    pid = os.fork()  # at once, while the decorator's thread may be loading
    if pid == 0:
        os._exit(0 if add(x, x).tolist() == (2 * x).tolist() else 3)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:  # the child waits for a lock
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            sys.exit("round %d: the child's first call hangs" % round)
        time.sleep(0.01)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
print("ok")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_right_after_decorating(tmp_path):
    """A process forked right after decorating (a data loader's workers)
    gets a child whose first call completes: os.fork waits for the
    decorator's thread, which may hold the package's locks."""
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(tmp_path / "cache"),
               POINTWISE_PROGRESS="0", PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, "-c",
                          textwrap.dedent(_FORK_AFTER_DECORATING)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.split() == ["ok"], run.stderr
