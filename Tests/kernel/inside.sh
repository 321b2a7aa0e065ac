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

# --- a real I2C accelerometer driver on i2c-stub --------------------------------
# i2c-stub emulates a chip as 256 byte registers that keep what is written.
# bmc150_accel probes with register reads and writes only: a soft reset
# (0xB6 to 0x14), the chip ID (0x00: 0xFA, the BMA255/BMC150 family), the
# power mode, bandwidth and range (4 g); without an IRQ it registers no
# trigger, so its buffer cannot run and orientd polls in_accel_*_raw. Each
# axis is 12 bits, left-aligned in two registers (LSB first, from 0x02):
# 512 per g at 4 g (in_accel_scale 0.019154).
stub_addr=0x18
stub_bus=""
# stub_accel X Y Z: the data registers for X, Y, Z milli-g.
stub_accel() {
    local regs="" reg=2 mg raw
    for mg in "$@"; do
        raw=$(( (mg * 512 / 1000) << 4 & 0xffff ))
        regs="$regs $(printf '0x%02x=0x%02x 0x%02x=0x%02x' $reg $((raw & 0xff)) $((reg + 1)) $((raw >> 8)))"
        reg=$((reg + 2))
    done
    # shellcheck disable=SC2086
    smbus-regs "$stub_bus" "$stub_addr" $regs
}

# --- the second machine ----------------------------------------------------------
# run.sh boots the guest a second time as an HP Pavilion x2 Detachable (board
# 815D), for which 60-sensor.hwdb gives i2c:bmc150_accel the matrix
# 0, -1, 0; -1, 0, 0; 0, 0, 1: the z-z entry +1, where the T103HAF's is -1.
# No IIO module is loaded when its checks start.
hp_matrix="0, -1, 0; -1, 0, 0; 0, 0, 1"
# hp_accel X Y Z: the chip's registers for the panel's X, Y, Z (milli-g; the
# matrix maps raw (x, y, z) to the panel's (-y, -x, z)).
hp_accel() { stub_accel $((-$2)) $((-$1)) "$3"; }

