#!/bin/sh
# `make check-trixie`: builds and tests orientd with Debian 13's own Swift
# (swiftlang 6.0.3, built with assertions on), the oldest toolchain supported.
# A minimal trixie root with swiftlang and the build dependencies
# (scripts/trixie/root.sh: debootstrapped once, cached outside the work tree in
# $ORIENTD_CI_CACHE/trixie/root-amd64) is used through a writable layer
# (.build/trixie/layer, emptied at each run); the work tree is bind-mounted
# into it at its own path, and inside it, in a private mount namespace with
# /proc, /sys and /dev:
#
#   swift build                                      the debug build
#   swift build -c release --static-swift-stdlib     what `make install` builds
#   swift build --build-tests && swift test          the Swift tests
#
# with the scratch path .build/trixie/scratch, so the host's .build is left to
# the host's toolchain. Each step's time is printed; exits 1 on the first failure.
#
#   scripts/trixie/run.sh [STEP...]   steps: debug release tests (default: all);
#                                     build-tests, the first half of tests alone
#                                     (CI builds them early, beside make check)
#   SWIFT_FLAGS="-Xswiftc -warnings-as-errors" scripts/trixie/run.sh
#   TOOLCHAIN=/opt/swift scripts/trixie/run.sh   another toolchain on Debian 13:
#       the directory holding usr/bin/swift (swift.org's 6.3.1 for Debian 12
#       runs on trixie's libraries), bind-mounted read-only at the same path,
#       with its own scratch path (.build/trixie/scratch-VERSION)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root.sh"
repo=$(cd "$here/../.." && pwd)
work="$repo/.build/trixie"
scratch="$work/scratch"
steps=${*:-debug release tests}
flags=${SWIFT_FLAGS:-}
toolchain=${TOOLCHAIN:-}
swift=swift
if [ -n "$toolchain" ]; then
    toolchain=$(cd "$toolchain" && pwd) || { echo "check-trixie: TOOLCHAIN=$TOOLCHAIN: no such directory" >&2; exit 1; }
    [ -x "$toolchain/usr/bin/swift" ] || { echo "check-trixie: TOOLCHAIN=$toolchain has no usr/bin/swift" >&2; exit 1; }
    swift=$toolchain/usr/bin/swift
    version=$("$swift" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -1)
    [ -n "$version" ] || { echo "check-trixie: $swift --version names no version" >&2; exit 1; }
    scratch="$work/scratch-$version"
fi

[ "$(id -u)" = 0 ] || { echo "check-trixie: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "check-trixie: debootstrap is missing (Debian: debootstrap)" >&2; exit 1; }

trixie_root check-trixie trixie/root-amd64 amd64 "$trixie_build_packages"
trixie_overlay "$trixie_root_dir" "$work/layer"
root="$work/layer/merged"
mkdir -p "$scratch"

# Inside: each step timed; the tests run the binaries this toolchain built.
inside=$(cat <<INSIDE
set -eu
cd "$repo"
export HOME=/root ORIENTD_BINARY="$scratch/debug/orientd" ORIENTCTL_BINARY="$scratch/debug/orientctl"
step() {
    name=\$1; shift
    echo "check-trixie: \$name: \$*"
    start=\$(date +%s)
    if "\$@"; then
        echo "check-trixie: \$name: ok in \$((\$(date +%s) - start)) s"
    else
        echo "check-trixie: \$name: FAILED after \$((\$(date +%s) - start)) s" >&2
        exit 1
    fi
}
$swift --version 2>&1 | head -1
for s in $steps; do
    case \$s in
    debug) step debug $swift build --scratch-path "$scratch" $flags ;;
    release) step release $swift build --scratch-path "$scratch" -c release --static-swift-stdlib $flags ;;
    build-tests) step build-tests $swift build --scratch-path "$scratch" --build-tests $flags ;;
    tests)
        step build-tests $swift build --scratch-path "$scratch" --build-tests $flags
        # One at a time, as make check runs them: in parallel on 2 cores the
        # integration tests, which block on child processes, starve the
        # client library's async tests past their timeouts.
        step test $swift test --scratch-path "$scratch" --skip-build --no-parallel ;;
    *) echo "check-trixie: unknown step \$s (debug, release, build-tests, tests)" >&2; exit 2 ;;
    esac
done
INSIDE
)

# A private mount namespace: the mounts go away with it, whatever happens.
exec unshare --mount --propagation private sh -c '
    set -e
    root=$1 repo=$2 toolchain=$3 inside=$4
    mount -t overlay overlay -o "$5" "$root"
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    # After the tmpfs: a work tree under /tmp (a CI checkout) needs its mount point there.
    mkdir -p "$root$repo"
    mount --bind "$repo" "$root$repo"
    if [ -n "$toolchain" ]; then
        mkdir -p "$root$toolchain"
        mount --bind -o ro "$toolchain" "$root$toolchain"
    fi
    exec chroot "$root" /bin/sh -c "$inside"
' check-trixie "$root" "$repo" "$toolchain" "$inside" "$trixie_overlay_options"
