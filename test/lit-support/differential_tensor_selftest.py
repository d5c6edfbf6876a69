"""Tests of the tensor mode (`differential_tensor.py`), run by
`differential.py --self-test` with the map suite's own tests: the generator
is deterministic, valid and covers what fusion must handle, real cases
pass, and a fusion that changes results, a pw-opt that dies while fusing
and a pw-run that writes no results all fail the run.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
import unittest
from unittest import mock

import differential
import differential_tensor
from differential_case import Case, Map, MemRefArg, Op
from differential_tensor import (TensorCase, check_tensor_case,
                                 generate_tensor_case, render_tensor_module,
                                 tensor_features)

TOOLS: differential.Tools | None = None   # set by differential_selftest


def handmade_chain() -> TensorCase:
    """(a + a) * (a + a) in two maps, over a tensor<?xf32> of 4 elements."""
    def tensor() -> MemRefArg:
        return MemRefArg(elem="f32", broadcast=[False], strides=[1],
                         static_sizes=[False], static_strides=[False],
                         static_offset=False)
    case = Case(sizes=[4], args=[tensor(), tensor(), tensor()], maps=[
        Map(rank=1, inputs=[0, 0], outputs=[1],
            ops=[Op("v0", "arith.addf", ["in0", "in1"], "f32")],
            yields=["v0"]),
        Map(rank=1, inputs=[1], outputs=[2],
            ops=[Op("v0", "arith.mulf", ["in0", "in0"], "f32")],
            yields=["v0"])], seed=5, origin="handmade chain")
    tc = TensorCase(case, params=[0], destinations=[[None], [None]],
                    size_sources=[{0: (0, 0)}, {0: (0, 0)}], returns=[2])
    assert check_tensor_case(tc) == []
    return tc


class TensorGeneratorTest(unittest.TestCase):

    def test_deterministic(self):
        for index in range(20):
            self.assertEqual(
                render_tensor_module(generate_tensor_case(5, index)),
                render_tensor_module(generate_tensor_case(5, index)))

    def test_cases_are_valid(self):
        for index in range(100):
            self.assertEqual(check_tensor_case(generate_tensor_case(6, index)),
                             [])

    def test_constant_results_count_as_constants(self):
        """0 / 0 over a map result computed from constants folds once
        fused, to a NaN of other bits than the CPU's: not a fair case."""
        tc = handmade_chain()
        tc.case.maps[0].inputs = []
        tc.case.maps[0].ops = [Op("v0", "arith.constant", [], "f32", "0.0")]
        tc.case.maps[1].ops = [Op("v0", "arith.divf", ["in0", "in0"],
                                  "f32")]
        tc.params = []
        tc.case.args[0] = tc.case.args[1]
        self.assertIn("map #1: %v0: a constant expression may fold to inf "
                      "or NaN", check_tensor_case(tc))

    def test_linalg_form_is_generic_ops(self):
        for index in range(30):
            tc = generate_tensor_case(8, index, form="linalg")
            text = render_tensor_module(tc)
            self.assertEqual(check_tensor_case(tc), [])
            self.assertIn("linalg.generic", text)
            self.assertNotIn("pointwise.map", text)

    def test_covers_what_fusion_must_handle(self):
        seen = set()
        for index in range(300):
            seen |= tensor_features(generate_tensor_case(7, index))
        for feature in ["multi-output", "result-read-through-broadcast",
                        "half-intermediate", "result-read-by-several-maps",
                        "result-read-and-returned", "destination-argument",
                        "destination-result", "dynamic", "scalar-input",
                        "small-map", "chain-depth=5+", "type=i1",
                        "type=f16", "type=bf16", "argument-broadcast",
                        "rank=0", "rank=4"]:
            self.assertIn(feature, seen)


