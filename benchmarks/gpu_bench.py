#!/usr/bin/env python3
"""GPU benchmark of the compiled kernel families against PyTorch eager and
torch.compile (Inductor), in one process, on the 13 workloads of
../shared/bench/peers.py (mirrored here: same names, shapes, dtypes and byte
counts; peers.py is imported only for FlagGems' implementations, below).

For each workload: our family through ``Family.__call__`` (output allocated
per call with torch.empty, like the eager op), PyTorch eager, Inductor with
static shapes (``dynamic=False``) and with dynamic shapes (``dynamic=True``),
and FlagGems' ``pointwise_dynamic`` kernels (peers.py's own
``flaggems_impls``, where the bundle carries peers.py and FlagGems' source:
``--flaggems``), each timed with ``triton.testing.do_bench(warmup=25,
rep=100, return_mode="median")``. Effective bandwidth = the workload's unique bytes
read + written / median time, shown as a percentage of the measured
device-to-device copy bandwidth (like peers.py). Before timing, our outputs
are poisoned with NaN and compared with eager's on every element (FlagGems'
too: a difference beyond the tolerance is shown beside its figure, and does
not fail the run).

Beside them, in the same rounds, a dense copy of the workload's byte count
(torch's ``copy_`` reading and writing half of it each): the ceiling of
that size under do_bench. The copy bandwidth above comes from 2 GiB moved;
at 128 MiB (rank5_sliced) the write-back of the L2 lines that do_bench's
flush leaves dirty costs a copy about 10 points (docs/Performance.md).
And the fixed cost of one timed launch: a kernel that does nothing
(``torch.cuda._sleep(0)``) under the same do_bench. A kernel streaming a
workload's bytes at the copy bandwidth after that fixed cost would reach
bytes / copy bandwidth / (bytes / copy bandwidth + that time): the column
"copy rate + empty launch" (kernels that stream faster than the 2 GiB copy,
as the adds of three operands do, go above it).

Then host time per call of a 1024-element f32 add from Python (peers.py's
small_latency: calls synchronized at the end), for ours and eager in 5
interleaved rounds of 4000 calls (medians; the machine's state moves these
by over 1 µs from one minute to the next, so one pass per call would compare
different moments). Without --decorator, ``@pw.pointwise`` is timed beside
``Family.__call__`` when the compiler (libPointwiseC.so) can be loaded,
and ``Family.__call__`` (the C call, FamilyCall, where the bundle has
_fastcall.abi3.so) beside the general call it stands in front of.

    python3 gpu_bench.py [--workloads a,b] [--no-inductor] [--lib workloads.so]
                         [--decorator] [--flaggems DIR]

--decorator measures the Python front end instead (``@pw.pointwise``
functions, python_bindings/pointwise/_pointwise.py): the same scalar bodies
traced and compiled at first call, then called with the full per-call work
(promotion, broadcasting, output allocation) on every call.

Writes every number to $OUT/bench.json when OUT is set (or --json PATH).
Exit status 1 if any of our results is wrong or a family call fails.
"""

import argparse
import datetime
import json
import os
import pathlib
import statistics
import sys
import time

import torch
import triton
import triton.testing as tt

HERE = pathlib.Path(__file__).resolve().parent


def _find_paths(lib_arg):
    """(workloads.so, directory holding the pointwise package)."""
    candidates = [HERE / "workloads.so", HERE.parent / "gpu-bundle" / "workloads.so"]
    lib = pathlib.Path(lib_arg) if lib_arg else next(
        (c for c in candidates if c.is_file()), None)
    if lib is None or not lib.is_file():
        sys.exit("gpu_bench: no workloads.so (looked in %s); run "
                 "test/gpu-bundle/gpu-bundle.sh or pass --lib"
                 % ", ".join(str(c) for c in candidates))
    for package_dir in (lib.resolve().parent, HERE, HERE.parent / "python_bindings"):
        if (package_dir / "pointwise" / "_runtime.py").is_file():
            return lib, package_dir
    sys.exit("gpu_bench: cannot find the pointwise Python package")