# The uinput accelerometer removed (orientd sees it go), then a bmc150_accel
# on i2c-stub reading X Y Z (mg) through POSE (stub_accel, or hp_accel for the
# second machine's mounting): sets stub_bus, idev and idriver once the kernel
# has bound it and orientd's status names it; fails when it does not bind.
#   bmc150_on_stub POSE X Y Z
bmc150_on_stub() {
    local pose=$1; shift
    usend remove accel
    wait_for 15 sh -c "journalctl -u orientd.service -o cat --no-pager | grep -q 'accelerometer $(basename "${anode:-none}") gone'"
    if modprobe i2c-stub chip_addr=$stub_addr && modprobe i2c-dev; then
        for b in /sys/bus/i2c/devices/i2c-*; do
            [ "$(cat "$b/name")" = "SMBus stub driver" ] && stub_bus=${b##*/i2c-}
        done
    fi
    [ -n "$stub_bus" ] && wait_for 5 test -c "/dev/i2c-$stub_bus" && smbus-regs "$stub_bus" $stub_addr 0x00=0xfa && "$pose" "$@" \
        && echo "bmc150_accel $stub_addr" >"/sys/bus/i2c/devices/i2c-$stub_bus/new_device" && wait_for 20 iio_by_name bmc150_accel \
        || return 1
    udevadm settle -t 10
    idev=$(iio_by_name bmc150_accel)
    idriver=$(basename "$(readlink -f "$idev/../driver")")
    wait_for 20 sh -c "orientctl --json status | grep -q '\"device\":\"$(basename "$idev")\"'"
}
iio_major() { grep -q ' iio$' /proc/devices; }
# as_user USER ARGS...: orientctl ARGS as USER (nobody: nobody and nogroup),
# through setpriv; prints "exit STATUS: OUTPUT". orientctl exits 77 when
# refused (not-permitted).
as_user() {
    local who=$1 status=0 out group
    shift
    group=$who
    [ "$who" = nobody ] && group=nogroup
    out=$(setpriv --reuid="$who" --regid="$group" --clear-groups orientctl "$@" 2>&1) || status=$?
    echo "exit $status: $out"
}
# poll_as SECONDS STATUS USER ARGS...: as_user until orientctl exits with
# STATUS (logind's state files follow a VT switch a moment after its D-Bus
# properties do) or SECONDS pass; prints the last answer.
poll_as() {
    local deadline=$((SECONDS + $1)) want=$2 said
    shift 2
    while :; do
        said=$(as_user "$@")
        [[ "$said" == "exit $want: "* ]] || [ "$SECONDS" -ge "$deadline" ] && break
        sleep 0.1
    done
    echo "$said"
}
# brief ANSWER: "exit 77 (uid 65534 is neither)" from a refusal as_user printed.
brief() { echo "${1%%:*} ($(echo "$1" | grep -o -E 'uid [0-9]+ is neither|not-permitted' | head -1))"; }
session_of() { loginctl list-sessions --no-legend | awk -v u="$1" '$3 == u { print $1; exit }'; }
session_active() { [ "$(loginctl show-session "$1" -p Active --value)" = "$2" ]; }
show_session() { loginctl show-session "$1" -p Name -p Seat -p TTY -p VTNr -p Type -p Class -p Active | oneline; }

second_machine() {
    note "the second machine: $(cat /sys/class/dmi/id/sys_vendor) $(cat /sys/class/dmi/id/product_name), board $(cat /sys/class/dmi/id/board_name) ($(cat /sys/class/dmi/id/modalias))"
    # 21. The unit started before any IIO module: udev's rule starts orientd
    # on an input accelerometer while no IIO module is loaded; the unit's
    # modprobe@industrialio.service loads the IIO core first, so the device
    # cgroup's char-iio entry exists, and the bmc150 that appears later is
    # opened (its buffer enabled, which delivers nothing without an IRQ: then
    # orientd polls), not refused with EPERM.
    local before anode="" pid="" at_start="" loader="" idev="" idriver="" watch_log watcher eperm nothing mode
    before=$(iio_major && echo loaded || echo "not loaded")
    modprobe uinput || fail "modprobe uinput"
    : >"$ulog"
    start_uinput
    if [ "$before" = "not loaded" ] && ucreate accel && wait_for 30 active orientd.service; then
        anode=$(event_node accel)
        pid=$(systemctl show -P MainPID orientd.service)
        at_start=$(iio_major && echo loaded || echo "not loaded")
        loader="modprobe@industrialio.service $(systemctl show -P Result modprobe@industrialio.service), exited at $(systemctl show -P ExecMainExitTimestampMonotonic modprobe@industrialio.service) µs, orientd started at $(systemctl show -P ExecMainStartTimestampMonotonic orientd.service) µs"
        wait_for 15 sh -c "orientctl --json status | grep -q '\"driver\":\"input-accel\"'"
    fi
    if ! bmc150_on_stub hp_accel 0 -1000 0; then
        fail "no bmc150_accel on i2c-stub (bus '$stub_bus'): $(dmesg | grep -i -E 'i2c|bmc150' | tail -5 | oneline)"
        return
    fi
    watch_log=$(mktemp)
    orientctl watch >"$watch_log" 2>&1 &
    watcher=$!
    wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^normal'"
    wait_for 10 sh -c "journalctl -u orientd.service -o cat --no-pager | grep -q '$(basename "$idev"): the buffer delivered nothing'"
    eperm=$(journal | grep -E "/dev/iio:device[0-9]*.*Operation not permitted" | oneline)
    nothing=$(journal | grep "$(basename "$idev"): the buffer delivered nothing" | tail -1)
    mode=$(orientctl --json status | grep -o '"capture":"[a-z]*"')
    if [ "$before" = "not loaded" ] && [ -n "$pid" ] && [ "$at_start" = loaded ] && [ -z "$eperm" ] && [ -n "$nothing" ] \
        && [ "$mode" = '"capture":"polled"' ] && [ "$(systemctl show -P MainPID orientd.service)" = "$pid" ]; then
        pass "orientd started by udev on the input accelerometer ($anode) with no IIO module loaded; $loader; the iio major at its start: $at_start; then $(basename "$idev") ($idriver) opened by the same process (PID $pid), no EPERM: '$nothing'; status $mode"
    else
        fail "orientd started before any IIO module: IIO core before $before, when orientd started '$at_start' (${loader:-orientd never started on the input accelerometer}); EPERM: '${eperm:-none}'; buffer: '${nothing:-never opened}'; status $mode; PID $(systemctl show -P MainPID orientd.service) (was $pid); $(journal | grep "$(basename "$idev")" | tail -3 | oneline)"
    fi

    # 22. The hwdb matrix with z +1 (udev's ACCEL_MOUNT_MATRIX for this DMI),
    # in orientctl status with the z sign orientd decides for bmc150_accel
    # (+1, the default), and four turns through it.
    local props matrix status mm zs seen
    props=$(udevadm info -q property "$idev")
    matrix=$(echo "$props" | sed -n 's/^ACCEL_MOUNT_MATRIX=//p')
    status=$(orientctl --json status 2>&1)
    mm=$(echo "$status" | grep -o '"mount_matrix":{[^}]*}')
    zs=$(echo "$status" | grep -o '"z_sign":{[^}]*}')
    turn_setter=hp_accel
    turn_pattern='^%s'
    seen=$(turns "$watch_log")
    kill "$watcher" 2>/dev/null
    wait "$watcher" 2>/dev/null
    if [ "$matrix" = "$hp_matrix" ] && [[ "$mm" == *"\"matrix\":\"$hp_matrix\""*'"source":"ACCEL_MOUNT_MATRIX"'* ]] && [[ "$zs" =~ \"sign\":1[,}] ]] \
        && [ "$seen" = " left-up bottom-up right-up normal" ]; then
        pass "the second machine's hwdb matrix (z +1): udev ACCEL_MOUNT_MATRIX=$matrix on $(basename "$idev") ($(cat "$idev/../modalias")); status $mm, $zs; four turns through it:$seen; orientctl watch printed: $(cut -d' ' -f1 "$watch_log" | oneline)"
    else
        fail "the second machine's matrix: udev '$matrix' (want '$hp_matrix'; $(echo "$props" | grep -E '^(ID_|ACCEL)' | oneline)); status $mm $zs; turns$seen; watch: $(oneline <"$watch_log")"
    fi
    usend quit
    wait "$uinput" 2>/dev/null

    # 23. The seat under logind on real VTs: orientd-seat1 logs in on tty2 and
    # orientd-seat2 on tty3 (getty@ with --autologin: agetty, login,
    # pam_systemd), tty2 made the active VT. Then with the daemon's default
    # policy (lock-permission = seat) the user of tty2 may lock and unlock;
    # nobody, and the user of tty3 (a session on seat0 that is not active),
    # may not.
    local s1="" s2="" shown1 shown2 said_lock said_unlock said_nobody said_other
    systemctl start --no-block getty@tty2.service getty@tty3.service
    wait_for 60 sh -c "loginctl list-sessions --no-legend | grep -q ' orientd-seat1 ' && loginctl list-sessions --no-legend | grep -q ' orientd-seat2 '"
    s1=$(session_of orientd-seat1)
    s2=$(session_of orientd-seat2)
    if [ -z "$s1" ] || [ -z "$s2" ]; then
        fail "no logind sessions on tty2 and tty3: $(loginctl list-sessions --no-legend | oneline); getty@tty2 $(systemctl is-active getty@tty2.service), getty@tty3 $(systemctl is-active getty@tty3.service); $(journalctl -u getty@tty2.service -u systemd-logind.service --no-pager | tail -4 | oneline)"
        return
    fi
    vt-switch 2
    wait_for 15 session_active "$s1" yes
    wait_for 15 session_active "$s2" no
    shown1=$(show_session "$s1")
    shown2=$(show_session "$s2")
    said_lock=$(poll_as 10 0 orientd-seat1 lock right-up)
    said_unlock=$(as_user orientd-seat1 unlock)
    said_nobody=$(as_user nobody lock left-up)
    said_other=$(as_user orientd-seat2 lock left-up)
    if [[ "|$shown1|" == *"|Seat=seat0|"* && "|$shown1|" == *"|VTNr=2|"* && "|$shown1|" == *"|Active=yes|"* ]] \
        && [[ "|$shown2|" == *"|Seat=seat0|"* && "|$shown2|" == *"|VTNr=3|"* && "|$shown2|" == *"|Active=no|"* ]] && [ "$(vt-switch)" = 2 ] \
        && [[ "$said_lock" == "exit 0: "* ]] && [[ "$said_unlock" == "exit 0: "* ]] && [[ "$said_nobody" == "exit 77: "*not-permitted* ]] && [[ "$said_other" == "exit 77: "*not-permitted* ]]; then
        pass "the seat on VT 2 (active VT $(vt-switch)): session $s1 ($shown1) may lock: '$said_lock', unlock: '$said_unlock'; nobody: $(brief "$said_nobody"); orientd-seat2 on the inactive session $s2 ($shown2): $(brief "$said_other")"
    else
        fail "the seat on VT 2 (active VT $(vt-switch)): $s1 ($shown1), $s2 ($shown2); orientd-seat1 lock '$said_lock', unlock '$said_unlock'; nobody '$said_nobody'; orientd-seat2 '$said_other'"
    fi

    # 24. VT 3 made the active one: logind moves the seat to tty3's session,
    # and orientd follows: now orientd-seat2 may lock and unlock, and
    # orientd-seat1 and nobody may not.
    vt-switch 3
    wait_for 15 session_active "$s2" yes
    wait_for 15 session_active "$s1" no
    shown1=$(show_session "$s1")
    shown2=$(show_session "$s2")
    said_lock=$(poll_as 10 0 orientd-seat2 lock left-up)
    said_unlock=$(as_user orientd-seat2 unlock)
    said_other=$(poll_as 10 77 orientd-seat1 lock right-up)
    said_nobody=$(as_user nobody lock right-up)
    if [[ "|$shown2|" == *"|Seat=seat0|"* && "|$shown2|" == *"|VTNr=3|"* && "|$shown2|" == *"|Active=yes|"* ]] \
        && [[ "|$shown1|" == *"|VTNr=2|"* && "|$shown1|" == *"|Active=no|"* ]] && [ "$(vt-switch)" = 3 ] \
        && [[ "$said_lock" == "exit 0: "* ]] && [[ "$said_unlock" == "exit 0: "* ]] && [[ "$said_nobody" == "exit 77: "*not-permitted* ]] && [[ "$said_other" == "exit 77: "*not-permitted* ]]; then
        pass "the seat after switching to VT 3 (active VT $(vt-switch)): session $s2 ($shown2) may lock: '$said_lock', unlock: '$said_unlock'; orientd-seat1 on $s1 ($shown1), no longer active: $(brief "$said_other"); nobody: $(brief "$said_nobody")"
    else
        fail "the seat after switching to VT 3 (active VT $(vt-switch)): $s2 ($shown2), $s1 ($shown1); orientd-seat2 lock '$said_lock', unlock '$said_unlock'; orientd-seat1 '$said_other'; nobody '$said_nobody'"
    fi
}

note "kernel $(uname -r), $(systemd --version | head -1)"
# The second boot (run.sh: orientd.machine=second) runs its own checks only.
case " $(cat /proc/cmdline) " in
*" orientd.machine=second "*)
    second_machine
    finish
    ;;
esac
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

# 19. Light and proximity from the hub's als and prox through D-Bus, in the
# same monitor-sensor (root, claiming every sensor): the hub's light changed
# to 120 lux, its presence to 1 then 0. hid-sensor-prox has no near level of
# its own: the faked T103HAF's hwdb entry gives PROXIMITY_NEAR_LEVEL=1 (run.sh).
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

# 20. The compass on the same hub: hid-sensor-magn-3d binds to its Compass 3D
# collection and exposes the tilt-compensated heading with a scan element;
# orientctl status lists it on iio-buffer-compass. GeoClue's user (to whom
# the installed bus policy gives ClaimCompass) claims it through
# monitor-sensor and sees CompassHeading follow the hub: 270 (before the
# claim), then 0, 90, 180. Polkit is not on the guest's bus, so orientd's
# default ([dbus] polkit = auto) says yes. nobody's ClaimCompass is refused by
# the bus policy.
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

# 10. Hotplug while idle: the hub destroyed and created again while nobody
# wants the accelerometer. orientd follows the device without capturing from
# it (no capture starts), and once udev is done its threads wake only for the
# watchdog over 10 s. Then a client gets the reading the hub was given while
# idle. The kernel's power states for the new accelerometer are noted: a
# sysfs read of in_accel_*_raw powers a HID sensor up for a few seconds.
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
expected=$(set -- $side_turns; while [ $# -ge 3 ]; do printf ' %s' "${3#*:}"; shift 3; done)
expected=${expected# }
ours=$(side_by_side orientd)
# iio-sensor-proxy runs on its own (its unit stays masked: systemd refuses two
# units with the same BusName=), as root, as its unit would run it, once
# orientd and its socket are stopped.
systemctl stop orientd.socket orientd.service
owned() { dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:net.hadess.SensorProxy | grep -q 'boolean true'; }
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
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "null" || b == "null" || b == 0) print "null"; else printf "%.2f", a / b }'; }
med_ratio=$(ratio "$ours_med" "$peer_med")
p95_ratio=$(ratio "$ours_p95" "$peer_p95")
json_list() { echo "$1" | awk '{ printf "["; for (i = 1; i <= NF; i++) printf "%s\"%s\"", (i > 1 ? ", " : ""), $i; printf "]" }'; }
json_nums() { echo "$1" | awk '{ printf "["; for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? ", " : ""), $i; printf "]" }'; }
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

send quit
wait "$hub"

# 12. With no IIO accelerometer (the hub is gone), udev's rule starts orientd
# on the input accelerometer, which orientd reads through evdev with the
# axes' resolution as the scale.
: >"$ulog"
modprobe uinput || fail "modprobe uinput"
systemctl stop orientd.service
start_uinput
if iio=$(accel_iio); then
    fail "an IIO accelerometer is still there ($iio, $(cat "$iio/name")): the input accelerometer's checks need none"
fi
if ucreate accel; then
    anode=$(event_node accel)
    aprops=$(udevadm info -q property "$anode")
    wait_for 30 active orientd.service
    wait_for 15 sh -c "orientctl --json status | grep -q '\"driver\":\"input-accel\"'"
    status=$(orientctl --json status 2>&1)
    sensor=$(echo "$status" | grep -o '"sensors":\[{"kind":"accelerometer","device":"[^"]*","syspath":"[^"]*","driver":"[^"]*"')
    probed=$(evdev-probe "$anode" 2>&1)
    # udev would call three absolute axes without keys an accelerometer even
    # without the property (input_id's fallback for older drivers): the
    # property is checked as libevdev sees it.
    if [[ "$aprops" == *ID_INPUT_ACCELEROMETER=1* ]] && [[ "$probed" == *" INPUT_PROP_ACCELEROMETER "*"res 1024]"* ]] && active orientd.service && [[ "$sensor" == *"\"device\":\"$(basename "$anode")\""*'"driver":"input-accel"'* ]]; then
        pass "udev's rule started orientd on the uinput accelerometer, no IIO accelerometer present: $anode ($(echo "$aprops" | grep -E '^(ID_INPUT_ACCELEROMETER|IIO_SENSOR_PROXY_TYPE)=' | oneline)); libevdev: $probed; orientd: $(echo "$sensor" | sed 's/.*"device":/device /')"
    else
        fail "the input accelerometer: $anode props '$(echo "$aprops" | oneline)'; libevdev '$probed'; orientd $(systemctl is-active orientd.service); sensor '$sensor'; $(journal | tail -4 | oneline)"
    fi
else
    fail "uinput-sensors made no accelerometer: $(oneline <"$ulog"); $(dmesg | tail -3 | oneline)"
fi

# 13. Four turns from the input accelerometer through the socket (orientctl
# watch), read as evdev events, the scale from the axes' resolution.
watch_log=$(mktemp)
orientctl watch >"$watch_log" 2>&1 &
watcher=$!
uaccel 0 -1000 0
wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^normal'"
turn_setter=uaccel
turn_pattern='^%s'
seen=$(turns "$watch_log")
mode=$(orientctl --json status | grep -o '"capture":"[a-z]*"')
got=$(orientctl get 2>&1 | cut -d' ' -f1)
units=$(journal | grep -o "through evdev ([^)]*), [0-9]* units per g" | tail -1)
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
if [ "$seen" = " left-up bottom-up right-up normal" ] && [ "$mode" = '"capture":"events"' ] && [ "$got" = normal ] && [[ "$units" == *"1024 units per g" ]]; then
    pass "four turns from the input accelerometer through the socket:$seen; orientctl watch printed: $(cut -d' ' -f1 "$watch_log" | oneline); orientctl get: $got; status $mode; orientd: $units"
else
    fail "input accelerometer, four turns:$seen; watch: $(oneline <"$watch_log"); get '$got'; status $mode; '$units'"
fi

# 14. The same four turns through D-Bus (monitor-sensor, which claims the
# accelerometer).
monitor_log=$(mktemp)
stdbuf -oL monitor-sensor >"$monitor_log" 2>&1 &
monitor=$!
if wait_for 20 grep -q "=== Has accelerometer" "$monitor_log"; then
    turn_pattern='orientation changed: %s$|=== Has accelerometer \(orientation: %s\)'
    seen=$(turns "$monitor_log")
    if [ "$seen" = " left-up bottom-up right-up normal" ]; then
        pass "four turns from the input accelerometer through D-Bus:$seen; monitor-sensor: $(oneline <"$monitor_log")"
    else
        fail "input accelerometer through D-Bus:$seen; monitor-sensor: $(oneline <"$monitor_log")"
    fi
else
    fail "monitor-sensor never saw the input accelerometer: $(oneline <"$monitor_log")"
fi
kill "$monitor" 2>/dev/null
wait "$monitor" 2>/dev/null

# 15. Proximity from the SW_FRONT_PROXIMITY switch through D-Bus: the state at
# the daemon's start is the kernel's (set near while orientd was stopped, so
# no event of it reached orientd), then far and near as events, and the
# sensor's removal reads as gone.
if ucreate prox 0; then
    pnode=$(event_node prox)
    systemctl stop orientd.service
    usend prox 1
    wait_for 5 grep -q ' prox sent 1' "$ulog"
    kernel_state=$(evdev-probe "$pnode" 2>&1 | grep -o 'SW_FRONT_PROXIMITY=[01]')
    monitor_log=$(mktemp)
    stdbuf -oL monitor-sensor >"$monitor_log" 2>&1 &
    monitor=$!
    wait_for 10 grep -q "Waiting for iio-sensor-proxy" "$monitor_log"
    dbus-send --system --print-reply --dest=net.hadess.SensorProxy /net/hadess/SensorProxy \
        org.freedesktop.DBus.Properties.Get string:net.hadess.SensorProxy string:HasProximity >/dev/null 2>&1
    near_at_start=no
    wait_for 30 grep -q -E "Proximity value changed: 1|=== Has proximity sensor \(near: 1\)" "$monitor_log" && near_at_start=yes
    at_start=$(oneline <"$monitor_log")
    usend prox 0
    far=no
    wait_for 15 grep -q "Proximity value changed: 0" "$monitor_log" && far=yes
    usend prox 1
    near=no
    wait_for 15 sh -c "grep 'Proximity value changed' '$monitor_log' | tail -n 1 | grep -q 'changed: 1'" && near=yes
    pstatus=$(orientctl --json status | grep -o '{"kind":"proximity","device":"[^"]*","syspath":"[^"]*","driver":"[^"]*"')
    usend remove prox
    gone=no
    wait_for 15 grep -q -- "--- Proximity sensor disappeared" "$monitor_log" && gone=yes
    kill "$monitor" 2>/dev/null
    wait "$monitor" 2>/dev/null
    if [ "$kernel_state" = SW_FRONT_PROXIMITY=1 ] && [ "$near_at_start" = yes ] && [ "$far" = yes ] && [ "$near" = yes ] && [ "$gone" = yes ] \
        && [[ "$pstatus" == *'"driver":"input-proximity"'* ]]; then
        pass "proximity from SW_FRONT_PROXIMITY ($pnode) through D-Bus: near at orientd's start from the kernel's state ($kernel_state, set while orientd was stopped), then far, near, gone; status: $(echo "$pstatus" | sed 's/.*"device":/device /'); monitor-sensor: $(oneline <"$monitor_log")"
    else
        fail "proximity from SW_FRONT_PROXIMITY: kernel '$kernel_state', near at start $near_at_start (monitor-sensor then: $at_start), far $far, near $near, gone $gone; status '$pstatus'; monitor-sensor: $(oneline <"$monitor_log"); $(journal | grep -i prox | tail -4 | oneline)"
    fi
else
    fail "uinput-sensors made no proximity switch: $(tail -3 "$ulog" | oneline)"
fi

# 16. The tablet-mode switch (as intel-vbtn's "Intel Virtual Switches"), for
# the tablet-mode work: orientd does not read it yet, so this checks the device
# only: created, SW_TABLET_MODE as libevdev sees it, its state following each
# toggle (EVIOCGSW through libevdev), and the toggles arriving as events.
#
# tablet_mode_switch create|on|off|remove: drives the device. `create` makes it
# (laptop mode, SW_TABLET_MODE 0) and waits for its node and udev; `on` and
# `off` toggle it (SW_TABLET_MODE 1 and 0, each followed by SYN_REPORT);
# `remove` destroys it. TABLET_NODE is its event node once created. Needs
# uinput-sensors running (start_uinput).
TABLET_NODE=""
tablet_mode_switch() {
    case "$1" in
    create) ucreate tablet 0 && TABLET_NODE=$(event_node tablet) ;;
    on) usend tablet 1 ;;
    off) usend tablet 0 ;;
    remove) usend remove tablet && TABLET_NODE="" ;;
    *) return 2 ;;
    esac
}
# tablet_state: SW_TABLET_MODE's state as libevdev reads it from the kernel.
tablet_state() { evdev-probe "$TABLET_NODE" 2>&1 | grep -o 'SW_TABLET_MODE=[01]'; }
if tablet_mode_switch create; then
    described=$(evdev-probe "$TABLET_NODE" 2>&1)
    events_log=$(mktemp)
    evdev-probe "$TABLET_NODE" --follow 2 >"$events_log" 2>&1 &
    follower=$!
    wait_for 5 grep -q '^name' "$events_log"
    states="$(tablet_state)"
    tablet_mode_switch on
    wait_for 5 sh -c "evdev-probe '$TABLET_NODE' | grep -q SW_TABLET_MODE=1"
    states="$states $(tablet_state)"
    tablet_mode_switch off
    wait_for 5 sh -c "evdev-probe '$TABLET_NODE' | grep -q SW_TABLET_MODE=0"
    states="$states $(tablet_state)"
    wait_for 5 sh -c "! kill -0 $follower"
    kill "$follower" 2>/dev/null
    wait "$follower" 2>/dev/null
    events=$(sed 1d "$events_log" | oneline)
    tprops=$(udevadm info -q property "$TABLET_NODE" | grep -E '^ID_INPUT_SWITCH=' | oneline)
    if [ "$states" = "SW_TABLET_MODE=0 SW_TABLET_MODE=1 SW_TABLET_MODE=0" ] && [ "$events" = "SW_TABLET_MODE 1|SW_TABLET_MODE 0" ] \
        && [[ "$described" == *'bus 0x0019'* ]] && [ -n "$tprops" ]; then
        pass "the SW_TABLET_MODE switch (tablet_mode_switch): $TABLET_NODE, libevdev: $described; udev $tprops; state through libevdev after create, on, off: $states; events: $events"
    else
        fail "the SW_TABLET_MODE switch: '$described'; udev '$tprops'; states '$states'; events '$events'"
    fi
    tablet_mode_switch remove
