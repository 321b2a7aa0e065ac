"""A HID sensor hub's light sensor through the IIO buffer, on the socket: the
real orientd under `umockdev-run -d buffered/hid-sensor-als.umockdev -s
/dev/iio:device0=buffered/hid-sensor-als.script` (test_buffered.py's `Daemon`),
a `watch-sensors` client, and `orientctl status`.

    umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -p 'test_buffered_light.py' -v

The fixture and its script are make_fixtures.py's (its docstring says what they
model). umockdev-run loads the script when it starts, so the script holds its
first level for 3 s: the watcher must open the sensor within that time.
"""

import json
import os
import subprocess
import time
import unittest

from harness import ORIENTCTL
from test_buffered import Daemon, ORIENTD, UMOCKDEV_RUN, make_fixtures

LEVELS = [level for level, _ in make_fixtures.LIGHT_SEQUENCE]


def follow_levels(client, expected, timeout):
    """Reads `sensor` messages for the light until the distinct levels seen are
    `expected`, a wrong one turns up, or the deadline passes; returns (levels, messages)."""
    seen, messages = [], []
    deadline = time.monotonic() + timeout
    while len(seen) < len(expected) and all(abs(a - b) < 1e-6 for a, b in zip(seen, expected)):
        message = client.read(max(0.0, deadline - time.monotonic()))
        if message is None:
            break
        messages.append(message)
        if message.get("type") != "sensor" or message.get("sensor") != "light" or "level" not in message:
            continue
        if not seen or abs(seen[-1] - message["level"]) > 1e-6:
            seen.append(message["level"])
    return seen, messages


@unittest.skipUnless(UMOCKDEV_RUN, "umockdev-run is not installed (Debian package umockdev)")
class BufferedLightTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not ORIENTD.is_file():
            raise AssertionError(f"{ORIENTD} is missing: build first (swift build)")

    def status(self, daemon):
        root = daemon.tmp / "root"
        (root / "proc").mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}
        env["ORIENTCTL_SYSROOT"] = str(root)
        run = subprocess.run([str(ORIENTCTL), "--socket", daemon.socket_path, "status", "--json"], env=env,
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(run.returncode, 0, run.stderr)
        return json.loads(run.stdout)["daemon"]

    def test_hid_light_is_captured_while_watched_and_levels_follow_the_script_in_lux(self):
        """watch-sensors light: the ok says present, then sensor messages follow the script, (raw + in_intensity_offset)
        x in_intensity_scale in lux; status shows iio-buffer-als in use, its sources and the level; [] stops capture"""
        daemon = Daemon(self, "hid-sensor-als", "hid-sensor-als.script")
        self.assertEqual(daemon.sysfs("buffer/enable"), "0", "capturing before anyone watched")
        light = [s for s in self.status(daemon)["sensors"] if s["kind"] == "light"]
        self.assertEqual([(s["device"], s["driver"], s["state"]) for s in light], [("iio:device0", "iio-buffer-als", "idle")])
        client = daemon.connect()
        client.send({"op": "watch-sensors", "seq": 1, "sensors": ["light"]})
        ok = client.read(5)
        self.assertEqual((ok or {}).get("type"), "ok", f"{ok}\n{daemon.log.text()}")
        self.assertEqual(ok["sensors"][0]["sensor"], "light")
        self.assertTrue(ok["sensors"][0]["present"], ok)
        seen, messages = follow_levels(client, LEVELS, timeout=10)
        self.assertEqual(seen, LEVELS, f"messages: {messages}\nstderr:\n{daemon.log.text()}")
        self.assertTrue(all(m.get("unit") == "lux" for m in messages if m.get("type") == "sensor" and "level" in m), messages)
        self.assertEqual(daemon.wait_sysfs({"buffer/enable": "1", "trigger/current_trigger": "als-dev0"}, 2),
                         {"buffer/enable": "1", "trigger/current_trigger": "als-dev0"})
        light = [s for s in self.status(daemon)["sensors"] if s["kind"] == "light"]
        self.assertEqual(len(light), 1, light)
        self.assertEqual({k: light[0][k] for k in ("device", "driver", "state", "value")},
                         {"device": "iio:device0", "driver": "iio-buffer-als", "state": "in-use", "value": "3000 lux"})
        self.assertEqual(light[0]["sources"],
                         ["scan_elements/in_intensity_both_en", "in_intensity_scale", "in_intensity_offset"])
        client.send({"op": "watch-sensors", "seq": 2, "sensors": []})
        off = {"buffer/enable": "0", "scan_elements/in_intensity_both_en": "0", "scan_elements/in_timestamp_en": "0"}
        self.assertEqual(daemon.wait_sysfs(off, 3), off, "capture stays on after the last watcher stopped")
        self.assertIsNone(daemon.process.poll(), daemon.log.text())
        self.assertEqual(daemon.stop(), 0, daemon.log.text())
        self.assertFalse([line for line in daemon.log.lines() if "iio-poll-als" in line])


if __name__ == "__main__":
    unittest.main()