torch.backends.cuda.matmul.allow_tf32 = False
dev = "cuda"
g = None  # the generator, seeded in main (peers.py: manual_seed(0))


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, device=dev, dtype=torch.float32, generator=g).to(dtype)


# L2 lines that a kernel loads or stores with an evict_last policy (our
# families' loads from 64 MiB per launch, some of Inductor's loads) outlive
# do_bench's flush, a 256 MB zero_() of normal priority: a kernel timed
# later on the same inputs finds them still in L2 and reads less from DRAM
# (up to 7 points on rank5_sliced: docs/Performance.md, Method).
# bench() therefore demotes every persisting line to normal before it times
# anything, so that no measurement depends on what was timed before it.
RESET_PERSISTING_L2 = True
_libcuda = None


def reset_persisting_l2():
    """Demotes every L2 line marked persisting (evict_last) to normal
    priority (cuCtxResetPersistingL2Cache, in torch's context)."""
    global _libcuda
    if _libcuda is None:
        import ctypes
        _libcuda = ctypes.CDLL("libcuda.so.1")
    torch.cuda.synchronize()
    status = _libcuda.cuCtxResetPersistingL2Cache()
    if status != 0:
        raise RuntimeError("cuCtxResetPersistingL2Cache failed with CUDA "
                           "error %d" % status)


def bench(fn, reset_l2=True):
    """Median ms of fn under do_bench, after demoting persisting L2 lines
    (unless reset_l2 is False or --keep-persisting-l2 was given)."""
    if reset_l2 and RESET_PERSISTING_L2:
        reset_persisting_l2()
    return tt.do_bench(fn, warmup=25, rep=100, return_mode="median")  # ms


