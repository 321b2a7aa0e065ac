# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# the input-subsystem sensors made through /dev/uinput, with the hub gone
# (checks 12 to 15): orientd started by udev on an input accelerometer, four
# turns from it through the socket and through D-Bus, and proximity from a
# SW_FRONT_PROXIMITY switch.

# 12. With no IIO accelerometer (the hub is gone), udev's rule starts orientd
# on the input accelerometer, which orientd reads through evdev with the
# axes' resolution as the scale.
check_input_accel_starts_orientd() {
    # The hub goes, and with it the last IIO accelerometer.
    send quit
    wait "$hub"
    : >"$ulog"
    modprobe uinput || fail "modprobe uinput"
    systemctl stop orientd.service
    start_uinput
    if iio=$(accel_iio); then
        fail "an IIO accelerometer is still there ($iio, $(cat "$iio/name")): the input accelerometer's checks need none"
    fi
    if ucreate accel; then
        anode=$(event_node accel)
        aprops=$(udevadm info -q property "$anode")
        wait_for 30 active orientd.service
        wait_for 15 sh -c "orientctl --json status | grep -q '\"driver\":\"input-accel\"'"
        status=$(orientctl --json status 2>&1)
        sensor=$(echo "$status" | grep -o '"sensors":\[{"kind":"accelerometer","device":"[^"]*","syspath":"[^"]*","driver":"[^"]*"')
        probed=$(evdev-probe "$anode" 2>&1)
        # udev would call three absolute axes without keys an accelerometer even
        # without the property (input_id's fallback for older drivers): the
        # property is checked as libevdev sees it.
        if [[ "$aprops" == *ID_INPUT_ACCELEROMETER=1* ]] && [[ "$probed" == *" INPUT_PROP_ACCELEROMETER "*"res 1024]"* ]] && active orientd.service && [[ "$sensor" == *"\"device\":\"$(basename "$anode")\""*'"driver":"input-accel"'* ]]; then
            pass "udev's rule started orientd on the uinput accelerometer, no IIO accelerometer present: $anode ($(echo "$aprops" | grep -E '^(ID_INPUT_ACCELEROMETER|IIO_SENSOR_PROXY_TYPE)=' | oneline)); libevdev: $probed; orientd: $(echo "$sensor" | sed 's/.*"device":/device /')"
        else
            fail "the input accelerometer: $anode props '$(echo "$aprops" | oneline)'; libevdev '$probed'; orientd $(systemctl is-active orientd.service); sensor '$sensor'; $(journal | tail -4 | oneline)"
        fi
    else
        fail "uinput-sensors made no accelerometer: $(oneline <"$ulog"); $(dmesg | tail -3 | oneline)"
    fi
}

# 13. Four turns from the input accelerometer through the socket (orientctl
# watch), read as evdev events, the scale from the axes' resolution.
check_input_turns_socket() {
    watch_log=$(mktemp)
    orientctl watch >"$watch_log" 2>&1 &
    watcher=$!
    uaccel 0 -1000 0
    wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^normal'"
    turn_setter=uaccel
    turn_pattern='^%s'
    seen=$(turns "$watch_log")
    mode=$(orientctl --json status | grep -o '"capture":"[a-z]*"')
    got=$(orientctl get 2>&1 | cut -d' ' -f1)
    units=$(journal | grep -o "through evdev ([^)]*), [0-9]* units per g" | tail -1)
    kill "$watcher" 2>/dev/null
    wait "$watcher" 2>/dev/null
    if [ "$seen" = " left-up bottom-up right-up normal" ] && [ "$mode" = '"capture":"events"' ] && [ "$got" = normal ] && [[ "$units" == *"1024 units per g" ]]; then
        pass "four turns from the input accelerometer through the socket:$seen; orientctl watch printed: $(cut -d' ' -f1 "$watch_log" | oneline); orientctl get: $got; status $mode; orientd: $units"
    else
        fail "input accelerometer, four turns:$seen; watch: $(oneline <"$watch_log"); get '$got'; status $mode; '$units'"
    fi
}

