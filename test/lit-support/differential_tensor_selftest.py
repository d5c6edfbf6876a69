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

import differential
from differential_tensor import (check_tensor_case, generate_tensor_case,
                                 render_tensor_module, tensor_features)

TOOLS: differential.Tools | None = None   # set by differential_selftest


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

    def test_wrong_fusion_is_a_mismatch(self):
        """A 'fusion' that turns additions into subtractions changes the
        results: the run fails with a mismatch and a reproducer."""
        index = next(i for i in range(100)
                     if "op=addf" in tensor_features(
                         generate_tensor_case(1, i)))
        pw_opt = self.stand_in(
            "fake-pw-opt",
            f'case "$*" in *--pw-fuse-maps*) {TOOLS.pw_opt} "$@" | '
            f'sed "s/arith.addf/arith.subf/g";; *) exec {TOOLS.pw_opt} '
            f'"$@";; esac')
        status, text = self.run_suite(TOOLS.pw_run, pw_opt,
                                      "--only", str(index))
        self.assertEqual(status, 1, text)
        self.assertIn("==== mismatch", text)
        self.assertIn("fused and unfused results differ", text)
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
