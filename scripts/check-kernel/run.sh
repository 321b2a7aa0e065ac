#!/bin/sh
# `make check-kernel`: orientd on Linux's own drivers. Boots Debian 12's kernel
# in QEMU (TCG) with a debootstrapped Debian 12 as its initramfs root, the
# project installed into it (`make install DESTDIR=… PREFIX=/usr`, done by the
# Makefile before this script), and lets a oneshot unit inside
# (Tests/kernel/inside.sh) drive emulated hardware: a HID sensor hub made
# through /dev/uhid (Tests/kernel/hid-sensor-hub.c), which the kernel's
# hid-sensor-hub and hid-sensor-accel-3d bind to (udev tags it, systemd starts
# orientd on the udev rule); input devices made through /dev/uinput
# (Tests/kernel/uinput-sensors.c); a bmc150 accelerometer on i2c-stub. Each
# check prints PASS or FAIL on the guest's second serial port; the guest
# powers itself off. Exits 1 on any miss, and 1 with the reason when it cannot
# run at all (no QEMU, no kernel package): it never skips. The side-by-side
# figures (kernel_* keys) go to .build/check-kernel/run/bench.json.
#
#   scripts/check-kernel/run.sh STAGED_TREE
#
# Cached under .build/check-kernel (delete it to rebuild):
#   kernel-VERSION/  the kernel package and its decompressed vmlinux
#   base/            the debootstrapped root with the kernel's modules
#   base.cpio        base/ as an initramfs archive
# Each run appends a small archive (the staged tree, the checks) to base.cpio.
#
# Environment: CHECK_KERNEL_VERSION (e.g. 6.1.0-57-amd64; default: what
# linux-image-amd64 depends on), CHECK_KERNEL_SMP (default 2),
# CHECK_KERNEL_TIMEOUT (seconds for the whole boot, default 540), DEBIAN_MIRROR.
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
# side-by-side run.
packages=systemd,systemd-sysv,udev,dbus,kmod,libpam-systemd,libiio0,libevdev2,iio-sensor-proxy
# Module directories copied from the kernel package (the rest is not needed:
# no disk, no network, no USB, no graphics).
module_dirs="drivers/hid drivers/iio drivers/input drivers/i2c drivers/spi drivers/mfd drivers/base drivers/char drivers/virtio drivers/platform lib crypto fs/9p net/9p"
# Bump when the way base/ is made changes.
recipe=1

fail() {
    echo "check-kernel: FAILED: $*" >&2
    exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, and files owned by root in the guest)"
for tool in qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap cpio:cpio gcc:gcc dpkg-deb:dpkg pkg-config:pkg-config; do
    command -v "${tool%%:*}" >/dev/null || fail "${tool%%:*} is missing (Debian: ${tool#*:})"
done

mkdir -p "$work"

# --- the kernel ---------------------------------------------------------------
kver=${CHECK_KERNEL_VERSION:-}
if [ -z "$kver" ]; then
    kver=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -1)
    if [ -z "$kver" ]; then
        apt-get update -qq >/dev/null 2>&1 || true
        kver=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -1)
    fi