# 14. The same four turns through D-Bus (monitor-sensor, which claims the
# accelerometer).
check_input_turns_dbus() {
    monitor_log=$(mktemp)
    stdbuf -oL monitor-sensor >"$monitor_log" 2>&1 &
    monitor=$!
    if wait_for 20 grep -q "=== Has accelerometer" "$monitor_log"; then
        turn_pattern='orientation changed: %s$|=== Has accelerometer \(orientation: %s\)'
        seen=$(turns "$monitor_log")
        if [ "$seen" = " left-up bottom-up right-up normal" ]; then
            pass "four turns from the input accelerometer through D-Bus:$seen; monitor-sensor: $(oneline <"$monitor_log")"
        else
            fail "input accelerometer through D-Bus:$seen; monitor-sensor: $(oneline <"$monitor_log")"
        fi
    else
        fail "monitor-sensor never saw the input accelerometer: $(oneline <"$monitor_log")"
    fi
    kill "$monitor" 2>/dev/null
    wait "$monitor" 2>/dev/null
}

# 15. Proximity from the SW_FRONT_PROXIMITY switch through D-Bus: the state at
# the daemon's start is the kernel's (set near while orientd was stopped, so
# no event of it reached orientd), then far and near as events, and the
# sensor's removal reads as gone.
check_proximity_switch() {
    if ucreate prox 0; then
        pnode=$(event_node prox)
        systemctl stop orientd.service
        usend prox 1
        wait_for 5 grep -q ' prox sent 1' "$ulog"
        kernel_state=$(evdev-probe "$pnode" 2>&1 | grep -o 'SW_FRONT_PROXIMITY=[01]')
        monitor_log=$(mktemp)
        stdbuf -oL monitor-sensor >"$monitor_log" 2>&1 &
        monitor=$!
        wait_for 10 grep -q "Waiting for iio-sensor-proxy" "$monitor_log"
        dbus-send --system --print-reply --dest=net.hadess.SensorProxy /net/hadess/SensorProxy \
            org.freedesktop.DBus.Properties.Get string:net.hadess.SensorProxy string:HasProximity >/dev/null 2>&1
        near_at_start=no
        wait_for 30 grep -q -E "Proximity value changed: 1|=== Has proximity sensor \(near: 1\)" "$monitor_log" && near_at_start=yes
        at_start=$(oneline <"$monitor_log")
        usend prox 0
        far=no
        wait_for 15 grep -q "Proximity value changed: 0" "$monitor_log" && far=yes
        usend prox 1
        near=no
        wait_for 15 sh -c "grep 'Proximity value changed' '$monitor_log' | tail -n 1 | grep -q 'changed: 1'" && near=yes
        pstatus=$(orientctl --json status | grep -o '{"kind":"proximity","device":"[^"]*","syspath":"[^"]*","driver":"[^"]*"')
        usend remove prox
        gone=no
        wait_for 15 grep -q -- "--- Proximity sensor disappeared" "$monitor_log" && gone=yes
        kill "$monitor" 2>/dev/null
        wait "$monitor" 2>/dev/null
        if [ "$kernel_state" = SW_FRONT_PROXIMITY=1 ] && [ "$near_at_start" = yes ] && [ "$far" = yes ] && [ "$near" = yes ] && [ "$gone" = yes ] \
            && [[ "$pstatus" == *'"driver":"input-proximity"'* ]]; then
            pass "proximity from SW_FRONT_PROXIMITY ($pnode) through D-Bus: near at orientd's start from the kernel's state ($kernel_state, set while orientd was stopped), then far, near, gone; status: $(echo "$pstatus" | sed 's/.*"device":/device /'); monitor-sensor: $(oneline <"$monitor_log")"
        else
            fail "proximity from SW_FRONT_PROXIMITY: kernel '$kernel_state', near at start $near_at_start (monitor-sensor then: $at_start), far $far, near $near, gone $gone; status '$pstatus'; monitor-sensor: $(oneline <"$monitor_log"); $(journal | grep -i prox | tail -4 | oneline)"
        fi
    else
        fail "uinput-sensors made no proximity switch: $(tail -3 "$ulog" | oneline)"
    fi
}
