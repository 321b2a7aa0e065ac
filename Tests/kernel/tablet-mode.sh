# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# the SW_TABLET_MODE switch made through /dev/uinput (checks 16 and 18):
# the device as libevdev sees it, then tablet mode from it while the HID
# accelerometer turns.

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

# 16. The tablet-mode switch (as intel-vbtn's "Intel Virtual Switches"), for
# the tablet-mode work: orientd does not read it yet, so this checks the device
# only: created, SW_TABLET_MODE as libevdev sees it, its state following each
# toggle (EVIOCGSW through libevdev), and the toggles arriving as events.
check_tablet_switch_device() {
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
}

# 18. Tablet mode from the kernel's switch while the HID accelerometer turns:
# the hub again, the SW_TABLET_MODE device in laptop mode; the sensor turned
# left-up leaves the screen natural; the switch on turns it at once, off
# brings it back; status names the switch.
check_tablet_mode_turns() {
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
}

# --- 27. The hinge's decision as orientd's own SW_TABLET_MODE switch ------------
# The hub's accel_3d is the display (the T103HAF's matrix, z sign -1: face up
# reads -g); a bma255 (bmc150_accel) on i2c-stub is the base, through the
# layer's hwdb (ACCEL_LOCATION=base for i2c:bma255 on this machine), lying
# flat: (0, 0, -1 g). Nobody listens to orientd: libinput is the only
# consumer, as on a desktop.

