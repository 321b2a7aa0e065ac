# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# orientd and iio-sensor-proxy side by side on hid-sensor-accel-3d (check 11).

# 11. Side by side on the same driver: the same turns read by orientd and
# then by iio-sensor-proxy through the same D-Bus client (monitor-sensor,
# every line stamped as it arrives), each daemon alone on the bus name.
# Recorded: the turns each published and the latency from the write to the
# hub (bash's EPOCHREALTIME, the clock the stamps use) to the signal, median
# and p95, and their ratios: under TCG an absolute time means little, a ratio
# from one run does. BENCH lines carry the kernel_* keys (run.sh writes them to
# .build/check-kernel/run/bench.json). Passes when each daemon published every
# turn, in order.
side_turns="0 -1000 0:left-up 1000 0 0:bottom-up 0 1000 0:right-up -1000 0 0:normal"
side_turns="$side_turns $side_turns"
stamp() { local line; while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done; }
# side_by_side NAME: monitor-sensor through the turns; prints "SEQUENCE;LATENCIES-MS".
side_by_side() {
    local log fifo mon stamper seq="" lat="" t0 n want line t1 x y z
    # shellcheck disable=SC2086
    log=$(mktemp)
    fifo=$(mktemp -u)
    mkfifo "$fifo"
    stamp <"$fifo" >"$log" &
    stamper=$!
    stdbuf -oL monitor-sensor >"$fifo" 2>&1 &
    mon=$!
    if ! wait_for 30 grep -q "=== Has accelerometer" "$log"; then
        kill "$mon" 2>/dev/null
        wait "$mon" "$stamper" 2>/dev/null
        echo "(no accelerometer: $(cut -d' ' -f2- "$log" | oneline));"
        return
    fi
    send "accel -1000 0 0"
    wait_for 15 sh -c "grep -E 'orientation changed|Has accelerometer' '$log' | tail -n 1 | grep -q 'normal'"
    set -- $side_turns
    while [ $# -ge 3 ]; do
        x=$1 y=$2 z=${3%%:*} want=${3#*:}
        shift 3
        n=$(grep -c "orientation changed: $want\$" "$log")
        t0=$EPOCHREALTIME
        send "accel $x $y $z"
        if wait_for 15 sh -c "[ \$(grep -c 'orientation changed: $want\$' '$log') -gt $n ]"; then
            line=$(grep "orientation changed: $want\$" "$log" | sed -n "$((n + 1))p")
            t1=${line%% *}
            seq="$seq $want"
            lat="$lat $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')"
        else
            seq="$seq (no $want)"
        fi
    done
    kill "$mon" 2>/dev/null
    wait "$mon" "$stamper" 2>/dev/null
    rm -f "$fifo"
    echo "${seq# };${lat# }"
}
# median and p95 (nearest rank) of the numbers given.
percentile() { tr ' ' '\n' | grep . | sort -g | awk -v p="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "null"; exit } i = int(p * NR + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR; print v[i] }'; }
# owned: net.hadess.SensorProxy has an owner on the system bus.
owned() { dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:net.hadess.SensorProxy | grep -q 'boolean true'; }
# ratio A B: A / B with two decimals, or null.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "null" || b == "null" || b == 0) print "null"; else printf "%.2f", a / b }'; }
# json_list and json_nums WORDS: a JSON array of strings, of numbers.
json_list() { echo "$1" | awk '{ printf "["; for (i = 1; i <= NF; i++) printf "%s\"%s\"", (i > 1 ? ", " : ""), $i; printf "]" }'; }
json_nums() { echo "$1" | awk '{ printf "["; for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? ", " : ""), $i; printf "]" }'; }

check_side_by_side() {
    expected=$(set -- $side_turns; while [ $# -ge 3 ]; do printf ' %s' "${3#*:}"; shift 3; done)
    expected=${expected# }
    ours=$(side_by_side orientd)
    # iio-sensor-proxy runs on its own (its unit stays masked: systemd refuses two
    # units with the same BusName=), as root, as its unit would run it, once
    # orientd and its socket are stopped.
    systemctl stop orientd.socket orientd.service
    peer_log=/run/iio-sensor-proxy.log
    /usr/sbin/iio-sensor-proxy >"$peer_log" 2>&1 &
    peer_pid=$!
    peer_started=no
    wait_for 15 owned && peer_started=yes
    peer=$(side_by_side iio-sensor-proxy)
    kill "$peer_pid" 2>/dev/null
    wait "$peer_pid" 2>/dev/null
    wait_for 10 sh -c "! dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:net.hadess.SensorProxy | grep -q 'boolean true'"
    systemctl start orientd.socket
    ours_lat=${ours#*;} peer_lat=${peer#*;}
    ours_med=$(echo "$ours_lat" | percentile 0.5) ours_p95=$(echo "$ours_lat" | percentile 0.95)
    peer_med=$(echo "$peer_lat" | percentile 0.5) peer_p95=$(echo "$peer_lat" | percentile 0.95)
    med_ratio=$(ratio "$ours_med" "$peer_med")
    p95_ratio=$(ratio "$ours_p95" "$peer_p95")
    report "BENCH \"kernel_step_latency_median_ratio_vs_peer\": $med_ratio"
    report "BENCH \"kernel_step_latency_p95_ratio_vs_peer\": $p95_ratio"
    report "BENCH \"kernel_turns_orientd\": $(json_list "${ours%%;*}")"
    report "BENCH \"kernel_turns_peer\": $(json_list "${peer%%;*}")"
    report "BENCH \"kernel_step_latency_ms_orientd\": $(json_nums "$ours_lat")"
    report "BENCH \"kernel_step_latency_ms_peer\": $(json_nums "$peer_lat")"
    if [ "${ours%%;*}" = "$expected" ] && [ "${peer%%;*}" = "$expected" ] && [ "$peer_started" = yes ]; then
        pass "side by side on hid-sensor-accel-3d, $(echo "$expected" | wc -w) turns each through monitor-sensor: orientd and iio-sensor-proxy published the same turns; latency median ${ours_med} ms vs ${peer_med} ms (ratio $med_ratio), p95 ${ours_p95} ms vs ${peer_p95} ms (ratio $p95_ratio) under TCG"
    else
        fail "side by side: expected '$expected'; orientd '${ours%%;*}'; iio-sensor-proxy (on the bus: $peer_started) '${peer%%;*}'; its log: $(tail -3 "$peer_log" | oneline)"
    fi
}
