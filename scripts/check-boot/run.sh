#!/bin/sh
# `make check-boot` and `make check-boot-trixie`: orientd under a real systemd.
# Installs orientd into a minimal Debian root, boots it with systemd-nspawn, and
# lets a oneshot unit inside (inside.sh) check socket activation, Type=notify
# readiness, D-Bus activation by name through monitor-sensor, the rotation
# lock surviving a restart, reload with a good and a bad configuration, the
# watchdog over a minute, and the seat under real logind
# (Tests/seat/check-logind-seat.sh, run as a test user's session on seat0 comes
# and goes); it powers the container off. Exits 1 on any miss, 0 when every
# check passed; on Debian 12 only, 0 with a SKIP line where systemd-nspawn
# cannot boot here (Debian 13's target fails instead).
#
#   scripts/check-boot/run.sh STAGED_TREE          Debian 12, `make install
#                                                  DESTDIR=… PREFIX=/usr` (done
#                                                  by the Makefile before this)
#   SUITE=trixie scripts/check-boot/run.sh --deb ORIENTD.DEB
#                                                  Debian 13, the package
#                                                  installed with `apt-get
#                                                  install ./orientd_….deb`
#   ARCH=arm64 SUITE=trixie scripts/check-boot/run.sh --deb ORIENTD_ARM64.DEB
#                                                  the same with the arm64
#                                                  package in an arm64 Debian
#                                                  13, run through qemu-user
#                                                  (make check-boot-arm64)
#
# With --deb, before booting: what the package's maintainer scripts did in the
# root (the orientd user and its input membership from sysusers, the socket
# enabled, the service not enabled) is checked too. The debootstrapped base is
# cached outside the work tree (scripts/cache.sh: $ORIENTD_CI_CACHE, default
# /var/cache/orientd-ci, in check-boot/SUITE-ARCH), keyed on the suite, the
# architecture, the package list and the recipe (boot_base below), and built
# anew when any of them changes; each run boots a fresh copy of it in
# .build/check-boot (.build/check-boot/trixie, trixie-arm64).
#
# ARCH (default: this machine's, dpkg --print-architecture) may be arm64 on
# another host, with SUITE=trixie and --deb only: the base is debootstrapped
# as make check-arm64's arm64 root is (scripts/trixie/root.sh: debootstrap
# --arch arm64 run through
# qemu-user-static, binfmt_misc mounted and qemu-aarch64 registered with the F
# flag when they are not), and the booted container's systemd, udev, dbus and
# orientd all run under qemu-aarch64. It fails with the reason, never skips,
# when qemu-user-static or binfmt_misc is missing. The differences under
# emulation are in docs/packaging.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
usage="usage: run.sh STAGED_TREE | [ARCH=arm64] SUITE=trixie run.sh --deb ORIENTD.DEB"
deb=""
if [ "${1:-}" = --deb ]; then
    deb=${2:?$usage}
    [ -f "$deb" ] || { echo "check-boot: no package at $deb" >&2; exit 1; }
    deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
else
    staged=${1:?$usage}
fi
suite=${SUITE:-bookworm}
case $suite in
bookworm) work="$repo/.build/check-boot" unitdir=/lib/systemd/system ;;
trixie) work="$repo/.build/check-boot/trixie" unitdir=/usr/lib/systemd/system ;;
*) echo "check-boot: SUITE is bookworm or trixie, not $suite" >&2; exit 2 ;;
esac
host_arch=$(dpkg --print-architecture)
arch=${ARCH:-$host_arch}
# How many times slower than this machine the container runs: 1 natively;
# under qemu-user ORIENTD_TEST_SLOWDOWN, default 20 (as in make check-arm64:
# Swift under qemu-aarch64 ran about 19 times slower here). The one factor
# every time limit of the boot is multiplied by: nspawn's, the checks unit's
# TimeoutStartSec=, and the waits inside (inside.sh, check-logind-seat.sh).
# The watchdog check's 65 s is not a limit but the span it watches, and stays.
slowdown=1
if [ "$arch" != "$host_arch" ]; then
    case $arch in
    arm64) ;;
    *) echo "check-boot: ARCH is $host_arch (this machine's) or arm64 (under qemu-user), not $arch" >&2; exit 2 ;;
    esac
    { [ "$suite" = trixie ] && [ -n "$deb" ]; } || { echo "check-boot: ARCH=$arch needs SUITE=trixie and --deb (the $arch package from make deb-$arch)" >&2; exit 2; }
    work="$repo/.build/check-boot/trixie-$arch"
    slowdown=${ORIENTD_TEST_SLOWDOWN:-20}
    case $slowdown in
    '' | *[!0-9]* | 0*) echo "check-boot: ORIENTD_TEST_SLOWDOWN=$slowdown: expected a whole number from 1 to 100" >&2; exit 2 ;;
    esac
    [ "$slowdown" -le 100 ] || { echo "check-boot: ORIENTD_TEST_SLOWDOWN=$slowdown: expected a whole number from 1 to 100" >&2; exit 2; }
