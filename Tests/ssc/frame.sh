#!/bin/bash
# Runs inside the guest of scripts/check-ssc/frame.sh (a one-time experiment,
# not a check): what libssc (ssccli) and iio-sensor-proxy 3.9 built with SSC
# support make of the mock SSC service's readings, and what each does when
# the service is killed and started again. Writes NOTE lines (FRAME: the
# orientation table) to the second serial port; FAIL only where the
# experiment itself could not run.
set -u
here=$(dirname "$(readlink -f "$0")")
. "$here/kernel-lib.sh"
. "$here/lib.sh"
finish() {
    sed 's/^/JOURNAL ssc-server: /' "$ssc_log" >"$out" 2>/dev/null
    grep -v -e '^<<<<<<' -e 'Message 1025' -e 'sent by driver' -e '^$' /run/isp.log | sed 's/^/JOURNAL iio-sensor-proxy: /' >"$out" 2>/dev/null
    if [ "$failed" = 0 ]; then report "ALL PASSED"; else report "SOME FAILED"; fi
    exit 0
}
# No pgrep in the root (procps is not in minbase).
pids_of() { local p; for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"; done; }
prop() {
    gdbus call --system --dest net.hadess.SensorProxy --object-path /net/hadess/SensorProxy \
        --method org.freedesktop.DBus.Properties.Get net.hadess.SensorProxy "$1" 2>&1 | tr -d "()<>,'"
}
# after LOG N PATTERN: LOG's lines after line N that match PATTERN, one line.
after() { tail -n +"$(($2 + 1))" "$1" | grep -E "$3" | sed 's/^ *//' | oneline; }
grew() { [ "$(tail -n +"$(($2 + 1))" "$1" | grep -c -E "$3")" -gt 0 ]; }

note "kernel $(uname -r), $(systemctl --version | head -1), libssc $(dpkg-query -W -f '${Version}' libssc2)"
modprobe qrtr || fail "modprobe qrtr"
ssc_prepare
ssc_accel 0.0 -9.81 0.0
ssc_light 123.0 456.0
ssc_proximity 1 1
ssc_compass 90
t0=$SECONDS
if ssc_start 120; then
    note "ssc-server up in $((SECONDS - t0)) s: $(qrtr-lookup | oneline)"
else
    fail "ssc-server not listed after 120 s: $(qrtr-lookup 2>&1 | oneline); $(oneline <"$ssc_log")"
    finish
fi

# --- libssc: what ssccli prints for each file ---------------------------------
ssccli_says() { timeout 30 ssccli --sensor "$1" --timeout 3 2>&1 | sort | uniq -c | sed 's/^ *//' | head -3 | oneline; }
note "ssccli for acceleration [0.0,-9.81,0.0]: $(ssccli_says accelerometer)"
note "ssccli for intensity [123.0,456.0]: $(ssccli_says light)"
note "ssccli for near 1, distance 1: $(ssccli_says proximity)"
note "ssccli for the rotation vector of heading 90: $(ssccli_says compass)"
ssc_accel 1.5 -2.5 9.0
note "ssccli for acceleration [1.5,-2.5,9.0]: $(ssccli_says accelerometer)"
ssc_matrix=0.0,1.0,0.0,-1.0,0.0,0.0,0.0,0.0,1.0
ssc_accel 1.5 -2.5 9.0
note "ssccli for acceleration [1.5,-2.5,9.0] with mount_matrix [0,1,0,-1,0,0,0,0,1]: $(ssccli_says accelerometer)"
ssc_matrix=1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,1.0

# --- a libssc client streaming across a kill and a restart of the server ------
ssc_accel 0.0 -9.81 0.0
stream=/run/ssccli-stream.log
stdbuf -oL ssccli -v --sensor accelerometer --timeout 120 >"$stream" 2>&1 &
wait_for 30 grep -q 'Accelerometer sensor measurement' "$stream"
ssc_kill
killed=$(date +%T.%N | cut -c1-12)
before=$(grep -c 'Y=-9.81' "$stream")
wait_for 10 false
note "ssccli -v when the server was killed ($killed): $(grep -E 'Qrtr-DEBUG|Qmi-DEBUG.*hangup|WARN|CRIT|rror' "$stream" | tail -n +5 | sed 's/^.*DEBUG: //' | oneline); measurements after: $(($(grep -c 'Y=-9.81' "$stream") - before)); running: $([ -n "$(pids_of ssccli)" ] && echo yes || echo no)"
ssc_accel 9.81 0.0 0.0
ssc_start 120 || fail "ssc-server did not come back"
wait_for 20 grep -q 'X=9.81' "$stream"
note "ssccli -v after the restart: $(grep -E 'Qrtr-DEBUG' "$stream" | tail -2 | sed 's/^.*DEBUG: //' | oneline); measurements of the new reading in 20 s: $(grep -c 'X=9.81' "$stream"); running: $([ -n "$(pids_of ssccli)" ] && echo yes || echo no)"
kill $(pids_of ssccli) 2>/dev/null

# --- iio-sensor-proxy built with SSC support, on the tagged misc device -------
note "udev: $(udevadm info -q property /sys/class/misc/cpu_dma_latency | grep -E 'IIO_SENSOR_PROXY_TYPE|SYSTEMD_WANTS' | oneline)"
ssc_accel 0.0 -9.81 0.0
systemd-run --quiet --unit=isp --setenv=G_MESSAGES_DEBUG=all sh -c 'exec /usr/local/libexec/iio-sensor-proxy -v >/run/isp.log 2>&1'
wait_for 60 busctl --system status net.hadess.SensorProxy || fail "iio-sensor-proxy never took its bus name: $(tail -5 /run/isp.log | oneline)"
# Its discovery opens and closes each sensor: a claim before that ends waits.
wait_for 60 grep -q 'Found SSC compass' /run/isp.log
mon=/run/monitor-accel.log
stdbuf -oL monitor-sensor --accel >"$mon" 2>&1 &
wait_for 60 grep -q 'orientation changed' "$mon"
note "FRAME acceleration [0.0,-9.81,0.0] (first reading): $(after "$mon" 0 'orientation changed|Has accel|Tilt')"
for v in "0.0 9.81 0.0" "-9.81 0.0 0.0" "9.81 0.0 0.0" "0.0 -9.81 0.0" "0.0 0.0 9.81" "0.0 -9.81 0.0" "0.0 0.0 -9.81" "9.81 0.0 0.0" "0.0 0.0 9.81"; do
    n=$(wc -l <"$mon")
    # shellcheck disable=SC2086
    ssc_accel $v
    if wait_for 8 grew "$mon" "$n" 'orientation changed|Tilt changed'; then
        wait_for 2 false
        seen=$(after "$mon" "$n" 'orientation changed|Tilt changed')
    else
        seen="(no change in 8 s)"
    fi
    note "FRAME acceleration [${v// /,}] m/s²: monitor-sensor: $seen; AccelerometerOrientation now $(prop AccelerometerOrientation)"
done
lp=/run/monitor-light.log
stdbuf -oL monitor-sensor --light --proximity >"$lp" 2>&1 &
wait_for 30 grep -q 'Has ambient light' "$lp"
n=$(wc -l <"$lp")
ssc_light 250.0 7.0
wait_for 10 grew "$lp" "$n" 'Light changed'
note "light: intensity [123.0,456.0] then [250.0,7.0]: $(after "$lp" 0 'light|Light' | cut -c1-300); LightLevel $(prop LightLevel) $(prop LightLevelUnit)"
for p in "0 10" "1 1" "0 10"; do
    n=$(wc -l <"$lp")
    # shellcheck disable=SC2086
    ssc_proximity $p
    wait_for 10 grew "$lp" "$n" 'Proximity'
    note "proximity near,distance=${p/ /,}: $(after "$lp" "$n" 'Proximity'); ProximityNear $(prop ProximityNear)"
done
clog=/run/monitor-compass.log
setpriv --reuid=geoclue --regid=geoclue --clear-groups stdbuf -oL monitor-sensor --compass >"$clog" 2>&1 &
wait_for 30 grep -q 'heading changed' "$clog"
for h in 180 270 0 90; do
    n=$(wc -l <"$clog")
    ssc_compass "$h"
    wait_for 10 grew "$clog" "$n" 'heading changed'
    note "compass for heading $h ($(grep -o '"rotation":[^]]*]' "$ssc_data/sensor-rotationvector.json")): $(after "$clog" "$n" 'heading changed')"
done

# --- iio-sensor-proxy across a kill and a restart of the server ---------------
ssc_accel 0.0 -9.81 0.0
ssc_proximity 1 1
wait_for 10 sh -c "[ \"\$(gdbus call --system --dest net.hadess.SensorProxy --object-path /net/hadess/SensorProxy --method org.freedesktop.DBus.Properties.Get net.hadess.SensorProxy ProximityNear)\" = '(<true>,)' ]"
a=$(wc -l <"$mon") b=$(wc -l <"$lp") c=$(wc -l </run/isp.log)
ssc_kill
wait_for 10 false
note "iio-sensor-proxy 10 s after the kill: $(systemctl is-active isp); HasAccelerometer $(prop HasAccelerometer), AccelerometerOrientation $(prop AccelerometerOrientation), HasProximity $(prop HasProximity), ProximityNear $(prop ProximityNear); monitor-sensor: $(after "$mon" "$a" .)$(after "$lp" "$b" .); its log: $(tail -n +"$((c + 1))" /run/isp.log | grep -E 'Qrtr|hangup|WARN|CRIT' | sed 's/^.*DEBUG: //' | sort -u | head -4 | oneline)"
ssc_accel 9.81 0.0 0.0
ssc_proximity 0 10
ssc_start 120 || fail "ssc-server did not come back"
wait_for 20 grew "$mon" "$a" 'orientation changed'
note "iio-sensor-proxy 20 s after the restart (the file now left-up, far): $(systemctl is-active isp); AccelerometerOrientation $(prop AccelerometerOrientation), ProximityNear $(prop ProximityNear); monitor-sensor: $(after "$mon" "$a" .)$(after "$lp" "$b" .)"
kill $(pids_of monitor-sensor) 2>/dev/null
finish
