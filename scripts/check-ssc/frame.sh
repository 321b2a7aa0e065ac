#!/bin/sh
# A one-time experiment, not a check (CI does not run it): what libssc and an
# iio-sensor-proxy built with SSC support report for the mock SSC service's
# readings, so that orientd's SSC driver follows the same frame. Builds
# iio-sensor-proxy 3.9 (Debian sid's source package, `apt-get source` in a
# writable layer over the cached sid root, meson -Dssc-support=enabled: sid's
# own amd64 package is built without it; its claim methods patched to skip
# polkit, which the guest does not run: a claim by anyone is allowed, nothing
# else changes), then boots the check-ssc guest
# (scripts/check-ssc/guest.sh) with it in /usr/local/libexec and runs
# Tests/ssc/frame.sh there: ssc-server's start, ssccli's output for each
# sensor, a streaming ssccli across a kill and a restart of the server, then
# iio-sensor-proxy with monitor-sensor through ten accelerometer readings
# (±9.81 m/s² on each axis), light, proximity and the compass. Prints the NOTE
# lines (the FRAME ones are the table); everything is kept in
# .build/check-ssc/frame. About 3.5 minutes with the root cached.
#
#   scripts/check-ssc/frame.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work="$repo/.build/check-ssc/frame"
fail() {
    echo "check-ssc frame: FAILED: $*" >&2
    exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, overlay mounts)"
for tool in qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap cpio:cpio dpkg-deb:dpkg unshare:util-linux; do
    command -v "${tool%%:*}" >/dev/null || fail "${tool%%:*} is missing (Debian: ${tool#*:})"
done
. "$repo/scripts/cache.sh"
. "$repo/scripts/check-kernel/kernel.sh"
. "$here/guest.sh"
guest_kernel
ssc_root

# --- iio-sensor-proxy with SSC support ---------------------------------------
build="$work/build"
isp="$build/upper/src/iio-sensor-proxy-3.9/build/src"
if [ ! -x "$isp/iio-sensor-proxy" ]; then
    rm -rf "$build"
    mkdir -p "$build/upper" "$build/work" "$build/merged"
    # In a private mount namespace: the overlay goes when it ends. The sid
    # snapshot the mirror serves may have an expired Release file.
    unshare -m sh -euc '
        mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/merged"
        mount -t proc proc "$2/merged/proc"
        cp /etc/resolv.conf "$2/merged/etc/resolv.conf"
        chroot "$2/merged" sh -euc "
            echo \"deb-src ${DEBIAN_MIRROR:-http://deb.debian.org/debian} sid main\" >/etc/apt/sources.list.d/src.list
            apt-get -o Acquire::Check-Valid-Until=false update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libssc-dev libgudev-1.0-dev \
                libpolkit-gobject-1-dev systemd-dev meson gcc pkg-config dpkg-dev xz-utils bzip2 ca-certificates >/dev/null
            mkdir -p /src && cd /src && apt-get source -qq iio-sensor-proxy=3.9-1
            cd iio-sensor-proxy-3.9
            sed -i \"s|^\tsubject = polkit_system_bus_name_new (sender);|\treturn TRUE; /* check-ssc frame: no polkitd */\n&|\" src/iio-sensor-proxy.c
            grep -q \"check-ssc frame: no polkitd\" src/iio-sensor-proxy.c
            meson setup build -Dssc-support=enabled -Dgtk-tests=false -Dtests=false
            ninja -C build
        "
    ' sh "$ssc_base" "$build" >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; fail "building iio-sensor-proxy with SSC support (log: $work/build.log)"; }
fi

# --- the layer ----------------------------------------------------------------
run="$work/run"
layer="$run/layer"
rm -rf "$run"
mkdir -p "$layer/usr/local/libexec" "$layer/usr/local/bin" "$layer/usr/local/lib/orientd-ssc-check" \
    "$layer/etc/systemd/system/multi-user.target.wants" "$layer/usr/lib/sysusers.d"
ssc_layer "$layer"
install -m 0755 "$isp/iio-sensor-proxy" "$layer/usr/local/libexec/iio-sensor-proxy"
install -m 0755 "$isp/monitor-sensor" "$layer/usr/local/bin/monitor-sensor"
install -m 0644 "$repo/Tests/kernel/lib.sh" "$layer/usr/local/lib/orientd-ssc-check/kernel-lib.sh"
install -m 0644 "$repo"/Tests/ssc/*.sh "$layer/usr/local/lib/orientd-ssc-check/"
chmod 0755 "$layer/usr/local/lib/orientd-ssc-check/frame.sh"
echo 'u geoclue - "GeoClue (check-ssc frame)" /var/lib/geoclue' >"$layer/usr/lib/sysusers.d/orientd-check-ssc.conf"
cat >"$layer/etc/systemd/system/orientd-ssc-frame.service" <<'UNIT'
[Unit]
Description=What libssc and iio-sensor-proxy make of the mock SSC service (check-ssc frame)
After=multi-user.target dbus.service systemd-udevd.service
[Service]
Type=oneshot
ExecStart=/usr/local/lib/orientd-ssc-check/frame.sh
ExecStopPost=/bin/systemctl --no-block poweroff
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=900
UNIT
ln -s ../orientd-ssc-frame.service "$layer/etc/systemd/system/multi-user.target.wants/orientd-ssc-frame.service"
(cd "$layer" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$run/layer.cpio"
echo "check-ssc frame: booting $kver with the sid root under QEMU (TCG)"
ssc_boot "$run" 1000
