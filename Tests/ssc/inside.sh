#!/bin/bash
# Runs inside the QEMU guest of `make check-ssc` (scripts/check-ssc/run.sh) as
# a oneshot unit once the system is up, with the files it sources beside it:
# kernel-lib.sh (Tests/kernel/lib.sh: the report on the second serial port,
# wait_for, oneline, journal) and lib.sh (the mock SSC service). Each check
# writes PASS or FAIL and what it saw to /dev/ttyS1; then orientd's journal
# and ssc-server's log as JOURNAL lines, and last ALL PASSED or SOME FAILED.
# Every wait polls for its condition with a deadline. The checks (numbered as
# in Tests/ssc/README.md) run in order and share the server, orientd's PID
# and the monitor-sensor that check 2 starts.
#
# The accelerometer's readings are written in libssc's frame, Android's
# (upright reads +y); orientd turns them half a turn about z
# (docs/behaviour.md, "A Qualcomm phone"), so that (0, +9.81, 0) is normal and
# (+9.81, 0, 0) right-up. iio-sensor-proxy 3.9 reports the same readings
# unturned: bottom-up and left-up (scripts/check-ssc/frame.sh).
set -u
here=$(dirname "$(readlink -f "$0")")
. "$here/kernel-lib.sh"
. "$here/lib.sh"
ssc_finish() {
    sed 's/^/JOURNAL ssc-server: /' "$ssc_log" >"$out" 2>/dev/null
    journalctl -u dbus.service -o short-monotonic --no-pager 2>&1 | grep -i -E 'sensorproxy|orientd' | sed 's/^/JOURNAL system: /' >"$out"
    finish
}
# No pgrep in the root (procps is not in minbase).
pids_of() { local p; for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"; done; }
prop() {
    gdbus call --system --dest net.hadess.SensorProxy --object-path "${2:-/net/hadess/SensorProxy}" \
        --method org.freedesktop.DBus.Properties.Get "${3:-net.hadess.SensorProxy}" "$1" 2>&1 | tr -d "()<>,'"
}
# sensors: the Sensor Core's sensors in `orientctl --json status` (its
# "daemon" member is the status message, docs/protocol.md, "Status"), one
# word each: the accelerometer's sensor.state (active, idle, absent) and each
# ssc-* entry's state in `sensors` (in-use, idle, skipped, or "none" when not
# listed): "accelerometer=active light=in-use proximity=in-use compass=idle".
status_py='
import json, sys
try:
    d = json.load(sys.stdin).get("daemon") or {}
except Exception:
    d = {}
ssc = [e for e in d.get("sensors", []) if str(e.get("driver") or "").startswith("ssc-")]
if sys.argv[1] == "reasons":
    print("; ".join(e["kind"] + " " + e["state"] + ": " + str(e.get("reason")) for e in ssc) or "no ssc-* entries")
    sys.exit(0)
kinds = {e["kind"]: e["state"] for e in ssc}
out = ["accelerometer=" + (d.get("sensor") or {}).get("state", "none") + ("" if "accelerometer" in kinds else "(no-ssc-entry)")]
out += [k + "=" + kinds.get(k, "none") for k in ("light", "proximity", "compass")]
print(" ".join(out))'
sensors() { orientctl --json status 2>/dev/null | python3 -c "$status_py" states; }
# sensors_are PATTERN: sensors's line matches the extended regex.
sensors_are() { sensors | grep -q -E "$1"; }
# The states and reasons status gives for the ssc-* entries, one line.
ssc_reasons() { orientctl --json status 2>/dev/null | python3 -c "$status_py" reasons; }
# last_is LOG PATTERN LINE-PATTERN: the last line of LOG matching PATTERN
# matches LINE-PATTERN.
last_is() { grep -E "$2" "$1" | tail -n 1 | grep -q -E "$3"; }
# heading_is LOG DEGREES: the last compass heading in LOG is within 0.5° of
# DEGREES (libssc computes it in floats: 270 reads 269.999969).
heading_is() {
    grep -E 'Compass heading changed|Has compass \(heading' "$1" | tail -n 1 | grep -o -E -- '-?[0-9]+\.[0-9]+' | tail -1 \
        | awk -v h="$2" '{ d = $1 - h; if (d < 0) d = -d; if (d > 180) d = 360 - d; ok = d < 0.5 } END { exit !ok }'
}
# geoclue_heading DEGREES: as geoclue, one bus connection (python3-gi) claims
# the compass and reads CompassHeading until it is within 0.5° of DEGREES
# (20 s at most; a claim holds only for its connection, so two gdbus calls
# would not do); prints the last value read.
geoclue_heading() {
    setpriv --reuid=geoclue --regid=geoclue --clear-groups python3 -c '
import sys, time
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
def call(method, args=None):
    return bus.call_sync("net.hadess.SensorProxy", "/net/hadess/SensorProxy/Compass", *method, args, None, 0, 5000, None)
call(("net.hadess.SensorProxy.Compass", "ClaimCompass"))
want, value, deadline = float(sys.argv[1]), None, time.monotonic() + 20
while time.monotonic() < deadline:
    value = call(("org.freedesktop.DBus.Properties", "Get"), GLib.Variant("(ss)", ("net.hadess.SensorProxy.Compass", "CompassHeading"))).unpack()[0]
    d = abs(value - want) % 360
    if min(d, 360 - d) < 0.5:
        break
    time.sleep(0.2)
print(value)
d = abs(value - want) % 360
sys.exit(0 if min(d, 360 - d) < 0.5 else 1)' "$1" 2>&1 | tail -1
}
# turn X Y Z NAME LOG: writes the reading, waits for NAME as the last
# orientation monitor-sensor printed in LOG.
turn() {
    ssc_accel "$1" "$2" "$3"
    wait_for 20 last_is "$5" 'orientation changed|Has accelerometer' "(changed: |orientation: )$4[),]?\$|orientation: $4,"
}
# orientd's processes: the daemon and its children (its Sensor Core process,
# `orientd --sensor-core`, which alone loads libssc).
children() { cat /proc/"$pid"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -v '^$'; }
family_tasks() { local p; for p in "$pid" $(children); do ls -d /proc/"$p"/task/* 2>/dev/null; done; }
switches() {
    local total=0 f v
    for f in $(family_tasks | sed 's|$|/status|'); do
        v=$(awk '/ctxt_switches/ {s += $2} END {print s}' "$f")
        total=$((total + v))
    done
    echo "$total"
}
per_thread() {
    local f
    for f in $(family_tasks); do echo "$(cat "$f/comm"):$(awk '/ctxt_switches/ {s += $2} END {print s}' "$f/status")"; done | oneline
}
# The daemon's fds, and its Sensor Core processes (one at most may run).
fds() { echo "$(ls /proc/"$pid"/fd | wc -l)/$(children | wc -l)"; }

note "kernel $(uname -r), $(systemctl --version | head -1), libssc $(dpkg-query -W -f '${Version}' libssc2), $(qrtr-lookup --help 2>&1 | head -1 | cut -c1-40)"
note "udev on the tagged misc device: $(udevadm info -q property /sys/class/misc/cpu_dma_latency | grep -E 'IIO_SENSOR_PROXY_TYPE|SYSTEMD_WANTS|TAGS' | oneline)"
modprobe qrtr || fail "modprobe qrtr: $(dmesg | tail -3 | oneline)"
ssc_prepare
# Upright (orientd: normal), 100 lux, far, heading 90.
ssc_accel 0.0 9.81 0.0
ssc_light 100.0 0.0
ssc_proximity 0 10
ssc_compass 90

# 1. The mock Sensor Core is up: QRTR's name server lists service 400.
check_server_up() {
    local t0=$SECONDS
    if ssc_start 180; then
        pass "ssc-server up in $((SECONDS - t0)) s: qrtr-lookup: $(qrtr-lookup | awk '$1 == 400' | sed 's/  */ /g')"
    else
        fail "ssc-server: service 400 not listed after $((SECONDS - t0)) s (unit $(systemctl is-active ssc-server.service)): qrtr-lookup: $(qrtr-lookup 2>&1 | oneline); log: $(tail -8 "$ssc_log" | oneline)"
        report "NOTE checks 2-7 not run: no Sensor Core service"
        fail "2-7: not run (no ssc-server)"
        ssc_finish
    fi
}

# 2. monitor-sensor (root, claiming every sensor) activates orientd by its
# bus name and sees the accelerometer through the four orientations, then
# face up and face down (z as libssc gives it: +9.81 lying face up), and
# upright again.
check_monitor_sensor_turns() {
    systemctl stop orientd.service
    monitor_log=$(mktemp)
    stdbuf -oL monitor-sensor >"$monitor_log" 2>&1 &
    monitor=$!
    wait_for 10 grep -q "Waiting for iio-sensor-proxy" "$monitor_log"
    gdbus call --system --dest net.hadess.SensorProxy --object-path /net/hadess/SensorProxy \
        --method org.freedesktop.DBus.Properties.Get net.hadess.SensorProxy HasAccelerometer >/dev/null 2>&1
    local seen="" t
    if wait_for 60 grep -q -E "Accelerometer orientation changed|=== Has accelerometer \(orientation: [a-z]" "$monitor_log"; then
        for t in "-9.81 0.0 0.0 left-up" "0.0 -9.81 0.0 bottom-up" "9.81 0.0 0.0 right-up" "0.0 9.81 0.0 normal"; do
            # shellcheck disable=SC2086
            if turn $t "$monitor_log"; then seen="$seen ${t##* }"; else seen="$seen (no ${t##* })"; fi
        done
        for t in "0.0 0.0 9.81 face-up" "0.0 0.0 -9.81 face-down" "0.0 9.81 0.0 vertical"; do
            # shellcheck disable=SC2086
            set -- $t
            ssc_accel "$1" "$2" "$3"
            if wait_for 20 last_is "$monitor_log" 'Tilt changed|Has accelerometer' "(changed: |tilt: )$4[),]?\$"; then seen="$seen $4"; else seen="$seen (no $4)"; fi
        done
    fi
    local activated=no
    journalctl -u dbus.service --no-pager | grep -q "Activating via systemd: service name='net.hadess.SensorProxy'" && activated=yes
    if [ "$seen" = " left-up bottom-up right-up normal face-up face-down vertical" ] && active orientd.service && [ "$activated" = yes ]; then
        pass "monitor-sensor activated orientd by name and saw$seen for (-g,0,0) (0,-g,0) (g,0,0) (0,g,0) (0,0,g) (0,0,-g) (0,g,0) in libssc's frame; status: $(sensors); $(grep -E 'orientation changed|Tilt changed|Has accel' "$monitor_log" | sed 's/^ *//' | oneline)"
    else
        fail "monitor-sensor turns: saw '$seen'; orientd $(systemctl is-active orientd.service), activated by name: $activated; status: $(ssc_reasons); monitor-sensor: $(oneline <"$monitor_log" | cut -c1-600); $(journal | grep -i -E 'ssc|sensor core|libssc|qrtr' | tail -5 | oneline)"
    fi
}

# 3. Light in lux: the file's intensity changed to 250, then 42.5.
check_light() {
    local got=""
    ssc_light 250.0 0.0
    wait_for 20 last_is "$monitor_log" 'Light changed|Has ambient light' '250\.0+ \(lux\)|value: 250\.0+, unit: lux' && got="250"
    ssc_light 42.5 0.0
    wait_for 20 last_is "$monitor_log" 'Light changed' 'changed: 42\.50+ \(lux\)' && got="$got 42.5"
    if [ "$got" = "250 42.5" ]; then
        pass "light in lux through monitor-sensor: $(grep -E 'Has ambient light|Light changed' "$monitor_log" | sed 's/^ *//' | oneline); LightLevel $(prop LightLevel) $(prop LightLevelUnit)"
    else
        fail "light: saw '$got' of '250 42.5'; monitor-sensor: $(grep -i light "$monitor_log" | oneline); status: $(ssc_reasons)"
    fi
}

# 4. Proximity: near, then far.
check_proximity() {
    local got=""
    ssc_proximity 1 1
    wait_for 20 last_is "$monitor_log" 'Proximity value changed|Has proximity' 'changed: 1$|near: 1\)' && got=near
    ssc_proximity 0 10
    wait_for 20 last_is "$monitor_log" 'Proximity value changed|Has proximity' 'changed: 0$|near: 0\)' && got="$got far"
    if [ "$got" = "near far" ]; then
        pass "proximity near then far through monitor-sensor: $(grep -E 'Has proximity|Proximity value changed' "$monitor_log" | sed 's/^ *//' | oneline)"
    else
        fail "proximity: saw '$got' of 'near far'; monitor-sensor: $(grep -i proximity "$monitor_log" | oneline); status: $(ssc_reasons)"
    fi
}

# 5. The compass, as GeoClue's user (the installed bus policy gives it
# ClaimCompass): monitor-sensor claims it and sees the heading follow the
# rotation vector, 90 then 180, 270, 0; then a client of its own claims it
# and reads the CompassHeading property (45). Whether nobody may claim it is
# check-kernel's check: here sid's iio-sensor-proxy 3.9 installs a bus policy
# that lets anyone send to the Compass interface (it leaves the decision to
# polkit), and the guest runs no polkit, so `[dbus] polkit = auto` allows it;
# what nobody's claim got is noted.
check_compass() {
    local clog headings="" h refused property
    refused=$(setpriv --reuid=nobody --regid=nogroup --clear-groups gdbus call --system --dest net.hadess.SensorProxy \
        --object-path /net/hadess/SensorProxy/Compass --method net.hadess.SensorProxy.Compass.ClaimCompass 2>&1)
    clog=$(mktemp)
    setpriv --reuid=geoclue --regid=geoclue --clear-groups stdbuf -oL monitor-sensor --compass >"$clog" 2>&1 &
    local cmon=$!
    # 90 is the heading before the claim: monitor-sensor reads CompassHeading
    # once before it claims, then follows PropertiesChanged.
    if wait_for 30 heading_is "$clog" 90; then headings=90; else headings="(no 90)"; fi
    for h in 180 270 0; do
        ssc_compass "$h"
        if wait_for 20 heading_is "$clog" "$h"; then headings="$headings $h"; else headings="$headings (no $h)"; fi
    done
    kill "$cmon" 2>/dev/null
    wait "$cmon" 2>/dev/null
    ssc_compass 45
    property=$(geoclue_heading 45) && property="$property (45 asked)" || property="not 45: $property"
    note "nobody's ClaimCompass (no polkit here, iio-sensor-proxy's open bus policy): $(echo "$refused" | head -1 | cut -c1-100)"
    if [ "$headings" = "90 180 270 0" ] && [[ "$property" == *"(45 asked)" ]]; then
        pass "the compass as geoclue: monitor-sensor saw CompassHeading $headings ($(grep -E 'Has compass|heading changed' "$clog" | sed 's/^ *//' | oneline)); its own claim read the property $property; nobody's ClaimCompass: $(echo "$refused" | head -1 | cut -c1-100)"
    else
        fail "the compass as geoclue: headings '$headings'$([[ "$headings" == "(no 90)"* ]] && echo " (the heading held when geoclue claimed never reached monitor-sensor: it read CompassHeading before its claim, and no PropertiesChanged followed the claim)"); the property as geoclue: $property; monitor-sensor: $(oneline <"$clog"); nobody's ClaimCompass: '$(echo "$refused" | oneline)'$([[ "$refused" == *AccessDenied* ]] || echo " (not refused: iio-sensor-proxy 3.9's own bus policy, installed beside orientd's, lets anyone send to the Compass interface)"); status: $(ssc_reasons)"
    fi
}

# 6. The service killed mid-stream, three times: each sensor absent
# (status), proximity far at once (fail safe: near before the kill), the
# accelerometer's readings followed again once the service is back; the same
# orientd (no crash), its fds not growing from one cycle to the next.
check_server_killed() {
    pid=$(systemctl show -P MainPID orientd.service)
    local cycle results="" ok=yes fd_counts="" down up far back_turn t
    local -a fd_kinds
    for cycle in 1 2 3; do
        ssc_proximity 1 1
        wait_for 20 last_is "$monitor_log" 'Proximity value changed|Has proximity' 'changed: 1$|near: 1\)' || { ok=no; results="$results [$cycle: not near before the kill]"; }
        ssc_kill || { ok=no; results="$results [$cycle: service 400 still listed after the kill]"; }
        down=no far=no up=no back_turn=no
        wait_for 20 sensors_are '^accelerometer=absent.* light=(skipped|none) proximity=(skipped|none) compass=(skipped|none)$' && down=yes
        wait_for 20 sh -c "[ \"\$(gdbus call --system --dest net.hadess.SensorProxy --object-path /net/hadess/SensorProxy --method org.freedesktop.DBus.Properties.Get net.hadess.SensorProxy ProximityNear 2>&1)\" = '(<false>,)' ]" && far=yes
        local while_down
        while_down="$(sensors); $(ssc_reasons | cut -c1-200)"
        case $cycle in 1) t="-9.81 0.0 0.0 left-up" ;; 2) t="0.0 -9.81 0.0 bottom-up" ;; 3) t="0.0 9.81 0.0 normal" ;; esac
        # shellcheck disable=SC2086
        set -- $t
        ssc_accel "$1" "$2" "$3"
        ssc_proximity 0 10
        ssc_start 180 || { ok=no; results="$results [$cycle: ssc-server did not come back]"; }
        wait_for 30 sensors_are '^accelerometer=active light=in-use proximity=in-use compass=(in-use|idle)$' && up=yes
        wait_for 30 last_is "$monitor_log" 'orientation changed|Has accelerometer' "(changed: |orientation: )$4[),]?\$" && back_turn=yes
        fd_counts="$fd_counts $(fds)"
        fd_kinds[$cycle]=$(ls -l /proc/"$pid"/fd | awk 'NR > 1 { sub(/:\[.*/, "", $NF); print $NF }' | sort | uniq -c | awk '{ printf "%s %s, ", $1, $2 }')
        results="$results [$cycle: absent $down ($while_down), far $far, back $up, $4 $back_turn]"
        [ "$down$far$up$back_turn" = yesyesyesyes ] || ok=no
    done
    local now first last
    now=$(systemctl show -P MainPID orientd.service)
    first=$(echo "$fd_counts" | awk '{ print $1 }') last=$(echo "$fd_counts" | awk '{ print $NF }')
    # fds/processes: the daemon's fds no more than after the first return, one Sensor Core process.
    if [ "$ok" = yes ] && [ "$now" = "$pid" ] && [ "${last%/*}" -le "${first%/*}" ] && [ "${last#*/}" -le 1 ]; then
        pass "ssc-server killed and started again 3 times: $results; orientd PID $pid throughout, fds/Sensor Core processes after each return:$fd_counts"
    else
        fail "ssc-server killed and started again: $results; PID $pid -> $now; fds after each return:$fd_counts (after the first: ${fd_kinds[1]}after the third: ${fd_kinds[3]}); monitor-sensor's last lines: $(tail -6 "$monitor_log" | sed 's/^ *//' | oneline); $(journal | grep -i -E 'sensor core|ssc|qrtr' | tail -6 | oneline)"
    fi
}

