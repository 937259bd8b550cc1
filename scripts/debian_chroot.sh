#!/usr/bin/env bash
# Debian chroots for the wheel matrix (scripts/test_wheel_matrix.sh), the stable-ABI wheel's build
# interpreter (scripts/build_wheel.sh --abi3) and CI's abi3 smoke test. Sourced, not run:
#
#   source scripts/debian_chroot.sh
#   dir=$(chroot_ensure trixie python3 python3-venv ...)   # make or reuse; install what is missing
#   chroot_run "$dir" bash -c '...'                         # /proc, /dev, /dev/shm mounted meanwhile
#
# A chroot is `debootstrap --variant=minbase` of the suite, made once and kept under
# $SLUICE_CHROOT_CACHE (default /var/cache/sluice-chroots/<suite>-<arch>), so a rerun (and CI on this
# machine) reuses it; packages are added with apt-get inside it when a caller names one it lacks.
# pip inside it needs this machine's pip configuration and CA bundle (the PIP_* environment variables
# and /etc/pip.conf name them) and /etc/resolv.conf: chroot_ensure copies them in each time.
# Needs root (debootstrap, chroot, mount).

SLUICE_CHROOT_CACHE=${SLUICE_CHROOT_CACHE:-/var/cache/sluice-chroots}
SLUICE_DEBIAN_MIRROR=${SLUICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The host's files that pip, apt and TLS inside the chroot need, copied to the same paths.
_chroot_copy_host_config() {
  local dir=$1 f
  # /etc/hosts: this machine's own name (torchrun's ranks connect to it by name).
  local files=(/etc/resolv.conf /etc/hosts /etc/pip.conf "${PIP_CERT:-}" "${PIP_CONFIG_FILE:-}" "${SSL_CERT_FILE:-}"
               "${REQUESTS_CA_BUNDLE:-}")
  for f in "${files[@]}"; do
    [ -n "$f" ] && [ -f "$f" ] || continue
    mkdir -p "$dir$(dirname "$f")"
    cp -L "$f" "$dir$f"
  done
  # PIP_FIND_LINKS names a local folder of wheels: the same folder inside (bind-mounting is not needed:
  # it is a cache of a few files where it exists at all).
  if [ -n "${PIP_FIND_LINKS:-}" ] && [ -d "$PIP_FIND_LINKS" ]; then
    mkdir -p "$dir$PIP_FIND_LINKS"
    cp -a "$PIP_FIND_LINKS/." "$dir$PIP_FIND_LINKS/"
  fi
}

# chroot_ensure SUITE [PACKAGE...] -> prints the chroot's directory. Arch: $CHROOT_ARCH (default amd64).
chroot_ensure() {
  mkdir -p "$SLUICE_CHROOT_CACHE"
  # One caller at a time per chroot (two apt-gets in one chroot fail on dpkg's lock): the subshell
  # holds the lock until it ends, whichever way.
  (
    flock 9
    _chroot_ensure_locked "$@"
  ) 9> "$SLUICE_CHROOT_CACHE/${1}-${CHROOT_ARCH:-amd64}.lock"
}

_chroot_ensure_locked() {
  local suite=$1; shift
  local arch=${CHROOT_ARCH:-amd64}
  local dir=$SLUICE_CHROOT_CACHE/$suite-$arch
  if [ ! -f "$dir/.sluice-chroot-ready" ]; then
    command -v debootstrap > /dev/null ||
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2
    rm -rf "$dir.tmp"
    echo "== debootstrap --variant=minbase $suite ($arch) into $dir" >&2
    local t0=$SECONDS
    # Made aside and moved in place when complete: an interrupted debootstrap is never reused.
    # The first caller's packages come with debootstrap (one download and unpack, no apt-get update).
    local include=ca-certificates p
    for p in "$@"; do include+=",$p"; done
    debootstrap --variant=minbase --arch="$arch" --include="$include" "$suite" "$dir.tmp" \
      "$SLUICE_DEBIAN_MIRROR" > "$SLUICE_CHROOT_CACHE/$suite-$arch.debootstrap.log" 2>&1 || {
      tail -20 "$SLUICE_CHROOT_CACHE/$suite-$arch.debootstrap.log" >&2
      return 1
    }
    mv "$dir.tmp" "$dir"
    touch "$dir/.sluice-chroot-ready"
    echo "== debootstrap $suite: $((SECONDS - t0)) s" >&2
  fi
  _chroot_copy_host_config "$dir"
  local missing=() p
  for p in "$@"; do
    chroot "$dir" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== apt-get install in $suite: ${missing[*]}" >&2
    local t0=$SECONDS
    # sid's Release file carries a Valid-Until a few days ahead; a machine whose clock runs past the
    # mirror's last sync would refuse it, and the packages are still checked against their signatures.
    chroot "$dir" env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Check-Valid-Until=false update -q > /dev/null
    chroot "$dir" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
      > "$SLUICE_CHROOT_CACHE/$suite-$arch.apt.log" 2>&1 || {
      tail -20 "$SLUICE_CHROOT_CACHE/$suite-$arch.apt.log" >&2
      return 1
    }
    chroot "$dir" apt-get clean
    echo "== apt-get install in $suite: $((SECONDS - t0)) s" >&2
  fi
  echo "$dir"
}

# chroot_run DIR COMMAND... : runs COMMAND inside DIR with /proc, /dev and /dev/shm mounted (venv,
# multiprocessing and torchrun need them), and the source checkout ($CHROOT_SRC, when set) read-only
# at /mnt/sluice; all unmounted again however COMMAND ends. The environment passes through (PIP_*,
# the CA variables), less the host's PATH, PYTHONPATH and virtualenv.
chroot_run() {
  local dir=$1; shift
  local m mounted=()
  for m in proc dev dev/shm ${CHROOT_SRC:+mnt/sluice}; do
    mkdir -p "$dir/$m"
    if ! mountpoint -q "$dir/$m"; then
      case $m in
        proc) mount -t proc proc "$dir/proc" ;;
        dev) mount --bind /dev "$dir/dev" ;;
        dev/shm) mount -t tmpfs -o size=2g shm "$dir/dev/shm" ;;
        mnt/sluice) mount --bind "$CHROOT_SRC" "$dir/mnt/sluice" && mount -o remount,bind,ro "$dir/mnt/sluice" ;;
      esac
      mounted=("$dir/$m" "${mounted[@]}")
    fi
  done
  local rc=0
  chroot "$dir" /usr/bin/env -u PYTHONPATH -u VIRTUAL_ENV -u PYTHONHOME HOME=/root \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@" || rc=$?
  for m in "${mounted[@]}"; do umount "$m" || umount -l "$m"; done
  return $rc
}
