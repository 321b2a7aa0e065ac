#!/bin/sh
# `make check-arm64`: orientd for arm64 (the phones), built with Debian 13's
# own Swift and run under qemu-user.
#
#  - Two cached trixie roots (root.sh: outside the work tree, in
#    $ORIENTD_CI_CACHE/trixie): amd64 (make check-trixie's) and arm64
#    (debootstrapped through qemu-user), each with swiftlang and the build
#    dependencies of its architecture, each used through a writable layer
#    (.build/trixie/layer-amd64, layer-arm64; emptied at each run).
#  - Cross-compiled in the amd64 root with the amd64 swiftlang 6.0.3, the arm64
#    root as the SDK (--triple aarch64-unknown-linux-gnu --sdk, the arm64
#    swiftlang's resource directory for the aarch64 Swift modules, lld,
#    pkg-config pointed into the arm64 root):
#      release   the static release build make install builds (every flag of
#                Package.swift's release link)
#      tests     the debug build with the tests
#  - Run in the arm64 root under qemu-aarch64: the release orientd --version
#    is an aarch64 ELF and names the version, a --mock replay answers orientctl,
#    and the Swift tests pass (swift-testing's summary: N tests, no issue).
#
# Each step's time is printed; exits 1 with the reason on the first failure.
# Needs root (debootstrap, chroot, binfmt_misc) and qemu-user-static; it mounts
# binfmt_misc and registers qemu-aarch64 (with the F flag, for chroots) when
# they are not there yet.
#
#   scripts/trixie/arm64.sh [STEP...]   steps: release tests (default: both)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root.sh"
repo=$(cd "$here/../.." && pwd)
work="$repo/.build/trixie"
scratch="$work/arm64"
steps=${*:-release tests}
name=check-arm64
fail() {
    echo "$name: FAILED: $*" >&2
    exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, binfmt_misc)"
command -v debootstrap >/dev/null || fail "debootstrap is missing (Debian: debootstrap)"
trixie_binfmt "$name"

start=$(date +%s)
trixie_root "$name" trixie/root-amd64 amd64 "$trixie_build_packages"
trixie_overlay "$trixie_root_dir" "$work/layer-amd64"
root="$work/layer-amd64/merged" options=$trixie_overlay_options
# The SDK is the cached arm64 root itself, read-only.
trixie_root "$name" trixie/root-arm64 arm64 "$trixie_build_packages"
sdk=$trixie_root_dir
trixie_overlay "$trixie_root_dir" "$work/layer-arm64"
root64="$work/layer-arm64/merged" options64=$trixie_overlay_options
echo "$name: roots ready in $(($(date +%s) - start)) s"
mkdir -p "$scratch"

# The cross build: the arm64 root is the SDK at /sysroot inside the amd64 root.
# $1 is the static or shared resource directory of the arm64 swiftlang.
cross=$(cat <<CROSS
set -eu
cd "$repo"
export HOME=/root
export PKG_CONFIG_SYSROOT_DIR=/sysroot
export PKG_CONFIG_LIBDIR=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig
cross() {
    resources=\$1; shift
    swift build --scratch-path "$scratch" --triple aarch64-unknown-linux-gnu --sdk /sysroot \
        -Xswiftc -sdk -Xswiftc /sysroot -Xswiftc -resource-dir -Xswiftc "/sysroot/usr/libexec/swift/lib/\$resources" \
        -Xswiftc -use-ld=lld -Xcc --sysroot=/sysroot "\$@"
}
step() {
    label=\$1; shift
    echo "$name: \$label: \$*"
    t=\$(date +%s)
    if "\$@"; then echo "$name: \$label: ok in \$((\$(date +%s) - t)) s"; else echo "$name: \$label: FAILED after \$((\$(date +%s) - t)) s" >&2; exit 1; fi
}
swift --version 2>&1 | head -1
for s in $steps; do
    case \$s in
    release) step "cross release" cross swift_static -c release --static-swift-stdlib ;;
    tests) step "cross build-tests" cross swift --build-tests ;;
    *) echo "$name: unknown step \$s (release, tests)" >&2; exit 2 ;;
    esac
done
CROSS
)
unshare --mount --propagation private sh -c '
    set -e
    root=$1 sdk=$2 repo=$3 options=$4; shift 4
    mount -t overlay overlay -o "$options" "$root"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    mkdir -p "$root$repo" "$root/sysroot"
    mount --bind "$repo" "$root$repo"
    mount --bind -o ro "$sdk" "$root/sysroot"
    exec chroot "$root" /bin/sh -c "$1"
