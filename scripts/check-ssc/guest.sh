# Sourced (not run) by scripts/check-ssc/run.sh and frame.sh, after
# scripts/cache.sh and scripts/check-kernel/kernel.sh (guest_kernel run: $kver,
# $kdir), with $repo set and fail() defined: what both guests share.
#
# The root: a Debian sid
# (unstable) debootstrapped with the Qualcomm Sensor Core stack, which only sid
# has: libssc2, ssccli (libssc-bin) and the mock SSC service ssc-server
# (libssc-tests), with what ssc-server loads (python3-protobuf, python3-gi, and
# libqrtr1 through ctypes), qrtr-lookup (qrtr-tools), and the kernel's QRTR
# modules (net/qrtr: AF_QIPCRTR and its name server).
#
#   ssc_root              sets ssc_base (the root's directory) and ssc_cpio (it as an
#                         initramfs archive): cache entry check-ssc/root-sid
#   ssc_layer LAYER       what both guests add to the root: the udev rule
#                         giving the SSC sensor types, units masked
#   ssc_boot DIR SECONDS  one boot of $kdir/vmlinux with $ssc_cpio and
#                         DIR/layer.cpio; console, results and journal in DIR
ssc_suite=sid
# Beyond minbase: systemd as PID 1 with udev, the system bus and logind's PAM
# module; kmod for modprobe; orientd's libraries; iio-sensor-proxy for
# monitor-sensor; gdbus (libglib2.0-bin) and setpriv (util-linux, in minbase)
# for the D-Bus clients of the checks.
ssc_packages=systemd,systemd-sysv,udev,dbus,kmod,libpam-systemd,libevdev2,libudev1,libsystemd0,iio-sensor-proxy,libglib2.0-bin,libssc2,libssc-bin,libssc-tests,python3,python3-gi,python3-protobuf,libqrtr1,qrtr-tools
ssc_module_dirs="net/qrtr drivers/input"

ssc_root() {
    cached check-ssc "check-ssc/root-$ssc_suite" "$repo/scripts/check-kernel/kernel.sh" guest_recipe "$ssc_suite" "$ssc_packages" "$kver" "$ssc_module_dirs" orientd-ssc
    ssc_base="$cache_path/root"
    ssc_cpio="$cache_path/root.cpio"
    # What the checks need, in the root.
    chroot "$ssc_base" modprobe -S "$kver" --show-depends qrtr >/dev/null 2>&1 || fail "module qrtr is missing from the guest"
    for _f in /usr/libexec/installed-tests/libssc/ssc-server /usr/bin/ssccli /usr/bin/qrtr-lookup /usr/bin/monitor-sensor /usr/bin/gdbus; do
        [ -x "$ssc_base$_f" ] || fail "$_f is missing from the guest's root"
    done
}

# ssc_layer LAYER: the udev rule and masked units both guests need.
ssc_layer() {
    mkdir -p "$1/etc/udev/rules.d" "$1/etc/systemd/system"
    # On a phone the SSC sensors hang off the DSP's FastRPC device
    # (/dev/fastrpc-adsp*, -sdsp*, misc subsystem), which iio-sensor-proxy's
    # own rule tags with IIO_SENSOR_PROXY_TYPE; the daemons key on that tag,
    # not on the device. The guest has no DSP, so a misc device every kernel
    # has, cpu_dma_latency (PM QoS), carries the tag instead. The 80- rule of
    # iio-sensor-proxy then also adds its SYSTEMD_WANTS (the unit is masked).
    cat >"$1/etc/udev/rules.d/61-orientd-check-ssc.rules" <<'RULE'
# make check-ssc: the guest has no FastRPC device; tag a real misc device.
ACTION=="remove", GOTO="orientd_check_ssc_end"
SUBSYSTEM=="misc", KERNEL=="cpu_dma_latency", ENV{IIO_SENSOR_PROXY_TYPE}="ssc-accel ssc-light ssc-proximity ssc-compass"
LABEL="orientd_check_ssc_end"
RULE
    # iio-sensor-proxy would be started by udev's SYSTEMD_WANTS before the
    # SSC service is up (and take the bus name); qrtr-ns is the userspace name
    # server, which the kernel's qrtr module has replaced. The rest is of no
    # use here.
    for _u in iio-sensor-proxy.service qrtr-ns.service apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
        e2scrub_all.timer fstrim.timer e2scrub_reap.service systemd-pstore.service serial-getty@ttyS0.service getty@tty1.service; do
        ln -sf /dev/null "$1/etc/systemd/system/$_u"
    done
}

# ssc_boot DIR SECONDS [CMDLINE-EXTRA]: boots $kdir/vmlinux with $ssc_cpio
# and DIR/layer.cpio appended. ttyS0: the console (kernel, systemd, the checks'
# own output); ttyS1: the checks' results only. Fails when the checks never
# printed their last line.
ssc_boot() {
    _dir=$1
    cat "$ssc_cpio" "$_dir/layer.cpio" >"$_dir/initrd"
    _started=$(date +%s)
    _status=0
    timeout "$2" qemu-system-x86_64 -nodefaults -no-user-config -nographic \
        -accel tcg,thread=multi -cpu max -smp "${CHECK_SSC_SMP:-2}" -m 2048 -no-reboot \
        -kernel "$kdir/vmlinux" -initrd "$_dir/initrd" \
        -append "console=ttyS0 rdinit=/sbin/init panic=-1 loglevel=4 systemd.show_status=0 mitigations=off ${3:-}" \
        -serial "file:$_dir/console.log" -serial "file:$_dir/results.raw" -monitor none \
        >"$_dir/qemu.log" 2>&1 || _status=$?
    rm -f "$_dir/initrd"
    echo "check-ssc: the guest ran $(($(date +%s) - _started)) s (QEMU exit $_status)"
    tr -d '\r' <"$_dir/results.raw" >"$_dir/results.log" 2>/dev/null || :
    if ! grep -q '^\(ALL PASSED\|SOME FAILED\)' "$_dir/results.log"; then
        grep -v '^JOURNAL ' "$_dir/results.log" | sed 's/^/  /'
        tail -40 "$_dir/console.log" | tr -d '\r' >&2
        cat "$_dir/qemu.log" >&2
        fail "the checks inside never finished (QEMU exit $_status; console: $_dir/console.log)"
    fi
    grep -v '^JOURNAL ' "$_dir/results.log" | sed 's/^/  /'
    sed -n 's/^JOURNAL //p' "$_dir/results.log" >"$_dir/journal.log"
}