else
    fail "uinput-sensors made no tablet-mode switch: $(tail -3 "$ulog" | oneline)"
fi

# 17. The input accelerometer removed, a bmc150_accel on i2c-stub: orientd
# polls it through four turns made by changing the chip's data registers, and
# orientctl status names the device and the driver.
if bmc150_on_stub stub_accel 0 -1000 0; then
    # Read while nobody is listening: the driver answers EBUSY while its
    # buffer is enabled, which orientd tries for 500 ms at each claim.
    raw_y=$(cat "$idev/in_accel_y_raw" 2>&1)
    watch_log=$(mktemp)
    orientctl watch >"$watch_log" 2>&1 &
    watcher=$!
    wait_for 15 sh -c "tail -n 1 '$watch_log' | grep -q '^normal'"
    turn_setter=stub_accel
    turn_pattern='^%s'
    seen=$(turns "$watch_log")
    status=$(orientctl --json status 2>&1)
    sensor=$(echo "$status" | grep -o '"sensor":{[^}]*}')
    kill "$watcher" 2>/dev/null
    wait "$watcher" 2>/dev/null
    if [ "$seen" = " left-up bottom-up right-up normal" ] && [[ "$sensor" == *"\"device\":\"$(basename "$idev")\""* ]] && [[ "$sensor" == *'"name":"bmc150_accel"'* ]] \
        && [[ "$sensor" == *"\"driver\":\"$idriver\""* ]] && [[ "$sensor" == *'"capture":"polled"'* ]] && [ "$raw_y" = -512 ]; then
        pass "bmc150_accel on i2c-stub (bus $stub_bus, $stub_addr; $(basename "$idev"), driver $idriver, scale $(cat "$idev/in_accel_scale"), in_accel_y_raw $raw_y at -1 g), polled through four turns by its data registers:$seen; orientctl watch printed: $(cut -d' ' -f1 "$watch_log" | oneline); status: $sensor; orientd: $(journal | grep -E "$(basename "$idev"): (no buffered|sampling)" | tail -2 | oneline)"
    else
        fail "bmc150_accel on i2c-stub: turns$seen; watch $(oneline <"$watch_log"); status $sensor; driver $idriver; y raw '$raw_y'; $(journal | tail -5 | oneline)"
    fi
    echo $stub_addr >"/sys/bus/i2c/devices/i2c-$stub_bus/delete_device"
