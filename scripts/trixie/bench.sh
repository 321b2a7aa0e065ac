#!/bin/sh
# `make bench-trixie`: scripts/bench/bench.py on Debian 13 (trixie): orientd
# built there with Debian's own Swift (swiftlang 6.0.3) against trixie's
# libsystemd (257), and trixie's iio-sensor-proxy (3.7) as the peer, on the
# same umockdev-faked devices as `make bench`.
#
# A minimal trixie root with swiftlang, the build dependencies and what
# bench.py needs (root.sh: debootstrapped once, cached outside the work tree in
# $ORIENTD_CI_CACHE/trixie/bench-amd64, apart from check-trixie's root) is used
# through a writable layer (.build/trixie-bench/layer, emptied at each run);
# every package is checked at each run and whatever is missing is installed
# (a run never goes on without one). The work tree is bind-mounted into it at
# its own path, and inside it, in a private mount namespace with /proc, /sys,
# /dev and a fresh /tmp:
#
#   swift build -c release --static-swift-stdlib     as `make install` builds it
#   (cd Benchmarks && swift build -c release)        only when bench.py's parts need it
#   ldd orientd                                      what the trixie build links
#   umockdev-wrapper /usr/bin/python3 scripts/bench/bench.py ARGS...
#
# with the scratch paths .build/trixie-bench/scratch and
# .build/trixie-bench/benchmarks, so the host's .build is left to the host's
# toolchain. The JSON goes to $BENCH_OUT (default .build/trixie-bench/bench.json).
#
#   scripts/trixie/bench.sh [BENCH.PY ARGS...]     default: --only sensors
#   scripts/trixie/bench.sh --only sensors --memory-only
#   ORIENTD=$PWD/.build/release/orientd scripts/trixie/bench.sh --memory-only
#
# Exits 1 when a key of the parts run is null (bench.py's `reasons`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root.sh"
repo=$(cd "$here/../.." && pwd)
work="$repo/.build/trixie-bench"
scratch="$work/scratch"
bench_scratch="$work/benchmarks"
# Building (scripts/trixie/run.sh's list) and benchmarking (bench.py's
# imports and tools: the peer, a bus, umockdev and its GObject bindings,
# python-dbusmock for the peer's polkit, strace for the polls).
build_packages="swiftlang pkg-config libudev-dev libsystemd-dev libevdev-dev libstdc++-14-dev libc6-dev udev"
bench_packages="iio-sensor-proxy dbus-daemon umockdev gir1.2-umockdev-1.0 python3-gi python3-dbusmock python3-dbus strace"
packages="$build_packages $bench_packages"
[ $# -gt 0 ] || set -- --only sensors
out=${BENCH_OUT:-$work/bench.json}
# ORIENTD=PATH (inside the work tree) benchmarks another build of orientd in
# the root, e.g. the host's .build/release/orientd: the same binary on trixie's
# libraries. The trixie build is made either way.
orientd=${ORIENTD:-$scratch/release/orientd}

[ "$(id -u)" = 0 ] || { echo "bench-trixie: needs root (debootstrap, chroot)" >&2; exit 1; }

# Benchmarks' executables are needed by the classifier and fan-out parts only:
# every part runs without --only, --memory-only runs neither.
benchmarks=yes
only=no memory_only=no needed=no prev=
for arg in "$@"; do
    case $arg in
    --memory-only) memory_only=yes ;;
    --only=*) only=yes; case ${arg#--only=} in classifier|fanout) needed=yes ;; esac ;;
    esac
    if [ "$prev" = --only ]; then
        only=yes
        case $arg in classifier|fanout) needed=yes ;; esac
    fi
    prev=$arg
done
if [ $memory_only = yes ] || { [ $only = yes ] && [ $needed = no ]; }; then
    benchmarks=no
fi

command -v debootstrap >/dev/null || { echo "bench-trixie: debootstrap is missing (Debian: debootstrap)" >&2; exit 1; }
trixie_root bench-trixie trixie/bench-amd64 amd64 "$packages"
trixie_overlay "$trixie_root_dir" "$work/layer"
root="$work/layer/merged"
mkdir -p "$scratch" "$bench_scratch"

# Inside, as root of the chroot: install what is missing, build, run.
inside=$(cat <<INSIDE
set -eu
missing=""
for p in $packages; do
    dpkg-query -W -f='\${Status}' "\$p" 2>/dev/null | grep -q "install ok installed" || missing="\$missing \$p"
done
if [ -n "\$missing" ]; then
    echo "bench-trixie: installing in the trixie root:\$missing"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \$missing \
        && apt-get clean; } >"$work/apt.log" 2>&1 || {
        tail -20 "$work/apt.log" >&2
        echo "bench-trixie: installing\$missing failed (log: $work/apt.log)" >&2
        exit 1
    }
fi
cd "$repo"
export HOME=/root
echo "bench-trixie: \$(swift --version 2>&1 | head -1)"
echo "bench-trixie: \$(dpkg-query -W -f='iio-sensor-proxy \${Version}, libsystemd0 ' iio-sensor-proxy)\$(dpkg-query -W -f='\${Version}' libsystemd0)"
swift build --scratch-path "$scratch" -c release --static-swift-stdlib
if [ $benchmarks = yes ]; then
    rm -f "$bench_scratch/release/description.json"
    (cd Benchmarks && swift build --scratch-path "$bench_scratch" -c release)
fi
export ORIENTD="$orientd" BENCH_BIN_DIR="$bench_scratch/release" BENCH_OUT="$out"
echo "bench-trixie: ldd $orientd"
ldd "$orientd"
umockdev-wrapper /usr/bin/python3 scripts/bench/bench.py "\$@"
# A key left null for any reason but the parts not run is a failure here.
/usr/bin/python3 - "$out" <<'CHECK'
import json, sys
reasons = json.load(open(sys.argv[1])).get("reasons", {})
failed = {k: r for k, r in reasons.items() if not r.startswith(("not run", "not measured"))}
for key, reason in failed.items():
    print(f"bench-trixie: {key} not measured: {reason}", file=sys.stderr)
sys.exit(1 if failed else 0)
CHECK
INSIDE
)

# A private mount namespace: the mounts go away with it, whatever happens.
exec unshare --mount --propagation private sh -c '
    set -e
    root=$1 repo=$2 inside=$3 options=$4; shift 4
    mount -t overlay overlay -o "$options" "$root"
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    mkdir -p "$root$repo"
    mount --bind "$repo" "$root$repo"
    exec chroot "$root" /bin/sh -c "$inside" bench-trixie "$@"
' bench-trixie "$root" "$repo" "$inside" "$trixie_overlay_options" "$@"
