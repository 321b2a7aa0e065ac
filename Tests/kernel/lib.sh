# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# the helpers every check uses: the report on the second serial port, the
# waits, the emulated HID hub (hid-sensor-hub.c), the uinput devices
# (uinput-sensors.c), and four turns watched in a log.
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
    sed 's/^/JOURNAL uinput: /' /run/uinput.log >"$out" 2>/dev/null
    journalctl -u systemd-logind.service -u 'getty@*' -u 'modprobe@industrialio.service' -o short-monotonic --no-pager 2>&1 \
        | sed 's/^/JOURNAL system: /' >"$out"
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

# --- input-subsystem sensors through /dev/uinput ------------------------------
# uinput-sensors (Tests/kernel/uinput-sensors.c) makes the devices on command:
# an input accelerometer (INPUT_PROP_ACCELEROMETER, 1024 units per g), a
# SW_FRONT_PROXIMITY switch and a SW_TABLET_MODE switch. The kernel's evdev
# makes their nodes and udev's input_id builtin classifies them.
ufifo=/run/uinput.fifo
ulog=/run/uinput.log
uinput=""
start_uinput() {
    rm -f "$ufifo"
    uinput-sensors "$ufifo" >>"$ulog" 2>&1 &
    uinput=$!
    wait_for 5 test -p "$ufifo"
}
usend() { echo "$*" >"$ufifo"; }
# The event node of the last device NAME created: "created accel input7 event3".
event_node() { awk -v d="$1" '$2 == "created" && $3 == d { e = $5 } END { if (e == "") exit 1; print "/dev/input/" e }' "$ulog"; }
# ucreate NAME [STATE]: creates the device and waits for its node and udev.
ucreate() {
    local before
    before=$(grep -c " created $1 " "$ulog")
    usend create "$@"
    wait_for 10 sh -c "[ \$(grep -c ' created $1 ' '$ulog') -gt $before ]" || return 1
    wait_for 10 test -c "$(event_node "$1")" || return 1
    udevadm settle -t 10
}
accel_iio() {
    local d
    for d in /sys/bus/iio/devices/iio:device*; do
        [ -e "$d/in_accel_x_raw" ] && { echo "$d"; return 0; }
    done
    return 1
}
# turns LOG: four turns (left-up, bottom-up, right-up, normal), each set by
# `$turn_setter X Y Z` (milli-g in the device's own axes; with the identity
# matrix -y is normal and +x left-up) and waited for in LOG's last line, which
# must match $turn_pattern (an extended regex, %s standing for the
# orientation). Prints what it saw.
turn_setter=""
turn_pattern=""
last_line_matches() { tail -n 1 "$1" | grep -q -E "$2"; }
turns() {
    local log=$1 seen="" turn
    for turn in "1000 0 0:left-up" "0 1000 0:bottom-up" "-1000 0 0:right-up" "0 -1000 0:normal"; do
        # shellcheck disable=SC2086
        $turn_setter ${turn%%:*}
        if wait_for 20 last_line_matches "$log" "${turn_pattern//%s/${turn#*:}}"; then
            seen="$seen ${turn#*:}"
        else
            seen="$seen (no ${turn#*:})"
        fi
    done
    echo "$seen"
}
uaccel() { usend accel "$@"; }
