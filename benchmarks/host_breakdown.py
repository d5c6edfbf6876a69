#!/usr/bin/env python3
"""Where the host time of a small @pw.pointwise call goes, in one process
beside PyTorch eager: a 1024-element f32 add, timed per call over bursts
(peers.py's small_latency, 20000 calls, synchronized at the end).

    python3 host_breakdown.py [--lib gpu-bundle/workloads.so]

Rows, from the whole call down to the driver:
  eager a + b / torch.add(out=)      the peer
  @pw.pointwise (alloc / prealloc)   the decorator's fast path
  Family.__call__ (prealloc)         an AOT family from Python
  pwFamilyLaunch via ctypes          arguments packed once, the C call only
  pwLaunchKernel(empty) via ctypes   the runtime's launch of an empty kernel
  cuLaunchKernel(empty) via ctypes   the driver itself, through ctypes
  allocation and stream queries      what a call may spend besides

Each row in three measures: sustained (peers.py's), host only, GPU only.
"""

import argparse
import ctypes
import pathlib
import statistics
import sys
import time

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gpu_bench as gb  # noqa: E402

EMPTY_PTX = (b".version 8.0\n.target sm_90\n.address_size 64\n"
             b".visible .entry pw_empty() { ret; }\n")


def sustained(fn, iters=20000):
    """peers.py's small_latency: µs per call over 20000 calls, synchronized
    at the end (bounded by the slower of the host and the GPU)."""
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / iters * 1e6)
    return best


def host_only(fn, burst=200, bursts=30):
    """Host µs per call: the best burst of `burst` calls, timed without
    waiting for the GPU (synchronized between bursts, outside the timing;
    the bursts stay below the driver's launch queue depth)."""
    best = float("inf")
    for _ in range(bursts):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(burst):
            fn()
        best = min(best, (time.perf_counter() - t0) / burst * 1e6)
    torch.cuda.synchronize()
    return best


def gpu_only(fn, calls=400):
    """GPU µs per call: launches queued behind a sleeping kernel, so that
    the events measure the GPU's back-to-back execution alone."""
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(200_000_000)  # ~0.1 s: the host queues everything
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / calls


