"""Light and proximity on the D-Bus side, read from umockdev's fake sysfs by
the real drivers (iio-poll-als, hwmon-als, iio-poll-proximity), as GNOME's
automatic brightness, KDE's and Phosh's call blanking read them.

Each fixture in Tests/umockdev/devices/ is named after the spelling it models;
its expected level is what the IIO ABI gives, where iio-sensor-proxy 3.9
gives something else for three of them (noted at each).
"""

import os
import re
import time

from bus import SensorProxyTestCase

LIGHT = {
    # fixture: (expected level, unit, attribute changed live, new text, expected after)
    # in_illuminance_input is already lux: its scale (10) must not apply (the peer gives 3125).
    "iio-als-acpi-input.umockdev": (312.5, "lux", "in_illuminance_input", "20", 20.0),
    # in_illuminance0_raw takes in_illuminance0_scale and _offset: (10 + 5) × 2 (the peer gives 10).
    "iio-als-isl29018-illuminance0-raw.umockdev": (30.0, "lux", "in_illuminance0_raw", "45", 100.0),
    "iio-als-bh1750-illuminance-raw.umockdev": (50.0, "lux", "in_illuminance_raw", "4", 2.0),
    "iio-als-tcs3472-intensity-clear.umockdev": (40.0, "lux", "in_intensity_clear_raw", "0", 0.0),
    "iio-als-illuminance-clear.umockdev": (21.0, "lux", "in_illuminance_clear_raw", "1", 3.0),
    "iio-als-isl29125-illuminance0-input.umockdev": (80.25, "lux", "in_illuminance0_input", "1.5", 1.5),
    # (51,102): max / 255 × 100 in the vendor's unit.
    "platform-applesmc-light.umockdev": (40.0, "vendor", "light", "(255,0)", 100.0),
}


class LightTests(SensorProxyTestCase):
    def check_light(self, fixture):
        level, unit, attribute, text, after = LIGHT[fixture]
        device = self.sysfs.add(fixture)
        self.start_proxy()
        client = self.client()
        self.assertTrue(client.get("HasAmbientLight"))
        client.call("ClaimLight")
        # The unit is known once the sensor has been read (before, an unread
        # sensor answers lux, as one without a sensor does).
        self.assertEqual(client.get("LightLevelUnit"), unit)
        self.assertAlmostEqual(client.get("LightLevel"), level, places=3)
        self.sysfs.set_attribute(device, attribute, text)
        client.wait_signal("LightLevel", after, timeout=5)

    def test_the_light_sensor_is_read_only_while_claimed(self):
        """nothing reads the light sensor until ClaimLight, and the level freezes after ReleaseLight"""
        self.device = self.sysfs.add("iio-als-bh1750-illuminance-raw.umockdev")
        self.start_proxy("--log-level", "info")
        client = self.client()
        self.assertNotIn("light from", self.daemon.log())
        client.call("ClaimLight")
        self.daemon.wait_for_log(r"light from in_illuminance_raw")
        client.call("ReleaseLight")
        other = self.client()
        self.sysfs.set_attribute(self.device, "in_illuminance_raw", "8")
        # A new claimer gets the level read afresh once the sensor opens again.
        other.call("ClaimLight")
        self.assertEqual(other.get("LightLevel"), 4.0)

    def test_a_non_claimer_gets_no_light_signals(self):
        """PropertiesChanged for the light goes to light claimers only"""
        self.device = self.sysfs.add("iio-als-bh1750-illuminance-raw.umockdev")
        self.start_proxy()
        claimer, bystander = self.client(), self.client()
        claimer.call("ClaimLight")
        self.sysfs.set_attribute(self.device, "in_illuminance_raw", "10")
        claimer.wait_signal("LightLevel", 5.0)
        bystander.pump()
        self.assertFalse(any("LightLevel" in changed for _, changed in bystander.signals), bystander.signals)


for _fixture in LIGHT:
    _name = "test_light_" + _fixture.removesuffix(".umockdev").replace("-", "_")
    setattr(LightTests, _name, lambda self, fixture=_fixture: self.check_light(fixture))
    getattr(LightTests, _name).__doc__ = f"{_fixture}: HasAmbientLight, LightLevelUnit, the level (IIO ABI), a live change"


