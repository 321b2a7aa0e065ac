"""The sensor is sampled only while someone needs it (docs/behaviour.md, Power; get in docs/protocol.md)."""

import sys
import time
import unittest

from harness import DaemonTestCase, NORMAL_RAW

HID = "hid-sensor-hub-accel_3d.umockdev"
#: The length of each wakeup-counting window (the brief: several seconds).
QUIET_WINDOW_S = 3.0


class SamplingOnDemandTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.device = self.sysfs.add(HID)

    def test_with_no_subscriber_the_sensor_is_idle_and_a_subscriber_makes_it_active(self):
        """with no subscriber the sensor is idle, and a subscriber makes it active and gets normal for the upright device"""
        daemon = self.start_daemon()
        daemon.wait_for_log(r"accelerometer: iio:device3 \(accel_3d\)")
        first = self.connect()
        self.assertNotIn("sampling at", daemon.log(), "the sensor was opened with nobody subscribed")
        reply = first.subscribe()
        # The reply is the state as it was when the request arrived: nobody
        # subscribed, so the sensor was found but not opened.
        self.assertEqual(reply["sensor"], "idle", reply)
        state = first.wait_state(lambda s: s["sensor"] == "active" and s["physical"] == "normal", 3,
                                 "an active sensor reading normal")
        self.assertEqual(state["orientation"], "normal")
        self.assertEqual(state["tilt"], "vertical")
        self.assertEqual(state["rotation"], 0)

        # The last subscriber leaving makes it idle again.
        self.assertEqual(first.request("unsubscribe")["type"], "ok")
        second = self.connect()
        self.assertEqual(second.subscribe()["sensor"], "idle")
        second.wait_sensor("active")

    def test_with_no_subscriber_the_daemon_makes_no_wakeups(self):
        """with no subscriber the daemon makes no wakeups; a subscriber wakes it; after it leaves the count stops rising"""
        daemon = self.start_daemon()
        daemon.wait_for_log(r"accelerometer: iio:device3")
        observer = self.connect()  # an idle connection must not cost wakeups either
        self.settle()

        idle_before, threads = daemon.context_switches()
        time.sleep(QUIET_WINDOW_S)  # the measurement window itself, not a wait for a condition
        idle_after, threads_after = daemon.context_switches()

        subscriber = self.connect()
        subscriber.subscribe()
        subscriber.wait_state(lambda s: s["sensor"] == "active" and s["physical"] == "normal", 3, "active, normal")
        busy_before, _ = daemon.context_switches()
        time.sleep(1.0)  # measurement window
        busy_after, _ = daemon.context_switches()

        subscriber.close()
        self.clients.remove(subscriber)
        self.settle()
        left_before, _ = daemon.context_switches()
        time.sleep(QUIET_WINDOW_S)  # measurement window
        left_after, _ = daemon.context_switches()

        report = (f"context switches: idle {QUIET_WINDOW_S:g} s +{idle_after - idle_before}; "
                  f"subscribed 1 s +{busy_after - busy_before}; "
                  f"after the subscriber left {QUIET_WINDOW_S:g} s +{left_after - left_before}; "
                  f"threads {sorted(name for name, _ in threads.values())}")
        sys.stderr.write(f"\n  [wakeups] {report}\n")
        changed = {tid: (threads[tid], threads_after.get(tid)) for tid in threads if threads_after.get(tid) != threads[tid]}
        self.assertEqual(idle_after - idle_before, 0, f"{report}; threads that woke: {changed}\n{daemon.log_tail()}")
        self.assertGreaterEqual(busy_after - busy_before, 5, report)
        self.assertEqual(left_after - left_before, 0, f"{report}\n{daemon.log_tail()}")
        self.assertEqual(observer.get(timeout=1.5)["physical"], "normal")

    def test_get_with_no_subscriber_answers_within_a_second_with_a_fresh_reading(self):
        """get with no subscriber answers within a second with a fresh reading"""
        self.start_daemon()
        client = self.connect()
        start = time.monotonic()
        first = client.get(timeout=1.0)
        self.assertLess(time.monotonic() - start, 1.0)
        self.assertEqual(first["physical"], "normal", first)
        self.assertEqual(first["tilt"], "vertical", first)

    # A get on an idle sensor is answered from fresh readings: a turn made while
    # nobody was subscribed shows at once, not the orientation from before.
    def test_get_after_a_turn_while_idle_shows_the_new_orientation(self):
        """get after the device turned while nobody was subscribed shows the new orientation, within a second"""
        self.start_daemon()
        client = self.connect()
        self.assertEqual(client.get(timeout=1.0)["physical"], "normal")

        self.sysfs.set_raw(self.device, x=256, y=0)
        start = time.monotonic()
        second = client.get(timeout=1.0)
        elapsed = time.monotonic() - start
        self.assertLess(elapsed, 1.0)
        self.assertEqual(second["physical"], "left-up", f"{second} (answered after {elapsed * 1000:.0f} ms)")
        self.assertEqual(second["orientation"], "left-up", second)

        self.sysfs.set_raw(self.device, **NORMAL_RAW)
        self.assertEqual(client.get(timeout=1.0)["physical"], "normal")
