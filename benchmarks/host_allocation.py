"""Host µs per small call from Python, split by what the call allocates:
a 1024-element f32 add through @pw.pointwise and PyTorch eager, with the
output given, allocated and dropped at once (`f(a, b)` as a statement),
allocated and kept (a name rebound, `y = f(a, b)`, and the last two kept),
and the allocation primitives alone (pointwise._torchtensors' `empty`,
`torch.empty_like`, `torch.empty`). Every entry in each of `--rounds`
interleaved rounds of `--calls` calls, synchronized at each round's end;
prints medians and the rounds, each round's ratio of ours to eager, and
which path the calls took.

    python3 benchmarks/host_allocation.py [--rounds 5] [--calls 4000]

Needs a CUDA device and the package importable (installed, or the GPU
bundle on sys.path: `PYTHONPATH=gpu-bundle` after gpu-run.sh installed it).
"""

import argparse
import statistics
import time

import torch

import pointwise as pw
from pointwise import _native


def timed(fn, calls):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=4000)
    options = parser.parse_args()

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add(x, y):
        return x + y

    a = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    out = torch.empty_like(a)
    add(a, b)
    add(a, b, out0=out)
    reader = _native._torch_tensors
    print("device: %s, torch %s" % (torch.cuda.get_device_name(),
                                    torch.__version__))
    allocator = getattr(reader, "allocator", None)
    print("path: @pw.pointwise's call is %s; tensors read through %s%s"
          % (type(type(add).__call__).__name__,
             _native.torch_tensors_reader() or "their attributes",
             "; outputs from %s" % allocator() if allocator else ""))

    kept, state = [], {}

    def keep(make):
        def call():
            kept.append(make())
            if len(kept) > 2:
                kept.pop(0)
        return call

    def rebind(make):
        def call():
            state["y"] = make()
        return call

    calls = {
        "ours, output given": lambda: add(a, b, out0=out),
        "eager torch.add(out=)": lambda: torch.add(a, b, out=out),
        "ours, dropped at once": lambda: add(a, b),
        "eager a + b, dropped at once": lambda: a + b,
        "ours, y = add(a, b)": rebind(lambda: add(a, b)),
        "eager, y = a + b": rebind(lambda: a + b),
        "ours, last two kept": keep(lambda: add(a, b)),
        "eager, last two kept": keep(lambda: a + b),
        "torch.empty_like(a)": lambda: torch.empty_like(a),
        "torch.empty(1024, device=cuda)":
            lambda: torch.empty(1024, device="cuda"),
    }
    if reader:
        code = reader.probe(a)[2]
        calls["reader's empty((1024,))"] = \
            lambda: reader.empty((1024,), code, a.get_device())
    samples = {name: [] for name in calls}
    names = list(calls)
    for r in range(options.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            kept.clear()
            state.clear()
            samples[name].append(timed(calls[name], options.calls))
    print("| call | µs (median) | rounds |")
    print("|---|---|---|")
    for name, values in samples.items():
        print("| %s | %.2f | %s |" % (name, statistics.median(values),
                                     " ".join("%.2f" % v for v in values)))
    # Each round times both sides of a pair back to back, so their ratio in
    # that round is free of the machine's drift between rounds.
    pairs = [("ours, output given", "eager torch.add(out=)"),
             ("ours, dropped at once", "eager a + b, dropped at once"),
             ("ours, y = add(a, b)", "eager, y = a + b"),
             ("ours, last two kept", "eager, last two kept")]
    print("\n| ours / eager | median of the rounds' ratios | worst round "
          "| rounds |")
    print("|---|---|---|---|")
    for ours, eager in pairs:
        ratios = [o / e for o, e in zip(samples[ours], samples[eager])]
        print("| %s | %.2f | %.2f | %s |" % (
            ours[len("ours, "):], statistics.median(ratios), max(ratios),
            " ".join("%.2f" % r for r in ratios)))


if __name__ == "__main__":
    main()
