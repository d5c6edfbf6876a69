"""The differential suite's GPU mode: a bundle of random cases to run on a
GPU machine that has only the driver and Python (docs/Testing.md).

`differential.py --gpu-bundle DIR` generates cases as the CPU suite does
(same generator, same seeds), keeps those a kernel family can be (one map,
no `index` scalar), and writes to DIR:

    cases.json                  what to run and how to compare (below)
    casesJ.so.xz                pw-compile output of a module of many cases,
                                each function renamed `case_<index>`
    libPointwiseRuntime.so      what the libraries link (their $ORIGIN)
    pointwise/                  python_bindings/pointwise (ctypes only)
    differential_gpu_runner.py  runs it all: python3 DIR/differential_gpu_runner.py DIR
    case_<index>/case.mlir      the case, with a `pw-run --target=cuda` line
    case_<index>/in/            pw-run --dump-inputs: argN.bin, manifest.json
    case_<index>/ref/           pw-run --check --dump-outputs: the reference
                                lowering's results, the oracle
    modules/casesJ.mlir         the modules given to pw-compile

The reference outputs come from `pw-run --check`, so every case in the
bundle also passed the CPU differential check on this machine.

Comparisons (cases.json, per memref argument): integer and i1 buffers and
every element outside an output's view must be bit for bit those of the
reference; float outputs within a relative tolerance |gpu - ref| <=
tol * (1 + |ref|): NVPTX contracts a * b + c into an fma and libdevice's
exp/sin/cos/tanh differ from the host's libm by a few ulps. The tolerance is
that of the narrowest float type at which the value's computation can round
differently (f64 1e-12, f32 1e-5, f16/bf16 1e-2). An output is *rounding
sensitive* when a float comparison (cmpf) or conversion (fptosi) of such a
value decides it: a difference of one ulp may flip the comparison and change
the element completely. The runner tolerates a few differing elements there
(see differential_gpu_runner.py), since a bug changes most of them.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import lzma
import os
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from differential_case import (Case, MemRefArg, ScalarArg, arg_specs,
                               case_features, input_type, is_float,
                               render_module)
from differential_generate import generate_case

BUNDLE_FORMAT = "pw-differential-gpu-1"
RUNTIME = "libPointwiseRuntime.so"
RUNNER = "differential_gpu_runner.py"

# Relative tolerances (of 1 + |reference|) by float type.
TOLERANCE = {"f64": 1e-12, "f32": 1e-5, "f16": 1e-2, "bf16": 1e-2}

# Float ops whose result the GPU may round differently from the CPU, given
# the same operands (beyond the fma contraction of a * b + c, below):
# libdevice's transcendental functions, division and square root (when not
# correctly rounded), f16/bf16 fma (the CPU computes it in f32 and rounds
# twice), and conversions to f16/bf16 that the CPU or the GPU may take
# through f32 (double rounding).
INEXACT_OPS = {"math.exp", "math.sin", "math.cos", "math.tanh", "math.sqrt",
               "arith.divf"}


# --------------------------------------------------------------------------
# Which cases a kernel family can run, and how to compare their results
# --------------------------------------------------------------------------


def unsupported_reason(case: Case) -> Optional[str]:
    """Why pw-compile cannot make `case` a kernel family (the restrictions
    of lib/Compiler/FamilyVariants.cpp: exactly one map, no results, memref
    operands and outputs that are function arguments, element types i1 to
    f64 for memrefs and scalars), or None."""
    if len(case.maps) != 1:
        return "two-maps"
    for arg in case.args:
        if isinstance(arg, ScalarArg) and arg.type == "index":
            return "index-scalar"
    return None


@dataclass
class Precision:
    """What the GPU may compute differently for one value of a body."""
    tolerance: float = 0.0     # relative; 0: bit for bit
    sensitive: bool = False    # a comparison/conversion of a rounded float
    product: bool = False      # a * b (or -(a * b), ext(a * b)): a + it may
                               # become one fma


def _rounding_of(op_name: str, result: str, operand_types: list[str],
                 operands: list[Precision]) -> Precision:
    tolerance = max((p.tolerance for p in operands), default=0.0)
    sensitive = any(p.sensitive for p in operands)
    product = False
    inexact = op_name in INEXACT_OPS
    if op_name in ("arith.addf", "arith.subf") and \
            any(p.product for p in operands):
        inexact = True                         # fma contraction
    if op_name == "math.fma" and result in ("f16", "bf16"):
        inexact = True
    if op_name in ("arith.truncf", "arith.sitofp", "arith.uitofp") and \
            result in ("f16", "bf16"):
        inexact = True
    if op_name == "arith.mulf":
        product = True
    if op_name in ("arith.negf", "arith.extf") and operands[0].product:
        product = True
    if inexact and is_float(result):
        tolerance = max(tolerance, TOLERANCE[result])
    if op_name in ("arith.cmpf", "arith.fptosi") and tolerance > 0:
        sensitive = True
    if not is_float(result):
        tolerance = 0.0                        # integers: exact, or flipped
    return Precision(tolerance, sensitive, product)


def output_precisions(case: Case) -> dict[int, Precision]:
    """Per output argument of the (single) map: the tolerance its elements
    need and whether a rounded comparison may decide them."""
    m = case.maps[0]
    values: dict[str, Precision] = {}
    types: dict[str, str] = {}
    for name, index in zip(m.input_names(), m.inputs):
        values[name] = Precision()
        types[name] = input_type(case, index)
    for op in m.ops:
        values[op.result] = _rounding_of(
            op.name, op.type, [types[o] for o in op.operands],
            [values[o] for o in op.operands])
        types[op.result] = op.type
    result = {}
    for value, index in zip(m.yields, m.outputs):
        precision = values[value]
        elem = case.args[index].elem
        tolerance = precision.tolerance
        if is_float(elem):
            # Never tighter than the output type itself: its last bit may
            # round either way once anything before it differs.
            tolerance = max(tolerance, TOLERANCE[elem]) if tolerance else \
                TOLERANCE[elem]
        result[index] = Precision(tolerance, precision.sensitive)
    return result


def comparison_entries(case: Case) -> list[dict]:
    """cases.json's `compare`: one entry per memref argument."""
    m = case.maps[0]
    precisions = output_precisions(case)
    entries = []
    for index, arg in enumerate(case.args):
        if not isinstance(arg, MemRefArg):
            continue
        output, read = index in m.outputs, index in m.inputs
        role = ("input+output" if output and read else
                "output" if output else "input")
        precision = precisions.get(index, Precision())
        entries.append({
            "argument": index,
            "type": arg.elem,
            "role": role,
            # Inside the view of an output: this tolerance (0: bit for bit).
            # Everywhere else: bit for bit.
            "tolerance": precision.tolerance if output else 0.0,
            "rounding_sensitive": precision.sensitive if output else False,
        })
    return entries


