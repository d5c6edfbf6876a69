#!/usr/bin/env python3
"""Writes pw-opt-fuzzer's seed corpus: every module of the MLIR tests.

Each `.mlir` file under test/ is split at `// -----` (pw-opt's
--split-input-file marker) and every chunk becomes one file of the output
directory, named after its source. The corpus is built, not committed, so
that it follows the tests.

    seed_corpus.py OUTPUT_DIR [--tests test/]
"""

import argparse
import hashlib
import re
import sys
from pathlib import Path

SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
TESTS = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--tests", type=Path, default=TESTS)
    args = parser.parse_args(argv)

    args.output.mkdir(parents=True, exist_ok=True)
    written = set()
    for source in sorted(args.tests.rglob("*.mlir")):
        stem = "-".join(source.relative_to(args.tests).with_suffix("").parts)
        for number, chunk in enumerate(SPLIT.split(source.read_text())):
            if not chunk.strip():
                continue
            digest = hashlib.sha1(chunk.encode()).hexdigest()
            if digest in written:
                continue
            written.add(digest)
            (args.output / f"{stem}-{number}.mlir").write_text(chunk)
    print(f"seed corpus: {len(written)} modules in {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