def nbytes(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


M = N = 8192
L = 1 << 26
W = {}
F = None  # the families, loaded in main


def workload(name):
    def deco(f):
        W[name] = f
        return f
    return deco


class Case:
    """eager(*args) -> result(s); ours(*args, *outs) writes outs;
    outs(*args) allocates them; bytes as peers.py counts them; tolerance
    |ours - eager| <= atol + rtol * |eager| on every element."""

    def __init__(self, eager, args, bytes_, ours, outs, atol=0.0, rtol=1e-5):
        self.eager, self.args, self.bytes = eager, args, bytes_
        self.ours, self.outs = ours, outs
        self.atol, self.rtol = atol, rtol


def like(t, dtype=None):
    return lambda *args: (torch.empty(t.shape, device=dev, dtype=dtype or t.dtype),)


# ---- the 13 workloads of peers.py, with our family call for each ----

@workload("add_contig_f32")
def _():
    a, b = rnd(L), rnd(L)
    return Case(lambda a, b: a + b, (a, b), nbytes(a, b) + a.numel() * 4,
                lambda a, b, o: F["add_f32"](a, b, o), like(a))


@workload("axpy_scalar_f32")
def _():
    x, y = rnd(L), rnd(L)
    return Case(lambda x, y: x * 0.2 + y, (x, y), nbytes(x, y) + x.numel() * 4,
                lambda x, y, o: F["axpy_f32"](x, y, 0.2, o), like(x))


@workload("bcast_row_f32")
def _():
    a, r = rnd(M, N), rnd(N)
    return Case(lambda a, r: a + r, (a, r), nbytes(a, r) + a.numel() * 4,
                lambda a, r, o: F["add_f32"](a, r, o), like(a))


@workload("bcast_col_f32")
def _():
    a, c = rnd(M, N), rnd(M, 1)
    return Case(lambda a, c: a + c, (a, c), nbytes(a, c) + a.numel() * 4,
                lambda a, c, o: F["add_f32"](a, c, o), like(a))


@workload("add_transposed_f32")
def _():
    a, b = rnd(M, N), rnd(N, M)
    return Case(lambda a, b: a + b.t(), (a, b), nbytes(a, b) + a.numel() * 4,
                lambda a, b, o: F["add_f32"](a, b.t(), o), like(a))


@workload("transpose_copy_f32")
def _():
    b = rnd(N, M)
    out_shape = (M, N)
    return Case(lambda b: b.t().contiguous(), (b,), nbytes(b) * 2,
                lambda b, o: F["copy_f32"](b.t(), o),
                lambda b: (torch.empty(out_shape, device=dev),))


@workload("nchw_plus_nhwc_f32")
def _():
    x = rnd(32, 256, 56, 56)
    y = rnd(32, 256, 56, 56).contiguous(memory_format=torch.channels_last)
    # eager's x + y is contiguous (x's layout): so is our output
    return Case(lambda x, y: x + y, (x, y), nbytes(x, y) + x.numel() * 4,
                lambda x, y, o: F["add_f32"](x, y, o), like(x))


@workload("strided_slice_f32")
def _():
    a, b = rnd(M, 2 * N), rnd(M, N)
    # only every other column of a is read, but each 32B sector is fetched
    return Case(lambda a, b: a[:, ::2] + b, (a, b), M * N * 4 * 3,
                lambda a, b, o: F["add_f32"](a[:, ::2], b, o), like(b))


@workload("flip_f32")
def _():
    x = rnd(M, N)
    # negative strides: torch has no such view (made per call from the
    # case's own input)
    return Case(lambda x: torch.flip(x, dims=[0, 1]), (x,), nbytes(x) * 2,
                lambda x, o: F["copy_f32"](pw.Strided.flip(x, (0, 1)), o), like(x), rtol=0.0)


@workload("gelu_tanh_f16")
def _():
    x = rnd(2 * L, dtype=torch.float16)
    f = lambda x: torch.nn.functional.gelu(x, approximate="tanh")  # noqa: E731
    return Case(f, (x,), nbytes(x) * 2,
                lambda x, o: F["gelu_tanh_f16"](x, o), like(x), atol=1e-2, rtol=1e-2)


@workload("add_bf16_f32_promote")
def _():
    a, b = rnd(L, dtype=torch.bfloat16), rnd(L)
    return Case(lambda a, b: a + b, (a, b), nbytes(a, b) + L * 4,
                lambda a, b, o: F["add_bf16_f32"](a, b, o), like(b))


@workload("rank5_sliced_scalar_f32")
def _():
    base = rnd(8, 16, 33, 64, 65)
    x = base[:, :, 1:, :, :-1]
    return Case(lambda x: x * 3.0 + 1.0, (x,), x.numel() * 4 * 2,
                lambda x, o: F["scale_shift_f32"](x, 3.0, 1.0, o),
                lambda x: (torch.empty(x.shape, device=dev),))


@workload("polar_2out_f32")
def _():
    r, t = rnd(L).abs(), rnd(L)

    def f(r, t):
        return r * torch.cos(t), r * torch.sin(t)
    return Case(f, (r, t), nbytes(r, t) * 2,
                lambda r, t, ox, oy: F["polar_f32"](r, t, ox, oy),
                lambda r, t: (torch.empty_like(r), torch.empty_like(r)),
                atol=1e-5, rtol=0.0)


def same_bytes_copy(bytes_):
    """A call copying bytes_ / 2 bytes between two dense buffers (moving
    bytes_ in all), with the buffers; no random numbers are drawn, so the
    workloads' data stay those of peers.py."""
    count = max(1, bytes_ // 8)
    source = torch.ones(count, device=dev)
    target = torch.empty_like(source)
    return (lambda: target.copy_(source)), (source, target)


def copy_bw():
    x = rnd(1 << 28)
    y = torch.empty_like(x)
    ms = bench(lambda: y.copy_(x))
    del x, y
    return 2 * (1 << 28) * 4 / (ms * 1e-3) / 1e9


def small_latency(fn, args, iters=20000):
    for _ in range(100):
        fn(*args)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn(*args)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters * 1e6  # us per call, host-bound


def host_rounds(calls, rounds=5, iters=4000):
    """Medians of small_latency over `rounds` interleaved rounds, each in a
    rotated order: {name: (fn, args)} -> ({name: median}, {name: rounds})."""
    names = list(calls)
    samples = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn, args = calls[name]
            samples[name].append(small_latency(fn, args, iters))
    return ({name: statistics.median(v) for name, v in samples.items()},
            samples)


def check(case, family_name):
    """Poisons our outputs, runs our call and eager's, and compares every
    element: (max abs error, ok, the variant that ran)."""
    outs = case.outs(*case.args)
    for o in outs:
        o.fill_(float("nan"))
    case.ours(*case.args, *outs)
    variant = F[family_name].last_variant()
    err, ok = compare(outs, case.eager(*case.args), case)
    del outs
    return err, ok, variant


def compare(results, refs, case):
    """(max abs error, whether every element is within the case's
    tolerance) of results against eager's refs (a tensor or a tuple each)."""
    if not isinstance(results, (tuple, list)):
        results = (results,)
    if not isinstance(refs, (tuple, list)):
        refs = (refs,)
    if len(results) != len(refs):
        return float("inf"), False
    err, ok = 0.0, True
    for o, r in zip(results, refs):
        if o.shape != r.shape:
            return float("inf"), False
        o, r = o.double(), r.double()
        diff = (o - r).abs()
        bad = torch.isnan(diff) | (diff > case.atol + case.rtol * r.abs())
        if bool(bad.any()):
            ok = False
        diff[torch.isnan(diff)] = float("inf")
        err = max(err, float(diff.max()) if diff.numel() else 0.0)
    return err, ok


FAMILY_OF = {
    "add_contig_f32": "add_f32", "axpy_scalar_f32": "axpy_f32",
    "bcast_row_f32": "add_f32", "bcast_col_f32": "add_f32",
    "add_transposed_f32": "add_f32", "transpose_copy_f32": "copy_f32",
    "nchw_plus_nhwc_f32": "add_f32", "strided_slice_f32": "add_f32",
    "flip_f32": "copy_f32", "gelu_tanh_f16": "gelu_tanh_f16",
    "add_bf16_f32_promote": "add_bf16_f32",
    "rank5_sliced_scalar_f32": "scale_shift_f32", "polar_2out_f32": "polar_f32",
}

PEERS = ("eager", "inductor", "inductordyn", "flaggems")


def load_flaggems(source):
    """FlagGems' pointwise_dynamic implementations of the 13 workloads,
    {name: callable}, from peers.py's flaggems_impls() (peers.py beside this
    script, as gpu-bundle.sh copies it) with FlagGems' source directory
    `source` (holding flag_gems/) first on sys.path; or (None, why)."""
    if not source:
        return None, "no FlagGems source (--flaggems or FLAGGEMS_SRC)"
    if not (pathlib.Path(source) / "flag_gems" / "__init__.py").is_file():
        return None, "%s holds no flag_gems package" % source
    if not (HERE / "peers.py").is_file():
        return None, "no peers.py beside %s" % pathlib.Path(__file__).name
    sys.path.insert(0, str(source))
    sys.path.insert(0, str(HERE))
    try:
        import peers
        return peers.flaggems_impls(), None
    except Exception as e:  # noqa: BLE001 (any import or Triton failure)
        return None, "FlagGems failed to load: %s" % repr(e)[:300]


class _Decorated:
    """A family-like callable (inputs..., outputs...) over a @pw.pointwise
    function, for --decorator."""

    def __init__(self, function, num_inputs):
        self.function, self.num_inputs = function, num_inputs

    def __call__(self, *args):
        ins, outs = args[:self.num_inputs], args[self.num_inputs:]
        return self.function(*ins, **{"out%d" % i: o for i, o in enumerate(outs)})

    def last_variant(self):
        return None


def decorated_families():
    """@pw.pointwise versions of benchmarks/workloads.mlir's functions."""
    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add(x, y):
        return x + y

    @pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def axpy(x, y, alpha):
        return x * alpha + y

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def copy(x):
        return x

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def gelu_tanh(x):
        return 0.5 * x * (1.0 + pw.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))

    @pw.pointwise(is_tensor=[True, False, False], dtypes=[None, float, float],
                  promotion_methods=[(0, "DEFAULT")])
    def scale_shift(x, s, t):
        return x * s + t

    @pw.pointwise(promotion_methods=[((0, 1), "DEFAULT"), ((0, 1), "DEFAULT")],
                  num_outputs=2)
    def polar(r, t):
        return r * pw.cos(t), r * pw.sin(t)

    return {"add_f32": _Decorated(add, 2), "axpy_f32": _Decorated(axpy, 3),
            "copy_f32": _Decorated(copy, 1),
            "gelu_tanh_f16": _Decorated(gelu_tanh, 1),
            "add_bf16_f32": _Decorated(add, 2),
            "scale_shift_f32": _Decorated(scale_shift, 3),
            "polar_f32": _Decorated(polar, 2)}


def fmt(value, spec="%.1f"):
    return spec % value if isinstance(value, (int, float)) else "—"


def main():
    global g, F, pw
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", default="",
                        help="comma-separated names (default: all 13)")
    parser.add_argument("--no-inductor", action="store_true",
                        help="skip torch.compile (its compiles take minutes)")
    parser.add_argument("--lib", default="", help="workloads.so (pw-compile "
                        "benchmarks/workloads.mlir); default: next to this "
                        "script, or gpu-bundle/")
    parser.add_argument("--decorator", action="store_true",
                        help="measure @pw.pointwise functions (the Python "
                        "front end) instead of workloads.so's families")
    parser.add_argument("--keep-persisting-l2", action="store_true",
                        help="do not reset L2 lines marked evict_last before "
                        "each measurement (as peers.py does not; the "
                        "numbers then depend on what was timed before)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="time every implementation this many times, "
                        "interleaved, and report medians (one do_bench "
                        "moves by up to half a point between calls)")
    parser.add_argument("--flaggems", default=os.environ.get("FLAGGEMS_SRC", ""),
                        help="FlagGems' source directory (the one holding "
                        "flag_gems/; default: $FLAGGEMS_SRC, else flaggems/ "
                        "beside this script): times its pointwise_dynamic "
                        "kernels, as peers.py does, as a fourth peer")
    parser.add_argument("--json", default="", help="also write the numbers "
                        "here (default: $OUT/bench.json when OUT is set)")
    options = parser.parse_args()
    if options.rounds < 1:
        parser.error("--rounds must be at least 1")
    global RESET_PERSISTING_L2
    RESET_PERSISTING_L2 = not options.keep_persisting_l2
    names = [n for n in options.workloads.split(",") if n] or list(W)
    unknown = [n for n in names if n not in W]
    if unknown:
        sys.exit("gpu_bench: unknown workloads %s; known: %s"
                 % (unknown, ", ".join(W)))

    lib_path, package_dir = _find_paths(options.lib)
    sys.path.insert(0, str(package_dir))
    import pointwise
    pw = pointwise
    library = pw.KernelLibrary(str(lib_path))
    if options.decorator:
        F = decorated_families()
    else:
        F = {name: library.family(name) for name in set(FAMILY_OF.values())}

    flaggems_source = options.flaggems or (
        str(HERE / "flaggems") if (HERE / "flaggems").is_dir() else "")
    flaggems, flaggems_why = (
        (None, "not timed with --decorator (ours are the front end's then)")
        if options.decorator else load_flaggems(flaggems_source))

    g = torch.Generator(device=dev).manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print("date: %s" % now)
    print("device: %s (%d SMs), runtime sees %s" % (
        props.name, props.multi_processor_count, pw.device_name(0)))
    print("torch %s, triton %s, python %s" % (
        torch.__version__, triton.__version__, sys.version.split()[0]))
    print("families: %s (runtime %s)" % (lib_path, library.runtime.path))
    print("persisting L2 lines reset before each measurement: %s"
          % ("yes" if RESET_PERSISTING_L2 else "no"))
    print("FlagGems: %s" % ("pointwise_dynamic from %s" % flaggems_source
                            if flaggems else flaggems_why), flush=True)
    ceiling = copy_bw()
    print("copy bandwidth: %.0f GB/s" % ceiling, flush=True)
    # What do_bench measures for a launch that moves nothing.
    launch_floor_ms = statistics.median(
        bench(lambda: torch.cuda._sleep(0)) for _ in range(3))
    print("one timed launch of an empty kernel: %.2f us"
          % (launch_floor_ms * 1e3), flush=True)
    res = {"date": now, "device": props.name, "sms": props.multi_processor_count,
           "torch": torch.__version__, "triton": triton.__version__,
           "copy_GBps": ceiling, "library": str(lib_path),
           "empty_launch_us": launch_floor_ms * 1e3,
           "reset_persisting_l2": RESET_PERSISTING_L2,
           "rounds": options.rounds, "rows": [],
           "flaggems": flaggems_source if flaggems else flaggems_why}

    failed = False
    for name in names:
        case = W[name]()
        row = {"name": name, "bytes": case.bytes, "family": FAMILY_OF[name]}
        streaming_s = case.bytes / (ceiling * 1e9)
        row["copy_rate_plus_launch_pct"] = 100 * streaming_s / (
            streaming_s + launch_floor_ms * 1e-3)
        args, eager = case.args, case.eager
        # Every implementation is timed once per round, in an order that
        # rotates between rounds; its figure is the median over rounds.
        timed = {}
        try:
            err, ok, variant = check(case, FAMILY_OF[name])
            row.update(max_err=err, ok=ok,
                       variant=variant.as_dict() if variant else None)
            if not ok:
                failed = True
            ours, outs = case.ours, case.outs
            ours(*args, *outs(*args))
            timed["ours"] = lambda: ours(*args, *outs(*args))
        except Exception as e:  # noqa: BLE001
            failed = True
            row["ours_err"] = repr(e)[:300]
            print("%s: our call failed: %s" % (name, row["ours_err"]), flush=True)
        timed["eager"] = lambda: eager(*args)
        if flaggems:
            try:
                fg_call = flaggems[name]
                fg_err, fg_ok = compare(fg_call(*args), eager(*args), case)
                row.update(flaggems_max_err=fg_err, flaggems_ok=fg_ok)
                timed["flaggems"] = lambda: fg_call(*args)
            except Exception as e:  # noqa: BLE001
                row["flaggems_err"] = repr(e)[:300]
                print("%s: FlagGems failed: %s" % (name, row["flaggems_err"]),
                      flush=True)
        copy_call, copy_buffers = same_bytes_copy(case.bytes)
        timed["copy"] = copy_call
        if not options.no_inductor:
            for key, dynamic in (("inductor", False), ("inductordyn", True)):
                try:
                    compiled = torch.compile(eager, dynamic=dynamic)
                    compiled(*args)
                    timed[key] = lambda compiled=compiled: compiled(*args)
                except Exception as e:  # noqa: BLE001
                    row[key + "_err"] = repr(e)[:200]
        keys = list(timed)
        samples = {k: [] for k in keys}
        for r in range(options.rounds):
            for k in keys[r % len(keys):] + keys[:r % len(keys)]:
                if k not in timed:
                    continue
                try:
                    samples[k].append(bench(timed[k]))
                except Exception as e:  # noqa: BLE001 (a launch that fails
                    # only under do_bench: that implementation is dropped)
                    row[k + "_err"] = repr(e)[:300]
                    print("%s: %s failed while timed: %s"
                          % (name, k, row[k + "_err"]), flush=True)
                    del timed[k]
                    failed |= k == "ours"
        keys = [k for k in keys if k in timed]
        samples = {k: samples[k] for k in keys}
        for k in keys:
            row[k + "_ms"] = statistics.median(samples[k])
            row[k + "_ms_rounds"] = samples[k]
            gbps = case.bytes / (row[k + "_ms"] * 1e-3) / 1e9
            row[k + "_pct"] = 100 * gbps / ceiling
        peers = [row[k + "_ms"] for k in PEERS if k + "_ms" in row]
        if "ours_ms" in row and peers:
            row["best_peer_ms"] = min(peers)
            row["ratio"] = row["best_peer_ms"] / row["ours_ms"]
            # Per round: the best peer of that round against ours.
            rounds = [min(samples[k][r] for k in PEERS if k in samples)
                      / samples["ours"][r] for r in range(options.rounds)]
            row["ratio_rounds"] = rounds
        if "ours_ms" in row and "copy_ms" in row:
            row["ours_of_copy_pct"] = 100 * row["copy_ms"] / row["ours_ms"]
        res["rows"].append(row)
        print("%-26s " % name + "  ".join(
            "%s=%8.1fus (%5.1f%%)" % (k, row[k + "_ms"] * 1e3, row[k + "_pct"])
            for k in ("ours",) + PEERS if k + "_ms" in row)
            + ("  same-bytes copy=%s%%" % fmt(row.get("copy_pct")))
            + ("  copy rate + empty launch=%.1f%%"
               % row["copy_rate_plus_launch_pct"])
            + ("  ratio=%.3f (rounds %.3f-%.3f)" % (
                row["ratio"], min(row["ratio_rounds"]),
                max(row["ratio_rounds"])) if "ratio" in row else "")
            + ("  err=%.3g%s" % (row["max_err"], "" if row.get("ok") else " WRONG")
               if "max_err" in row else ""), flush=True)
        del case, args, eager, timed, copy_call, copy_buffers
        torch.cuda.empty_cache()

    # Host overhead of one small call (1024 f32), like peers.py.
    a, b = rnd(1024), rnd(1024)
    out = torch.empty_like(a)
    add = F["add_f32"]
    empty_a, empty_out = rnd(0), torch.empty(0, device=dev)
    calls = {"small_ours_us": (add, (a, b, out))}
    if options.decorator:  # the decorator allocates the output itself
        # Called as users call it, each through a lambda as eager's calls
        # are: one Python frame per call on either side.
        function = add.function
        calls["small_ours_us"] = (
            lambda a, b: function(a, b, out0=out), (a, b))
        calls["small_ours_alloc_us"] = (lambda a, b: function(a, b), (a, b))
    else:
        calls["small_ours_alloc_us"] = (
            lambda a, b: add(a, b, torch.empty_like(a)), (a, b))
    calls["small_ours_empty_us"] = (add, (empty_a, empty_a, empty_out))
    # Which path the calls take: the C call or the general one, and how the
    # C call reads tensors.
    called = add.function if options.decorator else add
    from pointwise import _native
    res["host_call_path"] = "%s's call is %s; tensors read through %s" % (
        "@pw.pointwise" if options.decorator else "Family",
        type(type(called).__call__).__name__,
        "%s (torch %s)" % (_native.torch_tensors_reader(), torch.__version__)
        if _native.torch_tensors_in_use() else "their Python attributes")
    if not options.decorator and hasattr(add, "_general_call"):
        # The family's general call, which the C call (FamilyCall) stands
        # in front of where _fastcall.abi3.so is in the bundle.
        res["family_call_path"] = type(type(add).__call__).__name__
        general_call = add._general_call
        calls["small_ours_python_us"] = (
            lambda a, b: general_call(a, b, out), (a, b))
    calls["small_eager_us"] = (lambda a, b: a + b, (a, b))
    calls["small_eager_out_us"] = (
        lambda a, b: torch.add(a, b, out=out), (a, b))
    if not options.decorator:
        # The Python front end beside the library's, where it can compile.
        try:
            decorated = decorated_families()["add_f32"].function
            decorated(a, b, out0=out)
            calls["small_decorator_us"] = (
                lambda a, b: decorated(a, b, out0=out), (a, b))
            calls["small_decorator_alloc_us"] = (
                lambda a, b: decorated(a, b), (a, b))
        except Exception as e:  # noqa: BLE001 (no compiler on this machine)
            res["small_decorator_err"] = repr(e)[:200]
    lat, lat_rounds = host_rounds(calls)
    res["host_rounds_us"] = lat_rounds
    if not options.no_inductor:
        try:
            cf = torch.compile(lambda a, b: a + b, dynamic=False)
            lat["small_inductor_us"] = small_latency(cf, (a, b))
        except Exception as e:  # noqa: BLE001
            lat["small_inductor_err"] = repr(e)[:200]
    if flaggems:
        try:  # about 100 us per call: one pass of 2000
            lat["small_flaggems_us"] = small_latency(
                flaggems["add_contig_f32"], (a, b), iters=2000)
        except Exception as e:  # noqa: BLE001
            lat["small_flaggems_err"] = repr(e)[:200]
    res.update(lat)

    # The table.
    print()
    print("Device: %s, torch %s, triton %s, %s; copy bandwidth %.0f GB/s."
          % (props.name, torch.__version__, triton.__version__, now, ceiling))
    print("Percent of copy bandwidth (higher is better), medians of %d "
          "interleaved rounds; ratio = best peer time / our time (> 1: ours "
          "is faster), and its range over the rounds; copy = a dense copy "
          "of the workload's byte count, timed in the same rounds, and ours "
          "as a percentage of it; copy rate + empty launch = the bytes at "
          "the copy bandwidth after one timed launch of an empty kernel "
          "(%.2f us)." % (options.rounds, launch_floor_ms * 1e3))
    print()
    print("| workload | ours % | eager % | inductor % | inductor-dyn % | "
          "FlagGems % | ratio ours/best peer | per round | "
          "copy of the bytes % | ours / copy % | copy rate + empty launch % | "
          "max err | variant |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in res["rows"]:
        v = row.get("variant")
        vtext = ("r%d i%d %s" % (v["rank"], v["index_bitwidth"], v["strategy"])
                 + ("(#%d)" % v["transposed_argument"] if v["strategy"] == "transpose" else "")
                 ) if v else "—"
        err = ("%.2g" % row["max_err"] + ("" if row["ok"] else " **WRONG**")
               if "max_err" in row else "**FAILED**")
        rounds = row.get("ratio_rounds")
        spread = ("%.3f-%.3f" % (min(rounds), max(rounds)) if rounds
                  else "—")
        flaggems_pct = fmt(row.get("flaggems_pct"))
        if "flaggems_ok" in row and not row["flaggems_ok"]:
            # Outside the tolerance ours is held to: Triton contracts
            # x * 3 + 1 into an FMA, eager rounds twice (rank5_sliced).
            flaggems_pct += " (differs from eager by up to %.2g)" % (
                row["flaggems_max_err"])
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["name"], fmt(row.get("ours_pct")), fmt(row.get("eager_pct")),
            fmt(row.get("inductor_pct")), fmt(row.get("inductordyn_pct")),
            flaggems_pct, fmt(row.get("ratio"), "%.3f"), spread,
            fmt(row.get("copy_pct")),
            fmt(row.get("ours_of_copy_pct")),
            fmt(row.get("copy_rate_plus_launch_pct")), err, vtext))
    print()
    print("Host time per call, 1024-element f32 add from Python (medians of "
          "5 interleaved rounds of 4000 calls, synchronized at the end of "
          "each; inductor: one pass of 20000):")
    print("  path: %s" % res["host_call_path"])
    print("  ours (%s, output preallocated): %.2f us"
          % ("@pw.pointwise" if options.decorator else "Family.__call__",
             lat["small_ours_us"]))
    print("  ours allocating the output:                  %.2f us"
          % lat["small_ours_alloc_us"])
    if "small_ours_python_us" in lat:
        print("  ours (Family, general call; the call above: %s): %.2f us"
              % (res["family_call_path"], lat["small_ours_python_us"]))
    if "small_decorator_us" in lat:
        print("  ours (@pw.pointwise, output preallocated):   %.2f us"
              % lat["small_decorator_us"])
        print("  ours (@pw.pointwise) allocating the output:  %.2f us"
              % lat["small_decorator_alloc_us"])
    print("  ours on empty tensors (no launch):           %.2f us"
          % lat["small_ours_empty_us"])
    print("  eager a + b:                                 %.2f us"
          % lat["small_eager_us"])
    print("  eager torch.add(a, b, out=out):              %.2f us"
          % lat["small_eager_out_us"])
    if "small_inductor_us" in lat:
        print("  inductor (static):                           %.2f us"
              % lat["small_inductor_us"])
    if "small_flaggems_us" in lat:
        print("  FlagGems pointwise_dynamic a + b:            %.2f us"
              % lat["small_flaggems_us"])

    path = options.json or (os.path.join(os.environ["OUT"], "bench.json")
                            if os.environ.get("OUT") else "")
    if path and options.decorator and not options.json:
        path = path.replace("bench.json", "bench-decorator.json")
    if path:
        with open(path, "w") as f:
            json.dump(res, f, indent=1)
        print("wrote", path)
    if failed:
        print("gpu_bench: some of our results are wrong or failed", file=sys.stderr)
    return 1 if failed else 0


pw = None  # the pointwise package, imported in main

if __name__ == "__main__":
    sys.exit(main())
