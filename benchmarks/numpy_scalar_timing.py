#!/usr/bin/env python3
"""Host time per call of the library family axpy_f32 (workloads.so) on
1024-element CUDA tensors with a NumPy float32 scalar: through the C call
(FamilyCall, which packs NumPy's own scalars since the fifteenth session)
against a Python float, and through the generated Python call it used to
hand such calls to. Medians of 5 interleaved rounds of 4000 calls,
synchronized at the end of each. Run from the repository root on the GPU
machine with gpu-bundle/ carried:

    python3 benchmarks/numpy_scalar_timing.py
"""
import statistics, sys, time
import numpy as np, torch
sys.path.insert(0, "gpu-bundle")
import pointwise as pw
lib = pw.KernelLibrary("gpu-bundle/workloads.so")
f = lib.family("axpy_f32")
a = torch.randn(1024, device="cuda"); b = torch.randn(1024, device="cuda"); o = torch.empty_like(a)
def t(call, n=4000):
    for _ in range(100): call()
    torch.cuda.synchronize(); s = time.perf_counter()
    for _ in range(n): call()
    torch.cuda.synchronize(); return (time.perf_counter() - s) / n * 1e6
rows = {"C call, Python float": lambda: f(a, b, 0.5, o),
        "C call, np.float32": lambda: f(a, b, np.float32(0.5), o),
        "generated Python, np.float32": lambda: f._python_call(f, a, b, np.float32(0.5), o)}
res = {k: [] for k in rows}
for _ in range(5):
    for k, c in rows.items(): res[k].append(t(c))
for k, v in res.items(): print("%-32s %.2f us (median of 5)" % (k, statistics.median(v)))