# hinge_at DEGREES: the display turned about the hinge (the panel's x axis) to
# that angle from the base. In the panel frame it reads (0, -sin A, cos A) g;
# through the matrix (panel y = raw x, panel z = -raw z) that is raw
# (-sin A, 0, -cos A) g, in milli-g for the hub.
hinge_at() {
    send "accel $(awk -v a="$1" 'BEGIN { r = a * atan2(0, -1) / 180; printf "%d 0 %d", -sin(r) * 1000, -cos(r) * 1000 }')"
}
# hinge_reads DEGREES: orientd's status gives the hinge angle within 3° of it.
hinge_angle() { orientctl --json status 2>/dev/null | grep -o '"hinge_angle":[-0-9.]*' | cut -d: -f2; }
hinge_reads() { local a; a=$(hinge_angle); [ -n "$a" ] && awk -v a="$a" -v b="$1" 'BEGIN { exit !(a - b < 3 && b - a < 3) }'; }
# switch_states LOG: the switch's toggles libinput printed so far ("1 0 …");
# last_state_is LOG N: the last one was N.
switch_states() { grep 'SWITCH_TOGGLE' "$1" | grep -o 'state [01]' | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//'; }
last_state_is() { [ "$(switch_states "$1" | awk '{ print $NF }')" = "$2" ]; }
added_count() { grep -c 'DEVICE_ADDED.*orientd tablet-mode switch' "$1"; }
removed_count() { grep -c 'DEVICE_REMOVED.*orientd tablet-mode switch' "$1"; }
reload_count() { journal | grep -c 'SIGHUP: configuration reloaded'; }
reloads_exceed() { [ "$(reload_count)" -gt "$1" ]; }
# sweep LOG ANGLE[=STATE]...: the hinge to each angle in turn, each waited for
# in status; with =STATE, libinput's last toggle must then be STATE. Prints
# " A:[toggles so far]…", with "(no …)" for what did not happen.
sweep() {
    local log=$1 step a out=""
    shift
    for step in "$@"; do
        a=${step%=*}
        hinge_at "$a"
        wait_for 15 hinge_reads "$a" || out="$out (no $a°: status said $(hinge_angle))"
        if [ "$step" != "$a" ]; then
            wait_for 10 last_state_is "$log" "${step#*=}" || out="$out (no state ${step#*=} at $a°)"
        fi
        out="$out $a:[$(switch_states "$log")]"
    done
    echo "$out"
}

check_hinge_switch_libinput() {
    start_hub
    local li_log li opened="" listed="" restarted="" kernel="" list tstatus after_restart before toggles base
    if [ -z "$stub_bus" ] && modprobe i2c-stub chip_addr=$stub_addr && modprobe i2c-dev; then
        for b in /sys/bus/i2c/devices/i2c-*; do [ "$(cat "$b/name")" = "SMBus stub driver" ] && stub_bus=${b##*/i2c-}; done
    fi
    if ! { wait_for 20 iio_by_name accel_3d && [ -n "$stub_bus" ] && smbus-regs "$stub_bus" $stub_addr 0x00=0xfa && stub_accel 0 0 -1000 \
        && echo "bma255 $stub_addr" >"/sys/bus/i2c/devices/i2c-$stub_bus/new_device" && wait_for 20 iio_by_name bma255; }; then
        fail "the hinge's switch: no accel_3d, or no bma255 on i2c-stub (bus '$stub_bus'): $(dmesg | grep -i -E 'bmc150|bma|i2c' | tail -4 | oneline)"
        send quit
        wait "$hub" 2>/dev/null
        return
    fi
    udevadm settle -t 10
    base=$(iio_by_name bma255)
    li_log=$(mktemp)
    stdbuf -oL libinput debug-events >"$li_log" 2>&1 &
    li=$!
    # Laptop at 90°: the hinge decides with nobody listening, and the switch appears.
    hinge_at 90
    wait_for 40 sh -c "grep -q 'DEVICE_ADDED.*orientd tablet-mode switch' '$li_log'" && opened=yes
    local opening
    opening=$(sweep "$li_log" 120 150 180 190 210=1 240 270)
    list=$(libinput list-devices 2>&1 | awk '/^Device:/ { keep = ($0 ~ /orientd tablet-mode switch/) } keep' | oneline)
    [[ "$list" == *'Capabilities:'*'switch'* ]] && listed=yes
    tstatus=$(orientctl --json status | grep -o '"tablet_mode":{[^}]*}')
    # A restart at 270°: the device goes and comes back in tablet mode.
    before=$(added_count "$li_log")
    systemctl restart orientd.service
    wait_for 40 sh -c "[ \$(grep -c 'DEVICE_ADDED.*orientd tablet-mode switch' '$li_log') -gt $before ]" \
        && wait_for 15 last_state_is "$li_log" 1 && restarted=yes
    after_restart=$(switch_states "$li_log")
    # A reload (SIGHUP) at 270°: the device stays, and shows tablet throughout.
    local reloaded="" removed_before
    local reloads
    removed_before=$(removed_count "$li_log")
    reloads=$(reload_count)
    systemctl reload orientd.service && wait_for 15 reloads_exceed "$reloads" \
        && hinge_at 265 && wait_for 15 hinge_reads 265 && hinge_at 270 && wait_for 15 hinge_reads 270 \
        && [ "$(removed_count "$li_log")" = "$removed_before" ] && [ "$(switch_states "$li_log")" = "$after_restart" ] && reloaded=yes
    # A kernel switch on another uinput device: orientd's goes, and comes back when it goes.
    if tablet_mode_switch create; then
        wait_for 15 sh -c "grep -q 'DEVICE_REMOVED.*orientd tablet-mode switch' '$li_log' && orientctl --json status | grep -q '\"uinput_switch\":null'" \
            && kernel="removed beside $TABLET_NODE ($(cat "/sys/class/input/${TABLET_NODE##*/}/device/name" 2>/dev/null))"
        before=$(added_count "$li_log")
        tablet_mode_switch remove
        wait_for 30 sh -c "[ \$(grep -c 'DEVICE_ADDED.*orientd tablet-mode switch' '$li_log') -gt $before ]" && kernel="$kernel, back after it went"
    fi
    local closing
    closing=$(sweep "$li_log" 240 210=1 180 170 150=0 120 90)
    # The base unplugged in tablet mode: the state is held for 10 s, then
    # laptop, and the device goes.
    local unplug="" gone_at t0
    hinge_at 270
    if wait_for 15 hinge_reads 270 && wait_for 10 last_state_is "$li_log" 1; then
        removed_before=$(removed_count "$li_log")
        t0=$(date +%s.%N)
        echo $stub_addr >"/sys/bus/i2c/devices/i2c-$stub_bus/delete_device"
        if wait_for 30 sh -c "[ \$(grep -c 'DEVICE_REMOVED.*orientd tablet-mode switch' '$li_log') -gt $removed_before ]"; then
            gone_at=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            last_state_is "$li_log" 0 && awk -v g="$gone_at" 'BEGIN { exit !(g >= 9 && g <= 20) }' \
                && unplug="laptop (0) and removed ${gone_at} s after bma255 went"
        fi
    fi
    kill "$li" 2>/dev/null
    wait "$li" 2>/dev/null
    toggles=$(grep -E 'DEVICE_(ADDED|REMOVED).*orientd tablet-mode switch|SWITCH_TOGGLE' "$li_log" | tr -s ' \t' ' ' | oneline)
    if [ "$opened" = yes ] && [[ "$opening$closing" != *'(no '* ]] && [ "$listed" = yes ] && [ "$restarted" = yes ] \
        && [ "$reloaded" = yes ] && [[ "$kernel" == "removed beside "*", back after it went" ]] && [ -n "$unplug" ]; then
        pass "the hinge's tablet mode as orientd's own SW_TABLET_MODE switch, seen by libinput with nobody listening to orientd (display accel_3d, base $(basename "$base") bma255 by the hwdb's ACCEL_LOCATION=base): libinput's toggles after each angle, opening:$opening; restarted at 270°: [$after_restart]; reloaded at 270°: the device stayed, no toggle; a kernel switch: $kernel; closing:$closing; the base unplugged at 270°: $unplug; libinput debug-events: $toggles; libinput list-devices: $list; status at 270°: $tstatus"
    else
        fail "the hinge's switch: added '$opened'; opening$opening; listed '$list'; restarted '$restarted'; reloaded '$reloaded'; kernel switch '$kernel'; closing$closing; unplugged '$unplug' (removed after ${gone_at:-never} s); libinput: $(tail -n 12 "$li_log" | oneline); status: $(orientctl --json status | grep -o '"tablet_mode":{[^}]*}'); $(journal | grep -i -E 'tablet|uinput|base' | tail -6 | oneline)"
    fi
    [ -e "$base" ] && echo $stub_addr >"/sys/bus/i2c/devices/i2c-$stub_bus/delete_device"
    send quit
    wait "$hub" 2>/dev/null
}
