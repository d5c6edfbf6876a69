"""Host µs per small call from Python, split by what the call allocates:
a 1024-element f32 add through @pw.pointwise and PyTorch eager, with the
output given, allocated and dropped at once (`f(a, b)` as a statement),
allocated and kept (a name rebound, `y = f(a, b)`, and the last two kept),
and the allocation primitives alone (a reader's `empty`,
`torch.empty_like`, `torch.empty`). Every entry in each of `--rounds`
interleaved rounds of `--calls` calls, synchronized at each round's end;
prints medians and the rounds, each round's ratio of ours to eager, and
which path the calls took.

`--readers` times our calls through each of several ways of reading torch
tensors in the same process, switching the C call path between them
within every round: `torchtensors` (pointwise._torchtensors, built for
this torch's release), `shim` (pointwise._torchshim, what other releases
get) and `attributes` (Python attribute reads). Comparing them across
processes is unreliable: the machine's speed moves eager's figures by a
third between processes.

    python3 benchmarks/host_allocation.py [--rounds 5] [--calls 4000]
        [--readers torchtensors,shim,attributes]

Needs a CUDA device and the package importable (installed, or the GPU
bundle on sys.path: `PYTHONPATH=gpu-bundle` after gpu-run.sh installed it).
"""

import argparse
import statistics
import time

import torch

import pointwise as pw
from pointwise import _native, _runtime

READERS = ("torchtensors", "shim", "attributes")


def timed(fn, calls):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def label(module):
    """A reader module's name in --readers."""
    if not module:
        return "attributes"
    return "shim" if module.__name__ == "pointwise._torchshim" \
        else "torchtensors"


def find_readers(names):
    """{name: (module or None, table address, dtype table)} for the readers
    named that this package and torch have; prints why one is missing."""
    runtime = _runtime.load_runtime()
    in_use = _native._torch_tensors
    found = {}
    for name in names:
        if name == "attributes":
            found[name] = (None, 0, ())
            continue
        module = in_use if label(in_use) == name else None
        if module is None:
            pair = (_native._shim_reader if name == "shim"
                    else _native._versioned_reader)(runtime, torch)
            module = pair[0] if pair else None
        table = _native._check_torch_tensors(module, runtime, torch) \
            if module else None
        if table is None:
            print("reader %s: not available here" % name)
            continue
        found[name] = (module, module.table(), table)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--readers", default="",
                        help="comma-separated, among %s (default: the one "
                        "the package picked)" % ", ".join(READERS))
    options = parser.parse_args()

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add(x, y):
        return x + y

    a = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    out = torch.empty_like(a)
    add(a, b)
    add(a, b, out0=out)
    print("device: %s, torch %s" % (torch.cuda.get_device_name(),
                                    torch.__version__))
    names = [n for n in options.readers.split(",") if n] or \
        [label(_native._torch_tensors)]
    for name in names:
        if name not in READERS:
            parser.error("unknown reader %r" % name)
    fastcall = _native.fastcall(_runtime.load_runtime())
    readers = find_readers(names) if fastcall else {}
    if not readers:
        readers = {label(_native._torch_tensors): None}
    for name, reader in readers.items():
        module = reader[0] if reader else _native._torch_tensors
        allocator = getattr(module, "allocator", None)
        print("path (%s): @pw.pointwise's call is %s; tensors read through "
              "%s%s" % (name, type(type(add).__call__).__name__,
                        module.__name__ if module else "their attributes",
                        "; outputs from %s" % allocator() if allocator
                        else ""))

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

    # (what, ours, eager): ours is timed once per reader, eager once.
    pairs = [
        ("output given", lambda: add(a, b, out0=out),
         lambda: torch.add(a, b, out=out)),
        ("dropped at once", lambda: add(a, b), lambda: a + b),
        ("y = add(a, b)", rebind(lambda: add(a, b)), rebind(lambda: a + b)),
        ("last two kept", keep(lambda: add(a, b)), keep(lambda: a + b)),
    ]
    eager_names = {"output given": "eager torch.add(out=)",
                   "dropped at once": "eager a + b, dropped at once",
                   "y = add(a, b)": "eager, y = a + b",
                   "last two kept": "eager, last two kept"}
    many = len(readers) > 1

    def ours_name(what, reader):
        return "ours%s, %s" % (" (%s)" % reader if many else "", what)

    calls = {}  # name -> (reader or None, function)
    for what, ours, eager in pairs:
        for name in readers:
            calls[ours_name(what, name)] = (name, ours)
        calls[eager_names[what]] = (None, eager)
    calls["torch.empty_like(a)"] = (None, lambda: torch.empty_like(a))
    calls["torch.empty(1024, device=cuda)"] = (
        None, lambda: torch.empty(1024, device="cuda"))
    for name, reader in readers.items():
        if reader and reader[0]:
            module = reader[0]
            code = module.probe(a)[2]
            calls["%s's empty((1024,))" % name] = (
                None, lambda m=module, c=code: m.empty((1024,), c,
                                                       a.get_device()))

    def use(name):
        reader = readers.get(name)
        if reader:
            fastcall.bind_tensors(reader[1], reader[2])

    samples = {name: [] for name in calls}
    order = list(calls)
    for r in range(options.rounds):
        for name in order[r % len(order):] + order[:r % len(order)]:
            reader, fn = calls[name]
            if reader:
                use(reader)
            kept.clear()
            state.clear()
            samples[name].append(timed(fn, options.calls))
    print("| call | µs (median) | rounds |")
    print("|---|---|---|")
    for name, values in samples.items():
        print("| %s | %.2f | %s |" % (name, statistics.median(values),
                                     " ".join("%.2f" % v for v in values)))
    # Ratios within each round, which the machine's drift between rounds
    # does not enter.
    print("\n| ours / eager | median of the rounds' ratios | worst round "
          "| rounds |")
    print("|---|---|---|---|")
    for what, _, _ in pairs:
        for name in readers:
            ratios = [o / e for o, e in zip(samples[ours_name(what, name)],
                                            samples[eager_names[what]])]
            print("| %s | %.2f | %.2f | %s |" % (
                ours_name(what, name)[len("ours"):].lstrip(", "),
                statistics.median(ratios), max(ratios),
                " ".join("%.2f" % r for r in ratios)))


if __name__ == "__main__":
    main()
