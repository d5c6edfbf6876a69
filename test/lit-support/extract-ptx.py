#!/usr/bin/env python3
"""Prints the PTX held by the gpu.binary ops of pw-opt's output.

`pw-gpu-pipeline{format=isa}` stores each kernel module's PTX as an escaped
string attribute (`assembly = "..."`); tests FileCheck the text. With
--ptxas, every module is also assembled (each is a complete PTX file) and
the script fails when ptxas rejects one, printing ptxas's -v resource
usage when --verbose is given.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2})")


def unescape(text):
    return ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def assemble(ptxas, arch, ptx, verbose):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "module.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        command = [ptxas, f"-arch={arch}", path, "-o", os.devnull]
        if verbose:
            command.insert(1, "-v")
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"extract-ptx: ptxas rejected a module:\n{result.stderr}")
        if verbose:
            sys.stderr.write(result.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ptxas", help="assemble every module with this ptxas")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--verbose", action="store_true",
                        help="print ptxas -v register and spill figures")
    args = parser.parse_args()
    source = sys.stdin.read()
    modules = [unescape(m) for m in
               re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', source)]
    if not modules:
        sys.exit("extract-ptx: no gpu.binary with PTX assembly in the input")
    for ptx in modules:
        if args.ptxas:
            assemble(args.ptxas, args.arch, ptx, args.verbose)
        sys.stdout.write(ptx)


if __name__ == "__main__":
    main()
