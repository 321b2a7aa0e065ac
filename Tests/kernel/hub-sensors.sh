# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# the hub's other sensors through D-Bus (checks 19 and 20): light and
# proximity in the monitor-sensor that check_monitor_sensor_activation
# started, and the compass as GeoClue's user.

# 19. Light and proximity from the hub's als and prox through D-Bus, in the
# same monitor-sensor (root, claiming every sensor): the hub's light changed
# to 120 lux, its presence to 1 then 0. hid-sensor-prox has no near level of
# its own: the faked T103HAF's hwdb entry gives PROXIMITY_NEAR_LEVEL=1 (run.sh).
check_light_and_proximity() {
    send "light 120"
    light=no
    wait_for 15 grep -q "Light changed: 120.000000 (lux)" "$monitor_log" && light=yes
    send "prox 1"
    near=no
    wait_for 15 sh -c "grep 'Proximity value changed' '$monitor_log' | tail -n 1 | grep -q 'changed: 1$'" && near=yes
    send "prox 0"
    far=no
    wait_for 15 sh -c "grep 'Proximity value changed' '$monitor_log' | tail -n 1 | grep -q 'changed: 0$'" && far=yes
    has=$(grep -E '=== (Has|No) (ambient light|proximity)' "$monitor_log" | oneline)
    others=$(orientctl --json status 2>&1 | grep -o '{"kind":"\(light\|proximity\)","device":"[^"]*","syspath":"[^"]*","driver":"[^"]*"' | oneline)
    near_level=$(udevadm info -q property "$(iio_by_name prox)" 2>/dev/null | sed -n 's/^PROXIMITY_NEAR_LEVEL=//p')
    kill "$monitor" 2>/dev/null
    wait "$monitor" 2>/dev/null
    if [ "$light$near$far" = yesyesyes ] && [[ "$has" == *"Has ambient light sensor"*"Has proximity sensor (near: 0)"* ]] \
        && [[ "$others" == *'"kind":"light"'*'"driver":"iio-poll-als"'* ]] && [[ "$others" == *'"kind":"proximity"'*'"driver":"iio-poll-proximity"'* ]]; then
        pass "light and proximity from the hub (hid-sensor-als, hid-sensor-prox, PROXIMITY_NEAR_LEVEL=$near_level from the hwdb) through monitor-sensor: light 120 lux, near, far; $(echo "$has" | tr '|' ';'); status: $(echo "$others" | sed 's/"syspath":"[^"]*",//g'); monitor-sensor: $(grep -E 'Light changed|Proximity value changed' "$monitor_log" | sed 's/^ *//' | oneline)"
    else
        fail "light and proximity from the hub through monitor-sensor: light 120 $light, near $near, far $far; '$has'; status '$others'; PROXIMITY_NEAR_LEVEL '$near_level'; monitor-sensor: $(oneline <"$monitor_log"); $(journal | grep -E 'light|proximity' | tail -4 | oneline)"
    fi
}

# 20. The compass on the same hub: hid-sensor-magn-3d binds to its Compass 3D
# collection and exposes the tilt-compensated heading with a scan element;
# orientctl status lists it on iio-buffer-compass. GeoClue's user (to whom
# the installed bus policy gives ClaimCompass) claims it through
# monitor-sensor and sees CompassHeading follow the hub: 270 (before the
# claim), then 0, 90, 180. Polkit is not on the guest's bus, so orientd's
# default ([dbus] polkit = auto) says yes. nobody's ClaimCompass is refused by
# the bus policy.
check_compass() {
    if cdev=$(iio_by_name magn_3d); then
        udevadm settle -t 10
        ctypes=$(udevadm info -q property "$cdev" | sed -n 's/^IIO_SENSOR_PROXY_TYPE=//p')
        cscan=$(cat "$cdev/scan_elements/in_rot_from_north_magnetic_tilt_comp_type" 2>&1)
        cscale=$(cat "$cdev/in_rot_from_north_magnetic_tilt_comp_scale" "$cdev/in_rot_scale" 2>/dev/null | head -1)
        ctrigger=$(for t in /sys/bus/iio/devices/trigger*; do cat "$t/name"; done 2>/dev/null | grep magn_3d | oneline)
        wait_for 15 sh -c "orientctl --json status | grep -q '\"kind\":\"compass\"'"
        cstatus=$(orientctl --json status 2>&1 | grep -o '{"kind":"compass","device":"[^"]*","syspath":"[^"]*","driver":"[^"]*"')
        send "heading 270"
        refused=$(setpriv --reuid=nobody --regid=nogroup --clear-groups dbus-send --system --print-reply --dest=net.hadess.SensorProxy \
            /net/hadess/SensorProxy/Compass net.hadess.SensorProxy.Compass.ClaimCompass 2>&1)
        compass_log=$(mktemp)
        setpriv --reuid=geoclue --regid=geoclue --clear-groups stdbuf -oL monitor-sensor >"$compass_log" 2>&1 &
        cmon=$!
        headings=""
        if wait_for 30 grep -q -E 'Compass heading changed: 270.000000$|=== Has compass \(heading: 270.000000\)' "$compass_log"; then
            headings=270
            for h in 0 90 180; do
                send "heading $h"
                if wait_for 15 sh -c "grep -E 'Compass heading changed' '$compass_log' | tail -n 1 | grep -q ': $h.000000\$'"; then
                    headings="$headings $h"
                else
                    headings="$headings (no $h)"
                fi
            done
        fi
        kill "$cmon" 2>/dev/null
        wait "$cmon" 2>/dev/null
        captured=$(journal | grep -E "$(basename "$cdev"): compass from the buffer" | tail -1)
        if [[ "$ctypes" == *iio-buffer-compass* ]] && [[ "$cscan" == le:s32/32* ]] && [ -n "$ctrigger" ] && [[ "$cstatus" == *'"driver":"iio-buffer-compass"'* ]] \
            && [ "$headings" = "270 0 90 180" ] && [ -n "$captured" ] && [[ "$refused" == *org.freedesktop.DBus.Error.AccessDenied* ]]; then
            pass "the compass on the hub: $cdev ($(basename "$(readlink -f "$cdev/../driver")"), trigger $ctrigger, heading scan $cscan, scale $cscale, IIO_SENSOR_PROXY_TYPE=$ctypes); status: $(echo "$cstatus" | sed 's/"syspath":"[^"]*",//'); as geoclue, monitor-sensor saw CompassHeading $headings ($(grep -E 'Has compass|Compass heading changed' "$compass_log" | sed 's/^ *//' | oneline)); orientd: ${captured#*: }; nobody's ClaimCompass: $(echo "$refused" | head -1 | cut -c1-120)"
        else
            fail "the compass on the hub: $cdev types '$ctypes', scan '$cscan', trigger '$ctrigger', status '$cstatus'; headings '$headings'; monitor-sensor as geoclue: $(oneline <"$compass_log"); orientd: '$captured'; nobody's claim: $(echo "$refused" | oneline); $(journal | grep -i compass | tail -4 | oneline)"
        fi
    else
        fail "no magn_3d IIO device on the hub: $(dmesg | grep -i -E 'magn|HID-SENSOR-200083' | tail -4 | oneline); $(ls /sys/bus/platform/devices | grep HID-SENSOR | oneline)"
    fi
    send "accel -1000 0 0"
}
