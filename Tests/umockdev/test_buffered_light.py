"""A HID sensor hub's light sensor through the IIO buffer, on the socket: the
real orientd under `umockdev-run -d buffered/hid-sensor-als.umockdev -s
/dev/iio:device0=buffered/hid-sensor-als.script` (test_buffered.py's `BufferedTestCase`),
a `watch-sensors` client, and `orientctl status`.

    umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -p 'test_buffered_light.py' -v

The fixture and its script are make_fixtures.py's (its docstring says what they
model). umockdev-run loads the script when it starts, so the script holds its
first level for 3 s: the watcher must open the sensor within that time.
"""

import json
import time
import unittest

from test_buffered import BufferedTestCase, make_fixtures

LEVELS = [level for level, _ in make_fixtures.LIGHT_SEQUENCE]


def follow_levels(client, expected, timeout):
    """Reads `sensor` messages for the light until the distinct levels seen are
    `expected`, a wrong one turns up, or the deadline passes; returns (levels, messages)."""
    seen, messages = [], []
    deadline = time.monotonic() + timeout
    while len(seen) < len(expected) and all(abs(a - b) < 1e-6 for a, b in zip(seen, expected)):
        message = client.next_message(max(0.0, deadline - time.monotonic()))
        if message is None:
            break
        messages.append(message)
        if message.get("type") != "sensor" or message.get("sensor") != "light" or "level" not in message:
            continue
        if not seen or abs(seen[-1] - message["level"]) > 1e-6:
            seen.append(message["level"])
    return seen, messages


class BufferedLightTests(BufferedTestCase):
    def light(self):
        """The light sensors `orientctl status --json` lists (run outside any testbed)."""
        env = {k: v for k, v in self.environment().items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}
        return [s for s in json.loads(self.daemon.status("--json", env=env))["daemon"]["sensors"] if s["kind"] == "light"]

    def test_hid_light_is_captured_while_watched_and_levels_follow_the_script_in_lux(self):
        """watch-sensors light: the ok says present, then sensor messages follow the script, (raw + in_intensity_offset)
        x in_intensity_scale in lux; status shows iio-buffer-als in use, its sources and the level; [] stops capture"""
        daemon = self.start_buffered("hid-sensor-als", "hid-sensor-als.script")
        self.assertEqual(self.sysfs("buffer/enable"), "0", "capturing before anyone watched")
        light = self.light()
        self.assertEqual([(s["device"], s["driver"], s["state"]) for s in light], [("iio:device0", "iio-buffer-als", "idle")])
        client = self.connect()
        client.send({"op": "watch-sensors", "seq": 1, "sensors": ["light"]})
        ok = client.next_message(5)
        self.assertEqual((ok or {}).get("type"), "ok", f"{ok}\n{daemon.log()}")
        self.assertEqual(ok["sensors"][0]["sensor"], "light")
        self.assertTrue(ok["sensors"][0]["present"], ok)
        seen, messages = follow_levels(client, LEVELS, timeout=10)
        self.assertEqual(seen, LEVELS, f"messages: {messages}\nstderr:\n{daemon.log()}")
        self.assertTrue(all(m.get("unit") == "lux" for m in messages if m.get("type") == "sensor" and "level" in m), messages)
        self.wait_sysfs({"buffer/enable": "1", "trigger/current_trigger": "als-dev0"}, 2)
        light = self.light()
        self.assertEqual(len(light), 1, light)
        self.assertEqual({k: light[0][k] for k in ("device", "driver", "state", "value")},
                         {"device": "iio:device0", "driver": "iio-buffer-als", "state": "in-use", "value": "3000 lux"})
        self.assertEqual(light[0]["sources"],
                         ["scan_elements/in_intensity_both_en", "in_intensity_scale", "in_intensity_offset"])
        client.send({"op": "watch-sensors", "seq": 2, "sensors": []})
        # Capture off after the last watcher stopped.
        self.wait_sysfs({"buffer/enable": "0", "scan_elements/in_intensity_both_en": "0",
                         "scan_elements/in_timestamp_en": "0"}, 3)
        self.assertTrue(daemon.alive(), daemon.log())
        self.assertEqual(daemon.stop(), 0, daemon.log())
        self.assertFalse([line for line in daemon.output.lines() if "iio-poll-als" in line])


if __name__ == "__main__":
    unittest.main()
