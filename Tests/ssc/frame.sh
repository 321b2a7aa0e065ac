#!/bin/bash
# Runs inside the guest of scripts/check-ssc/frame.sh (a one-time experiment,
# not a check): what libssc and iio-sensor-proxy built with SSC support make
# of the mock SSC service's readings. Writes NOTE lines to the second serial
# port; FAIL only where the experiment itself could not run.
set -u
here=$(dirname "$(readlink -f "$0")")
. "$here/kernel-lib.sh"
. "$here/lib.sh"
finish() {
    sed 's/^/JOURNAL ssc-server: /' "$ssc_log" >"$out" 2>/dev/null
    sed 's/^/JOURNAL iio-sensor-proxy: /' /run/isp.log >"$out" 2>/dev/null
    if [ "$failed" = 0 ]; then report "ALL PASSED"; else report "SOME FAILED"; fi
    exit 0
}
note "kernel $(uname -r), $(systemctl --version | head -1), libssc $(dpkg-query -W -f '${Version}' libssc2)"
modprobe qrtr || fail "modprobe qrtr"
note "AF_QIPCRTR: $(python3 -c 'import socket; socket.socket(socket.AF_QIPCRTR, socket.SOCK_DGRAM); print("ok")' 2>&1)"
ssc_prepare
ssc_accel 0.0 -9.81 0.0
ssc_light 123.0 456.0
ssc_proximity 1 1
ssc_compass 90
ssc_magnetometer 0.1 0.2 0.3
t0=$SECONDS
if ssc_start 120; then
    note "ssc-server up in $((SECONDS - t0)) s: $(qrtr-lookup | oneline)"
else
    fail "ssc-server not listed after 120 s: $(qrtr-lookup 2>&1 | oneline); $(oneline <"$ssc_log")"
    finish
fi
# What libssc reports for each file.
for s in accelerometer light proximity compass magnetometer; do
    note "ssccli --sensor $s: $(timeout 20 stdbuf -oL ssccli --sensor "$s" --timeout 3 2>&1 | head -8 | oneline)"
done
note "the accelerometer file: $(cat "$ssc_data/sensor-accelerometer.json" | cut -c1-400)"
ssc_accel 1.5 -2.5 9.0
note "ssccli for acceleration [1.5,-2.5,9.0]: $(timeout 20 stdbuf -oL ssccli --sensor accelerometer --timeout 2 2>&1 | grep -v '^$' | tail -3 | oneline)"

# A libssc client streaming while the server is killed and started again.
ssc_accel 0.0 -9.81 0.0
stream=/run/ssccli-stream.log
( timeout 150 stdbuf -oL ssccli --sensor accelerometer --timeout 140 2>&1; echo "EXIT $?" ) | while IFS= read -r l; do echo "$(date +%s.%N | cut -c1-14) $l"; done >"$stream" &
wait_for 30 grep -q -i -E 'accel|[0-9]\.[0-9]' "$stream"
lines_before=$(wc -l <"$stream")
killed_at=$(date +%s.%N | cut -c1-14)
ssc_kill
wait_for 10 false
lines_dead=$(wc -l <"$stream")
note "ssccli streaming: $lines_before lines before the kill at $killed_at; $((lines_dead - lines_before)) lines in the 10 s after it: $(tail -n +"$((lines_before + 1))" "$stream" | head -6 | oneline)"
ssc_accel 9.81 0.0 0.0
restarted=$(date +%s.%N | cut -c1-14)
ssc_start 120 || fail "ssc-server did not come back"
up=$(date +%s.%N | cut -c1-14)
wait_for 20 false
note "ssccli after the restart (started $restarted, listed $up): $(tail -n +"$((lines_dead + 1))" "$stream" | head -6 | oneline); last: $(tail -2 "$stream" | oneline); running: $(pgrep -x ssccli >/dev/null && echo yes || echo no)"
pkill -x ssccli