else
    fail "no bmc150_accel on i2c-stub (bus '$stub_bus'): $(dmesg | grep -i -E 'i2c|bmc150' | tail -5 | oneline)"
fi

# 18. Tablet mode from the kernel's switch while the HID accelerometer turns:
# the hub again, the SW_TABLET_MODE device in laptop mode; the sensor turned
# left-up leaves the screen natural; the switch on turns it at once, off
# brings it back; status names the switch.
start_hub
if wait_for 20 iio_by_name accel_3d && tablet_mode_switch create; then
    udevadm settle -t 10
    watch_log=$(mktemp)
    orientctl watch >"$watch_log" 2>&1 &
    watcher=$!
    send "accel -1000 0 0"
    wait_for 20 last_line_matches "$watch_log" '^normal .*laptop mode, auto-rotate tablet-mode'
    send "accel 0 -1000 0"
    held=no; folded=no; unfolded=no
    wait_for 20 last_line_matches "$watch_log" '^normal \(physical left-up.*laptop mode' && held=yes
    tablet_mode_switch on
    wait_for 15 last_line_matches "$watch_log" '^left-up \(physical left-up.*tablet mode' && folded=yes
    tablet_mode_switch off
    wait_for 15 last_line_matches "$watch_log" '^normal \(physical left-up.*laptop mode' && unfolded=yes
    tstatus=$(orientctl --json status 2>&1 | grep -o '"tablet_mode":{[^}]*}')
    kill "$watcher" 2>/dev/null
    wait "$watcher" 2>/dev/null
    if [ "$held$folded$unfolded" = yesyesyes ] && [[ "$tstatus" == *'"source":"switch"'* ]] && [[ "$tstatus" == *"\"device\":\"$(basename "$TABLET_NODE")\""* ]]; then
        pass "tablet mode from SW_TABLET_MODE ($TABLET_NODE) with hid-sensor-accel-3d turning: laptop held normal while the sensor was left-up, the switch on turned the screen to left-up, off back to normal; orientctl watch printed: $(cut -d'(' -f1,2 "$watch_log" | cut -d, -f1 | oneline); status: $tstatus"
    else
        fail "tablet mode from SW_TABLET_MODE: held $held, folded $folded, unfolded $unfolded; watch: $(tail -n 4 "$watch_log" | oneline); status: $tstatus; $(journal | grep -i 'tablet' | tail -4 | oneline)"
    fi
    tablet_mode_switch remove
else
    fail "tablet mode: no accel_3d or no switch device: $(tail -3 "$hub_log" | oneline); $(tail -3 "$ulog" | oneline)"
fi
send quit
wait "$hub" 2>/dev/null

usend quit
wait "$uinput"
finish
