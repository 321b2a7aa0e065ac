"""Devices laid out as other projects describe them (docs/behaviour.md,
"How a device is recognised"): added through umockdev's testbed API under
the names iio-sensor-proxy's own tests give them (`iio-als`, `iio-prox`,
`iio-accel`, the platform device `applesmc.768`), not the kernel's
`iio:deviceN`, and an input accelerometer that gives no resolution. Each is
checked through `monitor-sensor` or a D-Bus client, and `orientctl status`
names its driver and what it reads.
"""

import json
import re
import time

from bus import SensorProxyTestCase
import evdev_support as ev  # noqa: E402 (bus puts Tests/umockdev on the path)
from harness import START_S


class LayoutTestCase(SensorProxyTestCase):
    def add(self, subsystem, name, attributes, properties):
        """A device through the testbed API: `attributes` and `properties` as dicts."""
        flat = lambda d: [item for pair in d.items() for item in pair]  # noqa: E731
        return self.sysfs.testbed.add_device(subsystem, name, None, flat(attributes), flat(properties))

    def sensors(self):
        """status --json's sensors by (kind, device)."""
        return {(s["kind"], s["device"]): s for s in json.loads(self.status("--json"))["daemon"]["sensors"]}

    def expect_entry(self, kind, device, driver, sources, state="idle"):
        entry = self.sensors().get((kind, device))
        self.assertIsNotNone(entry, self.sensors())
        self.assertEqual((entry["driver"], entry["sources"], entry["state"]), (driver, sources, state), entry)
        text = self.status()
        self.assertRegex(text, rf"{kind} +{re.escape(device)} \({driver}\)")


class LightAndProximityByChannelTests(LayoutTestCase):
    def monitor_light(self, device, first, attribute, text, after, timeout=5):
        """monitor-sensor shows a light sensor and its level `first`; `attribute` set to `text` shows `after`."""
        monitor = self.monitor_sensor()
        monitor.printed(r"=== Has ambient light sensor")
        monitor.printed("Light changed: " + re.escape(first))
        self.sysfs.set_attribute(device, attribute, text)
        monitor.printed("Light changed: " + re.escape(after), timeout=timeout)
        print("\n  [monitor-sensor] " + "\n  [monitor-sensor] ".join(monitor.lines))

    def test_a_light_sensor_named_iio_als_is_offered_and_read(self):
        """iio-als with in_illuminance_input 10 (lux: its scale not applied), tagged iio-poll-als: monitor-sensor sees 10 lux, then 20"""
        device = self.add("iio", "iio-als", {"in_illuminance_input": "10", "in_illuminance_scale": "1.0"},
                          {"NAME": '"IIO ALS"', "IIO_SENSOR_PROXY_TYPE": "iio-poll-als"})
        self.start_proxy()
        self.expect_entry("light", "iio-als", "iio-poll-als", ["in_illuminance_input"])
        self.monitor_light(device, "10.000000 (lux)", "in_illuminance_input", "20", "20.000000 (lux)")

    def test_a_proximity_sensor_named_iio_prox_is_offered_near_and_far(self):
        """iio-prox with in_proximity_raw and udev PROXIMITY_NEAR_LEVEL: monitor-sensor sees far, near, far"""
        device = self.add("iio", "iio-prox", {"in_proximity_raw": "1"},
                          {"NAME": '"IIO proximity sensor"', "IIO_SENSOR_PROXY_TYPE": "iio-poll-proximity",
                           "PROXIMITY_NEAR_LEVEL": "100"})
        self.start_proxy()
        self.expect_entry("proximity", "iio-prox", "iio-poll-proximity", ["in_proximity_raw", "udev PROXIMITY_NEAR_LEVEL"])
        monitor = self.monitor_sensor()
        monitor.printed(r"=== Has proximity sensor \(near: 0\)")
        self.sysfs.set_attribute(device, "in_proximity_raw", "200")
        monitor.printed(r"Proximity value changed: 1")
        self.sysfs.set_attribute(device, "in_proximity_raw", "1")
        monitor.printed(r"Proximity value changed: 0")
        print("\n  [monitor-sensor] " + "\n  [monitor-sensor] ".join(monitor.lines))

    def test_a_proximity_sensor_with_channel_0_and_a_sysfs_near_level(self):
        """iio-prox with in_proximity0_raw and sysfs in_proximity_nearlevel, untagged: near and far"""
        device = self.add("iio", "iio-prox", {"in_proximity0_raw": "1", "in_proximity_nearlevel": "50"},
                          {"NAME": '"IIO proximity sensor"'})
        self.start_proxy()
        self.expect_entry("proximity", "iio-prox", "iio-poll-proximity", ["in_proximity0_raw", "in_proximity_nearlevel"])
        client = self.client()
        self.assertTrue(client.get("HasProximity"))
        client.call("ClaimProximity")
        self.assertFalse(client.get("ProximityNear"))
        self.sysfs.set_attribute(device, "in_proximity0_raw", "80")
        client.wait_signal("ProximityNear", True)

    def test_apple_smc_light_on_its_platform_device(self):
        """applesmc.768 (platform) with light (10,10), tagged hwmon-als: 3.92 vendor units, then (255,0) gives 100"""
        device = self.add("platform", "applesmc.768", {"light": "(10,10)\n", "name": "applesmc\n"},
                          {"IIO_SENSOR_PROXY_TYPE": "hwmon-als"})
        self.start_proxy()
        self.expect_entry("light", "applesmc.768", "hwmon-als", ["light"])
        # Polled every 2 s: the change may take a poll and a half to show.
        self.monitor_light(device, "3.921569 (vendor)", "light", "(255,0)", "100.000000 (vendor)", timeout=8)

    def test_a_trigger_is_never_taken_for_a_sensor(self):
        """trigger0, even tagged iio-poll-als by a rule gone wrong, is neither offered nor listed; the light beside it is"""
        self.add("iio", "trigger0", {"name": "als-dev0", "sampling_frequency": "10"}, {"IIO_SENSOR_PROXY_TYPE": "iio-poll-als"})
        self.add("iio", "iio-als", {"in_illuminance_input": "10"}, {"IIO_SENSOR_PROXY_TYPE": "iio-poll-als"})
        self.start_proxy()
        self.assertTrue(self.client().get("HasAmbientLight"))
        devices = [device for _, device in self.sensors()]
        self.assertEqual(devices, ["iio-als"])
        self.assertNotIn("trigger0", self.daemon.log())

    def test_a_tagged_device_with_no_channels_is_skipped_with_its_reason(self):
        """iio-als tagged iio-poll-als with a name and no channel: HasAmbientLight false, status says why"""
        self.add("iio", "iio-als", {"name": "als"}, {"IIO_SENSOR_PROXY_TYPE": "iio-poll-als"})
        self.start_proxy()
        self.assertFalse(self.client().get("HasAmbientLight"))
        entry = self.sensors()[("light", "iio-als")]
        reason = "udev names iio-poll-als for it (IIO_SENSOR_PROXY_TYPE) but iio-poll-als finds nothing it can read"
        self.assertEqual((entry["state"], entry["reason"]), ("skipped", reason), entry)
        self.assertIn(reason, self.status())


