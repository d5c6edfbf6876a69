#!/usr/bin/env python3
"""Runs lit tests of the form `RUN: TOOL ... | FileCheck %s [--check-prefix=P]`
on a machine that has the project's tools but neither lit nor FileCheck: the
GPU machine, where test/gpu-bundle/gpu-bundle.sh ships a statically linked
pw-run to run test/Integration/GPU/*.test (`REQUIRES: cuda`).

    python3 gpu_lit_runner.py --tool [pw-run=]PATH [--root DIR]
                              [--wrapper "compute-sanitizer ..."] TEST...

It understands what those tests use and refuses anything else, so that a
test it cannot check fails instead of passing unchecked:

- `RUN:` lines (one ending in a backslash goes on in the next `RUN:`), each
  one command whose first word is a --tool, optionally `not ` first (the
  command must then fail), optionally piped into `FileCheck %s` with
  `--check-prefix=P` or `--check-prefixes=P,Q`; substitutions %s, %S and
  %pointwise_src_root;
- `REQUIRES:` naming only `cuda` (this machine's reason to exist);
- `P:` check lines, matched in order against the command's standard output
  as FileCheck's plain `CHECK:` does (a substring of one line, `{{regex}}`
  inside); other suffixes (`-NOT`, `-NEXT`, ...) and `[[variables]]` are
  errors.

With --wrapper, every command runs under it (compute-sanitizer's memcheck:
its report joins the command's output, and its exit status fails the RUN
line). Exit status 1 if a test fails.
"""

import argparse
import pathlib
import re
import shlex
import subprocess
import sys

CHECK_SUFFIXES = ("-NOT", "-NEXT", "-SAME", "-DAG", "-LABEL", "-EMPTY",
                  "-COUNT")


def directive(line, name):
    """The text after `name:` on a line holding it, else None."""
    match = re.search(r"(?:^|[^\w-])" + re.escape(name) + r":(.*)$", line)
    return match.group(1).strip() if match else None


def pattern_regex(pattern):
    """FileCheck's pattern syntax: literal text, `{{regex}}` blocks."""
    if "[[" in pattern:
        raise ValueError("FileCheck variables are not supported: %r" % pattern)
    parts, rest = [], pattern
    while "{{" in rest:
        before, _, after = rest.partition("{{")
        regex, closed, rest = after.partition("}}")
        if not closed:
            raise ValueError("unterminated {{ in %r" % pattern)
        parts.append(re.escape(before))
        parts.append("(?:%s)" % regex)
    parts.append(re.escape(rest))
    return re.compile("".join(parts))


def check_output(output, checks):
    """None when every check matches a line of `output`, in order (a later
    check on the same line or after), else the first that does not."""
    lines = output.splitlines()
    line, column = 0, 0
    for text, regex in checks:
        while line < len(lines):
            match = regex.search(lines[line], column)
            if match:
                column = match.end()
                break
            line, column = line + 1, 0
        else:
            return text
    return None


def parse_command(run, tools, substitutions):
    """(argv, must fail, check prefixes or None) of one RUN line."""
    for key, value in substitutions.items():
        run = run.replace(key, value)
    command, _, filecheck = run.partition("|")
    words = shlex.split(command)
    must_fail = bool(words) and words[0] == "not"
    if must_fail:
        words = words[1:]
    if not words or words[0] not in tools:
        raise ValueError("the command is not one of the tools %s: %r"
                         % (sorted(tools), command.strip()))
    words[0] = tools[words[0]]
    prefixes = None
    if filecheck:
        check = shlex.split(filecheck)
        if not check or check[0] != "FileCheck":
            raise ValueError("only `| FileCheck` is supported: %r" % filecheck)
        prefixes = ["CHECK"]
        for option in check[1:]:
            if option.startswith("--check-prefix="):
                prefixes = [option.split("=", 1)[1]]
            elif option.startswith("--check-prefixes="):
                prefixes = option.split("=", 1)[1].split(",")
            elif option not in substitutions.values():
                raise ValueError("unsupported FileCheck option %r" % option)
    return words, must_fail, prefixes


