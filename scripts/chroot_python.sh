#!/usr/bin/env bash
# Debian 13's python3.13 (the trixie chroot's, scripts/debian_chroot.sh) as a program of this machine:
# the stable-ABI wheel's build interpreter (scripts/build_wheel.sh --abi3).
#
#   scripts/chroot_python.sh --print-wrapper   makes build/abi3-python/bin/python3.13, prints its path
#   scripts/chroot_python.sh --print-include   prints an include folder with trixie's Python.h
#
# Why not chroot: the compiler, CMake and glibc that build the wheel must be this machine's (the wheel
# is manylinux_2_35: built against glibc 2.35/2.36 and GCC 12's libstdc++; inside trixie it would need
# glibc 2.41). Why not run trixie's binary directly: it needs trixie's glibc. So the wrapper starts it
# with the chroot's own dynamic loader and libraries (ld.so --library-path), PYTHONHOME pointing into
# the chroot, and --argv0 naming the wrapper, so sys.executable is the wrapper and every Python that
# pip, scikit-build-core and CMake's FindPython start is started the same way. Programs it starts
# (cmake, gcc, ccache) are this machine's: the loader path is not inherited.
# Nothing is installed on this machine; needs root once, to make the chroot.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/debian_chroot.sh"
# python3-venv and python3-numpy: the abi3 wheel's smoke test runs in the same chroot.
chroot_dir=$(chroot_ensure trixie python3.13 libpython3.13-dev python3-venv python3-numpy)
out=$root/build/abi3-python
mkdir -p "$out/bin"

case ${1:-} in
  --print-wrapper)
    wrapper=$out/bin/python3.13
    cat > "$wrapper.tmp" <<EOF
#!/bin/sh
# Made by scripts/chroot_python.sh: trixie's python3.13 from $chroot_dir, on this machine.
PYTHONHOME=$chroot_dir/usr exec $chroot_dir/lib64/ld-linux-x86-64.so.2 \\
  --library-path $chroot_dir/usr/lib/x86_64-linux-gnu:$chroot_dir/lib/x86_64-linux-gnu \\
  --argv0 "\$0" $chroot_dir/usr/bin/python3.13 "\$@"
EOF
    chmod +x "$wrapper.tmp"
    mv "$wrapper.tmp" "$wrapper"
    "$wrapper" -c "import sys; assert sys.version_info[:2] == (3, 13), sys.version" >&2
    echo "$wrapper"
    ;;
  --print-include)
    # Debian's /usr/include/python3.13/pyconfig.h includes <x86_64-linux-gnu/python3.13/pyconfig.h>
    # from the system's include path; this folder holds trixie's headers with that one resolved, so
    # no other trixie header (glibc's) is ever on the compiler's path.
    inc=$out/include/python3.13
    rm -rf "$inc"
    mkdir -p "$inc"
    for f in "$chroot_dir"/usr/include/python3.13/*; do ln -s "$f" "$inc/"; done
    rm "$inc/pyconfig.h"
    ln -s "$chroot_dir/usr/include/x86_64-linux-gnu/python3.13/pyconfig.h" "$inc/pyconfig.h"
    echo "$inc"
    ;;
  *)
    echo "usage: scripts/chroot_python.sh --print-wrapper | --print-include" >&2
    exit 2
    ;;
esac