fi
if [ -n "$deb" ]; then
    deb_arch=$(dpkg-deb -f "$deb" Architecture) || { echo "check-boot: $deb is not a Debian package" >&2; exit 1; }
    [ "$deb_arch" = "$arch" ] || [ "$deb_arch" = all ] || { echo "check-boot: $deb is for $deb_arch, this boot is $arch (ARCH=$deb_arch?)" >&2; exit 2; }
fi
root="$work/root"
# What the root needs beyond minbase: systemd as PID 1, the system bus, and
# iio-sensor-proxy for its monitor-sensor (the service itself is masked, as the
# docs tell a user to), pam_systemd so a login opens a logind session, and
# libevdev, which orientd links (input accelerometers and proximity switches).
packages=systemd,systemd-sysv,dbus,iio-sensor-proxy,libpam-systemd,libevdev2
# Debian 13 splits udev out of systemd (the package recommends it), and
# apt-get installs the .deb against the root's package lists.
[ "$suite" = bookworm ] || packages=$packages,udev

# Debian 12's check-boot skips where nspawn cannot run; Debian 13's fails.
skip() {
    if [ "$suite" = bookworm ]; then
        echo "check-boot: SKIP: $*"
        exit 0
    fi
    echo "check-boot: FAILED: $*" >&2
    exit 1
}

[ "$(id -u)" = 0 ] || skip "needs root (systemd-nspawn and debootstrap)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is missing (Debian: systemd-container)"
command -v debootstrap >/dev/null || { echo "check-boot: debootstrap is missing (Debian: debootstrap)" >&2; exit 1; }
if [ "$arch" != "$host_arch" ]; then
    # trixie_binfmt and trixie_root; at every run, since binfmt_misc's
    # registration does not outlive a reboot and nspawn needs it as much as
    # the chroots do. Each exits 1 with the reason.
    . "$repo/scripts/trixie/root.sh"
    trixie_binfmt check-boot
    command -v aarch64-linux-gnu-gcc >/dev/null || { echo "check-boot: aarch64-linux-gnu-gcc is missing (Debian: gcc-aarch64-linux-gnu), needed for qemu-pidfd-spawn.c" >&2; exit 1; }
fi

mkdir -p "$work"
# boot_base DIR SUITE PACKAGES ARCH: the base, debootstrapped with the
# packages; Debian 13's gets its package lists too, for apt-get install ./….deb.
boot_base() {
    debootstrap --arch="$4" --variant=minbase --include="$3" "$2" "$1" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >>"$cache_log" 2>&1 \
        || cache_fail check-boot "debootstrap of $2 failed"
    if [ "$2" != bookworm ]; then
        chroot "$1" apt-get update -qq >>"$cache_log" 2>&1 || cache_fail check-boot "apt-get update in the $2 root failed"
    fi
}
if [ "$arch" != "$host_arch" ]; then
    # make check-arm64's way, with this root's packages: debootstrap --arch,
    # then apt-get install --no-install-recommends.
    trixie_root check-boot "check-boot/$suite-$arch" "$arch" "$(echo "$packages" | tr , ' ')"
    base=$trixie_root_dir
else
    . "$repo/scripts/cache.sh"
    cached check-boot "check-boot/$suite-$arch" "$here/run.sh" boot_base "$suite" "$packages" "$arch"
    base=$cache_path
fi

echo "check-boot: a fresh root in $root"
rm -rf "$root"
cp -a "$base" "$root"
rm -f "$root/.cache-key"
if [ -n "$deb" ]; then
    # As a user installs it; the maintainer scripts run (no systemd in the
    # chroot: they enable, they do not start).
    cp "$deb" "$root/tmp/"
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y "/tmp/$(basename "$deb")" >"$work/apt-install.log" 2>&1 || {
        tail -20 "$work/apt-install.log" >&2
        echo "check-boot: FAILED: apt-get install ./$(basename "$deb") (log: $work/apt-install.log)" >&2
        exit 1
    }
    rm -f "$root/tmp/$(basename "$deb")"
    echo "check-boot: apt-get install ./$(basename "$deb"): $(grep -c '^Setting up' "$work/apt-install.log") package(s) set up"
    installed=""
    chroot "$root" getent passwd orientd >/dev/null || installed="$installed; no orientd user (sysusers)"
    chroot "$root" id -nG orientd 2>/dev/null | grep -qw input || installed="$installed; orientd is not in the input group (sysusers: m orientd input)"
    [ -L "$root/etc/systemd/system/sockets.target.wants/orientd.socket" ] || installed="$installed; orientd.socket is not enabled"
    ! chroot "$root" systemctl is-enabled orientd.service 2>/dev/null | grep -qx enabled || installed="$installed; orientd.service is enabled (udev and the socket start it)"
    [ -f "$root$unitdir/orientd.service" ] || installed="$installed; no $unitdir/orientd.service"
    if [ -n "$installed" ]; then
        echo "check-boot: FAILED: after apt-get install${installed}" >&2
        exit 1
    fi
    echo "check-boot: the package made the orientd user (in input), enabled orientd.socket, left orientd.service to udev and the socket"
