"""Light and proximity sensors are read only while someone wants them: with
both present and nobody watching, the daemon makes no wakeups; a watcher
makes it poll them; once the watch ends, the wakeups stop again. Counted as
test_sampling_on_demand.py counts them: voluntary + non-voluntary context
switches of every thread, from /proc/PID/task/*/status, over fixed windows.

Devices: i2c-mxc4005 (the accelerometer, iio:device4), the bh1750 light sensor
(iio:device2, integration time 120 ms: polled every 120 ms while watched) and
the vcnl4000 proximity sensor (iio:device3).
"""

import sys
import time

from harness import DaemonTestCase

#: The length of each counting window.
QUIET_WINDOW_S = 3.0


class SensorWakeupTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.sysfs.add("i2c-mxc4005.umockdev")
        self.sysfs.add("iio-als-bh1750-illuminance-raw.umockdev")
        self.sysfs.add("iio-proximity-vcnl4000-sysfs-nearlevel.umockdev")

    def window(self, seconds):
        before, threads = self.daemon.context_switches()
        time.sleep(seconds)  # the measurement window itself, not a wait for a condition
        after, threads_after = self.daemon.context_switches()
        woke = {tid: (threads[tid], threads_after.get(tid)) for tid in threads if threads_after.get(tid) != threads[tid]}
        return after - before, woke

    def test_with_light_and_proximity_present_and_unwatched_the_daemon_makes_no_wakeups(self):
        """light and proximity present, nobody watching: 0 wakeups in 3 s; watched: it polls them; after
        watch-sensors [] (and after the watcher leaves): 0 again"""
        self.start_daemon()
        self.daemon.wait_for_log(r"light: iio:device2 \(bh1750, iio-poll-als\)")
        self.daemon.wait_for_log(r"proximity: iio:device3 \(vcnl4000, iio-poll-proximity\)")
        observer = self.connect()  # an idle connection costs nothing either
        self.settle()
        idle, idle_woke = self.window(QUIET_WINDOW_S)

        watcher = self.connect()
        self.assertEqual(watcher.request("watch-sensors", sensors=["light", "proximity"])["type"], "ok")
        self.daemon.wait_for_log(r"iio:device2: light from in_illuminance_raw")
        busy, _ = self.window(1.0)

        self.assertEqual(watcher.request("watch-sensors", sensors=[])["type"], "ok")
        self.settle()
        released, released_woke = self.window(QUIET_WINDOW_S)

        self.assertEqual(watcher.request("watch-sensors", sensors=["proximity"])["type"], "ok")
        watcher.close()
        self.clients.remove(watcher)
        self.settle()
        left, left_woke = self.window(QUIET_WINDOW_S)

        report = (f"context switches: unwatched {QUIET_WINDOW_S:g} s +{idle}; watched 1 s +{busy}; "
                  f"after watch-sensors [] {QUIET_WINDOW_S:g} s +{released}; "
                  f"after a proximity watcher left {QUIET_WINDOW_S:g} s +{left}")
        sys.stderr.write(f"\n  [wakeups] {report}\n")
        self.assertEqual(idle, 0, f"{report}; threads that woke: {idle_woke}\n{self.daemon.log_tail()}")
        self.assertGreaterEqual(busy, 5, report)  # light every 120 ms, proximity on its own poll
        self.assertEqual(released, 0, f"{report}; threads that woke: {released_woke}\n{self.daemon.log_tail()}")
        self.assertEqual(left, 0, f"{report}; threads that woke: {left_woke}\n{self.daemon.log_tail()}")
        self.assertIsNotNone(observer.hello)
