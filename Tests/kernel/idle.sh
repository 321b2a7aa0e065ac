# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# orientd idle and across hotplug on the HID hub (checks 6 to 10): its
# context switches with nobody listening, the hub destroyed and created
# again and the driver unbound and bound while streaming, the fds and the
# buffered capture after both, and hotplug while idle.

# accel_off: the hub's last feature report for the accelerometer is D4, no events.
accel_off() { grep ' accel power ' "$hub_log" | tail -1 | grep -q ' D4 reporting no-events'; }
# switches: orientd's context switches, all threads ($pid).
switches() {
    local total=0 f v
    for f in /proc/"$pid"/task/*/status; do
        v=$(awk '/ctxt_switches/ {s += $2} END {print s}' "$f")
        total=$((total + v))
    done
    echo "$total"
}
# per_thread: each of orientd's threads with its context switches.
per_thread() {
    local f
    for f in /proc/"$pid"/task/*; do
        echo "$(cat "$f/comm"):$(awk '/ctxt_switches/ {s += $2} END {print s}' "$f/status")"
    done | oneline
}
# fds: how many fds orientd has open.
fds() { ls /proc/"$pid"/fd | wc -l; }

# 6. Nobody listening: once orientd released the sensor the kernel powers it
# down (the hub's last feature report is D4 / no events), and orientd does not
# wake but for its watchdog pings.
check_idle_nobody_listening() {
    pid=$(systemctl show -P MainPID orientd.service)
    wait_for 20 accel_off
    sleep 1
    threads_before=$(per_thread)
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
}

# states LOG FROM: the states orientctl watch --json wrote after line FROM,
# one a line: t_ms, sensor, physical.
states() {
    awk -v from="$2" 'NR > from {
        t = s = p = "";
        if (match($0, /"t_ms":[0-9.]+/)) t = substr($0, RSTART + 7, RLENGTH - 7);
        if (match($0, /"sensor":"[a-z]+"/)) s = substr($0, RSTART + 10, RLENGTH - 11);
        if (match($0, /"physical":"[a-z-]+"/)) p = substr($0, RSTART + 12, RLENGTH - 13);
        print t, s, p }' "$1"
}
# accel_added_ms LOG FROM: when udevadm monitor saw the kernel add the hub's
# accelerometer (HID-SENSOR-200073) after line FROM, CLOCK_MONOTONIC ms.
accel_added_ms() {
    tail -n +"$(($2 + 1))" "$1" | awk '/ add / && /HID-SENSOR-200073/ && /iio:device/ {
        if (match($0, /\[[0-9.]+\]/)) { printf "%.0f\n", substr($0, RSTART + 1, RLENGTH - 2) * 1000; exit } }'
}
# back_as EXPECTED WHAT: the device came back (udevadm monitor's log from
# $kmark) after the loss the watcher logged up to line $mark, held at
# EXPECTED while it was gone: the first state published after the loss is
# active and EXPECTED (nothing between), within 2 s of the kernel's add; and
# monitor-sensor (from line $dmark) shows no other orientation on the way.
back_as() {
    local added first t dbus seen
    wait_for 20 sh -c "[ -n \"\$(awk -v from=$mark 'NR > from && /\"sensor\":\"active\"/' '$watch_log')\" ]"
    wait_for 10 sh -c "tail -n +$((dmark + 1)) '$monitor_log' | grep -q 'changed: $1'"
    added=$(accel_added_ms "$udev_log" "$kmark")
    first=$(states "$watch_log" "$mark" | head -1)
    t=${first%% *}
    dbus=$(tail -n +"$((dmark + 1))" "$monitor_log" | grep -E 'orientation|accelerometer' | sed 's/^ *//' | oneline)
    # Every orientation monitor-sensor showed after the loss.
    seen=$(tail -n +"$((dmark + 1))" "$monitor_log" | grep -o -E '(changed: |orientation: )[a-z-]+' | awk '{print $NF}' | sort -u | oneline)
    latency=$(awk -v a="${added:-0}" -v t="${t:-0}" 'BEGIN { printf "%.0f", t - a }')
    if [ "${first#* }" = "active $1" ] && [ -n "$added" ] && [ "$latency" -le 2000 ] && [ "$latency" -ge 0 ] \
        && { [ "$seen" = "$1" ] || [ "$seen" = "$1|undefined" ]; }; then
        pass "$2: the first state after the loss is '${first#* }', ${latency} ms after the kernel added the device (nothing published between); monitor-sensor: $dbus"
    else
        fail "$2: states after the loss: $(states "$watch_log" "$mark" | head -4 | oneline); kernel add at ${added:-?} ms (latency ${latency} ms); monitor-sensor: $dbus; $(journal | tail -6 | oneline)"
    fi
}

