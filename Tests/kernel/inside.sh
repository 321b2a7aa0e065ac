#!/bin/bash
# Runs inside the QEMU guest of `make check-kernel` (scripts/check-kernel/run.sh)
# as a oneshot unit once the system is up. Each check writes PASS or FAIL and
# what it saw to the second serial port (/dev/ttyS1, read by run.sh); then
# orientd's journal as JOURNAL lines, and last ALL PASSED or SOME FAILED.
# Every wait polls for its condition with a deadline.
set -u
out=/dev/ttyS1
stty -F "$out" raw -echo 2>/dev/null
failed=0
report() { echo "$*" >"$out"; echo "$*"; }
pass() { report "PASS $*"; }
fail() {
    report "FAIL $*"
    failed=1
}
note() { report "NOTE $*"; }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -ge "$deadline" ] && return 1
        sleep 0.1
    done
}
active() { [ "$(systemctl is-active "$1")" = active ]; }
oneline() { tr '\n' '|' | sed 's/|$//'; }
journal() { journalctl -u orientd.service -o cat --no-pager; }
finish() {
    journalctl -u orientd.service -o short-monotonic --no-pager 2>&1 | sed 's/^/JOURNAL /' >"$out"
    sed 's/^/JOURNAL hub: /' /run/hub.log >"$out" 2>/dev/null
    if [ "$failed" = 0 ]; then report "ALL PASSED"; else report "SOME FAILED"; fi
    exit 0
}

hub_fifo=/run/hub.fifo
hub_log=/run/hub.log
hub=""
start_hub() {
    rm -f "$hub_fifo"
    hid-sensor-hub "$hub_fifo" >>"$hub_log" 2>&1 &
    hub=$!
    wait_for 5 test -p "$hub_fifo"
}
send() { echo "$*" >"$hub_fifo"; }
iio_by_name() {
    local d
    for d in /sys/bus/iio/devices/iio:device*; do
        [ "$(cat "$d/name" 2>/dev/null)" = "$1" ] && { echo "$d"; return 0; }
    done
    return 1
}
hub_says() { grep -q -- "$1" "$hub_log"; }

note "kernel $(uname -r), $(systemd --version | head -1)"
modprobe uhid || fail "modprobe uhid"

# 1. The kernel binds hid-sensor-hub and hid-sensor-accel-3d to the emulated
# hub; udev tags the IIO device and applies the hwdb matrix of the faked DMI.
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

# 2. udev's rule started orientd (no client has connected yet), which captures
# through the buffer and the HID trigger.
if wait_for 30 active orientd.service; then
    pass "udev started orientd.service on the new sensor ($(systemctl show -P TriggeredBy orientd.service), no client yet)"
else
    fail "orientd.service is $(systemctl is-active orientd.service) after the sensor appeared: $(journal | tail -5 | oneline)"
fi

# 3. Four turns, through the buffer. The T103HAF matrix maps raw (x, y, z) to
# the panel's (-y, x, -z): raw -x is normal, -y left-up, +x bottom-up, +y
# right-up (milli-g).
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

# 4. What orientd decided about the device: the matrix from udev's hwdb, the
# z sign of a HID sensor.
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

# 5. D-Bus: monitor-sensor (orientd activated by name; stopped first) sees the
# orientation and follows a turn.
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
kill "$monitor" 2>/dev/null
wait "$monitor" 2>/dev/null
send "accel -1000 0 0"

