"""A wrong or missing scale (docs/behaviour.md, "A wrong scale"): a device whose
readings at rest agree on a magnitude far from 1 g has that magnitude taken as
its g, so it still rotates; the daemon warns once, and `orientctl status` (text
and JSON) names the problem and its fix. `[sensor] scale` overrides the sysfs
scale, and then nothing is learned."""

import json
import os
import re

from harness import DaemonTestCase, START_S

#: in_accel_scale=1.000000 on a part that reads 256 counts per g: 26.1 g at rest.
WRONG_SCALE = "i2c-bma250-wrong-scale.umockdev"
#: No scale attribute at all, 16384 counts per g (taken as m/s^2): 1671 g at rest.
NO_SCALE = "i2c-gsensor-no-scale.umockdev"

WARNING = re.compile(r"readings at rest are")


def poses(counts):
    """Raw values for each orientation of a part reading `counts` per g (panel frame, identity matrix)."""
    return [
        ("left-up", {"x": counts, "y": 0}, 90),
        ("bottom-up", {"x": 0, "y": counts}, 180),
        ("right-up", {"x": -counts, "y": 0}, 270),
        ("normal", {"x": 0, "y": -counts}, 0),
    ]


class WrongScaleTests(DaemonTestCase):

    def rotate_through_all_four(self, device, counts, learns=True):
        """Subscribes, waits for normal (the first reading's magnitude stands for g until
        a second of rest teaches the daemon its g), then turns the device through every
        orientation and back, and waits for the rest at normal to be learned; returns the client."""
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal", timeout=START_S)
        for orientation, raw, rotation in poses(counts):
            with self.subTest(orientation=orientation):
                self.sysfs.set_raw(device, **raw)
                state = client.wait_physical(orientation)
                self.assertEqual(state["orientation"], orientation)
                self.assertEqual(state["rotation"], rotation)
        if learns:
            self.daemon.wait_for_log(WARNING.pattern)
        return client

    def expect_problem(self, sensor, problem, fix):
        """status names the problem and its fix, in text and in JSON (the daemon's and orientctl's lists)."""
        text = self.status()
        self.assertIn(f"problems:\n  {sensor}: {problem}\n    fix: {fix}\n", text)
        report = json.loads(self.status("--json"))
        self.assertEqual(report["daemon"]["problems"], [{"sensor": sensor, "problem": problem, "fix": fix}])
        self.assertIn({"problem": f"{sensor}: {problem}", "fix": fix}, report["problems"])

    def test_a_device_reading_26_g_at_rest_rotates_warns_once_and_status_names_the_fix(self):
        """a device whose scale makes it read 26 g at rest rotates through all four orientations; one warning; status names the fix"""
        device = self.sysfs.add(WRONG_SCALE)
        self.start_daemon()
        self.rotate_through_all_four(device, 256)
        line = ("warning: iio:device4: readings at rest are 26.1 g, not 1 g: taking 256 m/s² as g; "
                "fix the scale (in_accel_scale) or set `[sensor] scale = 0.038307` in the config")
        self.assertIn(line, self.daemon.log())
        self.assertEqual(len(WARNING.findall(self.daemon.log())), 1, self.daemon.log_tail())
        self.expect_problem(
            "iio:device4", "readings at rest are 26.1 g, not 1 g: taking 256 m/s² as g",
            "fix the scale (in_accel_scale) or set `[sensor] scale = 0.038307` in the config")

    def test_raw_counts_with_no_scale_attribute_rotate_warn_once_and_status_names_the_fix(self):
        """raw counts (16384 per g) with no scale attribute rotate through all four orientations; one warning; status names the fix"""
        device = self.sysfs.add(NO_SCALE)
        self.start_daemon()
        self.rotate_through_all_four(device, 16384)
        problem = "readings at rest are 1671 g, not 1 g: taking 16384 m/s² as g"
        fix = "the driver gives no scale (in_accel_scale): fix the driver or set `[sensor] scale = 0.00059855` in the config"
        self.assertIn(f"warning: iio:device1: {problem}; {fix}", self.daemon.log())
        self.assertEqual(len(WARNING.findall(self.daemon.log())), 1, self.daemon.log_tail())
        self.expect_problem("iio:device1", problem, fix)

    def test_a_configured_scale_replaces_the_sysfs_one_and_nothing_is_learned(self):
        """[sensor] scale replaces the sysfs scale: the 26 g device reads 1 g, rotates, and no g is learned or warned about"""
        device = self.sysfs.add(WRONG_SCALE)
        with open(os.path.join(self.workdir, "orientd.conf"), "w") as f:
            f.write("[orientation]\nnatural = portrait\n[sensor]\nscale = 0.038307\n")
        self.start_daemon()
        client = self.rotate_through_all_four(device, 256, learns=False)
        samples = client.request("samples")
        self.assertEqual(samples.get("type"), "ok", samples)
        sample = client.wait_message("sample", START_S)
        self.assertAlmostEqual(abs(sample["y"]), 9.807, places=2)
        self.assertIsNone(WARNING.search(self.daemon.log()), self.daemon.log_tail())
        self.assertEqual(json.loads(self.status("--json"))["daemon"]["problems"], [])
