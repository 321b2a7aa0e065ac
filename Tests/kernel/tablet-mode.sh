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
