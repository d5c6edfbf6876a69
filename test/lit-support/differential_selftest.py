"""Tests of the differential suite itself (`differential.py --self-test`).

A differential suite that cannot fail is worse than none: these tests show
that every way a case can go wrong is reported as a failure (a mismatch, a
case pw-run cannot run, a module pw-opt rejects, a crash), that the
generator is deterministic and covers what it promises, and that the
reducer shrinks a failure to its core while staying valid -- the reducer
on fake predicates, so no compiler bug is needed to exercise it.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
import unittest

import differential
import differential_gpu
import differential_gpu_runner
import differential_tensor_selftest
from differential import (CRASH, ERROR, INVALID, MISMATCH, PASS, Outcome,
                          classify_pw_opt, classify_pw_run)
from differential_case import (BIT_WIDTH, Case, Map, MemRefArg, Op,
                               arg_sizes,
                               arg_specs,
                               case_features, check_case, render_module)
from differential_generate import KNOWN_ISSUES, generate_case
from differential_reduce import reduce_case

TOOLS: differential.Tools | None = None   # set by run()


def find_case(predicate, seed: int = 7, limit: int = 500,
              known_issues: bool = False):
    """The first generated case of `seed` with a property."""
    for index in range(limit):
        case = generate_case(seed, index, known_issues)
        if predicate(case):
            return case
    raise AssertionError("no generated case has the property")


def has_op(case, name: str) -> bool:
    return any(op.name == name for m in case.maps for op in m.ops)


def has_negative_stride(case) -> bool:
    return any(isinstance(a, MemRefArg) and any(
        t < 0 and s > 1 for s, t in zip(arg_sizes(case, a), a.strides))
        for a in case.args)


class ClassificationTest(unittest.TestCase):
    """Only pw-run's explicit 'check passed' is a pass."""

    def test_pass_needs_the_verdict_line(self):
        self.assertEqual(classify_pw_run(
            0, "check passed: optimized and reference lowerings agree", "")
            .kind, PASS)
        self.assertEqual(classify_pw_run(0, "", "").kind, ERROR)

    def test_mismatch(self):
        outcome = classify_pw_run(1, "", "  argument #0 element offset 3: 1 "
                                  "(optimized) != 2 (reference)\npw-run: "
                                  "check FAILED: the optimized lowering "
                                  "differs from the reference\n")
        self.assertEqual(outcome.kind, MISMATCH)
        self.assertEqual(outcome.signature, MISMATCH)

    def test_error_and_crash(self):
        self.assertEqual(classify_pw_run(1, "", "pw-run: bad argument spec")
                         .kind, ERROR)
        self.assertEqual(classify_pw_run(-11, "", "").kind, CRASH)
        self.assertEqual(classify_pw_run(134, "", "Assertion failed").kind,
                         CRASH)
        self.assertEqual(classify_pw_opt(1, "error: bad").kind, INVALID)
        self.assertEqual(classify_pw_opt(0, "").kind, PASS)

    def test_error_signature_ignores_numbers(self):
        a = Outcome(ERROR, "pw-run: argument #3 (memref<4xf32>): size 4")
        b = Outcome(ERROR, "pw-run: argument #1 (memref<2xf32>): size 2")
        self.assertEqual(a.signature, b.signature)
        self.assertNotEqual(a.signature, Outcome(CRASH, a.detail).signature)