# iio-sensor-proxy, built with -Dssc-support=enabled, on the tagged misc device.
note "udev: $(udevadm info -q property /sys/class/misc/cpu_dma_latency | grep -E 'IIO_SENSOR_PROXY_TYPE|SYSTEMD_WANTS' | oneline)"
ssc_accel 0.0 -9.81 0.0
ssc_compass 90
systemd-run --quiet --unit=isp --setenv=G_MESSAGES_DEBUG=all sh -c 'exec /usr/local/libexec/iio-sensor-proxy -v >/run/isp.log 2>&1'
wait_for 60 sh -c 'busctl --system status net.hadess.SensorProxy' || fail "iio-sensor-proxy never took its bus name: $(tail -5 /run/isp.log | oneline)"
mon=/run/monitor.log
stdbuf -oL monitor-sensor >"$mon" 2>&1 &
monitor=$!
wait_for 60 grep -q 'Accelerometer orientation changed\|=== Has accelerometer' "$mon"
prop() { gdbus call --system --dest net.hadess.SensorProxy --object-path /net/hadess/SensorProxy --method org.freedesktop.DBus.Properties.Get net.hadess.SensorProxy "$1" 2>&1 | tr -d "()<>,'"; }
for v in "0.0 -9.81 0.0" "0.0 9.81 0.0" "-9.81 0.0 0.0" "9.81 0.0 0.0" "0.0 0.0 -9.81" "0.0 -9.81 0.0" "0.0 0.0 9.81" "0.0 -9.81 0.0" "9.81 0.0 0.0" "0.0 0.0 -9.81"; do
    n=$(wc -l <"$mon")
    # shellcheck disable=SC2086
    ssc_accel $v
    if wait_for 10 sh -c "[ \$(tail -n +$((n + 1)) '$mon' | grep -c 'orientation changed') -gt 0 ]"; then
        seen=$(tail -n +$((n + 1)) "$mon" | grep 'orientation changed' | sed 's/^ *//' | oneline)
    else
        seen="(no change in 10 s)"
    fi
    note "FRAME accel ($v) m/s²: monitor-sensor: $seen; AccelerometerOrientation: $(prop AccelerometerOrientation)"
done
n=$(wc -l <"$mon")
ssc_light 250.0 7.0
wait_for 10 sh -c "tail -n +$((n + 1)) '$mon' | grep -q 'Light changed'"
note "light intensity [250.0, 7.0]: $(tail -n +$((n + 1)) "$mon" | grep 'Light' | sed 's/^ *//' | head -3 | oneline); LightLevel $(prop LightLevel) $(prop LightLevelUnit)"
for p in "0 10" "1 1" "0 10"; do
    n=$(wc -l <"$mon")
    # shellcheck disable=SC2086
    ssc_proximity $p
    wait_for 10 sh -c "tail -n +$((n + 1)) '$mon' | grep -q 'Proximity'"
    note "proximity near,distance=$p: $(tail -n +$((n + 1)) "$mon" | grep 'Proximity' | sed 's/^ *//' | head -2 | oneline); ProximityNear $(prop ProximityNear)"
done
note "monitor-sensor so far: $(grep -v 'orientation changed' "$mon" | sed 's/^ *//' | head -12 | oneline)"
# The compass, as GeoClue's user (iio-sensor-proxy's default geoclue-user).
clog=/run/compass.log
setpriv --reuid=geoclue --regid=geoclue --clear-groups stdbuf -oL monitor-sensor --compass >"$clog" 2>&1 &
cmon=$!
wait_for 30 grep -q 'compass' "$clog"
for h in 90 180 270 0; do
    n=$(wc -l <"$clog")
    ssc_compass "$h"
    wait_for 10 sh -c "tail -n +$((n + 1)) '$clog' | grep -q 'heading changed'"
    note "compass rotation for $h°: $(grep -o '"rotation":[^]]*]' "$ssc_data/sensor-rotationvector.json"): $(tail -n +$((n + 1)) "$clog" | grep 'heading' | tail -1 | sed 's/^ *//')"
done
note "compass monitor: $(head -4 "$clog" | oneline)"
kill "$cmon"
# iio-sensor-proxy while the server is killed and restarted.
n=$(wc -l <"$mon")
ssc_kill
wait_for 15 false
note "iio-sensor-proxy with the server killed: alive $(systemctl is-active isp); monitor-sensor: $(tail -n +$((n + 1)) "$mon" | head -5 | sed 's/^ *//' | oneline); log: $(tail -4 /run/isp.log | oneline)"
n=$(wc -l <"$mon")
ssc_accel 9.81 0.0 0.0
ssc_start 120
wait_for 20 false
note "iio-sensor-proxy after the restart: alive $(systemctl is-active isp); monitor-sensor: $(tail -n +$((n + 1)) "$mon" | head -5 | sed 's/^ *//' | oneline); orientation $(prop AccelerometerOrientation)"
kill "$monitor"
finish
