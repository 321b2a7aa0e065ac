"""Tablet mode on the D-Bus side (docs/dbus.md): AccelerometerOrientation is the
effective orientation, so GNOME, KDE and Phosh keep the screen natural in
laptop mode and turn it once the machine is folded (the kernel's
SW_TABLET_MODE switch, devices/input-tablet-switch.* under Tests/umockdev).
"""

from bus import HID, LEFT_UP_RAW, SensorProxyTestCase
import evdev_support as ev  # (bus puts Tests/umockdev on the path)


class TabletModeBusTests(SensorProxyTestCase):
    def test_monitor_sensor_sees_natural_in_laptop_mode_and_the_turn_once_folded(self):
        """laptop: the device turns, monitor-sensor keeps normal; folded: left-up; unfolded: normal"""
        device = self.sysfs.add(HID)
        switch = ev.EvdevNode(self.sysfs.testbed, "input-tablet-switch")
        self.start_proxy()
        monitor = self.monitor_sensor()
        monitor.printed(r"=== Has accelerometer")
        monitor.printed(r"orientation changed: normal")
        client = self.client()
        client.claim()
        self.sysfs.set_raw(device, **LEFT_UP_RAW)
        # The socket shows the device did turn; D-Bus still says normal.
        sock = self.connect()
        sock.subscribe()
        sock.wait_physical("left-up")
        self.assertEqual(client.get("AccelerometerOrientation"), "normal")
        self.assertNotIn("orientation changed: left-up", "\n".join(monitor.lines))
        switch.send(ev.switch_frame(ev.SW_TABLET_MODE, 1))
        monitor.printed(r"orientation changed: left-up")
        switch.send(ev.switch_frame(ev.SW_TABLET_MODE, 0))
        del monitor.lines[:]
        monitor.printed(r"orientation changed: normal")
