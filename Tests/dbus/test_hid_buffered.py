"""A HID sensor hub's light sensor and compass on the D-Bus side, read through
the IIO buffer (iio-buffer-als, iio-buffer-compass) as GNOME's automatic
brightness and GeoClue read them.

The devices are Tests/umockdev/buffered/hid-sensor-als.umockdev and
hid-sensor-magn-3d.umockdev (make_fixtures.py's docstring says what they
model); their scans are replayed on /dev/iio:deviceN from the matching
`.script` with `UMockdev.Testbed.load_script`, the call `umockdev-run -s` makes,
here on the harness's own testbed so the daemon also sees the private system
bus. umockdev's script clock starts at `load_script`, and bytes written before
the daemon opens the node wait in the pty; so the script is loaded just
before the claim, and each script holds its first value for 3 s.

The raw attributes hold a value no script delivers (7777 lux, 123.4°), so a
daemon that polled instead of reading the buffer would fail; and the scale
and offset are both not neutral, so one left out shows.
"""

import importlib.util
import os
import time

from bus import PATH, REPO, SensorProxyTestCase, wait_until

from gi.repository import Gio, GLib

from test_sensor_proxy import AS_GEOCLUE, COMPASS_IFACE, COMPASS_PATH

BUFFERED = REPO / "Tests" / "umockdev" / "buffered"
_spec = importlib.util.spec_from_file_location("make_fixtures", BUFFERED / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

#: The distinct values each script shows, in order (360° is published as 0°).
LIGHT_LEVELS = [level for level, _ in make_fixtures.LIGHT_SEQUENCE]
HEADINGS = [heading % 360 for heading, _ in make_fixtures.COMPASS_SEQUENCE]


class HidBufferedTestCase(SensorProxyTestCase):
    bus_extra = AS_GEOCLUE  # the compass is GeoClue's only; here root stands in for it

    def add_hid(self, name):
        """Adds buffered/<name>.umockdev (the IIO device, its parents, its
        trigger), leaving out the records of devices already in the testbed
        (the hub the two sensors share); returns the IIO device's /sys path."""
        text = (BUFFERED / f"{name}.umockdev").read_text()
        records = text.strip("\n").split("\n\n")
        fresh = [record for record in records
                 if not os.path.isdir(os.path.join(self.sysfs.root, "sys" + record.split("\n", 1)[0][3:]))]
        self.sysfs.testbed.add_from_string("\n\n".join(fresh) + "\n")
        return "/sys" + records[0].split("\n", 1)[0][3:]

    def play(self, name, node):
        """Starts replaying buffered/<name>.script on /dev/<node>."""
        self.sysfs.testbed.load_script(f"/dev/{node}", str(BUFFERED / f"{name}.script"))

    def sysfs_text(self, syspath, attribute):
        """An attribute as the daemon (or libiio) left it: NUL and newline stripped."""
        with open(self.sysfs.path(syspath, attribute), "rb") as f:
            return f.read().rstrip(b"\0\n ").decode()

    def wait_sysfs(self, syspath, expected, timeout=3.0):
        wait_until(lambda: {name: self.sysfs_text(syspath, name) for name in expected} == expected, timeout,
                   f"sysfs {expected}", detail=lambda: f"read {({n: self.sysfs_text(syspath, n) for n in expected})}\n"
                                                       + self.daemon.log_tail())

    @staticmethod
    def listen(client, path):
        """Records `client`'s PropertiesChanged from `path` too (BusClient listens on PATH only)."""
        if path == PATH:
            return
        client.context.push_thread_default()
        try:
            client.connection.signal_subscribe(None, "org.freedesktop.DBus.Properties", "PropertiesChanged", path,
                                               None, Gio.DBusSignalFlags.NONE, client._changed)
        finally:
            client.context.pop_thread_default()

    def follow(self, client, prop, expected, timeout):
        """The distinct values of `prop` in `client`'s PropertiesChanged, in
        order (consecutive repeats dropped), once they are `expected` (each
        within 1e-6), a wrong one turns up, or the deadline passes."""
        def distinct():
            client.pump()
            seen = []
            for _, changed in client.signals:
                if prop in changed and (not seen or abs(seen[-1] - changed[prop]) > 1e-6):
                    seen.append(changed[prop])
            return seen

        def matches(seen):
            return len(seen) <= len(expected) and all(abs(a - b) <= 1e-6 for a, b in zip(seen, expected))

        deadline = time.monotonic() + timeout
        seen = distinct()
        while matches(seen) and len(seen) < len(expected) and time.monotonic() < deadline:
            time.sleep(0.02)  # pumping the client's own context: no fd to wait on from here
            seen = distinct()
        return seen


class HidLightTests(HidBufferedTestCase):
    def test_hid_light_through_the_buffer_follows_the_script_in_lux(self):
        """iio-buffer-als: ClaimLight captures in_intensity_both with its timestamp on trigger als-dev0, and LightLevel
        follows the script, (raw + in_intensity_offset) x in_intensity_scale in lux; ReleaseLight stops capture"""
        als = self.add_hid("hid-sensor-als")
        self.start_proxy()
        client = self.client()
        self.assertTrue(client.get("HasAmbientLight"))
        idle = {"buffer/enable": "0", "scan_elements/in_intensity_both_en": "0", "scan_elements/in_timestamp_en": "0"}
        self.assertEqual({name: self.sysfs_text(als, name) for name in idle}, idle, "capturing before anyone claimed")
        self.play("hid-sensor-als", "iio:device0")
        client.call("ClaimLight")
        seen = self.follow(client, "LightLevel", LIGHT_LEVELS, timeout=10)
        self.assertEqual(seen, LIGHT_LEVELS, f"LightLevel signals: {client.signals}\n{self.daemon.log_tail()}")
        self.assertEqual(client.get("LightLevelUnit"), "lux")
        self.assertAlmostEqual(client.get("LightLevel"), LIGHT_LEVELS[-1], places=6)
        self.assertEqual({name: self.sysfs_text(als, name) for name in (
            "buffer/enable", "scan_elements/in_intensity_both_en", "scan_elements/in_timestamp_en",
            "trigger/current_trigger")},
            {"buffer/enable": "1", "scan_elements/in_intensity_both_en": "1", "scan_elements/in_timestamp_en": "1",
             "trigger/current_trigger": "als-dev0"})
        self.assertRegex(self.daemon.log(), r"light: iio:device0 \(als, iio-buffer-als\)")
        self.assertNotRegex(self.daemon.log(), r"iio-poll-als")
        client.call("ReleaseLight")
        self.wait_sysfs(als, idle)


class HidCompassTests(HidBufferedTestCase):
    def compass_get(self, client, prop):
        return client.call("Get", GLib.Variant("(ss)", (COMPASS_IFACE, prop)), interface="org.freedesktop.DBus.Properties",
                           path=COMPASS_PATH)[0]

    def test_hid_compass_through_the_buffer_follows_the_script_in_degrees(self):
        """iio-buffer-compass: ClaimCompass captures in_rot_from_north_magnetic_tilt_comp (only it and the timestamp) on
        trigger magn_3d-dev1, and CompassHeading follows the script in degrees in [0, 360), 360 read as 0"""
        self.add_hid("hid-sensor-als")  # the hub's other sensor, as on the machine; the compass is iio:device1
        magn = self.add_hid("hid-sensor-magn-3d")
        self.start_proxy()
        client = self.client()
        self.listen(client, COMPASS_PATH)
        self.assertTrue(self.compass_get(client, "HasCompass"))
        self.assertEqual(self.compass_get(client, "CompassHeading"), -1.0, "a heading before anything was read")
        self.play("hid-sensor-magn-3d", "iio:device1")
        client.call("ClaimCompass", interface=COMPASS_IFACE, path=COMPASS_PATH)
        seen = self.follow(client, "CompassHeading", HEADINGS, timeout=12)
        self.assertEqual(seen, HEADINGS, f"CompassHeading signals: {client.signals}\n{self.daemon.log_tail()}")
        self.assertTrue(all(0 <= heading < 360 for heading in seen), seen)
        self.assertAlmostEqual(self.compass_get(client, "CompassHeading"), HEADINGS[-1], places=6)
        # A sender without a compass claim reads that there is a compass, not where it points.
        bystander = self.client()
        self.assertTrue(self.compass_get(bystander, "HasCompass"))
        self.assertEqual(self.compass_get(bystander, "CompassHeading"), -1.0, "the heading told to a sender that has not claimed")
        capturing = {"buffer/enable": "1", "scan_elements/in_rot_from_north_magnetic_tilt_comp_en": "1",
                     "scan_elements/in_timestamp_en": "1", "trigger/current_trigger": "magn_3d-dev1",
                     "scan_elements/in_magn_x_en": "0", "scan_elements/in_magn_y_en": "0",
                     "scan_elements/in_magn_z_en": "0"}
        self.assertEqual({name: self.sysfs_text(magn, name) for name in capturing}, capturing)
        self.assertRegex(self.daemon.log(), r"compass: iio:device1 \(magn_3d, iio-buffer-compass\)")
        # The light sensor beside it was never claimed, so never opened.
        self.assertEqual(self.sysfs_text("/sys" + make_fixtures.HID_SENSORS["hid-sensor-als"].platform
                                         + "/iio:device0", "buffer/enable"), "0")
        client.call("ReleaseCompass", interface=COMPASS_IFACE, path=COMPASS_PATH)
        self.wait_sysfs(magn, {"buffer/enable": "0", "scan_elements/in_rot_from_north_magnetic_tilt_comp_en": "0"})


class MonitorSensorHidTests(HidBufferedTestCase):
    def test_monitor_sensor_shows_the_hid_light_sensor(self):
        """iio-sensor-proxy's monitor-sensor prints the HID light sensor read through the buffer, in lux (it shows
        the compass only to the user geoclue, which this machine has not: the compass test above reads it as GeoClue does)"""
        self.add_hid("hid-sensor-als")
        self.start_proxy()
        self.play("hid-sensor-als", "iio:device0")
        monitor = self.monitor_sensor()
        monitor.printed(r"=== Has ambient light sensor")
        for level in LIGHT_LEVELS:
            monitor.printed(rf"Light changed: {level:.0f}\.0+ \(lux\)", timeout=12)
        print("\n  [monitor-sensor] " + "\n  [monitor-sensor] ".join(monitor.lines))
