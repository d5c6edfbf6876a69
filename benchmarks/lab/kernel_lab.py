#!/usr/bin/env python3
"""Times the hand-written kernels of kernel_lab.cu beside our families and
Inductor, in one process, under gpu_bench's do_bench settings.

    python3 kernel_lab.py --cubin kernel_lab.cubin [--lib workloads.so]
                          [--rounds 3]

An experiment harness, not a benchmark of the product: it answers "would
this kernel structure beat the one pw-tile emits?" before pw-tile learns it.
Every hand kernel's result is checked against eager before it is timed.
Prints % of copy bandwidth (median over rounds).
"""

import argparse
import ctypes
import pathlib
import re
import statistics
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import gpu_bench as gb  # noqa: E402

TILES = ["t32x32_128", "t32x32_256", "t64x64_256", "t64x64_512",
         "t32x64_128", "t64x32_128", "t32x32_128_el", "t64x64_256_el",
         "t64x64_256_elxafter", "t64x64_256_ncxafter",
         "t64x64_256_elxafter1d"]
# Guarded along L (adds only): g<TP>x<TL>_<threads>_s<row pitch>[x].
GUARDED = ["g16x256_256_s17", "g16x256_256_s17x", "g16x256_256_s16",
           "g16x128_128_s17", "g32x128_256_s33", "g32x256_256_s33",
           "g64x64_256_s65", "g64x64_256_s65x", "g16x64_128_s17"]
# (threads, floats per access, accesses per thread and operand, hints)
STREAMS = [(256, 2, 1, 0), (256, 2, 1, 1), (128, 2, 2, 0), (128, 4, 1, 0),
           (128, 4, 1, 1), (256, 4, 1, 0), (256, 1, 2, 0), (128, 1, 4, 0)]
# (threads, 4-element steps per thread, hints)
FLIPS = [(128, 2, 0), (128, 2, 1), (128, 1, 0), (256, 1, 0), (128, 4, 0)]