class ProximityTests(SensorProxyTestCase):
    def near_far(self, fixture, attribute, near_level):
        self.device = self.sysfs.add(fixture)
        self.start_proxy()
        client = self.client()
        self.assertTrue(client.get("HasProximity"))
        client.call("ClaimProximity")
        self.assertFalse(client.get("ProximityNear"))
        self.sysfs.set_attribute(self.device, attribute, str(near_level))
        client.wait_signal("ProximityNear", True)
        return client

    def test_near_level_from_udev_with_real_hysteresis(self):
        """PROXIMITY_NEAR_LEVEL=100: near at 100, still near at 95 (inside the band), far below 90"""
        client = self.near_far("iio-proximity-stk3310-udev-nearlevel.umockdev", "in_proximity_raw", 100)
        # 95 is inside the band: the reading stays near. Proved by a later
        # reading that must be taken after it: 92 then 80 -> far only at 80.
        self.sysfs.set_attribute(self.device, "in_proximity_raw", "95")
        self.sysfs.set_attribute(self.device, "in_proximity_raw", "92")
        client.signals.clear()
        self.sysfs.set_attribute(self.device, "in_proximity_raw", "80")
        client.wait_signal("ProximityNear", False)
        near_changes = [changed["ProximityNear"] for _, changed in client.signals if "ProximityNear" in changed]
        self.assertEqual(near_changes, [False], "one change, to far, and none while inside the band")

    def test_near_level_from_sysfs(self):
        """in_proximity0_raw with sysfs in_proximity_nearlevel = 50"""
        self.near_far("iio-proximity-vcnl4000-sysfs-nearlevel.umockdev", "in_proximity0_raw", 60)

    def test_without_a_near_level_the_sensor_is_not_offered_and_status_says_why(self):
        """no near level anywhere: HasProximity false, and the log and status name the fix"""
        self.sysfs.add("iio-proximity-no-nearlevel.umockdev")
        self.start_proxy()
        self.daemon.wait_for_log(r"proximity: skipping iio:device3: no near level .*PROXIMITY_NEAR_LEVEL")
        self.assertFalse(self.client().get("HasProximity"))

    def test_fail_safe_a_vanished_sensor_reads_far(self):
        """near during a call, then the sensor is removed: ProximityNear turns false (the screen is never left blanked)"""
        client = self.near_far("iio-proximity-stk3310-udev-nearlevel.umockdev", "in_proximity_raw", 150)
        self.sysfs.remove(self.device)
        client.wait_signal("ProximityNear", False)
        self.assertFalse(client.get("HasProximity"))

    def test_fail_safe_a_sensor_that_stops_answering_reads_far(self):
        """near, then its raw attribute fails to read: ProximityNear turns false while it stays silent"""
        client = self.near_far("iio-proximity-stk3310-udev-nearlevel.umockdev", "in_proximity_raw", 150)
        path = self.sysfs.path(self.device, "in_proximity_raw")
        os.unlink(path)
        os.mkdir(path)  # reads now fail with EISDIR
        client.wait_signal("ProximityNear", False)
        os.rmdir(path)
        self.sysfs.set_attribute(self.device, "in_proximity_raw", "150")
        client.signals.clear()
        client.wait_signal("ProximityNear", True)


class MonitorSensorLightProximityTests(SensorProxyTestCase):
    def test_monitor_sensor_shows_light_and_proximity_changes(self):
        """iio-sensor-proxy's monitor-sensor prints the light sensor, the proximity sensor and their changes"""
        self.device = self.sysfs.add("iio-proximity-stk3310-udev-nearlevel.umockdev")
        self.start_proxy()
        monitor = self.monitor_sensor()
        printed = monitor.printed

        printed(r"=== Has ambient light sensor")
        printed(r"=== Has proximity sensor")
        self.sysfs.set_attribute(self.device, "in_illuminance_raw", "300")
        printed(r"Light changed: 300")
        self.sysfs.set_attribute(self.device, "in_proximity_raw", "120")
        printed(r"Proximity value changed: 1")
        self.sysfs.set_attribute(self.device, "in_proximity_raw", "0")
        printed(r"Proximity value changed: 0")
        print("\n  [monitor-sensor] " + "\n  [monitor-sensor] ".join(monitor.lines))