# 6. Nobody listening: once orientd released the sensor the kernel powers it
# down (the hub's last feature report is D4 / no events), and orientd does not
# wake but for its watchdog pings.
pid=$(systemctl show -P MainPID orientd.service)
accel_off() { grep ' accel power ' "$hub_log" | tail -1 | grep -q ' D4 reporting no-events'; }
wait_for 20 accel_off
sleep 1
switches() {
    local total=0 f v
    for f in /proc/"$pid"/task/*/status; do
        v=$(awk '/ctxt_switches/ {s += $2} END {print s}' "$f")
        total=$((total + v))
    done
    echo "$total"
}
per_thread() {
    local f
    for f in /proc/"$pid"/task/*; do
        echo "$(cat "$f/comm"):$(awk '/ctxt_switches/ {s += $2} END {print s}' "$f/status")"
    done | oneline
}
threads_before=$(per_thread)
fds() { ls /proc/"$pid"/fd | wc -l; }
fds_idle_before=$(fds)
fd_list_before=$(ls -l /proc/"$pid"/fd | awk '{print $NF}' | sort)
ping_before=$(systemctl show -P WatchdogTimestampMonotonic orientd.service)
before=$(switches)
sleep 10
after=$(switches)
ping_after=$(systemctl show -P WatchdogTimestampMonotonic orientd.service)
power=$(grep ' accel power ' "$hub_log" | tail -1 | cut -d' ' -f2-)
pings=$([ "$ping_before" = "$ping_after" ] && echo 0 || echo 1)
wakeups=$((after - before))
periodic=$(grep ' accel periodic ' "$hub_log" | tail -1 | cut -d' ' -f4)
if [ "$pid" != 0 ] && [[ "$power" != *" D0 "* || "$power" != *all-events* ]] && [ "$wakeups" -le $((2 * pings)) ]; then
    pass "idle with nobody listening: $wakeups context switches of orientd in 10 s ($pings watchdog ping); the hub's last feature: $power"
else
    fail "idle: $wakeups context switches in 10 s ($pings watchdog pings); the hub's last feature: '$power'; periodic reports $periodic; threads before $threads_before, after $(per_thread)"
fi

# 7. Hotplug while streaming, and the driver unbound and rebound mid-stream:
# orientd follows each time (a turn after it), in the same process, with as
# many fds as before.
restarts=$(systemctl show -P NRestarts orientd.service)
watch_log=$(mktemp)
orientctl watch >"$watch_log" 2>&1 &
watcher=$!
send "accel 0 -1000 0"
wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^left-up'"
captures_before=$(journal | grep -c "buffered capture started")
gone_before=$(journal | grep -c "gone; sensor absent")
# a) the device destroyed and created again while streaming
send quit
wait "$hub"
wait_for 15 sh -c "[ \$(journalctl -u orientd.service -o cat --no-pager | grep -c 'gone; sensor absent') -gt $gone_before ]"
absent=$(tail -n 1 "$watch_log")
start_hub
wait_for 20 iio_by_name accel_3d
udevadm settle -t 10
dev=$(iio_by_name accel_3d)
wait_for 15 sh -c "[ \$(journalctl -u orientd.service -o cat --no-pager | grep -c 'buffered capture started') -gt $captures_before ]"
send "accel 1000 0 0"
if wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^bottom-up'" && [ "$(systemctl show -P MainPID orientd.service)" = "$pid" ]; then
    pass "hotplug while streaming: orientd saw the device go ('$absent') and come back as $(basename "$dev"), then bottom-up, same PID $pid"
else
    fail "hotplug while streaming: after the device came back: $(tail -n 3 "$watch_log" | oneline); pid $(systemctl show -P MainPID orientd.service) (was $pid); $(journal | tail -4 | oneline)"
fi
# b) the driver unbound and bound again mid-stream
captures_before=$(journal | grep -c "buffered capture started")
gone_before=$(journal | grep -c "gone; sensor absent")
cell=$(basename "$(readlink -f "$dev/..")")
echo "$cell" >/sys/bus/platform/drivers/hid_sensor_accel_3d/unbind
wait_for 15 sh -c "[ \$(journalctl -u orientd.service -o cat --no-pager | grep -c 'gone; sensor absent') -gt $gone_before ]"
unbound=$(tail -n 1 "$watch_log")
echo "$cell" >/sys/bus/platform/drivers/hid_sensor_accel_3d/bind
wait_for 20 iio_by_name accel_3d
udevadm settle -t 10
dev=$(iio_by_name accel_3d)
wait_for 15 sh -c "[ \$(journalctl -u orientd.service -o cat --no-pager | grep -c 'buffered capture started') -gt $captures_before ]"
send "accel 0 1000 0"
if wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^right-up'" && [ "$(systemctl show -P MainPID orientd.service)" = "$pid" ]; then
    pass "driver unbound ($cell; watch: '$unbound') and bound again mid-stream: orientd followed to $(basename "$dev"), then right-up, same PID"
else
    fail "unbind/bind: $(tail -n 3 "$watch_log" | oneline); pid $(systemctl show -P MainPID orientd.service) (was $pid); $(journal | tail -4 | oneline)"
fi
send "accel -1000 0 0"
wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^normal'"
mode=$(orientctl --json status | grep -o '"capture":"[a-z]*"')
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
# fds compared idle with idle: nobody listening, the sensor powered down.
wait_for 20 accel_off
sleep 1
fds_after=$(fds)
if [ "$fds_after" = "$fds_idle_before" ] && [ "$(systemctl show -P NRestarts orientd.service)" = "$restarts" ] && active orientd.service; then
    pass "after both, idle again: $fds_after fds open (idle before: $fds_idle_before), no restart"
else
    fail "after both, idle again: fds $fds_idle_before -> $fds_after (new: $(ls -l /proc/"$pid"/fd | awk '{print $NF}' | sort | comm -13 <(echo "$fd_list_before") - | oneline)); restarts $restarts -> $(systemctl show -P NRestarts orientd.service); $(systemctl is-active orientd.service)"
fi
# The device that came back is captured through its buffer again, as the first
# one was (not polled): status while the watcher streamed. udev announces the
# hub's trigger before the accelerometer, so orientd may open the new device
# before udev has run 61-orientd.rules on it (the buffer refused: EACCES); it
# must then take the buffer when the device's own event comes, every time.
refused=$(journal | grep -c "no buffered capture" || true)
retried=$(journal | grep -c "udev announced it again while polling; trying buffered capture again" || true)
if [ "$mode" = '"capture":"buffered"' ] && [ "$retried" -ge "$refused" ]; then
    pass "after hotplug and rebind: capture buffered again ($(journal | grep -c 'buffered capture started') buffered captures started in all; $refused refused before udev had run the rule, each taken again on the device's own event)"
else
    fail "after hotplug and rebind: status $mode; orientd: $(journal | grep -E 'no buffered capture|buffered capture started|polling' | oneline)"
fi

send quit
wait "$hub"
finish