class AccelerometerLayoutTests(LayoutTestCase):
    def test_the_first_claim_on_a_26_g_device_answers_its_orientation(self):
        """iio-accel reading raw -25.6 x scale 10 (26 g): the first ClaimAccelerometer's reply is followed by normal"""
        device = self.add("iio", "iio-accel",
                          {"in_accel_x_raw": "0", "in_accel_y_raw": "-25.6", "in_accel_z_raw": "0",
                           "in_accel_scale": "10", "sampling_frequency": "5.2"},
                          {"NAME": '"IIO Accelerometer"', "IIO_SENSOR_PROXY_TYPE": "iio-poll-accel"})
        self.start_proxy()
        self.expect_entry("accelerometer", "iio-accel", "iio-poll-accel",
                          ["in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw", "in_accel_scale"])
        client = self.client()
        client.call("ClaimAccelerometer")
        self.assertEqual(client.get("AccelerometerOrientation"), "normal")
        # The gates still learn the magnitude: one warning, and it turns.
        self.daemon.wait_for_log(r"iio-accel: readings at rest are 26\.1 g")
        self.sysfs.set_raw(device, x=25.6, y=0)
        client.wait_signal("AccelerometerOrientation", "left-up", timeout=START_S)

    def test_the_first_get_on_a_26_g_device_answers_its_orientation(self):
        """the socket's first get on the 26 g device (an idle sensor sampled for it) answers normal"""
        self.add("iio", "iio-accel", {"in_accel_x_raw": "0", "in_accel_y_raw": "-25.6", "in_accel_z_raw": "0",
                                      "in_accel_scale": "10"}, {"IIO_SENSOR_PROXY_TYPE": "iio-poll-accel"})
        self.start_proxy()
        self.assertEqual(self.connect().get()["physical"], "normal")

    def test_an_input_accelerometer_with_no_resolution_lying_still_gets_its_orientation(self):
        """resolution 0, (0, -256, 0) at open and no event after: the claim answers normal, g is learned, it turns"""
        node = ev.EvdevNode(self.sysfs.testbed, "input-accelerometer", ioctl="input-accelerometer-no-resolution")
        self.start_proxy()
        self.expect_entry("accelerometer", "event6", "input-accel", ["/dev/input/event6", "ABS_X", "ABS_Y", "ABS_Z"])
        client = self.client()
        client.call("ClaimAccelerometer")
        self.assertEqual(client.get("AccelerometerOrientation"), "normal")
        # Still and silent, it is at rest: its g is learned, once.
        self.daemon.wait_for_log(r"event6: readings at rest are 26\.1 g, not 1 g: taking 256 m/s² as g; "
                                 r"the input device gives no resolution, or a wrong one \(EVIOCGABS\): fix the driver")
        node.send(ev.abs_frame(x=256, y=0))
        client.wait_signal("AccelerometerOrientation", "left-up", timeout=START_S)
        # Lying still at left-up, its next rest is judged a second after the turn:
        # the same g, so no second warning in the 2 s that follow.
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            self.assertEqual(len(re.findall(r"readings at rest are", self.daemon.log())), 1, self.daemon.log_tail())
            time.sleep(0.1)