else
    # /lib and friends are symlinks into /usr in the root (merged /usr): kept.
    tar -C "$staged" -c . | tar -C "$root" -x --keep-directory-symlink
fi

# The test unit, run once the system is up; it powers the machine off.
install -m 0755 "$here/inside.sh" "$root/usr/local/sbin/orientd-boot-check"
install -m 0755 "$repo/Tests/seat/check-logind-seat.sh" "$root/usr/local/sbin/orientd-seat-check"
cat >"$root/etc/systemd/system/orientd-boot-check.service" <<EOF
[Unit]
Description=orientd boot checks (make check-boot)
After=multi-user.target dbus.service
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/orientd-boot-check
ExecStopPost=/bin/systemctl --no-block poweroff
StandardOutput=journal+console
StandardError=journal+console
Environment=ORIENTD_TEST_SLOWDOWN=$slowdown
TimeoutStartSec=$((300 * slowdown))
EOF
mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/etc/systemd/system/sockets.target.wants"
ln -sf ../orientd-boot-check.service "$root/etc/systemd/system/multi-user.target.wants/orientd-boot-check.service"
# What docs/dbus.md tells a user to do: mask iio-sensor-proxy, enable orientd's
# socket (the package did that already) and its D-Bus side.
ln -sf /dev/null "$root/etc/systemd/system/iio-sensor-proxy.service"
[ -n "$deb" ] || ln -sf "$unitdir/orientd.socket" "$root/etc/systemd/system/sockets.target.wants/orientd.socket"
mkdir -p "$root/etc/orientd"
printf '[dbus]\nenable = true\n' >"$root/etc/orientd/orientd.conf"
rm -f "$root/boot-check.result"
nspawn_env=""
if [ "$arch" != "$host_arch" ]; then
    # The one accommodation for qemu-user (docs/packaging.md): systemd 257
    # starts units with glibc's pidfd_spawn, whose clone3 and CLONE_PIDFD
    # qemu-aarch64 7.2 lacks, forks into new namespaces with clone flags qemu
    # refuses, and trusts statx's mount id, which qemu leaves 0. The shim (qemu-pidfd-spawn.c) is preloaded into PID 1
    # (nspawn's --setenv reaches init) and so into systemd-executor, not into
    # the services, whose environment the system manager builds from scratch.
    # inside.sh checks that orientd has not got it.
    mkdir -p "$root/usr/local/lib/check-boot"
    aarch64-linux-gnu-gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$root/usr/local/lib/check-boot/qemu-pidfd-spawn.so" \
        "$here/qemu-pidfd-spawn.c" || { echo "check-boot: building qemu-pidfd-spawn.c for $arch failed" >&2; exit 1; }
    nspawn_env="--setenv=LD_PRELOAD=/usr/local/lib/check-boot/qemu-pidfd-spawn.so"
    sed -i "s|^Environment=ORIENTD_TEST_SLOWDOWN=.*|&\nEnvironment=ORIENTD_BOOT_EMULATED=$(/usr/bin/qemu-aarch64-static --version | head -1 | tr ' ' _)|" \
        "$root/etc/systemd/system/orientd-boot-check.service"
fi

if [ "$arch" = "$host_arch" ]; then
    echo "check-boot: booting $suite (systemd-nspawn --boot; about two minutes)"
else
    echo "check-boot: booting $suite $arch under qemu-user (systemd-nspawn --boot; time limits $slowdown times the native ones)"
fi
status=0
# shellcheck disable=SC2086 # $nspawn_env: one option or none
timeout $((420 * slowdown)) systemd-nspawn --register=no --keep-unit -q -D "$root" $nspawn_env --boot >"$work/boot.log" 2>&1 || status=$?
if [ ! -f "$root/boot-check.result" ]; then
    if ! grep -q "running in system mode" "$work/boot.log"; then
        tail -20 "$work/boot.log"
        skip "systemd-nspawn could not boot a container here (exit $status; log: $work/boot.log)"
    fi
    tail -40 "$work/boot.log" >&2
    echo "check-boot: FAILED: the checks inside never finished (nspawn exit $status; log: $work/boot.log)" >&2
    exit 1
fi
sed 's/^/  /' "$root/boot-check.result"
if grep -q '^FAIL' "$root/boot-check.result" || ! grep -q '^ALL PASSED' "$root/boot-check.result"; then
    echo "check-boot: FAILED (boot log: $work/boot.log; journal: $root/var/log/journal)" >&2
    exit 1
fi
echo "check-boot: $(grep -c '^PASS' "$root/boot-check.result") passed, 0 failed"
