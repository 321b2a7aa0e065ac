#!/bin/sh
# `make check-ssc`: orientd on a Qualcomm Sensor Core (SSC), the DSP behind
# which phones keep their accelerometer, light, proximity sensor and compass,
# reached as QMI service 400 over QRTR (AF_QIPCRTR) through libssc. Boots
# Debian 12's kernel (the entry `make check-kernel` caches; its qrtr module
# has the QRTR name server) under QEMU (TCG) with a debootstrapped Debian sid
# as its initramfs root (scripts/check-ssc/guest.sh: only sid has libssc and
# its mock service, ssc-server), the project installed into it (`make install
# DESTDIR=… PREFIX=/usr`, done by the Makefile before this script), and lets a
# oneshot unit inside (Tests/ssc/inside.sh) start ssc-server from sensor files
# it writes, and watch orientd through monitor-sensor, a GeoClue-policy client
# and orientctl: turns, light, proximity, the compass, the server killed and
# started again, idle. Each check prints PASS or FAIL on the guest's second
# serial port; the guest powers itself off. Exits 1 on any miss, and 1 with
# the reason when it cannot run at all (no QEMU, no kernel package, no sid
# root): it never skips.
#
#   scripts/check-ssc/run.sh STAGED_TREE
#
# Cached outside the work tree (scripts/cache.sh: $ORIENTD_CI_CACHE, default
# /var/cache/orientd-ci): check-kernel/kernel-amd64 (shared with check-kernel,
# scripts/check-kernel/kernel.sh) and check-ssc/root-sid (guest.sh). Each run
# appends a small archive (the staged tree, the checks) to the root's, in
# .build/check-ssc/run.
#
# Environment: CHECK_KERNEL_VERSION (as check-kernel), CHECK_SSC_SMP
# (default 2), CHECK_SSC_TIMEOUT (seconds for the boot, default 720),
# DEBIAN_MIRROR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
staged=${1:?usage: run.sh STAGED_TREE}
work="$repo/.build/check-ssc"

fail() {
    echo "check-ssc: FAILED: $*" >&2
    exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, and files owned by root in the guest)"
for tool in qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap cpio:cpio dpkg-deb:dpkg; do
    command -v "${tool%%:*}" >/dev/null || fail "${tool%%:*} is missing (Debian: ${tool#*:})"
done
[ -x "$staged/usr/sbin/orientd" ] || fail "no orientd in $staged (make install DESTDIR=$staged PREFIX=/usr)"
. "$repo/scripts/cache.sh"
. "$repo/scripts/check-kernel/kernel.sh"
. "$here/guest.sh"
mkdir -p "$work"
guest_kernel
ssc_root

# --- this run's layer ---------------------------------------------------------
run="$work/run"
layer="$run/layer"
rm -rf "$run"
mkdir -p "$layer"
cp -a "$staged/." "$layer/"
# Merged /usr: an archive entry for /lib would replace the root's /lib symlink
# with a directory, so what `make install` put under /lib goes to /usr/lib.
if [ -d "$layer/lib" ]; then
    mkdir -p "$layer/usr/lib"
    cp -a "$layer/lib/." "$layer/usr/lib/"
    rm -rf "$layer/lib"
fi
mkdir -p "$layer/usr/local/sbin" "$layer/usr/local/lib/orientd-ssc-check" "$layer/usr/lib/sysusers.d" \
    "$layer/etc/systemd/system/multi-user.target.wants" "$layer/etc/systemd/system/sockets.target.wants" "$layer/etc/orientd"
ssc_layer "$layer"
# The checks: inside.sh and what it sources, beside it; Tests/kernel/lib.sh's
# helpers (the report, the waits) as kernel-lib.sh.
install -m 0644 "$repo/Tests/kernel/lib.sh" "$layer/usr/local/lib/orientd-ssc-check/kernel-lib.sh"
install -m 0644 "$repo"/Tests/ssc/*.sh "$layer/usr/local/lib/orientd-ssc-check/"
chmod 0755 "$layer/usr/local/lib/orientd-ssc-check/inside.sh"
ln -s ../lib/orientd-ssc-check/inside.sh "$layer/usr/local/sbin/orientd-ssc-check"
cat >"$layer/etc/systemd/system/orientd-ssc-check.service" <<'UNIT'
[Unit]
Description=orientd on the mock Qualcomm Sensor Core (make check-ssc)
After=multi-user.target dbus.service systemd-udevd.service
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/orientd-ssc-check
ExecStopPost=/bin/systemctl --no-block poweroff
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=660
UNIT
ln -s ../orientd-ssc-check.service "$layer/etc/systemd/system/multi-user.target.wants/orientd-ssc-check.service"
# What docs/dbus.md tells a user to do: iio-sensor-proxy masked (ssc_layer),
# orientd's socket enabled, its D-Bus side on; log-level info for the
# journal the checks quote.
ln -s /lib/systemd/system/orientd.socket "$layer/etc/systemd/system/sockets.target.wants/orientd.socket"
printf '[daemon]\nlog-level = info\n[dbus]\nenable = true\n' >"$layer/etc/orientd/orientd.conf"
# GeoClue's user, to whom the installed bus policy gives the compass.
echo 'u geoclue - "GeoClue (make check-ssc)" /var/lib/geoclue' >"$layer/usr/lib/sysusers.d/orientd-check-ssc.conf"
(cd "$layer" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$run/layer.cpio"

# --- boot ---------------------------------------------------------------------
echo "check-ssc: booting $kver with Debian sid under QEMU (TCG, ${CHECK_SSC_SMP:-2} vCPUs; about five minutes)"
ssc_boot "$run" "${CHECK_SSC_TIMEOUT:-720}"
failed=$(grep -c '^FAIL' "$run/results.log" || :)
passed=$(grep -c '^PASS' "$run/results.log" || :)
if [ "$failed" != 0 ] || ! grep -q '^ALL PASSED' "$run/results.log"; then
    fail "$failed failed (console: $run/console.log; orientd's journal: $run/journal.log)"
fi
echo "check-ssc: $passed passed, 0 failed"
