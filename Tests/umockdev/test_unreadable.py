"""A device that cannot be read is skipped, never recursed on
(docs/behaviour.md, Faults).

`scan-elements-no-raw.umockdev` models a cros-ec accelerometer as sysfs shows
it with the device node missing: scan elements, no `in_accel_*_raw`
attributes, and a buffer that cannot start (no /dev/iio:device1). orientd
used to go round open → poll → read fails → rescan → open without returning
until the stack overflowed (14–17 s).
"""

import json
import time

from harness import DaemonTestCase

DEVICE = "scan-elements-no-raw.umockdev"
#: The issue's bar: the daemon keeps running and answering for a minute.
WATCH_S = 60.0


class UnreadableDeviceTests(DaemonTestCase):
    def test_a_device_with_nothing_to_read_is_skipped_and_the_daemon_answers_for_a_minute(self):
        """scan elements, no raw attributes, a buffer that cannot start: skipped with the reason; status answers for a minute"""
        self.sysfs.add(DEVICE, node=False)
        self.start_daemon()
        client = self.connect()
        client.subscribe()  # someone wants readings: the sensor is opened
        self.daemon.wait_for_log(r"iio:device1: has scan elements but its buffer cannot start")
        deadline = time.monotonic() + WATCH_S
        answers = 0
        while time.monotonic() < deadline:
            self.assertTrue(self.daemon.alive(), self.daemon.log_tail())
            status = json.loads(self.status("--json"))
            self.assertNotEqual(status["daemon"]["sensor"]["state"], "active", status)
            answers += 1
            time.sleep(2)
        self.assertGreaterEqual(answers, 20)
        self.assertEqual(client.get()["sensor"], "absent")
        # Skipped once, not retried in a loop.
        self.assertEqual(self.daemon.log().count("has scan elements but its buffer cannot start"), 1, self.daemon.log_tail())