class InputProximityTests(SensorProxyTestCase):
    """A proximity switch (evdev SW_FRONT_PROXIMITY; input-proximity.umockdev
    models an N900-style gpio-keys device whose lens-cover switch sits in the
    bit beside it)."""

    def setUp(self):
        super().setUp()
        import evdev_support
        self.ev = evdev_support
        self.node = evdev_support.EvdevNode(self.sysfs.testbed, "input-proximity")

    def test_the_switch_gives_near_and_far_as_events(self):
        """HasProximity; the kernel's first state (far); near and far as the switch flips"""
        self.start_proxy()
        client = self.client()
        self.assertTrue(client.get("HasProximity"))
        client.call("ClaimProximity")
        self.assertFalse(client.get("ProximityNear"))
        self.node.send(self.ev.switch_frame(self.ev.SW_FRONT_PROXIMITY, 1))
        client.wait_signal("ProximityNear", True)
        client.signals.clear()
        self.node.send(self.ev.switch_frame(self.ev.SW_FRONT_PROXIMITY, 0))
        client.wait_signal("ProximityNear", False)

    def test_fail_safe_a_switch_that_vanishes_near_reads_far(self):
        """near during a call, then the device is unplugged: ProximityNear false, HasProximity false"""
        self.start_proxy()
        client = self.client()
        client.call("ClaimProximity")
        self.node.send(self.ev.switch_frame(self.ev.SW_FRONT_PROXIMITY, 1))
        client.wait_signal("ProximityNear", True)
        self.node.remove()
        client.wait_signal("ProximityNear", False)
        self.assertFalse(client.get("HasProximity"))


class UnopenableSensorTests(SensorProxyTestCase):
    def test_a_sensor_that_cannot_open_is_retried_less_and_less_and_said_once(self):
        """a light sensor whose scale is 0 cannot open: one warning, retries at 1, 2, 4 s…, the claim still answered"""
        device = self.sysfs.add("iio-als-bh1750-illuminance-raw.umockdev")
        self.sysfs.set_attribute(device, "in_illuminance_scale", "0")
        self.start_proxy()
        client = self.client()
        client.call("ClaimLight")
        self.daemon.wait_for_log(r"light: iio:device2: cannot open: .*in_illuminance_scale")
        # A window of 4.5 s in which a try a second would fail 5 times; backing
        # off (tries at 0, 1, 3 s, the next at 7) fails 3 times. Then it is
        # fixed, and the next try opens it and says how many failed.
        time.sleep(4.5)
        self.sysfs.set_attribute(device, "in_illuminance_scale", "0.5")
        self.daemon.wait_for_log(r"light: iio:device2: open after \d+ failed tries", timeout=10)
        self.assertEqual(self.daemon.log().count("cannot open"), 1, self.daemon.log_tail())
        tries = int(re.search(r"open after (\d+) failed tries", self.daemon.log()).group(1))
        client.wait_signal("LightLevel", 50.0)
        self.assertEqual(tries, 3, "backing off: tries at 0, 1 and 3 s, not a try a second")


class RescanTests(SensorProxyTestCase):
    def test_another_device_coming_leaves_an_open_light_sensor_open(self):
        """a udev event for another device rescans, but the light sensor in use is not closed and opened again"""
        light = self.sysfs.add("iio-als-bh1750-illuminance-raw.umockdev")
        self.start_proxy("--log-level", "info")
        client = self.client()
        client.call("ClaimLight")
        self.daemon.wait_for_log(r"light from in_illuminance_raw")
        # The reading changes, so the device's attributes differ from the
        # first enumeration's; the rescan must still see the same sensor.
        self.sysfs.set_attribute(light, "in_illuminance_raw", "200")
        client.wait_signal("LightLevel", 100.0)
        self.sysfs.add("iio-proximity-vcnl4000-sysfs-nearlevel.umockdev")
        self.daemon.wait_for_log(r"proximity: iio:device3 \(vcnl4000, iio-poll-proximity\)")
        self.assertEqual(self.daemon.log().count("light from in_illuminance_raw"), 1, self.daemon.log_tail())
        self.assertEqual(client.get("LightLevel"), 100.0)
