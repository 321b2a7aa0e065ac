#!/bin/sh
# `make check-kernel`: orientd on Linux's own drivers. Boots Debian 12's kernel
# in QEMU (TCG) with a debootstrapped Debian 12 as its initramfs root, the
# project installed into it (`make install DESTDIR=… PREFIX=/usr`, done by the
# Makefile before this script), and lets a oneshot unit inside
# (Tests/kernel/inside.sh, with the checks it sources from Tests/kernel/*.sh)
# drive emulated hardware: a HID sensor hub made
# through /dev/uhid (Tests/kernel/hid-sensor-hub.c), which the kernel's
# hid-sensor-hub and hid-sensor-accel-3d bind to (udev tags it, systemd starts
# orientd on the udev rule); input devices made through /dev/uinput
# (Tests/kernel/uinput-sensors.c); a bmc150 accelerometer on i2c-stub. Each
# check prints PASS or FAIL on the guest's second serial port; the guest
# powers itself off. The guest boots twice: as an ASUS T103HAF (every check
# but the second machine's), then, shorter, as an HP Pavilion x2 Detachable
# (the other z sign of the hwdb's matrices, the unit started before any IIO
# module, the seat on real VTs). Exits 1 on any miss, and 1 with the reason when it cannot
# run at all (no QEMU, no kernel package): it never skips. The side-by-side
# figures (kernel_* keys) go to .build/check-kernel/run/bench.json.
#
#   scripts/check-kernel/run.sh STAGED_TREE
#
# Cached outside the work tree (scripts/cache.sh: $ORIENTD_CI_CACHE, default
# /var/cache/orientd-ci), each entry keyed on what made it (the kernel's
# version, the suite, the packages, the module list and the recipe below) and
# made anew when that changes:
#   check-kernel/kernel-amd64/   the kernel package's tree and its
#                                decompressed vmlinux
#   check-kernel/root-bookworm/  root/, the debootstrapped root with the
#                                kernel's modules, and root.cpio, it as an
#                                initramfs archive
# Each run appends a small archive (the staged tree, the checks) to root.cpio,
# in .build/check-kernel/run.
#
# Environment: CHECK_KERNEL_VERSION (e.g. 6.1.0-57-amd64; default: what
# linux-image-amd64 depends on), CHECK_KERNEL_SMP (default 2),
# CHECK_KERNEL_TIMEOUT (seconds for the first boot, default 540; the second
# gets 300), DEBIAN_MIRROR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
staged=${1:?usage: run.sh STAGED_TREE}
work="$repo/.build/check-kernel"
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Beyond minbase: systemd as PID 1 with udev, the system bus and logind's PAM
# module; kmod for modprobe; libiio0 (orientd's buffered capture dlopens it)
# and libevdev2 (orientd links it); iio-sensor-proxy for monitor-sensor and the
# side-by-side run; libinput10 and the command line tools of libinput-tools
# (unpacked) for what libinput makes of orientd's tablet-mode switch.
packages=systemd,systemd-sysv,udev,dbus,kmod,libpam-systemd,libiio0,libevdev2,iio-sensor-proxy,libinput10
unpacked=libinput-tools
# Module directories copied from the kernel package (the rest is not needed:
# no disk, no network, no USB, no graphics).
module_dirs="drivers/hid drivers/iio drivers/input drivers/i2c drivers/spi drivers/mfd drivers/base drivers/char drivers/virtio drivers/platform lib crypto fs/9p net/9p"

fail() {
    echo "check-kernel: FAILED: $*" >&2
    exit 1
}

. "$repo/scripts/cache.sh"

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, and files owned by root in the guest)"
for tool in qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap cpio:cpio gcc:gcc dpkg-deb:dpkg pkg-config:pkg-config systemd-hwdb:udev; do
    command -v "${tool%%:*}" >/dev/null || fail "${tool%%:*} is missing (Debian: ${tool#*:})"
done

mkdir -p "$work"

# --- the kernel ---------------------------------------------------------------
. "$here/kernel.sh"
guest_kernel

# --- the root -----------------------------------------------------------------
cached check-kernel "check-kernel/root-$suite" "$here/kernel.sh" guest_recipe "$suite" "$packages" "$kver" "$module_dirs" orientd-kernel "$unpacked"
base="$cache_path/root"
base_cpio="$cache_path/root.cpio"
# The modules the checks load, in the root.
for m in uhid hid_sensor_hub hid_sensor_accel_3d hid_sensor_als hid_sensor_prox hid_sensor_magn_3d uinput i2c_stub i2c_dev bmc150_accel_i2c; do
    chroot "$base" modprobe -S "$kver" --show-depends "$m" >/dev/null 2>&1 || fail "module $m is missing from the guest"
done

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
mkdir -p "$layer/usr/local/bin" "$layer/usr/local/sbin" "$layer/etc/systemd/system/multi-user.target.wants" \
    "$layer/etc/systemd/system/sockets.target.wants" "$layer/etc/orientd"