# --------------------------------------------------------------------------
# Building the bundle
# --------------------------------------------------------------------------


@dataclass
class BundleCase:
    index: int
    case: Case
    id: str = ""
    module: int = -1               # index into the modules
    skipped: str = ""              # why a kernel family cannot run it
    cpu: str = ""                  # pass, or cpu-<kind> (pw-run --check)
    cpu_detail: str = ""
    compile_error: str = ""        # what pw-compile said, if it failed

    @property
    def outcome(self) -> str:
        """pass, skipped, cpu-<kind> or compile-error."""
        if self.skipped:
            return "skipped"
        if self.cpu and self.cpu != "pass":
            return self.cpu
        if self.compile_error:
            return "compile-error"
        return "pass" if self.cpu == "pass" else ""

    @property
    def detail(self) -> str:
        return {"skipped": self.skipped, "compile-error": self.compile_error,
                "pass": ""}.get(self.outcome, self.cpu_detail)


@dataclass
class Module:
    number: int
    members: list[BundleCase]
    index_bitwidths: str           # "" for pw-compile's default
    compiled: list[BundleCase] = field(default_factory=list)
    library: str = ""


def estimated_variants(case: Case) -> int:
    """How many variants pw-compile builds for the case's family (per
    index bitwidth): one linear variant per rank up to the iteration rank,
    and from rank 2 one transpose variant per memref input that is not an
    output (lib/Compiler/FamilyVariants.cpp)."""
    m = case.maps[0]
    transposable = len({i for i in m.inputs if i not in m.outputs
                        and isinstance(case.args[i], MemRefArg)})
    return sum(1 + (transposable if rank >= 2 else 0)
               for rank in range(1, max(1, m.rank) + 1))