class TensorComparisonTest(unittest.TestCase):
    """Bit for bit, except that a NaN matches any NaN."""

    def test_nan_bits_do_not_count(self):
        self.assertEqual(differential_tensor.differing_elements(
            bytes.fromhex("00fe"), bytes.fromhex("007e"), "f16"), ([], 1))
        self.assertEqual(differential_tensor.differing_elements(
            bytes.fromhex("000000000000f8ff"),
            bytes.fromhex("010000000000f87f"), "f64"), ([], 1))

    def test_signed_zeros_infinities_and_integers_count(self):
        self.assertEqual(differential_tensor.differing_elements(
            bytes.fromhex("00000080"), bytes.fromhex("00000000"), "f32"),
            ([0], 0))
        self.assertEqual(differential_tensor.differing_elements(
            bytes.fromhex("007c"), bytes.fromhex("00fe"), "f16"), ([0], 0))
        self.assertEqual(differential_tensor.differing_elements(
            bytes.fromhex("ffff00"), bytes.fromhex("ff7f00"), "i8"),
            ([1], 0))


class TensorToolTest(unittest.TestCase):
    """End to end, with the real tools or stand-ins that fail."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.directory.cleanup()

    def stand_in(self, name: str, script: str) -> str:
        path = os.path.join(self.directory.name, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\n{script}\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def run_suite(self, pw_run: str, pw_opt: str, *extra: str):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = differential.main([
                "--mode", "tensor", "--pw-run", pw_run, "--pw-opt", pw_opt,
                "--seed", "1", *extra])
        return status, output.getvalue()

    def test_real_cases_pass_and_fuse(self):
        status, text = self.run_suite(TOOLS.pw_run, TOOLS.pw_opt,
                                      "--cases", "6")
        self.assertEqual(status, 0, text)
        self.assertIn("6 cases, 6 passed, 0 failed", text)
        self.assertRegex(text, r"fusion: (\d+) maps became (\d+)")
        self.assertIn("form=linalg 3/0", text)
        self.assertIn("form=maps 3/0", text)

    def test_wrong_fusion_is_a_mismatch(self):
        """A 'fusion' that turns additions into subtractions changes the
        results of (a + a) * (a + a): the run fails with a mismatch and a
        reproducer."""
        pw_opt = self.stand_in(
            "fake-pw-opt",
            f'case "$*" in *--pw-fuse-maps*) {TOOLS.pw_opt} "$@" | '
            f'sed "s/arith.addf/arith.subf/g";; *) exec {TOOLS.pw_opt} '
            f'"$@";; esac')
        with mock.patch.object(differential_tensor, "generate_tensor_case",
                               lambda *args, **kwargs: handmade_chain()):
            status, text = self.run_suite(TOOLS.pw_run, pw_opt,
                                          "--cases", "1")
        self.assertEqual(status, 1, text)
        self.assertIn("==== mismatch", text)
        self.assertIn("result #0 (tensor<?xf32>) differs", text)
        self.assertIn("// RUN: cmp %t/unfused/result0.bin", text)

    def test_crash_while_fusing_is_a_crash(self):
        pw_opt = self.stand_in(
            "fake-pw-opt",
            f'case "$*" in *--pw-fuse-maps*) kill -SEGV $$;; *) exec '
            f'{TOOLS.pw_opt} "$@";; esac')
        status, text = self.run_suite(TOOLS.pw_run, pw_opt, "--cases", "2")
        self.assertEqual(status, 1, text)
        self.assertIn("2 cases, 0 passed, 2 failed (0 mismatch, 2 crash", text)

    def test_missing_results_are_an_error(self):
        pw_run = self.stand_in("fake-pw-run", "exit 0")
        status, text = self.run_suite(pw_run, TOOLS.pw_opt, "--cases", "2")
        self.assertEqual(status, 1, text)
        self.assertIn("2 cases, 0 passed, 2 failed (0 mismatch, 0 crash, "
                      "2 error", text)
        self.assertIn("pw-run dumped no result0.bin", text)
