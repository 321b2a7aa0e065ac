#!/bin/sh
# `make deb`: orientd's Debian package, built with Debian 13's own Swift
# (swiftlang 6.0.3) in the trixie root make check-trixie uses (root.sh:
# debootstrapped once, cached outside the work tree; used through a writable
# layer in .build/deb/layer, emptied at each run, so the cache is never
# written), and checked with trixie's lintian.
#
#  1. The work tree's files (tracked and untracked, not ignored: what a clean
#     clone plus your edits holds) are copied to .build/deb/src/orientd-VERSION.
#  2. Inside the root (a private mount namespace: /proc, /dev; the root's own
#     /tmp), which has debhelper, dpkg-dev and lintian: the Build-Depends of
#     debian/control checked (dpkg-checkbuilddeps; apt-get build-dep only when
#     some are missing).
#  3. dpkg-buildpackage -b -us -uc as an unprivileged user whose home is
#     /nonexistent, HOME=/nonexistent: debian/rules puts
#     HOME, SwiftPM's caches and TMPDIR in the source tree. Afterwards, any file
#     the build created or changed outside .build/deb fails the target, by name.
#  4. lintian --fail-on error,warning, info and pedantic tags shown.
#
# The .deb, .changes and .buildinfo go to .build/deb/. Exits 1 with the reason
# on any failure; each step's time is printed.
#
#   scripts/trixie/deb.sh          amd64, in .build/deb/
#   scripts/trixie/deb.sh arm64    arm64, in .build/deb/arm64/: orientd and
#                                  orientctl cross-compiled by make
#                                  check-arm64's release step, packaged in the
#                                  arm64 root under qemu-user
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root.sh"
repo=$(cd "$here/../.." && pwd)
arch=${1:-amd64}
case $arch in
amd64) out="$repo/.build/deb" name=make-deb ;;
arm64) out="$repo/.build/deb/arm64" name=make-deb-arm64 ;;
*) echo "make-deb: the architecture is amd64 or arm64, not $arch" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || { echo "$name: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "$name: debootstrap is missing (Debian: debootstrap)" >&2; exit 1; }
command -v git >/dev/null || { echo "$name: git is missing (Debian: git); it lists the files to package" >&2; exit 1; }

start=$(date +%s)
prebuilt=""
if [ "$arch" = arm64 ]; then
    # The binaries cross-compiled by make check-arm64's release step (which
    # also runs their smoke test under qemu); the packaging runs in the arm64
    # root under qemu-user.
    trixie_binfmt "$name"
    "$here/arm64.sh" release
    prebuilt="$repo/.build/trixie/arm64/aarch64-unknown-linux-gnu/release"
fi
trixie_root "$name" "trixie/root-$arch" "$arch" "$trixie_build_packages"
echo "$name: root ready in $(($(date +%s) - start)) s"

version=$(sed -n '1s/^orientd (\([^)]*\)).*/\1/p' "$repo/debian/changelog")
[ -n "$version" ] || { echo "$name: no version in the first line of debian/changelog" >&2; exit 1; }
src="$out/src/orientd-$version"
rm -rf "$out/src" "$out/layer" "$out"/orientd*_"$arch".deb "$out"/orientd_*_"$arch".changes "$out"/orientd_*_"$arch".buildinfo
mkdir -p "$src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh \
    | tar --null -T - -c) | tar -C "$src" -x
trixie_overlay "$trixie_root_dir" "$out/layer"
root="$out/layer/merged"
env=""
if [ -n "$prebuilt" ]; then
    mkdir -p "$src/.prebuilt"
    cp "$prebuilt/orientd" "$prebuilt/orientctl" "$src/.prebuilt/"
    env="ORIENTD_PREBUILT_RELEASE=.prebuilt"  # outside .build, which debian/rules clean removes
fi

inside=$(cat <<INSIDE
set -eu
cd /build/src/orientd-$version
if ! dpkg-checkbuilddeps >/build/checkbuilddeps.log 2>&1; then
    echo "$name: installing the missing Build-Depends: \$(cat /build/checkbuilddeps.log)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends . >/build/build-dep.log 2>&1 || {
        tail -20 /build/build-dep.log >&2; echo "$name: apt-get build-dep failed" >&2; exit 1; }
    apt-get clean
fi
# An unprivileged builder (Rules-Requires-Root: no), as Debian's buildds
# build: Swift's Foundation takes root's home from the password database, not
# from HOME, and SwiftPM would write ~/.swiftpm there.
id -u orientd-build >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin orientd-build
chown -R orientd-build: /build/src
swift=\$(swift --version 2>&1 | head -1)
touch /build/.stamp
sleep 1
step=\$(date +%s)
echo "$name: dpkg-buildpackage -b -us -uc (Debian's swiftlang: \$swift)"
if ! setpriv --reuid orientd-build --regid orientd-build --init-groups env HOME=/nonexistent $env dpkg-buildpackage -b -us -uc >/build/build.log 2>&1; then
    tail -40 /build/build.log >&2
    echo "$name: dpkg-buildpackage FAILED after \$((\$(date +%s) - step)) s (log: $out/build.log)" >&2
    exit 1
fi
echo "$name: built in \$((\$(date +%s) - step)) s"
grep '^smoke:' /build/build.log || true
# Nothing outside the build tree: every file newer than the stamp, except
# the build's own directory and the kernel's file systems.
strays=\$(find / -xdev \( -path /build -o -path /proc -o -path /sys -o -path /dev -o -path /run \) -prune -o -newer /build/.stamp ! -type d -print)
if [ -n "\$strays" ]; then
    echo "$name: FAILED: the build wrote outside its tree:" >&2
    echo "\$strays" | head -20 >&2
    exit 1
fi
echo "$name: the build wrote nothing outside its tree"
cd /build/src
echo "$name: lintian --fail-on error,warning --display-info --pedantic"
setpriv --reuid orientd-build --regid orientd-build --init-groups env HOME=/nonexistent lintian --fail-on error,warning --display-info --pedantic --tag-display-limit 0 orientd_${version}_*.changes >/build/lintian.txt 2>&1 && lint=0 || lint=\$?
sed 's/^/  /' /build/lintian.txt
[ -s /build/lintian.txt ] || echo "  (no tags)"
if [ "\$lint" != 0 ]; then echo "$name: FAILED: lintian reports errors or warnings (exit \$lint)" >&2; exit 1; fi
INSIDE
)

status=0
unshare --mount --propagation private sh -c '
    set -e
    root=$1 out=$2 options=$3; shift 3
    mount -t overlay overlay -o "$options" "$root"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root/build"
    mount --bind "$out" "$root/build"
    exec chroot "$root" /bin/sh -c "$1"
' "$name" "$root" "$out" "$trixie_overlay_options" "$inside" || status=$?
[ "$status" = 0 ] || { echo "$name: FAILED (logs in $out)" >&2; exit 1; }
mv "$out"/src/orientd*_"$version"_*.deb "$out"/src/orientd_"$version"_*.changes "$out"/src/orientd_"$version"_*.buildinfo "$out"/
chown 0:0 "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
echo "$name: ok in $(($(date +%s) - start)) s:"
ls -l "$out"/*.deb