def case_module_text(case: Case, function: str) -> str:
    return render_module(case).replace("func.func @case(",
                                       f"func.func @{function}(", 1)


def gpu_reproducer(case: Case, pw_run: str = "pw-run") -> str:
    """The case as a GPU lit test: pw-run --target=cuda --check."""
    command = [pw_run, "%s", "--entry", "case", "--target=cuda"]
    for spec in arg_specs(case):
        command += ["--arg", spec]
    command += ["--seed", str(case.seed), "--check"]
    return (f"// Differential {case.origin} (GPU mode): the GPU must agree "
            f"with the CPU reference lowering.\n"
            f"// RUN: {' '.join(shlex.quote(w) for w in command)}\n\n"
            + render_module(case))


def run_tool(command: list[str], timeout: float) -> tuple[int, str]:
    try:
        completed = subprocess.run(command, capture_output=True, text=True,
                                   timeout=timeout)
    except OSError as error:
        return 1, f"cannot run {command[0]}: {error}"
    except subprocess.TimeoutExpired:
        return 124, f"{command[0]} ran over {timeout} s"
    return completed.returncode, (completed.stderr + completed.stdout).strip()


class Builder:
    def __init__(self, args: argparse.Namespace, tools, seed: int):
        self.args, self.tools, self.seed = args, tools, seed
        self.bundle = Path(args.gpu_bundle).resolve()
        bin_dir = Path(tools.pw_run).resolve().parent
        self.pw_compile = args.pw_compile or str(bin_dir / "pw-compile")
        self.runtime_dir = args.runtime_dir or str(bin_dir.parent / "lib")
        self.compile_args = [] if args.pw_compile_format == "fatbin" else \
            [f"--format={args.pw_compile_format}"]
        self.compile_args += args.pw_compile_arg
        self.start = time.monotonic()

    def say(self, line: str) -> None:
        print(f"gpu-bundle: {line}  [{time.monotonic() - self.start:.0f} s]",
              flush=True)

    # -- steps ---------------------------------------------------------------

    def prepare_directory(self) -> None:
        bundle = self.bundle
        if bundle.exists() and any(bundle.iterdir()):
            if not (bundle / "cases.json").exists() and \
                    not (bundle / ".pw-gpu-bundle").exists():
                raise SystemExit(f"gpu-bundle: {bundle} exists and is not a "
                                 f"bundle; give an empty or new directory")
            shutil.rmtree(bundle)
        bundle.mkdir(parents=True, exist_ok=True)
        # Marks a directory this builder may replace, even half-written.
        (bundle / ".pw-gpu-bundle").write_text("")
        for tool in (self.pw_compile,):
            if not os.access(tool, os.X_OK):
                raise SystemExit(f"gpu-bundle: {tool} is not an executable "
                                 f"(--pw-compile)")
        if not (Path(self.runtime_dir) / RUNTIME).exists():
            raise SystemExit(f"gpu-bundle: no {RUNTIME} in "
                             f"{self.runtime_dir} (--runtime-dir)")
        # The libraries link the very copy they are shipped with.
        shutil.copy2(Path(self.runtime_dir) / RUNTIME, bundle / RUNTIME)

    def generate(self, indices: Sequence[int], lowering: str,
                 known_issues: bool) -> list[BundleCase]:
        from differential import choose_lowering
        cases = []
        for index in indices:
            case = generate_case(self.seed, index, known_issues)
            case.lowering = choose_lowering(lowering, index)
            entry = BundleCase(index, case, id=f"case_{index}")
            entry.skipped = unsupported_reason(case) or ""
            cases.append(entry)
        return cases

    def plan_modules(self, cases: list[BundleCase]) -> list[Module]:
        """About --cases-per-module cases per module, in a multiple of
        --jobs modules of about the same number of variants, so that the
        pw-compile runs end together."""
        kept = [c for c in cases if not c.skipped]
        per = max(1, self.args.cases_per_module)
        count = -(-len(kept) // per)
        jobs = max(1, self.args.jobs)
        if count > 1:
            count = min(len(kept), -(-count // jobs) * jobs)
        bins: list[list[BundleCase]] = [[] for _ in range(count)]
        weights = [0] * count
        for member in sorted(kept, key=lambda c: -estimated_variants(c.case)):
            lightest = weights.index(min(weights))
            bins[lightest].append(member)
            weights[lightest] += estimated_variants(member.case)
        modules = []
        for number, members in enumerate(bins):
            widths = ""
            if self.args.index_bitwidths == "alternate":
                widths = "32" if number % 2 == 0 else "64"
            elif self.args.index_bitwidths != "default":
                widths = self.args.index_bitwidths
            module = Module(number, sorted(members, key=lambda c: c.index),
                            widths)
            for member in module.members:
                member.module = number
            modules.append(module)
        return modules

    def write_sources(self, cases: list[BundleCase],
                      modules: list[Module]) -> None:
        for entry in cases:
            if entry.skipped:
                continue
            directory = self.bundle / entry.id
            directory.mkdir()
            (directory / "case.mlir").write_text(gpu_reproducer(entry.case))
        (self.bundle / "modules").mkdir()
        for module in modules:
            self.module_path(module).write_text("\n".join(
                case_module_text(m.case, m.id) for m in module.members))

    def module_path(self, module: Module, suffix: str = "") -> Path:
        return self.bundle / "modules" / f"cases{module.number}{suffix}.mlir"

    def compile_command(self, source: Path, output: Path,
                        module: Module) -> list[str]:
        command = [self.pw_compile, str(source), "-o", str(output),
                   "--runtime-dir", str(self.bundle), "--quiet",
                   *self.compile_args]
        if module.index_bitwidths:
            command.append(f"--index-bitwidths={module.index_bitwidths}")
        return command

    def compile_module(self, module: Module) -> str:
        """Compiles a module to casesJ.so. If pw-compile fails, compiles
        each case alone to find the ones it fails on (they are failures:
        the CPU runs them, the GPU compiler must too), then the rest."""
        library = self.bundle / f"cases{module.number}.so"
        timeout = self.args.compile_timeout
        status, output = run_tool(self.compile_command(
            self.module_path(module), library, module), timeout)
        if status == 0:
            module.compiled = list(module.members)
            module.library = library.name
            self.pack_library(module)
            return f"module {module.number}: {len(module.members)} cases"
        survivors = []
        for member in module.members:
            single = self.module_path(module, f"-{member.id}")
            single.write_text(case_module_text(member.case, member.id))
            scratch = self.bundle / "modules" / f"{member.id}.so"
            status, output = run_tool(self.compile_command(
                single, scratch, module), timeout)
            single.unlink()
            if scratch.exists():
                scratch.unlink()
            if status == 0:
                survivors.append(member)
            else:
                member.compile_error = output or f"exit status {status}"
        if survivors:
            path = self.module_path(module)
            path.write_text("\n".join(case_module_text(m.case, m.id)
                                      for m in survivors))
            status, output = run_tool(self.compile_command(
                path, library, module), timeout)
            if status != 0:
                for member in survivors:
                    member.compile_error = output or f"exit status {status}"
                survivors = []
        module.compiled = survivors
        module.library = library.name if survivors else ""
        self.pack_library(module)
        return (f"module {module.number}: {len(survivors)} of "
                f"{len(module.members)} cases (pw-compile fails on the rest)")

    def run_reference(self, entry: BundleCase) -> None:
        """pw-run --check on the original module: the CPU lowerings must
        agree, and the reference lowering's buffers become the oracle."""
        from differential import LOWERINGS, classify_pw_run, PASS
        directory = self.bundle / entry.id
        command = [self.tools.pw_run, str(directory / "case.mlir"),
                   "--entry", "case", *LOWERINGS[entry.case.lowering]]
        for spec in arg_specs(entry.case):
            command += ["--arg", spec]
        command += ["--seed", str(entry.case.seed), "--check",
                    "--dump-inputs", str(directory / "in"),
                    "--dump-outputs", str(directory / "ref")]
        try:
            completed = subprocess.run(command, capture_output=True,
                                       text=True, timeout=self.tools.timeout)
            outcome = classify_pw_run(completed.returncode, completed.stdout,
                                      completed.stderr)
        except OSError as error:
            entry.cpu = "cpu-error"
            entry.cpu_detail = f"cannot run {command[0]}: {error}"
            return
        except subprocess.TimeoutExpired:
            entry.cpu = "cpu-timeout"
            entry.cpu_detail = f"pw-run ran over {self.tools.timeout} s"
            return
        entry.cpu = "pass" if outcome.kind == PASS else "cpu-" + outcome.kind
        entry.cpu_detail = outcome.detail

    def pack_library(self, module: Module) -> None:
        if not module.library:
            return
        path = self.bundle / module.library
        if self.args.compress == "xz":
            packed = path.with_name(path.name + ".xz")
            with open(path, "rb") as source, \
                    lzma.open(packed, "wb", preset=6) as target:
                shutil.copyfileobj(source, target, 1 << 20)
            path.unlink()

    def copy_runner(self) -> None:
        here = Path(__file__).resolve().parent
        shutil.copy2(here / RUNNER, self.bundle / RUNNER)
        package = here.parent.parent / "python_bindings" / "pointwise"
        shutil.copytree(package, self.bundle / "pointwise",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))

    # -- the whole build -----------------------------------------------------

    def build(self, indices: Sequence[int]) -> int:
        args = self.args
        self.prepare_directory()
        cases = self.generate(indices, args.lowering, args.known_issues)
        modules = self.plan_modules(cases)
        kept = [c for c in cases if not c.skipped]
        self.say(f"seed {self.seed}: {len(cases)} cases, {len(kept)} "
                 f"fit a kernel family, in {len(modules)} modules; "
                 f"{args.jobs} jobs")
        self.write_sources(cases, modules)

        done_cases = 0
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            # The quick pw-run checks first (their failures show at once),
            # then the long compilations.
            runs = {pool.submit(self.run_reference, c): c for c in kept}
            compiles = {pool.submit(self.compile_module, m): m
                        for m in modules}
            for future in concurrent.futures.as_completed(
                    list(compiles) + list(runs)):
                future.result()
                if future in compiles:
                    self.say("compiled " + future.result())
                else:
                    done_cases += 1
                    entry = runs[future]
                    if entry.cpu != "pass":
                        first = (entry.detail.splitlines() or [""])[0]
                        self.say(f"FAIL {entry.cpu}: {entry.case.origin}:"
                                 f" {first}")
                    if done_cases % 20 == 0 or done_cases == len(kept):
                        self.say(f"[{done_cases}/{len(kept)}] cases run on "
                                 f"the CPU")
        # A case that pw-run failed keeps that outcome even if it compiled.
        for module in modules:
            module.compiled = [m for m in module.compiled
                               if m.outcome == "pass"]
        self.copy_runner()
        self.write_manifest(cases, modules)
        (self.bundle / ".pw-gpu-bundle").unlink()
        return self.report(cases)

    def library_file(self, module: Module) -> str:
        return module.library + (".xz" if self.args.compress == "xz" else "")

    def write_manifest(self, cases: list[BundleCase],
                       modules: list[Module]) -> None:
        entries = []
        for module in modules:
            for member in module.compiled:
                case = member.case
                entries.append({
                    "id": member.id,
                    "index": member.index,
                    "origin": case.origin,
                    "library": self.library_file(module),
                    "function": member.id,
                    "family": "pw_family_" + member.id,
                    "inputs": f"{member.id}/in/manifest.json",
                    "reference": f"{member.id}/ref/manifest.json",
                    "source": f"{member.id}/case.mlir",
                    "lowering": case.lowering,
                    "arg_specs": arg_specs(case),
                    "seed": case.seed,
                    "compare": comparison_entries(case),
                    "features": sorted(case_features(case)),
                })
        entries.sort(key=lambda e: e["index"])
        left_out = [{"index": c.index, "id": c.id, "origin": c.case.origin,
                     "reason": c.skipped or c.outcome,
                     "detail": "" if c.skipped else c.detail}
                    for c in cases if c.outcome != "pass"]
        manifest = {
            "format": BUNDLE_FORMAT,
            "seed": self.seed,
            "indices": [c.index for c in cases],
            "runtime": RUNTIME,
            "pw_compile_args": self.compile_args,
            "tolerances": TOLERANCE,
            "libraries": [{"file": self.library_file(m),
                           "index_bitwidths": m.index_bitwidths or "32",
                           "cases": [c.id for c in m.compiled]}
                          for m in modules if m.compiled],
            "cases": entries,
            "left_out": left_out,
        }
        (self.bundle / "cases.json").write_text(
            json.dumps(manifest, indent=1) + "\n")

    def report(self, cases: list[BundleCase]) -> int:
        by_outcome: dict[str, list[BundleCase]] = {}
        for c in cases:
            key = "skipped " + c.skipped if c.skipped else c.outcome
            by_outcome.setdefault(key, []).append(c)
        size = sum(p.stat().st_size for p in self.bundle.rglob("*")
                   if p.is_file())
        passed = len(by_outcome.get("pass", []))
        summary = ", ".join(f"{len(v)} {k}" for k, v in
                            sorted(by_outcome.items()) if k != "pass")
        self.say(f"wrote {self.bundle}: {passed} cases "
                 f"({summary or 'none left out'}), {size / 2**20:.1f} MiB")
        failures = [c for c in cases if c.outcome not in ("pass", "skipped")]
        for c in failures:
            print(f"\n==== {c.outcome}: {c.case.origin}\n{c.detail[:4000]}")
            if c.outcome == "compile-error":
                print(f"(the module: {self.bundle / c.id / 'case.mlir'})")
        if failures:
            print(f"\ngpu-bundle: {len(failures)} cases fail on this machine "
                  f"already (left out of the bundle); rerun one with "
                  f"differential.py --only INDEX --seed {self.seed}")
            return 1
        print(f"run it on the GPU machine: python3 "
              f"{self.bundle.name}/{RUNNER} {self.bundle.name}")
        return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "GPU mode (--gpu-bundle DIR; docs/Testing.md)")
    group.add_argument("--gpu-bundle", metavar="DIR",
                       help="write the cases, compiled for the GPU, with "
                            "their inputs and reference outputs to DIR, to "
                            "run elsewhere with DIR/" + RUNNER)
    group.add_argument("--pw-compile", help="path of pw-compile (default: "
                       "next to pw-run)")
    group.add_argument("--runtime-dir", help="directory of " + RUNTIME +
                       " (default: ../lib next to pw-run)")
    group.add_argument("--cases-per-module", type=int, default=50,
                       metavar="N", help="functions per pw-compile run "
                       "(default 50)")
    group.add_argument("--index-bitwidths", default="default",
                       metavar="WIDTHS",
                       help="pw-compile's variants: default (32,64: the "
                            "runtime picks 32 for every generated case), "
                            "alternate (modules with only 32 and only 64 in "
                            "turn, so that 64-bit kernels run too), or a "
                            "list such as 64")
    group.add_argument("--pw-compile-format", default="bin",
                       choices=["bin", "fatbin", "isa"],
                       help="GPU code in the libraries (default bin: the "
                            "sm_90 cubin that a fatbin holds, without the "
                            "PTX copy, which an H100 never uses)")
    group.add_argument("--pw-compile-arg", action="append", default=[],
                       metavar="ARG", help="another pw-compile option "
                       "(repeatable), e.g. --pw-compile-arg=--chip=sm_80")
    group.add_argument("--compress", default="xz", choices=["xz", "none"],
                       help="store the libraries as .so.xz (default; the "
                            "runner unpacks them) or as they are")
    group.add_argument("--compile-timeout", type=float, default=3600.0,
                       help="seconds per pw-compile run (default 3600)")


def build_bundle(args: argparse.Namespace, tools,
                 indices: Sequence[int]) -> int:
    return Builder(args, tools, args.seed).build(indices)
