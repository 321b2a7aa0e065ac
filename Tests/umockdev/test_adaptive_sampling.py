"""The polled path slows down while the device rests and speeds up when it
moves (SamplingPolicy, docs/configuration.md `[sensor]`), keeping its raw
attribute files open while it samples.

Reads are counted as context switches of the device's reader thread (named
after the device: it blocks once between two reads, `Poller`); the daemon's
threads together switch at most three times a read (the loop's timer, the
hand-off to the reader, the reading coming back) and a little more. The
windows are fixed lengths, and the bounds leave wide margins for a loaded
two-core machine.
"""

import os
import sys
import time
import unittest
from pathlib import Path

from harness import DaemonTestCase, NORMAL_RAW, wait_until

HID = "hid-sensor-hub-accel_3d.umockdev"
#: The length of a counting window.
WINDOW_S = 3.0
#: Defaults: 400 ms between readings while still, full rate for 2 s after motion.
STILL_INTERVAL_S = 0.4
STILL_AFTER_S = 2.0


class AdaptiveSamplingTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.device = self.sysfs.add(HID)

    def raw_fds(self, daemon):
        """The daemon's open fds on the raw attribute files (fd -> target)."""
        found = {}
        fd_dir = f"/proc/{daemon.pid}/fd"
        for fd in os.listdir(fd_dir):
            try:
                target = os.readlink(f"{fd_dir}/{fd}")
            except FileNotFoundError:
                continue
            if os.path.basename(target).startswith("in_accel_") and target.endswith("_raw") or "_raw (deleted)" in target:
                found[int(fd)] = target
        return found

    def rate(self, daemon, seconds=WINDOW_S):
        """Reads of the device per second over a fixed window (its reader
        thread's context switches); checks that at rest the daemon's threads
        together switch at most three times a read, and twice a second more."""
        def reader(threads):
            return sum(count for name, count in threads.values() if name.startswith("iio:device"))
        before, threads_before = daemon.context_switches()
        time.sleep(seconds)  # the measurement window itself
        after, threads_after = daemon.context_switches()
        reads = (reader(threads_after) - reader(threads_before)) / seconds
        total = (after - before) / seconds
        if reads <= 5:  # at rest (at the full rate the classifier's deadlines add wakeups of their own)
            self.assertLessEqual(total, 3 * reads + 2, f"{total:.1f} context switches a second for {reads:.1f} reads: {threads_after}")
        return reads

    def subscribed_daemon(self):
        daemon = self.start_daemon()
        daemon.wait_for_log(r"accelerometer: iio:device3")
        client = self.connect()
        client.subscribe()
        client.wait_state(lambda s: s["sensor"] == "active" and s["physical"] == "normal", 3, "active, normal")
        daemon.wait_for_log(r"sampling at 20 Hz \(polled; every 400 ms while still\)")
        return daemon, client

    def test_a_still_device_is_read_a_few_times_a_second_and_a_turn_still_arrives_promptly(self):
        """a still device is read about 2.5 times a second, not 20; a turn is published within a still interval and a bit of the write"""
        daemon, client = self.subscribed_daemon()
        time.sleep(STILL_AFTER_S + 0.5)  # past the session's first second at the full rate
        still = self.rate(daemon)

        self.sysfs.set_raw(self.device, x=256, y=0)
        written = time.monotonic()
        client.wait_physical("left-up")
        latency = time.monotonic() - written

        # Right after the turn: the full rate, for still-after.
        moving = self.rate(daemon, seconds=0.6)
        time.sleep(STILL_AFTER_S)
        still_again = self.rate(daemon)
        report = (f"reads per s: still {still:.1f}, just after the turn {moving:.1f}, "
                  f"still again {still_again:.1f}; turn published {latency * 1000:.0f} ms after the write")
        sys.stderr.write(f"\n  [adaptive] {report}\n")
        self.assertLessEqual(still, 5.0, f"{report}\n{daemon.log_tail()}")
        self.assertGreaterEqual(still, 1.0, f"the daemon stopped sampling: {report}")
        # At most one still interval before a reading sees it, then the steady
        # path's 80 ms at the full rate; the rest is margin for a loaded machine.
        self.assertLess(latency, STILL_INTERVAL_S + 0.8, report)
        self.assertGreaterEqual(moving, 8, f"the full rate did not come back after the turn: {report}")
        self.assertLessEqual(still_again, 5.0, f"{report}\n{daemon.log_tail()}")

    def test_several_turns_in_a_row_are_each_published(self):
        """turns written while the daemon reads slowly are each published, back and forth"""
        daemon, client = self.subscribed_daemon()
        for raw, orientation in ((dict(x=256, y=0), "left-up"), (NORMAL_RAW, "normal"),
                                 (dict(x=-256, y=0), "right-up"), (NORMAL_RAW, "normal")):
            time.sleep(STILL_AFTER_S + STILL_INTERVAL_S)  # let it slow down again before each turn
            self.sysfs.set_raw(self.device, **raw)
            client.wait_physical(orientation)

    def test_a_recording_gets_every_reading_at_the_full_rate_while_the_device_rests(self):
        """a client recording samples gets them at the sample rate even while the device rests; the rate drops when it leaves"""
        daemon, client = self.subscribed_daemon()
        recorder = self.connect()
        self.assertEqual(recorder.request("samples")["type"], "ok")
        time.sleep(STILL_AFTER_S + 0.5)  # well past any motion: only the recording keeps the rate up
        start = time.monotonic()
        times = []
        while time.monotonic() - start < 2.0:  # the measurement window
            message = recorder.next_message(0.5)
            if message is not None and message.get("type") == "sample":
                times.append(message["t_ms"])
        rate = (len(times) - 1) * 1000 / (times[-1] - times[0]) if len(times) > 1 else 0
        sys.stderr.write(f"\n  [adaptive] recording: {len(times)} samples in 2 s ({rate:.1f} Hz)\n")
        # By the readings' own times (some were queued before the window): 20 Hz, not 2.5.
        self.assertGreaterEqual(rate, 12, f"{len(times)} samples at {rate:.1f} Hz while recording a still device")

        recorder.close()
        self.clients.remove(recorder)
        time.sleep(STILL_AFTER_S + 0.5)
        self.assertLessEqual(self.rate(daemon), 5.0, daemon.log_tail())

    @unittest.skipUnless(os.geteuid() == 0, "needs root to connect as another uid")
    def test_a_recording_by_a_user_other_than_root_never_keeps_the_sensor_at_full_rate(self):
        """samples-permission = seat: the seat user's recording gets the readings the sensor takes
        anyway (400 ms apart while the device rests), not the full rate root's recording gets"""
        Path(self.workdir, "orientd.conf").write_text(
            "[orientation]\nnatural = portrait\n[daemon]\nsamples-permission = seat\nseat-users = 1000\n")
        daemon, client = self.subscribed_daemon()
        recorder = self.connect_as(1000)
        reply = recorder.request("samples")
        self.assertEqual(reply["type"], "ok", reply)
        time.sleep(STILL_AFTER_S + 0.5)  # well past any motion
        start = time.monotonic()
        times = []
        while time.monotonic() - start < 2.0:  # the measurement window
            message = recorder.next_message(0.5)
            # t_ms is CLOCK_MONOTONIC, as time.monotonic(): only readings taken
            # in the window (the ones queued before it were taken at full rate).
            if message is not None and message.get("type") == "sample" and message["t_ms"] >= start * 1000:
                times.append(message["t_ms"])
        rate = (len(times) - 1) * 1000 / (times[-1] - times[0]) if len(times) > 1 else 0
        sys.stderr.write(f"\n  [adaptive] recording by uid 1000: {len(times)} samples in 2 s ({rate:.1f} Hz)\n")
        self.assertGreaterEqual(len(times), 2, "the seat user's recording got no samples")
        self.assertLessEqual(rate, 5, f"{len(times)} samples at {rate:.1f} Hz: the recording kept the sensor at full rate")
        self.assertLessEqual(self.rate(daemon), 5.0, daemon.log_tail())

    def test_the_raw_attributes_stay_open_while_sampled_and_are_closed_when_sampling_stops(self):
        """the three raw attribute files stay open while sampled (reopened once each when replaced) and close when the last subscriber leaves"""
        daemon, client = self.subscribed_daemon()
        first = wait_until(lambda: len(self.raw_fds(daemon)) == 3 and self.raw_fds(daemon), 3,
                           "three open raw attribute files")
        self.assertEqual(sorted(os.path.basename(t) for t in first.values()),
                         ["in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw"], first)
        # The same descriptors a second later: not reopened per reading.
        time.sleep(1.0)
        self.assertEqual(self.raw_fds(daemon), first)

        # Replacing the files (the testbed renames a new file over each) is
        # followed: the new values are read, and no descriptor leaks.
        self.sysfs.set_raw(self.device, x=256, y=0)
        client.wait_physical("left-up")
        wait_until(lambda: all(not t.endswith("(deleted)") for t in self.raw_fds(daemon).values()), 3,
                   "the replaced files to be reopened", detail=lambda: str(self.raw_fds(daemon)))
        self.assertEqual(len(self.raw_fds(daemon)), 3, self.raw_fds(daemon))

        client.request("unsubscribe")
        wait_until(lambda: not self.raw_fds(daemon), 3, "the raw attribute files to be closed",
                   detail=lambda: str(self.raw_fds(daemon)))


if __name__ == "__main__":
    unittest.main()
