"""The differential suite through pw-gpu-pipeline: a bundle of every
generated case, to run on a GPU machine with the bundle's pw-run
(docs/Testing.md).

`differential.py --pipeline-bundle DIR` generates map cases (the map
suite's generator), tensor programs (the tensor suite's, in each form,
as generated and after `pw-fuse-maps --canonicalize`) and branch programs
(two map cases under one `scf.if`, run once per branch) and writes them
all to DIR, leaving none out: two maps, index scalars, returned tensors,
temporaries and kernels of one name (the two branches' kernels are
outlined from one function, into `@case_kernel` and
`@case_kernel_0::@case_kernel`, which pw-merge-gpu-modules must tell
apart) run as any embedding compiler's program would, through
`pw-run --target=cuda --gpu-path=pipeline --check`, which lowers the module
with pw-gpu-pipeline, runs its host code and compares every buffer and
result with the CPU reference lowering on the same inputs.

    cases.json                        the cases: file, entry, --arg specs,
                                      seed, rounding sensitivity
    <id>.mlir                         one module per case
    differential_pipeline_runner.py   python3 DIR/differential_pipeline_runner.py DIR --pw-run PATH

A branch program's entry takes the first map case's arguments, then the
second's, then an i1 flag: the first case's maps run where it is 1, the
second's where it is 0. Each is run twice, as `branch_N.then` (flag 1) and
`branch_N.else` (flag 0); its map cases are the generator's cases
BRANCH_FIRST_INDEX + 2N and + 2N + 1 of the seed.

A case is *rounding sensitive* when its module holds an operation the GPU
may round differently from the CPU (libdevice's transcendental functions,
division, square root, f16/bf16 conversions) and a float comparison or
float-to-integer conversion that such a difference can flip; the runner
tolerates a few differing elements in its buffers (see the runner).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Sequence

from differential_case import arg_specs, render_module
from differential_generate import generate_case

BUNDLE_FORMAT = "pw-differential-pipeline-1"
RUNNER = "differential_pipeline_runner.py"

# Where the map cases of branch programs start, far from the map cases'
# own indices.
BRANCH_FIRST_INDEX = 1_000_000
ENTRY_SIGNATURE = re.compile(r"func\.func @case\((.*)\) \{")
ARGUMENT = re.compile(r"%arg(\d+)\b")

INEXACT = re.compile(r"math\.(exp|sin|cos|tanh|sqrt)|arith\.divf|"
                     r"math\.fma .*: (f16|bf16)|"
                     r"arith\.(truncf|sitofp|uitofp) .* to (f16|bf16)")
DECIDING = re.compile(r"arith\.cmpf|arith\.fpto[su]i")


def rounding_sensitive(text: str) -> bool:
    return bool(INEXACT.search(text) and DECIDING.search(text))


def tensor_variants(tools, tc, index: int, scratch: Path):
    """(suffix, module text) of tensor case `tc`: as generated (converted
    from linalg first where it is written in linalg) and fused."""
    import differential_tensor  # imports differential, which imports us
    text = differential_tensor.render_tensor_module(tc)
    source = scratch / f"tensor_{index}.mlir"
    source.write_text(text)
    variants = []
    for suffix, passes in (
            ("", differential_tensor.reference_passes(tc)),
            (".fused", differential_tensor.reference_passes(tc)
             + differential_tensor.FUSE_PASSES)):
        if not passes:
            variants.append((suffix, text))
            continue
        done = subprocess.run([tools.pw_opt, str(source), *passes],
                              capture_output=True, text=True,
                              timeout=tools.timeout)
        if done.returncode != 0:
            raise RuntimeError(f"pw-opt {' '.join(passes)} failed on tensor "
                               f"case {index}:\n{done.stderr}")
        variants.append((suffix, done.stdout))
    return variants


def branch_module(first, second) -> str:
    """The module of a branch program over map cases `first` and `second`
    (see the module description)."""
    def parts(case, shift):
        text = ARGUMENT.sub(lambda m: f"%arg{int(m.group(1)) + shift}",
                            render_module(case))
        lines = text.rstrip("\n").split("\n")
        header = ENTRY_SIGNATURE.fullmatch(lines[0])
        if not header or lines[-2:] != ["  return", "}"]:
            raise AssertionError(f"unexpected map case module:\n{text}")
        return header.group(1), ["  " + line for line in lines[1:-2]]

    first_params, first_body = parts(first, 0)
    second_params, second_body = parts(second, len(first.args))
    flag = f"%arg{len(first.args) + len(second.args)}"
    lines = [f"func.func @case({first_params}, {second_params}, "
             f"{flag}: i1) {{",
             f"  scf.if {flag} {{", *first_body, "  } else {",
             *second_body, "  }", "  return", "}"]
    return "\n".join(lines) + "\n"


def build_bundle(args, tools, indices: Sequence[int]) -> int:
    import differential_tensor  # imports differential, which imports us
    bundle = Path(args.pipeline_bundle)
    if bundle.exists():
        if not (bundle / "cases.json").is_file() and any(bundle.iterdir()):
            print(f"pipeline-bundle: {bundle} exists and is not a bundle; "
                  f"give an empty or new directory")
            return 1
        shutil.rmtree(bundle)
    bundle.mkdir(parents=True)
    scratch = bundle / ".scratch"
    scratch.mkdir()
    cases = []

    def add(case_id: str, text: str, specs: list[str], seed: int,
            origin: str):
        (bundle / f"{case_id}.mlir").write_text(text)
        cases.append({"id": case_id, "file": f"{case_id}.mlir",
                      "entry": "case", "args": specs, "seed": seed,
                      "origin": origin,
                      "rounding_sensitive": rounding_sensitive(text)})

    maps = tensors = 0
    for index in indices:
        case = generate_case(args.seed, index)
        add(f"map_{index}", render_module(case), arg_specs(case), case.seed,
            f"seed {args.seed} case {index}")
        maps += 1
    for position, index in enumerate(range(args.pipeline_tensor_cases)):
        form = differential_tensor.FORMS[position %
                                         len(differential_tensor.FORMS)]
        tc = differential_tensor.generate_tensor_case(args.seed, index,
                                                      form=form)
        for suffix, text in tensor_variants(tools, tc, index, scratch):
            add(f"tensor_{index}{suffix}", text,
                differential_tensor.arg_specs(tc), tc.seed,
                f"tensor seed {args.seed} case {index} ({form}"
                f"{', fused' if suffix else ''})")
            tensors += 1
    branches = 0
    for index in range(args.pipeline_branch_cases):
        first = generate_case(args.seed, BRANCH_FIRST_INDEX + 2 * index)
        second = generate_case(args.seed, BRANCH_FIRST_INDEX + 2 * index + 1)
        text = branch_module(first, second)
        specs = arg_specs(first) + arg_specs(second)
        origin = (f"seed {args.seed} cases {BRANCH_FIRST_INDEX + 2 * index} "
                  f"and {BRANCH_FIRST_INDEX + 2 * index + 1} under scf.if")
        add(f"branch_{index}.then", text, specs + ["=1"], first.seed,
            origin + ", first")
        add(f"branch_{index}.else", text, specs + ["=0"], first.seed,
            origin + ", second")
        branches += 1
    shutil.rmtree(scratch)
    manifest = {"format": BUNDLE_FORMAT, "seed": args.seed, "cases": cases,
                "left_out": []}
    (bundle / "cases.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.copy(Path(__file__).with_name(RUNNER), bundle / RUNNER)
    sensitive = sum(c["rounding_sensitive"] for c in cases)
    print(f"pipeline-bundle: seed {args.seed}: {maps} map cases, {tensors} "
          f"tensor programs ({args.pipeline_tensor_cases} cases, as "
          f"generated and fused), {branches} branch programs (each run "
          f"once per branch), {sensitive} rounding sensitive, 0 left out")
    print(f"pipeline-bundle: wrote {bundle}: {len(cases)} cases")
    print(f"run it on the GPU machine: python3 {bundle.name}/{RUNNER} "
          f"{bundle.name} --pw-run PATH")
    return 0


def add_arguments(parser) -> None:
    parser.add_argument(
        "--pipeline-bundle", metavar="DIR",
        help="write the cases (map cases and tensor programs) for the GPU "
             "machine's pw-run --gpu-path=pipeline to DIR instead of "
             "running them here")
    parser.add_argument(
        "--pipeline-tensor-cases", type=int, default=0, metavar="N",
        help="with --pipeline-bundle: tensor programs to add (each as "
             "generated and fused)")
    parser.add_argument(
        "--pipeline-branch-cases", type=int, default=0, metavar="N",
        help="with --pipeline-bundle: branch programs to add (two map "
             "cases under one scf.if, each run once per branch)")
