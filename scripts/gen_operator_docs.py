#!/usr/bin/env python3
"""Writes docs/operators.md, the operator reference, from the C++ registry's schemas.

    PYTHONPATH=python .venv/bin/python scripts/gen_operator_docs.py          # rewrite the file
    PYTHONPATH=python .venv/bin/python scripts/gen_operator_docs.py --check  # exit 1 if it is stale

Uses the built extension (sluice._sluice): build it first (make build). The test-only operators of
development builds (testing.*) are left out. Write it from a build with the CUDA backend, so that the
gpu and mixed devices are listed; a CPU-only build can check it (without those devices).
python/tests/test_operator_docs.py runs the check.
"""
import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "operators.md"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the checked-in file instead of writing it")
    ap.add_argument("--cpu-only", action="store_true", help="write from a build without CUDA (cpu devices only)")
    ap.add_argument("--output", type=pathlib.Path, default=DOC)
    args = ap.parse_args(argv)
    from sluice.tools import opdocs

    from sluice import _sluice

    if args.check:
        if not args.output.exists() or not opdocs.is_current(args.output.read_text(encoding="utf-8")):
            print(f"{args.output} is stale: run scripts/gen_operator_docs.py", file=sys.stderr)
            return 1
        return 0
    if not _sluice.cuda_built and not args.cpu_only:
        print("this build has no CUDA backend, so the gpu and mixed devices would be missing: build with "
              "CUDA (make build, where nvcc is found), or pass --cpu-only", file=sys.stderr)
        return 2
    text = opdocs.markdown()
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