class GeneratorTest(unittest.TestCase):

    def test_deterministic(self):
        for index in range(20):
            a, b = generate_case(11, index), generate_case(11, index)
            self.assertEqual(render_module(a), render_module(b))
            self.assertEqual(arg_specs(a), arg_specs(b))
            self.assertEqual(a.seed, b.seed)
        self.assertNotEqual(render_module(generate_case(11, 0)),
                            render_module(generate_case(12, 0)))

    def test_every_case_is_valid(self):
        for index in range(300):
            self.assertEqual(check_case(generate_case(3, index)), [])

    def test_covers_what_it_promises(self):
        seen = set()
        for index in range(600):
            seen |= case_features(generate_case(5, index))
        wanted = {f"rank={r}" for r in range(7)}
        wanted |= {f"type={t}" for t in ("i1", "i8", "i16", "i32", "i64",
                                         "f16", "bf16", "f32", "f64")}
        wanted |= {"size-0", "size-1", "bcast-leading", "bcast-static-1",
                   "bcast-dynamic-1", "bcast-stride-0", "permuted", "stepped",
                   "offset", "output-strided", "in-place", "multi-output",
                   "scalar-input", "two-maps", "chained-maps",
                   "layout=static", "layout=dynamic", "layout=mixed",
                   "layout=identity"}
        wanted |= {f"op={op}" for op in (
            "addf", "subf", "mulf", "divf", "maximumf", "minimumf", "negf",
            "select", "cmpf", "cmpi", "addi", "subi", "muli", "andi", "ori",
            "xori", "shli", "extf", "truncf", "sitofp", "uitofp", "fptosi",
            "extsi", "extui", "trunci", "index_cast", "exp", "sin", "cos",
            "tanh", "sqrt", "absf", "fma")}
        self.assertEqual(wanted - seen, set())

    @unittest.skipUnless("negative-strides" in KNOWN_ISSUES,
                         "negative strides are not a known issue")
    def test_known_issues_are_avoided_unless_asked(self):
        avoided = [generate_case(5, i) for i in range(300)]
        included = [generate_case(5, i, known_issues=True)
                    for i in range(300)]
        self.assertFalse(any(map(has_negative_stride, avoided)))
        self.assertTrue(any(map(has_negative_stride, included)))

    def test_unsafe_bodies_are_rejected(self):
        case = find_case(lambda c: has_op(c, "arith.shli"))
        m = next(m for m in case.maps
                 if any(op.name == "arith.shli" for op in m.ops))
        position, shift = next((i, op) for i, op in enumerate(m.ops)
                               if op.name == "arith.shli")
        width = BIT_WIDTH[shift.type]
        m.ops.insert(position, Op("width", "arith.constant", [], shift.type,
                                  "true" if width == 1 else str(width)))
        shift.operands[1] = "width"                 # shift by the width
        self.assertTrue(any("shift amount" in p for p in check_case(case)))


class ReducerTest(unittest.TestCase):
    """The reducer on fake predicates: what it keeps is exactly what the
    predicate needs, and it never produces an invalid case."""

    def reduce(self, case, predicate):
        def checked(candidate):
            self.assertEqual(check_case(candidate), [])
            return predicate(candidate)
        self.assertTrue(predicate(case))
        reduced = reduce_case(case, checked, max_tests=2000)
        self.assertTrue(predicate(reduced))
        return reduced

    def test_keeps_only_the_failing_op(self):
        case = find_case(lambda c: has_op(c, "math.sin") and len(c.sizes) > 2)
        reduced = self.reduce(case, lambda c: has_op(c, "math.sin"))
        self.assertEqual(len(reduced.maps), 1)
        self.assertEqual(len(reduced.maps[0].outputs), 1)
        self.assertEqual(reduced.sizes, [])
        real_ops = [op for op in reduced.maps[0].ops
                    if op.name != "arith.constant"]
        self.assertEqual([op.name for op in real_ops][-1:], ["math.sin"])
        self.assertLessEqual(len(real_ops), 3)   # sin and casts feeding it

    def test_keeps_only_the_failing_layout(self):
        case = find_case(lambda c: has_negative_stride(c)
                         and len(c.sizes) > 2, known_issues=True)
        reduced = self.reduce(case, has_negative_stride)
        self.assertEqual(len(reduced.sizes), 1)
        self.assertEqual(reduced.sizes, [2])
        self.assertLessEqual(len(reduced.args), 2)
        self.assertLessEqual(sum(len(m.ops) for m in reduced.maps), 2)


