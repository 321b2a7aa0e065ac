# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# the hub's sensors powering up together (checks 25 and 26). A HID sensor that
# the kernel has powered down sleeps in its first `_raw` read for twice its
# report interval (hid-sensor-trigger's power-up wait): 200 ms for the
# accelerometer, 500 ms for light and 400 ms for proximity on this hub
# (hid-sensor-hub.c); and as a hub comes back, udev's work on it keeps the
# machine busy. On one thread, each sensor's poll waited for the others'
# sleeps and for the look at sysfs after each udev event.

# reads_of NAME FROM: the hub's input-report reads of sensor NAME after line
# FROM of its log (HUB_LOG_READS), CLOCK_MONOTONIC ms, one a line.
reads_of() { tail -n +"$(($2 + 1))" "$hub_log" | awk -v n="$1" '$2 == n && $3 == "read" { printf "%.0f\n", $1 / 1000 }'; }
# gaps: the gaps between successive times on standard input, ms.
gaps() { awk 'NR > 1 { print $1 - last } { last = $1 }'; }
# largest: the largest number on standard input (0 for none).
largest() { awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }'; }

# 25. Three sensors powering up at once, polled, as the hub comes back: with
# monitor-sensor claiming the accelerometer, light and proximity, the hub is
# destroyed and created again (a resume that re-creates it), its
# accelerometer's node made root's alone by a udev rule (its buffer refused,
# as before udev's own rule has run; polled, as in issue 32). udev's work on
# the new hub keeps the machine busy for seconds. From each sensor's first
# read on, no gap between two reads (the hub's read log) is over 1.5 times
# its longest poll interval: accelerometer 600 ms (400 ms at rest), light
# 1,200 ms (800 ms), proximity 750 ms (500 ms).
check_polls_while_powering_up() {
    local a l p rule=/run/udev/rules.d/99-orientd-check-poll.rules
    mkdir -p /run/udev/rules.d
    echo 'SUBSYSTEM=="iio", ATTR{name}=="accel_3d", MODE="0600", GROUP="root"' >"$rule"
    udevadm control --reload
    powering_log=$(mktemp)
    stdbuf -oL monitor-sensor >"$powering_log" 2>&1 &
    pmon=$!
    wait_for 20 grep -q "=== Has proximity" "$powering_log"
    send quit
    wait "$hub"
    wait_for 15 sh -c "orientctl --json status | grep -q '\"state\":\"absent\"'"
    mark=$(wc -l <"$hub_log")
    HUB_LOG_READS=1 HUB_ACCEL="-1000 0 0" start_hub
    wait_for 20 iio_by_name accel_3d
    accel=$(iio_by_name accel_3d)
    wait_for 20 sh -c "[ \$(tail -n +$((mark + 1)) '$hub_log' | grep -c ' prox read ') -ge 2 ]"
    sleep 7
    kill "$pmon" 2>/dev/null
    wait "$pmon" 2>/dev/null
    polled=$(journal | grep "$(basename "$accel"): sampling at" | tail -1)
    a=$(reads_of accel "$mark" | gaps | largest)
    l=$(reads_of light "$mark" | gaps | largest)
    p=$(reads_of prox "$mark" | gaps | largest)
    ga=$(reads_of accel "$mark" | gaps | awk '$1 > 100' | sort -n | oneline)
    counts="$(reads_of accel "$mark" | wc -l) accelerometer, $(reads_of light "$mark" | wc -l) light, $(reads_of prox "$mark" | wc -l) proximity reads"
    held=$(journal | grep "event loop was held" | tail -2 | oneline)
    if [ -n "$polled" ] && [ "$(reads_of accel "$mark" | wc -l)" -ge 10 ] && [ "$(reads_of light "$mark" | wc -l)" -ge 5 ] \
        && [ "$(reads_of prox "$mark" | wc -l)" -ge 8 ] && [ "$a" -le 600 ] && [ "$l" -le 1200 ] && [ "$p" -le 750 ]; then
        pass "three sensors powering up at once as the hub came back, polled: the largest gap between reads is $a ms for the accelerometer (≤ 600), $l ms for light (≤ 1200), $p ms for proximity (≤ 750); $counts; accelerometer gaps over 100 ms: ${ga:-none}; orientd: ${polled#*: }; ${held:-the loop was never held 200 ms}"
    else
        fail "three sensors powering up at once as the hub came back: largest gaps accelerometer $a ms (≤ 600), light $l ms (≤ 1200), proximity $p ms (≤ 750); $counts; accelerometer gaps over 100 ms: ${ga:-none}; orientd: '$polled'; $held; monitor-sensor: $(head -8 "$powering_log" | oneline)"
    fi
    # The node as udev's rules leave it; orientd takes the buffer again on the change.
    rm -f "$rule"
    udevadm control --reload
    udevadm trigger -c change "$accel"
    udevadm settle -t 10
}

# 26. The rate asked for is the rate delivered: orientd writes the 20 Hz
# its classifier wants to the HID accelerometer's in_accel_sampling_frequency
# (the hub's report interval becomes 50 ms, from 100), and status shows the
# rate measured beside it while a watcher streams through the buffer.
check_delivered_rate() {
    local watcher status asked delivered interval
    orientctl watch >/dev/null 2>&1 &
    watcher=$!
    wait_for 15 sh -c "orientctl --json status | grep -q '\"capture\":\"buffered\"'"
    # A second of readings and more: the measure takes the last two seconds.
    sleep 3
    status=$(orientctl --json status 2>&1)
    text=$(orientctl status 2>&1 | grep -m 1 '^sensor:')
    kill "$watcher" 2>/dev/null
    wait "$watcher" 2>/dev/null
    asked=$(echo "$status" | grep -o '"rate_hz":[0-9.]*' | cut -d: -f2)
    delivered=$(echo "$status" | grep -o '"delivered_hz":[0-9.null]*' | cut -d: -f2)
    interval=$(grep ' accel power D0 ' "$hub_log" | tail -1 | awk '{ print $NF }')
    if [ "$asked" = 20 ] && [ "$interval" = 50 ] && awk -v d="$delivered" 'BEGIN { exit !(d >= 15 && d <= 25) }'; then
        pass "the rate delivered: status says rate_hz $asked, delivered_hz $delivered; the hub's report interval $interval ms (in_accel_sampling_frequency $(cat "$(iio_by_name accel_3d)/in_accel_sampling_frequency" 2>/dev/null)); orientctl status: ${text#sensor:}"
    else
        fail "the rate delivered: rate_hz '$asked', delivered_hz '$delivered', the hub's report interval '$interval' ms; $(echo "$status" | grep -o '"sensor":{[^}]*}'); $(journal | grep sampling_frequency | tail -2 | oneline)"
    fi
}