# 7. Hotplug while streaming, and the driver unbound and rebound mid-stream,
# the device turned while it was gone: the first state published after it
# comes back is its orientation now, active, within 2 s under TCG, with
# nothing stale between (orientctl watch and monitor-sensor); orientd follows
# in the same process, with as many fds as before.
check_hotplug_while_streaming() {
    restarts=$(systemctl show -P NRestarts orientd.service)
    watch_log=$(mktemp)
    udev_log=$(mktemp)
    monitor_log=$(mktemp)
    orientctl watch --json >"$watch_log" 2>&1 &
    watcher=$!
    stdbuf -oL monitor-sensor >"$monitor_log" 2>&1 &
    monitor=$!
    stdbuf -oL udevadm monitor -k -s iio >"$udev_log" 2>&1 &
    umon=$!
    send "accel -1000 0 0"
    wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '\"physical\":\"normal\".*\"sensor\":\"active\"'"
    wait_for 15 grep -q "changed: normal" "$monitor_log"
    captures_before=$(journal | grep -c "buffered capture started")
    # a) the device destroyed, and created again held left-up
    mark_loss
    send quit
    wait "$hub"
    wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '\"sensor\":\"absent\"'"
    mark=$(wc -l <"$watch_log")
    absent=$(states "$watch_log" $((mark - 1)) | oneline)
    kmark=$(wc -l <"$udev_log")
    HUB_LOG_READS=1 HUB_ACCEL="0 -1000 0" start_hub
    wait_for 20 iio_by_name accel_3d
    back_as left-up "hub destroyed while streaming at normal (then '$absent'), created again held left-up"
    dev=$(iio_by_name accel_3d)
    # udev's rule done, the buffer taken again (check 9), before the next turn.
    wait_for 20 sh -c "orientctl --json status | grep -q '\"capture\":\"buffered\"'"
    send "accel 1000 0 0"
    if wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '\"physical\":\"bottom-up\"'" && [ "$(systemctl show -P MainPID orientd.service)" = "$pid" ]; then
        pass "hotplug while streaming: orientd followed to $(basename "$dev"), then bottom-up, same PID $pid"
    else
        fail "hotplug while streaming: after the device came back: $(states "$watch_log" "$mark" | tail -3 | oneline); pid $(systemctl show -P MainPID orientd.service) (was $pid); $(journal | tail -4 | oneline)"
    fi
    # b) the driver unbound, the device turned right-up, bound again
    cell=$(basename "$(readlink -f "$dev/..")")
    wait_for 10 grep -q "changed: bottom-up" "$monitor_log"
    mark_loss
    echo "$cell" >/sys/bus/platform/drivers/hid_sensor_accel_3d/unbind
    wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '\"sensor\":\"absent\"'"
    mark=$(wc -l <"$watch_log")
    kmark=$(wc -l <"$udev_log")
    send "accel 0 1000 0"
    echo "$cell" >/sys/bus/platform/drivers/hid_sensor_accel_3d/bind
    wait_for 20 iio_by_name accel_3d
    back_as right-up "driver unbound ($cell) while streaming at bottom-up, bound again held right-up"
    dev=$(iio_by_name accel_3d)
    wait_for 20 sh -c "orientctl --json status | grep -q '\"capture\":\"buffered\"'"
    send "accel -1000 0 0"
    wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '\"physical\":\"normal\"'"
    mode=$(orientctl --json status | grep -o '"capture":"[a-z]*"')
    note "captures started across both: $(($(journal | grep -c 'buffered capture started') - captures_before))"
    kill "$watcher" "$monitor" "$umon" 2>/dev/null
    wait "$watcher" "$monitor" "$umon" 2>/dev/null
}
# mark_loss: where monitor-sensor's log stands before a loss ($dmark).
mark_loss() { dmark=$(wc -l <"$monitor_log"); }

# fds compared idle with idle: nobody listening, the sensor powered down.
check_fds_after_hotplug() {
    wait_for 20 accel_off
    sleep 1
    fds_after=$(fds)
    if [ "$fds_after" = "$fds_idle_before" ] && [ "$(systemctl show -P NRestarts orientd.service)" = "$restarts" ] && active orientd.service; then
        pass "after both, idle again: $fds_after fds open (idle before: $fds_idle_before), no restart"
    else
        fail "after both, idle again: fds $fds_idle_before -> $fds_after (new: $(ls -l /proc/"$pid"/fd | awk '{print $NF}' | sort | comm -13 <(echo "$fd_list_before") - | oneline)); restarts $restarts -> $(systemctl show -P NRestarts orientd.service); $(systemctl is-active orientd.service)"
    fi
}