class ToolTest(unittest.TestCase):
    """Through the real pw-opt and pw-run: broken cases fail, never pass."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.directory.name, "case.mlir")

    def tearDown(self):
        self.directory.cleanup()

    def test_generated_case_passes(self):
        outcome = differential.test_case(TOOLS, generate_case(1, 1),
                                         self.path)
        self.assertEqual(outcome.kind, PASS, outcome.detail)

    def test_invalid_spec_is_an_error(self):
        """A spec that contradicts the module (what a generator bug looks
        like) must be an error, not a skipped or passed case."""
        def static_stride(c):
            return [a for a in c.args if isinstance(a, MemRefArg)
                    and a.rank and a.static_strides[0]]
        case = find_case(static_stride)
        differential.test_case(TOOLS, case, self.path)   # writes the module
        static_stride(case)[0].strides[0] += 1000       # now the spec lies
        outcome = differential.execute(TOOLS, case, self.path)
        self.assertEqual(outcome.kind, ERROR, outcome.detail)
        self.assertIn("contradicts the type", outcome.detail)

    def test_view_below_its_buffer_is_an_error(self):
        case = find_case(lambda c: any(isinstance(a, MemRefArg)
                                       for a in c.args))
        arg = next(a for a in case.args if isinstance(a, MemRefArg))
        arg.identity, arg.static_offset = False, False
        differential.test_case(TOOLS, case, self.path)
        arg.offset = -1000
        outcome = differential.execute(TOOLS, case, self.path)
        self.assertEqual(outcome.kind, ERROR, outcome.detail)
        self.assertIn("before the start of its buffer", outcome.detail)

    def test_module_that_does_not_verify_is_invalid(self):
        case = generate_case(1, 0)
        m = case.maps[0]
        m.outputs.append(m.outputs[0])          # one buffer written twice
        m.yields.append(m.yields[0])
        outcome = differential.test_case(TOOLS, case, self.path)
        self.assertEqual(outcome.kind, INVALID, outcome.detail)
        self.assertIn("are the same buffer", outcome.detail)

    def test_runner_fails_on_a_mismatch(self):
        """End to end, with a stand-in pw-run that reports a mismatch: the
        run fails and prints a reproducer."""
        self.assertRunFails("echo 'pw-run: check FAILED: differs' >&2; "
                            "exit 1", "mismatch")

    def test_runner_fails_without_a_verdict(self):
        self.assertRunFails("exit 0", "error")

    def test_runner_fails_on_a_crash(self):
        self.assertRunFails("kill -SEGV $$", "crash")

    def test_runner_passes_real_cases(self):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = differential.main([
                "--pw-run", TOOLS.pw_run, "--pw-opt", TOOLS.pw_opt,
                "--cases", "4", "--seed", "1"])
        self.assertEqual(status, 0, output.getvalue())
        self.assertIn("4 cases, 4 passed, 0 failed", output.getvalue())

    def assertRunFails(self, script: str, kind: str):
        fake = os.path.join(self.directory.name, "fake-pw-run")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\n{script}\n")
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = differential.main([
                "--pw-run", fake, "--pw-opt", TOOLS.pw_opt, "--cases", "2",
                "--seed", "1", "--reduce", "0"])
        text = output.getvalue()
        self.assertEqual(status, 1, text)
        self.assertIn(f"2 cases, 0 passed, 2 failed", text)
        self.assertIn(f"==== {kind}: seed 1 case 0", text)
        self.assertIn("// RUN: pw-run %s --entry "
                      "case", text)


def one_map_case(elems: list[str], ops: list[Op], yields: list[str],
                 outputs: list[int], inputs: list[int]) -> Case:
    """A rank-1 case of memref arguments of `elems` and one map."""
    args = [MemRefArg(elem=e, broadcast=[False], strides=[1],
                      static_sizes=[True], static_strides=[True])
            for e in elems]
    return Case(sizes=[4], args=args,
                maps=[Map(rank=1, inputs=inputs, outputs=outputs, ops=ops,
                          yields=yields)])


class GpuModeTest(unittest.TestCase):
    """The GPU mode's choices (differential_gpu.py) and its runner's
    comparisons (differential_gpu_runner.py), without a GPU."""

    def test_keeps_what_a_family_can_be(self):
        two = find_case(lambda c: len(c.maps) == 2)
        self.assertEqual(differential_gpu.unsupported_reason(two),
                         "two-maps")
        index = find_case(lambda c: len(c.maps) == 1 and any(
            getattr(a, "type", "") == "index" for a in c.args))
        self.assertEqual(differential_gpu.unsupported_reason(index),
                         "index-scalar")
        self.assertIsNone(differential_gpu.unsupported_reason(
            find_case(lambda c: len(c.maps) == 1 and all(
                isinstance(a, MemRefArg) for a in c.args))))

    def precision(self, elems, ops, yields):
        case = one_map_case(elems, ops, yields, [0], [1])
        self.assertEqual(check_case(case), [])
        return differential_gpu.output_precisions(case)[0]

    def test_integer_bodies_are_exact(self):
        p = self.precision(["i32", "i32"], [
            Op("v0", "arith.muli", ["in0", "in0"], "i32"),
            Op("v1", "arith.addi", ["v0", "in0"], "i32")], ["v1"])
        self.assertEqual((p.tolerance, p.sensitive), (0.0, False))

    def test_float_outputs_get_their_type_tolerance(self):
        p = self.precision(["f32", "f32"], [
            Op("v0", "arith.mulf", ["in0", "in0"], "f32"),
            Op("v1", "arith.addf", ["v0", "in0"], "f32")], ["v1"])
        self.assertEqual((p.tolerance, p.sensitive), (1e-5, False))

    def test_narrow_rounding_widens_the_tolerance(self):
        """exp in f16, extended to f64: f16's tolerance, not f64's."""
        p = self.precision(["f64", "f16"], [
            Op("v0", "math.exp", ["in0"], "f16"),
            Op("v1", "arith.extf", ["v0"], "f64")], ["v1"])
        self.assertEqual(p.tolerance, 1e-2)

    def test_comparisons_of_rounded_values_are_sensitive(self):
        ops = [Op("v0", "math.sin", ["in0"], "f32"),
               Op("v1", "arith.constant", [], "f32", "0.5"),
               Op("v2", "arith.cmpf", ["v0", "v1"], "i1", "olt")]
        p = self.precision(["i1", "f32"], ops, ["v2"])
        self.assertEqual((p.tolerance, p.sensitive), (0.0, True))
        # The same comparison of an exact value is not.
        ops[0] = Op("v0", "math.absf", ["in0"], "f32")
        p = self.precision(["i1", "f32"], ops, ["v2"])
        self.assertEqual((p.tolerance, p.sensitive), (0.0, False))

    def test_contraction_makes_fptosi_sensitive(self):
        p = self.precision(["i32", "f32"], [
            Op("v0", "arith.mulf", ["in0", "in0"], "f32"),
            Op("v1", "arith.negf", ["v0"], "f32"),
            Op("v2", "arith.subf", ["v1", "in0"], "f32"),
            Op("v3", "arith.fptosi", ["v2"], "i32")], ["v3"])
        self.assertTrue(p.sensitive)

    def test_comparison_entries(self):
        case = one_map_case(["f32", "i8", "f64"], [
            Op("v0", "arith.sitofp", ["in0"], "f32")], ["v0"],
            outputs=[0], inputs=[1])
        case.maps[0].inputs.append(0)            # in place
        case.maps[0].yields = ["v0"]
        entries = differential_gpu.comparison_entries(case)
        self.assertEqual([(e["argument"], e["role"], e["tolerance"])
                          for e in entries],
                         [(0, "input+output", 1e-5), (1, "input", 0.0),
                          (2, "input", 0.0)])

    def runner_argument(self, elem, sizes, strides, offset, elements,
                        tolerance=0.0, sensitive=False, role="output"):
        argument = differential_gpu_runner.Argument.__new__(
            differential_gpu_runner.Argument)
        argument.index, argument.kind, argument.type = 0, "memref", elem
        argument.byte_width = BIT_WIDTH[elem] // 8 or 1
        argument.sizes, argument.strides = sizes, strides
        argument.offset, argument.elements = offset, elements
        argument.compare = {"tolerance": tolerance, "role": role,
                            "rounding_sensitive": sensitive}
        return argument

    def test_runner_compares_whole_buffers(self):
        import struct
        compare = differential_gpu_runner.compare_buffer
        pack = lambda values: struct.pack(f"<{len(values)}f", *values)  # noqa
        # A view of 3 elements at offsets 1, 3, 5 of a buffer of 6.
        a = self.runner_argument("f32", [3], [2], 1, 6, tolerance=1e-5)
        ref = [9.0, 1.0, 9.0, 2.0, 9.0, 3.0]
        self.assertIsNone(compare(a, pack(ref), pack(ref), 4))
        near = [9.0, 1.000001, 9.0, 2.0, 9.0, 3.0]
        self.assertIsNone(compare(a, pack(near), pack(ref), 4))
        far = [9.0, 1.1, 9.0, 2.0, 9.0, 3.0]
        self.assertEqual(compare(a, pack(far), pack(ref), 4).differing, 1)
        # Outside the view, even a tiny difference counts.
        outside = [9.000001, 1.0, 9.0, 2.0, 9.0, 3.0]
        mismatch = compare(a, pack(outside), pack(ref), 4)
        self.assertEqual(mismatch.examples[0][:2], (0, False))
        self.assertFalse(mismatch.tolerated)
        nan = struct.pack("<I", 0x7FC00000) + pack(ref[1:])
        other_nan = struct.pack("<I", 0xFFC00000) + pack(ref[1:])
        a.offset, a.sizes = 0, [3]
        self.assertIsNone(compare(a, nan, other_nan, 4))
        # Integers are compared bit for bit.
        i = self.runner_argument("i32", [2], [1], 0, 2)
        self.assertEqual(compare(i, struct.pack("<2i", 1, 2),
                                 struct.pack("<2i", 1, 3), 4).differing, 1)

    def test_runner_tolerates_few_flips_where_sensitive(self):
        compare = differential_gpu_runner.compare_buffer
        a = self.runner_argument("i1", [40], [1], 0, 40, sensitive=True)
        ref = bytes(40)
        few = bytes([1, 1, 1, 1]) + bytes(36)        # 10 %
        self.assertTrue(compare(a, few, ref, 4).tolerated)
        many = bytes([1] * 5) + bytes(35)
        self.assertFalse(compare(a, many, ref, 4).tolerated)
        a.compare["rounding_sensitive"] = False
        self.assertFalse(compare(a, few, ref, 4).tolerated)


def run(tools: differential.Tools) -> int:
    global TOOLS
    TOOLS = tools
    differential_tensor_selftest.TOOLS = tools
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        __import__(__name__))
    suite.addTests(unittest.defaultTestLoader.loadTestsFromModule(
        differential_tensor_selftest))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1