fi
[ -n "$kver" ] || fail "no kernel package: apt-cache knows no linux-image-amd64 (apt-get update?)"
kdir="$work/kernel-$kver"
if [ ! -f "$kdir/.complete" ]; then
    echo "check-kernel: fetching linux-image-$kver (cached in $kdir)"
    rm -rf "$kdir" && mkdir -p "$kdir/deb"
    (cd "$kdir/deb" && apt-get download "linux-image-$kver" >"$kdir/download.log" 2>&1) \
        || fail "apt-get download linux-image-$kver: $(tail -1 "$kdir/download.log")"
    dpkg-deb -x "$kdir"/deb/*.deb "$kdir/tree" || fail "dpkg-deb -x of linux-image-$kver"
    # The decompressed ELF, booted through its PVH entry: the kernel's own
    # XZ decompressor is very slow under TCG.
    /usr/bin/python3 "$here/extract-vmlinux.py" "$kdir/tree/boot/vmlinuz-$kver" "$kdir/vmlinux" \
        || fail "no vmlinux in linux-image-$kver"
    touch "$kdir/.complete"
fi

# --- the root -----------------------------------------------------------------
base="$work/base"
key="$suite $packages $kver recipe $recipe"
if [ ! -f "$base/.complete" ] || [ "$(cat "$base/.complete")" != "$key" ]; then
    echo "check-kernel: debootstrap $suite into $base (cached for later runs; a few minutes)"
    rm -rf "$base" "$work/base.cpio"
    # A debootstrap that finished is kept if a later step fails.
    if [ "$(cat "$base.tmp/.debootstrapped" 2>/dev/null)" != "$suite $packages" ]; then
        rm -rf "$base.tmp"
        debootstrap --variant=minbase --include="$packages" "$suite" "$base.tmp" "$mirror" >"$work/debootstrap.log" 2>&1 || {
            tail -20 "$work/debootstrap.log" >&2
            fail "debootstrap failed (log: $work/debootstrap.log)"
        }
        chroot "$base.tmp" apt-get clean
        echo "$suite $packages" >"$base.tmp/.debootstrapped"
    fi
    rm -rf "$base.tmp"/usr/share/doc/* "$base.tmp"/usr/share/man/* "$base.tmp"/usr/share/locale/* \
        "$base.tmp"/usr/share/info/* "$base.tmp"/var/lib/apt/lists/* "$base.tmp"/var/cache/debconf/*-old
    # The kernel's modules (merged /usr: /lib is /usr/lib), then their index.
    mods="$base.tmp/usr/lib/modules/$kver"
    mkdir -p "$mods/kernel"
    for d in $module_dirs; do
        mkdir -p "$mods/kernel/$(dirname "$d")"
        cp -a "$kdir/tree/lib/modules/$kver/kernel/$d" "$mods/kernel/$d"
    done
    cp -a "$kdir/tree/lib/modules/$kver"/modules.builtin* "$kdir/tree/lib/modules/$kver/modules.order" "$mods/"
    chroot "$base.tmp" depmod "$kver" || fail "depmod for $kver"
    # A root on the initramfs: nothing to mount, nothing to check.
    : >"$base.tmp/etc/fstab"
    echo orientd-kernel >"$base.tmp/etc/hostname"
    echo "$key" >"$base.tmp/.complete"
    mv "$base.tmp" "$base"
fi
# The modules the checks load, in the root (cached or new).
for m in uhid hid_sensor_hub hid_sensor_accel_3d hid_sensor_als hid_sensor_prox uinput i2c_stub i2c_dev bmc150_accel_i2c; do
    chroot "$base" modprobe -S "$kver" --show-depends "$m" >/dev/null 2>&1 || fail "module $m is missing from the guest"
done
if [ ! -f "$work/base.cpio" ] || [ "$base/.complete" -nt "$work/base.cpio" ]; then
    echo "check-kernel: packing $base into base.cpio"
    (cd "$base" && find . -mindepth 1 ! -name .complete ! -name .debootstrapped | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) \
        >"$work/base.cpio.tmp"
    mv "$work/base.cpio.tmp" "$work/base.cpio"
fi

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
for prog in hid-sensor-hub uinput-sensors smbus-regs; do
    gcc -static -O2 -Wall -Wextra -Werror -o "$layer/usr/local/bin/$prog" "$repo/Tests/kernel/$prog.c" \
        || fail "Tests/kernel/$prog.c does not build"
done
gcc -O2 -Wall -Wextra -Werror -o "$layer/usr/local/bin/evdev-probe" "$repo/Tests/kernel/evdev-probe.c" \
    $(pkg-config --cflags --libs libevdev) || fail "Tests/kernel/evdev-probe.c does not build (Debian: libevdev-dev)"
install -m 0755 "$repo/Tests/kernel/inside.sh" "$layer/usr/local/sbin/orientd-kernel-check"
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
# Units of no use here (timers, a login prompt on the console), masked.
for unit in iio-sensor-proxy.service apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
    fstrim.timer e2scrub_reap.service systemd-pstore.service serial-getty@ttyS0.service getty@tty1.service; do
    ln -s /dev/null "$layer/etc/systemd/system/$unit"
done
(cd "$layer" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$run/layer.cpio"
cat "$work/base.cpio" "$run/layer.cpio" >"$run/initrd"

# --- boot ---------------------------------------------------------------------
# ttyS0: the console (kernel, systemd, the checks' own output); ttyS1: the
# checks' results only. The faked DMI is the ASUS T103HAF, whose hwdb entry
# gives hid-sensor-accel-3d a mount matrix.
smp=${CHECK_KERNEL_SMP:-2}
limit=${CHECK_KERNEL_TIMEOUT:-540}
echo "check-kernel: booting $kver under QEMU (TCG, $smp vCPUs; about four minutes)"
started=$(date +%s)
status=0
timeout "$limit" qemu-system-x86_64 -nodefaults -no-user-config -nographic \
    -accel tcg,thread=multi -cpu max -smp "$smp" -m 2048 -no-reboot \
    -smbios type=1,manufacturer=ASUSTeK,product=T103HAF \
    -kernel "$kdir/vmlinux" -initrd "$run/initrd" \
    -append "console=ttyS0 rdinit=/sbin/init panic=-1 loglevel=4 systemd.show_status=0 mitigations=off" \
    -serial "file:$run/console.log" -serial "file:$run/results.raw" -monitor none \
    >"$run/qemu.log" 2>&1 || status=$?
echo "check-kernel: the guest ran $(($(date +%s) - started)) s (QEMU exit $status)"
tr -d '\r' <"$run/results.raw" >"$run/results.log" 2>/dev/null || :
if ! grep -q '^\(ALL PASSED\|SOME FAILED\)' "$run/results.log"; then
    sed 's/^/  /' "$run/results.log"
    tail -40 "$run/console.log" | tr -d '\r' >&2
    cat "$run/qemu.log" >&2
    fail "the checks inside never finished (QEMU exit $status; console: $run/console.log)"
fi
grep -v '^JOURNAL ' "$run/results.log" | sed 's/^/  /'
sed -n 's/^JOURNAL //p' "$run/results.log" >"$run/journal.log"
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
if grep -q '^FAIL' "$run/results.log" || ! grep -q '^ALL PASSED' "$run/results.log"; then
    fail "$(grep -c '^FAIL' "$run/results.log") failed (console: $run/console.log; orientd's journal: $run/journal.log)"
fi
echo "check-kernel: $(grep -c '^PASS' "$run/results.log") passed, 0 failed"
