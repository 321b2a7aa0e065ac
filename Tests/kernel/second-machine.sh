# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# the second boot's checks (21 to 24), as an HP Pavilion x2 Detachable.

# run.sh boots the guest a second time as an HP Pavilion x2 Detachable (board
# 815D), for which 60-sensor.hwdb gives i2c:bmc150_accel the matrix
# 0, -1, 0; -1, 0, 0; 0, 0, 1: the z-z entry +1, where the T103HAF's is -1.
# No IIO module is loaded when its checks start.
hp_matrix="0, -1, 0; -1, 0, 0; 0, 0, 1"
# hp_accel X Y Z: the chip's registers for the panel's X, Y, Z (milli-g; the
# matrix maps raw (x, y, z) to the panel's (-y, -x, z)).
hp_accel() { stub_accel $((-$2)) $((-$1)) "$3"; }

# iio_major: the IIO core is loaded (its character device major is registered).
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