# The device that came back is captured through its buffer again, as the first
# one was (not polled): status while the watcher streamed. udev announces the
# hub's trigger before the accelerometer, so orientd may open the new device
# before udev has run 61-orientd.rules on it (the buffer refused: EACCES); it
# must then take the buffer when the device's own event comes, every time.
check_buffered_after_hotplug() {
    refused=$(journal | grep -c "no buffered capture" || true)
    retried=$(journal | grep -c "udev announced it again while polling; trying buffered capture again" || true)
    if [ "$mode" = '"capture":"buffered"' ] && [ "$retried" -ge "$refused" ]; then
        pass "after hotplug and rebind: capture buffered again ($(journal | grep -c 'buffered capture started') buffered captures started in all; $refused refused before udev had run the rule, each taken again on the device's own event)"
    else
        fail "after hotplug and rebind: status $mode; orientd: $(journal | grep -E 'no buffered capture|buffered capture started|polling' | oneline)"
    fi
}

# 10. Hotplug while idle: the hub destroyed and created again while nobody
# wants the accelerometer. orientd follows the device without capturing from
# it (no capture starts), and once udev is done its threads wake only for the
# watchdog over 10 s. Then a client gets the reading the hub was given while
# idle. The kernel's power states for the new accelerometer are noted: a
# sysfs read of in_accel_*_raw powers a HID sensor up for a few seconds.
check_hotplug_while_idle() {
    wait_for 20 accel_off
    captures_before=$(journal | grep -c -E "buffered capture started|sampling at")
    gone_before=$(journal | grep -c "gone; sensor absent")
    found_before=$(journal | grep -c "accelerometer: iio:device.* (accel_3d)")
    send quit
    wait "$hub"
    wait_for 15 sh -c "[ \$(journalctl -u orientd.service -o cat --no-pager | grep -c 'gone; sensor absent') -gt $gone_before ]"
    hub_mark=$(wc -l <"$hub_log")
    start_hub
    wait_for 20 iio_by_name accel_3d
    udevadm settle -t 10
    dev=$(iio_by_name accel_3d)
    wait_for 15 sh -c "[ \$(journalctl -u orientd.service -o cat --no-pager | grep -c 'accelerometer: iio:device.* (accel_3d)') -gt $found_before ]"
    found=$(journal | grep "accelerometer: iio:device.* (accel_3d)" | tail -1)
    # Left-up, given while idle: the hub keeps it for the next read or report.
    send "accel 0 -1000 0"
    sleep 2
    ping_before=$(systemctl show -P WatchdogTimestampMonotonic orientd.service)
    before=$(switches)
    sleep 10
    after=$(switches)
    ping_after=$(systemctl show -P WatchdogTimestampMonotonic orientd.service)
    pings=$([ "$ping_before" = "$ping_after" ] && echo 0 || echo 1)
    wakeups=$((after - before))
    captures_idle=$(journal | grep -c -E "buffered capture started|sampling at")
    powered=$(tail -n +"$((hub_mark + 1))" "$hub_log" | grep ' accel power ' | cut -d' ' -f4- | oneline)
    raw_reads=$(tail -n +"$((hub_mark + 1))" "$hub_log" | grep -E ' (accel|light|prox|compass) reads ' | cut -d' ' -f2- | oneline)
    got=$(timeout 20 orientctl get 2>&1 | cut -d' ' -f1)
    captures_after=$(journal | grep -c -E "buffered capture started|sampling at")
    if [ -n "$found" ] && [ "$captures_idle" = "$captures_before" ] && [ "$wakeups" -le $((2 * pings)) ] && [ "$got" = left-up ] \
        && [ "$captures_after" -gt "$captures_idle" ] && [ "$(systemctl show -P MainPID orientd.service)" = "$pid" ]; then
        pass "hotplug while idle: orientd followed the new $(basename "$dev") ('${found#*: }') without capturing from it, $wakeups context switches in 10 s after ($pings watchdog ping), same PID; then orientctl get: $got; the kernel's power states for the new accelerometer: ${powered:-none}; raw reads the hub answered meanwhile: ${raw_reads:-none}"
    else
        fail "hotplug while idle: found '$found'; captures $captures_before -> $captures_idle while idle -> $captures_after after a client; $wakeups context switches in 10 s ($pings pings); orientctl get '$got'; PID $(systemctl show -P MainPID orientd.service) (was $pid); power states: $powered; $(journal | tail -4 | oneline)"
    fi
}
