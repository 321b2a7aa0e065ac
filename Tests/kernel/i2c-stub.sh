# Sourced by Tests/kernel/inside.sh in the guest of `make check-kernel`:
# a real I2C accelerometer driver, bmc150_accel, on i2c-stub: the helpers
# (the second machine's checks use them too) and check 17.

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

# 17. The input accelerometer removed, a bmc150_accel on i2c-stub: orientd
# polls it through four turns made by changing the chip's data registers, and
# orientctl status names the device and the driver.
check_bmc150_polled() {
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
}
