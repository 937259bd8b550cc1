#!/usr/bin/env python3
"""Fails (exit 1) when a file under src/ includes a layer above its own.

The layers, bottom up: core -> kernels -> operators -> readers, and operators -> pipeline -> api.
Run by the build before any layer compiles (CMakeLists.txt), so an upward include breaks the build.
Usage: check_layers.py SRC_DIR
"""
import pathlib
import re
import sys

# Each layer and the layers it may include (itself included).
ALLOWED = {
    "core": {"core"},
    "kernels": {"core", "kernels"},
    "operators": {"core", "kernels", "operators"},
    "readers": {"core", "kernels", "operators", "readers"},
    "pipeline": {"core", "kernels", "operators", "pipeline"},
    "api": {"core", "kernels", "operators", "readers", "pipeline", "api"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)


def violations(src):
    out = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in {".h", ".cc", ".cu", ".cuh", ".inl"}:
            continue
        layer = path.relative_to(src).parts[0]
        if layer not in ALLOWED:
            continue
        for m in INCLUDE.finditer(path.read_text(encoding="utf-8", errors="replace")):
            target = m.group(1)
            if target in ALLOWED and target not in ALLOWED[layer]:
                line = path.read_text(encoding="utf-8", errors="replace")[: m.start()].count("\n") + 1
                out.append(f"{path}:{line}: the {layer} layer includes {target}/ (allowed: {', '.join(sorted(ALLOWED[layer]))})")
    return out


def main():
    src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src")
    bad = violations(src)
    for v in bad:
        print(v, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