def per_call(fn):
    """(sustained, host only, GPU only) µs per call."""
    return sustained(fn), host_only(fn), gpu_only(fn)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", default="")
    options = parser.parse_args()
    lib_path, package_dir = gb._find_paths(options.lib)
    sys.path.insert(0, str(package_dir))
    import pointwise as pw

    a = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    out = torch.empty_like(a)
    rows = []
    rows.append(("eager a + b", per_call(lambda: a + b)))
    rows.append(("eager torch.add(a, b, out=out)",
                 per_call(lambda: torch.add(a, b, out=out))))

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add(x, y):
        return x + y
    add(a, b)
    rows.append(("@pw.pointwise add(a, b)", per_call(lambda: add(a, b))))
    rows.append(("@pw.pointwise add(a, b, out0=out)",
                 per_call(lambda: add(a, b, out0=out))))

    # The same function on the Python fast path (what runs where the C call
    # path, pointwise._fastcall, is not built).
    from pointwise import _pointwise
    saved, _pointwise._fastcall = _pointwise._fastcall, False

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add_py(x, y):
        return x + y
    add_py(a, b)
    add_py(a, b)
    _pointwise._fastcall = saved
    rows.append(("@pw.pointwise add(a, b), Python fast path",
                 per_call(lambda: add_py(a, b))))
    rows.append(("@pw.pointwise add(a, b, out0=out), Python fast path",
                 per_call(lambda: add_py(a, b, out0=out))))
    print("C call path: %s" % ("yes" if saved else "no (not built)"))
    reader = _pointwise._torch_tensors
    print("torch tensor reader (pointwise._torchtensors): %s"
          % ("yes" if reader else "no (not built for torch %s)"
             % torch.__version__))

    table = (_pointwise._check_torch_tensors(reader, torch)
             if reader and saved else None)

    def reading(through_reader):
        """Binds the reader in the C call path, or unbinds it (attribute
        reads)."""
        if reader and saved:
            saved.bind_tensors(reader.table() if through_reader else 0, table)
    if reader and saved:
        reading(False)
        rows.append(("@pw.pointwise add(a, b), attribute reads",
                     per_call(lambda: add(a, b))))
        rows.append(("@pw.pointwise add(a, b, out0=out), attribute reads",
                     per_call(lambda: add(a, b, out0=out))))
        reading(True)

    library = pw.KernelLibrary(str(lib_path))
    family = library.family("add_f32")
    rows.append(("Family.__call__(a, b, out)",
                 per_call(lambda: family(a, b, out))))

    # The decorator's launcher with its arguments packed once.
    plan = next(iter(add._plans.values()))
    launcher = plan[0]
    shape, stride = tuple(a.shape), tuple(a.stride())
    values = []
    for t in (a, b, out):
        values += [t.data_ptr(), t.data_ptr(), 0, *shape, *stride]
    buffer, args = launcher.buffers()
    launcher.pack(buffer, 0, *values)
    launch, fam = launcher.runtime._launch, launcher.family
    rows.append(("pwFamilyLaunch via ctypes (packed once)",
                 per_call(lambda: launch(fam, args))))
    rows.append(("Launcher.launch (pack + pwFamilyLaunch)",
                 per_call(lambda: launcher.launch(values))))

    runtime = launcher.runtime.lib
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    runtime.pwModuleLoad.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.c_char_p, ctypes.c_size_t]
    status = runtime.pwModuleLoad(ctypes.byref(module), EMPTY_PTX + b"\0",
                                  len(EMPTY_PTX) + 1)
    assert status == 0, launcher.runtime.last_error_message()
    runtime.pwModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                            ctypes.c_void_p, ctypes.c_char_p]
    status = runtime.pwModuleGetFunction(ctypes.byref(function), module,
                                         b"pw_empty")
    assert status == 0, launcher.runtime.last_error_message()
    plk = runtime.pwLaunchKernel
    plk.restype = ctypes.c_int
    u = ctypes.c_uint
    plk.argtypes = [ctypes.c_void_p, u, u, u, u, u, u, u, ctypes.c_void_p,
                    ctypes.c_void_p]
    stream = torch.cuda.current_stream().cuda_stream
    rows.append(("pwLaunchKernel(empty) via ctypes",
                 per_call(lambda: plk(function, 1, 1, 1, 128, 1, 1, 0,
                                      stream, None))))
    cuda = ctypes.CDLL("libcuda.so.1")
    clk = cuda.cuLaunchKernel
    clk.restype = ctypes.c_int
    clk.argtypes = [ctypes.c_void_p, u, u, u, u, u, u, u, ctypes.c_void_p,
                    ctypes.c_void_p, ctypes.c_void_p]
    rows.append(("cuLaunchKernel(empty) via ctypes",
                 per_call(lambda: clk(function, 1, 1, 1, 128, 1, 1, 0,
                                      stream, None, None))))
    rows.append(("Python lambda: a.data_ptr() x3 + a.shape + a.stride()",
                 per_call(lambda: (a.data_ptr(), b.data_ptr(), out.data_ptr(),
                                   a.shape, a.stride()))))

    device = a.device
    rows.append(("torch.empty(shape, dtype=, device=a.device)",
                 per_call(lambda: torch.empty(shape, dtype=torch.float32,
                                              device=a.device))))
    rows.append(("torch.empty(shape, dtype=, device=cached)",
                 per_call(lambda: torch.empty(shape, dtype=torch.float32,
                                              device=device))))
    rows.append(("torch.empty_like(a)", per_call(lambda: torch.empty_like(a))))
    rows.append(("a.new_empty(shape)", per_call(lambda: a.new_empty(shape))))
    rows.append(("torch.cuda current raw stream",
                 per_call(lambda: torch._C._cuda_getCurrentRawStream(0))))

    # What single torch accessors cost (the C call path makes about 16 of
    # these per call of a two-input function).
    T = torch.Tensor
    for what, fn in (
            ("a.shape", lambda: a.shape), ("a.dtype", lambda: a.dtype),
            ("a.is_cuda", lambda: a.is_cuda),
            ("a.get_device()", lambda: a.get_device()),
            ("a.device", lambda: a.device),
            ("a.is_contiguous()", lambda: a.is_contiguous()),
            ("a.stride()", lambda: a.stride()),
            ("a.data_ptr()", lambda: a.data_ptr()),
            ("Tensor.data_ptr(a)", lambda: T.data_ptr(a)),
            ("a.__dlpack_device__()", lambda: a.__dlpack_device__()),
            ("lambda: None (the loop itself)", lambda: None),
            ("torch.cuda._sleep(0) (a runtime-API launch)",
             lambda: torch.cuda._sleep(0))):
        rows.append((what, per_call(fn)))

    # The comparison that matters, robust to the host's drift: eager and
    # ours interleaved, 7 rounds, medians.
    pairs = [("eager a + b", lambda: a + b, True),
             ("@pw.pointwise add(a, b)", lambda: add(a, b), True),
             ("eager torch.add(a, b, out=out)",
              lambda: torch.add(a, b, out=out), True),
             ("@pw.pointwise add(a, b, out0=out)",
              lambda: add(a, b, out0=out), True)]
    if reader and saved:
        pairs += [("@pw.pointwise add(a, b), attribute reads",
                   lambda: add(a, b), False),
                  ("@pw.pointwise add(a, b, out0=out), attribute reads",
                   lambda: add(a, b, out0=out), False)]
    samples = {what: [] for what, _, _ in pairs}
    for _ in range(7):
        for what, fn, through_reader in pairs:
            reading(through_reader)
            samples[what].append(per_call(fn))
    reading(True)
    for what, _, _ in pairs:
        columns = list(zip(*samples[what]))
        rows.append((what + " (median of 7 interleaved rounds)",
                     tuple(statistics.median(c) for c in columns)))

    props = torch.cuda.get_device_properties(0)
    print("device: %s, torch %s, python %s" % (props.name, torch.__version__,
                                                sys.version.split()[0]))
    print("µs per call: sustained (20000 calls, then synchronize: "
          "peers.py's measure), host only (best burst of 200 calls), GPU "
          "only (back-to-back behind a sleeping kernel)")
    print("| what | sustained | host only | GPU only |")
    print("|---|---|---|---|")
    for what, (sustained_us, host_us, gpu_us) in rows:
        print("| %s | %.2f | %.2f | %.2f |" % (what, sustained_us, host_us,
                                             gpu_us))


if __name__ == "__main__":
    main()
