"""`orientctl status` (text and `--json`) lists every sensor the daemon found on
the hardware path: the accelerometer, a light sensor idle until watched and in
use with its level while watched, a proximity sensor in use, and a proximity
sensor without a near level skipped with its reason, its fix in `problems`.

Devices (Tests/umockdev/devices): i2c-mxc4005 (iio:device4, the accelerometer),
iio-als-bh1750-illuminance-raw (iio:device2: 100 x 0.5 = 50 lux),
iio-proximity-vcnl4000-sysfs-nearlevel (iio:device3, near level 50 in sysfs)
and iio-proximity-no-nearlevel (an apds9960 with no near level anywhere),
renumbered here to iio:device5 (its file says iio:device3, the vcnl4000's
number: two devices cannot share one).
"""

import json

from harness import DaemonTestCase, wait_until

MXC4005 = "i2c-mxc4005.umockdev"
BH1750 = "iio-als-bh1750-illuminance-raw.umockdev"
VCNL4000 = "iio-proximity-vcnl4000-sysfs-nearlevel.umockdev"
NO_NEAR_LEVEL = "iio-proximity-no-nearlevel.umockdev"
NEAR_LEVEL_FIX = ("give it a near level: a hwdb entry setting PROXIMITY_NEAR_LEVEL for the device (see systemd's "
                  "60-sensor.hwdb), or the device tree's proximity-near-level")
NO_NEAR_LEVEL_REASON = "no near level (udev PROXIMITY_NEAR_LEVEL or sysfs in_proximity_nearlevel)"


class StatusSensorsTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.accel = self.sysfs.add(MXC4005)
        self.light = self.sysfs.add(BH1750)
        self.proximity = self.sysfs.add(VCNL4000)
        renumbered = self.sysfs.description(NO_NEAR_LEVEL).replace("iio:device3", "iio:device5") \
            .replace("MINOR=3", "MINOR=5").replace("dev=241:3", "dev=241:5")
        self.sysfs.testbed.add_from_string(renumbered)
        self.skipped = "/sys" + renumbered.split("\n", 1)[0][3:]

    def sensors(self):
        daemon = json.loads(self.status("--json"))["daemon"]
        return {(s["kind"], s["device"]): s for s in daemon["sensors"]}, daemon["problems"]

    def test_status_lists_every_sensor_its_driver_state_and_the_skipped_ones_fix(self):
        """status --json: accelerometer, light (iio-poll-als, idle then in use with 50 lux and its sources), proximity
        in use (far), the apds9960 skipped with its reason, and the fix in problems; the text says the same"""
        self.start_daemon()
        self.daemon.wait_for_log(r"proximity: skipping iio:device5")
        sensors, problems = self.sensors()
        self.assertEqual(sorted(sensors), [("accelerometer", "iio:device4"), ("light", "iio:device2"),
                                           ("proximity", "iio:device3"), ("proximity", "iio:device5")])
        self.assertEqual(sensors[("accelerometer", "iio:device4")]["syspath"], self.accel)
        light = sensors[("light", "iio:device2")]
        self.assertEqual({k: light[k] for k in ("syspath", "driver", "state", "value")},
                         {"syspath": self.light, "driver": "iio-poll-als", "state": "idle", "value": None})
        self.assertEqual({k: sensors[("proximity", "iio:device3")][k] for k in ("driver", "state", "value")},
                         {"driver": "iio-poll-proximity", "state": "idle", "value": None})
        # What each would read is known before it is opened.
        self.assertEqual(light["sources"], ["in_illuminance_raw", "in_illuminance_scale"])
        self.assertEqual(sensors[("proximity", "iio:device3")]["sources"], ["in_proximity0_raw", "in_proximity_nearlevel"])
        skipped = sensors[("proximity", "iio:device5")]
        self.assertEqual({k: skipped[k] for k in ("syspath", "driver", "state", "reason", "value")},
                         {"syspath": self.skipped, "driver": "iio-poll-proximity", "state": "skipped",
                          "reason": NO_NEAR_LEVEL_REASON, "value": None})
        self.assertIn({"sensor": "iio:device5", "problem": f"proximity sensor not offered: {NO_NEAR_LEVEL_REASON}",
                       "fix": NEAR_LEVEL_FIX}, problems)

        watcher = self.connect()
        reply = watcher.request("watch-sensors", sensors=["light", "proximity"])
        self.assertEqual(reply["type"], "ok", reply)

        def in_use():
            sensors, _ = self.sensors()
            light, proximity = sensors[("light", "iio:device2")], sensors[("proximity", "iio:device3")]
            return (light["state"], light["value"], proximity["state"], proximity["value"]) == \
                ("in-use", "50 lux", "in-use", "far") and sensors
        sensors = wait_until(in_use, 5, "light and proximity in use with their values",
                             detail=lambda: f"{self.sensors()}\n{self.daemon.log_tail()}")
        self.assertEqual(sensors[("light", "iio:device2")]["sources"], ["in_illuminance_raw", "in_illuminance_scale"])
        self.assertEqual(sensors[("proximity", "iio:device3")]["sources"], ["in_proximity0_raw", "in_proximity_nearlevel"])
        self.assertEqual(sensors[("proximity", "iio:device5")]["state"], "skipped")

        text = self.status()
        for line in (
            "light iio:device2 (iio-poll-als), in use: 50 lux\n",
            "  reads in_illuminance_raw, in_illuminance_scale\n",
            "proximity iio:device3 (iio-poll-proximity), in use: far\n",
            f"proximity iio:device5 (iio-poll-proximity), skipped ({NO_NEAR_LEVEL_REASON})\n",
            f"iio:device5: proximity sensor not offered: {NO_NEAR_LEVEL_REASON}\n",
            f"fix: {NEAR_LEVEL_FIX}",
        ):
            self.assertIn(line, text)
        self.assertRegex(text, r"accelerometer iio:device4 \(")

        # Nobody watching: idle again, the level no longer vouched for.
        self.assertEqual(watcher.request("watch-sensors", sensors=[])["type"], "ok")
        wait_until(lambda: self.sensors()[0][("light", "iio:device2")]["state"] == "idle", 5, "light idle again",
                   detail=lambda: f"{self.sensors()}")
        sensors, _ = self.sensors()
        self.assertEqual(sensors[("light", "iio:device2")]["value"], None)
        self.assertEqual(sensors[("proximity", "iio:device3")]["state"], "idle")