# 7. Nobody listening: once monitor-sensor has gone, orientd closes the
# Sensor Core's sensors (status: idle) and does not wake: 0 context switches
# in 5 s, over every thread (a window with a watchdog ping is measured again).
check_idle_nobody_listening() {
    kill "$monitor" 2>/dev/null
    wait "$monitor" 2>/dev/null
    pid=$(systemctl show -P MainPID orientd.service)
    local idle=no wakeups=-1 tries=0 before after ping_before ping_after windows=""
    wait_for 20 sensors_are '^accelerometer=idle light=idle proximity=idle compass=idle$' && idle=yes
    while [ "$tries" -lt 3 ]; do
        tries=$((tries + 1))
        ping_before=$(systemctl show -P WatchdogTimestampMonotonic orientd.service)
        before=$(switches)
        sleep 5
        after=$(switches)
        ping_after=$(systemctl show -P WatchdogTimestampMonotonic orientd.service)
        wakeups=$((after - before))
        windows="$windows $wakeups$([ "$ping_before" != "$ping_after" ] && echo '(ping)')"
        [ "$ping_before" = "$ping_after" ] && break
    done
    if [ "$idle" = yes ] && [ "$wakeups" = 0 ] && [ "$ping_before" = "$ping_after" ]; then
        pass "idle with nobody listening: status $(sensors); context switches of orientd in 5 s windows:$windows; threads: $(per_thread)"
    else
        fail "idle with nobody listening: status $(sensors) (idle: $idle); context switches in 5 s windows:$windows; threads: $(per_thread); ssc-server: $(grep -E 'Enabling|Disabling' "$ssc_log" | tail -4 | oneline)"
    fi
}

check_server_up
check_monitor_sensor_turns
check_light
check_proximity
check_compass
check_server_killed
check_idle_nobody_listening
ssc_finish