def checks_of(lines, prefixes):
    """[(text, regex)] of the test's check lines for `prefixes`, in order."""
    checks = []
    for line in lines:
        for prefix in prefixes:
            for suffix in CHECK_SUFFIXES:
                if directive(line, prefix + suffix) is not None:
                    raise ValueError("%s%s: is not supported" % (prefix, suffix))
            text = directive(line, prefix)
            if text is not None:
                checks.append((text, pattern_regex(text)))
    if not checks:
        raise ValueError("no check lines for prefixes %s" % prefixes)
    return checks


def run_test(path, tools, root, wrapper):
    """Runs one test; returns the number of failed RUN lines."""
    lines = path.read_text().splitlines()
    for line in lines:
        requires = directive(line, "REQUIRES")
        if requires is not None and any(
                r.strip() != "cuda" for r in requires.split(",")):
            raise ValueError("%s requires %s" % (path, requires))
    substitutions = {"%pointwise_src_root": str(root), "%S": str(path.parent),
                     "%s": str(path)}
    runs, pending = [], None
    for line in lines:
        run = directive(line, "RUN")
        if run is None:
            continue
        if pending is not None:
            run = pending + " " + run
        pending = run[:-1] if run.endswith("\\") else None
        if pending is None:
            runs.append(run)
    if pending is not None:
        raise ValueError("%s: the last RUN line goes on past the end" % path)
    if not runs:
        raise ValueError("%s has no RUN line" % path)
    failed = 0
    for index, run in enumerate(runs, 1):
        argv, must_fail, prefixes = parse_command(run, tools, substitutions)
        checks = checks_of(lines, prefixes) if prefixes else []
        result = subprocess.run(wrapper + argv, capture_output=True,
                                text=True)
        problem = None
        if must_fail and result.returncode == 0:
            problem = "succeeded, but must fail"
        elif not must_fail and result.returncode != 0:
            problem = "exit %d" % result.returncode
        elif checks:
            missing = check_output(result.stdout, checks)
            if missing is not None:
                problem = "no match for %r" % missing
        label = "%s RUN %d/%d" % (path.name, index, len(runs))
        if problem:
            failed += 1
            print("FAIL %s: %s\n  %s\n--- stdout\n%s--- stderr\n%s" % (
                label, problem, shlex.join(wrapper + argv), result.stdout,
                result.stderr[-4000:]), flush=True)
        else:
            last = result.stdout.strip().splitlines()[-1:] or [""]
            print("PASS %s: %s" % (label, last[0][:160]), flush=True)
            if wrapper and result.stderr.strip():
                print("  %s" % result.stderr.strip().splitlines()[-1])
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", nargs="+", type=pathlib.Path)
    parser.add_argument("--tool", action="append", default=[],
                        metavar="[NAME=]PATH",
                        help="a tool the RUN lines name (by default, its "
                        "file name)")
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2],
                        help="%%pointwise_src_root (default: this checkout)")
    parser.add_argument("--wrapper", default="",
                        help="a command every RUN command runs under")
    options = parser.parse_args()
    tools = {}
    for tool in options.tool:
        name, equals, path = tool.partition("=")
        if not equals:
            name, path = pathlib.Path(tool).name, tool
        if not name or not path:
            parser.error("--tool takes [NAME=]PATH, not %r" % tool)
        tools[name] = path
    wrapper = shlex.split(options.wrapper)
    failed = total = 0
    for test in options.tests:
        try:
            failed += run_test(test.resolve(), tools, options.root.resolve(),
                               wrapper)
        except (OSError, ValueError) as error:
            failed += 1
            print("FAIL %s: %s" % (test, error), flush=True)
        total += 1
    print("%d tests: %s" % (total, "all passed" if not failed
                            else "%d RUN lines failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
