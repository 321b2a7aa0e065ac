#!/bin/bash
# Runs inside the QEMU guest of `make check-kernel` (scripts/check-kernel/run.sh)
# as a oneshot unit once the system is up, with the files it sources beside
# it. Each check writes PASS or FAIL and what it saw to the second serial port
# (/dev/ttyS1, read by run.sh); then orientd's journal as JOURNAL lines, and
# last ALL PASSED or SOME FAILED. Every wait polls for its condition with a
# deadline. The checks (numbered as in Tests/kernel/README.md) run in the order
# below, and share the devices and processes the earlier ones left: the hub,
# the uinput devices, orientd's PID.
#
#   lib.sh             reporting, waits, the hub and the uinput devices
#   hub.sh             1-5    the HID hub's accelerometer: binding, udev,
#                             turns through the buffer, status, D-Bus
#   hub-sensors.sh     19-20  the hub's light, proximity and compass
#   idle.sh            6-10   wakeups when idle, hotplug (nothing stale
#                             after the return), fds
#   powering-up.sh     25-26  polls of three sensors powering up, the
#                             rate delivered
#   side-by-side.sh    11     orientd and iio-sensor-proxy on the same turns
#   input.sh           12-15  the uinput accelerometer and proximity switch
#   tablet-mode.sh     16, 18 the SW_TABLET_MODE switch and tablet mode;
#                      27     the hinge's switch for libinput
#   i2c-stub.sh        17     bmc150_accel on i2c-stub, polled
#   second-machine.sh  21-24  the second boot: the HP's matrix, the seat on VTs
set -u
here=$(dirname "$(readlink -f "$0")")
for part in lib hub hub-sensors idle powering-up side-by-side input tablet-mode i2c-stub second-machine; do
    # shellcheck source=/dev/null
    . "$here/$part.sh"
done

note "kernel $(uname -r), $(systemd --version | head -1)"
# The second boot (run.sh: orientd.machine=second) runs its own checks only.
case " $(cat /proc/cmdline) " in
*" orientd.machine=second "*)
    second_machine
    finish
    ;;
esac
modprobe uhid || fail "modprobe uhid"

check_hub_binds
check_udev_starts_orientd
check_turns_through_buffer
check_status_matrix_and_z_sign
check_monitor_sensor_activation
check_light_and_proximity
check_compass
check_idle_nobody_listening
check_hotplug_while_streaming
check_fds_after_hotplug
check_buffered_after_hotplug
check_hotplug_while_idle
check_polls_while_powering_up
check_delivered_rate
check_side_by_side
check_input_accel_starts_orientd
check_input_turns_socket
check_input_turns_dbus
check_proximity_switch
check_tablet_switch_device
check_bmc150_polled
check_tablet_mode_turns
check_hinge_switch_libinput

usend quit
wait "$uinput"
finish