class Cubin:
    """A cubin loaded through the driver in torch's context."""

    def __init__(self, path):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        torch.cuda.init()
        torch.empty(1, device="cuda")
        image = pathlib.Path(path).read_bytes()
        self.module = ctypes.c_void_p()
        self._check(self.cuda.cuModuleLoadData(ctypes.byref(self.module),
                                               image), "cuModuleLoadData")
        self.functions = {}

    def _check(self, status, what):
        if status != 0:
            raise RuntimeError("%s failed with CUDA error %d" % (what, status))

    def function(self, name):
        if name not in self.functions:
            f = ctypes.c_void_p()
            self._check(self.cuda.cuModuleGetFunction(
                ctypes.byref(f), self.module, name.encode()), name)
            self.functions[name] = f
        return self.functions[name]

    def launcher(self, name, grid, block, args, shared=0):
        """A no-argument callable launching `name` on the current stream
        with `shared` bytes of dynamic shared memory."""
        f = self.function(name)
        holders = list(args)
        params = (ctypes.c_void_p * len(holders))(
            *[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        gx, gy = grid

        def launch():
            self._check(self.cuda.cuLaunchKernel(
                f, gx, gy, 1, block, 1, 1, shared, stream, params, None),
                name)
        launch.keep = (holders, params)
        return launch


    def allow_shared(self, name, shared):
        """Lets `name` use `shared` bytes of dynamic shared memory (above
        the 48 KiB default)."""
        self._check(self.cuda.cuFuncSetAttribute(
            self.function(name), 8, shared), "cuFuncSetAttribute")

    def occupancy(self, name, block, shared):
        """Resident blocks per SM of `name` as the driver computes it."""
        n = ctypes.c_int()
        self._check(self.cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(n), self.function(name), block,
            ctypes.c_size_t(shared)), "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        return n.value

    def device_attribute(self, attribute):
        value, device = ctypes.c_int(), ctypes.c_int()
        self._check(self.cuda.cuCtxGetDevice(ctypes.byref(device)),
                    "cuCtxGetDevice")
        self._check(self.cuda.cuDeviceGetAttribute(
            ctypes.byref(value), attribute, device), "cuDeviceGetAttribute")
        return value.value


def ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def transpose_candidates(lab, x, y, out, B, P, L):
    """(label, launch) of every tile kernel for out = x + y^T per batch."""
    rows = []
    for tile in TILES:
        tp, tl, threads = (int(v) for v in re.match(
            r"t(\d+)x(\d+)_(\d+)", tile).groups())
        # x after the barrier: only the adds have an x.
        if P % tp or L % tl or (x is None and "xafter" in tile):
            continue
        name = ("add_" if x is not None else "copy_") + tile
        grid = (L // tl, (P // tp) * B)
        if tile.endswith("1d"):
            grid = (grid[0] * grid[1], 1)
        rows.append((tile, lab.launcher(
            name, grid, threads,
            [ptr(x if x is not None else y), ptr(y), ptr(out),
             ctypes.c_int(P), ctypes.c_int(L)])))
    for tile in GUARDED if x is not None else []:
        tp, tl, threads = (int(v) for v in re.match(
            r"g(\d+)x(\d+)_(\d+)", tile).groups())
        if P % tp or L % 4:
            continue
        rows.append((tile, lab.launcher(
            "add_" + tile, (-(-L // tl), (P // tp) * B), threads,
            [ptr(x), ptr(y), ptr(out), ctypes.c_int(P), ctypes.c_int(L)])))
    return rows


def placement(name, ceiling, rounds):
    """Our family on `name` with its outputs preallocated before Inductor's
    warm-up (as gpu_bench does), allocated at every call (as eager and
    Inductor do), and at fixed offsets into a fresh pool."""
    case = gb.W[name]()
    args = case.args
    outs = case.outs(*args)
    compiled = torch.compile(case.eager, dynamic=False)
    compiled(*args)
    candidates = [("prealloc", lambda: case.ours(*args, *outs)),
                  ("alloc per call", lambda: case.ours(*args, *case.outs(*args))),
                  ("inductor", lambda: compiled(*args))]
    first = outs[0]
    pool = torch.empty(first.numel() + (80 << 20) // 4, device=gb.dev)
    for offset_kib in (0, 4, 64, 1024, 2048 + 64, 32768 + 4):
        start = offset_kib * 256  # floats
        view = pool[start:start + first.numel()].view(first.shape)
        candidates.append(("pool+%dKiB" % offset_kib,
                           lambda v=view: case.ours(*args, v)))
    if len(outs) > 1:
        candidates = candidates[:3]
    samples = {label: [] for label, _ in candidates}
    for _ in range(rounds):
        for label, fn in candidates:
            samples[label].append(gb.bench(fn))
    print("%s: %s" % (name, ", ".join(
        "%s %.1f" % (label, 100 * case.bytes / (statistics.median(ms) * 1e-3)
                     / 1e9 / ceiling) for label, ms in samples.items())),
        flush=True)
    del case, args, outs, compiled, candidates, pool
    torch.cuda.empty_cache()


# The x-after tiles of which occupancy_candidates caps the resident blocks.
CAPPED = ["t64x64_256_elxafter", "t64x64_256_ncxafter",
          "t64x64_256_elxafter_m8"]


def occupancy_candidates(lab, x, y, out, B, P, L):
    """(label, launch) of each CAPPED tile at the resident blocks per SM its
    registers allow and capped at 6, 5 and 4 by dynamic shared memory the
    kernel does not use (which also leaves L1 less of the SM's memory).
    Labels: <tile>-b<blocks per SM>."""
    rows = []
    grid = (L // 64, (P // 64) * B)
    args = [ptr(x), ptr(y), ptr(out), ctypes.c_int(P), ctypes.c_int(L)]
    per_sm = lab.device_attribute(81)  # MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    reserved = lab.device_attribute(111)  # RESERVED_SHARED_MEMORY_PER_BLOCK
    static = 65 * 64 * 4
    for tile in CAPPED:
        name = "add_" + tile
        # Above 48 KiB per block in all, dynamic shared memory is opt-in.
        lab._check(lab.cuda.cuFuncSetAttribute(
            lab.function(name), 8, per_sm // 4 - reserved - static),
            "cuFuncSetAttribute(max dynamic shared memory)")
        uncapped = lab.occupancy(name, 256, 0)
        for blocks in [uncapped] + [b for b in (6, 5, 4) if b < uncapped]:
            dyn = 0 if blocks == uncapped else (per_sm // blocks - reserved
                                                - static)
            dyn -= dyn % 128
            rows.append(("%s-b%d" % (tile, lab.occupancy(name, 256, dyn)),
                         lab.launcher(name, grid, 256, args, shared=dyn)))
    return rows


POLICIES = [(0, 0), (1, 0), (2, 0), (0, 1), (0, 2), (1, 2), (2, 2), (1, 1)]
PRIORITY_NAMES = "nfl"  # evict_normal, evict_first, evict_last


def policies(lab, ceiling, rounds):
    """rank5_sliced_scalar_f32 and a dense copy of its bytes with L2
    eviction priorities on loads and stores (kernel_lab.cu's rows_* and
    dcopy_* kernels), beside our family, Inductor and torch's copy_. The
    `rot3` rows write each call's output into the next of three buffers, so
    no call can find lines of its own output left in L2 by the call before
    (the flush would have to fail to evict them). Each table is timed twice:
    `reset`, with every persisting L2 line demoted before each candidate,
    and `primed`, where one launch loading the inputs with an evict_last
    policy precedes each candidate (what timing after such a kernel without
    the reset measures)."""
    case = gb.W["rank5_sliced_scalar_f32"]()
    (x,) = case.args
    expected = case.eager(x)
    outs = [torch.empty_like(expected) for _ in range(3)]
    compiled = torch.compile(case.eager, dynamic=False)
    compiled(x)
    slab = x.stride(1)
    assert x.stride(0) == 16 * slab and x.stride(3) == 65 and x.stride(2) == 64 * 65
    grid = (x.numel() // 1024, 1)
    dense = gb.rnd(x.numel())
    dense_outs = [torch.empty_like(dense) for _ in range(3)]

    def rows(name, out):
        return lab.launcher(name, grid, 128, [ptr(x), ptr(out),
                                              ctypes.c_int(2048),
                                              ctypes.c_int64(slab)])

    def rotating(launchers):
        state = {"next": 0}

        def launch():
            launchers[state["next"]]()
            state["next"] = (state["next"] + 1) % len(launchers)
        return launch

    candidates = [("ours", lambda: case.ours(x, outs[0])),
                  ("ours rot3", rotating([lambda o=o: case.ours(x, o)
                                          for o in outs])),
                  ("inductor", lambda: compiled(x))]
    copies = [("torch copy_", lambda: dense_outs[0].copy_(dense))]
    for load, store in POLICIES:
        label = "L%s S%s" % (PRIORITY_NAMES[load], PRIORITY_NAMES[store])
        name = "rows_l%d_s%d" % (load, store)
        candidates.append((label, rows(name, outs[0])))
        if store:
            candidates.append((label + " rot3", rotating(
                [rows(name, o) for o in outs])))
        copies.append(("copy " + label, lab.launcher(
            "dcopy_l%d_s%d" % (load, store), grid, 128,
            [ptr(dense), ptr(dense_outs[0])])))
    for label, fn in candidates[3:]:
        for out in outs:
            out.zero_()
        fn()
        torch.cuda.synchronize()
        if not any(torch.allclose(out, expected, rtol=1e-5, atol=1e-6)
                   for out in outs):
            sys.exit("kernel_lab: %s differs from eager" % label)
    for label, fn in copies[1:]:
        dense_outs[0].zero_()
        fn()
        torch.cuda.synchronize()
        if not torch.equal(dense_outs[0], dense):
            sys.exit("kernel_lab: %s is not a copy" % label)
    primers = {"rank5_sliced_scalar_f32": rows("rows_l2_s0", outs[2]),
               "dense copy of its bytes": lab.launcher(
                   "dcopy_l2_s0", grid, 128, [ptr(dense), ptr(dense_outs[2])])}
    for title, rows_, bytes_, mode in (
            ("rank5_sliced_scalar_f32", candidates, case.bytes, "reset"),
            ("rank5_sliced_scalar_f32", candidates, case.bytes, "primed"),
            ("dense copy of its bytes", copies, dense.numel() * 8, "reset"),
            ("dense copy of its bytes", copies, dense.numel() * 8,
             "primed")):
        samples = {label: [] for label, _ in rows_}
        for _ in range(rounds):
            for label, fn in rows_:
                # gb.bench demotes persisting L2 lines before timing; the
                # primer marks some of the inputs' lines evict_last after
                # that, as a kernel timed before would without the reset.
                gb.reset_persisting_l2()
                if mode == "primed":
                    primers[title]()
                    torch.cuda.synchronize()
                samples[label].append(gb.bench(fn, reset_l2=False))
        print("%s, %s: %s" % (title, mode, ", ".join(
            "%s %.1f" % (label, 100 * bytes_ / (statistics.median(ms) * 1e-3)
                         / 1e9 / ceiling) for label, ms in samples.items())),
            flush=True)


GRID_COPIES = [  # (threads, 16-byte steps, order, prefetch); order 1, 2:
    (128, 2, 0, 0), (256, 4, 0, 0), (512, 4, 0, 0),  # persistent grids
    (512, 2, 0, 0), (1024, 4, 0, 0), (256, 8, 0, 0), (512, 4, 1, 0),
    (512, 4, 2, 0), (256, 4, 1, 0), (1024, 2, 1, 0), (512, 4, 0, 1),
    (512, 4, 0, 2), (128, 2, 0, 2), (512, 4, 1, 2)]


def grids(lab, ceiling, rounds):
    """Launches of a few waves: dense copies of rank5_sliced's 2 x 64 MiB
    with one tile per block against persistent grids (SMs x resident
    blocks, grid-stride or contiguous runs of tiles) and `.L2::128B` /
    `.L2::256B` prefetch sizes; rank5_sliced itself with scalar or aligned
    16-byte loads of its misaligned rows, one tile per block or persistent;
    and the best of them at other sizes beside an empty kernel, for the
    fixed cost of one timed launch under do_bench."""
    sms = lab.device_attribute(16)  # CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT

    def copy_launcher(threads, steps, order, prefetch, x, out):
        name = "gcopy_t%d_s%d_o%d_p%d" % (threads, steps, order, prefetch)
        tiles = x.numel() // (threads * steps * 4)
        assert tiles * threads * steps * 4 == x.numel()
        grid = tiles if order == 0 else min(
            tiles, sms * lab.occupancy(name, threads, 0))
        return name, lab.launcher(name, (grid, 1), threads,
                                  [ptr(x), ptr(out), ctypes.c_int64(x.numel())])

    # Dense copies of rank5's bytes.
    case = gb.W["rank5_sliced_scalar_f32"]()
    (x,) = case.args
    dense = gb.rnd(x.numel())
    target = torch.empty_like(dense)
    copies = [("torch copy_", lambda: target.copy_(dense))]
    for config in GRID_COPIES:
        copies.append(copy_launcher(*config, dense, target))
    check_copies(copies[1:], dense, target)
    timed("dense copy of rank5's bytes", copies, dense.numel() * 8, ceiling,
          rounds)

    # rank5_sliced.
    expected = case.eager(x)
    out = torch.empty_like(expected)
    compiled = torch.compile(case.eager, dynamic=False)
    compiled(x)
    slab = x.stride(1)
    rows_ = [("ours", lambda: case.ours(x, out)),
             ("inductor", lambda: compiled(x)),
             ("rows_l0_s0", lab.launcher("rows_l0_s0", (x.numel() // 1024, 1),
                                         128, [ptr(x), ptr(out),
                                               ctypes.c_int(2048),
                                               ctypes.c_int64(slab)]))]
    for kind, threads, steps, order in (("srows", 512, 4, 0),
                                        ("srows", 512, 4, 1),
                                        ("arows", 512, 4, 0),
                                        ("arows", 512, 4, 1),
                                        ("arows", 128, 2, 0)):
        name = "%s_t%d_s%d_o%d" % (kind, threads, steps, order)
        tiles = x.numel() // (threads * steps * 4)
        grid = tiles if order == 0 else sms * lab.occupancy(name, threads, 0)
        rows_.append((name, lab.launcher(
            name, (grid, 1), threads,
            [ptr(x), ptr(out), ctypes.c_int(2048), ctypes.c_int64(slab),
             ctypes.c_int64(x.numel())])))
    for label, fn in rows_[2:]:
        out.zero_()
        fn()
        torch.cuda.synchronize()
        if not torch.allclose(out, expected, rtol=1e-5, atol=1e-6):
            sys.exit("kernel_lab: %s differs from eager" % label)
    timed("rank5_sliced_scalar_f32", rows_, case.bytes, ceiling, rounds)
    del case, x, out, compiled, rows_, dense, target, copies
    torch.cuda.empty_cache()

    # Sizes: time per launch against bytes moved, and an empty kernel.
    empty = lab.launcher("empty_kernel", (1, 1), 32, [])
    samples = [gb.bench(empty) for _ in range(rounds)]
    print("empty kernel under do_bench: %.2f us (rounds %s)" % (
        1e3 * statistics.median(samples),
        " ".join("%.2f" % (1e3 * s) for s in samples)), flush=True)
    for mib in (16, 32, 64, 128, 256, 512):
        source = gb.rnd(mib << 18)
        target = torch.empty_like(source)
        rows_ = [("torch copy_", lambda: target.copy_(source)),
                 copy_launcher(512, 4, 0, 0, source, target),
                 copy_launcher(512, 4, 1, 0, source, target)]
        samples = {label: [] for label, _ in rows_}
        for _ in range(rounds):
            for label, fn in rows_:
                samples[label].append(gb.bench(fn))
        print("copy of 2 x %d MiB: %s" % (mib, ", ".join(
            "%s %.2f us (%.1f %%)" % (
                label, 1e3 * statistics.median(ms),
                100 * source.numel() * 8 / (statistics.median(ms) * 1e-3)
                / 1e9 / ceiling) for label, ms in samples.items())),
            flush=True)
        del source, target, rows_
        torch.cuda.empty_cache()


def bulk(lab, ceiling, rounds):
    """Hopper's bulk asynchronous copies (1-D TMA): dense copies of
    rank5_sliced's 2 x 64 MiB in chunks of 8, 16 and 32 KiB per block
    against torch's copy_ and the grid experiment's best thread copy, and
    rank5_sliced itself with one plane per block loaded whole (gaps
    included) against ours and Inductor."""
    case = gb.W["rank5_sliced_scalar_f32"]()
    (x,) = case.args
    dense = gb.rnd(x.numel())
    target = torch.empty_like(dense)
    copies = [("torch copy_", lambda: target.copy_(dense))]
    name = "gcopy_t512_s4_o0_p0"
    copies.append((name, lab.launcher(
        name, (x.numel() // (512 * 4 * 4), 1), 512,
        [ptr(dense), ptr(target), ctypes.c_int64(dense.numel())])))
    for chunk in (8192, 16384, 32768):
        name = "bcopy_%d" % chunk
        lab.allow_shared(name, chunk)
        copies.append((name, lab.launcher(
            name, (dense.numel() * 4 // chunk, 1), 32,
            [ptr(dense), ptr(target)], shared=chunk)))
    check_copies(copies[1:], dense, target)
    timed("dense copy of rank5's bytes", copies, dense.numel() * 8, ceiling,
          rounds)

    expected = case.eager(x)
    out = torch.empty_like(expected)
    compiled = torch.compile(case.eager, dynamic=False)
    compiled(x)
    planes = x.shape[0] * x.shape[1] * x.shape[2]
    rows_ = [("ours", lambda: case.ours(x, out)),
             ("inductor", lambda: compiled(x)),
             ("brank5", lab.launcher(
                 "brank5", (planes, 1), 256,
                 [ptr(x), ptr(out), ctypes.c_int(x.shape[2]),
                  ctypes.c_int64(x.stride(2)), ctypes.c_int64(x.stride(1))]))]
    out.zero_()
    rows_[2][1]()
    torch.cuda.synchronize()
    if not torch.equal(out, expected):
        sys.exit("kernel_lab: brank5 differs from eager (max %g)"
                 % float((out - expected).abs().max()))
    timed("rank5_sliced_scalar_f32", rows_, case.bytes, ceiling, rounds)


def check_copies(copies, source, target):
    """Exits unless each (label, launch) of `copies` copies source to
    target."""
    for label, fn in copies:
        target.zero_()
        fn()
        torch.cuda.synchronize()
        if not torch.equal(target, source):
            sys.exit("kernel_lab: %s is not a copy" % label)


def timed(name, candidates, nbytes, ceiling, rounds):
    """Times each (label, launch) of `candidates` once per round, prints
    each one's median % of copy bandwidth and print_paired's comparison
    with the first, and returns the samples."""
    samples = {label: [] for label, _ in candidates}
    for _ in range(rounds):
        for label, fn in candidates:
            samples[label].append(gb.bench(fn))
    print("%s: %s" % (name, ", ".join(
        "%s %.1f" % (label, 100 * nbytes / (statistics.median(ms) * 1e-3)
                     / 1e9 / ceiling) for label, ms in samples.items())),
        flush=True)
    print_paired(name, samples, nbytes, ceiling)
    return samples


def relaunch_triton(lab, name, ceiling, rounds):
    """Inductor's kernel for 1-D workload `name` (inputs, then the output,
    then the element count), launched by Inductor and by a plain
    cuLaunchKernel from here: tells launch effects from code effects."""
    import os
    import re
    from torch._inductor.utils import run_and_get_code
    case = gb.W[name]()
    args = case.args
    expected = case.eager(*args)
    compiled = torch.compile(case.eager, dynamic=False)
    _, sources = run_and_get_code(compiled, *args)
    kernel = re.findall(r"def (triton_\w+)\(", "".join(sources))[0]
    cache = pathlib.Path(os.environ["TRITON_CACHE_DIR"])
    cubin = next(cache.rglob(kernel + ".cubin"))
    ptx = cubin.with_suffix(".ptx").read_text()
    meta = __import__("json").loads(cubin.with_suffix(".json").read_text())
    params = re.findall(r"\.param \.(\w+)", ptx.split(".entry")[1]
                        .split(")")[0])
    module = Cubin.__new__(Cubin)
    module.cuda = lab.cuda
    module.functions = {}
    module.module = ctypes.c_void_p()
    module._check(lab.cuda.cuModuleLoadData(ctypes.byref(module.module),
                                            cubin.read_bytes()), "load")
    f = module.function(kernel)
    shared = meta.get("shared", 0)
    if shared > 48 * 1024:
        module._check(lab.cuda.cuFuncSetAttribute(f, 8, shared), "smem")
    out = torch.empty_like(expected)
    threads = 32 * meta["num_warps"]
    n = expected.numel()
    candidates = [("inductor", lambda: compiled(*args)),
                  ("ours", lambda: case.ours(*args, out))]
    # Largest first: a grid too small leaves elements unwritten (caught by
    # the check); one too large would write past the output.
    for xblock in (4096, 2048, 1024, 512, 256):
        values = [ptr(t) for t in args if isinstance(t, torch.Tensor)]
        values += [ptr(out), ctypes.c_int(n)]
        while len(values) < len(params):
            values.append(ctypes.c_void_p(0))  # Triton's scratch pointers
        holders = values
        arr = (ctypes.c_void_p * len(holders))(
            *[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

        def launch(arr=arr, holders=holders, xblock=xblock):
            module._check(lab.cuda.cuLaunchKernel(
                f, (n + xblock - 1) // xblock, 1, 1, threads, 1, 1, shared,
                stream, arr, None), kernel)
        out.zero_()
        launch()
        torch.cuda.synchronize()
        if torch.allclose(out, expected, rtol=1e-5, atol=1e-6):
            candidates.append(("relaunched XBLOCK=%d" % xblock, launch))
            break
    else:
        print("%s: no XBLOCK reproduces eager (params %s)" % (name, params))
    samples = {label: [] for label, _ in candidates}
    for _ in range(rounds):
        for label, fn in candidates:
            samples[label].append(gb.bench(fn))
    print("%s (%s, %d threads, %d params): %s" % (
        name, kernel, threads, len(params), ", ".join(
            "%s %.1f" % (label, 100 * case.bytes / (statistics.median(ms)
                                                    * 1e-3) / 1e9 / ceiling)
            for label, ms in samples.items())), flush=True)
    lab.triton_ptx = getattr(lab, "triton_ptx", {})
    lab.triton_ptx[name] = ptx


def print_paired(name, samples, nbytes, ceiling):
    """Every candidate against the first (ours), round by round: the median
    difference in points of copy bandwidth, and in how many rounds it was
    ahead (one do_bench moves by up to half a point between rounds)."""
    def pct(ms):
        return 100 * nbytes / (ms * 1e-3) / 1e9 / ceiling
    labels = list(samples)
    lines = []
    for label in labels[1:]:
        deltas = [pct(t) - pct(base)
                  for t, base in zip(samples[label], samples[labels[0]])]
        lines.append("%s %+.2f (%d/%d)" % (label, statistics.median(deltas),
                                           sum(d > 0 for d in deltas),
                                           len(deltas)))
    print("%s, paired against %s: %s" % (name, labels[0], ", ".join(lines)),
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cubin", default=str(HERE / "kernel_lab.cubin"))
    parser.add_argument("--lib", default="")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--workloads", default="nchw_plus_nhwc_f32,add_transposed_f32,"
        "transpose_copy_f32,axpy_scalar_f32,add_contig_f32,flip_f32",
        help="comma-separated workloads the lab has kernels for")
    parser.add_argument("--triton", default="",
                        help="comma-separated 1-D workloads: launch "
                        "Inductor's own compiled kernel through "
                        "cuLaunchKernel (needs TRITON_CACHE_DIR)")
    parser.add_argument("--placement", default="",
                        help="comma-separated workloads: time our family "
                        "with its outputs at other addresses instead")
    parser.add_argument("--tiles", default="",
                        help="comma-separated tile kernels to time (default: "
                        "all of TILES and GUARDED)")
    parser.add_argument("--occupancy", action="store_true",
                        help="time the x-after 64x64 tiles at fewer "
                        "resident blocks per SM instead of the tile set")
    parser.add_argument("--policies", action="store_true",
                        help="time rank5_sliced and a dense copy of its "
                        "bytes with L2 eviction priorities on loads and "
                        "stores instead")
    parser.add_argument("--grids", action="store_true",
                        help="time dense copies of rank5_sliced's bytes and "
                        "rank5_sliced itself with persistent grids and L2 "
                        "prefetch sizes, and copies of other sizes beside "
                        "an empty kernel, instead")
    parser.add_argument("--bulk", action="store_true",
                        help="time dense copies of rank5_sliced's bytes and "
                        "rank5_sliced itself with bulk asynchronous copies "
                        "(1-D TMA) instead")
    options = parser.parse_args()
    gb.use_library(options.lib)
    gb.g = torch.Generator(device=gb.dev).manual_seed(0)
    if options.tiles:
        chosen = options.tiles.split(",")
        unknown = [t for t in chosen if t not in TILES + GUARDED]
        if unknown:
            sys.exit("kernel_lab: unknown tiles %s" % unknown)
        TILES[:] = [t for t in TILES if t in chosen]
        GUARDED[:] = [t for t in GUARDED if t in chosen]
    lab = Cubin(options.cubin)
    ceiling = gb.copy_bw()
    print("device: %s; copy bandwidth %.0f GB/s; medians of %d rounds"
          % (torch.cuda.get_device_name(0), ceiling, options.rounds))

    if options.triton:
        for name in options.triton.split(","):
            relaunch_triton(lab, name, ceiling, options.rounds)
        out_dir = pathlib.Path(__import__("os").environ.get("OUT", "/tmp"))
        for name, ptx in getattr(lab, "triton_ptx", {}).items():
            (out_dir / ("triton-" + name + ".ptx")).write_text(ptx)
        return
    if options.policies:
        policies(lab, ceiling, options.rounds)
        return
    if options.grids:
        grids(lab, ceiling, options.rounds)
        return
    if options.bulk:
        bulk(lab, ceiling, options.rounds)
        return
    if options.placement:
        for name in options.placement.split(","):
            placement(name, ceiling, options.rounds)
        return
    for name in options.workloads.split(","):
        case = gb.W[name]()
        args = case.args
        expected = case.eager(*args)
        outs = case.outs(*args)
        compiled = torch.compile(case.eager, dynamic=False)
        compiled(*args)
        candidates = [("ours", lambda: case.ours(*args, *outs)),
                      ("inductor", lambda: compiled(*args))]
        out = torch.empty_like(expected)
        if name == "nchw_plus_nhwc_f32":
            x, y = args
            candidates += (occupancy_candidates if options.occupancy else
                           transpose_candidates)(lab, x, y, out, 32, 256, 3136)
        elif name == "add_transposed_f32":
            a, b = args
            candidates += (occupancy_candidates if options.occupancy else
                           transpose_candidates)(lab, a, b, out, 1, 8192, 8192)
        elif name == "transpose_copy_f32":
            (b,) = args
            candidates += transpose_candidates(lab, None, b, out, 1, 8192, 8192)
        elif name == "flip_f32":
            (x,) = args
            for threads, steps, hints in FLIPS:
                kernel = "flip_t%d_s%d_e%d" % (threads, steps, hints)
                candidates.append((kernel, lab.launcher(
                    kernel, (x.numel() // (threads * 4 * steps), 1), threads,
                    [ptr(x), ptr(out), ctypes.c_int64(x.numel())])))
        else:
            a, b = args
            alpha = 0.2 if name.startswith("axpy") else 1.0
            for threads, floats, steps, hints in STREAMS:
                kernel = "stream_t%d_v%d_s%d_e%d" % (threads, floats, steps,
                                                     hints)
                candidates.append((kernel, lab.launcher(
                    kernel, (a.numel() // (threads * floats * steps), 1),
                    threads,
                    [ptr(a), ptr(b), ptr(out), ctypes.c_float(alpha)])))
        for label, fn in candidates[2:]:
            out.zero_()
            fn()
            torch.cuda.synchronize()
            if not torch.allclose(out, expected, rtol=1e-5, atol=1e-6):
                sys.exit("kernel_lab: %s on %s differs from eager"
                         % (label, name))
        samples = {label: [] for label, _ in candidates}
        for _ in range(options.rounds):
            for label, fn in candidates:
                samples[label].append(gb.bench(fn))
        print("%s: %s" % (name, ", ".join(
            "%s %.1f" % (label, 100 * case.bytes / (statistics.median(ms)
                                                    * 1e-3) / 1e9 / ceiling)
            for label, ms in samples.items())), flush=True)
        print_paired(name, samples, case.bytes, ceiling)
        del case, args, outs, compiled, candidates, out, expected
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
