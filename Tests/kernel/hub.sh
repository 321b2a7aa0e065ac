# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# the HID sensor hub's accelerometer through the kernel's hid-sensor-accel-3d
# (checks 1 to 5): bound, tagged by udev, orientd started by udev's rule,
# four turns through the buffer, the hwdb matrix and the z sign in orientctl
# status, and monitor-sensor with orientd activated by name.

# 1. The kernel binds hid-sensor-hub and hid-sensor-accel-3d to the emulated
# hub; udev tags the IIO device and applies the hwdb matrix of the faked DMI.
check_hub_binds() {
    : >"$hub_log"
    start_hub
    if wait_for 20 iio_by_name accel_3d; then
        dev=$(iio_by_name accel_3d)
        node=/dev/$(basename "$dev")
        wait_for 10 test -c "$node"
        udevadm settle -t 10
        props=$(udevadm info -q property "$dev")
        types=$(echo "$props" | sed -n 's/^IIO_SENSOR_PROXY_TYPE=//p')
        matrix=$(echo "$props" | sed -n 's/^ACCEL_MOUNT_MATRIX=//p')
        trigger=$(for t in /sys/bus/iio/devices/trigger*; do cat "$t/name"; done 2>/dev/null | oneline)
        scan=$(cat "$dev/scan_elements/in_accel_x_type" 2>/dev/null)
        if [[ "$types" == *iio-buffer-accel* ]] && [ -n "$matrix" ] && [[ "$trigger" == *accel_3d-dev* ]]; then
            pass "the kernel's hid-sensor-accel-3d: $dev ($(readlink -f "$dev/../../driver" | xargs basename 2>/dev/null)), trigger $trigger, x $scan, scale $(cat "$dev/in_accel_scale"), IIO_SENSOR_PROXY_TYPE=$types, ACCEL_MOUNT_MATRIX=$matrix, node $(stat -c '%G %a' "$node")"
        else
            fail "accel_3d's udev properties: types '$types', matrix '$matrix', triggers '$trigger'"
        fi
        for other in als prox; do
            if d=$(iio_by_name "$other"); then
                note "$other on the same hub: $d ($(ls "$d" | grep -E '^in_' | oneline))"
            else
                note "no $other device on the hub"
            fi
        done
    else
        fail "no accel_3d IIO device appeared: $(dmesg | grep -i -E 'hid|sensor|uhid' | tail -8 | oneline); hub: $(oneline <"$hub_log")"
        finish
    fi
}

# 2. udev's rule started orientd (no client has connected yet), which captures
# through the buffer and the HID trigger.
check_udev_starts_orientd() {
    if wait_for 30 active orientd.service; then
        pass "udev started orientd.service on the new sensor ($(systemctl show -P TriggeredBy orientd.service), no client yet)"
    else
        fail "orientd.service is $(systemctl is-active orientd.service) after the sensor appeared: $(journal | tail -5 | oneline)"
    fi
}

# 3. Four turns, through the buffer. The T103HAF matrix maps raw (x, y, z) to
# the panel's (-y, x, -z): raw -x is normal, -y left-up, +x bottom-up, +y
# right-up (milli-g).
check_turns_through_buffer() {
    watch_log=$(mktemp)
    orientctl watch >"$watch_log" 2>&1 &
    watcher=$!
    send "accel -1000 0 0"
    wait_for 15 grep -q '^normal' "$watch_log"
    seen=""
    for turn in "0 -1000 0:left-up" "1000 0 0:bottom-up" "0 1000 0:right-up" "-1000 0 0:normal"; do
        send "accel ${turn%%:*}"
        if wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^${turn#*:}'"; then
            seen="$seen ${turn#*:}"
        else
            seen="$seen (no ${turn#*:})"
        fi
    done
    capture=$(journal | grep -m 1 -E "buffered capture started|polling")
    mode=$(orientctl --json status | grep -o '"capture":"[a-z]*"')
    if [ "$seen" = " left-up bottom-up right-up normal" ] && [[ "$capture" == *"buffered capture started"* ]] && [ "$mode" = '"capture":"buffered"' ]; then
        pass "four turns through the buffer:$seen; orientctl watch printed: $(cut -d' ' -f1 "$watch_log" | oneline); orientd: $capture; status $mode"
    else
        fail "four turns:$seen; orientctl watch printed: $(oneline <"$watch_log"); orientd: '$capture'; status $mode"
    fi
}

# 4. What orientd decided about the device: the matrix from udev's hwdb, the
# z sign of a HID sensor.
check_status_matrix_and_z_sign() {
    status=$(orientctl --json status 2>&1)
    if [[ "$status" == *'"matrix":"0, -1, 0; 1, 0, 0; 0, 0, -1"'* ]] || [[ "$status" == *'"matrix":"0,-1,0;1,0,0;0,0,-1"'* ]]; then
        pass "the hwdb matrix applies: $(echo "$status" | grep -o '"mount_matrix":{[^}]*}')"
    else
        fail "mount matrix: $(echo "$status" | grep -o '"mount_matrix":{[^}]*}')"
    fi
    zsign=$(echo "$status" | grep -o '"z_sign":{[^}]*}')
    if [[ "$zsign" == *'"sign":-1'* ]]; then
        pass "the HID driver's z sign: $zsign"
    else
        fail "the HID driver's z sign: $zsign"
    fi
    note "status: $(echo "$status" | grep -o '"sensor":{[^}]*}')"
    kill "$watcher" 2>/dev/null
    wait "$watcher" 2>/dev/null
}

# 5. D-Bus: monitor-sensor (orientd activated by name; stopped first) sees the
# orientation and follows a turn.
check_monitor_sensor_activation() {
    systemctl stop orientd.service
    monitor_log=$(mktemp)
    stdbuf -oL monitor-sensor >"$monitor_log" 2>&1 &
    monitor=$!
    wait_for 10 grep -q "Waiting for iio-sensor-proxy" "$monitor_log"
    dbus-send --system --print-reply --dest=net.hadess.SensorProxy /net/hadess/SensorProxy \
        org.freedesktop.DBus.Properties.Get string:net.hadess.SensorProxy string:HasAccelerometer >/dev/null 2>&1
    if wait_for 30 grep -q "Accelerometer orientation changed\|=== Has accelerometer" "$monitor_log"; then
        send "accel 0 -1000 0"
        if wait_for 15 grep -q "orientation changed: left-up" "$monitor_log" && active orientd.service \
            && journalctl -u dbus.service --no-pager | grep -q "Activating via systemd: service name='net.hadess.SensorProxy'"; then
            pass "monitor-sensor, orientd activated by name: $(oneline <"$monitor_log")"
        else
            fail "monitor-sensor after a turn to left-up: $(oneline <"$monitor_log")"
        fi
    else
        fail "monitor-sensor: $(oneline <"$monitor_log"); orientd $(systemctl is-active orientd.service)"
    fi
}
