#!/usr/bin/env python3
"""What the load hint's effect depends on: kernels of lab/hint_probe.mlir
(f16 and f32 storage, no arithmetic up to GELU and sine) built with
different load policies, timed in one process.

    pw-compile benchmarks/lab/hint_probe.mlir --load-policy=P --format=bin \\
        -o probe-P.so                                  (one build per policy)
    python3 hint_probe.py --libs probe-evict-last.so,probe-none.so \\
        [--mib 256] [--rounds 5]

Every function reads --mib MiB and writes as much (rank 1, contiguous).
Each library's result is checked against the PyTorch expression on every
element; then the libraries are timed in turn, --rounds times, with
gpu_bench's do_bench settings. Prints % of copy bandwidth (medians), with
eager PyTorch's figure for the same expression.
"""

import argparse
import pathlib
import statistics
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gpu_bench as gb  # noqa: E402


def gelu(x):
    return torch.nn.functional.gelu(x, approximate="tanh")


def scale(x):
    return x * 3.0 + 1.0


def fma16(x):
    y = x
    for _ in range(16):
        y = torch.addcmul(torch.full_like(y, 0.001), y,
                          torch.full_like(y, 0.999))
    return y


def fma_chain(count):
    """`count` dependent FMAs in f32 math, rounded once to the storage."""
    def expression(x):
        y = x.float()
        for _ in range(count):
            y = torch.addcmul(torch.full_like(y, 0.001), y,
                              torch.full_like(y, 0.999))
        return y.to(x.dtype)
    return expression


# function -> (dtype, PyTorch expression, tolerance)
PROBES = {
    "copy_f16": (torch.float16, lambda x: x.clone(), 0.0),
    "scale_f16": (torch.float16, scale, 1e-2),
    "fma16_f32": (torch.float32, fma16, 1e-5),
    "gelu_tanh_f32": (torch.float32, gelu, 1e-5),
    "gelu_tanh_f16": (torch.float16, gelu, 1e-2),
    "sin_f16": (torch.float16, torch.sin, 1e-2),
    "exp_f32": (torch.float32, torch.exp, 1e-5),
    "exp_f16": (torch.float16, torch.exp, 1e-2),
    "sincos_f32": (torch.float32, lambda x: torch.sin(x) + torch.cos(x), 1e-5),
    "sqrt_f16": (torch.float16, torch.sqrt, 1e-2),
    "tanh_f16": (torch.float16, torch.tanh, 1e-2),
    "silu_f16": (torch.float16, torch.nn.functional.silu, 1e-2),
    "silu_f32": (torch.float32, torch.nn.functional.silu, 1e-5),
    "gelu_erf_f16": (torch.float16, torch.nn.functional.gelu, 1e-2),
    "gelu_tanh_bf16": (torch.bfloat16, gelu, 2e-2),
    "fma24_f16": (torch.float16, fma_chain(24), 1e-2),
    "fma32_f16": (torch.float16, fma_chain(32), 1e-2),
    "fma40_f16": (torch.float16, fma_chain(40), 1e-2),
    "fma56_f32": (torch.float32, fma_chain(56), 1e-5),
    "fma72_f32": (torch.float32, fma_chain(72), 1e-5),
    "gelu3_f32": (torch.float32, lambda x: gelu(gelu(gelu(x))), 1e-5),
    # Held out: written after the threshold was set (see hint_probe.mlir).
    "sigmoid_f16": (torch.float16, torch.sigmoid, 1e-2),
    "quick_gelu_f16": (torch.float16,
                       lambda x: x * torch.sigmoid(1.702 * x), 1e-2),
    "fma20_f16": (torch.float16, fma_chain(20), 1e-2),
    "gelu_erf_f32": (torch.float32, torch.nn.functional.gelu, 1e-5),
    "mish_f32": (torch.float32, torch.nn.functional.mish, 1e-5),
    "log_f16": (torch.float16, lambda x: torch.log(x.abs()), 1e-2),
    "fma64_f32": (torch.float32, fma_chain(64), 1e-5),
    "softplus_f16": (torch.float16,
                     lambda x: torch.log1p(torch.exp(x.float())).half(), 1e-2),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libs", required=True,
                        help="comma-separated builds of lab/hint_probe.mlir")
    parser.add_argument("--mib", type=int, default=256,
                        help="MiB read (and written) per call")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--functions", default="",
                        help="comma-separated probe names (default: all)")
    options = parser.parse_args()
    libs = [pathlib.Path(p) for p in options.libs.split(",") if p]
    _, package_dir = gb._find_paths("")
    sys.path.insert(0, str(package_dir))
    import pointwise as pw
    families = []
    for lib in libs:
        library = pw.KernelLibrary(str(lib))
        families.append({name: library.family(name) for name in PROBES})
    gb.g = torch.Generator(device=gb.dev).manual_seed(0)
    ceiling = gb.copy_bw()
    print("device: %s; copy bandwidth %.0f GB/s; %d MiB per call; %d rounds"
          % (torch.cuda.get_device_properties(0).name, ceiling, options.mib,
             options.rounds))
    labels = [lib.stem for lib in libs]
    print("| function | " + " | ".join(labels + ["eager"]) + " |")
    print("|---" * (2 + len(labels)) + "|")
    failed = False
    names = [n for n in options.functions.split(",") if n] or list(PROBES)
    unknown = [n for n in names if n not in PROBES]
    if unknown:
        sys.exit("hint_probe: unknown functions %s" % unknown)
    for name in names:
        dtype, expression, tol = PROBES[name]
        x = gb.rnd((options.mib << 20) // torch.tensor([], dtype=dtype)
                   .element_size(), dtype=dtype)
        out = torch.empty_like(x)
        reference = expression(x)
        cells = []
        for fams in families:
            out.fill_(1234.0)  # no result of the probes
            fams[name](x, out)
            ok = torch.allclose(out.float(), reference.float(), atol=tol,
                                rtol=tol, equal_nan=True)
            failed |= not ok
            cells.append("" if ok else " WRONG")
        timings = [[] for _ in libs]
        for _ in range(options.rounds):
            for index, fams in enumerate(families):
                timings[index].append(gb.bench(lambda: fams[name](x, out)))
        # The FMA chains' eager expressions run 3 kernels per FMA: no peer
        # figure.
        eager_ms = None if name.startswith("fma") else gb.bench(
            lambda: expression(x))
        moved = 2 * x.numel() * x.element_size()

        def pct(ms):
            return 100 * moved / (ms * 1e-3) / 1e9 / ceiling
        row = ["%.1f%s" % (pct(statistics.median(t)), cells[i])
               for i, t in enumerate(timings)]
        row.append("-" if eager_ms is None else "%.1f" % pct(eager_ms))
        print("| %s | %s |" % (name, " | ".join(row)), flush=True)
        x = out = reference = None
        torch.cuda.empty_cache()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
