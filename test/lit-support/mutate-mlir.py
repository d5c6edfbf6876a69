#!/usr/bin/env python3
"""Writes token-level mutants of MLIR test files, one per split-input chunk.

Used by the test that feeds malformed pointwise IR to pw-opt: every mutant
must be parsed and verified or rejected with a diagnostic, never crash.
The output is deterministic for a given seed.
"""

import argparse
import random
import re

TOKEN = re.compile(
    r"\^?[%@#!]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|->|\S")

# Tokens that are likely to hit edge cases of the op's syntax and verifier.
REPLACEMENTS = [
    "0", "1", "-1", "2", "?", "9223372036854775807", "-9223372036854775808",
    "f32", "f16", "bf16", "i1", "i64", "index", "i4", "ui32", "complex<f32>",
    "memref<?xf32>", "memref<f32>", "memref<0x?xi8>", "tensor<4xf32>",
    "vector<2xf32>", "memref<4xf32, strided<[0]>>",
    "memref<?x?xf32, strided<[-1, 0], offset: ?>>", "strided<[?, 0]>",
    "%x", "%a", "%c", "^bb0", "^bb1", "{", "}", "(", ")", "<", ">", "[", "]",
    ":", ",", "x", "pointwise.yield", "pointwise.map", "ins", "outs",
    "attributes", "func.return", "arith.addf",
]


def chunks(paths):
    for path in paths:
        with open(path) as f:
            text = f.read()
        for chunk in text.split("// -----"):
            lines = [l for l in chunk.splitlines()
                     if not l.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            if body:
                yield body


def mutate(text, rng):
    spans = [m.span() for m in TOKEN.finditer(text)]
    if not spans:
        return text
    for _ in range(rng.randint(1, 3)):
        spans = [m.span() for m in TOKEN.finditer(text)]
        if not spans:
            break
        start, end = rng.choice(spans)
        token = text[start:end]
        kind = rng.randrange(5)
        if kind == 0:
            text = text[:start] + text[end:]
        elif kind == 1:
            text = text[:end] + " " + token + text[end:]
        elif kind == 2:
            text = text[:start] + rng.choice(REPLACEMENTS) + text[end:]
        elif kind == 3:
            other_start, other_end = rng.choice(spans)
            other = text[other_start:other_end]
            text = text[:start] + other + text[end:]
        else:
            text = text[:rng.randint(0, len(text))]
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sources = list(chunks(args.inputs))
    mutants = [mutate(rng.choice(sources), rng) for _ in range(args.count)]
    print("\n// -----\n".join(mutants))


if __name__ == "__main__":
    main()
