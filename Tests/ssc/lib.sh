# Sourced by Tests/ssc/inside.sh (make check-ssc) and Tests/ssc/frame.sh
# (scripts/check-ssc/frame.sh) in the guest, after Tests/kernel/lib.sh (the
# report on the second serial port, wait_for, oneline): the mock SSC service.
#
# ssc-server (libssc-tests) is libssc's own mock of the DSP's Sensor Core: a
# QMI service 400 (0x190) on a QRTR socket. It takes every sensor from the
# files data/sensor-*.json beside its ssc.py, and reads them all again for
# every measurement it sends (10 a second per enabled sensor, the index
# cycling through the file's "measurements"): replacing a file (rename, so no
# half-written JSON is ever read) changes the reading within 0.1 s, while the
# server runs. The checks run a copy of its Python package, /run/ssc/ssc_server,
# whose data directory holds only the files written here. PYTHONPATH names the
# package's directory too: its generated *_pb2 modules import each other by
# their bare names.
# A reply the server cannot send (its client gone) makes it exit. The server
# forks one process per enabled sensor: it runs as a transient unit
# (ssc-server.service) so that stopping or killing it ends them all, as a DSP
# restart would.
ssc_pkg=/usr/lib/python3/dist-packages/ssc_server
ssc_data=/run/ssc/ssc_server/data
ssc_log=/run/ssc/server.log

ssc_prepare() {
    rm -rf /run/ssc
    mkdir -p /run/ssc
    cp -a "$ssc_pkg" /run/ssc/ssc_server
    # The registry sensor stays: libssc (0.4.4) polls it for the service's
    # availability before discovering any other sensor, and waits for it.
    find "$ssc_data" -name 'sensor-*.json' ! -name sensor-registry.json -delete
}
# ssc_file NAME JSON: sensor-NAME.json, replaced in one rename.
ssc_file() {
    printf '%s\n' "$2" >"$ssc_data/.sensor-$1.json.tmp" && mv -f "$ssc_data/.sensor-$1.json.tmp" "$ssc_data/sensor-$1.json"
}
# ssc_sensor NAME DATA_TYPE UID STREAM_TYPE EXTRA_ATTRS MEASUREMENT: one sensor
# with one measurement (sent again and again). STREAM_TYPE 0 is streaming, 1
# on-change (as the mock's own files: proximity is on-change).
ssc_sensor() {
    ssc_file "$1" "{\"sensor\":{\"data_type\":\"$2\",\"uid_high\":\"$3\",\"uid_low\":\"$3\"},\"attributes\":{\"name\":{\"id\":0,\"value\":\"$1-mock\"},\"vendor\":{\"id\":1,\"value\":\"orientd-check-ssc\"},\"available\":{\"id\":3,\"value\":true},\"sample_rate\":{\"id\":6,\"value\":5.0},\"stream_type\":{\"id\":16,\"value\":$4}$5},\"measurements\":[$6]}"
}
# ssc_accel X Y Z: the accelerometer's reading in m/s², as libssc passes it
# on (Android's frame: upright reads +y), with the identity as its
# mount_matrix attribute (or $ssc_matrix: nine numbers, comma-separated).
ssc_matrix=1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,1.0
ssc_accel() {
    ssc_sensor accelerometer accel 0x0000000000000002 0 ",\"mount_matrix\":{\"id\":20,\"value\":[$ssc_matrix]}" \
        "{\"id\":1025,\"acceleration\":[$1,$2,$3],\"accuracy\":3}"
}
# ssc_light INTENSITY...: the light sensor's "intensity" array (libssc
# reports the first element, in lux).
ssc_light() {
    ssc_sensor light ambient_light 0x0000000000000004 0 "" "{\"id\":1025,\"intensity\":[$(echo "$@" | tr ' ' ',')],\"accuracy\":3}"
}
# ssc_proximity NEAR DISTANCE: 1 near, 0 far; on-change, as the mock's own.
ssc_proximity() {
    ssc_sensor proximity proximity 0x0000000000000001 1 "" "{\"id\":769,\"near\":$1,\"distance\":$2,\"accuracy\":3}"
}
# ssc_compass HEADING: the rotation vector (x, y, z, w) of a turn about z
# whose azimuth, as libssc computes it (atan2(2xy - 2zw, 1 - 2x² - 2z²), in
# degrees, 0-360), is HEADING: z = sin(-HEADING/2), w = cos(HEADING/2).
ssc_compass() {
    ssc_sensor rotationvector rotv 0x0000000000000005 0 "" \
        "{\"id\":1025,\"rotation\":[0.0,0.0,$(awk -v h="$1" 'BEGIN { a = -h * 3.14159265358979 / 360; printf "%.6f,%.6f", sin(a), cos(a) }')],\"accuracy\":3}"
}
ssc_magnetometer() {
    ssc_sensor magnetometer mag 0x0000000000000003 0 "" "{\"id\":1025,\"magnetic_field\":[$1,$2,$3],\"accuracy\":3}"
}

ssc_listed() { qrtr-lookup 2>/dev/null | awk '$1 == 400 { found = 1 } END { exit !found }'; }
# ssc_start SECONDS: starts the server and waits for service 400 in the name
# server's list (15-40 s under TCG: Python's start and protobuf's import).
ssc_start() {
    systemctl reset-failed ssc-server.service 2>/dev/null
    systemd-run --quiet --unit=ssc-server --setenv=PYTHONPATH=/run/ssc:/run/ssc/ssc_server --setenv=PYTHONUNBUFFERED=1 \
        sh -c "exec python3 /usr/libexec/installed-tests/libssc/ssc-server 2>&1 | grep --line-buffered -v -e '^SSC DATA' -e 'Measurement [0-9]' -e 'Sending sensor measurements' >>$ssc_log" \
        || return 1
    wait_for "$1" ssc_listed_or_dead && ssc_listed
}
# Listed, or the server has exited (no point waiting for it then).
ssc_listed_or_dead() { ssc_listed || ! systemctl -q is-active ssc-server.service; }
ssc_running() { [ "$(systemctl is-active ssc-server.service)" = active ]; }
# ssc_kill: SIGKILL to the server and its sensor processes, as a crash would;
# waits until service 400 is gone from the name server's list.
ssc_kill() {
    systemctl kill --signal=SIGKILL ssc-server.service
    wait_for 20 sh -c '! systemctl -q is-active ssc-server.service' && wait_for 20 sh -c '! qrtr-lookup 2>/dev/null | awk "\$1 == 400 { f = 1 } END { exit !f }"'
}
ssc_stop() { systemctl stop ssc-server.service 2>/dev/null; systemctl reset-failed ssc-server.service 2>/dev/null; }
