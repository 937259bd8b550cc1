"""The `sluice` command: `sluice bench ...` runs the main benchmark (see sluice.bench)."""
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: sluice bench [options]   (sluice bench --help for the options)")
        return 0 if argv else 2
    if argv[0] == "bench":
        from .bench import main as bench_main

        return bench_main(argv[1:])
    print(f"sluice: unknown command '{argv[0]}' (available: bench)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