' "$name" "$root" "$sdk" "$repo" "$options" "$cross" || fail "the cross build failed"

# Under qemu-aarch64, in the arm64 root.
bin="$scratch/aarch64-unknown-linux-gnu"
run=$(cat <<RUN
set -eu
cd "$repo"
export HOME=/root
echo "$name: uname -m in the arm64 root: \$(uname -m)"
step() {
    label=\$1; shift
    echo "$name: \$label: \$*"
    t=\$(date +%s)
    if "\$@"; then echo "$name: \$label: ok in \$((\$(date +%s) - t)) s"; else echo "$name: \$label: FAILED after \$((\$(date +%s) - t)) s" >&2; exit 1; fi
}
for s in $steps; do
    case \$s in
    release)
        step "release smoke (qemu)" debian/smoke "$bin/release" ;;
    tests)
        # The cross build's RUNPATH names the SDK's Swift runtime (/sysroot/…);
        # here it is the arm64 swiftlang's own.
        export LD_LIBRARY_PATH=/usr/libexec/swift/lib/swift/linux
        export ORIENTD_BINARY="$bin/debug/orientd" ORIENTCTL_BINARY="$bin/debug/orientctl"
        # qemu-user's TCG is about 20 times slower than this machine's CPU
        # (docs/packaging.md: a debug build 19 times, the 40,000-reading
        # watcher test ~17 times). The tests multiply the budgets that are
        # pure CPU speed, and only those, by this one factor.
        export ORIENTD_TEST_SLOWDOWN=${ORIENTD_TEST_SLOWDOWN:-20}
        # Every test is a swift-testing one (XCTest would run none). One at a
        # time, as make check runs them: in parallel on 2 cores under qemu the
        # integration tests, which block on child processes, starved the
        # others past their time limits. Passes only on the summary line of a
        # run with tests and no issue.
        log="$scratch/swift-testing.log"
        t=\$(date +%s)
        echo "$name: swift-testing (qemu): orientdPackageTests.xctest --testing-library swift-testing --no-parallel (log: \$log)"
        "$bin/debug/orientdPackageTests.xctest" --testing-library swift-testing --no-parallel >"\$log" 2>&1 && status=0 || status=\$?
        summary=\$(grep -E '^[^ ]+ Test run with [0-9]+ tests? ' "\$log" | tail -1)
        issues=\$(grep -E '^[^ ]+ Test ".*" recorded an issue' "\$log" | sed -E 's/^[^ ]+ Test "(.*)" recorded an issue at ([^:]*:[0-9]+).*/  \\1 (\\2)/' | sort -u)
        skipped=\$(grep -cE '^[^ ]+ Test ".*" skipped' "\$log" || true)
        echo "$name: swift-testing (qemu): exit \$status after \$((\$(date +%s) - t)) s: \${summary:-no summary line}; \$skipped skipped"
        if [ "\$status" != 0 ] || [ -n "\$issues" ] || ! echo "\$summary" | grep -qE 'Test run with [1-9][0-9]* tests? passed'; then
            echo "$name: swift-testing (qemu): FAILED; the tests with issues:" >&2
            echo "\${issues:-  (none named; see the log)}" >&2
            exit 1
        fi ;;
    esac
done
RUN
)
for f in release/orientd release/orientctl; do
    case " $steps " in *" release "*) ;; *) continue ;; esac
    file_out=$(od -An -tx1 -j18 -N2 "$bin/$f" | tr -d ' ')
    [ "$file_out" = b700 ] || fail "$bin/$f is not an aarch64 ELF (e_machine $file_out)"
    echo "$name: $f: aarch64 ELF, $(stat -c %s "$bin/$f") bytes"
done
unshare --mount --propagation private sh -c '
    set -e
    root64=$1 repo=$2 options=$3; shift 3
    mount -t overlay overlay -o "$options" "$root64"
    mount -t proc proc "$root64/proc"
    mount --rbind /sys "$root64/sys"
    mount --rbind /dev "$root64/dev"
    mount -t tmpfs tmpfs "$root64/tmp"
    mkdir -p "$root64$repo"
    mount --bind "$repo" "$root64$repo"
    exec chroot "$root64" /bin/sh -c "$1"
' "$name" "$root64" "$repo" "$options64" "$run" || fail "under qemu-aarch64"
echo "$name: ok in $(($(date +%s) - start)) s"