# The emulated devices and the test's tools: static but for evdev-probe, which
# is there to see what libevdev (the guest's libevdev2, as orientd's) sees.
for prog in hid-sensor-hub uinput-sensors smbus-regs vt-switch; do
    gcc -static -O2 -Wall -Wextra -Werror -o "$layer/usr/local/bin/$prog" "$repo/Tests/kernel/$prog.c" \
        || fail "Tests/kernel/$prog.c does not build"
done
gcc -O2 -Wall -Wextra -Werror -o "$layer/usr/local/bin/evdev-probe" "$repo/Tests/kernel/evdev-probe.c" \
    $(pkg-config --cflags --libs libevdev) || fail "Tests/kernel/evdev-probe.c does not build (Debian: libevdev-dev)"
# The checks: inside.sh and the files it sources, beside it.
mkdir -p "$layer/usr/local/lib/orientd-kernel-check"
install -m 0644 "$repo"/Tests/kernel/*.sh "$layer/usr/local/lib/orientd-kernel-check/"
chmod 0755 "$layer/usr/local/lib/orientd-kernel-check/inside.sh"
ln -s ../lib/orientd-kernel-check/inside.sh "$layer/usr/local/sbin/orientd-kernel-check"
cat >"$layer/etc/systemd/system/orientd-kernel-check.service" <<'EOF'
[Unit]
Description=orientd on the real kernel's drivers (make check-kernel)
After=multi-user.target dbus.service systemd-udevd.service
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/orientd-kernel-check
ExecStopPost=/bin/systemctl --no-block poweroff
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=480
EOF
ln -s ../orientd-kernel-check.service "$layer/etc/systemd/system/multi-user.target.wants/orientd-kernel-check.service"
# What docs/dbus.md tells a user to do: iio-sensor-proxy masked (udev's
# SYSTEMD_WANTS would start it when the sensor appears, and it would take the
# buffer), orientd's socket enabled, its D-Bus side on.
ln -s /lib/systemd/system/orientd.socket "$layer/etc/systemd/system/sockets.target.wants/orientd.socket"
# log-level info: the checks read "buffered capture started" in the journal.
printf '[daemon]\nlog-level = info\n[dbus]\nenable = true\n' >"$layer/etc/orientd/orientd.conf"
# The faked T103HAF's HID proximity sensor gets a near level from the hwdb, as
# a machine's entry in systemd's 60-sensor.hwdb gives one (a HID human
# presence sensor reads 0 or 1, and neither orientd nor iio-sensor-proxy
# offers a proximity sensor without a near level). The database is compiled
# here from the guest's own hwdb sources and this entry (the host's
# systemd-hwdb writes the same format), into /etc/udev/hwdb.bin, which the
# guest's udev reads before /usr's.
# (Debian's systemd-hwdb reads /lib/udev/hwdb.d under --root, not /usr/lib's.)
mkdir -p "$layer/etc/udev/hwdb.d" "$run/hwdb/lib/udev" "$run/hwdb/etc/udev"
cat >"$layer/etc/udev/hwdb.d/61-orientd-check-kernel.hwdb" <<'EOF'
# make check-kernel: the emulated hub's human presence sensor on the faked T103HAF.
sensor:modalias:platform:HID-SENSOR-200011:dmi:*svn*ASUSTeK*:pnT103HAF:*
 PROXIMITY_NEAR_LEVEL=1

# make check-kernel: a bma255 on i2c-stub as the base of the faked T103HAF, for
# the hinge angle (check 27), as 60-sensor.hwdb marks the bases of convertibles.
sensor:modalias:i2c:bma255:dmi:*svn*ASUSTeK*:pnT103HAF:*
 ACCEL_LOCATION=base
EOF
cp -a "$base/usr/lib/udev/hwdb.d" "$run/hwdb/lib/udev/"
cp -a "$layer/etc/udev/hwdb.d" "$run/hwdb/etc/udev/"
systemd-hwdb update --root="$run/hwdb" || fail "systemd-hwdb update of the guest's hwdb"
# The database must still hold the guest's own entries, the T103HAF's matrix
# among them, and the added one.
for key in "platform:HID-SENSOR-200073:ACCEL_MOUNT_MATRIX" "platform:HID-SENSOR-200011:PROXIMITY_NEAR_LEVEL" "i2c:bma255:ACCEL_LOCATION"; do
    systemd-hwdb query --root="$run/hwdb" "sensor:modalias:${key%:*}:dmi:bvnSeaBIOS:svnASUSTeK:pnT103HAF:" | grep -q "^${key##*:}=" \
        || fail "the guest's compiled hwdb has no ${key##*:} for ${key%:*} on the T103HAF"
done
cp "$run/hwdb/etc/udev/hwdb.bin" "$layer/etc/udev/hwdb.bin"
# Users the checks need: geoclue, whom the installed bus policy gives the
# compass (as on a machine with GeoClue); two users who log in on tty2 and
# tty3 through agetty, login and pam_systemd (autologin: nobody types).
mkdir -p "$layer/usr/lib/sysusers.d" "$layer/etc/systemd/system/getty@tty2.service.d" "$layer/etc/systemd/system/getty@tty3.service.d"
cat >"$layer/usr/lib/sysusers.d/orientd-check-kernel.conf" <<'EOF'
u geoclue - "GeoClue (make check-kernel)" /var/lib/geoclue
u orientd-seat1 1001 "make check-kernel seat user on tty2" / /bin/bash
u orientd-seat2 1002 "make check-kernel seat user on tty3" / /bin/bash
EOF
for vt in 2:orientd-seat1 3:orientd-seat2; do
    printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin %s --noclear %%I $TERM\n' "${vt#*:}" \
        >"$layer/etc/systemd/system/getty@tty${vt%%:*}.service.d/autologin.conf"
done
# Units of no use here (timers, a login prompt on the console), masked.
for unit in iio-sensor-proxy.service apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
    fstrim.timer e2scrub_reap.service systemd-pstore.service serial-getty@ttyS0.service getty@tty1.service; do
    ln -s /dev/null "$layer/etc/systemd/system/$unit"
done
(cd "$layer" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$run/layer.cpio"
cat "$base_cpio" "$run/layer.cpio" >"$run/initrd"

# --- boot ---------------------------------------------------------------------
# ttyS0: the console (kernel, systemd, the checks' own output); ttyS1: the
# checks' results only.
smp=${CHECK_KERNEL_SMP:-2}
limit=${CHECK_KERNEL_TIMEOUT:-540}
# boot DIR NAME SECONDS CMDLINE-EXTRA QEMU-ARGS...: one guest run; its
# console, results and orientd's journal go to DIR. Fails when the checks
# never printed their last line.
boot() {
    dir=$1 name=$2 seconds=$3 extra=$4
    shift 4
    mkdir -p "$dir"
    started=$(date +%s)
    status=0
    timeout "$seconds" qemu-system-x86_64 -nodefaults -no-user-config -nographic \
        -accel tcg,thread=multi -cpu max -smp "$smp" -m 2048 -no-reboot "$@" \
        -kernel "$kdir/vmlinux" -initrd "$run/initrd" \
        -append "console=ttyS0 rdinit=/sbin/init panic=-1 loglevel=4 systemd.show_status=0 mitigations=off $extra" \
        -serial "file:$dir/console.log" -serial "file:$dir/results.raw" -monitor none \
        >"$dir/qemu.log" 2>&1 || status=$?
    echo "check-kernel: the guest ($name) ran $(($(date +%s) - started)) s (QEMU exit $status)"
    tr -d '\r' <"$dir/results.raw" >"$dir/results.log" 2>/dev/null || :
    if ! grep -q '^\(ALL PASSED\|SOME FAILED\)' "$dir/results.log"; then
        sed 's/^/  /' "$dir/results.log"
        tail -40 "$dir/console.log" | tr -d '\r' >&2
        cat "$dir/qemu.log" >&2
        fail "the checks inside ($name) never finished (QEMU exit $status; console: $dir/console.log)"
    fi
    grep -v '^JOURNAL ' "$dir/results.log" | sed 's/^/  /'
    sed -n 's/^JOURNAL //p' "$dir/results.log" >"$dir/journal.log"
}
# The first machine: an ASUS T103HAF, which systemd's 60-sensor.hwdb lists for
# HID-SENSOR-200073 (matrix 0, -1, 0; 1, 0, 0; 0, 0, -1).
echo "check-kernel: booting $kver under QEMU (TCG, $smp vCPUs; about four minutes, then a shorter second boot)"
boot "$run" "ASUS T103HAF" "$limit" "" -smbios type=1,manufacturer=ASUSTeK,product=T103HAF
# The second: an HP Pavilion x2 Detachable with board 815D, which the hwdb
# lists for i2c:bmc150_accel with the other z sign (0, -1, 0; -1, 0, 0;
# 0, 0, 1). Only its own checks run (inside.sh reads orientd.machine=).
boot "$run/second" "HP Pavilion x2 Detachable" 300 orientd.machine=second \
    -smbios "type=1,manufacturer=Hewlett-Packard,product=HP Pavilion x2 Detachable" -smbios type=2,manufacturer=HP,product=815D
# The side-by-side figures (kernel_* keys; scripts/bench/README.md), as JSON.
if grep -q '^BENCH ' "$run/results.log"; then
    {
        echo "{"
        echo "  \"kernel_version\": \"$kver\","
        sed -n 's/^BENCH /  /p' "$run/results.log" | sed '$!s/$/,/'
        echo "}"
    } >"$run/bench.json"
    echo "check-kernel: the side-by-side figures are in $run/bench.json"
fi
failed=$(cat "$run/results.log" "$run/second/results.log" | grep -c '^FAIL' || :)
if [ "$failed" != 0 ] || ! grep -q '^ALL PASSED' "$run/results.log" || ! grep -q '^ALL PASSED' "$run/second/results.log"; then
    fail "$failed failed (consoles: $run/console.log, $run/second/console.log; orientd's journals: $run/journal.log, $run/second/journal.log)"
fi
echo "check-kernel: $(cat "$run/results.log" "$run/second/results.log" | grep -c '^PASS') passed, 0 failed"
